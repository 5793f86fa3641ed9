//! Majorities, and joint majorities for membership changes (Raft §6, thesis §4.3).

use crate::base::{Index, MemberId};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteResult {
    Pending,
    Won,
    Lost,
}

/// A set of voters deciding by simple majority: quorum = ⌊N/2⌋ + 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Majority {
    pub voters: BTreeSet<MemberId>,
}

impl Majority {
    pub fn new(voters: impl IntoIterator<Item = MemberId>) -> Majority {
        Majority {
            voters: voters.into_iter().collect(),
        }
    }

    pub fn quorum(&self) -> usize {
        self.voters.len() / 2 + 1
    }

    /// The largest index that a quorum has matched, from each member's matched index in id
    /// order (a voter missing from it has matched nothing). An empty config commits
    /// everything, so a joint config with an empty outgoing half behaves as the incoming half
    /// alone.
    pub fn committed_index(&self, matched: impl IntoIterator<Item = (MemberId, Index)>) -> Index {
        if self.voters.is_empty() {
            return Index::MAX;
        }
        // On the stack for the clusters anyone runs: the leader asks on every acknowledgement.
        let mut small = [0; 16];
        let mut large = Vec::new();
        let indexes = if self.voters.len() <= small.len() {
            &mut small[..self.voters.len()]
        } else {
            large.resize(self.voters.len(), 0);
            &mut large[..]
        };
        // Both walks are in id order: one pass, where a search per voter cost more than the
        // rest of the count.
        let mut matched = matched.into_iter().peekable();
        for (slot, v) in indexes.iter_mut().zip(&self.voters) {
            while matched.next_if(|(id, _)| id < v).is_some() {}
            *slot = matched.next_if(|(id, _)| id == v).map_or(0, |(_, i)| i);
        }
        indexes.sort_unstable();
        indexes[indexes.len() - self.quorum()]
    }

    pub fn vote_result(&self, votes: &BTreeMap<MemberId, bool>) -> VoteResult {
        if self.voters.is_empty() {
            return VoteResult::Won;
        }
        let (mut granted, mut missing) = (0, 0);
        for voter in &self.voters {
            match votes.get(voter) {
                Some(true) => granted += 1,
                Some(false) => {}
                None => missing += 1,
            }
        }
        if granted >= self.quorum() {
            VoteResult::Won
        } else if granted + missing >= self.quorum() {
            VoteResult::Pending
        } else {
            VoteResult::Lost
        }
    }

    /// Whether the members for which `active` holds form a quorum.
    pub fn is_active(&self, active: impl Fn(MemberId) -> bool) -> bool {
        self.voters.is_empty()
            || self.voters.iter().filter(|v| active(**v)).count() >= self.quorum()
    }
}

/// The voter configuration: `incoming` alone, or `incoming` and `outgoing` jointly while a
/// joint-consensus change is in progress (both majorities must agree).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JointConfig {
    pub incoming: Majority,
    pub outgoing: Majority,
}

impl JointConfig {
    pub fn simple(voters: impl IntoIterator<Item = MemberId>) -> JointConfig {
        JointConfig {
            incoming: Majority::new(voters),
            outgoing: Majority::default(),
        }
    }

    pub fn is_joint(&self) -> bool {
        !self.outgoing.voters.is_empty()
    }

    pub fn contains(&self, id: MemberId) -> bool {
        self.incoming.voters.contains(&id) || self.outgoing.voters.contains(&id)
    }

    /// Every voter of either half, each once: the incoming half's in order, then the
    /// outgoing half's others (no set built, for callers that only visit them).
    pub fn each_voter(&self) -> impl Iterator<Item = MemberId> + '_ {
        let others = self.outgoing.voters.difference(&self.incoming.voters);
        self.incoming.voters.iter().chain(others).copied()
    }

    /// Every voter of either half, each once, in order.
    pub fn voters(&self) -> BTreeSet<MemberId> {
        self.incoming
            .voters
            .union(&self.outgoing.voters)
            .copied()
            .collect()
    }

    /// As [`Majority::committed_index`], by both halves.
    pub fn committed_index<I>(&self, matched: I) -> Index
    where
        I: IntoIterator<Item = (MemberId, Index)>,
        I::IntoIter: Clone,
    {
        let matched = matched.into_iter();
        let a = self.incoming.committed_index(matched.clone());
        let b = self.outgoing.committed_index(matched);
        a.min(b)
    }

    pub fn vote_result(&self, votes: &BTreeMap<MemberId, bool>) -> VoteResult {
        match (
            self.incoming.vote_result(votes),
            self.outgoing.vote_result(votes),
        ) {
            (VoteResult::Won, VoteResult::Won) => VoteResult::Won,
            (VoteResult::Lost, _) | (_, VoteResult::Lost) => VoteResult::Lost,
            _ => VoteResult::Pending,
        }
    }

    pub fn is_active(&self, active: impl Fn(MemberId) -> bool) -> bool {
        self.incoming.is_active(&active) && self.outgoing.is_active(&active)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[u64]) -> Vec<MemberId> {
        xs.iter().map(|x| MemberId(*x)).collect()
    }

    /// Member i + 1 matched `matched[i]`.
    fn by_id(matched: &[u64]) -> impl Iterator<Item = (MemberId, Index)> + Clone + '_ {
        (1..).map(MemberId).zip(matched.iter().copied())
    }

    #[test]
    fn quorum_is_floor_half_plus_one() {
        // The 3-versus-4 lesson: 4 members tolerate no more failures than 3.
        for (n, q) in [
            (1, 1),
            (2, 2),
            (3, 2),
            (4, 3),
            (5, 3),
            (6, 4),
            (7, 4),
            (11, 6),
        ] {
            let voters: Vec<u64> = (1..=n).collect();
            assert_eq!(Majority::new(ids(&voters)).quorum(), q, "n={n}");
        }
    }

    #[test]
    fn committed_index_table() {
        // (voters, matched per voter (index i => member i+1), expected)
        let cases: &[(&[u64], &[u64], u64)] = &[
            (&[1], &[5], 5),
            (&[1, 2, 3], &[5, 3, 1], 3),
            (&[1, 2, 3], &[5, 5, 1], 5),
            (&[1, 2, 3, 4], &[9, 7, 2, 1], 2),
            (&[1, 2, 3, 4, 5], &[9, 8, 7, 1, 0], 7),
        ];
        for (voters, matched, want) in cases {
            let cfg = Majority::new(ids(voters));
            let got = cfg.committed_index(by_id(matched));
            assert_eq!(got, *want, "voters {voters:?} matched {matched:?}");
        }
    }

    #[test]
    fn committed_index_reads_a_walk_with_learners_and_missing_voters_as_lookups_would() {
        let mut rng = crate::base::Rng::new(14);
        for _ in 0..2000 {
            let voters: Vec<u64> = (1..=12).filter(|_| rng.chance(0.5)).collect();
            let mut tracked: Vec<(MemberId, Index)> = Vec::new();
            for id in 1..=12 {
                if rng.chance(0.75) {
                    tracked.push((MemberId(id), rng.range(0, 20)));
                }
            }
            let lookup = |id: &u64| {
                let found = tracked.iter().find(|(m, _)| m.0 == *id);
                found.map_or(0, |(_, i)| *i)
            };
            let mut want: Vec<Index> = voters.iter().map(lookup).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            let cfg = Majority::new(ids(&voters));
            let got = cfg.committed_index(tracked.iter().copied());
            match want.get(cfg.quorum().wrapping_sub(1)) {
                _ if voters.is_empty() => assert_eq!(got, Index::MAX),
                Some(w) => assert_eq!(got, *w, "voters {voters:?} tracked {tracked:?}"),
                None => unreachable!(),
            }
        }
    }

    #[test]
    fn vote_results() {
        let cfg = Majority::new(ids(&[1, 2, 3]));
        let mut votes = BTreeMap::new();
        votes.insert(MemberId(1), true);
        assert_eq!(cfg.vote_result(&votes), VoteResult::Pending);
        votes.insert(MemberId(2), false);
        assert_eq!(cfg.vote_result(&votes), VoteResult::Pending);
        votes.insert(MemberId(3), true);
        assert_eq!(cfg.vote_result(&votes), VoteResult::Won);
        votes.insert(MemberId(3), false);
        assert_eq!(cfg.vote_result(&votes), VoteResult::Lost);
    }

    #[test]
    fn joint_needs_both_majorities() {
        let cfg = JointConfig {
            incoming: Majority::new(ids(&[1, 2, 3])),
            outgoing: Majority::new(ids(&[3, 4, 5])),
        };
        assert_eq!(cfg.committed_index(by_id(&[9, 9, 1, 1, 1])), 1);
        let mut votes = BTreeMap::new();
        for id in [1, 2] {
            votes.insert(MemberId(id), true);
        }
        assert_eq!(cfg.vote_result(&votes), VoteResult::Pending);
        votes.insert(MemberId(4), false);
        votes.insert(MemberId(5), false);
        assert_eq!(cfg.vote_result(&votes), VoteResult::Lost);
        assert_eq!(
            JointConfig::simple(ids(&[1])).committed_index(by_id(&[4])),
            4
        );
    }
}
