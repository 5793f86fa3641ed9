//! One etcd member in the simulated world: a Raft node, its durable state ("disk"), and the
//! state machine its committed entries are applied to.

use crate::base::{Index, MemberId, Millis, Rng, Term};
use crate::raft::{Config, Durable, Message, NodeEvent, Raft, Ready};
use crate::sim::{digest, Ctx, Envelope, Process};
use serde::Serialize;

impl Envelope for Message {
    fn from(&self) -> MemberId {
        self.from
    }
    fn to(&self) -> MemberId {
        self.to
    }
    fn kind(&self) -> &'static str {
        Message::kind(self)
    }
    fn term(&self) -> u64 {
        self.term
    }
    fn entry_count(&self) -> usize {
        Message::entry_count(self)
    }
    fn describe(&self) -> String {
        Message::describe(self)
    }
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

/// The wake-up token of an fsync in progress.
const FSYNC_DONE: u64 = 1;

#[derive(Clone, Debug)]
pub struct Member {
    pub id: MemberId,
    pub config: Config,
    node: Option<Raft>,
    pub durable: Durable,
    /// Milliseconds one fsync takes (0: instantaneous). Persistence gates votes, acks and
    /// commits, so a slow disk slows all of them.
    pub fsync_ms: Millis,
    /// A Ready waiting for its fsync; nothing of it is durable or sent yet.
    syncing: Option<Ready>,
    /// What this incarnation applied, in order.
    applied: Vec<Applied>,
    /// Each applied write (a non-empty normal entry) is one revision, as a put is in etcd;
    /// the MVCC store takes this over.
    pub revision: i64,
    events: Vec<LogEvent>,
    rng: Rng,
}

impl Member {
    pub fn new(config: Config, mut rng: Rng) -> Member {
        let node = Raft::new(config.clone(), rng.split());
        Member {
            id: config.id,
            config,
            node: Some(node),
            durable: Durable::default(),
            fsync_ms: 0,
            syncing: None,
            applied: Vec::new(),
            revision: 1,
            events: Vec::new(),
            rng,
        }
    }

    pub fn node(&self) -> Option<&Raft> {
        self.node.as_ref()
    }

    pub fn node_mut(&mut self) -> Option<&mut Raft> {
        self.node.as_mut()
    }

    pub fn applied(&self) -> &[Applied] {
        &self.applied
    }

    /// Narration events since the start (oldest first).
    pub fn events(&self) -> &[LogEvent] {
        &self.events
    }

    pub fn take_events(&mut self) -> Vec<LogEvent> {
        std::mem::take(&mut self.events)
    }

    /// Runs the Ready loop: persist (now, or after an fsync), send, apply, advance.
    pub fn drive(&mut self, ctx: &mut Ctx<Message>) {
        loop {
            if self.syncing.is_some() {
                return; // one fsync at a time, as etcd's raft loop does
            }
            let Some(node) = self.node.as_mut() else {
                return;
            };
            for event in node.take_events() {
                ctx.note(format!("{event:?}"));
                self.events.push(LogEvent {
                    time_ms: ctx.now,
                    member: self.id,
                    event,
                });
            }
            if !node.has_ready() {
                return;
            }
            let rd = node.ready();
            let needs_disk = rd.hard_state.is_some() || !rd.entries.is_empty();
            if self.fsync_ms > 0 && needs_disk {
                self.syncing = Some(rd);
                ctx.wake_in(self.fsync_ms, FSYNC_DONE);
                return;
            }
            self.finish(rd, ctx);
        }
    }

    fn finish(&mut self, rd: Ready, ctx: &mut Ctx<Message>) {
        self.durable.persist(&rd);
        for entry in &rd.committed_entries {
            self.applied.push(Applied {
                index: entry.index,
                term: entry.term,
                digest: digest(&entry.data),
            });
            if !entry.data.is_empty() {
                self.revision += 1;
            }
            ctx.note(format!("apply {}", entry.describe()));
        }
        if let Some(node) = self.node.as_mut() {
            node.advance(&rd);
        }
        for msg in rd.messages {
            ctx.send(msg);
        }
    }
}

impl Process for Member {
    type Msg = Message;

    fn tick(&mut self, ctx: &mut Ctx<Message>) {
        if let Some(node) = self.node.as_mut() {
            node.tick();
        }
        self.drive(ctx);
    }

    fn receive(&mut self, msg: Message, ctx: &mut Ctx<Message>) {
        if let Some(node) = self.node.as_mut() {
            node.step(msg);
        }
        self.drive(ctx);
    }

    fn wake(&mut self, token: u64, ctx: &mut Ctx<Message>) {
        if token == FSYNC_DONE {
            if let Some(rd) = self.syncing.take() {
                self.finish(rd, ctx);
            }
            self.drive(ctx);
        }
    }

    fn crash(&mut self) {
        self.node = None;
        self.syncing = None; // the write never reached the disk
    }

    fn restart(&mut self, ctx: &mut Ctx<Message>) {
        let rng = self.rng.split();
        self.node = Some(self.durable.restart(self.config.clone(), rng));
        self.applied.clear();
        self.revision = 1;
        self.drive(ctx);
    }

    fn is_running(&self) -> bool {
        self.node.is_some()
    }
}
