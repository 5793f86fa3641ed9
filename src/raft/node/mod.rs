//! The Raft state machine: sans-IO, no clock, no OS randomness. Inputs come through `tick`,
//! `step` and `propose`; outputs are collected into a `Ready` (see its doc for the contract).
//! Its state is private: the other layers read it through the accessors here and the view
//! in `status.rs`, and change it only through the inputs.
//!
//! The protocol is split as etcd-io/raft's `raft.go` is read: elections and leadership
//! transfer, replication, snapshots, membership and ReadIndex each in their own file.

mod election;
mod membership;
mod reads;
mod replication;
mod snapshot;

use super::confchange::{ConfChange, ConfChangeOp, ConfError, ConfState};
use super::config::Config;
use super::log::{Entry, EntryKind, RaftLog};
use super::message::{Body, Message};
use super::progress::Progress;
use super::quorum::JointConfig;
use super::read_only::ReadState;
use super::ready::{HardState, NodeEvent, Ready, Snapshot, StepDown, VoteRefusal};
use super::tracker::LeaderState;
use crate::base::{Index, MemberId, Rng, Term};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoleName {
    Follower,
    PreCandidate,
    Candidate,
    Leader,
}

impl RoleName {
    pub fn as_str(self) -> &'static str {
        match self {
            RoleName::Follower => "follower",
            RoleName::PreCandidate => "pre-candidate",
            RoleName::Candidate => "candidate",
            RoleName::Leader => "leader",
        }
    }
}

#[derive(Clone, Debug)]
pub enum Role {
    Follower,
    PreCandidate { votes: BTreeMap<MemberId, bool> },
    Candidate { votes: BTreeMap<MemberId, bool> },
    Leader(Box<LeaderState>),
}

impl Role {
    pub fn name(&self) -> RoleName {
        match self {
            Role::Follower => RoleName::Follower,
            Role::PreCandidate { .. } => RoleName::PreCandidate,
            Role::Candidate { .. } => RoleName::Candidate,
            Role::Leader(_) => RoleName::Leader,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProposeError {
    /// No leader is known (etcd: "raft proposal dropped").
    ProposalDropped,
    /// A configuration change is already in progress (one at a time, §4.1).
    ConfChangePending,
    BadConfChange(ConfError),
}

impl fmt::Display for ProposeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProposeError::ProposalDropped => f.write_str("raft proposal dropped"),
            ProposeError::ConfChangePending => {
                f.write_str("a configuration change is already in progress")
            }
            ProposeError::BadConfChange(e) => write!(f, "{e}"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Raft {
    id: MemberId,
    term: Term,
    vote: Option<MemberId>,
    leader: Option<MemberId>,
    role: Role,
    log: RaftLog,
    /// The configuration in force: the latest one in the log, committed or not (thesis
    /// §4.1), so a restarted member knows its peers before it learns the commit index.
    conf: ConfState,
    /// `conf` as majorities.
    voters: JointConfig,
    learners: BTreeSet<MemberId>,
    /// The configuration at the snapshot point (the log before it is gone).
    snapshot_conf: ConfState,
    /// Index of the last configuration entry in the log (0: none, the snapshot's applies).
    conf_index: Index,
    election_elapsed: u32,
    heartbeat_elapsed: u32,
    randomized_election_timeout: u32,
    config: Config,
    rng: Rng,
    msgs: Vec<Message>,
    read_states: Vec<ReadState>,
    events: Vec<NodeEvent>,
    persisted_hard_state: HardState,
    pending_snapshot: Option<Snapshot>,
    /// With `batch_append`, a leader's proposals since the last Ready, not yet sent: the
    /// next Ready sends them all at once, one append per follower, instead of each proposal
    /// looking its follower's append up in the outbox and copying its entry into it.
    appends_due: bool,
    /// Emptied buffers of the last Ready's entries, handed back by `recycle`.
    spare_entries: Vec<Entry>,
    spare_committed: Vec<Entry>,
}

/// The most elements a buffer handed back keeps room for (a catch-up's thousands of entries
/// are not kept for the one-entry Readies after it).
const SPARE_MAX: usize = 1024;

impl Raft {
    /// A brand-new member. With initial voters it bootstraps as etcd does: term 1 and one
    /// committed configuration entry per member (so the first leader leads term 2); without,
    /// it waits to hear from the cluster it joins.
    pub fn new(config: Config, rng: Rng) -> Raft {
        let mut entries = Vec::new();
        let initial = config.voters.iter().map(|v| (ConfChangeOp::AddVoter, *v));
        let learners = config
            .learners
            .iter()
            .map(|l| (ConfChangeOp::AddLearner, *l));
        for (i, (op, member)) in initial.chain(learners).enumerate() {
            let data = ConfChange::single(op, member).encode();
            entries.push(Entry {
                index: i as Index + 1,
                term: 1,
                kind: EntryKind::Config,
                data: data.into(),
            });
        }
        let bootstrapped = !entries.is_empty();
        let mut log = RaftLog::default();
        log.append(&entries);
        log.committed = log.last_index();
        let hard = HardState {
            term: u64::from(bootstrapped),
            vote: None,
            commit: log.committed,
        };
        let mut raft = Raft::restart(config, rng, hard, log, ConfState::default());
        raft.persisted_hard_state = HardState::default();
        raft
    }

    /// A member rebuilt from its durable state after a crash: term, vote, the commit index
    /// and the log survive; applied and everything a leader knew are gone (the persistence
    /// contract), so the first Ready replays what was committed since the snapshot.
    pub fn restart(
        config: Config,
        rng: Rng,
        hard: HardState,
        log: RaftLog,
        snapshot_conf: ConfState,
    ) -> Raft {
        let vote = if config.teaching.forget_vote_on_restart {
            None
        } else {
            hard.vote
        };
        let mut log = log;
        log.committed = log.committed.max(hard.commit.min(log.last_index()));
        let mut raft = Raft {
            id: config.id,
            term: hard.term,
            vote,
            leader: None,
            role: Role::Follower,
            log,
            conf: ConfState::default(),
            voters: JointConfig::default(),
            learners: BTreeSet::new(),
            snapshot_conf,
            conf_index: 0,
            election_elapsed: 0,
            heartbeat_elapsed: 0,
            randomized_election_timeout: config.election_tick,
            config,
            rng,
            msgs: Vec::new(),
            read_states: Vec::new(),
            events: Vec::new(),
            persisted_hard_state: hard,
            pending_snapshot: None,
            appends_due: false,
            spare_entries: Vec::new(),
            spare_committed: Vec::new(),
        };
        raft.reload_conf();
        raft.reset_randomized_election_timeout();
        raft
    }

    // ----- read-only views --------------------------------------------------------------

    pub fn id(&self) -> MemberId {
        self.id
    }

    pub fn term(&self) -> Term {
        self.term
    }

    pub fn vote(&self) -> Option<MemberId> {
        self.vote
    }

    /// The leader this member follows (itself when leading), if it knows one.
    pub fn leader(&self) -> Option<MemberId> {
        self.leader
    }

    pub fn role_name(&self) -> RoleName {
        self.role.name()
    }

    pub fn is_leader(&self) -> bool {
        matches!(self.role, Role::Leader(_))
    }

    /// The answers a (pre-)candidate has had in its campaign, its own vote included (true:
    /// granted); `None` while it is not campaigning.
    pub fn campaign_votes(&self) -> Option<&BTreeMap<MemberId, bool>> {
        match &self.role {
            Role::PreCandidate { votes } | Role::Candidate { votes } => Some(votes),
            _ => None,
        }
    }

    pub fn leader_state(&self) -> Option<&LeaderState> {
        match &self.role {
            Role::Leader(state) => Some(state),
            _ => None,
        }
    }

    pub fn log(&self) -> &RaftLog {
        &self.log
    }

    /// The configuration in force (the latest in the log, committed or not).
    pub fn conf(&self) -> &ConfState {
        &self.conf
    }

    /// The configuration in force as majorities.
    pub fn voters(&self) -> &JointConfig {
        &self.voters
    }

    pub fn learners(&self) -> &BTreeSet<MemberId> {
        &self.learners
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Ticks since the election clock was last reset.
    pub fn election_elapsed(&self) -> u32 {
        self.election_elapsed
    }

    /// The ticks after which the election clock acts: a leader's check-quorum period, or
    /// the timeout this member drew for its next election.
    pub fn election_timeout(&self) -> u32 {
        if self.is_leader() {
            self.config.election_tick
        } else {
            self.randomized_election_timeout
        }
    }

    pub fn hard_state(&self) -> HardState {
        HardState {
            term: self.term,
            vote: self.vote,
            commit: self.log.committed,
        }
    }

    // ----- inputs -----------------------------------------------------------------------

    /// One logical clock tick.
    pub fn tick(&mut self) {
        if self.is_leader() {
            self.tick_leader();
        } else {
            self.election_elapsed += 1;
            if self.promotable() && self.election_elapsed >= self.randomized_election_timeout {
                self.election_elapsed = 0;
                self.step(Message::local(self.id, Body::Hup));
            }
        }
    }

    fn tick_leader(&mut self) {
        self.heartbeat_elapsed += 1;
        self.election_elapsed += 1;
        if self.election_elapsed >= self.config.election_tick {
            self.election_elapsed = 0;
            if self.config.check_quorum && !self.quorum_active() {
                self.step_down(self.term, StepDown::CheckQuorum);
                return;
            }
        }
        if let Role::Leader(state) = &mut self.role {
            state.tick_transfer(self.config.election_tick);
        }
        if self.heartbeat_elapsed >= self.config.heartbeat_tick {
            self.heartbeat_elapsed = 0;
            self.bcast_heartbeat(0);
        }
    }

    /// Proposes `data` for the log: appended here if leader, forwarded if a leader is known.
    pub fn propose(&mut self, data: Vec<u8>) -> Result<(), ProposeError> {
        let forwarded = match self.role {
            Role::Leader(ref state) if state.transferee.is_none() => {
                self.append_entry(EntryKind::Normal, data);
                if self.config.batch_append {
                    self.appends_due = true;
                } else {
                    self.bcast_append();
                }
                true
            }
            Role::Follower => self.forward_to_leader(self.id, Body::Propose { data }),
            _ => false,
        };
        forwarded.then_some(()).ok_or(ProposeError::ProposalDropped)
    }

    /// Asks for a linearizable read; its `ReadState` appears in a later Ready once safe.
    pub fn read_index(&mut self, ctx: u64) -> Result<(), ProposeError> {
        let asked = match self.role {
            Role::Leader(_) => {
                self.leader_read_index(self.id, ctx);
                true
            }
            Role::Follower => self.forward_to_leader(self.id, Body::ReadIndex { ctx }),
            _ => false,
        };
        asked.then_some(()).ok_or(ProposeError::ProposalDropped)
    }

    /// The one door for messages, peer or local. Normalizes the term first (§5.1), then
    /// dispatches on (role, message).
    pub fn step(&mut self, m: Message) {
        match &m.body {
            Body::Hup => return self.hup(false),
            Body::Beat => {
                if self.is_leader() {
                    self.bcast_heartbeat(0);
                }
                return;
            }
            _ => {}
        }
        if m.term > self.term {
            if !self.step_to_newer_term(&m) {
                return;
            }
        } else if m.term < self.term && m.term != 0 {
            return self.answer_stale(&m);
        }
        match m.body {
            Body::PreVote {
                last_index,
                last_term,
            } => self.handle_vote_request(&m, last_index, last_term, true),
            Body::RequestVote {
                last_index,
                last_term,
                ..
            } => self.handle_vote_request(&m, last_index, last_term, false),
            _ => match self.role {
                Role::Leader(_) => self.step_leader(m),
                Role::PreCandidate { .. } | Role::Candidate { .. } => self.step_candidate(m),
                Role::Follower => self.step_follower(m),
            },
        }
    }

    /// A message of a later term: this member follows that term, unless the message is a
    /// disruptive election it ignores (false).
    fn step_to_newer_term(&mut self, m: &Message) -> bool {
        if let Body::PreVote { .. } | Body::RequestVote { .. } = m.body {
            let transfer = matches!(m.body, Body::RequestVote { transfer: true, .. });
            // Thesis §4.2.3: a member that hears from a live leader ignores disruptive
            // elections until its election timeout passes (needs check-quorum).
            let in_lease = self.config.check_quorum
                && self.leader.is_some()
                && self.election_elapsed < self.config.election_tick;
            if in_lease && !transfer {
                if let Some(leader) = self.leader {
                    let pre = matches!(m.body, Body::PreVote { .. });
                    self.refuse_vote(m, pre, VoteRefusal::LeaderLease { leader });
                }
                return false;
            }
        }
        match m.body {
            Body::PreVote { .. } => {}
            Body::PreVoteResp { reject: false } => {}
            Body::Append { .. } | Body::Snapshot { .. } => {
                self.become_follower(m.term, Some(m.from));
            }
            _ => self.become_follower(m.term, None),
        }
        true
    }

    /// A message of an earlier term is dropped, but some senders must learn the new term.
    fn answer_stale(&mut self, m: &Message) {
        if let Body::PreVote { .. } | Body::RequestVote { .. } = m.body {
            let pre = matches!(m.body, Body::PreVote { .. });
            let term = self.term;
            self.refuse_vote(m, pre, VoteRefusal::StaleTerm { term });
        }
        let body = match m.body {
            // A stale leader learns of the new term and steps down; without this,
            // check-quorum plus pre-vote could keep it leading forever (etcd #5451).
            Body::Append { .. } if self.config.check_quorum || self.config.pre_vote => {
                Body::AppendResp {
                    index: 0,
                    reject: false,
                    hint_index: 0,
                    hint_term: 0,
                    heartbeat: true,
                    read_ctx: 0,
                }
            }
            Body::PreVote { .. } => Body::PreVoteResp { reject: true },
            _ => return,
        };
        self.send(Message {
            from: self.id,
            to: m.from,
            term: self.term,
            body,
        });
    }

    fn step_follower(&mut self, m: Message) {
        match m.body {
            Body::Append { .. } => {
                self.election_elapsed = 0;
                self.leader = Some(m.from);
                self.handle_append(m);
            }
            Body::Snapshot { .. } => {
                self.election_elapsed = 0;
                self.leader = Some(m.from);
                self.handle_snapshot(m);
            }
            Body::Propose { data } => {
                self.forward_to_leader(self.id, Body::Propose { data });
            }
            Body::TransferLeader { .. } => {
                self.forward_to_leader(m.from, m.body);
            }
            Body::TimeoutNow => self.hup(true),
            Body::ReadIndex { ctx } => {
                self.forward_to_leader(self.id, Body::ReadIndex { ctx });
            }
            Body::ReadIndexResp { ctx, index } => self.read_states.push(ReadState { ctx, index }),
            _ => {}
        }
    }

    fn step_leader(&mut self, m: Message) {
        match m.body {
            Body::Propose { data }
                if self.leader_state().is_some_and(|s| s.transferee.is_none()) =>
            {
                self.append_entry(EntryKind::Normal, data);
                self.bcast_append();
            }
            Body::AppendResp { .. } => self.handle_append_response(m),
            Body::TransferLeader { target } => self.transfer_leader(target),
            Body::ReadIndex { ctx } => self.leader_read_index(m.from, ctx),
            _ => {}
        }
    }

    // ----- outputs ----------------------------------------------------------------------

    pub fn has_ready(&self) -> bool {
        self.hard_state() != self.persisted_hard_state
            || self.log.stable_index < self.log.last_index()
            || !self.msgs.is_empty()
            || self.log.committed > self.log.applied
            || !self.read_states.is_empty()
            || self.pending_snapshot.is_some()
            || self.leader_state().is_some_and(|s| s.wants_snapshot())
            || !self.events.is_empty()
            || self.appends_due
    }

    /// What the driver must do now; see `Ready` for the order.
    pub fn ready(&mut self) -> Ready {
        if std::mem::take(&mut self.appends_due) {
            self.send_due_appends();
        }
        let hard = self.hard_state();
        let mut entries = std::mem::take(&mut self.spare_entries);
        self.log.unstable_entries_into(&mut entries);
        let mut committed_entries = std::mem::take(&mut self.spare_committed);
        self.log.next_committed_into(&mut committed_entries);
        Ready {
            hard_state: (hard != self.persisted_hard_state).then_some(hard),
            entries,
            messages: std::mem::take(&mut self.msgs),
            committed_entries,
            read_states: std::mem::take(&mut self.read_states),
            snapshot: self.pending_snapshot.take(),
            snapshot_requests: self.take_snapshot_requests(),
            events: std::mem::take(&mut self.events),
        }
    }

    /// A Ready done with (after `advance`), handed back: the next Ready's messages and
    /// entries go in its buffers instead of new ones (allocations at nearly every event).
    pub fn recycle(&mut self, rd: &mut Ready) {
        keep_buffer(&mut self.msgs, &mut rd.messages);
        keep_buffer(&mut self.spare_entries, &mut rd.entries);
        keep_buffer(&mut self.spare_committed, &mut rd.committed_entries);
    }

    /// The driver did what `rd` asked: its entries and hard state are durable and its
    /// committed entries applied.
    pub fn advance(&mut self, rd: &Ready) {
        if let Some(hard) = rd.hard_state {
            self.persisted_hard_state = hard;
        }
        if let Some(last) = rd.entries.last() {
            // Only if the log was not truncated meanwhile.
            if self.log.match_term(last.index, last.term) {
                self.log.stable_index = self.log.stable_index.max(last.index);
            }
        }
        if let Some(snap) = &rd.snapshot {
            self.log.applied = self.log.applied.max(snap.index);
        }
        if let Some(last) = rd.committed_entries.last() {
            self.log.applied = self.log.applied.max(last.index);
        }
        if rd.hard_state.is_some() && matches!(self.role, Role::Candidate { .. }) {
            self.poll();
        }
        // The leader counts its own copy only once it is on disk.
        let stable = self.log.stable_index;
        let id = self.id;
        if let Some(pr) = self.progress_mut(id) {
            pr.maybe_update(stable);
        }
        // With everything committed a count could only find what is already committed.
        let uncommitted = self.log.committed < self.log.last_index();
        if self.is_leader() && uncommitted && self.maybe_commit() {
            self.bcast_append();
        }
    }

    // ----- plumbing ---------------------------------------------------------------------

    /// What this leader knows of `id`'s log (None if not leading or not tracking it).
    fn progress_mut(&mut self, id: MemberId) -> Option<&mut Progress> {
        match &mut self.role {
            Role::Leader(state) => state.progress.get_mut(&id),
            _ => None,
        }
    }

    /// A request this member cannot serve goes to the leader it knows, on behalf of `from`
    /// (etcd-io/raft's followers do the same); false when no leader is known and it is
    /// dropped.
    fn forward_to_leader(&mut self, from: MemberId, body: Body) -> bool {
        let Some(leader) = self.leader else {
            return false;
        };
        self.send(Message {
            from,
            to: leader,
            term: 0,
            body,
        });
        true
    }

    fn send(&mut self, m: Message) {
        self.msgs.push(m);
    }
}

/// Keeps `buffer`'s room in the empty `slot` when it has more (up to `SPARE_MAX`).
fn keep_buffer<T>(slot: &mut Vec<T>, buffer: &mut Vec<T>) {
    if slot.is_empty() && buffer.capacity() > slot.capacity() && buffer.capacity() <= SPARE_MAX {
        buffer.clear();
        std::mem::swap(slot, buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The driver's side of the Ready contract, all at once: persist, (drop) messages, apply.
    fn persist(node: &mut Raft) {
        while node.has_ready() {
            let rd = node.ready();
            node.advance(&rd);
        }
    }

    fn follower_of(leader: MemberId) -> Raft {
        let mut node = Raft::new(
            Config::new(MemberId(2), vec![MemberId(1), MemberId(2)]),
            Rng::new(2),
        );
        persist(&mut node);
        node.leader = Some(leader);
        node
    }

    /// §5.2, Figure 2: a candidate's own vote counts once its term and vote are on disk (as
    /// etcd-io/raft delivers the self-vote only after the append). A lone voter that led
    /// before persisting its term could crash, restart in the old term and lead the same term
    /// again with other entries at the same indexes (seed 112 of tests/sim_random.rs, after
    /// the membership changes left one voter).
    #[test]
    fn a_lone_voter_leads_only_once_its_vote_is_durable() {
        let mut node = Raft::new(Config::new(MemberId(1), vec![MemberId(1)]), Rng::new(1));
        persist(&mut node);
        node.force_timeout();
        assert_eq!(node.role_name(), RoleName::Candidate);
        assert_eq!(node.term(), 2);
        let rd = node.ready();
        assert_eq!(
            rd.hard_state,
            Some(HardState {
                term: 2,
                vote: Some(MemberId(1)),
                commit: 1,
            })
        );
        assert_eq!(
            node.role_name(),
            RoleName::Candidate,
            "vote not durable yet"
        );
        node.advance(&rd);
        assert!(node.is_leader(), "the durable self-vote wins");
        persist(&mut node);
        assert_eq!(
            node.log().committed,
            node.log().last_index(),
            "its noop commits"
        );
    }

    #[test]
    fn the_ready_carries_the_events_once() {
        let mut node = Raft::new(Config::new(MemberId(1), vec![MemberId(1)]), Rng::new(1));
        persist(&mut node);
        node.force_timeout();
        let rd = node.ready();
        let became = NodeEvent::BecameRole {
            role: RoleName::Candidate,
            term: 2,
        };
        assert!(rd.events.contains(&became), "{:?}", rd.events);
        node.advance(&rd);
        assert!(!node.ready().events.contains(&became));
    }

    #[test]
    fn a_follower_forwards_requests_to_its_leader_on_their_senders_behalf() {
        let mut node = follower_of(MemberId(1));
        node.propose(b"x".to_vec()).unwrap();
        node.read_index(7).unwrap();
        node.step(Message {
            from: MemberId(3),
            to: MemberId(2),
            term: 0,
            body: Body::TransferLeader {
                target: MemberId(3),
            },
        });
        let sent: Vec<(MemberId, MemberId, Term)> = node
            .ready()
            .messages
            .iter()
            .map(|m| (m.from, m.to, m.term))
            .collect();
        let (me, leader) = (MemberId(2), MemberId(1));
        assert_eq!(
            sent,
            [(me, leader, 0), (me, leader, 0), (MemberId(3), leader, 0)]
        );
    }

    #[test]
    fn without_a_known_leader_requests_are_dropped() {
        let mut node = follower_of(MemberId(1));
        node.leader = None;
        assert_eq!(
            node.propose(b"x".to_vec()),
            Err(ProposeError::ProposalDropped)
        );
        assert_eq!(node.read_index(7), Err(ProposeError::ProposalDropped));
        node.transfer_leader(MemberId(1));
        assert!(node.ready().messages.is_empty());
    }
}
