//! Everything that goes into a Raft node: peer messages and local events alike, so tests, the
//! simulator and the UI feed the engine through one door.

use super::confchange::ConfState;
use super::image::SnapshotData;
use super::log::Entry;
use crate::base::{Index, MemberId, Term};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::hash::Hasher;
use std::ops::Deref;
use std::sync::Arc;

/// The entries one append carries, shared: a broadcast's copies to every follower (and the
/// network's duplicates of them) hold one list, where a `Vec` each cost an allocation and a
/// copy of every entry per follower. Empty (a heartbeat) holds nothing at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryBatch(Option<Arc<[Entry]>>);

impl EntryBatch {
    /// Whether both are the same list (not merely equal ones).
    pub fn shares(&self, other: &EntryBatch) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Deref for EntryBatch {
    type Target = [Entry];

    fn deref(&self) -> &[Entry] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl From<Arc<[Entry]>> for EntryBatch {
    fn from(entries: Arc<[Entry]>) -> EntryBatch {
        EntryBatch((!entries.is_empty()).then_some(entries))
    }
}

impl From<Vec<Entry>> for EntryBatch {
    fn from(entries: Vec<Entry>) -> EntryBatch {
        EntryBatch((!entries.is_empty()).then(|| entries.into()))
    }
}

impl Serialize for EntryBatch {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for EntryBatch {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<EntryBatch, D::Error> {
        Vec::<Entry>::deserialize(d).map(EntryBatch::from)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub from: MemberId,
    pub to: MemberId,
    /// 0 for local messages (Hup, Beat, Propose), which skip the term check.
    pub term: Term,
    pub body: Body,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Body {
    /// Local: the election timer fired (or the user forced a timeout).
    Hup,
    /// Local: the heartbeat timer fired on a leader.
    Beat,
    /// A client proposal; a follower forwards it to its leader.
    Propose {
        data: Vec<u8>,
    },
    /// Local: the user asked this leader to hand over to `to`.
    TransferLeader {
        target: MemberId,
    },
    PreVote {
        last_index: Index,
        last_term: Term,
    },
    PreVoteResp {
        reject: bool,
    },
    RequestVote {
        last_index: Index,
        last_term: Term,
        transfer: bool,
    },
    RequestVoteResp {
        reject: bool,
    },
    /// AppendEntries; a heartbeat is one with no entries and `heartbeat` set.
    Append {
        prev_index: Index,
        prev_term: Term,
        entries: EntryBatch,
        commit: Index,
        heartbeat: bool,
        /// Nonzero on heartbeats that confirm leadership for a ReadIndex round.
        read_ctx: u64,
    },
    AppendResp {
        /// Accepted: last index the append vouched for. Rejected: the prev_index refused.
        index: Index,
        reject: bool,
        /// Rejected: the follower's guess where the logs agree, and its term there.
        hint_index: Index,
        hint_term: Term,
        heartbeat: bool,
        read_ctx: u64,
    },
    /// InstallSnapshot (§7): the state machine up to `index`, and the voters then.
    Snapshot {
        index: Index,
        term: Term,
        /// Boxed: the rare message's configuration would otherwise make every message (moved
        /// a few times each between the node, the network and the queue) half as large again.
        conf: Box<ConfState>,
        data: SnapshotData,
    },
    /// Leadership transfer: start an election now, skipping pre-vote (thesis §3.10).
    TimeoutNow,
    /// A linearizable read: which commit index is safe to read at (§8, thesis §6.4).
    ReadIndex {
        ctx: u64,
    },
    ReadIndexResp {
        ctx: u64,
        index: Index,
    },
}

impl Message {
    pub fn local(to: MemberId, body: Body) -> Message {
        Message {
            from: to,
            to,
            term: 0,
            body,
        }
    }

    /// The name shown in the UI, traces and transcripts.
    pub fn kind(&self) -> &'static str {
        match &self.body {
            Body::Hup => "Hup",
            Body::Beat => "Beat",
            Body::Propose { .. } => "Propose",
            Body::TransferLeader { .. } => "TransferLeader",
            Body::PreVote { .. } => "PreVote",
            Body::PreVoteResp { .. } => "PreVoteResp",
            Body::RequestVote { .. } => "RequestVote",
            Body::RequestVoteResp { .. } => "RequestVoteResp",
            Body::Append {
                heartbeat: true, ..
            } => "Heartbeat",
            Body::Append { .. } => "AppendEntries",
            Body::AppendResp {
                heartbeat: true, ..
            } => "HeartbeatResp",
            Body::AppendResp { .. } => "AppendResp",
            Body::Snapshot { .. } => "InstallSnapshot",
            Body::TimeoutNow => "TimeoutNow",
            Body::ReadIndex { .. } => "ReadIndex",
            Body::ReadIndexResp { .. } => "ReadIndexResp",
        }
    }

    /// One line, the same everywhere: `m1->m2 RequestVote term=3 last=5@2`.
    pub fn describe(&self) -> String {
        self.to_string()
    }

    /// Feeds `hash` what tells this message apart from another of the same run: its kind
    /// and numbers (an entry by its index, term and size; a snapshot by its index and term),
    /// never its payloads.
    pub fn digest(&self, hash: &mut impl Hasher) {
        let words =
            |hash: &mut dyn Hasher, words: &[u64]| words.iter().for_each(|w| hash.write_u64(*w));
        words(hash, &[self.from.0, self.to.0, self.term]);
        hash.write(self.kind().as_bytes());
        match &self.body {
            Body::Hup | Body::Beat | Body::TimeoutNow => {}
            Body::Propose { data } => words(hash, &[data.len() as u64]),
            Body::TransferLeader { target } => words(hash, &[target.0]),
            Body::PreVote {
                last_index,
                last_term,
            } => words(hash, &[*last_index, *last_term]),
            Body::RequestVote {
                last_index,
                last_term,
                transfer,
            } => words(hash, &[*last_index, *last_term, u64::from(*transfer)]),
            Body::PreVoteResp { reject } | Body::RequestVoteResp { reject } => {
                words(hash, &[u64::from(*reject)])
            }
            Body::Append {
                prev_index,
                prev_term,
                entries,
                commit,
                read_ctx,
                ..
            } => {
                words(hash, &[*prev_index, *prev_term, *commit, *read_ctx]);
                for e in entries.iter() {
                    words(hash, &[e.index, e.term, e.data.len() as u64]);
                }
            }
            Body::AppendResp {
                index,
                reject,
                hint_index,
                hint_term,
                read_ctx,
                ..
            } => words(
                hash,
                &[
                    *index,
                    u64::from(*reject),
                    *hint_index,
                    *hint_term,
                    *read_ctx,
                ],
            ),
            Body::Snapshot { index, term, .. } => words(hash, &[*index, *term]),
            Body::ReadIndex { ctx } => words(hash, &[*ctx]),
            Body::ReadIndexResp { ctx, index } => words(hash, &[*ctx, *index]),
        }
    }

    /// Entries carried (for the UI's "AppendEntries(3)" labels).
    pub fn entry_count(&self) -> usize {
        match &self.body {
            Body::Append { entries, .. } => entries.len(),
            _ => 0,
        }
    }
}

/// The one-line description, written where it is wanted: the simulator hashes every message
/// of a run into its trace without building the text.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let (from, to, kind, term) = (self.from, self.to, self.kind(), self.term);
        write!(f, "{from}->{to} {kind} term={term}")?;
        match &self.body {
            Body::Hup | Body::Beat | Body::TimeoutNow => Ok(()),
            Body::Propose { data } => write!(f, " data={}", super::log::Summary(data)),
            Body::TransferLeader { target } => write!(f, " target={target}"),
            Body::PreVote {
                last_index,
                last_term,
            } => write!(f, " last={last_index}@{last_term}"),
            Body::RequestVote {
                last_index,
                last_term,
                transfer,
            } => {
                let transfer = if *transfer { " transfer" } else { "" };
                write!(f, " last={last_index}@{last_term}{transfer}")
            }
            Body::PreVoteResp { reject } | Body::RequestVoteResp { reject } => {
                f.write_str(if *reject { " rejected" } else { " granted" })
            }
            Body::Append {
                prev_index,
                prev_term,
                entries,
                commit,
                read_ctx,
                ..
            } => {
                write!(f, " prev={prev_index}@{prev_term} commit={commit}")?;
                if !entries.is_empty() {
                    f.write_str(" entries=[")?;
                    for (i, entry) in entries.iter().enumerate() {
                        let comma = if i == 0 { "" } else { ", " };
                        write!(f, "{comma}{entry}")?;
                    }
                    f.write_str("]")?;
                }
                read_suffix(f, *read_ctx)
            }
            Body::AppendResp {
                index,
                reject,
                hint_index,
                hint_term,
                read_ctx,
                ..
            } => {
                if *reject {
                    write!(f, " rejected index={index} hint={hint_index}@{hint_term}")?;
                } else {
                    write!(f, " index={index}")?;
                }
                read_suffix(f, *read_ctx)
            }
            Body::Snapshot {
                index, term, conf, ..
            } => {
                write!(f, " snapshot={index}@{term} voters=")?;
                for (i, voter) in conf.voters.iter().enumerate() {
                    let comma = if i == 0 { "" } else { "," };
                    write!(f, "{comma}{voter}")?;
                }
                Ok(())
            }
            Body::ReadIndex { ctx } => write!(f, " ctx={ctx}"),
            Body::ReadIndexResp { ctx, index } => write!(f, " ctx={ctx} index={index}"),
        }
    }
}

fn read_suffix(f: &mut fmt::Formatter, read_ctx: u64) -> fmt::Result {
    if read_ctx == 0 {
        Ok(())
    } else {
        write!(f, " read={read_ctx}")
    }
}
