//! The store: key index + revision-keyed backend + lessor + alarms + size model + watchers,
//! and `apply`, which every member runs on the same log entries in the same order.

use super::key_index::KeyIndex;
use super::kv::{KeyBounds, KeyValue, LeaseId, Rev};
use super::lease::{LeaseTimeToLive, Lessor};
use super::record::{Backend, Record, RecordRef};
use super::request::*;
use super::size::{element_bytes, SizeModel};
use super::watch::{key_in_range, WATCH_BATCH_MAX_REVS};
use super::watch::{Event, EventType, WatchId, WatchRequest, WatchResponse, Watcher, Watchers};
use super::MvccError;
use crate::base::{Millis, Revision};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound::{Excluded, Included, Unbounded};
use std::sync::Arc;

/// etcd's default backend quota (`--quota-backend-bytes` 0): 2 GiB.
pub const DEFAULT_QUOTA_BYTES: i64 = 2 * 1024 * 1024 * 1024;

/// Per-member settings. Defaults are etcd's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreConfig {
    /// `--quota-backend-bytes`: 0 = default (2 GiB), negative = no quota.
    pub quota_backend_bytes: i64,
    /// Leases are granted at least this TTL: ceil(1.5 x election timeout) = 2 s by default.
    pub min_lease_ttl_s: i64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            quota_backend_bytes: 0,
            min_lease_ttl_s: 2,
        }
    }
}

impl StoreConfig {
    /// The quota in force, `None` when disabled.
    pub fn quota_bytes(&self) -> Option<u64> {
        match self.quota_backend_bytes {
            q if q < 0 => None,
            0 => Some(DEFAULT_QUOTA_BYTES as u64),
            q => Some(q as u64),
        }
    }
}

/// Result of `hash_kv` (etcd `HashKV`): CRC-32C over the backend's key bucket up to `rev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashKv {
    pub hash: u32,
    /// The store's current revision (the response header's).
    pub revision: Revision,
    pub compact_revision: Revision,
}

/// `dbSize` and `dbSizeInUse` of `endpoint status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbSize {
    pub size_bytes: u64,
    pub in_use_bytes: u64,
}

/// What the UI shows of a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreView {
    pub revision: Revision,
    /// -1 until the first compaction.
    pub compact_revision: Revision,
    /// The live keys at the current revision, in key order (the first of them, if limited).
    pub kvs: Vec<KeyValue>,
    /// How many keys are live, shown or not.
    pub live_keys: usize,
    pub db: DbSize,
    pub alarms: Vec<AlarmMember>,
}

/// The changes of one write txn in progress (etcd `storeTxnWrite`).
struct WriteTxn {
    begin_rev: Revision,
    changes: Vec<Event>,
    keep_prev_kv: bool,
}

impl WriteTxn {
    /// Reads inside a write txn see its own earlier changes.
    fn read_rev(&self) -> Revision {
        self.begin_rev + i64::from(!self.changes.is_empty())
    }

    fn next_rev(&self) -> Rev {
        Rev::new(self.begin_rev + 1, self.changes.len() as i64)
    }
}

/// The first keys of a listing with their mod revisions, and how many it holds.
pub type LiveKeys = (Vec<(Vec<u8>, Revision)>, usize);

/// The keys of a range request, `[key, end)` (`end` empty: `key` alone; `[0]`: every key
/// from `key` on), or `None` when there are none.
fn key_bounds<'a>(key: &'a [u8], end: &'a [u8]) -> Option<KeyBounds<'a>> {
    if end.is_empty() {
        Some((Included(key), Included(key)))
    } else if end == [0] {
        Some((Included(key), Unbounded))
    } else if end <= key {
        None
    } else {
        Some((Included(key), Excluded(end)))
    }
}

/// etcd's MVCC store with its lessor and alarm store. See the module docs.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) config: StoreConfig,
    pub(crate) current_rev: Revision,
    pub(crate) compact_rev: Revision,
    /// Persistent maps of shared records: a time-travel checkpoint copies only the few tree
    /// nodes that changed since the one before, and a node's keys are shared, not copied.
    pub(crate) index: imbl::OrdMap<Arc<[u8]>, KeyIndex>,
    pub(crate) backend: Backend,
    pub(crate) lessor: Lessor,
    pub(crate) alarms: BTreeSet<AlarmMember>,
    pub(crate) size: SizeModel,
    pub(crate) watchers: Watchers,
    /// Keys of the etcd server's own buckets in the same bolt file (`members`, `cluster`),
    /// written by the etcd layer when it applies membership changes.
    pub(crate) server_keys: BTreeMap<String, BTreeSet<Vec<u8>>>,
}

impl Default for Store {
    fn default() -> Self {
        Store::new(StoreConfig::default())
    }
}

/// A lease record's bytes in its leaf: an 8-byte ID key and its `leasepb.Lease{ID, TTL}`.
const LEASE_ELEMENT_BYTES: u64 = element_bytes(8, 13);

/// A record's bytes in the key bucket's leaf: its revision key (17 bytes, 18 with a
/// tombstone's mark) and the marshaled `KeyValue`.
fn record_element_bytes(rec: RecordRef<'_>) -> u64 {
    element_bytes(17 + usize::from(rec.tombstone()), rec.stored_value_len())
}

impl Store {
    /// A fresh store at revision 1, never compacted.
    pub fn new(config: StoreConfig) -> Store {
        Store {
            lessor: Lessor::new(config.min_lease_ttl_s),
            config,
            current_rev: 1,
            compact_rev: -1,
            index: imbl::OrdMap::new(),
            backend: Backend::default(),
            alarms: BTreeSet::new(),
            size: SizeModel::default(),
            watchers: Watchers::default(),
            server_keys: BTreeMap::new(),
        }
    }

    pub fn config(&self) -> &StoreConfig {
        &self.config
    }

    /// The revision of the last write.
    pub fn revision(&self) -> Revision {
        self.current_rev
    }

    /// The last compaction's revision, -1 if never compacted.
    pub fn compact_revision(&self) -> Revision {
        self.compact_rev
    }

    // ---- reads ------------------------------------------------------------------------

    /// Calls `f(key, modified)` for each key live at `at` in `[key, end)`, in key order,
    /// until it returns false.
    fn for_each_live(
        &self,
        key: &[u8],
        end: &[u8],
        at: Revision,
        mut f: impl FnMut(&[u8], Rev) -> bool,
    ) {
        if end.is_empty() {
            if let Some((modified, _, _)) = self.index.get(key).and_then(|ki| ki.get(at)) {
                f(key, modified);
            }
            return;
        }
        let Some(bounds) = key_bounds(key, end) else {
            return;
        };
        for (k, ki) in self.index.range::<_, [u8]>(bounds) {
            if let Some((modified, _, _)) = ki.get(at) {
                if !f(k, modified) {
                    return;
                }
            }
        }
    }

    fn kv_at(&self, rev: Rev) -> KeyValue {
        match self.backend.get(&rev) {
            Some(rec) => rec.kv(),
            None => panic!("index points at revision {rev:?} missing from the backend"),
        }
    }

    /// The key's record as of `at`, if it was live then.
    fn live_kv(&self, key: &[u8], at: Revision) -> Option<KeyValue> {
        let (modified, _, _) = self.index.get(key)?.get(at)?;
        Some(self.kv_at(modified))
    }

    /// A range read at `cur` (the current revision, or a write txn's read revision).
    fn range_at(&self, r: &RangeRequest, cur: Revision) -> Result<RangeResponse, MvccError> {
        if r.revision > cur {
            return Err(MvccError::FutureRevision);
        }
        let at = if r.revision <= 0 { cur } else { r.revision };
        if at < self.compact_rev {
            return Err(MvccError::Compacted);
        }
        let mut revs = Vec::new();
        self.for_each_live(&r.key, &r.range_end, at, |_, m| {
            revs.push(m);
            true
        });
        let count = revs.len() as i64;
        let filtered = r.min_mod_revision != 0
            || r.max_mod_revision != 0
            || r.min_create_revision != 0
            || r.max_create_revision != 0;
        let fetch_all = r.sort_order != SortOrder::None || filtered;
        let mut kvs: Vec<KeyValue> = if r.count_only {
            Vec::new()
        } else {
            let take = if fetch_all || r.limit <= 0 {
                revs.len()
            } else {
                (r.limit as usize).saturating_add(1).min(revs.len())
            };
            revs[..take].iter().map(|&m| self.kv_at(m)).collect()
        };
        if filtered {
            kvs.retain(|kv| {
                !(r.max_mod_revision != 0 && kv.mod_revision > r.max_mod_revision
                    || r.min_mod_revision != 0 && kv.mod_revision < r.min_mod_revision
                    || r.max_create_revision != 0 && kv.create_revision > r.max_create_revision
                    || r.min_create_revision != 0 && kv.create_revision < r.min_create_revision)
            });
        }
        sort_kvs(&mut kvs, r.sort_order, r.sort_target);
        let mut more = false;
        if r.limit > 0 && kvs.len() > r.limit as usize {
            kvs.truncate(r.limit as usize);
            more = true;
        }
        if r.keys_only {
            kvs.iter_mut().for_each(|kv| kv.value.clear());
        }
        Ok(RangeResponse {
            revision: cur,
            kvs,
            more,
            count,
        })
    }

    /// A get, served locally (not through the log).
    pub fn range(&self, r: &RangeRequest) -> Result<RangeResponse, MvccError> {
        if r.key.is_empty() {
            return Err(MvccError::EmptyKey);
        }
        self.range_at(r, self.current_rev)
    }

    /// What the UI shows.
    pub fn view(&self) -> StoreView {
        self.view_first(usize::MAX)
    }

    /// What the UI shows, with only the first `limit` keys read: a page draws a few of ten
    /// thousand, and reading each key's record is most of a listing's cost.
    pub fn view_first(&self, limit: usize) -> StoreView {
        let (mut kvs, mut live_keys) = (Vec::new(), 0);
        // The empty key cannot be written, so starting at [0] misses nothing.
        self.for_each_live(&[0], &[0], self.current_rev, |_, m| {
            if kvs.len() < limit {
                kvs.push(self.kv_at(m));
            }
            live_keys += 1;
            true
        });
        StoreView {
            revision: self.current_rev,
            compact_revision: self.compact_rev,
            kvs,
            live_keys,
            db: self.db_size(),
            alarms: self.alarms.iter().copied().collect(),
        }
    }

    /// The first `limit` live keys in `[key, end)` (as a range reads them) with their mod
    /// revisions, and how many are live there, from the key index alone: no record is read.
    pub fn live_keys(&self, key: &[u8], end: &[u8], limit: usize) -> LiveKeys {
        let (mut keys, mut count) = (Vec::new(), 0);
        self.for_each_live(key, end, self.current_rev, |k, m| {
            if keys.len() < limit {
                keys.push((k.to_vec(), m.main));
            }
            count += 1;
            true
        });
        (keys, count)
    }

    /// Number of records in the backend's key bucket (live, historical and tombstones).
    pub fn backend_record_count(&self) -> usize {
        self.backend.len()
    }

    /// etcdutl 3.5 `snapshot restore --bump-revision N --mark-compacted`: the revision jumps
    /// by `amount` (so revisions clients saw before never repeat), and the new revision
    /// becomes the compaction point (so watches from older revisions are cancelled).
    pub fn bump_revision_and_compact(&mut self, amount: i64) -> Result<(), MvccError> {
        self.current_rev += amount.max(0);
        self.compact(self.current_rev).map(|_| ())
    }

    /// The last `limit` changes still in the history, oldest first, as a watch from their
    /// revision would deliver them (a read-only view for the UI's watch stream).
    pub fn recent_events(&self, limit: usize) -> Vec<super::watch::Event> {
        let mut out: Vec<super::watch::Event> = self
            .backend
            .iter()
            .rev()
            .take(limit)
            .map(|(_, rec)| super::watch::Event {
                kind: if rec.tombstone() {
                    super::watch::EventType::Delete
                } else {
                    super::watch::EventType::Put
                },
                kv: rec.kv(),
                prev_kv: None,
            })
            .collect();
        out.reverse();
        out
    }

    /// Sets the keys of one of the etcd server's buckets (`members`, `cluster`).
    pub fn set_server_bucket(&mut self, bucket: &str, keys: BTreeSet<Vec<u8>>) {
        self.server_keys.insert(bucket.to_string(), keys);
    }

    /// Every key in every bucket of the bolt file, as `snapshot status` counts them: the key
    /// bucket's records, `meta` (consistent index, plus the two compaction marks once
    /// compacted), one per lease, the server's buckets, and `auth` (its revision key).
    pub fn bolt_key_count(&self) -> usize {
        let meta = if self.compact_rev > 0 { 3 } else { 1 };
        let server: usize = self.server_keys.values().map(BTreeSet::len).sum();
        self.backend.len() + meta + self.lessor.leases.len() + server + 1
    }

    // ---- write txns --------------------------------------------------------------------

    fn begin(&self) -> WriteTxn {
        WriteTxn {
            begin_rev: self.current_rev,
            changes: Vec::new(),
            keep_prev_kv: self.watchers.any_wants_prev_kv(),
        }
    }

    /// Commits a write txn: one new revision if anything changed, then the watch events.
    fn end(&mut self, tx: WriteTxn) {
        if tx.changes.is_empty() {
            return;
        }
        self.current_rev += 1;
        self.size.commit();
        self.watchers.notify(self.current_rev, &tx.changes);
    }

    fn backend_insert(&mut self, rev: Rev, rec: Record) {
        self.size.add_record(rev, record_element_bytes(rec.view()));
        self.backend.insert(rev, rec.view());
    }

    fn tx_put(&mut self, tx: &mut WriteTxn, key: &[u8], value: Vec<u8>, lease: LeaseId) {
        let rev = tx.next_rev();
        let prev = self.live_kv(key, rev.main);
        let (create_revision, version) = prev
            .as_ref()
            .map_or((rev.main, 1), |p| (p.create_revision, p.version + 1));
        let kv = KeyValue {
            key: key.to_vec(),
            create_revision,
            mod_revision: rev.main,
            version,
            value,
            lease,
        };
        self.backend_insert(rev, Record::new(false, &kv));
        let indexed = match self.index.get_mut(key) {
            Some(ki) => ki.put(rev),
            None => {
                let mut ki = KeyIndex::default();
                let put = ki.put(rev);
                self.index.insert(key.into(), ki);
                put
            }
        };
        assert!(indexed.is_ok(), "write revisions only grow");
        if let Some(old) = prev.as_ref().map(|p| p.lease).filter(|&l| l != 0) {
            self.lessor.detach(old, key);
        }
        if lease != 0 {
            self.lessor.attach(lease, key);
        }
        let prev_kv = if tx.keep_prev_kv { prev } else { None };
        tx.changes.push(Event {
            kind: EventType::Put,
            kv,
            prev_kv,
        });
    }

    /// Deletes the live `key`, whose record is at `modified` (its lease still holds it).
    fn tx_delete(&mut self, tx: &mut WriteTxn, key: &[u8], modified: Rev) {
        let rev = tx.next_rev();
        let prev = tx.keep_prev_kv.then(|| self.kv_at(modified));
        let kv = KeyValue {
            key: key.to_vec(),
            ..KeyValue::default()
        };
        self.backend_insert(rev, Record::new(true, &kv));
        let ended = self.index.get_mut(key).map(|ki| ki.tombstone(rev));
        assert!(matches!(ended, Some(Ok(()))), "only live keys are deleted");
        let kv = KeyValue {
            key: key.to_vec(),
            mod_revision: rev.main,
            ..KeyValue::default()
        };
        tx.changes.push(Event {
            kind: EventType::Delete,
            kv,
            prev_kv: prev,
        });
    }

    fn tx_delete_range(&mut self, tx: &mut WriteTxn, key: &[u8], end: &[u8]) -> i64 {
        let deleted = self.tx_delete_live(tx, key, end);
        // The leases let go of the range at once: reading each deleted record for its lease
        // cost more than the rest of its delete (`check perf` deletes 9,000 keys at its end).
        if deleted != 0 {
            if let Some(bounds) = key_bounds(key, end) {
                self.lessor.detach_range(bounds);
            }
        }
        deleted
    }

    /// Deletes the keys live in `[key, end)`, leaving their leases as they are.
    fn tx_delete_live(&mut self, tx: &mut WriteTxn, key: &[u8], end: &[u8]) -> i64 {
        let mut keys = Vec::new();
        self.for_each_live(key, end, tx.read_rev(), |k, modified| {
            keys.push((k.to_vec(), modified));
            true
        });
        for (k, modified) in &keys {
            self.tx_delete(tx, k, *modified);
        }
        keys.len() as i64
    }

    fn tx_put_request(
        &mut self,
        tx: &mut WriteTxn,
        p: &PutRequest,
    ) -> Result<PutResponse, MvccError> {
        let needs_prev = p.ignore_value || p.ignore_lease || p.prev_kv;
        let prev = if needs_prev {
            self.live_kv(&p.key, tx.read_rev())
        } else {
            None
        };
        if (p.ignore_value || p.ignore_lease) && prev.is_none() {
            return Err(MvccError::KeyNotFound);
        }
        let value = match (&prev, p.ignore_value) {
            (Some(prev), true) => prev.value.clone(),
            _ => p.value.clone(),
        };
        let lease = match (&prev, p.ignore_lease) {
            (Some(prev), true) => prev.lease,
            _ => p.lease,
        };
        self.tx_put(tx, &p.key, value, lease);
        Ok(PutResponse {
            revision: tx.begin_rev + 1,
            prev_kv: prev.filter(|_| p.prev_kv),
        })
    }

    fn tx_delete_request(
        &mut self,
        tx: &mut WriteTxn,
        d: &DeleteRangeRequest,
    ) -> DeleteRangeResponse {
        let mut prev_kvs = Vec::new();
        if d.prev_kv {
            self.for_each_live(&d.key, &d.range_end, tx.read_rev(), |_, m| {
                prev_kvs.push(self.kv_at(m));
                true
            });
        }
        let deleted = self.tx_delete_range(tx, &d.key, &d.range_end);
        let revision = if deleted != 0 || !tx.changes.is_empty() {
            tx.begin_rev + 1
        } else {
            tx.begin_rev
        };
        DeleteRangeResponse {
            revision,
            deleted,
            prev_kvs,
        }
    }

    fn apply_put(&mut self, p: &PutRequest) -> Result<PutResponse, MvccError> {
        if p.lease != 0 && !self.lessor.leases.contains_key(&p.lease) {
            return Err(MvccError::LeaseNotFound);
        }
        let mut tx = self.begin();
        let resp = self.tx_put_request(&mut tx, p);
        self.end(tx);
        resp
    }

    fn apply_delete(&mut self, d: &DeleteRangeRequest) -> DeleteRangeResponse {
        let mut tx = self.begin();
        let resp = self.tx_delete_request(&mut tx, d);
        self.end(tx);
        resp
    }

    // ---- txn ---------------------------------------------------------------------------

    fn compare_holds(&self, c: &Compare) -> bool {
        let mut kvs = Vec::new();
        self.for_each_live(&c.key, &c.range_end, self.current_rev, |_, m| {
            kvs.push(self.kv_at(m));
            true
        });
        if kvs.is_empty() {
            // A missing key never matches a value; other fields compare as zero.
            return !matches!(c.target, CompareTarget::Value(_))
                && compare_kv(c, &KeyValue::default());
        }
        kvs.iter().all(|kv| compare_kv(c, kv))
    }

    /// The branch taken by the txn and by every nested txn on the taken branches, in
    /// pre-order, all decided before any op runs (etcd `compareToPath`).
    fn compare_path(&self, t: &TxnRequest, path: &mut Vec<bool>) {
        let ok = t.compare.iter().all(|c| self.compare_holds(c));
        path.push(ok);
        for op in if ok { &t.success } else { &t.failure } {
            if let RequestOp::Txn(inner) = op {
                self.compare_path(inner, path);
            }
        }
    }

    /// Checks the ops on the taken path before anything is written (etcd `checkRequests`).
    fn check_path(
        &self,
        t: &TxnRequest,
        path: &[bool],
        pos: &mut usize,
        is_write: bool,
    ) -> Result<(), MvccError> {
        let ok = path.get(*pos).copied().unwrap_or(false);
        *pos += 1;
        for op in if ok { &t.success } else { &t.failure } {
            match op {
                RequestOp::Txn(inner) => self.check_path(inner, path, pos, is_write)?,
                RequestOp::Put(p) if is_write => {
                    if p.lease != 0 && !self.lessor.leases.contains_key(&p.lease) {
                        return Err(MvccError::LeaseNotFound);
                    }
                    if (p.ignore_value || p.ignore_lease)
                        && self.live_kv(&p.key, self.current_rev).is_none()
                    {
                        return Err(MvccError::KeyNotFound);
                    }
                }
                RequestOp::Range(r) => {
                    if r.revision > self.current_rev {
                        return Err(MvccError::FutureRevision);
                    }
                    if r.revision < self.compact_rev {
                        return Err(MvccError::Compacted);
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn run_path(
        &mut self,
        tx: &mut WriteTxn,
        t: &TxnRequest,
        path: &[bool],
        pos: &mut usize,
    ) -> TxnResponse {
        let succeeded = path.get(*pos).copied().unwrap_or(false);
        *pos += 1;
        let ops = if succeeded { &t.success } else { &t.failure };
        let mut responses = Vec::with_capacity(ops.len());
        for op in ops {
            let resp = match op {
                RequestOp::Range(r) => {
                    // Checked by `check_path`; an error here would be a bug of ours.
                    let cur = tx.read_rev();
                    ResponseOp::Range(self.range_at(r, cur).unwrap_or_default())
                }
                RequestOp::Put(p) => {
                    ResponseOp::Put(self.tx_put_request(tx, p).unwrap_or_default())
                }
                RequestOp::DeleteRange(d) => ResponseOp::DeleteRange(self.tx_delete_request(tx, d)),
                RequestOp::Txn(inner) => ResponseOp::Txn(self.run_path(tx, inner, path, pos)),
            };
            responses.push(resp);
        }
        TxnResponse {
            revision: 0,
            succeeded,
            responses,
        }
    }

    fn apply_txn(&mut self, t: &TxnRequest) -> Result<TxnResponse, MvccError> {
        let mut path = Vec::new();
        self.compare_path(t, &mut path);
        let is_write = !txn_is_read_only(t);
        if is_write {
            self.check_path(t, &path, &mut 0, true)?;
        }
        self.check_path(t, &path, &mut 0, false)?;
        let mut tx = self.begin();
        let mut resp = self.run_path(&mut tx, t, &path, &mut 0);
        resp.revision = tx.read_rev();
        self.end(tx);
        Ok(resp)
    }

    // ---- compaction --------------------------------------------------------------------

    fn compact(&mut self, rev: Revision) -> Result<CompactionResponse, MvccError> {
        if rev <= self.compact_rev {
            return Err(MvccError::Compacted);
        }
        if rev > self.current_rev {
            return Err(MvccError::FutureRevision);
        }
        self.compact_rev = rev;
        let mut available = BTreeSet::new();
        let keys: Vec<Arc<[u8]>> = self.index.keys().cloned().collect();
        for key in keys {
            let Some(ki) = self.index.get_mut(&key) else {
                continue;
            };
            ki.compact(rev, &mut available);
            if ki.is_empty() {
                self.index.remove(&key);
            }
        }
        let doomed = self
            .backend
            .remove_before(Rev::new(rev + 1, 0), |r| !available.contains(&r));
        for (r, rec) in doomed {
            self.size.remove_record(r, record_element_bytes(rec.view()));
        }
        self.size.commit();
        Ok(CompactionResponse {
            revision: self.current_rev,
        })
    }

    // ---- leases ------------------------------------------------------------------------

    fn lease_grant(
        &mut self,
        g: &LeaseGrantRequest,
        now_ms: Millis,
    ) -> Result<LeaseGrantResponse, MvccError> {
        let ttl_s = self.lessor.grant(g.id, g.ttl_s, now_ms)?;
        self.size.add_other(LEASE_ELEMENT_BYTES);
        self.size.commit();
        Ok(LeaseGrantResponse {
            revision: self.current_rev,
            id: g.id,
            ttl_s,
        })
    }

    fn lease_revoke(&mut self, id: LeaseId) -> Result<LeaseRevokeResponse, MvccError> {
        let keys: Vec<Vec<u8>> = match self.lessor.leases.get(&id) {
            None => return Err(MvccError::LeaseNotFound),
            Some(l) => l.keys.iter().cloned().collect(),
        };
        let mut tx = self.begin();
        // Only this lease holds its keys, and it goes with them.
        for k in &keys {
            self.tx_delete_live(&mut tx, k, &[]);
        }
        self.lessor.leases.remove(&id);
        self.size.remove_other(LEASE_ELEMENT_BYTES);
        if tx.changes.is_empty() {
            self.size.commit();
        }
        self.end(tx);
        Ok(LeaseRevokeResponse {
            revision: self.current_rev,
        })
    }

    /// Makes this member's lessor the primary (on becoming leader): every lease's expiry is
    /// reset to now + `extend_ms` (etcd passes the election timeout) + its TTL.
    pub fn lease_promote(&mut self, now_ms: Millis, extend_ms: Millis) {
        self.lessor.promote(now_ms, extend_ms);
    }

    /// Stops expiring leases here (on losing leadership).
    pub fn lease_demote(&mut self) {
        self.lessor.demote();
    }

    /// A keep-alive, on the leader only (not replicated, as in etcd): the lease's TTL starts
    /// again at `now_ms`. Returns the TTL.
    pub fn lease_renew(&mut self, id: LeaseId, now_ms: Millis) -> Result<i64, MvccError> {
        self.lessor.renew(id, now_ms)
    }

    /// `lease timetolive [--keys]`.
    pub fn lease_time_to_live(&self, id: LeaseId, keys: bool, now_ms: Millis) -> LeaseTimeToLive {
        self.lessor.time_to_live(id, keys, now_ms)
    }

    /// `lease list`: every lease ID, ascending.
    pub fn leases(&self) -> Vec<LeaseId> {
        self.lessor.leases.keys().copied().collect()
    }

    /// Leases whose time is up on this (primary) lessor, earliest first: the leader proposes a
    /// `LeaseRevoke` for each. Empty on a non-primary.
    pub fn expired_leases(&self, now_ms: Millis) -> Vec<LeaseId> {
        self.lessor.expired(now_ms)
    }

    // ---- alarms, quota, size ----------------------------------------------------------

    fn alarm(&mut self, a: &AlarmRequest) -> AlarmResponse {
        let member = AlarmMember {
            member_id: a.member_id,
            alarm: a.alarm,
        };
        let alarms = match a.action {
            AlarmAction::Get => self
                .alarms
                .iter()
                .filter(|m| a.alarm == AlarmType::None || m.alarm == a.alarm)
                .copied()
                .collect(),
            AlarmAction::Activate if a.alarm == AlarmType::None => Vec::new(),
            AlarmAction::Activate => {
                self.alarms.insert(member);
                vec![member]
            }
            AlarmAction::Deactivate => {
                if self.alarms.remove(&member) {
                    vec![member]
                } else {
                    Vec::new()
                }
            }
        };
        AlarmResponse { alarms }
    }

    /// Active alarms, ordered by member then type.
    pub fn alarms(&self) -> Vec<AlarmMember> {
        self.alarms.iter().copied().collect()
    }

    fn nospace_active(&self) -> bool {
        self.alarms.iter().any(|a| a.alarm == AlarmType::Nospace)
    }

    fn quota_available(&self, req: &Request) -> bool {
        let cost = quota_cost(req);
        match self.config.quota_bytes() {
            _ if cost == 0 => true,
            None => true,
            Some(quota) => self.size.size_bytes() + cost < quota,
        }
    }

    /// The check etcd's gRPC layer makes before proposing a write: `Err(NoSpace)` means the
    /// request must not be proposed and the member should propose a NOSPACE alarm.
    pub fn check_quota(&self, req: &Request) -> Result<(), MvccError> {
        if self.quota_available(req) {
            Ok(())
        } else {
            Err(MvccError::NoSpace)
        }
    }

    pub fn db_size(&self) -> DbSize {
        DbSize {
            size_bytes: self.size.size_bytes(),
            in_use_bytes: self.size.in_use_bytes(),
        }
    }

    /// `etcdctl defrag` on this member (local, not replicated).
    pub fn defrag(&mut self) {
        let records = self
            .backend
            .iter()
            .map(|(r, rec)| (r, record_element_bytes(rec)));
        self.size.defrag(records);
    }

    // ---- apply -------------------------------------------------------------------------

    /// Applies one committed request. Every member applies the same requests in the same
    /// order and gets the same state (lease expiry clocks and watchers aside).
    ///
    /// As in etcd, a put, txn or lease grant that passes the pre-proposal quota check but
    /// finds the backend over quota here IS applied and then answered `Err(NoSpace)`; the
    /// member should then propose an `Alarm` activating NOSPACE (etcd `applyEntryNormal`).
    /// While any NOSPACE alarm is active, puts, txns with top-level puts and lease grants are
    /// refused with `NoSpace` and change nothing.
    pub fn apply(&mut self, req: &Request, now_ms: Millis) -> Result<Response, MvccError> {
        validate(req)?;
        let capped = self.nospace_active() && quota_cost(req) > 0;
        if capped {
            return Err(MvccError::NoSpace);
        }
        let fits = self.quota_available(req);
        let resp = match req {
            Request::Range(r) => Response::Range(self.range_at(r, self.current_rev)?),
            Request::Put(p) => Response::Put(self.apply_put(p)?),
            Request::DeleteRange(d) => Response::DeleteRange(self.apply_delete(d)),
            Request::Txn(t) => Response::Txn(self.apply_txn(t)?),
            Request::Compaction(c) => Response::Compaction(self.compact(c.revision)?),
            Request::LeaseGrant(g) => Response::LeaseGrant(self.lease_grant(g, now_ms)?),
            Request::LeaseRevoke(r) => Response::LeaseRevoke(self.lease_revoke(r.id)?),
            Request::Alarm(a) => Response::Alarm(self.alarm(a)),
        };
        if !fits {
            return Err(MvccError::NoSpace);
        }
        Ok(resp)
    }

    // ---- watch -------------------------------------------------------------------------

    /// Starts a watcher. History from `start_revision` (if `<=` the current revision) is
    /// queued at once; a start below the compacted revision queues a cancel carrying the
    /// compact revision instead.
    pub fn watch(&mut self, req: WatchRequest) -> WatchId {
        let id = self.watchers.next_id;
        self.watchers.next_id += 1;
        let cur = self.current_rev;
        let start = req.start_revision;
        let mut w = Watcher {
            req,
            min_rev: 0,
            queue: Vec::new(),
            canceled: false,
        };
        if start == 0 || start > cur {
            w.min_rev = start.max(cur + 1);
        } else if start < self.compact_rev {
            w.canceled = true;
            w.queue.push(WatchResponse {
                watch_id: id,
                compact_revision: self.compact_rev,
                canceled: true,
                ..WatchResponse::default()
            });
        } else {
            w.queue = self.history(id, &w, start.max(1));
            w.min_rev = cur + 1;
        }
        self.watchers.by_id.insert(id, w);
        id
    }

    /// The stored events from `start` to now for watcher `w`, batched by at most
    /// [`WATCH_BATCH_MAX_REVS`] revisions.
    fn history(&self, id: WatchId, w: &Watcher, start: Revision) -> Vec<WatchResponse> {
        let mut out: Vec<WatchResponse> = Vec::new();
        let mut revs_in_batch = 0;
        let mut last_main = 0;
        for (rev, rec) in self.backend.since(Rev::new(start, 0)) {
            let kind = if rec.tombstone() {
                EventType::Delete
            } else {
                EventType::Put
            };
            if !w.covers(rec.key()) || !w.wants(kind) {
                continue;
            }
            if rev.main != last_main {
                last_main = rev.main;
                revs_in_batch += 1;
                if out.is_empty() || revs_in_batch > WATCH_BATCH_MAX_REVS {
                    revs_in_batch = 1;
                    out.push(WatchResponse {
                        watch_id: id,
                        revision: self.current_rev,
                        ..WatchResponse::default()
                    });
                }
            }
            let mut kv = rec.kv();
            if rec.tombstone() {
                kv.mod_revision = rev.main;
            }
            let prev_kv = if w.req.prev_kv && rev.main > self.compact_rev {
                self.live_kv(&kv.key, rev.main - 1)
            } else {
                None
            };
            if let Some(batch) = out.last_mut() {
                batch.events.push(Event { kind, kv, prev_kv });
            }
        }
        out
    }

    /// Takes the responses queued for a watcher (empty for an unknown ID). A canceled
    /// watcher is gone after its cancel response has been taken.
    pub fn take_watch_responses(&mut self, id: WatchId) -> Vec<WatchResponse> {
        let Some(w) = self.watchers.by_id.get_mut(&id) else {
            return Vec::new();
        };
        let out = std::mem::take(&mut w.queue);
        if w.canceled {
            self.watchers.by_id.remove(&id);
        }
        out
    }

    /// Stops a watcher; false if there was none.
    pub fn cancel_watch(&mut self, id: WatchId) -> bool {
        self.watchers.by_id.remove(&id).is_some()
    }

    /// IDs of the watchers that have responses waiting.
    pub fn watches_with_responses(&self) -> Vec<WatchId> {
        self.watchers
            .by_id
            .iter()
            .filter(|(_, w)| !w.queue.is_empty())
            .map(|(id, _)| *id)
            .collect()
    }

    // ---- hash --------------------------------------------------------------------------

    /// etcd's `HashKV` at `rev` (0 = current): CRC-32C (Castagnoli) of the bucket name `key`
    /// then each backend key and protobuf value up to `rev`, skipping records at or below
    /// the compact revision that a compaction at `rev` would drop. Matches etcd's hash
    /// bit for bit when the stored records are equal.
    pub fn hash_kv(&self, rev: Revision) -> Result<HashKv, MvccError> {
        if rev > 0 && rev <= self.compact_rev {
            return Err(MvccError::Compacted);
        }
        if rev > 0 && rev > self.current_rev {
            return Err(MvccError::FutureRevision);
        }
        let rev = if rev == 0 { self.current_rev } else { rev };
        let mut keep = BTreeSet::new();
        for ki in self.index.values() {
            ki.keep(rev, &mut keep);
        }
        let mut h = super::kv::Crc32c::default();
        h.update(b"key");
        for (r, rec) in self.backend.before(Rev::new(rev.saturating_add(1), 0)) {
            if r.main <= self.compact_rev && !keep.is_empty() && !keep.contains(&r) {
                continue;
            }
            h.update(&r.to_backend_key(rec.tombstone()));
            h.update(rec.proto());
        }
        Ok(HashKv {
            hash: h.finish(),
            revision: self.current_rev,
            compact_revision: self.compact_rev,
        })
    }
}

/// True when every op (nested too) is a range.
pub fn txn_is_read_only(t: &TxnRequest) -> bool {
    t.success.iter().chain(&t.failure).all(|op| match op {
        RequestOp::Range(_) => true,
        RequestOp::Txn(inner) => txn_is_read_only(inner),
        _ => false,
    })
}

fn compare_kv(c: &Compare, kv: &KeyValue) -> bool {
    let ord = match &c.target {
        CompareTarget::Value(v) => kv.value.as_slice().cmp(v.as_slice()),
        CompareTarget::Version(v) => kv.version.cmp(v),
        CompareTarget::Create(v) => kv.create_revision.cmp(v),
        CompareTarget::Mod(v) => kv.mod_revision.cmp(v),
        CompareTarget::Lease(v) => kv.lease.cmp(v),
    };
    match c.result {
        CompareResult::Equal => ord.is_eq(),
        CompareResult::NotEqual => ord.is_ne(),
        CompareResult::Greater => ord.is_gt(),
        CompareResult::Less => ord.is_lt(),
    }
}

/// Sorts like etcd's Range: a target other than KEY with no order means ASCEND. Ties keep
/// key order (Go's sort is unstable, so etcd leaves them unspecified).
fn sort_kvs(kvs: &mut [KeyValue], order: SortOrder, target: SortTarget) {
    let order = match (order, target) {
        (SortOrder::None, SortTarget::Key) => return,
        (SortOrder::None, _) => SortOrder::Ascend,
        (o, _) => o,
    };
    let cmp = |a: &KeyValue, b: &KeyValue| match target {
        SortTarget::Key => a.key.cmp(&b.key),
        SortTarget::Version => a.version.cmp(&b.version),
        SortTarget::Create => a.create_revision.cmp(&b.create_revision),
        SortTarget::Mod => a.mod_revision.cmp(&b.mod_revision),
        SortTarget::Value => a.value.cmp(&b.value),
    };
    if order == SortOrder::Descend {
        kvs.sort_by(|a, b| cmp(b, a));
    } else {
        kvs.sort_by(cmp);
    }
}

/// Whether `key` is in a range given etcd-style (used by callers filtering views).
pub fn in_range(key: &[u8], start: &[u8], end: &[u8]) -> bool {
    key_in_range(key, start, end)
}
