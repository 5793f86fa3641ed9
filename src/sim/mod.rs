//! The deterministic world: virtual time, a seeded network, processes that crash, restart and
//! pause. Events are ordered by (virtual time, sequence number); nothing here reads a clock or
//! knows what the processes compute. `etcd` puts Raft members in it.

mod net;
mod queue;

pub use net::{Fate, NetConfig, Network};
use queue::Queue;

use crate::base::{fnv, MemberId, Millis, Rng, FNV_OFFSET, FNV_PRIME};
use serde::Serialize;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::hash::Hasher;
use std::sync::Arc;

/// A message the network carries: who sends it to whom, and how the UI labels it.
pub trait Envelope: Clone + Send + Sync + 'static {
    fn from(&self) -> MemberId;
    fn to(&self) -> MemberId;
    /// Short name for the UI ("Heartbeat", "RequestVote").
    fn kind(&self) -> &'static str;
    /// The sender's term, for colouring.
    fn term(&self) -> u64;
    /// Entries carried (0 for none).
    fn entry_count(&self) -> usize;
    /// One line for traces and tooltips.
    fn describe(&self) -> String;
    /// The same line, written into `out` (a kept trace writes it as it formats the line).
    fn describe_to(&self, out: &mut fmt::Formatter) -> fmt::Result {
        out.write_str(&self.describe())
    }
    /// What the trace hash takes of it: by default its line; a hot message type gives its
    /// fields instead, since formatting every message twice was a third of a run.
    fn digest(&self, hash: &mut TraceHasher) {
        hash.write(self.describe().as_bytes());
    }
    /// Whether the network may deliver it twice (most messages: the protocol must cope).
    fn may_duplicate(&self) -> bool {
        true
    }
}

/// A message's line, for `format_args!`.
struct Described<'a, M>(&'a M);

impl<M: Envelope> fmt::Display for Described<'_, M> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.describe_to(f)
    }
}

/// The trace hash: FNV-1a, over text a byte at a time as `fnv` hashes it and over numbers a
/// word at a time.
pub struct TraceHasher(u64);

impl Hasher for TraceHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv(self.0, bytes);
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(FNV_PRIME);
    }
    fn write_u8(&mut self, byte: u8) {
        self.write_u64(byte.into());
    }
    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
}

impl fmt::Write for TraceHasher {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.write(s.as_bytes());
        Ok(())
    }
}

/// What a process may do while handling an event: send, ask to be woken, note a trace line.
#[derive(Clone, Debug)]
pub struct Ctx<M> {
    pub now: Millis,
    pub outbox: Vec<M>,
    /// (delay from now, token): `Process::wake` is called with the token then, unless the
    /// process crashed meanwhile.
    pub wakeups: Vec<(Millis, u64)>,
    pub notes: Vec<String>,
    /// Emptied notes, kept for the next ones: a member notes every entry it applies, and a
    /// new string grown a few times for each was most of the note's cost.
    spare_notes: Vec<String>,
}

/// The most emptied notes a context keeps for reuse.
const SPARE_NOTES: usize = 16;

impl<M> Ctx<M> {
    pub fn new(now: Millis) -> Ctx<M> {
        Ctx {
            now,
            outbox: Vec::new(),
            wakeups: Vec::new(),
            notes: Vec::new(),
            spare_notes: Vec::new(),
        }
    }

    pub fn send(&mut self, msg: M) {
        self.outbox.push(msg);
    }

    pub fn wake_in(&mut self, delay_ms: Millis, token: u64) {
        self.wakeups.push((delay_ms, token));
    }

    pub fn note(&mut self, line: String) {
        self.notes.push(line);
    }

    /// `note`, formatted into the room an earlier note left.
    pub fn note_fmt(&mut self, line: fmt::Arguments) {
        use fmt::Write;
        let mut text = self.spare_notes.pop().unwrap_or_default();
        // Writing into a String cannot fail.
        let _ = text.write_fmt(line);
        self.notes.push(text);
    }

    fn spare_note(&mut self, mut note: String) {
        if self.spare_notes.len() < SPARE_NOTES {
            note.clear();
            self.spare_notes.push(note);
        }
    }
}

/// A simulated process (an etcd member). The world calls it; it never calls the world.
pub trait Process: Clone {
    type Msg: Envelope;
    /// A periodic timer tick (every `tick_ms`).
    fn tick(&mut self, ctx: &mut Ctx<Self::Msg>);
    fn receive(&mut self, msg: Self::Msg, ctx: &mut Ctx<Self::Msg>);
    /// A wake-up the process asked for (e.g. an fsync completing).
    fn wake(&mut self, token: u64, ctx: &mut Ctx<Self::Msg>);
    /// A crash: everything volatile is lost, including writes not yet on disk.
    fn crash(&mut self);
    /// A start from durable state after a crash.
    fn restart(&mut self, ctx: &mut Ctx<Self::Msg>);
    fn is_running(&self) -> bool;
    /// The name people know it by where that is not its id (kubeadm's etcd member `master`).
    fn name(&self) -> Option<&str> {
        None
    }
}

/// Expected failures of world commands; `Display` is what a script prints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    NoSuchMember(String),
    AlreadyStopped(MemberId),
    NotStopped(MemberId),
    Stopped(MemberId),
    AlreadyPaused(MemberId),
    NotPaused(MemberId),
    NoLeader,
    NoSuchMessage(u64),
    /// The engine refused the request; the text says why.
    Refused(String),
}

impl SimError {
    /// What a script prints, each member called as `name` calls it (kubeadm's `master`).
    pub fn naming(&self, name: impl Fn(MemberId) -> String) -> String {
        match self {
            SimError::NoSuchMember(name) => format!("no member named {name:?}"),
            SimError::AlreadyStopped(m) => format!("{} is already stopped", name(*m)),
            SimError::NotStopped(m) => format!("{} is running; kill it first", name(*m)),
            SimError::Stopped(m) => format!("{} is stopped", name(*m)),
            SimError::AlreadyPaused(m) => format!("{} is already paused", name(*m)),
            SimError::NotPaused(m) => format!("{} is not paused", name(*m)),
            SimError::NoLeader => "there is no leader".to_string(),
            SimError::NoSuchMessage(id) => format!("no message #{id} in flight"),
            SimError::Refused(why) => why.clone(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.naming(|m| m.to_string()))
    }
}

/// A message's line (`Envelope::describe`), written only when something shows it: the page
/// keeps thousands of wire records, and writing each line as its message was sent was a
/// third of a fast-forward.
#[derive(Clone)]
pub struct Line(Arc<dyn fmt::Display + Send + Sync>);

/// A message kept for its line.
struct Kept<M>(M);

impl<M: Envelope> fmt::Display for Kept<M> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.describe_to(f)
    }
}

impl Line {
    fn of<M: Envelope>(msg: &M) -> Line {
        Line(Arc::new(Kept(msg.clone())))
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Line {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.to_string() == other.to_string()
    }
}

impl Eq for Line {}

impl Serialize for Line {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
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
    pub term: u64,
    pub entries: usize,
    pub describe: Line,
}

/// What [`Sim::foresee`] sees of the run ahead.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Foreseen {
    /// The messages it sends that will arrive, in the order sent.
    pub messages: Vec<InFlight>,
    /// When a process notes something (a new role or term, an entry applied), in order.
    pub notes: Vec<Millis>,
}

/// One message's fate on the wire, as the network decided it (the space-time diagram's
/// exact record): sent, and delivered at `message.arrive_ms`, or lost. A held-back or
/// dropped message gets a later record with the same id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wire {
    pub seq: u64,
    /// When the network decided (the send, or a later hold-back or drop).
    pub at_ms: Millis,
    /// Why it was lost (`loss`, `partition`, `dropped by hand`...); None: it arrives at
    /// `message.arrive_ms`.
    pub lost: Option<&'static str>,
    pub message: InFlight,
}

impl InFlight {
    fn of<M: Envelope>(id: u64, sent_ms: Millis, arrive_ms: Millis, msg: &M) -> InFlight {
        InFlight {
            id,
            sent_ms,
            arrive_ms,
            from: msg.from(),
            to: msg.to(),
            kind: msg.kind(),
            term: msg.term(),
            entries: msg.entry_count(),
            describe: Line::of(msg),
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Event<M> {
    Tick {
        member: MemberId,
        incarnation: u64,
    },
    Wake {
        member: MemberId,
        incarnation: u64,
        token: u64,
    },
    Deliver {
        id: u64,
        sent_ms: Millis,
        msg: M,
    },
}

impl<M> Event<M> {
    fn delivers(&self, message: u64) -> bool {
        matches!(self, Event::Deliver { id, .. } if *id == message)
    }
}

#[derive(Clone, Debug)]
struct Slot<P: Process> {
    process: P,
    paused: bool,
    /// Messages that arrived while paused, handled on resume (a stopped process's socket).
    inbox: Vec<P::Msg>,
    incarnation: u64,
    /// Draws tick phases for this member's restarts.
    rng: Rng,
}

/// The world. `Clone` is a checkpoint.
#[derive(Clone, Debug)]
pub struct Sim<P: Process> {
    pub net: Network,
    pub tick_ms: Millis,
    now: Millis,
    seq: u64,
    /// Events handled so far: with `now`, the exact position of the run (for replay).
    steps: u64,
    queue: Queue<P::Msg>,
    slots: BTreeMap<MemberId, Slot<P>>,
    net_rng: Rng,
    next_message_id: u64,
    trace_hash: u64,
    trace_len: u64,
    /// Notes the processes wrote (a new role or term, an entry applied): what the page
    /// shows of a member changes with them (see [`Foreseen::notes`]).
    noted: u64,
    record_trace: bool,
    /// Persistent, so a checkpoint of a recorded run shares the lines already written.
    trace: imbl::Vector<String>,
    /// The most recent wire records (off when `wire_keep` is 0): what the page draws. A
    /// persistent vector, so the page's checkpoints share them.
    wire: imbl::Vector<Wire>,
    wire_keep: usize,
    wire_seq: u64,
    /// Fates decided before it are not recorded (see [`Sim::skip_wire_before`]).
    wire_from: Millis,
    /// The context each event's process gets, emptied after: its buffers outlive the event
    /// (three allocations an event, most of them for one message). Taken while in use,
    /// as making and dropping an empty one in its place cost 2.5 % of an idle hour; boxed,
    /// so taking it moves a pointer and not the context.
    spare: Option<Box<Ctx<P::Msg>>>,
}

impl<P: Process> Sim<P> {
    /// A world of `processes`, with the network's randomness drawn from `rng`.
    pub fn new(
        processes: Vec<(MemberId, P)>,
        net: NetConfig,
        tick_ms: Millis,
        mut rng: Rng,
    ) -> Sim<P> {
        let net_rng = rng.split();
        let mut sim = Sim {
            net: Network {
                config: net,
                ..Network::default()
            },
            tick_ms: tick_ms.max(1),
            now: 0,
            seq: 0,
            steps: 0,
            queue: Queue::default(),
            slots: BTreeMap::new(),
            net_rng,
            next_message_id: 1,
            trace_hash: FNV_OFFSET,
            trace_len: 0,
            noted: 0,
            record_trace: false,
            trace: imbl::Vector::new(),
            wire: imbl::Vector::new(),
            wire_keep: 0,
            wire_seq: 0,
            wire_from: 0,
            spare: None,
        };
        for (id, process) in processes {
            sim.add(id, process, rng.split());
        }
        sim
    }

    /// Adds a running process; its ticks start within one tick period.
    pub fn add(&mut self, id: MemberId, process: P, mut rng: Rng) {
        // Tick phases differ per member, as real processes start at different moments.
        let phase = rng.range(1, self.tick_ms + 1);
        self.slots.insert(
            id,
            Slot {
                process,
                paused: false,
                inbox: Vec::new(),
                incarnation: 0,
                rng,
            },
        );
        self.schedule(
            self.now + phase,
            Event::Tick {
                member: id,
                incarnation: 0,
            },
        );
    }

    /// Removes a process from the world altogether (membership change).
    pub fn remove(&mut self, id: MemberId) -> Option<P> {
        self.slots.remove(&id).map(|s| s.process)
    }

    pub fn record_trace(&mut self, on: bool) {
        self.record_trace = on;
    }

    pub fn trace_lines(&self) -> Vec<&str> {
        self.trace.iter().map(String::as_str).collect()
    }

    pub fn trace_hash(&self) -> u64 {
        self.trace_hash
    }

    pub fn trace_len(&self) -> u64 {
        self.trace_len
    }

    /// Adds a line to the trace (and its hash).
    pub fn trace(&mut self, line: String) {
        self.trace_fmt(format_args!("{line}"));
    }

    /// A trace line: hashed as it is formatted, built as text only when the trace is kept.
    fn trace_fmt(&mut self, line: fmt::Arguments) {
        use fmt::Write;
        let mut hash = TraceHasher(self.trace_hash);
        hash.write_u64(self.now);
        // Writing into a hash cannot fail.
        let _ = hash.write_fmt(line);
        self.trace_hash = hash.0;
        self.keep_line(line);
    }

    /// A message's line (`send #7 m1->m2 …`, `why` in brackets after it): the hash takes
    /// the message's fields, and the text is built only when the trace is kept.
    fn trace_message(&mut self, verb: &str, id: u64, msg: &P::Msg, why: Option<&str>) {
        let mut hash = TraceHasher(self.trace_hash);
        hash.write_u64(self.now);
        hash.write(verb.as_bytes());
        hash.write_u64(id);
        msg.digest(&mut hash);
        if let Some(why) = why {
            hash.write(why.as_bytes());
        }
        self.trace_hash = hash.0;
        let described = Described(msg);
        match why {
            Some(why) => self.keep_line(format_args!("{verb} #{id} {described} ({why})")),
            None => self.keep_line(format_args!("{verb} #{id} {described}")),
        }
    }

    fn keep_line(&mut self, line: fmt::Arguments) {
        if self.record_trace {
            self.trace.push_back(format!("{:>8} {line}", self.now));
        }
        self.trace_len += 1;
    }

    pub fn now(&self) -> Millis {
        self.now
    }

    pub fn member_ids(&self) -> Vec<MemberId> {
        self.slots.keys().copied().collect()
    }

    /// Resolves a member name that exists in this world: its id (`m1`) or its own name.
    pub fn member(&self, name: &str) -> Result<MemberId, SimError> {
        MemberId::parse(name)
            .filter(|id| self.slots.contains_key(id))
            .or_else(|| {
                let named = |(id, s): (&MemberId, &Slot<P>)| {
                    (s.process.name() == Some(name)).then_some(*id)
                };
                self.slots.iter().find_map(named)
            })
            .ok_or_else(|| SimError::NoSuchMember(name.to_string()))
    }

    /// What the page and the narration call member `id`: its own name, else its id.
    pub fn display_name(&self, id: MemberId) -> String {
        self.process(id)
            .and_then(|p| p.name())
            .map_or_else(|| id.to_string(), str::to_string)
    }

    pub fn process(&self, id: MemberId) -> Option<&P> {
        self.slots.get(&id).map(|s| &s.process)
    }

    pub fn processes(&self) -> impl Iterator<Item = (MemberId, &P)> {
        self.slots.iter().map(|(id, s)| (*id, &s.process))
    }

    pub fn is_running(&self, id: MemberId) -> bool {
        self.slots.get(&id).is_some_and(|s| s.process.is_running())
    }

    /// Each process with whether it is paused and its incarnation, in id order: in one pass,
    /// for those who ask after every member many times.
    pub fn process_states(&self) -> impl Iterator<Item = (MemberId, &P, bool, u64)> {
        (self.slots.iter()).map(|(id, s)| (*id, &s.process, s.paused, s.incarnation))
    }

    pub fn is_paused(&self, id: MemberId) -> bool {
        self.slots.get(&id).is_some_and(|s| s.paused)
    }

    pub fn incarnation(&self, id: MemberId) -> u64 {
        self.slots.get(&id).map_or(0, |s| s.incarnation)
    }

    fn schedule(&mut self, at: Millis, event: Event<P::Msg>) {
        self.seq += 1;
        self.queue.push((at, self.seq), event);
    }

    // ----- running ----------------------------------------------------------------------

    pub fn next_event_time(&self) -> Option<Millis> {
        self.queue.next_time()
    }

    /// Events handled since the start.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Handles events until `steps` have been handled in all (replaying a recorded position).
    pub fn run_to_steps(&mut self, steps: u64) {
        while self.steps < steps && self.step() {}
    }

    /// Moves the clock forward to `t` without handling any event (restoring a recorded
    /// position that lies between events of the same millisecond, or after the last one).
    pub fn set_now(&mut self, t: Millis) {
        self.now = self.now.max(t);
    }

    /// Handles the next event; false if there is none.
    pub fn step(&mut self) -> bool {
        let Some(((at, _), event)) = self.queue.pop() else {
            return false;
        };
        self.steps += 1;
        self.now = self.now.max(at);
        match event {
            Event::Tick {
                member,
                incarnation,
            } => self.on_tick(member, incarnation),
            Event::Wake {
                member,
                incarnation,
                token,
            } => {
                if self.incarnation(member) == incarnation && !self.is_paused(member) {
                    self.with_process(member, |p, ctx| p.wake(token, ctx));
                } else if self.is_paused(member) {
                    // A paused process does its I/O when it resumes.
                    self.schedule(
                        self.now + self.tick_ms,
                        Event::Wake {
                            member,
                            incarnation,
                            token,
                        },
                    );
                }
            }
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
    pub fn run_until_cond(&mut self, limit: Millis, mut done: impl FnMut(&Self) -> bool) -> bool {
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
        let Some(slot) = self.slots.get(&id) else {
            return;
        };
        if slot.incarnation != incarnation || !slot.process.is_running() {
            return; // a tick of a crashed incarnation
        }
        let paused = slot.paused;
        self.schedule(
            self.now + self.tick_ms,
            Event::Tick {
                member: id,
                incarnation,
            },
        );
        if !paused {
            self.with_process(id, |p, ctx| p.tick(ctx));
        }
    }

    fn on_deliver(&mut self, id: u64, msg: P::Msg) {
        let to = msg.to();
        let cut = self.net.is_cut(msg.from(), to);
        let Some(slot) = self.slots.get(&to) else {
            return;
        };
        let (down, paused) = (!slot.process.is_running(), slot.paused);
        if down {
            self.trace_message("drop", id, &msg, Some("down"));
        } else if cut {
            self.trace_message("drop", id, &msg, Some("partitioned"));
        } else if paused {
            self.trace_message("hold", id, &msg, Some("paused"));
            if let Some(slot) = self.slots.get_mut(&to) {
                slot.inbox.push(msg);
            }
        } else {
            self.trace_message("recv", id, &msg, None);
            self.with_process(to, |p, ctx| p.receive(msg, ctx));
        }
    }

    /// Runs `f` on a process with a fresh context, then carries out what it asked for.
    /// None if there is no such member.
    pub fn with_process<R>(
        &mut self,
        id: MemberId,
        f: impl FnOnce(&mut P, &mut Ctx<P::Msg>) -> R,
    ) -> Option<R> {
        let slot = self.slots.get_mut(&id)?;
        let mut ctx = self.spare.take().unwrap_or_else(|| Box::new(Ctx::new(0)));
        ctx.now = self.now;
        let result = f(&mut slot.process, &mut ctx);
        let incarnation = slot.incarnation;
        self.flush(id, incarnation, &mut ctx);
        self.spare = Some(ctx);
        Some(result)
    }

    fn flush(&mut self, id: MemberId, incarnation: u64, ctx: &mut Ctx<P::Msg>) {
        let mut notes = std::mem::take(&mut ctx.notes);
        for note in notes.drain(..) {
            self.noted += 1;
            self.trace_fmt(format_args!("{id} {note}"));
            ctx.spare_note(note);
        }
        ctx.notes = notes;
        for (delay, token) in ctx.wakeups.drain(..) {
            self.schedule(
                self.now + delay,
                Event::Wake {
                    member: id,
                    incarnation,
                    token,
                },
            );
        }
        for msg in ctx.outbox.drain(..) {
            self.send(msg);
        }
    }

    /// Keeps a record of the last `keep` message fates (0: none). It changes nothing in the
    /// run: the page turns it on to draw every message, short-lived and lost ones too.
    pub fn set_wire_log(&mut self, keep: usize) {
        self.wire_keep = keep;
        while self.wire.len() > keep {
            self.wire.pop_front();
        }
    }

    /// Records no fate decided before `t`: a long run knows that the page will draw only
    /// its last seconds, and each wire record copies its message.
    pub fn skip_wire_before(&mut self, t: Millis) {
        self.wire_from = t;
    }

    /// Forgets the wire records of decisions before `t` (the log keeps its length limit).
    pub fn forget_wire_before(&mut self, t: Millis) {
        // Records are in the order of their decisions, so in time order.
        let before = |w: &Wire| {
            if w.at_ms < t {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        };
        let old = self.wire.binary_search_by(before).unwrap_or_else(|at| at);
        self.wire = self.wire.skip(old);
    }

    /// The wire records after sequence number `seq`, oldest first.
    pub fn wire_since(&self, seq: u64) -> impl Iterator<Item = &Wire> {
        self.wire.iter().filter(move |w| w.seq > seq)
    }

    /// The messages this run sends after now and up to `until` that will arrive, in the order
    /// sent, and when its processes note something meanwhile, if nothing from outside the
    /// world changes its course: the page draws the messages ahead, so that it need not wake
    /// at each of them, and wakes for the notes. The run itself is left as it is.
    pub fn foresee(&self, until: Millis) -> Foreseen
    where
        P: Clone,
    {
        let mut ahead = self.clone();
        ahead.wire_keep = usize::MAX;
        ahead.wire_from = 0;
        let seq = ahead.wire_seq;
        let mut notes = Vec::new();
        while ahead.next_event_time().is_some_and(|next| next <= until) {
            let noted = ahead.noted;
            ahead.step();
            if ahead.noted != noted && notes.last() != Some(&ahead.now) {
                notes.push(ahead.now);
            }
        }
        // A held-back message's later record replaces its first.
        let mut sent: BTreeMap<u64, InFlight> = BTreeMap::new();
        for w in ahead.wire_since(seq) {
            match w.lost {
                None => sent.insert(w.message.id, w.message.clone()),
                Some(_) => sent.remove(&w.message.id),
            };
        }
        Foreseen {
            messages: sent.into_values().collect(),
            notes,
        }
    }

    /// The sequence number of the newest wire record.
    pub fn wire_seq(&self) -> u64 {
        self.wire_seq
    }

    fn record_wire(
        &mut self,
        id: u64,
        sent_ms: Millis,
        arrive_ms: Option<Millis>,
        lost: Option<&'static str>,
        msg: &P::Msg,
    ) {
        if self.wire_keep == 0 || self.now < self.wire_from {
            return;
        }
        self.wire_seq += 1;
        let arrive_ms = arrive_ms.unwrap_or(sent_ms);
        self.wire.push_back(Wire {
            seq: self.wire_seq,
            at_ms: self.now,
            lost,
            message: InFlight::of(id, sent_ms, arrive_ms, msg),
        });
        if self.wire.len() > self.wire_keep {
            self.wire.pop_front();
        }
    }

    fn send(&mut self, msg: P::Msg) {
        let id = self.next_message_id;
        self.next_message_id += 1;
        match self.net.fate(msg.from(), msg.to(), &mut self.net_rng) {
            Fate::Lost(why) => {
                self.record_wire(id, self.now, None, Some(why), &msg);
                self.trace_message("lose", id, &msg, Some(why));
            }
            Fate::Delivered { delay, again } => {
                self.trace_message("send", id, &msg, None);
                match again.filter(|_| msg.may_duplicate()) {
                    Some(again) => {
                        self.deliver_in(id, delay, msg.clone());
                        self.deliver_in(id, again, msg);
                    }
                    None => self.deliver_in(id, delay, msg),
                }
            }
        }
    }

    fn deliver_in(&mut self, id: u64, delay: Millis, msg: P::Msg) {
        let sent_ms = self.now;
        self.record_wire(id, sent_ms, Some(sent_ms + delay), None, &msg);
        self.schedule(sent_ms + delay, Event::Deliver { id, sent_ms, msg });
    }

    // ----- faults -----------------------------------------------------------------------

    fn slot_mut(&mut self, id: MemberId) -> Result<&mut Slot<P>, SimError> {
        self.slots
            .get_mut(&id)
            .ok_or_else(|| SimError::NoSuchMember(id.to_string()))
    }

    /// A crash: the process loses its volatile state; its pending timers die with it.
    pub fn kill(&mut self, id: MemberId) -> Result<(), SimError> {
        let slot = self.slot_mut(id)?;
        if !slot.process.is_running() {
            return Err(SimError::AlreadyStopped(id));
        }
        slot.process.crash();
        slot.incarnation += 1;
        slot.paused = false;
        slot.inbox.clear();
        self.trace(format!("{id} killed"));
        Ok(())
    }

    pub fn restart(&mut self, id: MemberId) -> Result<(), SimError> {
        let tick_ms = self.tick_ms;
        let slot = self.slot_mut(id)?;
        if slot.process.is_running() {
            return Err(SimError::NotStopped(id));
        }
        let (incarnation, phase) = (slot.incarnation, slot.rng.range(1, tick_ms + 1));
        self.trace(format!("{id} restarted"));
        self.with_process(id, |p, ctx| p.restart(ctx));
        self.schedule(
            self.now + phase,
            Event::Tick {
                member: id,
                incarnation,
            },
        );
        Ok(())
    }

    /// A process stop (SIGSTOP): state kept, time passes, nothing runs until resumed.
    pub fn pause(&mut self, id: MemberId) -> Result<(), SimError> {
        let slot = self.slot_mut(id)?;
        if !slot.process.is_running() {
            return Err(SimError::Stopped(id));
        }
        if slot.paused {
            return Err(SimError::AlreadyPaused(id));
        }
        slot.paused = true;
        self.trace(format!("{id} paused"));
        Ok(())
    }

    pub fn resume(&mut self, id: MemberId) -> Result<(), SimError> {
        let slot = self.slot_mut(id)?;
        if !slot.process.is_running() {
            return Err(SimError::Stopped(id));
        }
        if !slot.paused {
            return Err(SimError::NotPaused(id));
        }
        slot.paused = false;
        let inbox = std::mem::take(&mut slot.inbox);
        self.trace(format!("{id} resumed"));
        for msg in inbox {
            self.with_process(id, |p, ctx| p.receive(msg, ctx));
        }
        Ok(())
    }

    /// Removes one message from the wire.
    pub fn drop_message(&mut self, id: u64) -> Result<(), SimError> {
        let dropped = self.queue.take(|_, e| e.delivers(id));
        if dropped.is_empty() {
            return Err(SimError::NoSuchMessage(id));
        }
        for (_, event) in dropped {
            if let Event::Deliver { sent_ms, msg, .. } = event {
                self.record_wire(id, sent_ms, None, Some("dropped by hand"), &msg);
            }
        }
        self.trace(format!("drop #{id} (by hand)"));
        Ok(())
    }

    /// Holds one message back by `extra_ms` more (its first copy, if it was duplicated).
    pub fn delay_message(&mut self, id: u64, extra_ms: Millis) -> Result<(), SimError> {
        let first = (self.queue.in_order().into_iter())
            .find(|(_, e)| e.delivers(id))
            .map(|(key, _)| key)
            .ok_or(SimError::NoSuchMessage(id))?;
        let taken = self.queue.take(|key, _| key == first);
        let Some(((at, _), event)) = taken.into_iter().next() else {
            return Err(SimError::NoSuchMessage(id));
        };
        if let Event::Deliver { sent_ms, msg, .. } = &event {
            let (sent_ms, msg) = (*sent_ms, msg.clone());
            self.record_wire(id, sent_ms, Some(at + extra_ms), None, &msg);
        }
        self.trace(format!("delay #{id} by {extra_ms}ms"));
        self.schedule(at + extra_ms, event);
        Ok(())
    }

    /// Messages on the wire now, in arrival order.
    pub fn in_flight(&self) -> Vec<InFlight> {
        (self.queue.in_order().into_iter())
            .filter_map(|((arrive_ms, _), e)| match e {
                Event::Deliver { id, sent_ms, msg } => {
                    Some(InFlight::of(*id, *sent_ms, arrive_ms, msg))
                }
                _ => None,
            })
            .collect()
    }

    /// `in_flight().len()`, for a page that draws the count at every step of its clock.
    pub fn in_flight_count(&self) -> usize {
        self.queue.count(|e| matches!(e, Event::Deliver { .. }))
    }

    /// The largest group of running, unpaused members that all reach each other both ways.
    pub fn largest_connected_group(&self) -> Vec<MemberId> {
        let alive: Vec<MemberId> = self
            .slots
            .iter()
            .filter(|(_, s)| s.process.is_running() && !s.paused)
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
}

#[cfg(test)]
mod tests;
