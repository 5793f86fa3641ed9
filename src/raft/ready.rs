//! What a node hands its driver (etcd-io/raft `node.go`'s `Ready`): the contract between the
//! pure state machine and the world that persists, sends and applies.

use super::confchange::ConfState;
use super::image::SnapshotData;
use super::log::Entry;
use super::message::{Body, Message};
use super::node::RoleName;
use super::read_only::ReadState;
use crate::base::{Index, MemberId, Term};
use serde::Serialize;
use std::fmt;

/// The durable part of a node's state (§5, Figure 2: currentTerm, votedFor, log[]), with the
/// commit index as etcd-io/raft keeps it: a member restarted alone applies what it knew was
/// committed, as etcd serves its key space from its backend without a leader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HardState {
    pub term: Term,
    pub vote: Option<MemberId>,
    pub commit: Index,
}

impl HardState {
    /// Whether persisting this over `before` must reach the disk before anything is sent
    /// (etcd-io/raft's `MustSync`): a new term or vote must; a commit index alone need not,
    /// as it can be learned again.
    pub fn must_sync(&self, before: &HardState) -> bool {
        (self.term, self.vote) != (before.term, before.vote)
    }
}

/// Everything the driver must act on, in this order:
/// 1. persist `hard_state` (if any), `snapshot` (if any, replacing the log) and `entries`
///    (truncating the stored log at `entries[0].index` first): they must be durable
///    **before** any of `messages` is sent, or a crash could forget a vote or an
///    acknowledged entry;
/// 2. send `messages`, then one message per `snapshot_requests`, built by
///    [`SnapshotRequest::message`] from the state machine image the driver saved when it
///    last called `compact` (the image must be taken when the Ready is, not later);
/// 3. restore the state machine from `snapshot`'s data, apply `committed_entries` to it,
///    and serve `read_states` whose index is applied;
/// 4. call `advance` with this Ready.
///
/// `events` are narration and change nothing: a driver logs them as soon as it takes the
/// Ready, so its trace tells what the node did before what the driver did about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ready {
    pub hard_state: Option<HardState>,
    pub entries: Vec<Entry>,
    pub messages: Vec<Message>,
    pub committed_entries: Vec<Entry>,
    pub read_states: Vec<ReadState>,
    /// A snapshot received from the leader: persist it (replacing the log) and restore the
    /// state machine from its data before applying anything else.
    pub snapshot: Option<Snapshot>,
    /// Followers that need the leader's snapshot (their next entries were compacted away).
    pub snapshot_requests: Vec<SnapshotRequest>,
    /// Notable things the node did since the last Ready, oldest first.
    pub events: Vec<NodeEvent>,
}

impl Ready {
    pub fn is_empty(&self) -> bool {
        self.hard_state.is_none()
            && self.entries.is_empty()
            && self.messages.is_empty()
            && self.committed_entries.is_empty()
            && self.read_states.is_empty()
            && self.snapshot.is_none()
            && self.snapshot_requests.is_empty()
            && self.events.is_empty()
    }
}

/// A state machine image at `index` (§7), with the configuration then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub index: Index,
    pub term: Term,
    pub conf: ConfState,
    pub data: SnapshotData,
}

/// A leader's InstallSnapshot (§7) waiting for the one thing the node does not keep: the
/// state machine image at `index`, which only the driver has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotRequest {
    pub from: MemberId,
    pub to: MemberId,
    /// The leader's term, which the message carries.
    pub term: Term,
    pub index: Index,
    pub snapshot_term: Term,
    pub conf: ConfState,
}

impl SnapshotRequest {
    /// The message to send, with `data` the state machine image at `self.index`.
    pub fn message(&self, data: SnapshotData) -> Message {
        Message {
            from: self.from,
            to: self.to,
            term: self.term,
            body: Body::Snapshot {
                index: self.index,
                term: self.snapshot_term,
                conf: Box::new(self.conf.clone()),
                data,
            },
        }
    }
}

/// Notable things a node did, for the event log and narration ("m3 became leader in term 4").
/// `Display` is the English line used in traces and transcripts; the UI translates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum NodeEvent {
    BecameRole {
        role: RoleName,
        term: Term,
    },
    Voted {
        candidate: MemberId,
        term: Term,
    },
    SteppedDown {
        term: Term,
        reason: StepDown,
    },
    OverwroteCommitted {
        index: Index,
    },
    Configuration {
        index: Index,
        change: String,
    },
    /// A voter did not grant a (pre-)vote: `term` is the one the candidate asked for.
    RefusedVote {
        candidate: MemberId,
        term: Term,
        pre: bool,
        reason: VoteRefusal,
    },
    /// Not the node's own: the etcd member around it refused a peer's message whose cluster
    /// ID is another (rafthttp's "request cluster ID mismatch"), as after restoring one member
    /// of a cluster into a new one.
    ClusterIdMismatch {
        peer: MemberId,
        local: u64,
        remote: u64,
    },
}

/// Why a leader stepped down on its own, as a closed set so that the page can say each one
/// in every language (traces keep the English sentence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepDown {
    /// Check-quorum: no quorum was heard from within an election timeout.
    CheckQuorum,
    /// The committed configuration no longer has it as a voter (thesis §4.2.2).
    Removed,
}

impl StepDown {
    pub fn as_str(self) -> &'static str {
        match self {
            StepDown::CheckQuorum => "check-quorum: no quorum heard within an election timeout",
            StepDown::Removed => "removed from the configuration",
        }
    }
}

impl fmt::Display for StepDown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StepDown {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Why a voter did not grant a vote: the rule that said no, so a page can say which.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum VoteRefusal {
    /// It heard from a live leader within the election timeout and ignores the request
    /// (thesis §4.2.3, with check-quorum): no answer at all is sent.
    LeaderLease { leader: MemberId },
    /// The candidate's log is less up to date than the voter's (§5.4.1).
    LogBehind,
    /// It already voted for another candidate in this term (§5.2).
    AlreadyVoted { vote: MemberId },
    /// It follows a leader in this term.
    HasLeader { leader: MemberId },
    /// The request carries an older term than the voter's (§5.1).
    StaleTerm { term: Term },
}

impl fmt::Display for VoteRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VoteRefusal::LeaderLease { leader } => write!(
                f,
                "it heard from leader {leader} within the election timeout (check-quorum)"
            ),
            VoteRefusal::LogBehind => f.write_str("the candidate's log is behind its own"),
            VoteRefusal::AlreadyVoted { vote } => write!(f, "it already voted for {vote}"),
            VoteRefusal::HasLeader { leader } => write!(f, "it follows leader {leader}"),
            VoteRefusal::StaleTerm { term } => write!(f, "its term {term} is newer"),
        }
    }
}

impl fmt::Display for NodeEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeEvent::BecameRole { role, term } => {
                write!(f, "became {} in term {term}", role.as_str())
            }
            NodeEvent::Voted { candidate, term } => {
                write!(f, "voted for {candidate} in term {term}")
            }
            NodeEvent::SteppedDown { term, reason } => {
                write!(f, "stepped down in term {term}: {reason}")
            }
            NodeEvent::OverwroteCommitted { index } => {
                write!(f, "overwrote a committed entry at or below index {index}")
            }
            NodeEvent::Configuration { index, change } => {
                write!(f, "proposed configuration {change} at index {index}")
            }
            NodeEvent::RefusedVote {
                candidate,
                term,
                pre,
                reason,
            } => {
                let what = if *pre { "pre-vote" } else { "vote" };
                write!(
                    f,
                    "refused the {what} of {candidate} for term {term}: {reason}"
                )
            }
            NodeEvent::ClusterIdMismatch {
                peer,
                local,
                remote,
            } => write!(
                f,
                "refused a message from {peer}: cluster ID mismatch (local {local:x}, remote {remote:x})"
            ),
        }
    }
}
