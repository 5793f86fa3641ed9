//! One etcd member in the simulated world: a Raft node, its durable state ("disk"), and the
//! state machine its committed entries are applied to.

use crate::base::{Index, MemberId, Millis, Rng, Term};
use crate::raft::{Config, Durable, EntryKind, Message, NodeEvent, Raft, Ready};
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
    /// Applied entries between snapshots (etcd's `--snapshot-count`).
    pub snapshot_count: u64,
    /// This member applied a configuration without itself and shut down for good.
    pub removed: bool,
    /// It has applied a configuration that includes it.
    joined: bool,
    events: Vec<LogEvent>,
    rng: Rng,
}

/// The state machine's image in a snapshot (the MVCC store takes this over).
#[derive(serde::Serialize, serde::Deserialize)]
struct StateImage {
    revision: i64,
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
            snapshot_count: 100_000,
            removed: false,
            joined: false,
            events: Vec::new(),
            rng,
        }
    }

    fn state_image(&self) -> Vec<u8> {
        serde_json::to_vec(&StateImage {
            revision: self.revision,
        })
        .unwrap_or_default()
    }

    /// Takes a snapshot at the applied index and discards the log before it.
    pub fn snapshot_now(&mut self) -> bool {
        let data = self.state_image();
        let Some(node) = self.node.as_mut() else {
            return false;
        };
        let index = node.log.applied;
        let Some(term) = node.log.term(index) else {
            return false;
        };
        let Some(conf) = node.compact(index) else {
            return false;
        };
        self.durable.compact(index, term, conf, data);
        true
    }

    /// Stops this member for good after its removal from the cluster.
    pub fn shut_down_removed(&mut self) {
        self.removed = true;
        self.node = None;
        self.syncing = None;
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
                ctx.note(event.to_string());
                self.events.push(LogEvent {
                    time_ms: ctx.now,
                    member: self.id,
                    event,
                });
            }
            for to in node.snapshot_wanted() {
                node.send_snapshot(to, self.durable.snapshot_data.clone());
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
        if let Some(snap) = &rd.snapshot {
            if let Ok(image) = serde_json::from_slice::<StateImage>(&snap.data) {
                self.revision = image.revision;
            }
            ctx.note(format!("restore snapshot {}@{}", snap.index, snap.term));
        }
        for entry in &rd.committed_entries {
            self.applied.push(Applied {
                index: entry.index,
                term: entry.term,
                digest: digest(&entry.data),
            });
            if entry.kind == EntryKind::Normal && !entry.data.is_empty() {
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
        let applied_conf = rd
            .committed_entries
            .iter()
            .any(|e| e.kind == EntryKind::Config);
        if let Some(node) = self.node.as_ref() {
            if applied_conf || rd.snapshot.is_some() {
                let in_conf = node.conf_at(node.log.applied).contains(self.id);
                if in_conf {
                    self.joined = true;
                } else if self.joined {
                    // etcd: "the member has been permanently removed from the cluster".
                    ctx.note("removed from the cluster: shutting down".into());
                    self.removed = true;
                    self.node = None;
                    return;
                }
            }
            if node.log.applied.saturating_sub(node.log.snapshot_index) >= self.snapshot_count {
                self.snapshot_now();
            }
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
        if self.removed {
            return;
        }
        let rng = self.rng.split();
        self.node = Some(self.durable.restart(self.config.clone(), rng));
        self.applied.clear();
        self.revision = serde_json::from_slice::<StateImage>(&self.durable.snapshot_data)
            .map_or(1, |i| i.revision);
        self.drive(ctx);
    }

    fn is_running(&self) -> bool {
        self.node.is_some()
    }
}
