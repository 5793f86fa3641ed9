//! A record per log index, packed: the checkers' registries of the entries they have seen.
//! The indexes they hold run densely from the last compaction everywhere to the newest entry,
//! so a persistent vector holds each record's entry without keys and in full chunks, shared
//! by every time-travel copy but its last chunk. (An ordered map filled in index order left
//! its nodes half empty: about 150 bytes a record, 47 MB for the three checkers after an hour
//! at 100 writes/s, before the checkpoints' copies.) The rest of a record (its term, who was
//! seen with it) is the same for a whole leader's term, so it is kept once per run of records
//! alike: a record is its entry's 24 bytes.

use super::Seen;
use crate::base::Index;

#[derive(Clone, Debug)]
pub(super) struct Ledger<V: Clone + PartialEq> {
    /// The index of `seen[0]`.
    first: Index,
    /// `None` where no record was made (an index a member skipped over by a snapshot).
    seen: imbl::Vector<Option<Seen>>,
    /// (first index, what the records from there to the next run have in common), in order;
    /// the first run starts at or before `first`.
    runs: Vec<(Index, V)>,
    len: usize,
}

impl<V: Clone + PartialEq> Default for Ledger<V> {
    fn default() -> Self {
        Ledger {
            first: 0,
            seen: imbl::Vector::new(),
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
        let at = usize::try_from(index.checked_sub(self.first)?).ok()?;
        let seen = self.seen.get(at)?.as_ref()?;
        Some((&self.runs[self.run_of(index)].1, seen))
    }

    /// The newest index with a record.
    pub fn last_index(&self) -> Option<Index> {
        let at = self.seen.iter().rposition(Option::is_some)?;
        Some(self.first + at as Index)
    }

    /// Records `v` and `seen` at `index`, in place of any record there.
    pub fn insert(&mut self, index: Index, v: V, seen: Seen) {
        if self.seen.is_empty() {
            self.first = index;
            self.runs.clear();
        }
        while index < self.first {
            self.seen.push_front(None);
            self.first -= 1;
        }
        let at = (index - self.first) as usize;
        while self.seen.len() <= at {
            self.seen.push_back(None);
        }
        if self.seen.set(at, Some(seen)).is_none() {
            self.len += 1;
        }
        self.set_run(index, v);
    }

    /// Makes `index` read `v`, and every other index read as before.
    fn set_run(&mut self, index: Index, v: V) {
        if self.runs.first().is_none_or(|(start, _)| index < *start) {
            self.runs.insert(0, (index, v));
            return;
        }
        let run = self.run_of(index);
        if self.runs[run].1 == v {
            return;
        }
        let next = self.runs.get(run + 1).map(|(start, _)| *start);
        if next != Some(index + 1) && self.slot_used(index + 1) {
            let rest = self.runs[run].1.clone();
            self.runs.insert(run + 1, (index + 1, rest));
        }
        if self.runs[run].0 == index {
            self.runs[run].1 = v;
        } else {
            self.runs.insert(run + 1, (index, v));
        }
    }

    /// Whether an index after the newest would still read a run (it reads none: new records
    /// begin their own).
    fn slot_used(&self, index: Index) -> bool {
        index < self.first + self.seen.len() as Index
    }

    /// The position in `runs` of the run holding `index` (at or after the first run's start).
    fn run_of(&self, index: Index) -> usize {
        self.runs.partition_point(|(start, _)| *start <= index) - 1
    }

    /// Drops the records at or below `through`.
    pub fn forget_through(&mut self, through: Index) {
        if self.seen.is_empty() || through < self.first {
            return;
        }
        let drop = usize::try_from(through - self.first + 1).unwrap_or(usize::MAX);
        let kept = self.seen.split_off(drop.min(self.seen.len()));
        self.len -= self.seen.iter().flatten().count();
        self.seen = kept;
        self.first = through + 1;
        let gone = self.runs.partition_point(|(start, _)| *start <= self.first) - 1;
        self.runs.drain(..gone);
    }

    /// The indexes with a record, oldest first.
    pub fn indexes(&self) -> impl Iterator<Item = Index> + '_ {
        (self.seen.iter().enumerate())
            .filter(|(_, v)| v.is_some())
            .map(|(at, _)| self.first + at as Index)
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
}
