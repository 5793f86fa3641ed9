//! The backend: its records in revision order, and the sharing of equal records between the
//! members that made them.

use super::kv::{KeyValue, Rev, RevList};
use crate::base::sharing::{hash_of, share, Recent};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::sync::Arc;

/// One backend record: a revision of a key, or a tombstone (whose `kv` has only the key).
/// Held as etcd's bbolt holds it, the marshaled `mvccpb.KeyValue` (after one byte for the
/// tombstone mark): about half the bytes of the decoded fields. The backend packs these
/// bytes into its runs; this is one on its own (made by a write, read from a snapshot).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "RecordFields", into = "RecordFields")]
pub(crate) struct Record(Box<[u8]>);

/// A record where it is kept: its bytes in a run of the backend, or a [`Record`]'s.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct RecordRef<'a>(&'a [u8]);

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
        Record(buf.into())
    }

    pub fn view(&self) -> RecordRef<'_> {
        RecordRef(&self.0)
    }
}

impl<'a> RecordRef<'a> {
    pub fn tombstone(self) -> bool {
        self.0.first() == Some(&1)
    }

    /// The protobuf value etcd's backend stores for this revision.
    pub fn proto(self) -> &'a [u8] {
        self.0.get(1..).unwrap_or_default()
    }

    pub fn key(self) -> &'a [u8] {
        KeyValue::proto_key(self.proto())
    }

    pub fn kv(self) -> KeyValue {
        // Only `Record::new` makes the bytes, so they always decode.
        KeyValue::decode_proto(self.proto()).unwrap_or_default()
    }

    pub fn stored_value_len(self) -> usize {
        self.proto().len()
    }

    pub fn to_owned(self) -> Record {
        Record(self.0.into())
    }
}

impl From<RecordFields> for Record {
    fn from(f: RecordFields) -> Record {
        Record::new(f.tombstone, &f.kv)
    }
}

impl From<Record> for RecordFields {
    fn from(r: Record) -> RecordFields {
        RecordFields::of(r.view())
    }
}

impl RecordFields {
    fn of(r: RecordRef<'_>) -> RecordFields {
        RecordFields {
            tombstone: r.tombstone(),
            kv: r.kv(),
        }
    }
}

impl Serialize for RecordRef<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RecordFields::of(*self).serialize(serializer)
    }
}

impl std::fmt::Debug for RecordRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record")
            .field("tombstone", &self.tombstone())
            .field("kv", &self.kv())
            .finish()
    }
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.view().fmt(f)
    }
}

/// Records in a full run: a run is what a copy of the backend (a snapshot, a time-travel
/// checkpoint) shares with it, and what members that wrote the same records share.
const RUN: usize = 64;
/// Runs remembered for sharing: members seal a run within moments of each other.
const RECENT_RUNS: usize = 64;

/// Records in revision order, packed: their revisions, where each one's bytes end, and the
/// bytes one after another (a buffer per record cost 64 bytes of heap for ~35 of record, and
/// an hour at 100 writes/s makes 360,000 of them).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Run {
    revs: RevList,
    ends: Vec<u32>,
    bytes: Vec<u8>,
}

impl Run {
    fn len(&self) -> usize {
        self.revs.len()
    }

    fn is_empty(&self) -> bool {
        self.revs.is_empty()
    }

    fn first(&self) -> Option<Rev> {
        self.revs.first()
    }

    fn last(&self) -> Option<Rev> {
        self.revs.last()
    }

    fn push(&mut self, rev: Rev, rec: RecordRef<'_>) {
        self.bytes.extend_from_slice(rec.0);
        self.revs.push(rev);
        self.ends.push(self.bytes.len() as u32);
    }

    fn at(&self, i: usize) -> (Rev, RecordRef<'_>) {
        let start = i.checked_sub(1).map_or(0, |j| self.ends[j] as usize);
        let bytes = &self.bytes[start..self.ends[i] as usize];
        (self.revs.get(i).unwrap_or_default(), RecordRef(bytes))
    }

    fn get(&self, rev: &Rev) -> Option<RecordRef<'_>> {
        let i = self.revs.binary_search(rev).ok()?;
        Some(self.at(i).1)
    }

    fn iter(&self) -> impl DoubleEndedIterator<Item = (Rev, RecordRef<'_>)> + '_ {
        (0..self.len()).map(|i| self.at(i))
    }
}

/// A sealed run, never empty.
type Sealed = Arc<Run>;

/// The backend's key bucket: every record, in revision order, in sealed runs (full when
/// written, shorter once a compaction dropped some of their records) and an open one.
/// Revisions only grow, so runs fill in order; a copy shares every sealed run, and members
/// that wrote the same records share their runs too (a persistent vector per member kept a
/// copy of every record's place in each).
#[derive(Clone, Debug, Default)]
pub(crate) struct Backend {
    sealed: imbl::Vector<Sealed>,
    open: Run,
    len: usize,
}

impl PartialEq for Backend {
    fn eq(&self, other: &Backend) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Backend {}

impl Backend {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, rev: &Rev) -> Option<RecordRef<'_>> {
        match self.open.first() {
            Some(first) if first <= *rev => self.open.get(rev),
            _ => self
                .sealed
                .get(self.runs_from_at_or_below(*rev).checked_sub(1)?)?
                .get(rev),
        }
    }

    /// Keeps `rec` at `rev` (after every record kept so far, as a write makes it).
    pub fn insert(&mut self, rev: Rev, rec: RecordRef<'_>) {
        if self.last().is_some_and(|last| last >= rev) {
            // Never from a write (revisions only grow): rebuilt, not patched.
            let mut all: Vec<(Rev, Record)> = self.iter().map(|(r, x)| (r, x.to_owned())).collect();
            match all.binary_search_by_key(&rev, |(r, _)| *r) {
                Ok(i) => all[i] = (rev, rec.to_owned()),
                Err(i) => all.insert(i, (rev, rec.to_owned())),
            }
            *self = Backend::default();
            for (r, x) in &all {
                self.insert(*r, x.view());
            }
            return;
        }
        self.open.push(rev, rec);
        self.len += 1;
        if self.open.len() == RUN {
            let run = std::mem::take(&mut self.open);
            self.sealed.push_back(shared_run(run));
        }
    }

    fn last(&self) -> Option<Rev> {
        self.open
            .last()
            .or_else(|| self.sealed.last().and_then(|run| run.last()))
    }

    /// How many sealed runs begin at or below `rev`.
    fn runs_from_at_or_below(&self, rev: Rev) -> usize {
        self.runs_where(|first| first <= rev)
    }

    /// How many sealed runs begin where `starts` holds (true for a prefix of them).
    fn runs_where(&self, starts: impl Fn(Rev) -> bool) -> usize {
        let (mut low, mut high) = (0, self.sealed.len());
        while low < high {
            let mid = (low + high) / 2;
            let first = self.sealed.get(mid).and_then(|run| run.first());
            if first.is_some_and(&starts) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (Rev, RecordRef<'_>)> + '_ {
        (self.sealed.iter().flat_map(|run| run.iter())).chain(self.open.iter())
    }

    /// The records from revision `from` on.
    pub fn since(&self, from: Rev) -> impl Iterator<Item = (Rev, RecordRef<'_>)> + '_ {
        let start = self.runs_from_at_or_below(from).saturating_sub(1);
        let runs = self.sealed.focus().narrow(start..).into_iter();
        (runs.flat_map(|run| run.iter()))
            .chain(self.open.iter())
            .skip_while(move |(r, _)| *r < from)
    }

    /// The records before revision `end`.
    pub fn before(&self, end: Rev) -> impl Iterator<Item = (Rev, RecordRef<'_>)> + '_ {
        self.iter().take_while(move |(r, _)| *r < end)
    }

    /// Drops the records before `end` that `doomed` says to, returning them; the runs that
    /// lose none stay shared with every copy.
    pub fn remove_before(
        &mut self,
        end: Rev,
        mut doomed: impl FnMut(Rev) -> bool,
    ) -> Vec<(Rev, Record)> {
        let mut removed = Vec::new();
        let mut drop = |run: &Run| -> Option<Run> {
            let gone: Vec<bool> = run.revs.iter().map(|r| r < end && doomed(r)).collect();
            if !gone.contains(&true) {
                return None;
            }
            let mut kept = Run::default();
            for ((r, rec), gone) in run.iter().zip(gone) {
                match gone {
                    true => removed.push((r, rec.to_owned())),
                    false => kept.push(r, rec),
                }
            }
            Some(kept)
        };
        let touched = self.runs_where(|first| first < end);
        let later = self.sealed.split_off(touched);
        let earlier = std::mem::take(&mut self.sealed);
        for run in earlier {
            match drop(&run) {
                None => self.sealed.push_back(run),
                Some(kept) if kept.is_empty() => {}
                Some(kept) => self.sealed.push_back(shared_run(kept)),
            }
        }
        self.sealed.append(later);
        if let Some(kept) = drop(&self.open) {
            self.open = kept;
        }
        self.len -= removed.len();
        removed
    }
}

thread_local! {
    static RECENT_RUN: RefCell<Recent<Sealed>> = const { RefCell::new(Recent::new()) };
}

/// `run` (not empty) sealed, sharing an equal one another member sealed.
fn shared_run(mut run: Run) -> Sealed {
    let hash = hash_of(run.revs.iter());
    let same = |known: &Sealed, run: &Run| **known == *run;
    run.bytes.shrink_to_fit();
    run.revs.shrink_to_fit();
    run.ends.shrink_to_fit();
    share(&RECENT_RUN, (RECENT_RUNS, hash), run, same, Arc::new)
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
    fn a_record_reads_back_as_written() {
        let tomb = Record::new(true, &kv("k", "v", 7));
        let put = Record::new(false, &kv("k", "v", 7));
        assert!(tomb.view().tombstone() && !put.view().tombstone());
        assert_eq!(
            (tomb.view().kv(), put.view().kv()),
            (kv("k", "v", 7), kv("k", "v", 7))
        );
        assert_eq!(put.view().key(), b"k");
        assert_eq!(put.view().to_owned(), put);
    }

    #[test]
    fn the_backend_keeps_revision_order_and_compacts_only_before_its_bound() {
        let mut b = Backend::default();
        for main in [1, 2, 4, 5] {
            b.insert(
                Rev::new(main, 0),
                Record::new(false, &kv("k", "v", main)).view(),
            );
        }
        b.insert(
            Rev::new(3, 0),
            Record::new(false, &kv("k", "three", 3)).view(),
        );
        b.insert(Rev::new(5, 0), Record::new(true, &kv("k", "", 5)).view());
        let mains = |it: &mut dyn Iterator<Item = (Rev, RecordRef)>| -> Vec<i64> {
            it.map(|(r, _)| r.main).collect()
        };
        assert_eq!(mains(&mut b.iter()), [1, 2, 3, 4, 5]);
        assert_eq!(
            b.get(&Rev::new(3, 0)).map(|r| r.kv().value),
            Some(b"three".to_vec())
        );
        assert!(
            b.get(&Rev::new(5, 0)).is_some_and(RecordRef::tombstone),
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

    #[test]
    fn a_backend_reads_as_the_ordered_map_it_stands_for() {
        use crate::base::Rng;
        use std::collections::BTreeMap;
        for seed in 0..40 {
            let mut rng = Rng::new(seed);
            let (mut b, mut model) = (Backend::default(), BTreeMap::<Rev, Record>::new());
            let mut copies = Vec::new();
            let mut next: i64 = 1;
            for step in 0..600 {
                let top = next as u64 + 2;
                match rng.range(0, 20) {
                    0 => {
                        let end = Rev::new(rng.range(0, top) as i64, 0);
                        let parity = rng.range(0, 2) as i64;
                        let doomed = |r: Rev| r.main % 2 == parity;
                        let gone = b.remove_before(end, doomed);
                        let want: Vec<Rev> = model
                            .range(..end)
                            .map(|(r, _)| *r)
                            .filter(|r| doomed(*r))
                            .collect();
                        model.retain(|r, _| !(*r < end && doomed(*r)));
                        let gone: Vec<Rev> = gone.into_iter().map(|(r, _)| r).collect();
                        assert_eq!(gone, want, "seed {seed}");
                    }
                    1 => {
                        let rev = Rev::new(rng.range(1, top) as i64, 0);
                        let rec = Record::new(false, &kv("k", &format!("{step}"), rev.main));
                        b.insert(rev, rec.view());
                        model.insert(rev, rec);
                    }
                    2 => copies.push((b.clone(), model.clone())),
                    _ => {
                        let rev = Rev::new(next, 0);
                        next += 1;
                        let rec = Record::new(false, &kv("k", "v", rev.main));
                        b.insert(rev, rec.view());
                        model.insert(rev, rec);
                    }
                }
                assert_eq!(b.len(), model.len(), "seed {seed}");
                assert!(b.iter().eq(model.iter().map(|(r, x)| (*r, x.view()))));
                assert!(b
                    .iter()
                    .rev()
                    .eq(model.iter().rev().map(|(r, x)| (*r, x.view()))));
                let at = Rev::new(rng.range(0, top) as i64, 0);
                assert_eq!(b.get(&at), model.get(&at).map(Record::view), "seed {seed}");
                assert!(b
                    .since(at)
                    .eq(model.range(at..).map(|(r, x)| (*r, x.view()))));
                assert!(b
                    .before(at)
                    .eq(model.range(..at).map(|(r, x)| (*r, x.view()))));
            }
            for (copy, model) in copies {
                assert!(
                    copy.iter().eq(model.iter().map(|(r, x)| (*r, x.view()))),
                    "seed {seed}"
                );
            }
        }
    }

    #[test]
    fn members_writing_the_same_records_share_their_runs() {
        let (mut a, mut b) = (Backend::default(), Backend::default());
        for main in 1..=3 * RUN as i64 {
            for backend in [&mut a, &mut b] {
                backend.insert(
                    Rev::new(main, 0),
                    Record::new(false, &kv("k", "v", main)).view(),
                );
            }
        }
        let runs = |x: &Backend| x.sealed.iter().cloned().collect::<Vec<Sealed>>();
        assert_eq!(runs(&a).len(), 3);
        assert!(runs(&a)
            .iter()
            .zip(runs(&b))
            .all(|(x, y)| Arc::ptr_eq(x, &y)));
        a.remove_before(Rev::new(10, 0), |r| r.main % 2 == 0);
        b.remove_before(Rev::new(10, 0), |r| r.main % 2 == 0);
        assert_eq!(a, b);
        assert!(
            runs(&a)
                .iter()
                .zip(runs(&b))
                .all(|(x, y)| Arc::ptr_eq(x, &y)),
            "a compaction both made shares its new run, and the others stay shared"
        );
    }
}
