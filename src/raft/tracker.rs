//! What a leader tracks (etcd-io/raft `tracker/`): one [`Progress`] per member, the
//! leadership transfer under way and the ReadIndex rounds waiting for a quorum.

use super::confchange::ConfState;
use super::progress::{Progress, ProgressState};
use super::quorum::JointConfig;
use super::read_only::ReadOnly;
use crate::base::{Index, MemberId};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

#[derive(Clone, Debug)]
pub struct LeaderState {
    pub(super) progress: BTreeMap<MemberId, Progress>,
    pub(super) transferee: Option<MemberId>,
    /// Elapsed ticks of the current transfer (aborted after an election timeout).
    pub(super) transfer_elapsed: u32,
    pub(super) reads: ReadOnly,
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
        let mut progress = BTreeMap::new();
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

    pub fn progress(&self) -> &BTreeMap<MemberId, Progress> {
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
                .entry(*id)
                .or_insert_with(|| Progress::new(next, max_inflight, false));
            pr.is_learner = conf.learners.contains(id);
        }
    }

    /// The first peer (not the leader) after `after`, or the first of all with None: a walk
    /// over the peers that collects nothing, for the broadcast every proposal makes.
    pub(super) fn peer_after(&self, leader: MemberId, after: Option<MemberId>) -> Option<MemberId> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.progress
            .range((from, Bound::Unbounded))
            .map(|(id, _)| *id)
            .find(|id| *id != leader)
    }

    /// The largest index a quorum of `voters` has (`Index::MAX` when there are none).
    pub(super) fn committed_index(&self, voters: &JointConfig) -> Index {
        voters.committed_index(|id| self.progress.get(&id).map(|pr| pr.match_index))
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
