use super::net::{Fate, NetConfig, Network};
use crate::base::{Index, MemberId, Millis, Rng, Term};
use crate::raft::{Config, Durable, Message, NodeEvent, Raft, RaftView, TeachingSwitches};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorldConfig {
    pub members: usize,
    pub seed: u64,
    /// One Raft tick in virtual milliseconds (etcd's heartbeat interval is 1 tick = 100 ms).
    pub tick_ms: Millis,
    pub election_tick: u32,
    pub heartbeat_tick: u32,
    pub pre_vote: bool,
    pub check_quorum: bool,
    pub teaching: TeachingSwitches,
    pub net: NetConfig,
}

impl WorldConfig {
    pub fn new(members: usize, seed: u64) -> WorldConfig {
        WorldConfig {
            members,
            seed,
            tick_ms: 100,
            election_tick: 10,
            heartbeat_tick: 1,
            pre_vote: true,
            check_quorum: true,
            teaching: TeachingSwitches::default(),
            net: NetConfig::default(),
        }
    }
}

/// Expected failures of a world command; `Display` is what a script prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    NoSuchMember(String),
    AlreadyStopped(MemberId),
    NotStopped(MemberId),
    Stopped(MemberId),
    AlreadyPaused(MemberId),
    NotPaused(MemberId),
    NoLeader,
    Timeout(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::NoSuchMember(name) => write!(f, "no member named {name:?}"),
            SimError::AlreadyStopped(m) => write!(f, "{m} is already stopped"),
            SimError::NotStopped(m) => write!(f, "{m} is running; kill it first"),
            SimError::Stopped(m) => write!(f, "{m} is stopped"),
            SimError::AlreadyPaused(m) => write!(f, "{m} is already paused"),
            SimError::NotPaused(m) => write!(f, "{m} is not paused"),
            SimError::NoLeader => write!(f, "there is no leader"),
            SimError::Timeout(what) => write!(f, "timed out waiting for {what}"),
        }
    }
}

/// A user action on the world; every UI button is one, and each has a script verb.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    Kill { member: MemberId },
    Restart { member: MemberId },
    Pause { member: MemberId },
    Resume { member: MemberId },
    Timeout { member: MemberId },
    TransferLeader { from: MemberId, to: MemberId },
    Partition { groups: Vec<Vec<MemberId>> },
    Heal,
    DropMessage { id: u64 },
}

/// A committed entry applied by a member, as the state-machine-safety checker sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Applied {
    pub index: Index,
    pub term: Term,
    /// FNV-1a of the entry's data.
    pub digest: u64,
}

/// Something worth narrating, with its virtual time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogEvent {
    pub time_ms: Millis,
    pub member: MemberId,
    pub event: NodeEvent,
}

/// A message on the wire, as the UI draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InFlight {
    pub id: u64,
    pub sent_ms: Millis,
    pub arrive_ms: Millis,
    pub from: MemberId,
    pub to: MemberId,
    pub kind: &'static str,
    pub term: Term,
    pub entries: usize,
    pub describe: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberStatus {
    pub name: MemberId,
    pub state: &'static str,
    pub term: Term,
    pub vote: Option<MemberId>,
    pub commit: Index,
    pub applied: Index,
    pub last_index: Index,
    pub last_term: Term,
    pub revision: i64,
}

/// `status -w json`, field for field as DESIGN.md gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatusView {
    pub time_ms: Millis,
    pub leader: Option<MemberId>,
    pub members: Vec<MemberStatus>,
}

#[derive(Clone, Debug)]
enum Event {
    Tick {
        member: MemberId,
        incarnation: u64,
    },
    Deliver {
        id: u64,
        sent_ms: Millis,
        msg: Message,
    },
}

#[derive(Clone, Debug)]
struct Member {
    node: Option<Raft>,
    durable: Durable,
    paused: bool,
    /// Messages that arrived while paused, handled on resume (a stopped process's socket).
    inbox: Vec<Message>,
    incarnation: u64,
    /// What this incarnation applied, in order.
    applied: Vec<Applied>,
    /// The writes applied: each non-empty normal entry is one revision (etcd's rule for a
    /// put), until the MVCC store takes over.
    revision: i64,
    raft_rng: Rng,
}

/// The whole simulated cluster. `Clone` is a checkpoint.
#[derive(Clone, Debug)]
pub struct World {
    pub config: WorldConfig,
    pub net: Network,
    now: Millis,
    seq: u64,
    queue: BTreeMap<(Millis, u64), Event>,
    members: BTreeMap<MemberId, Member>,
    net_rng: Rng,
    next_message_id: u64,
    trace_hash: u64,
    trace_len: u64,
    events: Vec<LogEvent>,
    record_trace: bool,
    trace: Vec<String>,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

impl World {
    pub fn new(config: WorldConfig) -> World {
        let mut root = Rng::new(config.seed);
        let net_rng = root.split();
        let mut world = World {
            net: Network {
                config: config.net.clone(),
                ..Network::default()
            },
            config,
            now: 0,
            seq: 0,
            queue: BTreeMap::new(),
            members: BTreeMap::new(),
            net_rng,
            next_message_id: 1,
            trace_hash: FNV_OFFSET,
            trace_len: 0,
            events: Vec::new(),
            record_trace: false,
            trace: Vec::new(),
        };
        let ids: Vec<MemberId> = (1..=world.config.members as u64).map(MemberId).collect();
        for id in &ids {
            let mut raft_rng = root.split();
            let node = Raft::new(world.raft_config(*id, &ids), raft_rng.split());
            // Tick phases differ per member, as real processes start at different moments.
            let phase = raft_rng.range(1, world.config.tick_ms.max(1) + 1);
            let member = Member {
                node: Some(node),
                durable: Durable::default(),
                paused: false,
                inbox: Vec::new(),
                incarnation: 0,
                applied: Vec::new(),
                revision: 1,
                raft_rng,
            };
            world.members.insert(*id, member);
            world.schedule(
                phase,
                Event::Tick {
                    member: *id,
                    incarnation: 0,
                },
            );
        }
        world
    }

    fn raft_config(&self, id: MemberId, voters: &[MemberId]) -> Config {
        let mut config = Config::new(id, voters.to_vec());
        config.election_tick = self.config.election_tick;
        config.heartbeat_tick = self.config.heartbeat_tick;
        config.pre_vote = self.config.pre_vote;
        config.check_quorum = self.config.check_quorum;
        config.teaching = self.config.teaching;
        config
    }

    /// Keep every trace line (for `--trace`); the hash is kept either way.
    pub fn record_trace(&mut self, on: bool) {
        self.record_trace = on;
    }

    pub fn trace_lines(&self) -> &[String] {
        &self.trace
    }

    pub fn trace_hash(&self) -> u64 {
        self.trace_hash
    }

    pub fn trace_len(&self) -> u64 {
        self.trace_len
    }

    fn trace(&mut self, line: String) {
        let stamped = format!("{:>8} {}", self.now, line);
        self.trace_hash = fnv(self.trace_hash, stamped.as_bytes());
        self.trace_hash = fnv(self.trace_hash, b"\n");
        self.trace_len += 1;
        if self.record_trace {
            self.trace.push(stamped);
        }
    }

    pub fn now(&self) -> Millis {
        self.now
    }

    pub fn member_ids(&self) -> Vec<MemberId> {
        self.members.keys().copied().collect()
    }

    pub fn member(&self, name: &str) -> Result<MemberId, SimError> {
        MemberId::parse(name)
            .filter(|id| self.members.contains_key(id))
            .ok_or_else(|| SimError::NoSuchMember(name.to_string()))
    }

    fn schedule(&mut self, at: Millis, event: Event) {
        self.seq += 1;
        self.queue.insert((at, self.seq), event);
    }

    // ----- running ----------------------------------------------------------------------

    /// The time of the next event, if any.
    pub fn next_event_time(&self) -> Option<Millis> {
        self.queue.keys().next().map(|(t, _)| *t)
    }

    /// Handles the next event; false if there is none.
    pub fn step(&mut self) -> bool {
        let Some(((at, _), event)) = self.queue.pop_first() else {
            return false;
        };
        self.now = self.now.max(at);
        match event {
            Event::Tick {
                member,
                incarnation,
            } => self.on_tick(member, incarnation),
            Event::Deliver { id, msg, .. } => self.on_deliver(id, msg),
        }
        true
    }

    /// Handles every event up to and including time `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: Millis) {
        while self.next_event_time().is_some_and(|next| next <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    pub fn run_for(&mut self, d: Millis) {
        self.run_until(self.now + d);
    }

    /// Runs until `done` holds (checked after every event) or `limit` ms pass.
    pub fn run_until_cond(&mut self, limit: Millis, mut done: impl FnMut(&World) -> bool) -> bool {
        let deadline = self.now + limit;
        loop {
            if done(self) {
                return true;
            }
            match self.next_event_time() {
                Some(t) if t <= deadline => {
                    self.step();
                }
                _ => {
                    self.now = self.now.max(deadline);
                    return done(self);
                }
            }
        }
    }

    fn on_tick(&mut self, id: MemberId, incarnation: u64) {
        let tick_ms = self.config.tick_ms.max(1);
        let Some(member) = self.members.get_mut(&id) else {
            return;
        };
        if member.incarnation != incarnation || member.node.is_none() {
            return; // a tick of a crashed incarnation
        }
        if !member.paused {
            if let Some(node) = member.node.as_mut() {
                node.tick();
            }
        }
        self.schedule(
            self.now + tick_ms,
            Event::Tick {
                member: id,
                incarnation,
            },
        );
        self.process_ready(id);
    }

    fn on_deliver(&mut self, id: u64, msg: Message) {
        let to = msg.to;
        let cut = self.net.is_cut(msg.from, msg.to);
        let Some(member) = self.members.get(&to) else {
            return;
        };
        let (down, paused) = (member.node.is_none(), member.paused);
        let describe = msg.describe();
        if down {
            self.trace(format!("drop #{id} {describe} (down)"));
        } else if cut {
            self.trace(format!("drop #{id} {describe} (partitioned)"));
        } else if paused {
            self.trace(format!("hold #{id} {describe} (paused)"));
            if let Some(member) = self.members.get_mut(&to) {
                member.inbox.push(msg);
            }
        } else {
            self.trace(format!("recv #{id} {describe}"));
            if let Some(node) = self.members.get_mut(&to).and_then(|m| m.node.as_mut()) {
                node.step(msg);
            }
            self.process_ready(to);
        }
    }

    /// Acts on a member's Ready: persist, send, apply, advance (see `raft::Ready`).
    fn process_ready(&mut self, id: MemberId) {
        loop {
            let Some(member) = self.members.get_mut(&id) else {
                return;
            };
            let Some(node) = member.node.as_mut() else {
                return;
            };
            let events = node.take_events();
            if !node.has_ready() && events.is_empty() {
                return;
            }
            let rd = node.ready();
            member.durable.persist(&rd);
            for entry in &rd.committed_entries {
                member.applied.push(Applied {
                    index: entry.index,
                    term: entry.term,
                    digest: fnv(FNV_OFFSET, &entry.data),
                });
                if !entry.data.is_empty() {
                    member.revision += 1;
                }
            }
            node.advance(&rd);
            for event in events {
                self.trace(format!("{id} {event:?}"));
                self.events.push(LogEvent {
                    time_ms: self.now,
                    member: id,
                    event,
                });
            }
            for entry in &rd.committed_entries {
                self.trace(format!("{id} apply {}", entry.describe()));
            }
            for msg in rd.messages {
                self.send(msg);
            }
        }
    }

    fn send(&mut self, msg: Message) {
        let id = self.next_message_id;
        self.next_message_id += 1;
        let describe = msg.describe();
        match self.net.fate(msg.from, msg.to, &mut self.net_rng) {
            Fate::Lost(why) => self.trace(format!("lose #{id} {describe} ({why})")),
            Fate::Delivered(delays) => {
                self.trace(format!("send #{id} {describe}"));
                for delay in delays {
                    let sent_ms = self.now;
                    self.schedule(
                        self.now + delay,
                        Event::Deliver {
                            id,
                            sent_ms,
                            msg: msg.clone(),
                        },
                    );
                }
            }
        }
    }

    // ----- actions ----------------------------------------------------------------------

    pub fn apply(&mut self, action: &Action) -> Result<(), SimError> {
        self.trace(format!(
            "action {}",
            serde_json::to_string(action).unwrap_or_default()
        ));
        match action {
            Action::Kill { member } => self.kill(*member),
            Action::Restart { member } => self.restart(*member),
            Action::Pause { member } => self.pause(*member),
            Action::Resume { member } => self.resume(*member),
            Action::Timeout { member } => self.force_timeout(*member),
            Action::TransferLeader { from, to } => self.transfer_leader(*from, *to),
            Action::Partition { groups } => {
                self.net.partition(groups);
                Ok(())
            }
            Action::Heal => {
                self.net.heal();
                Ok(())
            }
            Action::DropMessage { id } => {
                self.queue
                    .retain(|_, e| !matches!(e, Event::Deliver { id: i, .. } if i == id));
                Ok(())
            }
        }
    }

    fn running_mut(&mut self, id: MemberId) -> Result<&mut Member, SimError> {
        let member = self
            .members
            .get_mut(&id)
            .ok_or_else(|| SimError::NoSuchMember(id.to_string()))?;
        if member.node.is_none() {
            return Err(SimError::Stopped(id));
        }
        Ok(member)
    }

    /// A crash: volatile state is lost; the durable state stays on "disk".
    fn kill(&mut self, id: MemberId) -> Result<(), SimError> {
        let member = self
            .members
            .get_mut(&id)
            .ok_or_else(|| SimError::NoSuchMember(id.to_string()))?;
        if member.node.take().is_none() {
            return Err(SimError::AlreadyStopped(id));
        }
        member.incarnation += 1;
        member.paused = false;
        member.inbox.clear();
        Ok(())
    }

    /// A restart from durable state: term, vote and log survive; commit and applied restart.
    fn restart(&mut self, id: MemberId) -> Result<(), SimError> {
        let ids = self.member_ids();
        let config = self.raft_config(id, &ids);
        let tick_ms = self.config.tick_ms.max(1);
        let member = self
            .members
            .get_mut(&id)
            .ok_or_else(|| SimError::NoSuchMember(id.to_string()))?;
        if member.node.is_some() {
            return Err(SimError::NotStopped(id));
        }
        let node_rng = member.raft_rng.split();
        member.node = Some(member.durable.restart(config, node_rng));
        member.applied.clear();
        member.revision = 1;
        let incarnation = member.incarnation;
        let phase = member.raft_rng.range(1, tick_ms + 1);
        self.schedule(
            self.now + phase,
            Event::Tick {
                member: id,
                incarnation,
            },
        );
        Ok(())
    }

    fn pause(&mut self, id: MemberId) -> Result<(), SimError> {
        let member = self.running_mut(id)?;
        if member.paused {
            return Err(SimError::AlreadyPaused(id));
        }
        member.paused = true;
        Ok(())
    }

    fn resume(&mut self, id: MemberId) -> Result<(), SimError> {
        let member = self.running_mut(id)?;
        if !member.paused {
            return Err(SimError::NotPaused(id));
        }
        member.paused = false;
        let inbox = std::mem::take(&mut member.inbox);
        if let Some(node) = member.node.as_mut() {
            for msg in inbox {
                node.step(msg);
            }
        }
        self.process_ready(id);
        Ok(())
    }

    fn force_timeout(&mut self, id: MemberId) -> Result<(), SimError> {
        let member = self.running_mut(id)?;
        if let Some(node) = member.node.as_mut() {
            node.force_timeout();
        }
        self.process_ready(id);
        Ok(())
    }

    fn transfer_leader(&mut self, from: MemberId, to: MemberId) -> Result<(), SimError> {
        if !self.members.contains_key(&to) {
            return Err(SimError::NoSuchMember(to.to_string()));
        }
        let member = self.running_mut(from)?;
        if let Some(node) = member.node.as_mut() {
            node.transfer_leader(to);
        }
        self.process_ready(from);
        Ok(())
    }

    // ----- views ------------------------------------------------------------------------

    pub fn is_running(&self, id: MemberId) -> bool {
        self.members.get(&id).is_some_and(|m| m.node.is_some())
    }

    pub fn is_paused(&self, id: MemberId) -> bool {
        self.members.get(&id).is_some_and(|m| m.paused)
    }

    pub fn raft_view(&self, id: MemberId) -> Option<RaftView> {
        self.members.get(&id)?.node.as_ref().map(Raft::view)
    }

    pub fn node(&self, id: MemberId) -> Option<&Raft> {
        self.members.get(&id)?.node.as_ref()
    }

    pub fn durable(&self, id: MemberId) -> Option<&Durable> {
        self.members.get(&id).map(|m| &m.durable)
    }

    pub fn applied(&self, id: MemberId) -> &[Applied] {
        self.members.get(&id).map_or(&[], |m| &m.applied)
    }

    pub fn incarnation(&self, id: MemberId) -> u64 {
        self.members.get(&id).map_or(0, |m| m.incarnation)
    }

    /// The leader a quorum of running members currently follows in its term, if any. A
    /// deposed leader cut off in a minority still believes it leads; it is not this.
    pub fn leader(&self) -> Option<MemberId> {
        let quorum = self.members.len() / 2 + 1;
        self.members.iter().find_map(|(id, m)| {
            let node = m.node.as_ref()?;
            if !node.is_leader() {
                return None;
            }
            let followers = self
                .members
                .values()
                .filter_map(|o| o.node.as_ref())
                .filter(|o| o.term == node.term && o.leader == Some(*id))
                .count();
            (followers >= quorum).then_some(*id)
        })
    }

    /// The largest group of running, unpaused members that can all reach each other both
    /// ways: what the quorum meter compares with the quorum.
    pub fn largest_connected_group(&self) -> Vec<MemberId> {
        let alive: Vec<MemberId> = self
            .members
            .iter()
            .filter(|(_, m)| m.node.is_some() && !m.paused)
            .map(|(id, _)| *id)
            .collect();
        let mut best: Vec<MemberId> = Vec::new();
        let mut seen: Vec<MemberId> = Vec::new();
        for start in &alive {
            if seen.contains(start) {
                continue;
            }
            let mut group = vec![*start];
            let mut i = 0;
            while i < group.len() {
                let a = group[i];
                for b in &alive {
                    if !group.contains(b) && !self.net.is_cut(a, *b) && !self.net.is_cut(*b, a) {
                        group.push(*b);
                    }
                }
                i += 1;
            }
            seen.extend(&group);
            if group.len() > best.len() {
                group.sort();
                best = group;
            }
        }
        best
    }

    /// Narration events so far (oldest first).
    pub fn events(&self) -> &[LogEvent] {
        &self.events
    }

    /// Messages on the wire now, in arrival order.
    pub fn in_flight(&self) -> Vec<InFlight> {
        self.queue
            .iter()
            .filter_map(|((arrive_ms, _), e)| match e {
                Event::Deliver { id, sent_ms, msg } => Some(InFlight {
                    id: *id,
                    sent_ms: *sent_ms,
                    arrive_ms: *arrive_ms,
                    from: msg.from,
                    to: msg.to,
                    kind: msg.kind(),
                    term: msg.term,
                    entries: msg.entry_count(),
                    describe: msg.describe(),
                }),
                Event::Tick { .. } => None,
            })
            .collect()
    }

    pub fn status(&self) -> StatusView {
        let members = self
            .members
            .iter()
            .map(|(id, m)| match &m.node {
                Some(node) => MemberStatus {
                    name: *id,
                    state: node.role_name().as_str(),
                    term: node.term,
                    vote: node.vote,
                    commit: node.log.committed,
                    applied: node.log.applied,
                    last_index: node.log.last_index(),
                    last_term: node.log.last_term(),
                    revision: m.revision,
                },
                None => MemberStatus {
                    name: *id,
                    state: "stopped",
                    term: m.durable.hard.term,
                    vote: m.durable.hard.vote,
                    commit: 0,
                    applied: 0,
                    last_index: m
                        .durable
                        .entries
                        .last()
                        .map_or(m.durable.snapshot_index, |e| e.index),
                    last_term: m
                        .durable
                        .entries
                        .last()
                        .map_or(m.durable.snapshot_term, |e| e.term),
                    revision: m.revision,
                },
            })
            .collect();
        StatusView {
            time_ms: self.now,
            leader: self.leader(),
            members,
        }
    }

    /// Proposes `data` through member `id` (forwarded to the leader if it is a follower).
    pub fn propose(&mut self, id: MemberId, data: Vec<u8>) -> Result<(), SimError> {
        let member = self.running_mut(id)?;
        let node = member.node.as_mut().ok_or(SimError::Stopped(id))?;
        node.propose(data).map_err(|_| SimError::NoLeader)?;
        self.process_ready(id);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elect(seed: u64) -> World {
        let mut world = World::new(WorldConfig::new(3, seed));
        assert!(
            world.run_until_cond(30_000, |w| w.leader().is_some()),
            "seed {seed}: no leader"
        );
        world
    }

    #[test]
    fn a_leader_is_elected_and_heartbeats_keep_it() {
        let mut world = elect(1);
        let leader = world.leader().unwrap();
        let term = world.node(leader).unwrap().term;
        world.run_for(10_000);
        assert_eq!(
            world.leader(),
            Some(leader),
            "a healthy leader keeps its term"
        );
        assert_eq!(world.node(leader).unwrap().term, term);
    }

    #[test]
    fn killing_the_leader_elects_another_in_a_higher_term() {
        let mut world = elect(2);
        let old = world.leader().unwrap();
        let old_term = world.node(old).unwrap().term;
        world.apply(&Action::Kill { member: old }).unwrap();
        assert!(world.run_until_cond(30_000, |w| w.leader().is_some()));
        let new = world.leader().unwrap();
        assert_ne!(new, old);
        assert!(world.node(new).unwrap().term > old_term);
        world.apply(&Action::Restart { member: old }).unwrap();
        world.run_for(5_000);
        assert_eq!(
            world.leader(),
            Some(new),
            "the restarted member rejoins as follower"
        );
    }

    #[test]
    fn kill_loses_volatile_state_but_pause_keeps_it() {
        let mut world = elect(3);
        let leader = world.leader().unwrap();
        for i in 0..5 {
            world.propose(leader, format!("v{i}").into_bytes()).unwrap();
        }
        world.run_for(1_000);
        let follower = world
            .member_ids()
            .into_iter()
            .find(|m| *m != leader)
            .unwrap();
        let before = world.node(follower).unwrap().view();
        assert!(before.commit >= 6);

        world.apply(&Action::Pause { member: follower }).unwrap();
        world.run_for(3_000);
        let paused = world.node(follower).unwrap().view();
        assert_eq!(
            (paused.commit, paused.applied, paused.term),
            (before.commit, before.applied, before.term)
        );

        world.apply(&Action::Resume { member: follower }).unwrap();
        world.apply(&Action::Kill { member: follower }).unwrap();
        world.apply(&Action::Restart { member: follower }).unwrap();
        let restarted = world.node(follower).unwrap().view();
        assert_eq!(restarted.commit, 0, "commit index is volatile");
        assert_eq!(restarted.applied, 0, "applied index is volatile");
        assert_eq!(restarted.term, before.term, "term is durable");
        assert_eq!(
            restarted.last_index, before.last_index,
            "the log is durable"
        );
        assert_eq!(restarted.role.as_str(), "follower");
        world.run_for(1_000);
        assert!(
            world.node(follower).unwrap().log.committed >= 6,
            "the leader re-teaches commit"
        );
    }

    #[test]
    fn same_seed_same_trace_hash() {
        let run = |seed| {
            let mut world = World::new(WorldConfig::new(5, seed));
            world.run_for(5_000);
            let leader = world.leader().unwrap();
            world.apply(&Action::Kill { member: leader }).unwrap();
            world.run_for(5_000);
            (world.trace_hash(), world.trace_len())
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42).0, run(43).0);
    }
}
