//! A record per log index, packed: the checkers' registries of the entries they have seen.
//! The indexes they hold run densely from the last compaction everywhere to the newest entry,
//! so the records' entries are kept without keys in chunks of [`CHUNK`] indexes, each from a
//! multiple of it: a time-travel copy shares every chunk, and checkers that saw the same
//! entries at the same indexes (all of them, in a run without violations) share their chunks
//! too. (An ordered map filled in index order left its nodes half empty: about 150 bytes a
//! record, 47 MB for the three checkers after an hour at 100 writes/s, before the
//! checkpoints' copies.) The rest of a record (its term, who was seen with it) is the same
//! for a whole leader's term, so it is kept once per run of records alike.

use super::Seen;
use crate::base::sharing::{share, Recent};
use crate::base::Index;
use std::cell::RefCell;
use std::sync::Arc;

/// Indexes per chunk.
const CHUNK: usize = 64;
/// Full chunks remembered for sharing: the checkers fill a chunk within moments of each other.
const RECENT_CHUNKS: usize = 16;

/// [`CHUNK`] records' entries; `None` where no record was made (an index a member skipped
/// over by a snapshot, or one forgotten).
type Chunk = Arc<[Option<Seen>]>;

thread_local! {
    static RECENT: RefCell<Recent<Chunk>> = const { RefCell::new(Recent::new()) };
}

#[derive(Clone, Debug)]
pub(super) struct Ledger<V: Clone + PartialEq> {
    /// The chunk number (first index / [`CHUNK`]) of `chunks[0]`.
    base: Index,
    chunks: imbl::Vector<Chunk>,
    /// Indexes below this were forgotten.
    floor: Index,
    /// The newest index with a record (if any).
    top: Index,
    /// (first index, what the records from there to the next run have in common), in order;
    /// the first run starts at or before the first record.
    runs: Vec<(Index, V)>,
    len: usize,
}

impl<V: Clone + PartialEq> Default for Ledger<V> {
    fn default() -> Self {
        Ledger {
            base: 0,
            chunks: imbl::Vector::new(),
            floor: 0,
            top: 0,
            runs: Vec::new(),
            len: 0,
        }
    }
}

impl<V: Clone + PartialEq> Ledger<V> {
    /// Records held.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, index: Index) -> Option<(&V, &Seen)> {
        let (chunk, at) = self.locate(index)?;
        let seen = self.chunks.get(chunk)?[at].as_ref()?;
        Some((&self.runs[self.run_of(index)].1, seen))
    }

    /// The newest index with a record.
    pub fn last_index(&self) -> Option<Index> {
        (self.len > 0).then_some(self.top)
    }

    /// Records `v` and `seen` at `index`, in place of any record there.
    pub fn insert(&mut self, index: Index, v: V, seen: Seen) {
        if self.len == 0 {
            *self = Ledger::default();
        }
        let number = index / CHUNK as Index;
        if self.chunks.is_empty() {
            self.base = number;
        }
        // Chunks of a gap in the records are one until written.
        let blank = std::cell::OnceCell::new();
        let blank = || Chunk::clone(blank.get_or_init(|| vec![None; CHUNK].into()));
        while number < self.base {
            self.chunks.push_front(blank());
            self.base -= 1;
        }
        let (chunk, at) = self
            .locate(index)
            .expect("the chunks begin at or before it");
        while self.chunks.len() <= chunk {
            self.chunks.push_back(blank());
        }
        let slots = Arc::make_mut(&mut self.chunks[chunk]);
        if slots[at].replace(seen).is_none() {
            self.len += 1;
        }
        if at == CHUNK - 1 {
            let full = self.chunks[chunk].clone();
            let same = |known: &Chunk, full: &Chunk| known == full;
            self.chunks[chunk] = share(&RECENT, (RECENT_CHUNKS, number), full, same, |c| c);
        }
        self.floor = self.floor.min(index);
        let later = self.top > index;
        self.top = self.top.max(index);
        self.set_run(index, v, later);
    }

    /// Makes `index` read `v`, and every other index read as before (`later`: whether there
    /// are records after it).
    fn set_run(&mut self, index: Index, v: V, later: bool) {
        if self.runs.first().is_none_or(|(start, _)| index < *start) {
            self.runs.insert(0, (index, v));
            return;
        }
        let run = self.run_of(index);
        if self.runs[run].1 == v {
            return;
        }
        let next = self.runs.get(run + 1).map(|(start, _)| *start);
        if next != Some(index + 1) && later {
            let rest = self.runs[run].1.clone();
            self.runs.insert(run + 1, (index + 1, rest));
        }
        if self.runs[run].0 == index {
            self.runs[run].1 = v;
        } else {
            self.runs.insert(run + 1, (index, v));
        }
    }

    /// The chunk (position in `chunks`) and the slot in it of `index`; None before the first.
    fn locate(&self, index: Index) -> Option<(usize, usize)> {
        let chunk = (index / CHUNK as Index).checked_sub(self.base)?;
        Some((
            usize::try_from(chunk).ok()?,
            (index % CHUNK as Index) as usize,
        ))
    }

    /// The position in `runs` of the run holding `index` (at or after the first run's start).
    fn run_of(&self, index: Index) -> usize {
        self.runs.partition_point(|(start, _)| *start <= index) - 1
    }

    /// Drops the records at or below `through`.
    pub fn forget_through(&mut self, through: Index) {
        if self.len == 0 || through < self.floor {
            return;
        }
        self.floor = through + 1;
        let Some((chunk, at)) = self.locate(through) else {
            return;
        };
        let whole = chunk.min(self.chunks.len());
        let kept = self.chunks.split_off(whole);
        self.len -= self.chunks.iter().flat_map(|c| c.iter()).flatten().count();
        (self.chunks, self.base) = (kept, self.base + whole as Index);
        if let Some(first) = self.chunks.get_mut(0).filter(|_| whole == chunk) {
            if first[..=at].iter().any(Option::is_some) {
                let slots = &mut Arc::make_mut(first)[..=at];
                self.len -= slots.iter_mut().filter_map(Option::take).count();
            }
        }
        let dropped = self.runs.partition_point(|(start, _)| *start <= self.floor);
        self.runs.drain(..dropped.saturating_sub(1));
    }

    /// The indexes with a record, oldest first.
    pub fn indexes(&self) -> impl Iterator<Item = Index> + '_ {
        let base = self.base * CHUNK as Index;
        (self.chunks.iter().flat_map(|c| c.iter()).enumerate())
            .filter(|(_, seen)| seen.is_some())
            .map(move |(at, _)| base + at as Index)
    }
}

#[cfg(test)]
mod tests {
    use super::{Ledger, Seen};
    use crate::base::{Index, Rng};
    use std::collections::BTreeMap;

    #[test]
    fn a_ledger_reads_as_the_map_it_stands_for() {
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let (mut ledger, mut map) = (Ledger::default(), BTreeMap::<Index, (u64, u64)>::new());
            for step in 0..300u64 {
                let top = map.keys().next_back().copied().unwrap_or(20);
                // Few distinct values, so that runs form, split and are dropped.
                let v = rng.range(0, 3);
                match rng.range(0, 10) {
                    0 => {
                        let through = rng.range(0, top + 3);
                        ledger.forget_through(through);
                        map.retain(|k, _| *k > through);
                    }
                    1 => {
                        let index = rng.range(0, top + 40);
                        ledger.insert(index, v, Seen::Digest(step));
                        map.insert(index, (v, step));
                    }
                    _ => {
                        let index = top + rng.range(1, 3);
                        ledger.insert(index, v, Seen::Digest(step));
                        map.insert(index, (v, step));
                    }
                }
                assert_eq!(ledger.len(), map.len(), "seed {seed}");
                assert_eq!(ledger.last_index(), map.keys().next_back().copied());
                assert!(ledger.indexes().eq(map.keys().copied()), "seed {seed}");
                for k in 0..top + 45 {
                    let got = ledger.get(k).map(|(v, seen)| (*v, seen.digest()));
                    assert_eq!(got, map.get(&k).copied(), "seed {seed}, index {k}");
                }
                assert!(ledger.runs.len() <= map.len() * 2 + 1, "seed {seed}");
            }
        }
    }

    #[test]
    fn records_alike_share_one_run() {
        let mut ledger = Ledger::default();
        for index in 10..1_000 {
            ledger.insert(index, index / 300, Seen::Digest(index));
        }
        assert_eq!(ledger.runs.len(), 4);
        ledger.forget_through(650);
        assert_eq!(ledger.runs, [(600, 2), (900, 3)]);
        assert_eq!(ledger.get(651).map(|(v, _)| *v), Some(2));
    }

    #[test]
    fn ledgers_of_the_same_entries_share_their_chunks() {
        let (mut a, mut b, mut c) = (Ledger::default(), Ledger::default(), Ledger::default());
        for index in 100..400 {
            a.insert(index, 1, Seen::Digest(index));
            b.insert(index, 2, Seen::Digest(index));
            c.insert(index, 1, Seen::Digest(index + u64::from(index == 200)));
        }
        let shared = |x: &Ledger<u64>, y: &Ledger<u64>| {
            (x.chunks.iter().zip(&y.chunks))
                .filter(|(p, q)| std::sync::Arc::ptr_eq(p, q))
                .count()
        };
        // Chunks 1..=5 hold 100..=383; the last, open, is each ledger's own.
        assert_eq!(shared(&a, &b), 5);
        assert_eq!(
            shared(&a, &c),
            4,
            "all but the chunk where c saw another entry"
        );
        assert_eq!(
            b.get(200).map(|(v, seen)| (*v, seen.digest())),
            Some((2, 200))
        );
    }
}
