//! The mock kube-apiserver: the only etcd client of the control plane. Objects live under
//! `/registry/...`, stored as kube-apiserver stores built-in kinds (protobuf behind `k8s\0`);
//! resourceVersion is the key's mod_revision; create is a txn on mod_revision = 0, update a
//! compare-and-swap on mod_revision with retry (AS `pkg/storage/etcd3/store.go`). A watch
//! cache, fed by an etcd watch on `/registry/`, serves informers (LIST/WATCH with RV "0").

use super::meta::{self, ApiError, Resource};
use crate::base::{Index, MemberId, Millis, Rng, Term};
use crate::etcd::{
    self, ClientError, Cluster, Compare, CompareResult, CompareTarget, DeleteRangeRequest,
    EventType, KeyValue, LeaseId, PutRequest, RangeRequest, Request, RequestOp, Response,
    ResponseOp, TxnRequest, TxnResponse, WatchRequest, EPOCH_UNIX_MS,
};
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// How long the apiserver's etcd client waits for an answer; etcd itself gives up on a
/// proposal after about this long ("etcdserver: request timed out").
pub const ETCD_TIMEOUT_MS: Millis = 7_000;
/// Events the watch cache keeps for watches that resume from a resourceVersion.
const WATCH_HISTORY: usize = 2_000;
/// Entries of an event recorder's correlation cache (client-go `maxLruCacheEntries`); the
/// least recently used goes first.
const SEEN_EVENTS_MAX: usize = 4_096;

/// A stamp no cache state had before (one counter for the whole program: copies of a server
/// share its past, never its future).
fn new_cache_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
/// `--etcd-compaction-interval` (5m).
pub const COMPACTION_INTERVAL_MS: Millis = 300_000;
/// `--event-ttl` (1h): Events are written with an etcd lease of this TTL, so they expire.
pub const EVENT_TTL_MS: Millis = 3_600_000;
/// The lease manager reuses one lease for objects written within this long of each other
/// (AS `pkg/storage/etcd3/lease_manager.go`, `defaultLeaseReuseDurationSeconds`).
const LEASE_REUSE_S: Millis = 60;
/// ... and attaches at most this many objects to it (`defaultLeaseMaxObjectCount`).
const LEASE_MAX_OBJECTS: u32 = 1_000;
/// GuaranteedUpdate retries on a changed mod_revision before giving up.
const CAS_RETRIES: usize = 8;
const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchKind {
    Added,
    Modified,
    Deleted,
}

impl WatchKind {
    pub fn name(self) -> &'static str {
        match self {
            WatchKind::Added => "ADDED",
            WatchKind::Modified => "MODIFIED",
            WatchKind::Deleted => "DELETED",
        }
    }
}

/// One change seen by the watch cache.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchEvent {
    pub kind: WatchKind,
    pub key: String,
    /// Shared with the watch cache.
    pub object: Arc<Value>,
    pub revision: i64,
}

/// One write the apiserver made to etcd, kept so that a change can be followed end to end:
/// who asked, the txn, the Raft entry that carried it, when the watch cache saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Write {
    /// Who asked the apiserver: `kubectl`, `deployment-controller`, `kubelet`, ...
    pub actor: String,
    /// The kubectl command line (empty for the control plane's own writes).
    pub command: String,
    /// `create`, `update` or `delete`.
    pub verb: &'static str,
    pub kind: &'static str,
    pub key: String,
    /// The txn's guard: `mod_revision(key) == compare_mod` (0: the key must not exist).
    pub compare_mod: i64,
    /// The etcd revision the write made.
    pub revision: i64,
    /// The member the apiserver's etcd client sent it to.
    pub endpoint: MemberId,
    /// The Raft entry (index, term) that carried the txn.
    pub entry: Option<(Index, Term)>,
    pub sent_ms: Millis,
    /// When the endpoint had committed and applied it, and answered.
    pub applied_ms: Millis,
    /// When the watch cache received the change from its etcd watch.
    pub watched_ms: Option<Millis>,
    pub uid: String,
    /// The uids of the object's owners (ownerReferences).
    pub owners: Vec<String>,
    /// What changed, `path: old → new`, a few leaves at most.
    pub changes: Vec<String>,
}

/// Who asks the apiserver: a control-plane component, or kubectl with its command line. The
/// journal records both; kubectl asks for strict field validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    pub actor: String,
    /// The kubectl command line (empty for the control plane's own requests).
    pub command: String,
}

impl Caller {
    /// A control-plane component, by the name its writes are journaled under.
    pub fn component(name: &str) -> Caller {
        Caller {
            actor: name.to_string(),
            command: String::new(),
        }
    }

    /// kubectl running `line`.
    pub fn kubectl(line: String) -> Caller {
        Caller {
            actor: "kubectl".into(),
            command: line,
        }
    }

    fn is_kubectl(&self) -> bool {
        self.actor == "kubectl"
    }
}

/// How many writes the journal keeps.
const JOURNAL_LEN: usize = 400;

/// Which part of an object an update may change (the main resource or `/status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    Main,
    Status,
}

#[derive(Clone, Debug)]
pub struct ApiServer {
    endpoint: MemberId,
    /// The watch cache: every object under `/registry/`, by key, with its resourceVersion.
    /// Persistent collections of shared objects: a checkpoint copies none of them.
    cache: imbl::OrdMap<String, Arc<Value>>,
    cache_rev: i64,
    /// Which state of the cache this is, unique across every copy of every API server (see
    /// [`ApiServer::cache_stamp`]).
    cache_stamp: u64,
    /// Requests served (the REST verbs, events): whether a loop asked anything.
    requests: u64,
    /// Each event with the cache state it made ([`ApiServer::cache_stamp`]).
    history: imbl::Vector<(u64, Arc<WatchEvent>)>,
    /// The cache state the history's first event was applied to.
    history_base: u64,
    /// Oldest revision the history still covers (a watch from before it is "too old").
    history_start: i64,
    /// False while etcd cannot be watched (no leader): the cache is stale.
    pub cache_healthy: bool,
    rng: Rng,
    /// `--encryption-provider-config`: how values are encrypted at rest (None: plain).
    pub encryption: Option<super::encryption::EncryptionConfig>,
    /// Compactor state: the revision seen one interval ago and `compact_rev_key`'s version.
    compact_prev_rev: i64,
    compact_key_version: i64,
    next_compaction_ms: Millis,
    /// `--event-ttl`.
    pub event_ttl_ms: Millis,
    /// The lease manager's last lease: id, expiry, objects attached.
    event_lease: Option<(LeaseId, Millis, u32)>,
    /// The most recent writes, oldest first.
    journal: Vec<Arc<Write>>,
    /// The event recorders' correlation caches (client-go `EventCorrelator`'s `eventLogger`):
    /// an event like one already recorded updates that one's count instead of making another.
    seen_events: SeenEvents,
    decoded: Decoded,
}

/// Objects recently written or read, by etcd key with their plaintext bytes: the same bytes
/// decode to the same object, so a write's watch event and the next update of that object
/// skip the protobuf decode (a third of a pod's cost before). A pure cache: results never depend
/// on it, so a copy of the server (a checkpoint) starts with it empty.
#[derive(Debug, Default)]
struct Decoded {
    by_key: BTreeMap<String, (Vec<u8>, Value)>,
    /// Keys, oldest first: the first in goes first.
    order: VecDeque<String>,
}

/// Objects [`Decoded`] keeps: more than a controller's burst of writes between two watch
/// syncs, a few MB at most.
const DECODED_MAX: usize = 512;

impl Clone for Decoded {
    fn clone(&self) -> Decoded {
        Decoded::default()
    }
}

impl Decoded {
    fn get(&self, key: &str, plain: &[u8]) -> Option<Value> {
        let (bytes, v) = self.by_key.get(key)?;
        (bytes.as_slice() == plain).then(|| v.clone())
    }

    fn remember(&mut self, key: &str, plain: &[u8], v: &Value) {
        if let Some((bytes, old)) = self.by_key.get_mut(key) {
            if bytes.as_slice() != plain {
                bytes.clear();
                bytes.extend_from_slice(plain);
                old.clone_from(v);
            }
            return;
        }
        if self.order.len() >= DECODED_MAX {
            if let Some(oldest) = self.order.pop_front() {
                self.by_key.remove(&oldest);
            }
        }
        self.order.push_back(key.to_owned());
        self.by_key
            .insert(key.to_owned(), (plain.to_vec(), v.clone()));
    }
}

#[derive(Clone, Debug)]
struct SeenEvent {
    name: String,
    namespace: String,
    count: i64,
    first_timestamp: String,
    last_used: u64,
}

/// A least-recently-used cache of recorded events by correlation key, at most
/// [`SEEN_EVENTS_MAX`]; the oldest use is found by its own index, not by a scan (one per
/// event once full: ~290k instructions an Event with 4,096 kept).
#[derive(Clone, Debug, Default)]
struct SeenEvents {
    by_key: imbl::OrdMap<String, SeenEvent>,
    /// `last_used` to key: the LRU order.
    by_use: imbl::OrdMap<u64, String>,
    /// Bumped by each use: the next `last_used`.
    clock: u64,
}

impl SeenEvents {
    /// Starts a use: the time it will be stamped with.
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn get(&self, key: &str) -> Option<&SeenEvent> {
        self.by_key.get(key)
    }

    /// Keeps `seen` under `key` (replacing what was there) and lets the least recently used
    /// go past the limit.
    fn put(&mut self, key: String, seen: SeenEvent) {
        self.by_use.insert(seen.last_used, key.clone());
        if let Some(old) = self.by_key.insert(key, seen) {
            self.by_use.remove(&old.last_used);
        }
        if self.by_key.len() > SEEN_EVENTS_MAX {
            if let Some(&(used, _)) = self.by_use.get_min() {
                if let Some(oldest) = self.by_use.remove(&used) {
                    self.by_key.remove(&oldest);
                }
            }
        }
    }
}

fn etcd_error(e: ClientError) -> ApiError {
    ApiError::internal(match e {
        ClientError::DeadlineExceeded => "etcdserver: request timed out".to_string(),
        other => other.to_string(),
    })
}

impl ApiServer {
    pub fn new(world: &Cluster, rng: Rng) -> ApiServer {
        let endpoint = world
            .client_endpoints()
            .first()
            .copied()
            .unwrap_or(MemberId(1));
        ApiServer {
            endpoint,
            cache: imbl::OrdMap::new(),
            cache_rev: 0,
            cache_stamp: new_cache_stamp(),
            requests: 0,
            history: imbl::Vector::new(),
            history_base: 0,
            history_start: 0,
            cache_healthy: false,
            rng,
            encryption: None,
            compact_prev_rev: 0,
            compact_key_version: 0,
            next_compaction_ms: world.now() + COMPACTION_INTERVAL_MS,
            event_ttl_ms: EVENT_TTL_MS,
            journal: Vec::new(),
            event_lease: None,
            seen_events: SeenEvents::default(),
            decoded: Decoded::default(),
        }
    }

    /// The member the etcd client talks to: the same one while it is up, else the next
    /// running member (`--etcd-servers` lists them all).
    fn endpoint(&mut self, world: &Cluster) -> MemberId {
        if !world.is_running(self.endpoint) {
            if let Some(m) = world.first_reachable(&world.client_endpoints()) {
                self.endpoint = m;
            }
        }
        self.endpoint
    }

    fn etcd(&mut self, world: &mut Cluster, req: Request) -> Result<Response, ApiError> {
        let ep = self.endpoint(world);
        world
            .kv(ep, req, false, ETCD_TIMEOUT_MS)
            .map(|r| r.body)
            .map_err(etcd_error)
    }

    /// A write txn: its response, and it goes into the journal when it succeeded.
    #[allow(clippy::too_many_arguments)]
    fn write_txn(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        txn: TxnRequest,
        r: &Resource,
        verb: &'static str,
        before: Option<&Value>,
        after: &Value,
    ) -> Result<TxnResponse, ApiError> {
        let ep = self.endpoint(world);
        let sent_ms = world.now();
        let key = txn
            .compare
            .first()
            .map(|c| String::from_utf8_lossy(&c.key).into_owned())
            .unwrap_or_default();
        let compare_mod = match txn.compare.first().map(|c| &c.target) {
            Some(CompareTarget::Mod(m)) => *m,
            _ => 0,
        };
        let (reply, entry) = world
            .kv_entry(ep, Request::Txn(txn), false, ETCD_TIMEOUT_MS)
            .map_err(etcd_error)?;
        let Response::Txn(t) = reply.body else {
            return Err(ApiError::internal("unexpected etcd response".into()));
        };
        if t.succeeded {
            let owners = meta::at(after, &["metadata", "ownerReferences"])
                .and_then(Value::as_array)
                .map(|refs| {
                    refs.iter()
                        .map(|o| meta::str_at(o, &["uid"]).to_string())
                        .collect()
                })
                .unwrap_or_default();
            let mut changes = Vec::new();
            if let Some(before) = before {
                leaf_changes("", before, after, &mut changes);
            }
            self.journal.push(Arc::new(Write {
                actor: caller.actor.clone(),
                command: caller.command.clone(),
                verb,
                kind: r.kind,
                key,
                compare_mod,
                revision: t.revision,
                endpoint: ep,
                entry,
                sent_ms,
                applied_ms: world.now(),
                watched_ms: None,
                uid: meta::uid(after).to_string(),
                owners,
                changes,
            }));
            if self.journal.len() > JOURNAL_LEN {
                let drop = self.journal.len() - JOURNAL_LEN;
                self.journal.drain(..drop);
            }
        }
        Ok(t)
    }

    /// The journal of writes, oldest first.
    pub fn journal(&self) -> &[Arc<Write>] {
        &self.journal
    }

    // ----- encoding ---------------------------------------------------------------------

    /// The object as the apiserver holds it: decoded from the request into its Go type and
    /// encoded for storage as kube-apiserver does for built-in kinds, protobuf behind
    /// `k8s\0` (`proto`), without resourceVersion (that is the etcd mod_revision). Returns
    /// the object as it reads back (Go's zero values, canonical quantities and times) and its
    /// bytes. A value of the wrong type is the apiserver's BadRequest; so is, for kubectl
    /// (which asks for strict field validation), a field the type does not have.
    fn normalize(
        &mut self,
        caller: &Caller,
        r: &Resource,
        key: &str,
        mut obj: Value,
    ) -> Result<(Value, Vec<u8>), ApiError> {
        let bad = |why: String| {
            ApiError::bad_request(format!(
                "{kind} in version \"{v}\" cannot be handled as a {kind}: {why}",
                kind = r.kind,
                v = r.version
            ))
        };
        if let Some(m) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
            m.remove("resourceVersion");
        }
        if caller.is_kubectl() {
            let unknown = super::proto::unknown_fields(&obj);
            if !unknown.is_empty() {
                let fields: Vec<String> = unknown
                    .iter()
                    .map(|f| format!("unknown field \"{f}\""))
                    .collect();
                return Err(bad(format!("strict decoding error: {}", fields.join(", "))));
            }
        }
        let bytes = super::proto::encode(&obj).map_err(bad)?;
        let stored = match self.decoded.get(key, &bytes) {
            Some(v) => v,
            None => super::proto::decode(&bytes).map_err(ApiError::internal)?,
        };
        self.decoded.remember(key, &bytes, &stored);
        Ok((stored, bytes))
    }

    /// The value written to etcd: the encoded object, encrypted when a provider says so.
    fn seal(&mut self, resource: &str, key: &str, bytes: Vec<u8>) -> Vec<u8> {
        match &self.encryption {
            Some(config) => config.encrypt(resource, key, &bytes, &mut self.rng),
            None => bytes,
        }
    }

    fn decode(&mut self, kv: &KeyValue) -> Result<Value, ApiError> {
        let key = String::from_utf8_lossy(&kv.key);
        // `/registry/<resource>/...`: the resource decides the providers.
        let resource = key.split('/').nth(2).unwrap_or("");
        let plain: Cow<[u8]> = match &self.encryption {
            Some(config) => config
                .decrypt(resource, &key, &kv.value)
                .map_err(ApiError::internal)?
                .into(),
            None if kv.value.starts_with(b"k8s:enc:") => {
                return Err(ApiError::internal(format!(
                    "no matching prefix found for {key}"
                )))
            }
            None => kv.value.as_slice().into(),
        };
        let mut v = match self.decoded.get(&key, &plain) {
            Some(v) => v,
            None => {
                // The storage decoder recognizes both media types: protobuf (`k8s\0`) and JSON.
                let decoded = if plain.first() == Some(&b'{') {
                    serde_json::from_slice(&plain).map_err(|e| e.to_string())
                } else {
                    super::proto::decode(&plain)
                };
                let v = decoded
                    .map_err(|e| ApiError::internal(format!("unable to decode {key}: {e}")))?;
                self.decoded.remember(&key, &plain, &v);
                v
            }
        };
        meta::obj_mut(&mut v, &["metadata"])
            .insert("resourceVersion".into(), json!(kv.mod_revision.to_string()));
        Ok(v)
    }

    // ----- the REST verbs ---------------------------------------------------------------

    /// GET with resourceVersion unset: a quorum read from etcd.
    pub fn get(
        &mut self,
        world: &mut Cluster,
        r: &Resource,
        ns: &str,
        name: &str,
    ) -> Result<Value, ApiError> {
        self.requests += 1;
        self.get_kv(world, r, ns, name)
            .and_then(|kv| self.decode(&kv))
    }

    fn get_kv(
        &mut self,
        world: &mut Cluster,
        r: &Resource,
        ns: &str,
        name: &str,
    ) -> Result<KeyValue, ApiError> {
        let key = r.key(ns, name);
        match self.etcd(world, Request::Range(RangeRequest::key(key)))? {
            Response::Range(rr) => rr
                .kvs
                .into_iter()
                .next()
                .ok_or_else(|| ApiError::not_found(r, name)),
            _ => Err(ApiError::internal("unexpected etcd response".into())),
        }
    }

    /// LIST with resourceVersion unset: a range over the prefix; the list's RV is the header
    /// revision.
    pub fn list(
        &mut self,
        world: &mut Cluster,
        r: &Resource,
        ns: Option<&str>,
    ) -> Result<(Vec<Value>, i64), ApiError> {
        self.requests += 1;
        let req = RangeRequest::prefix(r.list_prefix(ns));
        match self.etcd(world, Request::Range(req))? {
            Response::Range(rr) => {
                let items = rr
                    .kvs
                    .iter()
                    .map(|kv| self.decode(kv))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((items, rr.revision))
            }
            _ => Err(ApiError::internal("unexpected etcd response".into())),
        }
    }

    /// POST: defaults and metadata filled in, then a txn `If(ModRevision(key)==0) Then Put`.
    pub fn create(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        r: &Resource,
        mut obj: Value,
    ) -> Result<Value, ApiError> {
        self.requests += 1;
        if !obj.is_object() {
            return Err(ApiError::bad_request(
                "the body of the request was not an object".into(),
            ));
        }
        super::limits::check_body(&obj)?;
        let now = world.now();
        let ns = if r.namespaced {
            let ns = match meta::namespace(&obj) {
                "" => "default".to_string(),
                ns => ns.to_string(),
            };
            if r.kind != "Namespace" && !self.namespace_exists(world, &ns)? {
                return Err(ApiError::not_found(&super::meta::NAMESPACES, &ns));
            }
            ns
        } else {
            String::new()
        };
        let mut name = meta::name(&obj).to_string();
        if name.is_empty() {
            let base = meta::str_at(&obj, &["metadata", "generateName"]).to_string();
            if base.is_empty() {
                return Err(ApiError::invalid(format!(
                    "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
                    kind_for_errors(r)
                )));
            }
            name = format!("{base}{}", self.random_suffix());
        }
        validate(r, &name, &obj)?;
        {
            let m = meta::obj_mut(&mut obj, &["metadata"]);
            m.remove("resourceVersion");
            m.insert("name".into(), json!(name));
            if r.namespaced {
                m.insert("namespace".into(), json!(ns));
            } else {
                m.remove("namespace");
            }
            m.insert("uid".into(), json!(self.uid()));
            m.insert("creationTimestamp".into(), json!(meta::timestamp(now)));
            if matches!(r.kind, "Deployment" | "ReplicaSet") {
                m.insert("generation".into(), json!(1));
            }
        }
        if let Some(o) = obj.as_object_mut() {
            o.insert("apiVersion".into(), json!(r.api_version()));
            o.insert("kind".into(), json!(r.kind));
        }
        super::defaults::apply(r, &mut obj, now);
        let key = r.key(&ns, &name);
        let (stored, bytes) = self.normalize(caller, r, &key, obj)?;
        let mut obj = stored;
        let value = self.seal(r.plural, &key, bytes);
        let lease = self.lease_for(world, r)?;
        let txn = TxnRequest {
            compare: vec![Compare::new(
                key.clone(),
                CompareResult::Equal,
                CompareTarget::Mod(0),
            )],
            success: vec![RequestOp::Put(PutRequest {
                lease,
                ..PutRequest::new(key, value)
            })],
            failure: Vec::new(),
        };
        let t = self.write_txn(caller, world, txn, r, "create", None, &obj)?;
        if !t.succeeded {
            return Err(ApiError::already_exists(r, &name));
        }
        meta::obj_mut(&mut obj, &["metadata"])
            .insert("resourceVersion".into(), json!(t.revision.to_string()));
        Ok(obj)
    }

    /// The etcd lease a write of `r` is attached to: none, except for Events (the registry's
    /// TTLFunc gives them `--event-ttl`). As the apiserver's lease manager does, one lease is
    /// granted with `ttl + 60 s` and reused while it still outlives the TTL.
    fn lease_for(&mut self, world: &mut Cluster, r: &Resource) -> Result<LeaseId, ApiError> {
        if r.kind != "Event" {
            return Ok(0);
        }
        let now = world.now();
        let ttl_s = (self.event_ttl_ms / 1000).max(1);
        let reuse_s = LEASE_REUSE_S.min(ttl_s);
        if let Some((id, expiry, count)) = &mut self.event_lease {
            let valid = now + ttl_s * 1000 < *expiry;
            let sufficient = now + (ttl_s + reuse_s) * 1000 > *expiry;
            *count += 1;
            if valid && sufficient && *count <= LEASE_MAX_OBJECTS {
                return Ok(*id);
            }
        }
        let ep = self.endpoint(world);
        match world
            .lease_grant(ep, (ttl_s + reuse_s) as i64, ETCD_TIMEOUT_MS)
            .map_err(etcd_error)?
            .body
        {
            Response::LeaseGrant(g) => {
                self.event_lease = Some((g.id, now + (ttl_s + reuse_s) * 1000, 1));
                Ok(g.id)
            }
            _ => Err(ApiError::internal("unexpected etcd response".into())),
        }
    }

    fn namespace_exists(&mut self, world: &mut Cluster, ns: &str) -> Result<bool, ApiError> {
        let key = meta::NAMESPACES.key("", ns);
        if self.cache.contains_key(&key) {
            return Ok(true);
        }
        match self.get_kv(world, &meta::NAMESPACES, "", ns) {
            Ok(_) => Ok(true),
            Err(e) if e.code == 404 => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// PUT: GuaranteedUpdate. A client resourceVersion that is not the current one is a
    /// Conflict; otherwise the write is a CAS on mod_revision, retried on a race.
    pub fn update(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        r: &Resource,
        obj: Value,
        sub: Subresource,
    ) -> Result<Value, ApiError> {
        self.requests += 1;
        let ns = if r.namespaced {
            match meta::namespace(&obj) {
                "" => "default".to_string(),
                ns => ns.to_string(),
            }
        } else {
            String::new()
        };
        super::limits::check_body(&obj)?;
        let name = meta::name(&obj).to_string();
        let client_rv = meta::resource_version(&obj);
        self.guaranteed_update(caller, world, r, &ns, &name, |cur| {
            if client_rv != 0 && client_rv != meta::resource_version(cur) {
                return Err(ApiError::conflict(r, &name));
            }
            Ok(merge_update(r, cur, &obj, sub))
        })
    }

    /// Reads the current object, applies `try_update`, and writes it back with a CAS on its
    /// mod_revision; an identical result is not written (the RV stays).
    pub fn guaranteed_update(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        r: &Resource,
        ns: &str,
        name: &str,
        mut try_update: impl FnMut(&Value) -> Result<Value, ApiError>,
    ) -> Result<Value, ApiError> {
        self.requests += 1;
        let key = r.key(ns, name);
        let mut kv = self.get_kv(world, r, ns, name)?;
        for _ in 0..CAS_RETRIES {
            let mut cur = self.decode(&kv)?;
            let mut new = try_update(&cur)?;
            // metadata.generation counts changes of the spec (not of status or metadata).
            if let Some(g) = meta::i64_at(&cur, &["metadata", "generation"]) {
                let changed = cur.get("spec") != new.get("spec");
                meta::obj_mut(&mut new, &["metadata"])
                    .insert("generation".into(), json!(if changed { g + 1 } else { g }));
            }
            let (stored, bytes) = self.normalize(caller, r, &key, new)?;
            if unchanged(&stored, &mut cur) {
                return Ok(cur);
            }
            let mut new = stored;
            validate(r, name, &new)?;
            let value = self.seal(r.plural, &key, bytes);
            let lease = self.lease_for(world, r)?;
            let txn = TxnRequest {
                compare: vec![Compare::new(
                    key.clone(),
                    CompareResult::Equal,
                    CompareTarget::Mod(kv.mod_revision),
                )],
                success: vec![RequestOp::Put(PutRequest {
                    lease,
                    ..PutRequest::new(key.clone(), value)
                })],
                failure: vec![RequestOp::Range(RangeRequest::key(key.clone()))],
            };
            let t = self.write_txn(caller, world, txn, r, "update", Some(&cur), &new)?;
            if t.succeeded {
                meta::obj_mut(&mut new, &["metadata"])
                    .insert("resourceVersion".into(), json!(t.revision.to_string()));
                return Ok(new);
            }
            match first_kv(&t.responses) {
                Some(latest) => kv = latest,
                None => return Err(ApiError::not_found(r, name)),
            }
        }
        Err(ApiError::conflict(r, name))
    }

    /// DELETE. A pod on a node is deleted gracefully: the first DELETE only sets
    /// `deletionTimestamp`, and the kubelet's DELETE with grace 0 removes it.
    pub fn delete(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        r: &Resource,
        ns: &str,
        name: &str,
        grace_zero: bool,
    ) -> Result<Value, ApiError> {
        self.requests += 1;
        let key = r.key(ns, name);
        let mut kv = self.get_kv(world, r, ns, name)?;
        let now = world.now();
        for _ in 0..CAS_RETRIES {
            let cur = self.decode(&kv)?;
            let bound = !meta::str_at(&cur, &["spec", "nodeName"]).is_empty();
            let terminal = matches!(
                meta::str_at(&cur, &["status", "phase"]),
                "Succeeded" | "Failed"
            );
            if r.kind == "Pod" && bound && !terminal && !grace_zero {
                if meta::at(&cur, &["metadata", "deletionTimestamp"]).is_some() {
                    return Ok(cur);
                }
                return self.guaranteed_update(caller, world, r, ns, name, |cur| {
                    let mut new = cur.clone();
                    let m = meta::obj_mut(&mut new, &["metadata"]);
                    m.insert(
                        "deletionTimestamp".into(),
                        json!(meta::timestamp(now + 30_000)),
                    );
                    m.insert("deletionGracePeriodSeconds".into(), json!(30));
                    Ok(new)
                });
            }
            let txn = TxnRequest {
                compare: vec![Compare::new(
                    key.clone(),
                    CompareResult::Equal,
                    CompareTarget::Mod(kv.mod_revision),
                )],
                success: vec![RequestOp::DeleteRange(DeleteRangeRequest::key(key.clone()))],
                failure: vec![RequestOp::Range(RangeRequest::key(key.clone()))],
            };
            let t = self.write_txn(caller, world, txn, r, "delete", None, &cur)?;
            if t.succeeded {
                return Ok(cur);
            }
            match first_kv(&t.responses) {
                Some(latest) => kv = latest,
                None => return Err(ApiError::not_found(r, name)),
            }
        }
        Err(ApiError::conflict(r, name))
    }

    // ----- the watch cache --------------------------------------------------------------

    /// Catches the watch cache up with etcd: a watch on `/registry/` resumed from the last
    /// revision seen (a re-LIST when that revision was compacted).
    pub fn sync(&mut self, world: &mut Cluster) {
        let ep = self.endpoint(world);
        if self.cache_rev == 0 {
            self.relist(world);
            return;
        }
        let (key, range_end) = etcd::prefix_bounds(b"/registry/".to_vec());
        let req = WatchRequest {
            key,
            range_end,
            start_revision: self.cache_rev + 1,
            prev_kv: true,
            ..WatchRequest::default()
        };
        let Ok(responses) = world.watch(ep, req, 0) else {
            self.cache_healthy = false;
            return;
        };
        self.cache_healthy = true;
        for resp in responses {
            if resp.canceled {
                self.relist(world);
                return;
            }
            for ev in resp.events {
                self.apply_event(ev, world.now());
            }
            self.cache_rev = self.cache_rev.max(resp.revision);
        }
    }

    fn relist(&mut self, world: &mut Cluster) {
        let req = RangeRequest::prefix("/registry/");
        let ep = self.endpoint(world);
        let Ok(reply) = world.kv(ep, Request::Range(req), false, ETCD_TIMEOUT_MS) else {
            self.cache_healthy = false;
            return;
        };
        let Response::Range(rr) = reply.body else {
            return;
        };
        self.cache.clear();
        self.cache_stamp = new_cache_stamp();
        for kv in &rr.kvs {
            if let Ok(v) = self.decode(kv) {
                self.cache
                    .insert(String::from_utf8_lossy(&kv.key).into_owned(), Arc::new(v));
            }
        }
        self.cache_rev = rr.revision;
        self.history.clear();
        self.history_base = self.cache_stamp;
        self.history_start = rr.revision + 1;
        self.cache_healthy = true;
    }

    fn apply_event(&mut self, ev: etcd::Event, now: Millis) {
        let key = String::from_utf8_lossy(&ev.kv.key).into_owned();
        let revision = ev.kv.mod_revision;
        if let Some(w) = self
            .journal
            .iter_mut()
            .rev()
            .find(|w| w.revision == revision)
        {
            Arc::make_mut(w).watched_ms.get_or_insert(now);
        }
        let (kind, object) = match ev.kind {
            EventType::Put => {
                let Ok(obj) = self.decode(&ev.kv) else {
                    return;
                };
                let obj = Arc::new(obj);
                self.cache.insert(key.clone(), Arc::clone(&obj));
                let kind = if ev.kv.create_revision == ev.kv.mod_revision {
                    WatchKind::Added
                } else {
                    WatchKind::Modified
                };
                (kind, obj)
            }
            EventType::Delete => {
                let Some(mut obj) = self.cache.remove(&key).map(Arc::unwrap_or_clone) else {
                    return;
                };
                meta::obj_mut(&mut obj, &["metadata"])
                    .insert("resourceVersion".into(), json!(revision.to_string()));
                (WatchKind::Deleted, Arc::new(obj))
            }
        };
        // Only a change of the cache makes a new state, and each is in the history.
        self.cache_stamp = new_cache_stamp();
        let event = WatchEvent {
            kind,
            key,
            object,
            revision,
        };
        self.history.push_back((self.cache_stamp, Arc::new(event)));
        if self.history.len() > WATCH_HISTORY {
            if let Some((stamp, _)) = self.history.pop_front() {
                self.history_base = stamp;
            }
            self.history_start = self.history.front().map_or(revision, |(_, e)| e.revision);
        }
    }

    /// LIST with resourceVersion "0": from the watch cache (what informers start from).
    /// The objects are shared with the cache: a controller's resync copies none of them.
    pub fn list_cached(&self, r: &Resource, ns: Option<&str>) -> Vec<Arc<Value>> {
        self.list_cached_keyed(r, ns)
            .map(|(_, v)| Arc::clone(v))
            .collect()
    }

    /// [`ApiServer::list_cached`] with each object's key.
    pub fn list_cached_keyed<'a>(
        &'a self,
        r: &'a Resource,
        ns: Option<&str>,
    ) -> impl Iterator<Item = (&'a String, &'a Arc<Value>)> + 'a {
        let prefix = r.list_prefix(ns);
        let (in_namespace, start) = (ns.is_some(), prefix.len());
        (self.cache.range(prefix.clone()..))
            .take_while(move |(k, _)| k.starts_with(&prefix))
            .filter(move |(k, _)| in_namespace || r.names_object(&k[start..]))
    }

    /// The object at `key` in the watch cache.
    pub fn cached_at(&self, key: &str) -> Option<&Arc<Value>> {
        self.cache.get(key)
    }

    /// The keys the watch cache changed since it was in state `stamp`, newest first (a key
    /// may repeat); None when its history does not reach back to that state (a relist, or a
    /// state from another copy's future): a reader then lists again.
    pub fn changes_since(&self, stamp: u64) -> Option<impl Iterator<Item = &str> + '_> {
        let newer = if stamp == self.cache_stamp {
            0
        } else if stamp == self.history_base {
            self.history.len()
        } else {
            self.history.iter().rev().position(|(s, _)| *s == stamp)?
        };
        Some(
            self.history
                .iter()
                .rev()
                .take(newer)
                .map(|(_, e)| e.key.as_str()),
        )
    }

    pub fn get_cached(&self, r: &Resource, ns: &str, name: &str) -> Option<Arc<Value>> {
        self.cache.get(&r.key(ns, name)).cloned()
    }

    pub fn cache_revision(&self) -> i64 {
        self.cache_rev
    }

    /// Equal stamps, from this server or any copy of it (a checkpoint, a rewind), mean the
    /// cache holds the same objects: what a reader may keep its last listing by.
    pub fn cache_stamp(&self) -> u64 {
        self.cache_stamp
    }

    /// How many requests the API server has served (a counter to compare).
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// WATCH from `rv` (exclusive): the cached events of resource `r` after it, or 410
    /// "too old resource version" when the cache's history no longer reaches back that far.
    pub fn watch(
        &self,
        r: &Resource,
        ns: Option<&str>,
        rv: i64,
    ) -> Result<Vec<WatchEvent>, ApiError> {
        if rv + 1 < self.history_start {
            return Err(ApiError::gone(format!(
                "too old resource version: {rv} ({})",
                self.history_start - 1
            )));
        }
        let prefix = r.list_prefix(ns);
        Ok(self
            .history
            .iter()
            .filter(|(_, e)| e.revision > rv && e.key.starts_with(&prefix))
            .map(|(_, e)| WatchEvent::clone(e))
            .collect())
    }

    /// The periodic compactor (AS `pkg/storage/etcd3/compact.go`): every interval, a txn on
    /// `compact_rev_key`'s version elects this apiserver, which compacts to the revision it
    /// saw one interval earlier.
    pub fn maybe_compact(&mut self, world: &mut Cluster) {
        if world.now() < self.next_compaction_ms {
            return;
        }
        self.next_compaction_ms = world.now() + COMPACTION_INTERVAL_MS;
        let key = b"compact_rev_key".to_vec();
        let txn = TxnRequest {
            compare: vec![Compare::new(
                key.clone(),
                CompareResult::Equal,
                CompareTarget::Version(self.compact_key_version),
            )],
            success: vec![RequestOp::Put(PutRequest::new(
                key.clone(),
                self.compact_prev_rev.to_string(),
            ))],
            failure: vec![RequestOp::Range(RangeRequest::key(key))],
        };
        let Ok(Response::Txn(t)) = self.etcd(world, Request::Txn(txn)) else {
            return;
        };
        let prev = self.compact_prev_rev;
        if t.succeeded {
            self.compact_key_version += 1;
            self.compact_prev_rev = t.revision;
            if prev > 0 {
                let ep = self.endpoint(world);
                let _ = world.compact(ep, prev, false, ETCD_TIMEOUT_MS);
            }
        } else if let Some(kv) = first_kv(&t.responses) {
            self.compact_key_version = kv.version;
        }
    }

    // ----- ids --------------------------------------------------------------------------

    fn random_suffix(&mut self) -> String {
        (0..5)
            .map(|_| NAME_ALPHABET[self.rng.range(0, NAME_ALPHABET.len() as u64) as usize] as char)
            .collect()
    }

    fn uid(&mut self) -> String {
        let a = self.rng.next_u64();
        let b = self.rng.next_u64();
        let hex = format!("{a:016x}{b:016x}");
        format!(
            "{}-{}-4{}-{}{}-{}",
            &hex[0..8],
            &hex[8..12],
            &hex[13..16],
            ["8", "9", "a", "b"][(b & 3) as usize],
            &hex[17..20],
            &hex[20..32]
        )
    }

    /// An Event, recorded as client-go's recorder does: the first one is created (named
    /// `<object>.<hex unix nanos>`); one just like it (same source, object, type, reason and
    /// message) instead raises that Event's `count` and `lastTimestamp`, and is created again
    /// under the same name if it has expired meanwhile.
    pub fn record_event(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        note: &EventNote,
    ) -> Result<(), ApiError> {
        self.requests += 1;
        let correlation_key = note.correlation_key();
        let clock = self.seen_events.tick();
        let seen = self.seen_events.get(&correlation_key).cloned();
        if let Some(seen) = &seen {
            if self.bump_event(caller, world, seen, note.message)? {
                let bumped = SeenEvent {
                    count: seen.count + 1,
                    last_used: clock,
                    ..seen.clone()
                };
                self.seen_events.put(correlation_key, bumped);
                return Ok(());
            }
        }
        let now = world.now();
        let seen = match seen {
            Some(s) => SeenEvent {
                count: s.count + 1,
                last_used: clock,
                ..s
            },
            None => {
                let nanos = (EPOCH_UNIX_MS + now) * 1_000_000 + self.rng.range(0, 1_000_000);
                SeenEvent {
                    name: format!("{}.{nanos:x}", meta::name(note.involved)),
                    namespace: match meta::namespace(note.involved) {
                        "" => "default".to_string(),
                        ns => ns.to_string(),
                    },
                    count: 1,
                    first_timestamp: meta::timestamp(now),
                    last_used: clock,
                }
            }
        };
        self.create(caller, world, &meta::EVENTS, note.event(&seen, now))?;
        self.seen_events.put(correlation_key, seen);
        Ok(())
    }

    /// Raises a recorded Event's count; false when it has expired (it is created again).
    fn bump_event(
        &mut self,
        caller: &Caller,
        world: &mut Cluster,
        seen: &SeenEvent,
        message: &str,
    ) -> Result<bool, ApiError> {
        let now = world.now();
        let count = seen.count + 1;
        let patched = self.guaranteed_update(
            caller,
            world,
            &meta::EVENTS,
            &seen.namespace,
            &seen.name,
            |cur| {
                let mut new = cur.clone();
                if let Some(o) = new.as_object_mut() {
                    o.insert("count".into(), json!(count));
                    o.insert("lastTimestamp".into(), json!(meta::timestamp(now)));
                    o.insert("message".into(), json!(message));
                }
                Ok(new)
            },
        );
        match patched {
            Ok(_) => Ok(true),
            Err(e) if e.code == 404 => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// What an event recorder is told: which object, what happened, and who saw it (the
/// component, and for a kubelet its host).
#[derive(Clone, Copy, Debug)]
pub struct EventNote<'a> {
    pub involved: &'a Value,
    pub kind: &'a str,
    pub event_type: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
    pub component: &'a str,
    pub host: Option<&'a str>,
}

impl EventNote<'_> {
    /// client-go's `getEventKey`: what makes two events the same one.
    fn correlation_key(&self) -> String {
        let involved = self.involved;
        [
            self.component,
            self.host.unwrap_or(""),
            self.kind,
            meta::namespace(involved),
            meta::name(involved),
            meta::uid(involved),
            meta::str_at(involved, &["apiVersion"]),
            self.event_type,
            self.reason,
            self.message,
        ]
        .join("\u{0}")
    }

    /// The Event object, the `seen`-th of its kind.
    fn event(&self, seen: &SeenEvent, now: Millis) -> Value {
        let involved = self.involved;
        let mut source = json!({"component": self.component});
        if let Some(h) = self.host {
            source["host"] = json!(h);
        }
        json!({
            "metadata": {"name": seen.name, "namespace": seen.namespace},
            "involvedObject": {
                "kind": self.kind,
                "namespace": meta::namespace(involved),
                "name": meta::name(involved),
                "uid": meta::uid(involved),
                "apiVersion": meta::str_at(involved, &["apiVersion"]),
                "resourceVersion": meta::str_at(involved, &["metadata", "resourceVersion"]),
            },
            "reason": self.reason,
            "message": self.message,
            "source": source,
            "firstTimestamp": seen.first_timestamp,
            "lastTimestamp": meta::timestamp(now),
            "count": seen.count,
            "type": self.event_type,
            "eventTime": null,
            "reportingComponent": "",
            "reportingInstance": "",
        })
    }
}

/// The leaves that differ between two versions of an object (`spec.replicas: 3 → 5`),
/// bookkeeping fields left out, at most four.
fn leaf_changes(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    const SKIP: [&str; 4] = [
        "metadata.resourceVersion",
        "metadata.generation",
        "metadata.managedFields",
        "status.observedGeneration",
    ];
    let timestamp = path.ends_with("Time") || path.ends_with("Timestamp");
    if out.len() >= 4 || a == b || SKIP.contains(&path) || timestamp {
        return;
    }
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                leaf_changes(&format!("{path}[{i}]"), p, q, out);
            }
        }
        (Value::Object(_), Value::Object(_))
        | (Value::Null, Value::Object(_))
        | (Value::Object(_), Value::Null) => {
            let empty = serde_json::Map::new();
            let (x, y) = (
                a.as_object().unwrap_or(&empty),
                b.as_object().unwrap_or(&empty),
            );
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                leaf_changes(
                    &sub,
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    out,
                );
            }
        }
        _ => {
            let show = |v: &Value| match v {
                Value::Null => "∅".to_string(),
                Value::String(s) => s.clone(),
                Value::Array(l) => format!("[{} items]", l.len()),
                Value::Object(_) => "{…}".to_string(),
                other => other.to_string(),
            };
            if out.len() < 4 {
                out.push(format!("{path}: {} → {}", show(a), show(b)));
            }
        }
    }
}

fn first_kv(responses: &[ResponseOp]) -> Option<KeyValue> {
    match responses.first() {
        Some(ResponseOp::Range(rr)) => rr.kvs.first().cloned(),
        _ => None,
    }
}

/// Whether an update wrote nothing new: `stored` (no resourceVersion) is `cur` but for its
/// resourceVersion. Compared in place: a copy of `cur` cost as much as the decode.
fn unchanged(stored: &Value, cur: &mut Value) -> bool {
    let metadata = meta::obj_mut(cur, &["metadata"]);
    let rv = metadata.remove("resourceVersion");
    let same = stored == cur;
    if let Some(rv) = rv {
        meta::obj_mut(cur, &["metadata"]).insert("resourceVersion".into(), rv);
    }
    same
}

fn kind_for_errors(r: &Resource) -> String {
    if r.group.is_empty() {
        r.kind.to_string()
    } else {
        format!("{}.{}", r.kind, r.group)
    }
}

/// The object a PUT stores: identity from the current object; the main resource keeps the
/// current status, `/status` keeps everything but the status.
fn merge_update(r: &Resource, cur: &Value, obj: &Value, sub: Subresource) -> Value {
    let has_status = matches!(
        r.kind,
        "Deployment" | "ReplicaSet" | "Pod" | "Node" | "Namespace"
    );
    let mut new = match sub {
        Subresource::Main => obj.clone(),
        Subresource::Status => {
            let mut n = cur.clone();
            if let Some(s) = obj.get("status") {
                n["status"] = s.clone();
            }
            n
        }
    };
    if sub == Subresource::Main && has_status {
        match cur.get("status") {
            Some(s) => new["status"] = s.clone(),
            None => {
                if let Some(o) = new.as_object_mut() {
                    o.remove("status");
                }
            }
        }
    }
    for field in [
        "uid",
        "creationTimestamp",
        "namespace",
        "name",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
    ] {
        let m = meta::obj_mut(&mut new, &["metadata"]);
        match cur.get("metadata").and_then(|m| m.get(field)) {
            Some(v) => {
                m.insert(field.into(), v.clone());
            }
            None => {
                m.remove(field);
            }
        }
    }
    if let Some(o) = new.as_object_mut() {
        o.insert("apiVersion".into(), json!(r.api_version()));
        o.insert("kind".into(), json!(r.kind));
    }
    super::defaults::apply(r, &mut new, 0);
    new
}

/// The few validations that the lessons run into, and the size limits (`limits`).
fn validate(r: &Resource, name: &str, obj: &Value) -> Result<(), ApiError> {
    let invalid = |field: &str, what: &str| {
        Err(ApiError::invalid(format!(
            "{} \"{name}\" is invalid: {field}: {what}",
            kind_for_errors(r)
        )))
    };
    let name_ok = !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name.as_bytes()[name.len() - 1].is_ascii_alphanumeric();
    if !name_ok {
        return invalid(
            "metadata.name",
            &format!("Invalid value: \"{name}\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
        );
    }
    let too_large = super::limits::size_errors(r, obj);
    if !too_large.is_empty() {
        let causes = super::limits::aggregate(&too_large);
        return Err(ApiError::invalid(format!(
            "{} \"{name}\" is invalid: {causes}",
            kind_for_errors(r)
        )));
    }
    let containers = |spec: Option<&Value>| {
        spec.and_then(|s| s.get("containers"))
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty())
    };
    match r.kind {
        "Deployment" | "ReplicaSet" => {
            let Some(selector) = meta::at(obj, &["spec", "selector"]) else {
                return invalid("spec.selector", "Required value");
            };
            let template_labels = meta::at(obj, &["spec", "template", "metadata", "labels"])
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default();
            if !meta::selects(selector, &template_labels) {
                let shown = template_labels
                    .iter()
                    .map(|(k, v)| format!("{k:?}:{v:?}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                return invalid(
                    "spec.template.metadata.labels",
                    &format!("Invalid value: map[string]string{{{shown}}}: `selector` does not match template `labels`"),
                );
            }
            if !containers(meta::at(obj, &["spec", "template", "spec"])) {
                return invalid("spec.template.spec.containers", "Required value");
            }
            if meta::i64_at(obj, &["spec", "replicas"]).is_some_and(|n| n < 0) {
                return invalid(
                    "spec.replicas",
                    "Invalid value: must be greater than or equal to 0",
                );
            }
        }
        "Pod" if !containers(obj.get("spec")) => {
            return invalid("spec.containers", "Required value");
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(events: &mut SeenEvents, name: &str) -> SeenEvent {
        SeenEvent {
            name: name.to_string(),
            namespace: "default".into(),
            count: 1,
            first_timestamp: String::new(),
            last_used: events.tick(),
        }
    }

    #[test]
    fn the_event_cache_lets_the_least_recently_used_go() {
        let mut events = SeenEvents::default();
        for i in 0..SEEN_EVENTS_MAX {
            let s = seen(&mut events, &format!("e{i}"));
            events.put(format!("k{i}"), s);
        }
        // A use of the oldest makes the second oldest the one to go.
        let again = seen(&mut events, "e0");
        events.put("k0".into(), again);
        let s = seen(&mut events, "new");
        events.put("new".into(), s);
        assert_eq!(events.by_key.len(), SEEN_EVENTS_MAX);
        assert_eq!(events.by_use.len(), SEEN_EVENTS_MAX);
        assert!(events.get("k0").is_some());
        assert!(events.get("k1").is_none());
        assert!(events.get("new").is_some());
        let s = seen(&mut events, "newer");
        events.put("newer".into(), s);
        assert!(events.get("k2").is_none());
        assert!(events.get("k3").is_some());
    }
}
