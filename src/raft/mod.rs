//! Consensus: a sans-IO Raft state machine in the shape of etcd-io/raft.
//!
//! Feed it with [`Raft::tick`], [`Raft::step`] and [`Raft::propose`]; act on its [`Ready`]
//! (persist, send, apply) and call [`Raft::advance`]. [`Durable`] is the durable state a
//! driver keeps for one member, and [`RaftView`] what the UI and the checkers read.

mod confchange;
mod config;
mod entries;
mod image;
mod log;
mod message;
mod node;
mod progress;
mod quorum;
mod read_only;
mod ready;
mod status;
mod tracker;

pub use confchange::{ConfChange, ConfChangeOp, ConfError, ConfState};
pub use config::{Config, TeachingSwitches};
pub use entries::Entries;
pub use image::{Image, SnapshotData};
pub use log::{summarize, Entry, EntryData, EntryKind, RaftLog};
pub use message::{Body, EntryBatch, Message};
pub use node::{ProposeError, Raft, Role, RoleName};
pub use progress::{Progress, ProgressState};
pub use quorum::{JointConfig, Majority, VoteResult};
pub use read_only::ReadState;
pub use ready::{HardState, NodeEvent, Ready, Snapshot, SnapshotRequest, StepDown, VoteRefusal};
pub use status::{EntryView, ProgressView, RaftView};
pub use tracker::{ByMember, LeaderState};

use crate::base::{Index, Rng, Term};

/// What survives a crash: the hard state, the log as it reached the disk, and the latest
/// snapshot (state machine image and configuration at its index).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Durable {
    pub hard: HardState,
    pub snapshot_index: Index,
    pub snapshot_term: Term,
    pub snapshot_conf: ConfState,
    pub snapshot_data: SnapshotData,
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
            let first = self.entries.first().map_or(snap.index, |e| e.index);
            self.entries = self
                .entries
                .skip((snap.index + 1).saturating_sub(first) as usize);
        }
        if let Some(first) = rd.entries.first() {
            let keep = first.index.saturating_sub(self.snapshot_index + 1) as usize;
            self.entries.truncate(keep);
            self.entries.extend(rd.entries.iter().cloned());
        }
    }

    /// The disk and a log that reached it hold the same entries: they share them (a copy
    /// on each side was 12 MB of an hour at 100 writes/s). Only when the log has nothing
    /// unstable and the two agree on where they begin and end.
    pub fn share_entries(&mut self, log: &RaftLog) {
        let last = |entries: &Entries| entries.last().map(|e| (e.index, e.term));
        if log.snapshot_index == self.snapshot_index
            && log.stable_index == log.last_index()
            && last(&log.entries) == last(&self.entries)
            && log.entries.len() == self.entries.len()
        {
            self.entries = log.entries.clone();
        }
    }

    /// Records a local compaction: entries up to `index` now live in `data`.
    pub fn compact(&mut self, index: Index, term: Term, conf: ConfState, data: SnapshotData) {
        // The entries are in index order: the kept ones stay shared (with the log too).
        let after = index.saturating_add(1);
        let first = self.entries.first().map_or(after, |e| e.index);
        let gone = after.saturating_sub(first).min(self.entries.len() as Index);
        self.entries = self.entries.skip(gone as usize);
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
