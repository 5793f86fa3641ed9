//! The in-memory index of one key's revisions, split into generations (etcd `keyIndex`).
//!
//! A generation runs from the put that creates the key to the tombstone that deletes it; the
//! last generation is the open one (empty once the key is deleted). Every revision stays
//! readable until a compaction drops it.

use super::kv::{Rev, RevList};
use crate::base::sharing::{hash_of, share, Recent};
use crate::base::Revision;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Revisions of a sealed run: a put after a checkpoint copies at most the open run.
const RUN: usize = 16;
/// Sealed runs remembered for sharing: every member seals a key's run within moments of
/// the others, and a busy cluster writes many keys in those moments.
const RECENT_SLOTS: usize = 256;

/// A sealed run, full.
type Run = Arc<RevList>;
/// A generation's sealed runs, in order.
type Runs = Arc<Vec<Run>>;

thread_local! {
    static RECENT_RUNS: RefCell<Recent<Run>> = const { RefCell::new(Recent::new()) };
    static RECENT_LISTS: RefCell<Recent<Runs>> = const { RefCell::new(Recent::new()) };
    static RECENT_KEYS: RefCell<Recent<Arc<Vec<Generation>>>> = const { RefCell::new(Recent::new()) };
}

/// One generation's revisions, oldest first, persistent: full runs of [`RUN`] are sealed and
/// shared between copies and between the members that wrote them, so a copy of the key (a
/// time-travel checkpoint, then a put) costs the open run and one pointer. (An
/// `imbl::Vector` copied a whole 64-revision chunk there, 1 KB per key written after each
/// checkpoint: most of a long run's memory.)
/// Every sealed run is full, so equal sequences have equal representations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Revs {
    sealed: Runs,
    open: RevList,
}

impl Revs {
    pub fn len(&self) -> usize {
        self.sealed.len() * RUN + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty() && self.sealed.is_empty()
    }

    /// The `n`th revision, oldest first.
    pub fn get(&self, n: usize) -> Option<Rev> {
        match self.sealed.get(n / RUN) {
            Some(run) => run.get(n % RUN),
            None => self.open.get(n - self.sealed.len() * RUN),
        }
    }

    pub fn first(&self) -> Option<Rev> {
        self.get(0)
    }

    pub fn last(&self) -> Option<Rev> {
        (self.open.last()).or_else(|| self.sealed.last().and_then(|run| run.last()))
    }

    pub fn push(&mut self, rev: Rev) {
        // Grown one at a time: every time-travel copy of the key holds its own open run, and
        // a doubling left up to half of each empty (4 MB of the hour at 100 writes/s).
        self.open.reserve_exact(1);
        self.open.push(rev);
        if self.open.len() == RUN {
            let mut run = std::mem::take(&mut self.open);
            run.shrink_to_fit();
            let same = |known: &Run, run: &RevList| **known == *run;
            let hash = hash_of(run.iter());
            let run = share(&RECENT_RUNS, (RECENT_SLOTS, hash), run, same, Arc::new);
            // Exact: the list is copied at nearly every seal (shared with a checkpoint or
            // another member), and a doubling left up to half of each copy empty.
            let list = Arc::make_mut(&mut self.sealed);
            list.reserve_exact(1);
            list.push(run);
            self.sealed = shared_list(std::mem::take(&mut self.sealed));
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Rev> + '_ {
        (0..self.len()).filter_map(|n| self.get(n))
    }

    /// Position of the newest revision whose main revision is `<= at` (they are in order).
    fn newest_at_or_below(&self, at: Revision) -> Option<usize> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = (low + high) / 2;
            if self.get(mid).is_some_and(|r| r.main <= at) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        low.checked_sub(1)
    }

    /// The revisions from position `n` on (a compaction drops the older ones).
    fn skip(&self, n: usize) -> Revs {
        let mut kept = Revs::default();
        for rev in self.iter().skip(n) {
            kept.push(rev);
        }
        kept
    }
}

/// `list` (just grown by a run), sharing an equal one another member made: members that
/// wrote a key alike hold one list of its runs, as they hold one copy of each run.
fn shared_list(list: Runs) -> Runs {
    let hash = hash_of([(list.len(), list.last().and_then(|run| run.first()))]);
    let same = |known: &Runs, list: &Runs| {
        known.len() == list.len()
            && known
                .iter()
                .zip(list.iter())
                .all(|(a, b)| Arc::ptr_eq(a, b))
    };
    share(&RECENT_LISTS, (RECENT_SLOTS, hash), list, same, |list| list)
}

/// One life of a key: created at `created`, `ver` puts so far, all its revisions in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Generation {
    pub ver: i64,
    pub created: Rev,
    // Persistent, as the index is (a Vec here made every checkpoint hold its own copy of
    // every key's whole history: memory quadratic in the run's length).
    pub revs: Revs,
}

impl Generation {
    fn is_empty(&self) -> bool {
        self.revs.is_empty()
    }

    /// Index of the newest revision whose main revision is `<= at`.
    fn newest_at_or_below(&self, at: Revision) -> Option<usize> {
        self.revs.newest_at_or_below(at)
    }
}

/// Why an index change was refused (only decode can hit these; the store never does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexError {
    /// The revision is not newer than the key's last one.
    NotNewer,
    /// A tombstone for a key that is not live.
    NotLive,
}

/// All generations of one key. Only a pointer, so that the index's tree nodes, which a
/// checkpoint followed by a put copies whole, are small (its last revision beside it was
/// 16 of 24 bytes: 1.9 MB of the hour at 100 writes/s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyIndex {
    // Shared until written: the index's tree nodes hold their keys inline, so a checkpoint
    // followed by one put copies a whole node of them; each copy is then a pointer.
    generations: Arc<Vec<Generation>>,
}

impl Default for KeyIndex {
    fn default() -> Self {
        KeyIndex {
            generations: Arc::new(vec![Generation::default()]),
        }
    }
}

impl KeyIndex {
    pub fn generations(&self) -> &[Generation] {
        &self.generations
    }

    /// The last revision that touched the key (put or tombstone).
    pub fn modified(&self) -> Rev {
        // A tombstone is the last revision of its generation; the open one after it is empty.
        (self.generations.iter().rev())
            .find_map(|g| g.revs.last())
            .unwrap_or_default()
    }

    /// True when nothing is left (a key that only had compacted-away generations).
    pub fn is_empty(&self) -> bool {
        self.generations.len() == 1 && self.generations[0].is_empty()
    }

    /// True when the open generation has a put.
    pub fn is_live(&self) -> bool {
        self.generations.last().is_some_and(|g| !g.is_empty())
    }

    /// Records a put at `rev`.
    pub fn put(&mut self, rev: Rev) -> Result<(), IndexError> {
        self.push(rev)?;
        self.share_generations();
        Ok(())
    }

    fn push(&mut self, rev: Rev) -> Result<(), IndexError> {
        if rev <= self.modified() {
            return Err(IndexError::NotNewer);
        }
        let g = self.open_generation();
        if g.revs.is_empty() {
            g.created = rev;
        }
        g.revs.push(rev);
        g.ver += 1;
        Ok(())
    }

    /// Members that wrote the key alike hold one copy of its generations: a copy per member,
    /// and one per member in every checkpoint, was most of the index's memory.
    fn share_generations(&mut self) {
        let hash = hash_of([(self.modified(), self.generations.len())]);
        let mine = self.generations.clone();
        let same = |known: &Arc<Vec<Generation>>, mine: &Arc<Vec<Generation>>| known == mine;
        self.generations = share(&RECENT_KEYS, (RECENT_SLOTS, hash), mine, same, |g| g);
    }

    /// Starts the index from a stored record (snapshot restore): created at `created`,
    /// now at `modified` with version `ver`.
    pub fn restore(&mut self, created: Rev, modified: Rev, ver: i64) -> Result<(), IndexError> {
        if modified <= self.modified() {
            return Err(IndexError::NotNewer);
        }
        let g = self.open_generation();
        if !g.revs.is_empty() {
            return Err(IndexError::NotNewer);
        }
        *g = Generation {
            ver,
            created,
            revs: Revs::default(),
        };
        g.revs.push(modified);
        Ok(())
    }

    /// Ends the open generation with a tombstone at `rev`.
    pub fn tombstone(&mut self, rev: Rev) -> Result<(), IndexError> {
        if !self.is_live() {
            return Err(IndexError::NotLive);
        }
        // One share for both changes: sharing looks the generations up and copies them.
        self.push(rev)?;
        Arc::make_mut(&mut self.generations).push(Generation::default());
        self.share_generations();
        Ok(())
    }

    fn open_generation(&mut self) -> &mut Generation {
        let generations = Arc::make_mut(&mut self.generations);
        if generations.is_empty() {
            generations.push(Generation::default());
        }
        let last = generations.len() - 1;
        &mut generations[last]
    }

    /// The generation that holds the key's state at `at`, if the key was live then
    /// (etcd `findGeneration`).
    fn find_generation(&self, at: Revision) -> Option<&Generation> {
        let last = self.generations.len().checked_sub(1)?;
        for (i, g) in self.generations.iter().enumerate().rev() {
            let (Some(first), Some(tomb)) = (g.revs.first(), g.revs.last()) else {
                continue;
            };
            if i != last && tomb.main <= at {
                return None;
            }
            if first.main <= at {
                return Some(g);
            }
        }
        None
    }

    /// `(modified, created, version)` of the key as of revision `at`, or `None` if it did not
    /// exist then (etcd `keyIndex.get`).
    pub fn get(&self, at: Revision) -> Option<(Rev, Rev, i64)> {
        let g = self.find_generation(at)?;
        let n = g.newest_at_or_below(at)?;
        Some((
            g.revs.get(n)?,
            g.created,
            g.ver - (g.revs.len() - n - 1) as i64,
        ))
    }

    /// The generation to compact at `at` and the index in it of the newest revision
    /// `<= at` (which goes into `available`) (etcd `doCompact`).
    fn do_compact(&self, at: Revision, available: &mut BTreeSet<Rev>) -> (usize, Option<usize>) {
        let mut gen_idx = 0;
        while gen_idx + 1 < self.generations.len() {
            let g = &self.generations[gen_idx];
            if g.revs.last().is_some_and(|tomb| tomb.main > at) {
                break;
            }
            gen_idx += 1;
        }
        let g = &self.generations[gen_idx];
        let rev_idx = g.newest_at_or_below(at);
        if let Some(rev) = rev_idx.and_then(|i| g.revs.get(i)) {
            available.insert(rev);
        }
        (gen_idx, rev_idx)
    }

    /// Drops every revision `<= at` except the newest one of a generation still live at `at`;
    /// generations that ended at or before `at` go entirely. The kept revisions are added to
    /// `available` (etcd `keyIndex.compact`).
    pub fn compact(&mut self, at: Revision, available: &mut BTreeSet<Rev>) {
        if self.is_empty() {
            return;
        }
        let (mut gen_idx, rev_idx) = self.do_compact(at, available);
        // A key the compaction leaves as it is stays shared with the checkpoints.
        let last_of_one = self.generations[0].revs.len() == 1 && self.generations.len() > 1;
        if gen_idx == 0 && rev_idx.is_none_or(|i| i == 0) && !last_of_one {
            return;
        }
        let generations = Arc::make_mut(&mut self.generations);
        let last = generations.len() - 1;
        let g = &mut generations[gen_idx];
        if !g.is_empty() {
            if let Some(i) = rev_idx {
                g.revs = g.revs.skip(i);
            }
            if let (1, Some(only), true) = (g.revs.len(), g.revs.first(), gen_idx != last) {
                available.remove(&only);
                gen_idx += 1;
            }
        }
        generations.drain(..gen_idx);
    }

    /// What [`KeyIndex::compact`] at `at` would keep, without changing anything (etcd `keep`).
    pub fn keep(&self, at: Revision, available: &mut BTreeSet<Rev>) {
        if self.is_empty() {
            return;
        }
        let (gen_idx, rev_idx) = self.do_compact(at, available);
        let g = &self.generations[gen_idx];
        if let Some(i) = rev_idx {
            if i + 1 == g.revs.len() && gen_idx + 1 != self.generations.len() {
                if let Some(rev) = g.revs.get(i) {
                    available.remove(&rev);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (read at, expected (modified, created, version)).
    type GetCase = (Revision, Option<(Revision, Revision, i64)>);
    /// (compact at, generations' revisions left, available).
    type CompactCase<'a> = (Revision, &'a [&'a [Revision]], &'a [Revision]);

    fn r(main: Revision) -> Rev {
        Rev::new(main, 0)
    }

    /// put 2, put 4, del 6, put 8, put 10, del 12, put 14, put 16.
    fn sample() -> KeyIndex {
        let mut ki = KeyIndex::default();
        for (m, tomb) in [
            (2, false),
            (4, false),
            (6, true),
            (8, false),
            (10, false),
            (12, true),
            (14, false),
            (16, false),
        ] {
            if tomb {
                ki.tombstone(r(m)).unwrap();
            } else {
                ki.put(r(m)).unwrap();
            }
        }
        ki
    }

    #[test]
    fn members_writing_a_key_alike_share_its_sealed_runs() {
        let (mut a, mut b) = (Revs::default(), Revs::default());
        for main in 1..=2 * RUN as Revision + 3 {
            a.push(r(main));
            b.push(r(main));
        }
        assert_eq!(a, b);
        assert_eq!(a.sealed.len(), 2);
        assert!(a
            .sealed
            .iter()
            .zip(b.sealed.iter())
            .all(|(x, y)| Arc::ptr_eq(x, y)));
        assert!(Arc::ptr_eq(&a.sealed, &b.sealed), "and one list of them");
        let copy = a.clone();
        for main in 2 * RUN as Revision + 4..=3 * RUN as Revision {
            a.push(r(main));
        }
        assert_eq!(
            (a.sealed.len(), copy.sealed.len()),
            (3, 2),
            "a copy keeps its list"
        );
        assert!(copy.iter().eq(b.iter()));
    }

    #[test]
    fn members_writing_a_key_alike_share_its_generations() {
        let (mut a, mut b) = (KeyIndex::default(), KeyIndex::default());
        for main in 1..=40 {
            for ki in [&mut a, &mut b] {
                match main % 7 {
                    0 => ki.tombstone(r(main)),
                    _ => ki.put(r(main)),
                }
                .unwrap();
            }
            assert!(Arc::ptr_eq(&a.generations, &b.generations), "at {main}");
        }
        let copy = a.clone();
        a.put(r(41)).unwrap();
        assert_eq!(copy.modified(), r(40), "a copy keeps its generations");
        assert_eq!(b.generations(), copy.generations());
    }

    #[test]
    fn get_table() {
        let ki = sample();
        // (at, expected (modified, created, version))
        let table: &[GetCase] = &[
            (1, None),
            (2, Some((2, 2, 1))),
            (3, Some((2, 2, 1))),
            (4, Some((4, 2, 2))),
            (5, Some((4, 2, 2))),
            (6, None),
            (7, None),
            (8, Some((8, 8, 1))),
            (11, Some((10, 8, 2))),
            (12, None),
            (13, None),
            (14, Some((14, 14, 1))),
            (16, Some((16, 14, 2))),
            (100, Some((16, 14, 2))),
        ];
        for &(at, want) in table {
            let got = ki.get(at).map(|(m, c, v)| (m.main, c.main, v));
            assert_eq!(got, want, "get at {at}");
        }
    }

    #[test]
    fn compact_table() {
        // (compact at, generations' revisions left, available)
        let table: &[CompactCase] = &[
            (1, &[&[2, 4, 6], &[8, 10, 12], &[14, 16]], &[]),
            (2, &[&[2, 4, 6], &[8, 10, 12], &[14, 16]], &[2]),
            (3, &[&[2, 4, 6], &[8, 10, 12], &[14, 16]], &[2]),
            (4, &[&[4, 6], &[8, 10, 12], &[14, 16]], &[4]),
            (5, &[&[4, 6], &[8, 10, 12], &[14, 16]], &[4]),
            (6, &[&[8, 10, 12], &[14, 16]], &[]),
            (7, &[&[8, 10, 12], &[14, 16]], &[]),
            (8, &[&[8, 10, 12], &[14, 16]], &[8]),
            (10, &[&[10, 12], &[14, 16]], &[10]),
            (12, &[&[14, 16]], &[]),
            (13, &[&[14, 16]], &[]),
            (14, &[&[14, 16]], &[14]),
            (16, &[&[16]], &[16]),
            (17, &[&[16]], &[16]),
        ];
        for &(at, gens, avail) in table {
            let mut ki = sample();
            let mut available = BTreeSet::new();
            let mut kept = BTreeSet::new();
            ki.keep(at, &mut kept);
            ki.compact(at, &mut available);
            let got: Vec<Vec<Revision>> = ki
                .generations()
                .iter()
                .filter(|g| !g.revs.is_empty())
                .map(|g| g.revs.iter().map(|r| r.main).collect())
                .collect();
            let want: Vec<Vec<Revision>> = gens.iter().map(|g| g.to_vec()).collect();
            assert_eq!(got, want, "generations after compact {at}");
            let avail_got: Vec<Revision> = available.iter().map(|r| r.main).collect();
            assert_eq!(avail_got, avail.to_vec(), "available after compact {at}");
            assert_eq!(kept, available, "keep == compact's available at {at}");
            // Reads at or above the compaction point are unchanged.
            let full = sample();
            for read in at..=18 {
                assert_eq!(
                    ki.get(read),
                    full.get(read),
                    "read {read} after compact {at}"
                );
            }
        }
    }

    #[test]
    fn compact_dead_key_empties_index() {
        let mut ki = KeyIndex::default();
        ki.put(r(2)).unwrap();
        ki.tombstone(r(3)).unwrap();
        let mut available = BTreeSet::new();
        ki.compact(3, &mut available);
        assert!(ki.is_empty());
        assert!(available.is_empty());
    }

    #[test]
    fn errors_instead_of_panics() {
        let mut ki = KeyIndex::default();
        assert_eq!(ki.tombstone(r(2)), Err(IndexError::NotLive));
        ki.put(r(3)).unwrap();
        assert_eq!(ki.put(r(3)), Err(IndexError::NotNewer));
        assert_eq!(ki.put(r(2)), Err(IndexError::NotNewer));
        ki.put(Rev::new(3, 1)).unwrap();
        assert_eq!(ki.get(3).map(|g| g.2), Some(2));
    }

    #[test]
    fn restore_keeps_version() {
        let mut ki = KeyIndex::default();
        ki.restore(r(5), r(9), 4).unwrap();
        assert_eq!(ki.get(9), Some((r(9), r(5), 4)));
        ki.put(r(11)).unwrap();
        assert_eq!(ki.get(11), Some((r(11), r(5), 5)));
        assert_eq!(ki.get(8), None);
    }

    #[test]
    fn revs_across_sealed_runs_read_and_skip_as_a_list() {
        let all: Vec<Rev> = (1..=3 * RUN as i64 + 5).map(|m| r(2 * m)).collect();
        let mut revs = Revs::default();
        for (n, rev) in all.iter().enumerate() {
            let copy = revs.clone();
            revs.push(*rev);
            assert_eq!(copy.len(), n, "a copy keeps its own length");
        }
        assert_eq!(revs.iter().collect::<Vec<_>>(), all);
        assert_eq!(revs.last(), all.last().copied());
        assert_eq!(revs.newest_at_or_below(1), None);
        assert_eq!(revs.newest_at_or_below(2 * RUN as i64 + 1), Some(RUN - 1));
        assert_eq!(revs.newest_at_or_below(i64::MAX), Some(all.len() - 1));
        let skipped = revs.skip(RUN + 3);
        assert_eq!(skipped.iter().collect::<Vec<_>>(), all[RUN + 3..]);
        let mut rebuilt = Revs::default();
        all[RUN + 3..].iter().for_each(|rev| rebuilt.push(*rev));
        assert_eq!(skipped, rebuilt, "one sequence, one representation");
    }
}
