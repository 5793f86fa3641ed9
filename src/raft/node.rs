//! The Raft state machine: sans-IO, no clock, no OS randomness. Inputs come through `tick`,
//! `step` and `propose`; outputs are collected into a `Ready` (see its doc for the contract).

use super::confchange::{ConfChange, ConfChangeOp, ConfError, ConfState};
use super::log::{Entry, EntryData, EntryKind, RaftLog};
use super::message::{Body, Message};
use super::progress::{Progress, ProgressState};
use super::quorum::{JointConfig, Majority, VoteResult};
use crate::base::{Index, MemberId, Rng, Term};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

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
            teaching: TeachingSwitches::default(),
        }
    }
}

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
pub struct LeaderState {
    pub progress: BTreeMap<MemberId, Progress>,
    pub transferee: Option<MemberId>,
    /// Elapsed ticks of the current transfer (aborted after an election timeout).
    pub transfer_elapsed: u32,
    reads: ReadOnly,
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

/// The durable part of a node's state (§5, Figure 2: currentTerm, votedFor, log[]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HardState {
    pub term: Term,
    pub vote: Option<MemberId>,
}

/// A linearizable read that may now be served once the state machine applied `index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadState {
    pub ctx: u64,
    pub index: Index,
}

/// Pending ReadIndex rounds on a leader (etcd's `readOnly`): each read remembers the commit
/// index when it arrived and waits for a quorum of heartbeat acks sent after it.
#[derive(Clone, Debug, Default)]
struct ReadOnly {
    queue: VecDeque<PendingRead>,
    /// Reads that arrived before the leader committed an entry of its term (thesis §6.4).
    waiting: Vec<(MemberId, u64)>,
}

#[derive(Clone, Debug)]
struct PendingRead {
    ctx: u64,
    from: MemberId,
    index: Index,
    acks: BTreeSet<MemberId>,
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

/// Everything the driver must act on, in this order:
/// 1. persist `hard_state` (if any) and `entries` (truncating the stored log at
///    `entries[0].index` first): they must be durable **before** any of `messages` is sent,
///    or a crash could forget a vote or an acknowledged entry;
/// 2. send `messages`;
/// 3. apply `committed_entries` to the state machine, and serve `read_states` whose index is
///    applied;
/// 4. call `advance` with this Ready.
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
}

/// A state machine image at `index` (§7), with the configuration then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub index: Index,
    pub term: Term,
    pub conf: ConfState,
    pub data: EntryData,
}

impl Ready {
    pub fn is_empty(&self) -> bool {
        self.hard_state.is_none()
            && self.entries.is_empty()
            && self.messages.is_empty()
            && self.committed_entries.is_empty()
            && self.read_states.is_empty()
            && self.snapshot.is_none()
    }
}

/// Notable things a node did, for the event log and narration ("m3 became leader in term 4").
/// `Display` is the English line used in traces and transcripts; the UI translates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum NodeEvent {
    BecameRole { role: RoleName, term: Term },
    Voted { candidate: MemberId, term: Term },
    SteppedDown { term: Term, reason: &'static str },
    OverwroteCommitted { index: Index },
    Configuration { index: Index, change: String },
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
        }
    }
}

#[derive(Clone, Debug)]
pub struct Raft {
    pub id: MemberId,
    pub term: Term,
    pub vote: Option<MemberId>,
    pub leader: Option<MemberId>,
    pub role: Role,
    pub log: RaftLog,
    /// The configuration in force: the latest one in the log, committed or not (thesis
    /// §4.1), so a restarted member knows its peers before it learns the commit index.
    pub conf: ConfState,
    /// `conf` as majorities.
    pub voters: JointConfig,
    pub learners: BTreeSet<MemberId>,
    /// The configuration at the snapshot point (the log before it is gone).
    pub snapshot_conf: ConfState,
    /// Index of the last configuration entry in the log (0: none, the snapshot's applies).
    conf_index: Index,
    pub election_elapsed: u32,
    pub heartbeat_elapsed: u32,
    pub randomized_election_timeout: u32,
    pub config: Config,
    rng: Rng,
    msgs: Vec<Message>,
    read_states: Vec<ReadState>,
    events: Vec<NodeEvent>,
    persisted_hard_state: HardState,
    pending_snapshot: Option<Snapshot>,
}

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
        };
        let mut raft = Raft::restart(config, rng, hard, log, ConfState::default());
        raft.persisted_hard_state = HardState::default();
        raft
    }

    /// A member rebuilt from its durable state after a crash: term, vote and log survive;
    /// commit, applied and everything a leader knew are gone (the persistence contract).
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
        };
        raft.reload_conf();
        raft.reset_randomized_election_timeout();
        raft
    }

    /// The configuration after the log's entries up to `upto`, starting from the snapshot's.
    pub fn conf_at(&self, upto: Index) -> ConfState {
        let mut conf = self.snapshot_conf.clone();
        for entry in self.log.entries.iter().take_while(|e| e.index <= upto) {
            if entry.kind == EntryKind::Config {
                if let Ok(next) = ConfChange::decode(&entry.data).and_then(|cc| conf.apply(&cc)) {
                    conf = next;
                }
            }
        }
        conf
    }

    /// The index of the last configuration entry in the log (0 if none).
    fn last_conf_index(&self) -> Index {
        self.conf_index
    }

    /// Recomputes the configuration from the log; a leader starts or stops tracking members.
    fn reload_conf(&mut self) {
        self.conf_index = self
            .log
            .entries
            .iter()
            .rev()
            .find(|e| e.kind == EntryKind::Config)
            .map_or(0, |e| e.index);
        let conf = self.conf_at(Index::MAX);
        if conf == self.conf {
            return;
        }
        self.voters = JointConfig {
            incoming: Majority::new(conf.voters.iter().copied()),
            outgoing: Majority::new(conf.voters_outgoing.iter().copied()),
        };
        self.learners = conf.learners.clone();
        let members = conf.members();
        let (next, max_inflight) = (self.log.last_index() + 1, self.config.max_inflight);
        if let Role::Leader(state) = &mut self.role {
            state
                .progress
                .retain(|id, _| members.contains(id) || *id == self.id);
            for id in &members {
                let pr = state
                    .progress
                    .entry(*id)
                    .or_insert_with(|| Progress::new(next, max_inflight, false));
                pr.is_learner = conf.learners.contains(id);
            }
        }
        self.conf = conf;
    }

    pub fn hard_state(&self) -> HardState {
        HardState {
            term: self.term,
            vote: self.vote,
        }
    }

    pub fn role_name(&self) -> RoleName {
        self.role.name()
    }

    pub fn is_leader(&self) -> bool {
        matches!(self.role, Role::Leader(_))
    }

    /// A voter of the current configuration (learners and removed members never campaign),
    /// or a voter that the latest configuration entry removes while that entry is not known
    /// to be committed. Such a member must still be able to campaign (counting votes in the
    /// new configuration, itself excluded): when a leader loses its quorum right after
    /// appending its own removal, the others still have the old configuration and may need
    /// its vote, which it refuses them if its log is longer (§5.4.1); without its candidacy
    /// no one could ever win. LogCabin's `startNewElection` has the same rule.
    pub fn promotable(&self) -> bool {
        if self.voters.contains(self.id) {
            return true;
        }
        let pending = self.conf_index > self.log.committed;
        pending && {
            let before = self.conf_at(self.conf_index - 1);
            before.voters.contains(&self.id) || before.voters_outgoing.contains(&self.id)
        }
    }

    pub fn leader_state(&self) -> Option<&LeaderState> {
        match &self.role {
            Role::Leader(state) => Some(state),
            _ => None,
        }
    }

    /// Notable things that happened since the last call.
    pub fn take_events(&mut self) -> Vec<NodeEvent> {
        std::mem::take(&mut self.events)
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
                self.step_down(
                    self.term,
                    "check-quorum: no quorum heard within an election timeout",
                );
                return;
            }
        }
        if let Role::Leader(state) = &mut self.role {
            if state.transferee.is_some() {
                state.transfer_elapsed += 1;
                if state.transfer_elapsed >= self.config.election_tick {
                    state.transferee = None;
                }
            }
        }
        if self.heartbeat_elapsed >= self.config.heartbeat_tick {
            self.heartbeat_elapsed = 0;
            self.bcast_heartbeat(0);
        }
    }

    /// Proposes `data` for the log: appended here if leader, forwarded if a leader is known.
    pub fn propose(&mut self, data: Vec<u8>) -> Result<(), ProposeError> {
        match self.role {
            Role::Leader(ref state) if state.transferee.is_none() => {
                self.append_entries(vec![data]);
                self.bcast_append();
                Ok(())
            }
            Role::Follower => match self.leader {
                Some(leader) => {
                    self.send(Message {
                        from: self.id,
                        to: leader,
                        term: 0,
                        body: Body::Propose { data },
                    });
                    Ok(())
                }
                None => Err(ProposeError::ProposalDropped),
            },
            _ => Err(ProposeError::ProposalDropped),
        }
    }

    /// Asks for a linearizable read; its `ReadState` appears in a later Ready once safe.
    pub fn read_index(&mut self, ctx: u64) -> Result<(), ProposeError> {
        match (&self.role, self.leader) {
            (Role::Leader(_), _) => {
                self.leader_read_index(self.id, ctx);
                Ok(())
            }
            (Role::Follower, Some(leader)) => {
                self.send(Message {
                    from: self.id,
                    to: leader,
                    term: 0,
                    body: Body::ReadIndex { ctx },
                });
                Ok(())
            }
            _ => Err(ProposeError::ProposalDropped),
        }
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
            if let Body::PreVote { .. } | Body::RequestVote { .. } = m.body {
                let transfer = matches!(m.body, Body::RequestVote { transfer: true, .. });
                // Thesis §4.2.3: a member that hears from a live leader ignores disruptive
                // elections until its election timeout passes (needs check-quorum).
                let in_lease = self.config.check_quorum
                    && self.leader.is_some()
                    && self.election_elapsed < self.config.election_tick;
                if in_lease && !transfer {
                    return;
                }
            }
            match m.body {
                Body::PreVote { .. } => {}
                Body::PreVoteResp { reject: false } => {}
                Body::Append { .. } | Body::Snapshot { .. } => {
                    self.become_follower(m.term, Some(m.from))
                }
                _ => self.become_follower(m.term, None),
            }
        } else if m.term < self.term && m.term != 0 {
            match m.body {
                // A stale leader learns of the new term and steps down; without this,
                // check-quorum plus pre-vote could keep it leading forever (etcd #5451).
                Body::Append { .. } if self.config.check_quorum || self.config.pre_vote => {
                    let resp = Body::AppendResp {
                        index: 0,
                        reject: false,
                        hint_index: 0,
                        hint_term: 0,
                        heartbeat: true,
                        read_ctx: 0,
                    };
                    self.send(Message {
                        from: self.id,
                        to: m.from,
                        term: self.term,
                        body: resp,
                    });
                }
                Body::PreVote { .. } => {
                    self.send(Message {
                        from: self.id,
                        to: m.from,
                        term: self.term,
                        body: Body::PreVoteResp { reject: true },
                    });
                }
                _ => {}
            }
            return;
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

    // ----- outputs ----------------------------------------------------------------------

    pub fn has_ready(&self) -> bool {
        self.hard_state() != self.persisted_hard_state
            || self.log.stable_index < self.log.last_index()
            || !self.msgs.is_empty()
            || self.log.committed > self.log.applied
            || !self.read_states.is_empty()
            || self.pending_snapshot.is_some()
    }

    /// What the driver must do now; see `Ready` for the order.
    pub fn ready(&mut self) -> Ready {
        let hard = self.hard_state();
        Ready {
            hard_state: (hard != self.persisted_hard_state).then_some(hard),
            entries: self.log.unstable_entries(),
            messages: std::mem::take(&mut self.msgs),
            committed_entries: self.log.next_committed(),
            read_states: std::mem::take(&mut self.read_states),
            snapshot: self.pending_snapshot.take(),
        }
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
        if let Some(last) = rd.committed_entries.last() {
            self.log.applied = self.log.applied.max(last.index);
        }
        if rd.hard_state.is_some() && matches!(self.role, Role::Candidate { .. }) {
            self.poll();
        }
        // The leader counts its own copy only once it is on disk.
        let stable = self.log.stable_index;
        let id = self.id;
        if let Role::Leader(state) = &mut self.role {
            if let Some(pr) = state.progress.get_mut(&id) {
                pr.maybe_update(stable);
            }
            if self.maybe_commit() {
                self.bcast_append();
            }
        }
    }

    // ----- elections (§5.2) -------------------------------------------------------------

    fn reset(&mut self, term: Term) {
        if term != self.term {
            self.term = term;
            self.vote = None;
        }
        self.leader = None;
        self.election_elapsed = 0;
        self.heartbeat_elapsed = 0;
        self.reset_randomized_election_timeout();
    }

    fn reset_randomized_election_timeout(&mut self) {
        let base = u64::from(self.config.election_tick);
        self.randomized_election_timeout = self.rng.range(base, 2 * base) as u32;
    }

    fn become_follower(&mut self, term: Term, leader: Option<MemberId>) {
        let was = self.role.name();
        self.reset(term);
        self.role = Role::Follower;
        self.leader = leader;
        if was != RoleName::Follower {
            self.events.push(NodeEvent::BecameRole {
                role: RoleName::Follower,
                term,
            });
        }
    }

    fn step_down(&mut self, term: Term, reason: &'static str) {
        self.events.push(NodeEvent::SteppedDown { term, reason });
        self.become_follower(term, None);
    }

    fn become_pre_candidate(&mut self) {
        // Pre-vote changes neither term nor vote (thesis §9.6).
        self.role = Role::PreCandidate {
            votes: BTreeMap::new(),
        };
        self.leader = None;
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::PreCandidate,
            term: self.term,
        });
    }

    fn become_candidate(&mut self) {
        self.reset(self.term + 1);
        self.vote = Some(self.id);
        self.role = Role::Candidate {
            votes: BTreeMap::new(),
        };
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::Candidate,
            term: self.term,
        });
    }

    fn become_leader(&mut self) {
        self.reset(self.term);
        self.leader = Some(self.id);
        let next = self.log.last_index() + 1;
        let mut progress = BTreeMap::new();
        let members = self
            .voters
            .voters()
            .into_iter()
            .chain(self.learners.iter().copied());
        for id in members {
            let mut pr = Progress::new(next, self.config.max_inflight, self.learners.contains(&id));
            if id == self.id {
                pr.match_index = self.log.stable_index;
                pr.become_replicate();
                pr.recent_active = true;
            }
            progress.insert(id, pr);
        }
        self.role = Role::Leader(Box::new(LeaderState {
            progress,
            transferee: None,
            transfer_elapsed: 0,
            reads: ReadOnly::default(),
        }));
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::Leader,
            term: self.term,
        });
        // An empty entry of the new term: committing it commits everything before (§5.4.2),
        // and lets reads be served (§8).
        self.append_entries(vec![Vec::new()]);
    }

    /// Starts an election: a pre-vote round first when enabled, unless this is a transfer.
    fn hup(&mut self, transfer: bool) {
        if self.is_leader() || !self.promotable() {
            return;
        }
        if self.config.pre_vote && !transfer {
            self.campaign(true, false);
        } else {
            self.campaign(false, transfer);
        }
    }

    /// Forces this member's election timer to fire now (the UI's "time out" button).
    /// A leader ignores it (as etcd does): resetting its election clock would also postpone
    /// its check-quorum.
    pub fn force_timeout(&mut self) {
        if self.is_leader() {
            return;
        }
        self.election_elapsed = 0;
        self.hup(false);
    }

    fn campaign(&mut self, pre: bool, transfer: bool) {
        let term = if pre {
            self.become_pre_candidate();
            self.term + 1
        } else {
            self.become_candidate();
            self.term
        };
        self.record_vote(self.id, true);
        if self.poll() {
            return;
        }
        let (last_index, last_term) = (self.log.last_index(), self.log.last_term());
        for peer in self.voters.voters() {
            if peer == self.id {
                continue;
            }
            let body = if pre {
                Body::PreVote {
                    last_index,
                    last_term,
                }
            } else {
                Body::RequestVote {
                    last_index,
                    last_term,
                    transfer,
                }
            };
            self.send(Message {
                from: self.id,
                to: peer,
                term,
                body,
            });
        }
    }

    fn record_vote(&mut self, from: MemberId, granted: bool) {
        if let Role::PreCandidate { votes } | Role::Candidate { votes } = &mut self.role {
            votes.entry(from).or_insert(granted);
        }
    }

    /// Acts on the votes so far; true if the campaign ended (won or lost).
    fn poll(&mut self) -> bool {
        let (pre, result) = match &self.role {
            Role::PreCandidate { votes } => (true, self.voters.vote_result(votes)),
            Role::Candidate { votes } => (false, self.voters.vote_result(votes)),
            _ => return true,
        };
        match result {
            VoteResult::Won if pre => {
                self.campaign(false, false);
                true
            }
            // Our own vote counts once it is on disk (etcd-io/raft delivers the self-vote
            // after the append); with other voters their grants come later anyway, but a
            // lone voter would otherwise lead a term it could forget in a crash and lead again
            // with other entries. `advance` polls again once the hard state is persisted.
            VoteResult::Won if self.hard_state() != self.persisted_hard_state => false,
            VoteResult::Won => {
                self.become_leader();
                self.bcast_append();
                true
            }
            VoteResult::Lost => {
                self.become_follower(self.term, None);
                true
            }
            VoteResult::Pending => false,
        }
    }

    fn handle_vote_request(&mut self, m: &Message, last_index: Index, last_term: Term, pre: bool) {
        // We can vote for the one we already voted for, for anyone if we have neither voted
        // nor a leader this term, and in any pre-vote for a later term.
        let can_vote = self.vote == Some(m.from)
            || (self.vote.is_none() && self.leader.is_none())
            || (pre && m.term > self.term);
        let log_ok = self.config.teaching.vote_without_log_check
            || self.log.is_up_to_date(last_index, last_term);
        let grant = can_vote && log_ok;
        let resp_term = if grant { m.term } else { self.term };
        let body = if pre {
            Body::PreVoteResp { reject: !grant }
        } else {
            Body::RequestVoteResp { reject: !grant }
        };
        if grant && !pre {
            self.election_elapsed = 0;
            self.vote = Some(m.from);
            self.events.push(NodeEvent::Voted {
                candidate: m.from,
                term: self.term,
            });
        }
        self.send(Message {
            from: self.id,
            to: m.from,
            term: resp_term,
            body,
        });
    }

    fn step_candidate(&mut self, m: Message) {
        let pre = matches!(self.role, Role::PreCandidate { .. });
        match m.body {
            Body::Append { .. } => {
                self.become_follower(m.term, Some(m.from));
                self.handle_append(m);
            }
            Body::Snapshot { .. } => {
                self.become_follower(m.term, Some(m.from));
                self.handle_snapshot(m);
            }
            Body::PreVoteResp { reject } if pre => {
                self.record_vote(m.from, !reject);
                self.poll();
            }
            Body::RequestVoteResp { reject } if !pre => {
                self.record_vote(m.from, !reject);
                self.poll();
            }
            _ => {}
        }
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
                if let Some(leader) = self.leader {
                    self.send(Message {
                        from: self.id,
                        to: leader,
                        term: 0,
                        body: Body::Propose { data },
                    });
                }
            }
            Body::TransferLeader { .. } => {
                if let Some(leader) = self.leader {
                    self.send(Message {
                        from: m.from,
                        to: leader,
                        term: 0,
                        body: m.body,
                    });
                }
            }
            Body::TimeoutNow => self.hup(true),
            Body::ReadIndex { ctx } => {
                if let Some(leader) = self.leader {
                    self.send(Message {
                        from: self.id,
                        to: leader,
                        term: 0,
                        body: Body::ReadIndex { ctx },
                    });
                }
            }
            Body::ReadIndexResp { ctx, index } => self.read_states.push(ReadState { ctx, index }),
            _ => {}
        }
    }

    // ----- replication (§5.3) -----------------------------------------------------------

    fn handle_append(&mut self, m: Message) {
        let Body::Append {
            prev_index,
            prev_term,
            entries,
            commit,
            heartbeat,
            read_ctx,
        } = m.body
        else {
            return;
        };
        let reply = |index, reject, hint_index, hint_term| Body::AppendResp {
            index,
            reject,
            hint_index,
            hint_term,
            heartbeat,
            read_ctx,
        };
        if prev_index < self.log.committed {
            let body = reply(self.log.committed, false, 0, 0);
            self.send(Message {
                from: self.id,
                to: m.from,
                term: self.term,
                body,
            });
            return;
        }
        let mut overwrote = false;
        let body =
            match self
                .log
                .maybe_append(prev_index, prev_term, commit, &entries, &mut overwrote)
            {
                Some(last_new) => reply(last_new, false, 0, 0),
                None => {
                    let hint = self
                        .log
                        .find_conflict_by_term(prev_index.min(self.log.last_index()), prev_term);
                    let hint_term = self.log.term(hint).unwrap_or(0);
                    reply(prev_index, true, hint, hint_term)
                }
            };
        if overwrote {
            self.events.push(NodeEvent::OverwroteCommitted {
                index: self.log.committed,
            });
        }
        // A new configuration entry, or a truncation that may have removed one.
        let touches_conf = entries.first().is_some_and(|e| e.index <= self.conf_index)
            || entries.iter().any(|e| e.kind == EntryKind::Config);
        if touches_conf {
            self.reload_conf();
        }
        self.send(Message {
            from: self.id,
            to: m.from,
            term: self.term,
            body,
        });
    }

    /// InstallSnapshot (§7): a snapshot we already cover only advances commit; otherwise it
    /// replaces the log and the state machine (through the Ready).
    fn handle_snapshot(&mut self, m: Message) {
        let Body::Snapshot {
            index,
            term,
            conf,
            data,
        } = m.body
        else {
            return;
        };
        let accepted_to = if index <= self.log.committed {
            self.log.committed
        } else if self.log.match_term(index, term) {
            self.log.commit_to(index);
            index
        } else {
            self.log.restore_snapshot(index, term);
            self.snapshot_conf = conf.clone();
            self.conf = ConfState::default();
            self.reload_conf();
            self.pending_snapshot = Some(Snapshot {
                index,
                term,
                conf,
                data,
            });
            index
        };
        let body = Body::AppendResp {
            index: accepted_to,
            reject: false,
            hint_index: 0,
            hint_term: 0,
            heartbeat: false,
            read_ctx: 0,
        };
        self.send(Message {
            from: self.id,
            to: m.from,
            term: self.term,
            body,
        });
    }

    fn append_entries(&mut self, datas: Vec<Vec<u8>>) {
        let entries = datas
            .into_iter()
            .map(|data| (EntryKind::Normal, data))
            .collect();
        self.append_kinds(entries);
    }

    fn append_kinds(&mut self, datas: Vec<(EntryKind, Vec<u8>)>) {
        let mut index = self.log.last_index();
        let entries: Vec<Entry> = datas
            .into_iter()
            .map(|(kind, data)| {
                index += 1;
                Entry {
                    index,
                    term: self.term,
                    kind,
                    data: data.into(),
                }
            })
            .collect();
        let has_conf = entries.iter().any(|e| e.kind == EntryKind::Config);
        self.log.append(&entries);
        if has_conf {
            self.reload_conf();
        }
        // Our own progress advances when the entries are persisted (see `advance`).
    }

    /// Proposes a membership change (leader only). One at a time: refused while an earlier
    /// configuration entry is uncommitted, and until this leader has committed an entry of
    /// its own term. A new leader's log may lack a change another member appended in an
    /// earlier term; only once its own entry is on a quorum can no such member win an
    /// election any more (Ongaro's single-server change bug, 2015; etcd-io/raft's
    /// `pendingConfIndex` starts at the new leader's last index for the same reason).
    pub fn propose_conf_change(&mut self, cc: ConfChange) -> Result<(), ProposeError> {
        let Role::Leader(state) = &self.role else {
            return Err(ProposeError::ProposalDropped);
        };
        if state.transferee.is_some() {
            return Err(ProposeError::ProposalDropped);
        }
        if self.last_conf_index() > self.log.committed || !self.committed_in_term() {
            return Err(ProposeError::ConfChangePending);
        }
        self.conf.apply(&cc).map_err(ProposeError::BadConfChange)?;
        self.events.push(NodeEvent::Configuration {
            index: self.log.last_index() + 1,
            change: cc.describe(),
        });
        self.append_kinds(vec![(EntryKind::Config, cc.encode())]);
        self.bcast_append();
        Ok(())
    }

    /// After the commit index moved: leave a committed joint configuration (etcd's automatic
    /// transition), and step down if this leader is no longer a voter (thesis §4.2.2).
    fn after_commit(&mut self) {
        if !self.is_leader() || self.last_conf_index() > self.log.committed {
            return;
        }
        if self.conf.is_joint() {
            let cc = ConfChange::leave_joint();
            self.events.push(NodeEvent::Configuration {
                index: self.log.last_index() + 1,
                change: cc.describe(),
            });
            self.append_kinds(vec![(EntryKind::Config, cc.encode())]);
            self.bcast_append();
        } else if !self.conf.voters.contains(&self.id) {
            self.step_down(self.term, "removed from the configuration");
        }
    }

    /// Discards the log up to `index` (applied) into a snapshot whose state machine data the
    /// driver keeps; returns the configuration at that point, which the driver persists with it.
    pub fn compact(&mut self, index: Index) -> Option<ConfState> {
        let conf = self.conf_at(index);
        if !self.log.compact_to(index) {
            return None;
        }
        self.snapshot_conf = conf.clone();
        Some(conf)
    }

    fn step_leader(&mut self, m: Message) {
        match m.body {
            Body::Propose { data }
                if self.leader_state().is_some_and(|s| s.transferee.is_none()) =>
            {
                self.append_entries(vec![data]);
                self.bcast_append();
            }
            Body::AppendResp { .. } => self.handle_append_response(m),
            Body::TransferLeader { target } => self.transfer_leader(target),
            Body::ReadIndex { ctx } => self.leader_read_index(m.from, ctx),
            _ => {}
        }
    }

    fn handle_append_response(&mut self, m: Message) {
        let Body::AppendResp {
            index,
            reject,
            hint_index,
            hint_term,
            heartbeat,
            read_ctx,
        } = m.body
        else {
            return;
        };
        let last_index = self.log.last_index();
        let hint = if reject && hint_term > 0 {
            self.log.find_conflict_by_term(hint_index, hint_term)
        } else {
            hint_index
        };
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        let Some(pr) = state.progress.get_mut(&m.from) else {
            return;
        };
        pr.recent_active = true;
        if heartbeat {
            pr.probe_sent = false;
            if pr.state == ProgressState::Replicate && pr.inflight_full() {
                pr.inflights.pop_front();
            }
            let behind = pr.match_index < last_index;
            if read_ctx != 0 {
                self.ack_read(m.from, read_ctx);
            }
            if behind {
                self.send_append(m.from, true);
            }
            return;
        }
        if reject {
            if pr.maybe_decr_to(index, hint) {
                if pr.state == ProgressState::Replicate {
                    pr.become_probe();
                }
                self.send_append(m.from, true);
            }
            return;
        }
        let was_paused = pr.is_paused();
        if !pr.maybe_update(index) {
            return;
        }
        match pr.state {
            ProgressState::Probe => pr.become_replicate(),
            ProgressState::Snapshot if pr.match_index >= pr.pending_snapshot => pr.become_probe(),
            ProgressState::Snapshot => {}
            ProgressState::Replicate => pr.free_inflights_to(index),
        }
        let caught_up = pr.match_index == last_index;
        let transfer_now = state.transferee == Some(m.from) && caught_up;
        if self.maybe_commit() {
            self.bcast_append();
        } else if was_paused {
            self.send_append(m.from, true);
        }
        while self.send_append(m.from, false) {}
        if transfer_now {
            self.send(Message {
                from: self.id,
                to: m.from,
                term: self.term,
                body: Body::TimeoutNow,
            });
        }
    }

    /// §5.4.2: commit the largest index a quorum has, but only if it is of this term, unless
    /// the Figure 8 teaching switch is on.
    fn maybe_commit(&mut self) -> bool {
        let Role::Leader(state) = &self.role else {
            return false;
        };
        let quorum_index = self
            .voters
            .committed_index(|id| state.progress.get(&id).map(|pr| pr.match_index));
        if quorum_index <= self.log.committed || quorum_index == Index::MAX {
            return false;
        }
        let own_term = self.log.term(quorum_index) == Some(self.term);
        if !own_term && !self.config.teaching.commit_old_terms_by_counting {
            return false;
        }
        self.log.commit_to(quorum_index);
        self.release_waiting_reads();
        self.after_commit();
        true
    }

    fn peers(&self) -> Vec<MemberId> {
        match &self.role {
            Role::Leader(state) => state
                .progress
                .keys()
                .copied()
                .filter(|id| *id != self.id)
                .collect(),
            _ => Vec::new(),
        }
    }

    fn bcast_append(&mut self) {
        for peer in self.peers() {
            self.send_append(peer, true);
        }
    }

    /// Sends the next batch to `to`; false if nothing was sent.
    fn send_append(&mut self, to: MemberId, allow_empty: bool) -> bool {
        let Role::Leader(state) = &mut self.role else {
            return false;
        };
        let Some(pr) = state.progress.get_mut(&to) else {
            return false;
        };
        if pr.is_paused() {
            return false;
        }
        let prev_index = pr.next_index - 1;
        let Some(prev_term) = self.log.term(prev_index) else {
            // The entries it needs were compacted: it needs a snapshot, which the driver
            // installs through `send_snapshot`.
            pr.become_snapshot(self.log.snapshot_index);
            return false;
        };
        let entries = self
            .log
            .entries_from(pr.next_index, self.config.max_entries_per_msg);
        if entries.is_empty() && !allow_empty {
            return false;
        }
        pr.sent_entries(entries.last().map(|e| e.index));
        let body = Body::Append {
            prev_index,
            prev_term,
            entries,
            commit: self.log.committed,
            heartbeat: false,
            read_ctx: 0,
        };
        self.send(Message {
            from: self.id,
            to,
            term: self.term,
            body,
        });
        true
    }

    /// Followers waiting for a snapshot (the driver builds one from its state machine).
    pub fn snapshot_wanted(&self) -> Vec<MemberId> {
        match &self.role {
            Role::Leader(state) => state
                .progress
                .iter()
                .filter(|(_, pr)| pr.state == ProgressState::Snapshot && !pr.probe_sent)
                .map(|(id, _)| *id)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Sends the driver's snapshot (state machine at `self.log.snapshot_index`) to `to`.
    pub fn send_snapshot(&mut self, to: MemberId, data: EntryData) {
        let (index, term) = (self.log.snapshot_index, self.log.snapshot_term);
        let conf = self.snapshot_conf.clone();
        if let Role::Leader(state) = &mut self.role {
            if let Some(pr) = state.progress.get_mut(&to) {
                pr.become_snapshot(index);
                // Sent: wait for the answer rather than resending on every step.
                pr.pending_snapshot = index;
                pr.probe_sent = true;
            }
        }
        let body = Body::Snapshot {
            index,
            term,
            conf,
            data,
        };
        self.send(Message {
            from: self.id,
            to,
            term: self.term,
            body,
        });
    }

    /// Heartbeats are empty AppendEntries at the follower's known match, carrying the commit
    /// index only as far as the follower is known to have the log.
    fn bcast_heartbeat(&mut self, read_ctx: u64) {
        let Role::Leader(state) = &self.role else {
            return;
        };
        let targets: Vec<(MemberId, Index)> = state
            .progress
            .iter()
            .filter(|(id, _)| **id != self.id)
            .map(|(id, pr)| (*id, pr.match_index))
            .collect();
        for (to, matched) in targets {
            let (prev_index, prev_term) = match self.log.term(matched) {
                Some(term) => (matched, term),
                None => (self.log.snapshot_index, self.log.snapshot_term),
            };
            let body = Body::Append {
                prev_index,
                prev_term,
                entries: Vec::new(),
                commit: self.log.committed.min(prev_index),
                heartbeat: true,
                read_ctx,
            };
            self.send(Message {
                from: self.id,
                to,
                term: self.term,
                body,
            });
        }
    }

    fn quorum_active(&mut self) -> bool {
        let Role::Leader(state) = &mut self.role else {
            return false;
        };
        let id = self.id;
        let active = self
            .voters
            .is_active(|v| v == id || state.progress.get(&v).is_some_and(|pr| pr.recent_active));
        for (peer, pr) in state.progress.iter_mut() {
            pr.recent_active = *peer == id;
        }
        active
    }

    // ----- leadership transfer (thesis §3.10) -------------------------------------------

    /// Asks this member (if leader) to hand leadership to `target`.
    pub fn transfer_leader(&mut self, target: MemberId) {
        if !self.is_leader() {
            if let Some(leader) = self.leader {
                let body = Body::TransferLeader { target };
                self.send(Message {
                    from: self.id,
                    to: leader,
                    term: 0,
                    body,
                });
            }
            return;
        }
        if target == self.id || !self.voters.contains(target) {
            return;
        }
        let last_index = self.log.last_index();
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        state.transferee = Some(target);
        state.transfer_elapsed = 0;
        let caught_up = state
            .progress
            .get(&target)
            .is_some_and(|pr| pr.match_index == last_index);
        if caught_up {
            self.send(Message {
                from: self.id,
                to: target,
                term: self.term,
                body: Body::TimeoutNow,
            });
        } else {
            self.send_append(target, true);
        }
    }

    // ----- linearizable reads (§8, thesis §6.4) -----------------------------------------

    fn committed_in_term(&self) -> bool {
        self.log.term(self.log.committed) == Some(self.term)
    }

    fn leader_read_index(&mut self, from: MemberId, ctx: u64) {
        if !self.committed_in_term() {
            if let Role::Leader(state) = &mut self.role {
                state.reads.waiting.push((from, ctx));
            }
            return;
        }
        let index = self.log.committed;
        if self.voters.voters().len() == 1 {
            self.serve_read(from, ctx, index);
            return;
        }
        let id = self.id;
        if let Role::Leader(state) = &mut self.role {
            let acks = BTreeSet::from([id]);
            state.reads.queue.push_back(PendingRead {
                ctx,
                from,
                index,
                acks,
            });
        }
        self.bcast_heartbeat(ctx);
    }

    fn release_waiting_reads(&mut self) {
        if !self.committed_in_term() {
            return;
        }
        let waiting = match &mut self.role {
            Role::Leader(state) => std::mem::take(&mut state.reads.waiting),
            _ => return,
        };
        for (from, ctx) in waiting {
            self.leader_read_index(from, ctx);
        }
    }

    fn ack_read(&mut self, from: MemberId, ctx: u64) {
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        let Some(pos) = state.reads.queue.iter().position(|r| r.ctx == ctx) else {
            return;
        };
        state.reads.queue[pos].acks.insert(from);
        let acks = &state.reads.queue[pos].acks;
        if !self.voters.is_active(|v| acks.contains(&v)) {
            return;
        }
        // A quorum confirmed leadership after this read arrived: it and every earlier read
        // are safe at their recorded index.
        let done: Vec<PendingRead> = state.reads.queue.drain(..=pos).collect();
        for read in done {
            self.serve_read(read.from, read.ctx, read.index);
        }
    }

    fn serve_read(&mut self, from: MemberId, ctx: u64, index: Index) {
        if from == self.id {
            self.read_states.push(ReadState { ctx, index });
        } else {
            let body = Body::ReadIndexResp { ctx, index };
            self.send(Message {
                from: self.id,
                to: from,
                term: self.term,
                body,
            });
        }
    }

    fn send(&mut self, m: Message) {
        self.msgs.push(m);
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
        assert_eq!(node.term, 2);
        let rd = node.ready();
        assert_eq!(
            rd.hard_state,
            Some(HardState {
                term: 2,
                vote: Some(MemberId(1))
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
            node.log.committed,
            node.log.last_index(),
            "its noop commits"
        );
    }
}
