//! What happened in the cluster, structured, for goals ("an election was won since the step
//! started", "heartbeats were delivered"): counters that only grow, plus a short ring of the
//! recent notable events. Each member keeps its own, inside the world, so a checkpoint copies
//! them and a rewind takes them back with everything else; the cluster view adds them up.

use super::cluster::Cluster;
use crate::base::{Index, MemberId, Millis, Term};
use crate::raft::{Body, Message, NodeEvent, RoleName};
use std::collections::VecDeque;

/// The message kinds the network carries, by the engine's name (`Message::kind`), each with
/// the name etcd's raft gives it (`raftpb.MessageType`), so goals may use either.
pub const MESSAGE_KINDS: [(&str, &str); 14] = [
    ("Heartbeat", "MsgHeartbeat"),
    ("HeartbeatResp", "MsgHeartbeatResp"),
    ("AppendEntries", "MsgApp"),
    ("AppendResp", "MsgAppResp"),
    ("PreVote", "MsgPreVote"),
    ("PreVoteResp", "MsgPreVoteResp"),
    ("RequestVote", "MsgVote"),
    ("RequestVoteResp", "MsgVoteResp"),
    ("InstallSnapshot", "MsgSnap"),
    ("TimeoutNow", "MsgTimeoutNow"),
    ("ReadIndex", "MsgReadIndex"),
    ("ReadIndexResp", "MsgReadIndexResp"),
    ("Propose", "MsgProp"),
    ("TransferLeader", "MsgTransferLeader"),
];

/// The engine's kind for a name of either column (`MsgApp` → `AppendEntries`).
pub fn message_kind(name: &str) -> Option<&'static str> {
    MESSAGE_KINDS
        .iter()
        .find(|(ours, etcd)| *ours == name || *etcd == name)
        .map(|(ours, _)| *ours)
}

/// Every kind name a goal accepts, ours first.
pub fn message_kind_names() -> Vec<&'static str> {
    let ours = MESSAGE_KINDS.iter().map(|(o, _)| *o);
    ours.chain(MESSAGE_KINDS.iter().map(|(_, e)| *e)).collect()
}

fn kind_slot(kind: &str) -> Option<usize> {
    MESSAGE_KINDS.iter().position(|(ours, _)| *ours == kind)
}

/// Running totals since the world started (a member's own, or summed over the cluster).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Became leader.
    pub elections_won: u64,
    /// Became candidate (a real election, after a pre-vote if that is on).
    pub campaigns: u64,
    /// Became pre-candidate.
    pub pre_campaigns: u64,
    /// (Pre-)vote answers a candidate received, granted or refused.
    pub votes_granted: u64,
    pub votes_refused: u64,
    /// Times a member's commit index moved forward.
    pub commits: u64,
    /// Messages handed to a member, by [`MESSAGE_KINDS`] position.
    delivered: [u64; MESSAGE_KINDS.len()],
}

impl Counts {
    /// Messages of `kind` (the engine's name) delivered.
    pub fn delivered(&self, kind: &str) -> u64 {
        kind_slot(kind).map_or(0, |i| self.delivered[i])
    }

    fn add(&mut self, other: &Counts) {
        self.elections_won += other.elections_won;
        self.campaigns += other.campaigns;
        self.pre_campaigns += other.pre_campaigns;
        self.votes_granted += other.votes_granted;
        self.votes_refused += other.votes_refused;
        self.commits += other.commits;
        for (mine, theirs) in self.delivered.iter_mut().zip(other.delivered) {
            *mine += theirs;
        }
    }
}

/// A notable event (deliveries are counted only: they would push everything else out).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fact {
    pub time_ms: Millis,
    pub member: MemberId,
    pub what: FactKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactKind {
    ElectionStarted {
        term: Term,
        pre_vote: bool,
    },
    ElectionWon {
        term: Term,
    },
    /// A (pre-)vote answer this member, a candidate, received.
    VoteAnswer {
        from: MemberId,
        term: Term,
        pre_vote: bool,
        granted: bool,
    },
    Committed {
        index: Index,
    },
}

/// Recent facts a member keeps: enough for a few elections and the writes around them.
pub const FACTS_KEEP: usize = 64;

/// One member's counters and recent facts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    pub counts: Counts,
    recent: VecDeque<Fact>,
}

impl Facts {
    fn push(&mut self, fact: Fact) {
        if self.recent.len() == FACTS_KEEP {
            self.recent.pop_front();
        }
        self.recent.push_back(fact);
    }

    pub fn recent(&self) -> impl Iterator<Item = &Fact> {
        self.recent.iter()
    }

    /// A message this member is about to handle.
    pub(super) fn delivered(&mut self, msg: &Message, now: Millis, member: MemberId) {
        if let Some(i) = kind_slot(msg.kind()) {
            self.counts.delivered[i] += 1;
        }
        let (pre_vote, reject) = match msg.body {
            Body::PreVoteResp { reject } => (true, reject),
            Body::RequestVoteResp { reject } => (false, reject),
            _ => return,
        };
        if reject {
            self.counts.votes_refused += 1;
        } else {
            self.counts.votes_granted += 1;
        }
        self.push(Fact {
            time_ms: now,
            member,
            what: FactKind::VoteAnswer {
                from: msg.from,
                term: msg.term,
                pre_vote,
                granted: !reject,
            },
        });
    }

    /// A role change the node reported.
    pub(super) fn node_event(&mut self, event: &NodeEvent, now: Millis, member: MemberId) {
        let NodeEvent::BecameRole { role, term } = *event else {
            return;
        };
        let what = match role {
            RoleName::Leader => {
                self.counts.elections_won += 1;
                FactKind::ElectionWon { term }
            }
            RoleName::Candidate => {
                self.counts.campaigns += 1;
                FactKind::ElectionStarted {
                    term,
                    pre_vote: false,
                }
            }
            RoleName::PreCandidate => {
                self.counts.pre_campaigns += 1;
                FactKind::ElectionStarted {
                    term,
                    pre_vote: true,
                }
            }
            RoleName::Follower => return,
        };
        self.push(Fact {
            time_ms: now,
            member,
            what,
        });
    }

    /// The commit index moved from `before` to `after`.
    pub(super) fn committed(&mut self, before: Index, after: Index, now: Millis, member: MemberId) {
        if after <= before {
            return;
        }
        self.counts.commits += 1;
        self.push(Fact {
            time_ms: now,
            member,
            what: FactKind::Committed { index: after },
        });
    }
}

impl Cluster {
    /// Every member's counters added up (a removed member takes its own along).
    pub fn counts(&self) -> Counts {
        let mut total = Counts::default();
        for (_, m) in self.processes() {
            total.add(&m.facts.counts);
        }
        total
    }

    /// The most recent facts of every member, oldest first; at most `last` of them.
    pub fn recent_facts(&self, last: usize) -> Vec<Fact> {
        let mut all: Vec<Fact> = self
            .processes()
            .flat_map(|(_, m)| m.facts.recent().copied())
            .collect();
        // Stable: facts of one millisecond keep member order.
        all.sort_by_key(|f| f.time_ms);
        let skip = all.len().saturating_sub(last);
        all.split_off(skip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::ClusterConfig;

    fn elected() -> Cluster {
        let mut c = ClusterConfig::new(3, 1).build();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        c
    }

    #[test]
    fn kinds_read_by_either_name() {
        assert_eq!(message_kind("MsgApp"), Some("AppendEntries"));
        assert_eq!(message_kind("Heartbeat"), Some("Heartbeat"));
        assert_eq!(message_kind("MsgNope"), None);
        assert_eq!(message_kind_names().len(), 2 * MESSAGE_KINDS.len());
    }

    #[test]
    fn an_election_is_counted_and_told() {
        let c = elected();
        let counts = c.counts();
        assert_eq!(counts.elections_won, 1, "{counts:?}");
        assert!(
            counts.pre_campaigns >= 1 && counts.campaigns >= 1,
            "{counts:?}"
        );
        // A majority of three granted the real vote (the candidate's own vote is no message).
        assert!(counts.votes_granted >= 2, "{counts:?}");
        assert!(counts.delivered("RequestVote") >= 2, "{counts:?}");
        assert!(
            counts.commits >= 1,
            "the leader committed its no-op: {counts:?}"
        );
        let leader = c.leader().unwrap();
        let won: Vec<Fact> = c
            .recent_facts(1000)
            .into_iter()
            .filter(|f| matches!(f.what, FactKind::ElectionWon { .. }))
            .collect();
        assert_eq!(won.len(), 1);
        assert_eq!(won[0].member, leader);
        let facts = c.recent_facts(1000);
        assert!(facts.windows(2).all(|w| w[0].time_ms <= w[1].time_ms));
    }

    #[test]
    fn heartbeats_are_counted_and_every_kind_delivered_is_known() {
        let mut c = elected();
        let before = c.counts().delivered("Heartbeat");
        c.run_for(1_000);
        // Heartbeat every 100 ms to two followers.
        let sent = c.counts().delivered("Heartbeat") - before;
        assert!((16..=22).contains(&sent), "{sent}");
        // The followers heard of the no-op's commit with the next heartbeats.
        assert!(c.counts().commits >= 3, "{:?}", c.counts());
        // Nothing was counted outside the table.
        let total: u64 = MESSAGE_KINDS
            .iter()
            .map(|(k, _)| c.counts().delivered(k))
            .sum();
        let trace_recv = c.trace_len();
        assert!(total > 0 && total <= trace_recv, "{total} {trace_recv}");
    }

    #[test]
    fn a_checkpoint_keeps_its_counts() {
        let mut c = elected();
        let checkpoint = c.clone();
        let leader = c.leader().unwrap();
        c.kill(leader).unwrap();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        assert_eq!(c.counts().elections_won, 2);
        assert_eq!(checkpoint.counts().elections_won, 1);
    }

    #[test]
    fn the_ring_keeps_the_newest() {
        let mut f = Facts::default();
        for i in 0..(FACTS_KEEP as u64 + 10) {
            f.committed(i, i + 1, i, MemberId(1));
        }
        assert_eq!(f.recent().count(), FACTS_KEEP);
        assert_eq!(
            f.recent().next().map(|f| f.what),
            Some(FactKind::Committed { index: 11 })
        );
        assert_eq!(f.counts.commits, FACTS_KEEP as u64 + 10);
    }
}
