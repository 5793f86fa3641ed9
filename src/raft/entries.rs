//! A log's entries in runs of [`RUN`], each run ending at an index that is a multiple of it:
//! every member's run of the same indexes holds the same entries, so members share one (a
//! persistent vector per member kept its own copy of every entry, 12 MB of an hour at 100
//! writes/s on 3 members), and a time-travel copy shares every sealed run.

use super::log::Entry;
use crate::base::sharing::{hash_of, share, Recent};
use crate::base::Index;
use std::cell::RefCell;
use std::sync::Arc;

/// Entries per sealed run (but a log's first, which may begin anywhere).
const RUN: usize = 64;
/// Sealed runs remembered for sharing: members seal a run within moments of each other.
const RECENT_RUNS: usize = 64;

thread_local! {
    static RECENT: RefCell<Recent<Arc<[Entry]>>> = const { RefCell::new(Recent::new()) };
}

/// A log's entries, oldest first, with consecutive indexes.
#[derive(Clone, Default)]
pub struct Entries {
    /// Sealed runs: all full but the first, which ends where a full run would.
    sealed: imbl::Vector<Arc<[Entry]>>,
    /// Entries at the front of `sealed[0]` that are not in the log (compacted away).
    skip: usize,
    /// The entries after the sealed ones.
    open: Vec<Entry>,
    len: usize,
}

impl Entries {
    pub fn new() -> Entries {
        Entries::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, at: usize) -> Option<&Entry> {
        match self.locate(at) {
            Some((run, i)) => self.sealed.get(run)?.get(i),
            None => self.open.get(at - self.in_sealed()),
        }
    }

    pub fn first(&self) -> Option<&Entry> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&Entry> {
        (self.open.last()).or_else(|| self.sealed.last().and_then(|run| run.last()))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Entry> + '_ {
        (self.sealed.iter().enumerate())
            .flat_map(|(n, run)| &run[if n == 0 { self.skip } else { 0 }..])
            .chain(self.open.iter())
    }

    /// The entries from position `at` on.
    pub fn iter_from(&self, at: usize) -> impl Iterator<Item = &Entry> + '_ {
        let (run, i) = self.locate(at).unwrap_or((self.sealed.len(), 0));
        let open = at.saturating_sub(self.in_sealed()).min(self.open.len());
        (self.sealed.focus().narrow(run..).into_iter().enumerate())
            .flat_map(move |(n, run)| &run[if n == 0 { i } else { 0 }..])
            .chain(&self.open[open..])
    }

    pub fn push_back(&mut self, e: Entry) {
        if self.open.is_empty() {
            // The run's whole room at once: one allocation, not one per doubling up to it.
            self.open.reserve_exact(self.room_from(e.index));
        }
        self.open.push(e);
        self.len += 1;
        if self.open.len() == self.open_room() {
            let run = std::mem::take(&mut self.open);
            self.sealed.push_back(shared_run(run));
        }
    }

    /// Keeps the first `len` entries.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        match self.locate(len) {
            None => self.open.truncate(len - self.in_sealed()),
            Some((run, i)) => {
                let cut = self.sealed.split_off(run);
                let from = if run == 0 { self.skip } else { 0 };
                self.open = cut[0][from..i].to_vec();
                if self.sealed.is_empty() {
                    self.skip = 0;
                }
            }
        }
        self.len = len;
    }

    /// The entries after the first `n`, sharing their runs.
    pub fn skip(&self, n: usize) -> Entries {
        if n >= self.len {
            return Entries::default();
        }
        let Some((run, i)) = self.locate(n) else {
            let open = self.open[n - self.in_sealed()..].to_vec();
            return Entries {
                len: open.len(),
                open,
                ..Entries::default()
            };
        };
        Entries {
            sealed: self.sealed.skip(run),
            skip: i,
            open: self.open.clone(),
            len: self.len - n,
        }
    }

    pub fn clear(&mut self) {
        *self = Entries::default();
    }

    /// Whether `other` holds the same runs (not merely equal ones) and the same entries after.
    pub fn shares(&self, other: &Entries) -> bool {
        let same_runs = self.sealed.len() == other.sealed.len()
            && (self.sealed.iter().zip(&other.sealed)).all(|(a, b)| Arc::ptr_eq(a, b));
        self.skip == other.skip && same_runs && self.open == other.open
    }

    /// Entries in sealed runs.
    fn in_sealed(&self) -> usize {
        self.len - self.open.len()
    }

    /// The sealed run and the place in it of position `at`; None past the sealed runs.
    fn locate(&self, at: usize) -> Option<(usize, usize)> {
        if at >= self.in_sealed() {
            return None;
        }
        let first = self.sealed.front()?.len() - self.skip;
        Some(match at.checked_sub(first) {
            None => (0, self.skip + at),
            Some(after) => (1 + after / RUN, after % RUN),
        })
    }

    /// How many entries the open run takes before it is sealed: a full run's, or up to the
    /// next multiple of [`RUN`] for a log's first run.
    fn open_room(&self) -> usize {
        self.open.first().map_or(RUN, |e| self.room_from(e.index))
    }

    /// The room of an open run starting at `first`.
    fn room_from(&self, first: Index) -> usize {
        match self.sealed.is_empty() {
            true => RUN - (first.wrapping_sub(1) % RUN as u64) as usize,
            false => RUN,
        }
    }
}

/// `run` sealed, sharing an equal one another member sealed.
fn shared_run(run: Vec<Entry>) -> Arc<[Entry]> {
    let ends = |r: &[Entry]| {
        r.first()
            .zip(r.last())
            .map(|(a, b)| (a.index, a.term, b.index, b.term))
    };
    let same = |known: &Arc<[Entry]>, run: &Vec<Entry>| **known == **run;
    share(
        &RECENT,
        (RECENT_RUNS, hash_of([ends(&run)])),
        run,
        same,
        Vec::into,
    )
}

impl std::ops::Index<usize> for Entries {
    type Output = Entry;

    fn index(&self, at: usize) -> &Entry {
        match self.get(at) {
            Some(e) => e,
            None => panic!("entry {at} of {}", self.len),
        }
    }
}

impl PartialEq for Entries {
    fn eq(&self, other: &Entries) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for Entries {}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Extend<Entry> for Entries {
    fn extend<I: IntoIterator<Item = Entry>>(&mut self, entries: I) {
        for e in entries {
            self.push_back(e);
        }
    }
}

impl FromIterator<Entry> for Entries {
    fn from_iter<I: IntoIterator<Item = Entry>>(entries: I) -> Entries {
        let mut out = Entries::new();
        out.extend(entries);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::{Index, Rng};

    fn entry(index: Index, term: u64) -> Entry {
        Entry::normal(index, term, format!("put k{index}").into_bytes())
    }

    fn runs(e: &Entries) -> Vec<Arc<[Entry]>> {
        e.sealed.iter().cloned().collect()
    }

    #[test]
    fn entries_read_as_the_list_they_stand_for() {
        for seed in 0..40 {
            let mut rng = Rng::new(seed);
            let first = rng.range(1, 200);
            let (mut e, mut list) = (Entries::new(), Vec::<Entry>::new());
            let mut copies = Vec::new();
            for step in 0..800 {
                let next = list.last().map_or(first, |x| x.index + 1);
                match rng.range(0, 30) {
                    0 => {
                        let len = rng.range(0, list.len() as u64 + 3) as usize;
                        e.truncate(len);
                        list.truncate(len);
                    }
                    1 => {
                        let n = rng.range(0, list.len() as u64 + 3) as usize;
                        e = e.skip(n);
                        list.drain(..n.min(list.len()));
                    }
                    2 => copies.push((e.clone(), list.clone())),
                    3 if step % 7 == 0 => {
                        e.clear();
                        list.clear();
                    }
                    _ => {
                        let x = entry(next, 1 + step / 100);
                        e.push_back(x.clone());
                        list.push(x);
                    }
                }
                assert_eq!(e.len(), list.len(), "seed {seed}");
                assert!(e.iter().eq(list.iter()), "seed {seed} step {step}");
                assert!(e.iter().rev().eq(list.iter().rev()), "seed {seed}");
                assert_eq!((e.first(), e.last()), (list.first(), list.last()));
                let at = rng.range(0, list.len() as u64 + 2) as usize;
                assert_eq!(e.get(at), list.get(at), "seed {seed}");
                assert!(e.iter_from(at).eq(list.iter().skip(at)), "seed {seed}");
            }
            for (copy, list) in copies {
                assert!(
                    copy.iter().eq(list.iter()),
                    "seed {seed}: a copy keeps its entries"
                );
            }
        }
    }

    #[test]
    fn members_holding_the_same_entries_share_their_runs() {
        let all: Vec<Entry> = (1..=10 * RUN as Index).map(|i| entry(i, 2)).collect();
        let leader: Entries = all.iter().cloned().collect();
        let follower: Entries = all.iter().cloned().collect();
        // A member that began from a snapshot at 100: its first run is short, then in step.
        let late: Entries = all[100..].iter().cloned().collect();
        assert_eq!(runs(&leader).len(), 10);
        assert!(runs(&leader)
            .iter()
            .zip(runs(&follower))
            .all(|(a, b)| Arc::ptr_eq(a, &b)));
        assert_eq!(late.first().map(|e| e.index), Some(101));
        assert_eq!(runs(&late)[0].len(), 2 * RUN - 100);
        assert!(runs(&late)[1..]
            .iter()
            .zip(&runs(&leader)[2..])
            .all(|(a, b)| Arc::ptr_eq(a, b)));
        let compacted = leader.skip(150);
        assert!(Arc::ptr_eq(&runs(&compacted)[0], &runs(&leader)[2]));
        assert!(compacted.iter().eq(late.iter().skip(50)));
        assert!(leader.shares(&follower), "the same runs, not copies");
        assert!(!late.shares(&leader.skip(100)), "a first run of its own");
    }
}
