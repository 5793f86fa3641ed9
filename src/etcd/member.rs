//! One etcd member in the simulated world: a Raft node, its durable state ("disk"), and the
//! state machine its committed entries are applied to: the MVCC store plus the replicated
//! membership attributes (etcd's "publish" and cluster version).

use crate::base::digest;
use crate::base::{Index, MemberId, Millis, Rng, Term};
use crate::mvcc::{self, LeaseId, MvccError, Request, Response, Store};
use crate::raft::{
    Config, Durable, Entries, EntryKind, Image, Message, NodeEvent, Raft, Ready, SnapshotData,
};
use crate::sim::{Ctx, Envelope, Process};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

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
    fn describe_to(&self, out: &mut std::fmt::Formatter) -> std::fmt::Result {
        std::fmt::Display::fmt(self, out)
    }
    fn digest(&self, hash: &mut crate::sim::TraceHasher) {
        Message::digest(self, hash)
    }
    /// A proposal a follower forwards to its leader travels on rafthttp's TCP streams, which
    /// never deliver one twice; a duplicate would be appended and applied twice (etcd keeps no
    /// client sessions to drop it, thesis §6.3), a put or delete the client made once.
    fn may_duplicate(&self) -> bool {
        Message::kind(self) != "Propose"
    }
}

/// The version a member reports (`endpoint status`) and the cluster version it sets.
pub const SERVER_VERSION: &str = "3.4.23";
pub const CLUSTER_VERSION: &str = "3.4.0";

/// What a normal Raft entry carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Proposal {
    /// A client request; the member that proposed it answers the client once it applies it.
    Kv { id: u64, request: Request },
    /// A member announces its name and client URLs when it starts (etcd `publish`).
    Publish {
        member: MemberId,
        name: String,
        client_urls: Vec<String>,
    },
    /// The leader records the cluster version (etcd `monitorVersions`).
    ClusterVersion { version: String },
}

impl Proposal {
    pub fn encode(&self) -> Vec<u8> {
        postcard::to_allocvec(self).unwrap_or_default()
    }

    pub fn decode(data: &[u8]) -> Option<Proposal> {
        postcard::from_bytes(data).ok()
    }
}

/// A short description of an entry's data, for logs and the UI (`put foo=bar`).
pub fn describe_entry(data: &[u8]) -> String {
    fn text(b: &[u8]) -> String {
        crate::raft::summarize(b)
    }
    match Proposal::decode(data) {
        Some(Proposal::Kv { request, .. }) => match request {
            Request::Put(p) => format!("put {}={}", text(&p.key), text(&p.value)),
            Request::DeleteRange(d) => format!("del {}", text(&d.key)),
            // The apiserver's txns have one compare: `mod_revision(key) = n → put|del`.
            Request::Txn(t) => match (t.compare.as_slice(), t.success.first()) {
                ([c], Some(op)) => {
                    let rel = match c.result {
                        mvcc::CompareResult::Equal => "=",
                        mvcc::CompareResult::NotEqual => "!=",
                        mvcc::CompareResult::Greater => ">",
                        mvcc::CompareResult::Less => "<",
                    };
                    let target = match &c.target {
                        mvcc::CompareTarget::Mod(n) => format!("mod_revision {rel} {n}"),
                        mvcc::CompareTarget::Create(n) => format!("create_revision {rel} {n}"),
                        mvcc::CompareTarget::Version(n) => format!("version {rel} {n}"),
                        mvcc::CompareTarget::Value(v) => format!("value {rel} {}", text(v)),
                        mvcc::CompareTarget::Lease(n) => format!("lease {rel} {n}"),
                    };
                    let op = match op {
                        mvcc::RequestOp::Put(_) => "put",
                        mvcc::RequestOp::DeleteRange(_) => "del",
                        mvcc::RequestOp::Range(_) => "get",
                        mvcc::RequestOp::Txn(_) => "txn",
                    };
                    // Whole registry keys (they name the object), where values are abridged.
                    let key: String = String::from_utf8_lossy(&c.key)
                        .chars()
                        .take(96)
                        .map(|ch| if ch.is_control() { '.' } else { ch })
                        .collect();
                    format!("txn {key}: {target} → {op}")
                }
                _ => format!("txn ({} compares)", t.compare.len()),
            },
            Request::Range(r) => format!("get {}", text(&r.key)),
            Request::Compaction(c) => format!("compact {}", c.revision),
            Request::LeaseGrant(l) => format!("lease grant {}s", l.ttl_s),
            Request::LeaseRevoke(l) => format!("lease revoke {:x}", l.id),
            Request::Alarm(_) => "alarm".to_string(),
        },
        Some(Proposal::Publish { member, .. }) => format!("publish {member}"),
        Some(Proposal::ClusterVersion { version }) => format!("cluster version {version}"),
        None if data.is_empty() => "noop".to_string(),
        None => text(data),
    }
}

/// The replicated membership attributes (etcd's membership store).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attributes {
    /// Name and client URLs of each member that has published them (started).
    pub published: BTreeMap<MemberId, (String, Vec<String>)>,
    pub cluster_version: Option<String>,
}

/// The state machine's image in a snapshot: the store's, sharing its records, and the
/// attributes. Made into bytes only when asked (a snapshot file, a trace).
#[derive(Debug)]
struct StateImage {
    store: mvcc::StoreImage,
    attrs: Attributes,
}

impl Image for StateImage {
    fn to_bytes(&self) -> Vec<u8> {
        image_bytes(&self.attrs, &self.store.encode())
    }
}

// The store's bytes go raw after the attributes' JSON and its length: as a JSON array of
// numbers they took 3.6 bytes a byte, tens of MB per member past a snapshot count.
fn image_bytes(attrs: &Attributes, store: &[u8]) -> Vec<u8> {
    let attrs = serde_json::to_vec(attrs).unwrap_or_default();
    let mut out = Vec::with_capacity(4 + attrs.len() + store.len());
    out.extend_from_slice(&(attrs.len() as u32).to_le_bytes());
    out.extend_from_slice(&attrs);
    out.extend_from_slice(store);
    out
}

/// The attributes and the store's bytes of an image given as bytes; `None` if damaged.
fn read_image_bytes(data: &[u8]) -> Option<(Attributes, &[u8])> {
    let (len, rest) = data.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    let attrs = serde_json::from_slice(rest.get(..len)?).ok()?;
    Some((attrs, &rest[len..]))
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
/// Applied records a member keeps for the checkers, which read each within a step or a frame.
const APPLIED_KEEP: usize = 10_000;
/// Re-publish if the first attempt was lost (etcd retries `publish` until it succeeds).
const REPUBLISH_AFTER_MS: Millis = 5_000;
/// How often a member logs that it refuses a peer of another cluster.
const REFUSAL_LOG_EVERY_MS: Millis = 1_000;

/// Who a member is to etcd: its name, URLs and ids (derived as etcd derives them, or taken
/// from a restored data directory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub etcd_id: u64,
    pub cluster_id: u64,
}

impl Identity {
    pub fn simulated(id: MemberId, cluster_id: u64) -> Identity {
        Identity {
            name: id.to_string(),
            peer_urls: vec![super::peer_url(id)],
            client_urls: vec![super::client_url(id)],
            etcd_id: super::etcd_id(id),
            cluster_id,
        }
    }
}

/// A linearizable read waiting for its ReadIndex (thesis §6.4).
#[derive(Clone, Debug, PartialEq, Eq)]
struct PendingRead {
    ctx: u64,
    asked: bool,
    index: Option<Index>,
}

#[derive(Clone, Debug)]
pub struct Member {
    pub id: MemberId,
    pub identity: Identity,
    pub config: Config,
    node: Option<Raft>,
    pub durable: Durable,
    /// Milliseconds one fsync takes (0: instantaneous). Persistence gates votes, acks and
    /// commits, so a slow disk slows all of them.
    pub fsync_ms: Millis,
    /// A Ready waiting for its fsync; nothing of it is durable or sent yet.
    syncing: Option<Ready>,
    /// What this incarnation applied, in order: the newest [`APPLIED_KEEP`] (persistent, so
    /// checkpoints share it), after `applied_forgotten` older ones.
    applied: imbl::Vector<Applied>,
    applied_forgotten: usize,
    /// The key-value store the committed requests are applied to.
    pub store: Store,
    pub store_config: mvcc::StoreConfig,
    pub attrs: Attributes,
    /// Applied entries between snapshots (etcd's `--snapshot-count`).
    pub snapshot_count: u64,
    /// This member applied a configuration without itself and shut down for good.
    pub removed: bool,
    /// This incarnation has applied (or restored from its snapshot) a configuration that
    /// includes it. Volatile: a restart replays configurations from before it joined.
    joined: bool,
    /// Encoded proposals waiting for a leader (etcd's Propose blocks until there is one).
    pending: Vec<Vec<u8>>,
    /// Answers to this member's client requests, by request id.
    /// Answers to this member's own requests, with the Raft entry that carried each.
    responses: BTreeMap<u64, (Result<Response, MvccError>, Index, Term)>,
    reads: Vec<PendingRead>,
    next_request: u64,
    /// When this incarnation last proposed its attributes.
    published_at: Option<Millis>,
    /// When this leader last proposed the cluster version.
    version_proposed_at: Option<Millis>,
    /// Leases whose expiry this leader already proposed to revoke.
    revoking: BTreeSet<LeaseId>,
    lease_primary: bool,
    events: Vec<LogEvent>,
    /// The cluster ID each peer's requests carry (rafthttp's `X-Etcd-Cluster-ID`), where it is
    /// not this member's: set by [`restore_member`].
    foreign_peers: BTreeMap<MemberId, u64>,
    /// When this member last logged each foreign peer's refusal (etcd logs every request;
    /// once a second keeps the log readable).
    refusal_logged: BTreeMap<MemberId, Millis>,
    /// Counters and recent facts for goals (in the world, so rewound with it).
    pub(super) facts: super::facts::Facts,
    rng: Rng,
}

impl Member {
    pub fn new(config: Config, mut rng: Rng) -> Member {
        let node = Raft::new(config.clone(), rng.split());
        // etcd writes the bootstrap (term 1 and the initial configuration entries) to its WAL
        // before the member starts serving: it survives even a crash before the first fsync.
        let durable = Durable {
            hard: node.hard_state(),
            entries: node.log().entries.clone(),
            ..Durable::default()
        };
        Member {
            id: config.id,
            identity: Identity::simulated(config.id, 0),
            config,
            node: Some(node),
            durable,
            fsync_ms: 0,
            syncing: None,
            applied: imbl::Vector::new(),
            applied_forgotten: 0,
            store: Store::default(),
            store_config: mvcc::StoreConfig::default(),
            attrs: Attributes::default(),
            snapshot_count: 100_000,
            removed: false,
            joined: false,
            pending: Vec::new(),
            responses: BTreeMap::new(),
            reads: Vec::new(),
            next_request: 0,
            published_at: None,
            version_proposed_at: None,
            revoking: BTreeSet::new(),
            lease_primary: false,
            events: Vec::new(),
            foreign_peers: BTreeMap::new(),
            refusal_logged: BTreeMap::new(),
            facts: super::facts::Facts::default(),
            rng,
        }
    }

    fn state_image(&self) -> SnapshotData {
        SnapshotData::of(StateImage {
            store: self.store.image(),
            attrs: self.attrs.clone(),
        })
    }

    fn restore_image(&mut self, data: &SnapshotData) {
        let restored = match data.downcast_ref::<StateImage>() {
            Some(image) => image.store.restore().ok().map(|s| (s, image.attrs.clone())),
            None => {
                let bytes = data.to_bytes();
                read_image_bytes(&bytes)
                    .and_then(|(attrs, store)| Some((Store::decode(store).ok()?, attrs)))
            }
        };
        match restored {
            Some((store, attrs)) => {
                self.store = store;
                self.attrs = attrs;
            }
            None => {
                self.store = Store::new(self.store_config.clone());
                self.attrs = Attributes::default();
            }
        }
    }

    /// Takes a snapshot at the applied index and discards the log before it.
    pub fn snapshot_now(&mut self) -> bool {
        let data = self.state_image();
        let Some(node) = self.node.as_mut() else {
            return false;
        };
        let index = node.log().applied;
        let Some(term) = node.log().term(index) else {
            return false;
        };
        let Some(conf) = node.compact(index) else {
            return false;
        };
        self.durable.compact(index, term, conf, data);
        true
    }

    /// Replaces a stopped member's disk by a restored data directory (`etcdutl snapshot
    /// restore`): a new identity, the `--initial-cluster` as its configuration, and the
    /// restored store as the snapshot at index N (one per member), as etcd writes it. Start
    /// it with the world's `restart`.
    pub fn install_restored(&mut self, identity: Identity, db: Vec<u8>, voters: Vec<MemberId>) {
        let conf = crate::raft::ConfState {
            voters: voters.iter().copied().collect(),
            ..Default::default()
        };
        self.durable = Durable {
            hard: crate::raft::HardState {
                term: 1,
                vote: None,
                commit: 0,
            },
            snapshot_index: voters.len() as Index,
            snapshot_term: 1,
            snapshot_conf: conf,
            snapshot_data: image_bytes(&Attributes::default(), &db).into(),
            entries: Entries::new(),
        };
        self.identity = identity;
        self.config.voters = voters;
        self.removed = false;
        // Its narration was the old cluster's history (terms restart at 1 in the new one).
        self.events.clear();
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

    pub fn applied(&self) -> &imbl::Vector<Applied> {
        &self.applied
    }

    /// How many entries this incarnation applied, the forgotten ones included.
    pub fn applied_total(&self) -> usize {
        self.applied_forgotten + self.applied.len()
    }

    /// What this incarnation applied from position `from` on (skipping any forgotten).
    pub fn applied_since(&self, from: usize) -> impl Iterator<Item = &Applied> {
        let start = from.saturating_sub(self.applied_forgotten);
        self.applied
            .focus()
            .narrow(start.min(self.applied.len())..)
            .into_iter()
    }

    /// Narration events since the start (oldest first).
    pub fn events(&self) -> &[LogEvent] {
        &self.events
    }

    pub fn take_events(&mut self) -> Vec<LogEvent> {
        std::mem::take(&mut self.events)
    }

    /// A fresh id for a request this member proposes (unique in the cluster).
    pub fn next_request_id(&mut self) -> u64 {
        self.next_request += 1;
        (self.id.0 << 40) | self.next_request
    }

    /// Queues a proposal; it goes to Raft as soon as a leader is known.
    pub fn submit(&mut self, proposal: &Proposal, ctx: &mut Ctx<Message>) {
        self.pending.push(proposal.encode());
        self.drive(ctx);
    }

    /// The client gave up on request `id` (its context ended). A proposal still waiting for
    /// a leader is withdrawn, as etcd's blocked `Propose` returns on the context's end and
    /// never reaches Raft; one already handed to Raft may still commit.
    pub fn cancel(&mut self, id: u64) {
        self.pending.retain(
            |data| !matches!(Proposal::decode(data), Some(Proposal::Kv { id: p, .. }) if p == id),
        );
        self.responses.remove(&id);
    }

    pub fn has_response(&self, id: u64) -> bool {
        self.responses.contains_key(&id)
    }

    /// The answer to request `id` once applied here, and the (index, term) of its entry.
    pub fn take_response(&mut self, id: u64) -> Option<(Result<Response, MvccError>, Index, Term)> {
        self.responses.remove(&id)
    }

    /// Starts a linearizable read; `read_ready(ctx)` tells when the store may serve it.
    pub fn begin_read(&mut self, ctx_id: u64, ctx: &mut Ctx<Message>) {
        self.reads.push(PendingRead {
            ctx: ctx_id,
            asked: false,
            index: None,
        });
        self.drive(ctx);
    }

    /// True once read `ctx` may be served from the local store (its index is applied).
    pub fn read_ready(&self, ctx_id: u64) -> bool {
        let applied = self.node.as_ref().map_or(0, |n| n.log().applied);
        self.reads
            .iter()
            .any(|r| r.ctx == ctx_id && r.index.is_some_and(|i| i <= applied))
    }

    pub fn end_read(&mut self, ctx_id: u64) {
        self.reads.retain(|r| r.ctx != ctx_id);
    }

    /// Runs the Ready loop: persist (now, or after an fsync), send, apply, advance.
    pub fn drive(&mut self, ctx: &mut Ctx<Message>) {
        loop {
            if self.syncing.is_some() {
                return; // one fsync at a time, as etcd's raft loop does
            }
            self.hand_to_raft(ctx);
            let Some(node) = self.node.as_mut() else {
                return;
            };
            if !node.has_ready() {
                return;
            }
            let mut rd = node.ready();
            for event in std::mem::take(&mut rd.events) {
                ctx.note(event.to_string());
                self.facts.node_event(&event, ctx.now, self.id);
                self.events.push(LogEvent {
                    time_ms: ctx.now,
                    member: self.id,
                    event,
                });
            }
            // The image is the one at the requests' index now; a compaction during the fsync
            // below would replace it.
            for request in std::mem::take(&mut rd.snapshot_requests) {
                rd.messages
                    .push(request.message(self.durable.snapshot_data.clone()));
            }
            let hard_sync =
                (rd.hard_state.as_ref()).is_some_and(|h| h.must_sync(&self.durable.hard));
            let needs_disk = hard_sync || !rd.entries.is_empty() || rd.snapshot.is_some();
            if self.fsync_ms > 0 && needs_disk {
                self.syncing = Some(rd);
                ctx.wake_in(self.fsync_ms, FSYNC_DONE);
                return;
            }
            self.finish(rd, ctx);
        }
    }

    /// Proposals and reads wait for a leader; the leader's own duties (lease expiry,
    /// cluster version) and each member's publish happen here too.
    fn hand_to_raft(&mut self, ctx: &mut Ctx<Message>) {
        let Some(node) = self.node.as_ref() else {
            return;
        };
        let (is_leader, has_leader) = (node.is_leader(), node.leader().is_some());
        let extend_ms = u64::from(node.config().election_tick) * 100;
        if is_leader != self.lease_primary {
            self.lease_primary = is_leader;
            if is_leader {
                self.store.lease_promote(ctx.now, extend_ms);
            } else {
                self.store.lease_demote();
                self.revoking.clear();
            }
        }
        if !has_leader {
            return;
        }
        let unpublished = !self.attrs.published.contains_key(&self.id);
        let retry_due = self
            .published_at
            .is_some_and(|t| ctx.now >= t + REPUBLISH_AFTER_MS);
        if self.published_at.is_none() || (unpublished && retry_due) {
            self.published_at = Some(ctx.now);
            let (name, client_urls) = (
                self.identity.name.clone(),
                self.identity.client_urls.clone(),
            );
            self.pending.push(
                Proposal::Publish {
                    member: self.id,
                    name,
                    client_urls,
                }
                .encode(),
            );
        }
        if is_leader {
            let version_due = self
                .version_proposed_at
                .is_none_or(|t| ctx.now >= t + REPUBLISH_AFTER_MS);
            if self.attrs.cluster_version.is_none() && version_due {
                self.version_proposed_at = Some(ctx.now);
                self.pending.push(
                    Proposal::ClusterVersion {
                        version: CLUSTER_VERSION.into(),
                    }
                    .encode(),
                );
            }
            for id in self.store.expired_leases(ctx.now) {
                if self.revoking.insert(id) {
                    let request = Request::LeaseRevoke(mvcc::LeaseRevokeRequest { id });
                    self.pending.push(Proposal::Kv { id: 0, request }.encode());
                }
            }
        }
        let Some(node) = self.node.as_mut() else {
            return;
        };
        for data in std::mem::take(&mut self.pending) {
            if node.propose(data.clone()).is_err() {
                self.pending.push(data);
            }
        }
        for read in self.reads.iter_mut().filter(|r| !r.asked) {
            read.asked = node.read_index(read.ctx).is_ok();
        }
    }

    fn finish(&mut self, mut rd: Ready, ctx: &mut Ctx<Message>) {
        self.durable.persist(&rd);
        // Sharing copies the log's open run: only worth it when the disk just changed.
        let disk_changed = !rd.entries.is_empty() || rd.snapshot.is_some();
        if let Some(snap) = &rd.snapshot {
            self.restore_image(&snap.data);
            ctx.note(format!("restore snapshot {}@{}", snap.index, snap.term));
        }
        for entry in &rd.committed_entries {
            self.applied.push_back(Applied {
                index: entry.index,
                term: entry.term,
                digest: digest(&entry.data),
            });
            if self.applied.len() > APPLIED_KEEP {
                self.applied.pop_front();
                self.applied_forgotten += 1;
            }
            if entry.kind == EntryKind::Normal {
                self.apply_data(&entry.data, entry.index, entry.term, ctx.now);
            }
            ctx.note_fmt(format_args!("apply {entry}"));
        }
        for read in &rd.read_states {
            if let Some(pending) = self.reads.iter_mut().find(|r| r.ctx == read.ctx) {
                pending.index = Some(read.index);
            }
        }
        ctx.outbox.append(&mut rd.messages);
        let applied_conf = rd
            .committed_entries
            .iter()
            .any(|e| e.kind == EntryKind::Config);
        // Each configuration applied now, in order: one that leaves this member out after one
        // that had it in means it was removed (ids are never reused). Checked one by one, as a
        // replay may apply the configurations before it joined and its removal at once.
        let mut confs: Vec<bool> = rd
            .snapshot
            .iter()
            .map(|snap| snap.conf.contains(self.id))
            .collect();
        if let Some(node) = self.node.as_ref() {
            let entries = rd.committed_entries.iter();
            let conf_entries = entries.filter(|e| e.kind == EntryKind::Config);
            confs.extend(conf_entries.map(|e| node.conf_at(e.index).contains(self.id)));
        }
        if let Some(node) = self.node.as_mut() {
            node.advance(&rd);
            node.recycle(&mut rd);
            if disk_changed {
                self.durable.share_entries(node.log());
            }
        }
        if applied_conf {
            self.sync_members_bucket();
        }
        for in_conf in confs {
            if in_conf {
                self.joined = true;
            } else if self.joined {
                // etcd: "the member has been permanently removed from the cluster".
                ctx.note("removed from the cluster: shutting down".into());
                self.shut_down_removed();
                return;
            }
        }
        if let Some(node) = self.node.as_ref() {
            if node.log().applied.saturating_sub(node.log().snapshot_index) >= self.snapshot_count {
                self.snapshot_now();
            }
        }
    }

    /// etcd keeps one key per member (its id in hex) in the `members` bucket.
    fn sync_members_bucket(&mut self) {
        let Some(node) = self.node.as_ref() else {
            return;
        };
        let keys = node
            .conf_at(node.log().applied)
            .members()
            .into_iter()
            .map(|m| format!("{:x}", super::etcd_id(m)).into_bytes())
            .collect();
        self.store.set_server_bucket("members", keys);
    }

    fn raised_nospace(&self) -> bool {
        let me = self.identity.etcd_id;
        let pending = self.pending.iter().any(|d| {
            matches!(
                Proposal::decode(d),
                Some(Proposal::Kv {
                    request: Request::Alarm(_),
                    ..
                })
            )
        });
        pending
            || self
                .store
                .alarms()
                .iter()
                .any(|a| a.member_id == me && a.alarm == mvcc::AlarmType::Nospace)
    }

    fn apply_data(&mut self, data: &[u8], index: Index, term: Term, now: Millis) {
        match Proposal::decode(data) {
            Some(Proposal::Kv { id, request }) => {
                let result = self.store.apply(&request, now);
                if result == Err(MvccError::NoSpace) && !self.raised_nospace() {
                    // etcd: the member that hits the quota raises the NOSPACE alarm for
                    // itself, through Raft (server.go `raftRequest(AlarmRequest{ACTIVATE})`).
                    let alarm = Request::Alarm(mvcc::AlarmRequest {
                        action: mvcc::AlarmAction::Activate,
                        member_id: self.identity.etcd_id,
                        alarm: mvcc::AlarmType::Nospace,
                    });
                    self.pending.push(
                        Proposal::Kv {
                            id: 0,
                            request: alarm,
                        }
                        .encode(),
                    );
                }
                if id >> 40 == self.id.0 {
                    self.responses.insert(id, (result, index, term));
                }
                if let Request::LeaseRevoke(r) = &request {
                    self.revoking.remove(&r.id);
                }
            }
            Some(Proposal::Publish {
                member,
                name,
                client_urls,
            }) => {
                self.attrs.published.insert(member, (name, client_urls));
            }
            Some(Proposal::ClusterVersion { version }) => {
                self.attrs.cluster_version = Some(version);
                let keys = [b"clusterVersion".to_vec()].into_iter().collect();
                self.store.set_server_bucket("cluster", keys);
            }
            None => {} // an empty entry, or a raw test proposal
        }
    }
}

impl Member {
    fn commit_index(&self) -> Option<Index> {
        self.node.as_ref().map(|n| n.log().committed)
    }

    /// Counts a commit-index advance within one event (a restart's is no advance).
    fn count_commit(&mut self, before: Option<Index>, now: Millis) {
        if let (Some(before), Some(after)) = (before, self.commit_index()) {
            self.facts.committed(before, after, now, self.id);
        }
    }
}

impl Member {
    /// etcd's rafthttp answers a request from another cluster with 412 and logs it; the Raft
    /// node never sees the message.
    fn refuse_foreign(&mut self, peer: MemberId, remote: u64, ctx: &mut Ctx<Message>) {
        if self.node.is_none()
            || self
                .refusal_logged
                .get(&peer)
                .is_some_and(|&at| ctx.now < at + REFUSAL_LOG_EVERY_MS)
        {
            return;
        }
        self.refusal_logged.insert(peer, ctx.now);
        let event = NodeEvent::ClusterIdMismatch {
            peer,
            local: self.identity.cluster_id,
            remote,
        };
        ctx.note(event.to_string());
        self.events.push(LogEvent {
            time_ms: ctx.now,
            member: self.id,
            event,
        });
    }
}

/// Installs a restored data directory on stopped `member` (see [`Member::install_restored`])
/// and tells every member which peers now belong to another cluster: etcd peers refuse each
/// other's requests across cluster IDs, so a restore must be done on every member.
pub fn restore_member(
    world: &mut super::Cluster,
    member: MemberId,
    identity: Identity,
    db: Vec<u8>,
    voters: Vec<MemberId>,
) {
    world.with_process(member, |m, _| m.install_restored(identity, db, voters));
    let clusters: Vec<(MemberId, u64)> = world
        .processes()
        .map(|(id, m)| (id, m.identity.cluster_id))
        .collect();
    for &(id, own) in &clusters {
        world.with_process(id, |m, _| {
            m.foreign_peers = clusters
                .iter()
                .filter(|&&(peer, cluster)| peer != id && cluster != own)
                .copied()
                .collect();
        });
    }
}

impl Process for Member {
    type Msg = Message;

    fn tick(&mut self, ctx: &mut Ctx<Message>) {
        let before = self.commit_index();
        if let Some(node) = self.node.as_mut() {
            node.tick();
        }
        self.drive(ctx);
        self.count_commit(before, ctx.now);
    }

    fn receive(&mut self, msg: Message, ctx: &mut Ctx<Message>) {
        if let Some(&remote) = self.foreign_peers.get(&msg.from) {
            self.refuse_foreign(msg.from, remote, ctx);
            return;
        }
        let before = self.commit_index();
        if let Some(node) = self.node.as_mut() {
            self.facts.delivered(&msg, ctx.now, self.id);
            node.step(msg);
        }
        self.drive(ctx);
        self.count_commit(before, ctx.now);
    }

    fn wake(&mut self, token: u64, ctx: &mut Ctx<Message>) {
        if token == FSYNC_DONE {
            let before = self.commit_index();
            if let Some(rd) = self.syncing.take() {
                self.finish(rd, ctx);
            }
            self.drive(ctx);
            self.count_commit(before, ctx.now);
        }
    }

    fn crash(&mut self) {
        self.node = None;
        self.syncing = None; // the write never reached the disk
        self.pending.clear();
        self.reads.clear();
        self.responses.clear();
    }

    fn restart(&mut self, ctx: &mut Ctx<Message>) {
        if self.removed {
            return;
        }
        let rng = self.rng.split();
        self.node = Some(self.durable.restart(self.config.clone(), rng));
        self.applied.clear();
        self.applied_forgotten = 0;
        self.joined = self.durable.snapshot_conf.contains(self.id);
        self.published_at = None;
        self.version_proposed_at = None;
        self.lease_primary = false;
        self.revoking.clear();
        // The state machine is rebuilt from the snapshot, then by replaying the log.
        let data = self.durable.snapshot_data.clone();
        self.restore_image(&data);
        self.drive(ctx);
    }

    fn is_running(&self) -> bool {
        self.node.is_some()
    }

    /// Its etcd `--name` (what `member list` prints), unless it has none yet.
    fn name(&self) -> Option<&str> {
        Some(self.identity.name.as_str()).filter(|n| !n.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raft::{Body, ConfChange, ConfChangeOp, Entry};

    fn ctx() -> Ctx<Message> {
        Ctx::new(0)
    }

    fn add_voter(index: Index, term: Term, id: u64) -> Entry {
        Entry {
            index,
            term,
            kind: EntryKind::Config,
            data: ConfChange::single(ConfChangeOp::AddVoter, MemberId(id))
                .encode()
                .into(),
        }
    }

    fn append(entries: Vec<Entry>, prev: (Index, Term), commit: Index) -> Message {
        Message {
            from: MemberId(1),
            to: MemberId(4),
            term: 2,
            body: Body::Append {
                prev_index: prev.0,
                prev_term: prev.1,
                heartbeat: entries.is_empty(),
                entries: entries.into(),
                commit,
                read_ctx: 0,
            },
        }
    }

    /// A member added later replays, after a restart, configurations from before it joined:
    /// they do not include it, yet it was not removed. (Seed 2938 of tests/sim_random.rs: a
    /// restarted leader, knowing a small commit index, let a restarted m6 apply up to 4.)
    #[test]
    fn a_restarted_member_replaying_configurations_from_before_it_joined_stays_up() {
        let config = Config::new(MemberId(4), Vec::new());
        let mut m4 = Member::new(config, Rng::new(4));
        let log = vec![
            add_voter(1, 1, 1),
            add_voter(2, 1, 2),
            add_voter(3, 1, 3),
            add_voter(4, 2, 4),
        ];
        m4.receive(append(log, (0, 0), 4), &mut ctx());
        assert!(m4.is_running() && m4.joined);
        m4.crash();
        // Its disk kept commit 1 (the crash came before commit 4's hard state was written):
        // the restart replays `+m1` alone, and so does the leader's append, which knows only
        // index 1 committed (it restarted too).
        m4.durable.hard.commit = 1;
        m4.restart(&mut ctx());
        assert_eq!(m4.node().map(|n| n.log().applied), Some(1));
        m4.receive(append(Vec::new(), (4, 2), 1), &mut ctx());
        assert_eq!(m4.node().map(|n| n.log().applied), Some(1));
        assert!(m4.is_running() && !m4.removed, "m4 shut down as if removed");
        m4.receive(append(Vec::new(), (4, 2), 4), &mut ctx());
        assert!(m4.joined);
    }

    #[test]
    fn a_member_shuts_down_when_it_applies_its_own_removal() {
        let config = Config::new(MemberId(4), Vec::new());
        let mut m4 = Member::new(config, Rng::new(4));
        let remove = Entry {
            index: 5,
            term: 2,
            kind: EntryKind::Config,
            data: ConfChange::single(ConfChangeOp::Remove, MemberId(4))
                .encode()
                .into(),
        };
        let log = vec![
            add_voter(1, 1, 1),
            add_voter(2, 1, 2),
            add_voter(3, 1, 3),
            add_voter(4, 2, 4),
            remove,
        ];
        m4.receive(append(log, (0, 0), 5), &mut ctx());
        assert!(m4.removed && !m4.is_running());
    }

    /// One member restored into a new cluster: its peers refuse it and it refuses them, each
    /// refusal logged at most once a second, and nobody follows it.
    #[test]
    fn peers_of_another_cluster_refuse_each_other() {
        let mut c = super::super::ClusterConfig::new(3, 1).build();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        let m1 = MemberId(1);
        c.kill(m1).unwrap();
        let mut identity = c.process(m1).unwrap().identity.clone();
        identity.cluster_id ^= 1;
        let voters = c.member_ids();
        restore_member(&mut c, m1, identity, Store::default().encode(), voters);
        c.restart(m1).unwrap();
        let start = c.now();
        c.run_for(5_000);
        assert_ne!(c.leader(), Some(m1));
        assert!(
            c.leader().is_some(),
            "m2 and m3 are a quorum of their own cluster"
        );
        for (id, m) in c.processes() {
            let refused: Vec<(MemberId, Millis)> = m
                .events()
                .iter()
                .filter(|e| e.time_ms >= start)
                .filter_map(|e| match e.event {
                    NodeEvent::ClusterIdMismatch { peer, .. } => Some((peer, e.time_ms)),
                    _ => None,
                })
                .collect();
            assert!(!refused.is_empty(), "{id} logged no refusal");
            assert!(refused.iter().all(|&(peer, _)| (id == m1) != (peer == m1)));
            assert!(
                refused.len() <= 2 * 6,
                "{id} logged {} refusals in 5 s",
                refused.len()
            );
        }
    }

    #[test]
    fn a_state_image_comes_back_whole_and_a_damaged_one_is_refused() {
        let attrs = Attributes {
            cluster_version: Some("3.4.0".into()),
            ..Attributes::default()
        };
        let store = [0, 1, 2, 255, b'{'];
        let bytes = image_bytes(&attrs, &store);
        let back = read_image_bytes(&bytes).expect("its own bytes decode");
        assert_eq!(back, (attrs, &store[..]));
        for cut in 0..8 {
            assert!(read_image_bytes(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        assert!(read_image_bytes(&[255, 255, 255, 255, b'{']).is_none());
    }
}
