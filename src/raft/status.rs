//! What the other layers read of a node (etcd-io/raft `status.go`): a serializable picture
//! for the UI and the checkers, taken through the node's read-only accessors.

use super::log::{summarize, Entry, EntryKind};
use super::node::{Raft, RoleName};
use super::progress::{Progress, ProgressState};
use crate::base::{Index, MemberId, Term};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntryView {
    pub index: Index,
    pub term: Term,
    pub kind: EntryKind,
    pub summary: String,
}

impl EntryView {
    fn of(e: &Entry) -> EntryView {
        let summary = match e.kind {
            EntryKind::Normal if e.data.is_empty() => "noop".into(),
            EntryKind::Normal => summarize(&e.data),
            EntryKind::Config => e
                .describe()
                .split_once(' ')
                .map_or(String::new(), |(_, d)| d.to_string()),
        };
        EntryView {
            index: e.index,
            term: e.term,
            kind: e.kind,
            summary,
        }
    }
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

impl ProgressView {
    fn of(member: MemberId, pr: &Progress) -> ProgressView {
        ProgressView {
            member,
            match_index: pr.match_index,
            next_index: pr.next_index,
            state: pr.state,
            inflight: pr.inflights.len(),
            recent_active: pr.recent_active,
            learner: pr.is_learner,
        }
    }
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
    /// While campaigning: each voter that answered, and whether it granted (its own vote
    /// included), in member order. Empty otherwise.
    pub votes: Vec<(MemberId, bool)>,
}

impl RaftView {
    /// The view less what moves at every tick or heartbeat answer (the election timer, the
    /// leader's record of recent contact): what the panels draw, which follow changes.
    pub fn settled(mut self) -> RaftView {
        (self.election_elapsed, self.election_timeout) = (0, 0);
        self.progress
            .iter_mut()
            .for_each(|p| p.recent_active = false);
        self
    }
}

impl Raft {
    pub fn view(&self) -> RaftView {
        self.view_of(0..=Index::MAX)
    }

    /// The view with only the entries whose index is in `shown` (describing every entry of
    /// a long log is what a page drawing a few of them cannot afford each frame).
    pub fn view_of(&self, shown: std::ops::RangeInclusive<Index>) -> RaftView {
        let log = self.log();
        // Only the window's entries are visited: the page asks for a few of a long log (or
        // none) at every drawing.
        let from = (*shown.start()).max(log.first_index());
        let count = (shown.end().min(&log.last_index()) + 1).saturating_sub(from);
        let entries =
            (log.entries.iter_from((from - log.first_index()) as usize)).take(count as usize);
        let (progress, transferee) = match self.leader_state() {
            Some(state) => (
                state
                    .progress()
                    .iter()
                    .map(|(id, pr)| ProgressView::of(*id, pr))
                    .collect(),
                state.transferee(),
            ),
            None => (Vec::new(), None),
        };
        RaftView {
            id: self.id(),
            role: self.role_name(),
            term: self.term(),
            vote: self.vote(),
            leader: self.leader(),
            commit: log.committed,
            applied: log.applied,
            stable: log.stable_index,
            snapshot_index: log.snapshot_index,
            last_index: log.last_index(),
            last_term: log.last_term(),
            log: entries.map(EntryView::of).collect(),
            progress,
            election_elapsed: self.election_elapsed(),
            election_timeout: self.election_timeout(),
            voters: self.voters().voters().into_iter().collect(),
            learners: self.learners().iter().copied().collect(),
            transferee,
            votes: self
                .campaign_votes()
                .map(|v| v.iter().map(|(m, g)| (*m, *g)).collect())
                .unwrap_or_default(),
        }
    }
}
