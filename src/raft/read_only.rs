//! Linearizable reads without log entries (§8, thesis §6.4; etcd-io/raft `read_only.go`): a
//! leader remembers each read's commit index and serves it once a quorum has confirmed,
//! after the read arrived, that it is still the leader.

use crate::base::{Index, MemberId};
use std::collections::{BTreeSet, VecDeque};

/// A linearizable read that may now be served once the state machine applied `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadState {
    pub ctx: u64,
    pub index: Index,
}

/// Pending ReadIndex rounds on a leader (etcd's `readOnly`).
#[derive(Clone, Debug, Default)]
pub(super) struct ReadOnly {
    queue: VecDeque<PendingRead>,
    /// Reads that arrived before the leader committed an entry of its term (thesis §6.4).
    waiting: Vec<(MemberId, u64)>,
}

/// A read asked by `from` (the leader itself or a follower) with context `ctx`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct PendingRead {
    pub ctx: u64,
    pub from: MemberId,
    pub index: Index,
    acks: BTreeSet<MemberId>,
}

impl ReadOnly {
    /// Holds a read until the leader has committed an entry of its own term.
    pub fn wait(&mut self, from: MemberId, ctx: u64) {
        self.waiting.push((from, ctx));
    }

    pub fn take_waiting(&mut self) -> Vec<(MemberId, u64)> {
        std::mem::take(&mut self.waiting)
    }

    /// Starts a round for a read at commit `index`; the leader's own ack counts at once.
    pub fn add(&mut self, leader: MemberId, from: MemberId, ctx: u64, index: Index) {
        self.queue.push_back(PendingRead {
            ctx,
            from,
            index,
            acks: BTreeSet::from([leader]),
        });
    }

    /// `from` acknowledged the heartbeat of round `ctx`. Once `is_quorum` holds for its acks,
    /// that read and every earlier one are safe at their recorded index: they are returned,
    /// oldest first.
    pub fn ack(
        &mut self,
        from: MemberId,
        ctx: u64,
        is_quorum: impl Fn(&BTreeSet<MemberId>) -> bool,
    ) -> Vec<PendingRead> {
        let Some(pos) = self.queue.iter().position(|r| r.ctx == ctx) else {
            return Vec::new();
        };
        self.queue[pos].acks.insert(from);
        if !is_quorum(&self.queue[pos].acks) {
            return Vec::new();
        }
        self.queue.drain(..=pos).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn majority_of_three(acks: &BTreeSet<MemberId>) -> bool {
        acks.len() >= 2
    }

    #[test]
    fn a_quorum_ack_releases_that_read_and_every_earlier_one() {
        let mut reads = ReadOnly::default();
        reads.add(MemberId(1), MemberId(1), 7, 10);
        reads.add(MemberId(1), MemberId(2), 8, 11);
        reads.add(MemberId(1), MemberId(1), 9, 12);
        let done = reads.ack(MemberId(3), 8, majority_of_three);
        let ctxs: Vec<u64> = done.iter().map(|r| r.ctx).collect();
        assert_eq!(ctxs, [7, 8]);
        assert_eq!(done[1].from, MemberId(2));
        assert_eq!(done[1].index, 11);
        assert!(
            reads.ack(MemberId(3), 8, majority_of_three).is_empty(),
            "already served"
        );
        assert_eq!(reads.ack(MemberId(2), 9, majority_of_three).len(), 1);
    }

    #[test]
    fn an_ack_short_of_a_quorum_or_for_an_unknown_round_releases_nothing() {
        let mut reads = ReadOnly::default();
        reads.add(MemberId(1), MemberId(1), 7, 10);
        assert!(reads.ack(MemberId(2), 99, majority_of_three).is_empty());
        assert!(
            reads.ack(MemberId(1), 7, majority_of_three).is_empty(),
            "own ack again"
        );
    }

    #[test]
    fn waiting_reads_are_handed_back_once_in_arrival_order() {
        let mut reads = ReadOnly::default();
        reads.wait(MemberId(2), 5);
        reads.wait(MemberId(1), 6);
        assert_eq!(reads.take_waiting(), [(MemberId(2), 5), (MemberId(1), 6)]);
        assert!(reads.take_waiting().is_empty());
    }
}
