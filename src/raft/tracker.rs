//! What a leader tracks (etcd-io/raft `tracker/`): one [`Progress`] per member, the
//! leadership transfer under way and the ReadIndex rounds waiting for a quorum.

use super::confchange::ConfState;
use super::progress::{Progress, ProgressState};
use super::quorum::JointConfig;
use super::read_only::ReadOnly;
use crate::base::{Index, MemberId};
use std::collections::BTreeSet;

#[derive(Clone, Debug)]
pub struct LeaderState {
    pub(super) progress: ByMember<Progress>,
    pub(super) transferee: Option<MemberId>,
    /// Elapsed ticks of the current transfer (aborted after an election timeout).
    pub(super) transfer_elapsed: u32,
    pub(super) reads: ReadOnly,
}

/// One value per member, in id order: a leader tracks a handful of members and looks them
/// up at every answer, where a sorted `Vec` is searched and walked for a fraction of a tree's
/// instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByMember<V>(Vec<(MemberId, V)>);

impl<V> Default for ByMember<V> {
    fn default() -> Self {
        ByMember(Vec::new())
    }
}

impl<V> ByMember<V> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, id: &MemberId) -> Option<&V> {
        let at = self.0.binary_search_by_key(id, |(k, _)| *k).ok()?;
        Some(&self.0[at].1)
    }

    pub fn get_mut(&mut self, id: &MemberId) -> Option<&mut V> {
        let at = self.0.binary_search_by_key(id, |(k, _)| *k).ok()?;
        Some(&mut self.0[at].1)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&MemberId, &V)> + Clone {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&MemberId, &mut V)> {
        self.0.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &MemberId> + Clone {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + Clone {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn insert(&mut self, id: MemberId, value: V) {
        match self.0.binary_search_by_key(&id, |(k, _)| *k) {
            Ok(at) => self.0[at].1 = value,
            Err(at) => self.0.insert(at, (id, value)),
        }
    }

    pub fn get_or_insert_with(&mut self, id: MemberId, make: impl FnOnce() -> V) -> &mut V {
        let at = match self.0.binary_search_by_key(&id, |(k, _)| *k) {
            Ok(at) => at,
            Err(at) => {
                self.0.insert(at, (id, make()));
                at
            }
        };
        &mut self.0[at].1
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&MemberId, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }
}

impl<V> std::ops::Index<&MemberId> for ByMember<V> {
    type Output = V;

    fn index(&self, id: &MemberId) -> &V {
        self.get(id).expect("a tracked member")
    }
}

impl LeaderState {
    /// A new leader's picture: every voter and learner probed from `next`, the leader itself
    /// replicating from what it has on disk (`stable`).
    pub(super) fn new(
        leader: MemberId,
        voters: BTreeSet<MemberId>,
        learners: &BTreeSet<MemberId>,
        next: Index,
        stable: Index,
        max_inflight: usize,
    ) -> LeaderState {
        let mut progress = ByMember::default();
        for id in voters.into_iter().chain(learners.iter().copied()) {
            let mut pr = Progress::new(next, max_inflight, learners.contains(&id));
            if id == leader {
                pr.match_index = stable;
                pr.become_replicate();
                pr.recent_active = true;
            }
            progress.insert(id, pr);
        }
        LeaderState {
            progress,
            transferee: None,
            transfer_elapsed: 0,
            reads: ReadOnly::default(),
        }
    }

    pub fn progress(&self) -> &ByMember<Progress> {
        &self.progress
    }

    /// The member leadership is being handed to, if a transfer is under way.
    pub fn transferee(&self) -> Option<MemberId> {
        self.transferee
    }

    /// Starts or stops tracking members as the configuration `conf` says; new ones are
    /// probed from `next`. The leader keeps tracking itself even once removed.
    pub(super) fn track(
        &mut self,
        leader: MemberId,
        conf: &ConfState,
        next: Index,
        max_inflight: usize,
    ) {
        let members = conf.members();
        self.progress
            .retain(|id, _| members.contains(id) || *id == leader);
        for id in &members {
            let pr = self
                .progress
                .get_or_insert_with(*id, || Progress::new(next, max_inflight, false));
            pr.is_learner = conf.learners.contains(id);
        }
    }

    /// The first peer (not the leader) after `after`, or the first of all with None: a walk
    /// over the peers that collects nothing, for the broadcast every proposal makes.
    pub(super) fn peer_after(&self, leader: MemberId, after: Option<MemberId>) -> Option<MemberId> {
        self.progress
            .keys()
            .copied()
            .find(|id| *id != leader && after.is_none_or(|a| *id > a))
    }

    /// The largest index a quorum of `voters` has (`Index::MAX` when there are none).
    pub(super) fn committed_index(&self, voters: &JointConfig) -> Index {
        voters.committed_index(self.progress.iter().map(|(id, pr)| (*id, pr.match_index)))
    }

    /// Check-quorum: whether a quorum was heard from since the last call, which starts a
    /// new round.
    pub(super) fn quorum_active(&mut self, leader: MemberId, voters: &JointConfig) -> bool {
        let progress = &self.progress;
        let active = voters
            .is_active(|v| v == leader || progress.get(&v).is_some_and(|pr| pr.recent_active));
        for (peer, pr) in self.progress.iter_mut() {
            pr.recent_active = *peer == leader;
        }
        active
    }

    /// Whether some follower waits for a snapshot none was sent to yet (`snapshot_wanted`
    /// without collecting: `has_ready` asks after every input).
    pub(super) fn wants_snapshot(&self) -> bool {
        self.progress.values().any(Self::snapshot_unsent)
    }

    fn snapshot_unsent(pr: &Progress) -> bool {
        pr.state == ProgressState::Snapshot && !pr.probe_sent
    }

    /// Followers waiting for a snapshot that none was sent to yet.
    pub(super) fn snapshot_wanted(&self) -> Vec<MemberId> {
        self.progress
            .iter()
            .filter(|(_, pr)| Self::snapshot_unsent(pr))
            .map(|(id, _)| *id)
            .collect()
    }

    /// The snapshot at `index` went to `to`: wait for its answer rather than resending it.
    pub(super) fn snapshot_sent(&mut self, to: MemberId, index: Index) {
        if let Some(pr) = self.progress.get_mut(&to) {
            pr.become_snapshot(index);
            pr.pending_snapshot = index;
            pr.probe_sent = true;
        }
    }

    /// One tick of a transfer under way: it is abandoned after an election timeout.
    pub(super) fn tick_transfer(&mut self, election_tick: u32) {
        if self.transferee.is_some() {
            self.transfer_elapsed += 1;
            if self.transfer_elapsed >= election_tick {
                self.transferee = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[u64]) -> BTreeSet<MemberId> {
        xs.iter().copied().map(MemberId).collect()
    }

    #[test]
    fn by_member_reads_as_the_ordered_map_it_stands_for() {
        let mut rng = crate::base::Rng::new(15);
        let mut ours = ByMember::default();
        let mut want = std::collections::BTreeMap::new();
        for step in 0..3000 {
            let id = MemberId(rng.range(1, 12));
            let value = rng.range(0, 100);
            match rng.range(0, 4) {
                0 => {
                    ours.insert(id, value);
                    want.insert(id, value);
                }
                1 => {
                    *ours.get_or_insert_with(id, || value) += 1;
                    *want.entry(id).or_insert(value) += 1;
                }
                2 => {
                    ours.retain(|k, _| k.0 % 3 != value % 3);
                    want.retain(|k, _| k.0 % 3 != value % 3);
                }
                _ => {
                    if let Some(v) = ours.get_mut(&id) {
                        *v += value;
                    }
                    if let Some(v) = want.get_mut(&id) {
                        *v += value;
                    }
                }
            }
            let got: Vec<(MemberId, u64)> = ours.iter().map(|(k, v)| (*k, *v)).collect();
            let expected: Vec<(MemberId, u64)> = want.iter().map(|(k, v)| (*k, *v)).collect();
            assert_eq!(got, expected, "step {step}");
            assert_eq!(ours.get(&id), want.get(&id), "step {step}");
            assert_eq!(ours.len(), want.len());
        }
    }

    fn leader_of_three() -> LeaderState {
        LeaderState::new(MemberId(1), ids(&[1, 2, 3]), &ids(&[4]), 6, 5, 8)
    }

    #[test]
    fn a_new_leader_replicates_its_own_disk_and_probes_the_others() {
        let state = leader_of_three();
        let me = &state.progress[&MemberId(1)];
        assert_eq!((me.match_index, me.state), (5, ProgressState::Replicate));
        let peer = &state.progress[&MemberId(2)];
        assert_eq!((peer.match_index, peer.next_index), (0, 6));
        assert!(state.progress[&MemberId(4)].is_learner);
        let walk = |after| state.peer_after(MemberId(1), after);
        let peers: Vec<MemberId> = std::iter::successors(walk(None), |p| walk(Some(*p))).collect();
        assert_eq!(peers, [MemberId(2), MemberId(3), MemberId(4)]);
        assert_eq!(state.peer_after(MemberId(3), None), Some(MemberId(1)));
        assert_eq!(state.peer_after(MemberId(4), Some(MemberId(3))), None);
    }

    #[test]
    fn check_quorum_counts_the_leader_and_starts_a_new_round() {
        let mut state = leader_of_three();
        let voters = JointConfig::simple(ids(&[1, 2, 3]));
        assert!(
            !state.quorum_active(MemberId(1), &voters),
            "only itself heard"
        );
        state.progress.get_mut(&MemberId(3)).unwrap().recent_active = true;
        assert!(state.quorum_active(MemberId(1), &voters));
        assert!(!state.quorum_active(MemberId(1), &voters), "a new round");
    }

    #[test]
    fn tracking_a_new_configuration_keeps_the_leader_even_when_removed() {
        let mut state = leader_of_three();
        let conf = ConfState {
            voters: ids(&[2, 3]),
            learners: ids(&[5]),
            ..Default::default()
        };
        state.track(MemberId(1), &conf, 9, 8);
        let tracked: Vec<MemberId> = state.progress.keys().copied().collect();
        assert_eq!(
            tracked,
            [MemberId(1), MemberId(2), MemberId(3), MemberId(5)]
        );
        assert_eq!(state.progress[&MemberId(5)].next_index, 9);
        assert!(state.progress[&MemberId(5)].is_learner);
    }

    #[test]
    fn a_snapshot_is_wanted_once_until_answered() {
        let mut state = leader_of_three();
        state
            .progress
            .get_mut(&MemberId(2))
            .unwrap()
            .become_snapshot(4);
        assert_eq!(state.snapshot_wanted(), [MemberId(2)]);
        state.snapshot_sent(MemberId(2), 4);
        assert!(state.snapshot_wanted().is_empty());
        assert_eq!(state.progress[&MemberId(2)].pending_snapshot, 4);
    }

    #[test]
    fn a_transfer_is_abandoned_after_an_election_timeout() {
        let mut state = leader_of_three();
        state.transferee = Some(MemberId(2));
        for _ in 0..9 {
            state.tick_transfer(10);
        }
        assert_eq!(state.transferee(), Some(MemberId(2)));
        state.tick_transfer(10);
        assert_eq!(state.transferee(), None);
    }
}
