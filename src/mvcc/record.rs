//! The backend: its records in revision order, and the sharing of equal records between the
//! members that made them.

use super::kv::{KeyValue, Rev};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// One backend record: a revision of a key, or a tombstone (whose `kv` has only the key).
/// Held as etcd's bbolt holds it, the marshaled `mvccpb.KeyValue` (after one byte for the
/// tombstone mark) in a single shared buffer: about half the bytes of the decoded fields,
/// and every copy of the backend shares it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RecordFields", into = "RecordFields")]
pub(crate) struct Record(Arc<[u8]>);

/// A record as snapshot bytes write it.
#[derive(Serialize, Deserialize)]
struct RecordFields {
    tombstone: bool,
    kv: KeyValue,
}

impl Record {
    pub fn new(tombstone: bool, kv: &KeyValue) -> Record {
        let mut buf = Vec::with_capacity(1 + kv.proto_len());
        buf.push(u8::from(tombstone));
        kv.encode_proto(&mut buf);
        shared(buf)
    }

    pub fn tombstone(&self) -> bool {
        self.0.first() == Some(&1)
    }

    /// The protobuf value etcd's backend stores for this revision.
    pub fn proto(&self) -> &[u8] {
        self.0.get(1..).unwrap_or_default()
    }

    pub fn key(&self) -> &[u8] {
        KeyValue::proto_key(self.proto())
    }

    pub fn kv(&self) -> KeyValue {
        // Only `Record::new` makes the bytes, so they always decode.
        KeyValue::decode_proto(self.proto()).unwrap_or_default()
    }

    pub fn stored_value_len(&self) -> usize {
        self.proto().len()
    }
}

impl From<RecordFields> for Record {
    fn from(f: RecordFields) -> Record {
        Record::new(f.tombstone, &f.kv)
    }
}

impl From<Record> for RecordFields {
    fn from(r: Record) -> RecordFields {
        RecordFields {
            tombstone: r.tombstone(),
            kv: r.kv(),
        }
    }
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("tombstone", &self.tombstone())
            .field("kv", &self.kv())
            .finish()
    }
}

/// The backend's key bucket: every record, in revision order. Revisions only grow, so a
/// persistent vector holds them packed, and a copy (a snapshot, a time-travel checkpoint)
/// shares all of it but the last chunk; an ordered map filled in order leaves its nodes half
/// empty.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Backend(imbl::Vector<(Rev, Record)>);

impl Backend {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn get(&self, rev: &Rev) -> Option<&Record> {
        let i = self.0.binary_search_by_key(rev, |(r, _)| *r).ok()?;
        self.0.get(i).map(|(_, rec)| rec)
    }

    /// Keeps `rec` at `rev` (after every record kept so far, as a write makes it).
    pub fn insert(&mut self, rev: Rev, rec: Record) {
        match self.0.back() {
            Some((last, _)) if *last >= rev => {
                match self.0.binary_search_by_key(&rev, |(r, _)| *r) {
                    Ok(i) => {
                        self.0.set(i, (rev, rec));
                    }
                    Err(i) => self.0.insert(i, (rev, rec)),
                }
            }
            _ => self.0.push_back((rev, rec)),
        }
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Rev, &Record)> + '_ {
        self.0.iter().map(|(r, rec)| (*r, rec))
    }

    /// The records from revision `from` on.
    pub fn since(&self, from: Rev) -> impl Iterator<Item = (Rev, &Record)> + '_ {
        let start = self.0.binary_search_by_key(&from, |(r, _)| *r);
        let start = start.unwrap_or_else(|i| i);
        self.0
            .focus()
            .narrow(start..)
            .into_iter()
            .map(|(r, rec)| (*r, rec))
    }

    /// The records before revision `end`.
    pub fn before(&self, end: Rev) -> impl Iterator<Item = (Rev, &Record)> + '_ {
        self.iter().take_while(move |(r, _)| *r < end)
    }

    /// Drops the records before `end` that `doomed` says to, returning them; the later ones
    /// stay shared with every copy.
    pub fn remove_before(
        &mut self,
        end: Rev,
        mut doomed: impl FnMut(Rev) -> bool,
    ) -> Vec<(Rev, Record)> {
        let split = self.0.binary_search_by_key(&end, |(r, _)| *r);
        let later = self.0.split_off(split.unwrap_or_else(|i| i));
        let mut removed = Vec::new();
        self.0.retain(|(r, rec)| {
            let gone = doomed(*r);
            if gone {
                removed.push((*r, rec.clone()));
            }
            !gone
        });
        self.0.append(later);
        removed
    }
}

/// How many recently made records are remembered for sharing, and the largest one shared:
/// members apply an entry within moments of each other, and the bound keeps what is held
/// for sharing alone under 2 MiB.
const RECENT_SLOTS: usize = 2048;
const SHARED_MAX_BYTES: usize = 1024;

thread_local! {
    // Outside any value, yet it changes no result: only whether two equal records (the same
    // entry applied by each member) point at one buffer or at copies of it.
    static RECENT: RefCell<Vec<Option<Record>>> = const { RefCell::new(Vec::new()) };
}

/// The record of `bytes`, sharing the buffer of an equal one made moments before (by another
/// member applying the same entry): every member otherwise keeps its own copy of every
/// revision.
fn shared(bytes: Vec<u8>) -> Record {
    if bytes.len() > SHARED_MAX_BYTES {
        return Record(bytes.into());
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    let slot = (h.finish() % RECENT_SLOTS as u64) as usize;
    RECENT.with_borrow_mut(|recent| {
        if recent.is_empty() {
            recent.resize(RECENT_SLOTS, None);
        }
        match &recent[slot] {
            Some(r) if *r.0 == *bytes => r.clone(),
            _ => {
                let r = Record(bytes.into());
                recent[slot] = Some(r.clone());
                r
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(key: &str, value: &str, rev: i64) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: value.into(),
            create_revision: rev,
            mod_revision: rev,
            version: 1,
            lease: 0,
        }
    }

    #[test]
    fn equal_records_share_one_buffer_and_others_do_not() {
        let a = Record::new(false, &kv("k", "v", 7));
        let b = Record::new(false, &kv("k", "v", 7));
        assert!(
            Arc::ptr_eq(&a.0, &b.0),
            "the same entry applied twice shares its record"
        );
        let tomb = Record::new(true, &kv("k", "v", 7));
        assert!(tomb.tombstone() && !a.tombstone());
        assert_eq!((tomb.kv(), a.kv()), (kv("k", "v", 7), kv("k", "v", 7)));
        let big = "x".repeat(SHARED_MAX_BYTES);
        let (c, d) = (
            Record::new(false, &kv("k", &big, 8)),
            Record::new(false, &kv("k", &big, 8)),
        );
        assert!(
            !Arc::ptr_eq(&c.0, &d.0),
            "a large record is not held for sharing"
        );
        assert_eq!(c, d);
    }

    #[test]
    fn the_backend_keeps_revision_order_and_compacts_only_before_its_bound() {
        let mut b = Backend::default();
        for main in [1, 2, 4, 5] {
            b.insert(Rev::new(main, 0), Record::new(false, &kv("k", "v", main)));
        }
        b.insert(Rev::new(3, 0), Record::new(false, &kv("k", "three", 3)));
        b.insert(Rev::new(5, 0), Record::new(true, &kv("k", "", 5)));
        let mains = |it: &mut dyn Iterator<Item = (Rev, &Record)>| -> Vec<i64> {
            it.map(|(r, _)| r.main).collect()
        };
        assert_eq!(mains(&mut b.iter()), [1, 2, 3, 4, 5]);
        assert_eq!(
            b.get(&Rev::new(3, 0)).map(|r| r.kv().value),
            Some(b"three".to_vec())
        );
        assert!(
            b.get(&Rev::new(5, 0)).is_some_and(Record::tombstone),
            "a rewrite replaces"
        );
        assert!(b.get(&Rev::new(6, 0)).is_none());
        assert_eq!(mains(&mut b.since(Rev::new(3, 0))), [3, 4, 5]);
        assert_eq!(mains(&mut b.before(Rev::new(3, 0))), [1, 2]);
        let copy = b.clone();
        let gone = b.remove_before(Rev::new(4, 0), |r| r.main != 2);
        assert_eq!(gone.len(), 2);
        assert_eq!(mains(&mut b.iter()), [2, 4, 5]);
        assert_eq!(copy.len(), 5, "a copy keeps what the original dropped");
    }
}
