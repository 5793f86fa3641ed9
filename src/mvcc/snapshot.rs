//! The replicated state as bytes (Raft snapshots, `snapshot save` / `restore`).
//!
//! Encoded with serde_json: the backend records, the compact and current revisions, the
//! leases (ID and TTL; their keys are re-attached from the records, their expiry clock is not
//! state), the alarms, the config and the size model. Decoding rebuilds the key index from the
//! records the way etcd's `store.restore` does, and refuses inconsistent input instead of
//! panicking. Watchers are not part of it.

use super::key_index::KeyIndex;
use super::kv::{KeyValue, LeaseId, Rev};
use super::lease::Lessor;
use super::record::{Backend, Record, RecordRef};
use super::request::AlarmMember;
use super::size::SizeModel;
use super::store::{Store, StoreConfig};
use super::watch::Watchers;
use super::DecodeError;
use crate::base::Revision;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

const FORMAT: u32 = 1;

/// The replicated state, with its records as `R`: a list when read from bytes, the store's
/// own backend in an image.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SnapshotData<R> {
    format: u32,
    config: StoreConfig,
    current_rev: Revision,
    compact_rev: Revision,
    records: R,
    leases: Vec<(LeaseId, i64)>,
    alarms: Vec<AlarmMember>,
    size: SizeModel,
    #[serde(default)]
    server_keys: BTreeMap<String, BTreeSet<Vec<u8>>>,
}

/// The backend's records, written as the list `(Rev, Record)` pairs that decoding reads.
#[derive(Clone, Debug)]
struct Records(Backend);

impl Serialize for Records {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter())
    }
}

/// The replicated state of a store as a snapshot holds it: a copy that shares the store's
/// records, so taking one costs next to nothing and the bytes are made only when asked for.
#[derive(Clone, Debug)]
pub struct StoreImage(SnapshotData<Records>);

impl StoreImage {
    /// The bytes [`Store::decode`] reads.
    pub fn encode(&self) -> Vec<u8> {
        match serde_json::to_vec(&self.0) {
            Ok(bytes) => bytes,
            Err(e) => panic!("snapshot data always serializes: {e}"),
        }
    }

    /// The store this image restores to: exactly what decoding its bytes gives, with the
    /// records shared instead of copied.
    pub fn restore(&self) -> Result<Store, DecodeError> {
        let backend = &self.0.records.0;
        rebuild(&self.0, backend.iter(), Some(backend))
    }
}

fn bad(msg: impl Into<String>) -> DecodeError {
    DecodeError(msg.into())
}

impl Store {
    /// The replicated state, sharing this store's records.
    pub fn image(&self) -> StoreImage {
        StoreImage(SnapshotData {
            format: FORMAT,
            config: self.config.clone(),
            current_rev: self.current_rev,
            compact_rev: self.compact_rev,
            records: Records(self.backend.clone()),
            leases: self
                .lessor
                .leases
                .values()
                .map(|l| (l.id, l.ttl_s))
                .collect(),
            alarms: self.alarms.iter().copied().collect(),
            size: self.size.clone(),
            server_keys: self.server_keys.clone(),
        })
    }

    /// The replicated state as bytes.
    pub fn encode(&self) -> Vec<u8> {
        self.image().encode()
    }

    /// A store from [`Store::encode`]'s bytes. Its lessor is not primary (leases do not
    /// expire until `lease_promote`) and it has no watchers.
    pub fn decode(bytes: &[u8]) -> Result<Store, DecodeError> {
        let mut data: SnapshotData<Vec<(Rev, Record)>> =
            serde_json::from_slice(bytes).map_err(|e| bad(format!("not a store: {e}")))?;
        let records = std::mem::take(&mut data.records);
        let records = records.iter().map(|(r, rec)| (*r, rec.view()));
        rebuild(&data, records, None)
    }
}

/// A store from replicated state, checked as etcd's `store.restore` would meet it: the key
/// index rebuilt from the records, the leases re-attached to their keys. Given the
/// `backend` the records come from, the store shares it instead of building its own.
fn rebuild<'a, R>(
    data: &SnapshotData<R>,
    records: impl Iterator<Item = (Rev, RecordRef<'a>)>,
    backend: Option<&Backend>,
) -> Result<Store, DecodeError> {
    if data.format != FORMAT {
        return Err(bad(format!("unknown format {}", data.format)));
    }
    if data.current_rev < 1 || data.compact_rev < -1 || data.compact_rev > data.current_rev {
        return Err(bad("revisions out of order"));
    }
    let mut store = Store::new(data.config.clone());
    store.current_rev = data.current_rev;
    store.compact_rev = data.compact_rev;
    store.server_keys = data.server_keys.clone();
    store.size = data.size.clone();
    store.alarms = data.alarms.iter().copied().collect();
    for &(id, ttl_s) in &data.leases {
        if id == 0 || store.lessor.leases.contains_key(&id) {
            return Err(bad(format!("bad lease {id}")));
        }
        let lessor: &mut Lessor = &mut store.lessor;
        lessor.leases.insert(
            id,
            super::lease::Lease {
                id,
                ttl_s,
                expiry_ms: None,
                keys: imbl::OrdSet::new(),
            },
        );
    }
    let mut last: Option<Rev> = None;
    let mut key_lease: BTreeMap<Vec<u8>, LeaseId> = BTreeMap::new();
    for (rev, rec) in records {
        if last.is_some_and(|l| rev <= l) || rev.main < 1 || rev.main > data.current_rev {
            return Err(bad(format!("record at {rev:?} out of order")));
        }
        last = Some(rev);
        let kv = rec.kv();
        restore_record(&mut store.index, rev, rec.tombstone(), &kv)?;
        if rec.tombstone() || kv.lease == 0 {
            key_lease.remove(&kv.key);
        } else {
            key_lease.insert(kv.key, kv.lease);
        }
        if backend.is_none() {
            store.backend.insert(rev, rec);
        }
    }
    if let Some(backend) = backend {
        store.backend = backend.clone();
    }
    for (key, lease) in key_lease {
        store.lessor.attach(lease, &key);
    }
    store.size.check(store.backend.len()).map_err(bad)?;
    store.watchers = Watchers::default();
    Ok(store)
}

fn restore_record(
    index: &mut imbl::OrdMap<std::sync::Arc<[u8]>, KeyIndex>,
    rev: Rev,
    tombstone: bool,
    kv: &KeyValue,
) -> Result<(), DecodeError> {
    if kv.key.is_empty() {
        return Err(bad(format!("record at {rev:?} has no key")));
    }
    let refused = |e| bad(format!("record at {rev:?}: {e:?}"));
    if tombstone {
        // etcd ignores a tombstone for a key it has not seen.
        if let Some(ki) = index.get_mut(kv.key.as_slice()) {
            ki.tombstone(rev).map_err(refused)?;
        }
        return Ok(());
    }
    if kv.mod_revision != rev.main || kv.version < 1 || kv.create_revision > rev.main {
        return Err(bad(format!(
            "record at {rev:?} disagrees with its revision"
        )));
    }
    match index.get_mut(kv.key.as_slice()) {
        Some(ki) if ki.is_live() => ki.put(rev).map_err(refused),
        Some(ki) => ki
            .restore(Rev::new(kv.create_revision, 0), rev, kv.version)
            .map_err(refused),
        None => {
            let mut ki = KeyIndex::default();
            ki.restore(Rev::new(kv.create_revision, 0), rev, kv.version)
                .map_err(refused)?;
            index.insert(kv.key.as_slice().into(), ki);
            Ok(())
        }
    }
}
