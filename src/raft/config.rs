//! What a node is told when it starts: its id, its peers, its timers and the rules it follows.

use crate::base::MemberId;
use serde::Serialize;

/// Rules a teacher may break on purpose, to show what each one protects. All off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TeachingSwitches {
    /// Figure 8: commit entries of earlier terms by counting replicas (breaks §5.4.2).
    pub commit_old_terms_by_counting: bool,
    /// Grant votes without the up-to-date-log check (breaks §5.4.1).
    pub vote_without_log_check: bool,
    /// Forget `votedFor` on restart, as if it were not persisted (breaks §5.2's one vote per term).
    pub forget_vote_on_restart: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub id: MemberId,
    /// The initial voters when bootstrapping a new cluster (written into the log as
    /// configuration entries, as etcd does). Empty for a member joining an existing cluster,
    /// which learns the configuration from its leader.
    pub voters: Vec<MemberId>,
    pub learners: Vec<MemberId>,
    /// Election timeout in ticks; each election draws a timeout in [election, 2×election).
    pub election_tick: u32,
    pub heartbeat_tick: u32,
    pub pre_vote: bool,
    pub check_quorum: bool,
    /// Appends in flight per follower in Replicate state.
    pub max_inflight: usize,
    /// Entries per AppendEntries message (batching).
    pub max_entries_per_msg: usize,
    /// raft-rs's `batch_append`: one message per follower per burst. A leader's proposals
    /// wait for its next Ready, and an append still in the outbox for a follower takes the
    /// entries sent after it. Off by default, as in raft-rs and etcd, so the page draws one
    /// append per proposal.
    pub batch_append: bool,
    pub teaching: TeachingSwitches,
}

impl Config {
    /// etcd's defaults (heartbeat 1 tick, election 10 ticks, pre-vote and check-quorum on).
    pub fn new(id: MemberId, voters: Vec<MemberId>) -> Config {
        Config {
            id,
            voters,
            learners: Vec::new(),
            election_tick: 10,
            heartbeat_tick: 1,
            pre_vote: true,
            check_quorum: true,
            max_inflight: 256,
            max_entries_per_msg: 64,
            batch_append: false,
            teaching: TeachingSwitches::default(),
        }
    }
}
