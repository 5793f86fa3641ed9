//! Consensus: a sans-IO Raft state machine in the shape of etcd-io/raft.
//!
//! Feed it with [`Raft::tick`], [`Raft::step`] and [`Raft::propose`]; act on its [`Ready`]
//! (persist, send, apply) and call [`Raft::advance`]. [`Durable`] is the durable state a
//! driver keeps for one member, and [`RaftView`] what the UI and the checkers read.

mod confchange;
mod log;
mod message;
mod node;
mod progress;
mod quorum;

pub use confchange::{ConfChange, ConfChangeOp, ConfError, ConfState};
pub use log::{summarize, Entries, Entry, EntryData, EntryKind, RaftLog};
pub use message::{Body, Message};
pub use node::{
    Config, HardState, LeaderState, NodeEvent, ProposeError, Raft, ReadState, Ready, Role,
    RoleName, TeachingSwitches,
};
pub use progress::{Progress, ProgressState};
pub use quorum::{JointConfig, Majority, VoteResult};

use crate::base::{Index, MemberId, Rng, Term};
use serde::Serialize;

/// What survives a crash: the hard state, the log as it reached the disk, and the latest
/// snapshot (state machine image and configuration at its index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Durable {
    pub hard: HardState,
    pub snapshot_index: Index,
    pub snapshot_term: Term,
    pub snapshot_conf: ConfState,
    pub snapshot_data: EntryData,
    pub entries: Entries,
}

impl Durable {
    /// Step 1 of the Ready contract.
    pub fn persist(&mut self, rd: &Ready) {
        if let Some(hard) = rd.hard_state {
            self.hard = hard;
        }
        if let Some(snap) = &rd.snapshot {
            self.snapshot_index = snap.index;
            self.snapshot_term = snap.term;
            self.snapshot_conf = snap.conf.clone();
            self.snapshot_data = snap.data.clone();
            self.entries.retain(|e| e.index > snap.index);
        }
        if let Some(first) = rd.entries.first() {
            let keep = first.index.saturating_sub(self.snapshot_index + 1) as usize;
            self.entries.truncate(keep);
            self.entries.extend(rd.entries.iter().cloned());
        }
    }

    /// Records a local compaction: entries up to `index` now live in `data`.
    pub fn compact(&mut self, index: Index, term: Term, conf: ConfState, data: EntryData) {
        self.entries.retain(|e| e.index > index);
        self.snapshot_index = index;
        self.snapshot_term = term;
        self.snapshot_conf = conf;
        self.snapshot_data = data;
    }

    pub fn last_index(&self) -> Index {
        self.entries.last().map_or(self.snapshot_index, |e| e.index)
    }

    pub fn last_term(&self) -> Term {
        self.entries.last().map_or(self.snapshot_term, |e| e.term)
    }

    /// A node rebuilt from this durable state.
    pub fn restart(&self, config: Config, rng: Rng) -> Raft {
        let log = RaftLog::restore(
            self.snapshot_index,
            self.snapshot_term,
            self.entries.clone(),
        );
        Raft::restart(config, rng, self.hard, log, self.snapshot_conf.clone())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntryView {
    pub index: Index,
    pub term: Term,
    pub kind: EntryKind,
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgressView {
    pub member: MemberId,
    pub match_index: Index,
    pub next_index: Index,
    pub state: ProgressState,
    pub inflight: usize,
    pub recent_active: bool,
    pub learner: bool,
}

/// A read-only picture of one node, for the UI and the invariant checkers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RaftView {
    pub id: MemberId,
    pub role: RoleName,
    pub term: Term,
    pub vote: Option<MemberId>,
    pub leader: Option<MemberId>,
    pub commit: Index,
    pub applied: Index,
    pub stable: Index,
    pub snapshot_index: Index,
    pub last_index: Index,
    pub last_term: Term,
    pub log: Vec<EntryView>,
    pub progress: Vec<ProgressView>,
    pub election_elapsed: u32,
    pub election_timeout: u32,
    pub voters: Vec<MemberId>,
    pub learners: Vec<MemberId>,
    pub transferee: Option<MemberId>,
}

impl Raft {
    pub fn view(&self) -> RaftView {
        self.view_of(0..=Index::MAX)
    }

    /// The view with only the entries whose index is in `shown` (describing every entry of
    /// a long log is what a page drawing a few of them cannot afford each frame).
    pub fn view_of(&self, shown: std::ops::RangeInclusive<Index>) -> RaftView {
        let log = self
            .log
            .entries
            .iter()
            .filter(|e| shown.contains(&e.index))
            .map(|e| EntryView {
                index: e.index,
                term: e.term,
                kind: e.kind,
                summary: match e.kind {
                    EntryKind::Normal if e.data.is_empty() => "noop".into(),
                    EntryKind::Normal => summarize(&e.data),
                    EntryKind::Config => e
                        .describe()
                        .split_once(' ')
                        .map_or(String::new(), |(_, d)| d.to_string()),
                },
            })
            .collect();
        let (progress, transferee) = match self.leader_state() {
            Some(state) => (
                state
                    .progress
                    .iter()
                    .map(|(id, pr)| ProgressView {
                        member: *id,
                        match_index: pr.match_index,
                        next_index: pr.next_index,
                        state: pr.state,
                        inflight: pr.inflights.len(),
                        recent_active: pr.recent_active,
                        learner: pr.is_learner,
                    })
                    .collect(),
                state.transferee,
            ),
            None => (Vec::new(), None),
        };
        let election_timeout = if self.is_leader() {
            self.config.election_tick
        } else {
            self.randomized_election_timeout
        };
        RaftView {
            id: self.id,
            role: self.role_name(),
            term: self.term,
            vote: self.vote,
            leader: self.leader,
            commit: self.log.committed,
            applied: self.log.applied,
            stable: self.log.stable_index,
            snapshot_index: self.log.snapshot_index,
            last_index: self.log.last_index(),
            last_term: self.log.last_term(),
            log,
            progress,
            election_elapsed: self.election_elapsed,
            election_timeout,
            voters: self.voters.voters().into_iter().collect(),
            learners: self.learners.iter().copied().collect(),
            transferee,
        }
    }
}
