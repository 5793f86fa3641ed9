//! A model of etcd's bbolt file, in 4 KiB pages: `dbSize` (the file's page high-water mark)
//! and `dbSizeInUse` (the pages not on the freelist), as etcd 3.4 reports them.
//!
//! Hand-written because the quota counts the file, not the data: the copy-on-write pages a
//! commit frees stay in the file, so an early `alarm disarm` still finds it over quota, as in
//! etcd. What it keeps of bbolt:
//! - Every commit (one per write, as when puts come slower than etcd's 100 ms batch) writes
//!   new pages for the nodes it changed: the root page (etcd's small buckets are inline in it
//!   and its `meta` bucket changes on every apply) and, once the key bucket outgrows inline
//!   (1 KiB), its last leaf and the branch pages above it. The old pages are freed, and become
//!   reusable at the next commit.
//! - Pages are taken first-fit from contiguous free runs, else from the end of the file.
//! - The key bucket's records (revision keys, appended in order) fill leaves as bbolt splits
//!   them: a node over a page with more than 4 elements splits at 90 % of a page. So a few
//!   64 KiB values share one leaf that every new put rewrites.
//! - Defrag rewrites the file: its data packed, 2 meta and 2 free pages.
//!
//! What it approximates: the small buckets (leases and etcd's own) fill the root page and then
//! whole pages that no commit rewrites; a compaction rewrites every branch page and merges a
//! leaf under a quarter page into its neighbour, never splitting the result.
//! Measured against etcd 3.4.23 with one write per commit: 120 small puts give the same
//! `dbSize`/`dbSizeInUse` at every revision, and 64 KiB puts the same at every revision until
//! the 1 MiB quota stops them (see the tests).

use super::kv::Rev;
use serde::{Deserialize, Serialize};

pub const PAGE_BYTES: u64 = 4096;
const PAGE_HEADER_BYTES: u64 = 16;
const ELEMENT_HEADER_BYTES: u64 = 16;
/// bbolt's split threshold for etcd's buckets (`FillPercent = 0.9`).
const FILL_BYTES: u64 = PAGE_BYTES * 9 / 10;
/// A bucket stays inline in its parent's page while it is at most a quarter page.
const INLINE_MAX_BYTES: u64 = PAGE_BYTES / 4;
/// bbolt's `minKeysPerPage`: a node of at most twice this many elements never splits.
const MIN_KEYS: usize = 2;
const REVISION_KEY_BYTES: u64 = 17;
const BRANCH_FANOUT: u64 = FILL_BYTES / (ELEMENT_HEADER_BYTES + REVISION_KEY_BYTES);
/// etcd's largest quota (8 GiB) in pages: no file of a member is larger.
const MAX_PAGES: u64 = (8 << 30) / PAGE_BYTES;
/// etcd's own records on a fresh member (members, cluster version, meta, ...).
const BOOTSTRAP_BYTES: u64 = 512;

/// Bytes a record of `key_len` + `value_len` takes in its leaf.
pub const fn element_bytes(key_len: usize, value_len: usize) -> u64 {
    ELEMENT_HEADER_BYTES + key_len as u64 + value_len as u64
}

fn pages_for(element_bytes: u64) -> u64 {
    (PAGE_HEADER_BYTES + element_bytes)
        .div_ceil(PAGE_BYTES)
        .max(1)
}

/// A run of pages: its first page id and length.
type Run = (u64, u64);

/// The file's pages: the high-water mark, the free runs (sorted, merged) and the runs freed
/// by the last commit, which no transaction may reuse until the next one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Pages {
    high_water: u64,
    free: Vec<Run>,
    pending: Vec<Run>,
}

impl Pages {
    fn free_pages(&self) -> u64 {
        self.free.iter().map(|r| r.1).sum()
    }

    fn release(&mut self) {
        let pending = std::mem::take(&mut self.pending);
        self.free.extend(pending);
        self.free.sort_unstable();
        let mut merged: Vec<Run> = Vec::with_capacity(self.free.len());
        for (at, n) in self.free.drain(..) {
            match merged.last_mut() {
                Some(last) if last.0 + last.1 == at => last.1 += n,
                _ => merged.push((at, n)),
            }
        }
        self.free = merged;
    }

    fn allocate(&mut self, n: u64) -> u64 {
        if let Some(i) = self.free.iter().position(|r| r.1 >= n) {
            let (at, len) = self.free[i];
            if len == n {
                self.free.remove(i);
            } else {
                self.free[i] = (at + n, len - n);
            }
            return at;
        }
        let at = self.high_water;
        self.high_water += n;
        at
    }

    fn discard(&mut self, run: Run) {
        if run.1 > 0 {
            self.pending.push(run);
        }
    }

    /// Frees `old` and takes `n` pages in its place.
    fn rewrite(&mut self, old: Run, n: u64) -> Run {
        self.discard(old);
        (self.allocate(n), n)
    }
}

/// A leaf of the key bucket: its first revision, its elements and where it lies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Leaf {
    first: Rev,
    count: u64,
    bytes: u64,
    at: Run,
    /// Only between a change and its commit, so never in a snapshot.
    #[serde(skip)]
    dirty: bool,
}

impl Leaf {
    fn new(first: Rev, count: u64, bytes: u64) -> Leaf {
        Leaf {
            first,
            count,
            bytes,
            at: (0, 0),
            dirty: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeModel {
    pages: Pages,
    root: Run,
    /// The small buckets' bytes, and the pages they take beyond the root page.
    other_bytes: u64,
    other: Vec<Run>,
    /// The key bucket's leaves in key order; none while it is inline in the root page.
    leaves: imbl::Vector<Leaf>,
    /// The records of the last leaf (or of the inline bucket): revision and element bytes.
    tail: Vec<(Rev, u64)>,
    branches: Vec<Run>,
    /// The first leaf that may be dirty (`usize::MAX` for none): a commit spills from there.
    /// Like `removed`, only between a change and its commit, so never in a snapshot (and no
    /// `usize` in one, whose width differs between the page and the CLI).
    #[serde(skip, default = "no_leaf")]
    dirty_from: usize,
    /// A record left a leaf since the last commit, so the next one rebalances.
    #[serde(skip)]
    removed: bool,
    /// The last leaf is one whose records a rebalance merged, so the tail does not know
    /// them: the next record starts a leaf of its own (bbolt would append to this one).
    sealed_last: bool,
}

fn no_leaf() -> usize {
    usize::MAX
}

impl Default for SizeModel {
    /// A fresh member as etcd 3.4 leaves it: 2 meta pages, the root, the page its bootstrap
    /// commit freed, and one free page (`dbSize` 20480, `dbSizeInUse` 16384).
    fn default() -> Self {
        SizeModel {
            pages: Pages {
                high_water: 5,
                free: vec![(4, 1)],
                pending: vec![(3, 1)],
            },
            root: (2, 1),
            other_bytes: BOOTSTRAP_BYTES,
            other: Vec::new(),
            leaves: imbl::Vector::new(),
            tail: Vec::new(),
            branches: Vec::new(),
            dirty_from: no_leaf(),
            removed: false,
            sealed_last: false,
        }
    }
}

impl SizeModel {
    /// A record of the key bucket (a revision of a key or its tombstone) at `rev`.
    pub fn add_record(&mut self, rev: Rev, element_bytes: u64) {
        if std::mem::take(&mut self.sealed_last) {
            self.tail = vec![(rev, element_bytes)];
            self.push_leaf(Leaf::new(rev, 1, element_bytes));
            return;
        }
        self.tail.push((rev, element_bytes));
        if let Some(i) = self.leaves.len().checked_sub(1) {
            if let Some(leaf) = self.touch(i) {
                leaf.count += 1;
                leaf.bytes += element_bytes;
            }
            return;
        }
        // Inline, so the tail is at most a quarter page of records.
        let bytes = self.tail_bytes();
        if PAGE_HEADER_BYTES + bytes > INLINE_MAX_BYTES {
            let first = self.tail[0].0;
            self.push_leaf(Leaf::new(first, self.tail.len() as u64, bytes));
        }
    }

    pub fn remove_record(&mut self, rev: Rev, element_bytes: u64) {
        let last = self.leaves.len().checked_sub(1);
        let i = match self.leaves.binary_search_by(|l| l.first.cmp(&rev)) {
            Ok(i) => Some(i),
            Err(i) => i.checked_sub(1),
        };
        if i == last {
            if let Some(p) = self.tail.iter().position(|t| t.0 == rev) {
                self.tail.remove(p);
            }
        }
        self.removed |= last.is_some();
        if let Some(leaf) = i.and_then(|i| self.touch(i)) {
            leaf.count = leaf.count.saturating_sub(1);
            leaf.bytes = leaf.bytes.saturating_sub(element_bytes);
        }
    }

    /// Leaf `i`, marked to be written at the next commit.
    fn touch(&mut self, i: usize) -> Option<&mut Leaf> {
        let leaf = self.leaves.get_mut(i)?;
        leaf.dirty = true;
        self.dirty_from = self.dirty_from.min(i);
        Some(leaf)
    }

    fn push_leaf(&mut self, leaf: Leaf) {
        self.dirty_from = self.dirty_from.min(self.leaves.len());
        self.leaves.push_back(leaf);
    }

    /// A record of one of the small buckets (a lease).
    pub fn add_other(&mut self, element_bytes: u64) {
        self.other_bytes += element_bytes;
    }

    pub fn remove_other(&mut self, element_bytes: u64) {
        self.other_bytes = self.other_bytes.saturating_sub(element_bytes);
    }

    fn tail_bytes(&self) -> u64 {
        self.tail.iter().map(|t| t.1).sum()
    }

    /// One backend commit: the pages the last one freed become reusable, and every node this
    /// one changed is written to new pages.
    pub fn commit(&mut self) {
        self.pages.release();
        if self.removed {
            self.rebalance();
        }
        self.split_tail();
        let dirty = self.spill_leaves();
        self.inline_if_small();
        self.spill_branches(dirty);
        self.spill_other();
        self.root = self.pages.rewrite(self.root, 1);
    }

    /// bbolt's `splitTwo`, repeated on the last leaf while it is too big.
    fn split_tail(&mut self) {
        let mut start = 0;
        while let Some(leaf) = self.leaves.back() {
            let total = leaf.bytes;
            let elements = &self.tail[start..];
            let n = elements.len();
            if n <= 2 * MIN_KEYS || PAGE_HEADER_BYTES + total < PAGE_BYTES {
                break;
            }
            let index = split_index(elements);
            let kept: u64 = elements[..index].iter().map(|e| e.1).sum();
            if let Some(leaf) = self.touch(self.leaves.len() - 1) {
                leaf.count = index as u64;
                leaf.bytes = kept;
            }
            start += index;
            let first = self.tail[start].0;
            self.push_leaf(Leaf::new(first, (n - index) as u64, total - kept));
        }
        self.tail.drain(..start);
    }

    /// Writes the changed leaves to new pages, in key order; returns how many changed.
    fn spill_leaves(&mut self) -> usize {
        let mut dirty = 0;
        let from = std::mem::replace(&mut self.dirty_from, usize::MAX);
        for i in from..self.leaves.len() {
            if !self.leaves[i].dirty {
                continue;
            }
            if let Some(leaf) = self.leaves.get_mut(i) {
                leaf.at = self.pages.rewrite(leaf.at, pages_for(leaf.bytes));
                leaf.dirty = false;
                dirty += 1;
            }
        }
        dirty
    }

    /// A key bucket back to a quarter page goes inline again and frees its pages.
    fn inline_if_small(&mut self) {
        let small = |l: &Leaf| PAGE_HEADER_BYTES + l.bytes <= INLINE_MAX_BYTES;
        if self.leaves.len() == 1 && !self.sealed_last && self.leaves.back().is_some_and(small) {
            if let Some(leaf) = self.leaves.pop_back() {
                self.pages.discard(leaf.at);
            }
        }
    }

    /// The branch pages above the leaves: the path to a single changed leaf is rewritten,
    /// all of them when more changed.
    fn spill_branches(&mut self, dirty_leaves: usize) {
        let mut want = 0;
        let mut levels = 0;
        let mut level = self.leaves.len() as u64;
        while level > 1 {
            level = level.div_ceil(BRANCH_FANOUT);
            want += level as usize;
            levels += 1;
        }
        while self.branches.len() > want {
            if let Some(run) = self.branches.pop() {
                self.pages.discard(run);
            }
        }
        if dirty_leaves > 0 {
            let path = if dirty_leaves > 1 { want } else { levels };
            let from = self.branches.len().saturating_sub(path);
            for i in from..self.branches.len() {
                self.branches[i] = self.pages.rewrite(self.branches[i], 1);
            }
        }
        while self.branches.len() < want {
            let run = (self.pages.allocate(1), 1);
            self.branches.push(run);
        }
    }

    fn spill_other(&mut self) {
        let want = (self.other_bytes / FILL_BYTES) as usize;
        while self.other.len() > want {
            if let Some(run) = self.other.pop() {
                self.pages.discard(run);
            }
        }
        while self.other.len() < want {
            let run = (self.pages.allocate(1), 1);
            self.other.push(run);
        }
    }

    /// bbolt's rebalance after deletes: an empty leaf goes; one under a quarter page (or
    /// with one element) merges into the leaf before it, the first one takes the next.
    /// A merged leaf stays whole (bbolt would split one over a page; the pages are the same
    /// within one, and the revisions to split at are not kept).
    fn rebalance(&mut self) {
        self.removed = false;
        let mut kept: Vec<Leaf> = Vec::with_capacity(self.leaves.len());
        for leaf in std::mem::take(&mut self.leaves) {
            match kept.last_mut() {
                _ if leaf.count == 0 => self.pages.discard(leaf.at),
                Some(prev)
                    if leaf.dirty && underfilled(&leaf) || prev.dirty && underfilled(prev) =>
                {
                    prev.count += leaf.count;
                    prev.bytes += leaf.bytes;
                    prev.dirty = true;
                    self.pages.discard(leaf.at);
                }
                _ => kept.push(leaf),
            }
        }
        let tail = self.tail.len() as u64;
        self.leaves = kept.into();
        self.dirty_from = 0;
        if self.leaves.back().is_some_and(|last| last.count != tail) {
            self.tail.clear();
            self.sealed_last = true;
        }
    }

    /// `etcdctl defrag`: the file rewritten with the key bucket's records (`element_bytes` in
    /// key order) packed as bbolt's copy packs them, after 2 meta and 2 free pages.
    pub fn defrag(&mut self, records: impl Iterator<Item = (Rev, u64)>) {
        let other_bytes = self.other_bytes;
        *self = SizeModel {
            pages: Pages {
                high_water: 4,
                free: Vec::new(),
                pending: Vec::new(),
            },
            other_bytes,
            ..SizeModel::default()
        };
        let mut sealed: Vec<Leaf> = Vec::new();
        for (rev, bytes) in records {
            self.add_record(rev, bytes);
            if self.tail.len() >= 10_000 {
                self.split_tail();
                sealed.extend(self.leaves.iter().take(self.leaves.len() - 1).cloned());
                self.leaves = self.leaves.split_off(self.leaves.len() - 1);
            }
        }
        self.split_tail();
        sealed.extend(std::mem::take(&mut self.leaves));
        self.leaves = sealed.into();
        self.dirty_from = 0;
        self.root = (self.pages.allocate(1), 1);
        self.spill_other();
        let leaves = self.spill_leaves();
        self.spill_branches(leaves);
        self.pages.free = vec![(2, 2)];
    }

    /// Records in the key bucket.
    fn records(&self) -> u64 {
        match self.leaves.back() {
            Some(_) => self.leaves.iter().map(|l| l.count).sum(),
            None => self.tail.len() as u64,
        }
    }

    /// Refuses a model no member could have made for a backend of `records` records (a
    /// snapshot file is user input): every run inside the file, the file within etcd's
    /// largest quota, the leaves in order holding the records, the last one's in the tail.
    pub fn check(&self, records: usize) -> Result<(), String> {
        let hw = self.pages.high_water;
        let inside = |r: &Run| r.1 <= hw && r.0 <= hw - r.1;
        let leaf_runs = self.leaves.iter().map(|l| &l.at);
        let mut runs = self.pages.free.iter().chain(&self.pages.pending);
        let mut used = runs.clone().chain(&self.other).chain(&self.branches);
        let ok = hw <= MAX_PAGES
            && used.all(inside)
            && leaf_runs.clone().all(inside)
            && std::iter::once(&self.root).all(inside)
            && runs
                .try_fold(0, |n: u64, r| n.checked_add(r.1))
                .is_some_and(|n| n <= hw)
            && leaf_runs.map(|r| r.1).sum::<u64>() <= hw
            && self.other_bytes <= MAX_PAGES * PAGE_BYTES
            && self
                .leaves
                .iter()
                .try_fold(0, |n: u64, l| n.checked_add(l.count))
                .is_some()
            && self.records() == records as u64
            && self.leaves.iter().all(|l| {
                l.count
                    .checked_mul(ELEMENT_HEADER_BYTES)
                    .is_some_and(|b| b <= l.bytes)
            })
            && self
                .leaves
                .iter()
                .all(|l| l.bytes <= MAX_PAGES * PAGE_BYTES)
            && self
                .leaves
                .iter()
                .zip(self.leaves.iter().skip(1))
                .all(|(a, b)| a.first < b.first)
            && self
                .tail
                .iter()
                .all(|t| (ELEMENT_HEADER_BYTES..=MAX_PAGES * PAGE_BYTES).contains(&t.1))
            && match self.leaves.back() {
                Some(_) if self.sealed_last => self.tail.is_empty(),
                Some(last) => {
                    self.tail.len() as u64 == last.count && self.tail_bytes() == last.bytes
                }
                None => PAGE_HEADER_BYTES + self.tail_bytes() <= INLINE_MAX_BYTES,
            };
        if ok {
            Ok(())
        } else {
            Err("bad page model".into())
        }
    }

    /// `dbSize`: bytes of the backend file.
    pub fn size_bytes(&self) -> u64 {
        self.pages.high_water * PAGE_BYTES
    }

    /// `dbSizeInUse`: bytes of the file not on the freelist.
    pub fn in_use_bytes(&self) -> u64 {
        (self
            .pages
            .high_water
            .saturating_sub(self.pages.free_pages()))
            * PAGE_BYTES
    }
}

/// bbolt's `splitIndex`: the first node takes elements while it stays under the fill
/// threshold, at least `MIN_KEYS` and leaving at least `MIN_KEYS`.
fn split_index(elements: &[(Rev, u64)]) -> usize {
    let mut size = PAGE_HEADER_BYTES;
    let mut index = 0;
    for (i, &(_, bytes)) in elements.iter().enumerate().take(elements.len() - MIN_KEYS) {
        index = i;
        if i >= MIN_KEYS && size + bytes > FILL_BYTES {
            break;
        }
        size += bytes;
    }
    index
}

/// bbolt's rebalance threshold: a quarter page, or a leaf's minimum of one element.
fn underfilled(leaf: &Leaf) -> bool {
    PAGE_HEADER_BYTES + leaf.bytes <= PAGE_BYTES / 4 || leaf.count <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(m: &SizeModel) -> (u64, u64) {
        (m.size_bytes() / PAGE_BYTES, m.in_use_bytes() / PAGE_BYTES)
    }

    fn put(m: &mut SizeModel, main: i64, bytes: u64) {
        m.add_record(Rev::new(main, 0), bytes);
        m.commit();
    }

    #[test]
    fn fresh_member_is_20k_16k() {
        let m = SizeModel::default();
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 16384));
    }

    /// etcd 3.4.23, one member, `put k000 <40 bytes>` … `k119` each 250 ms apart (87-byte
    /// elements), `endpoint status` after each: dbSize/dbSizeInUse in pages by revision.
    #[test]
    fn small_puts_match_etcd_page_for_page() {
        let mut m = SizeModel::default();
        let mut seen = Vec::new();
        for rev in 2..=121 {
            put(&mut m, rev, 87);
            seen.push(pages(&m));
        }
        let want = |rev: usize| match rev {
            2..=12 => (5, 4),
            13 => (5, 5),
            14..=47 => (6, 6),
            48 => (8, 8),
            49..=89 => (9, 9),
            _ => (10, 10),
        };
        for (i, got) in seen.iter().enumerate() {
            assert_eq!(*got, want(i + 2), "revision {}", i + 2);
        }
    }

    /// etcd 3.4.23, one member, `--quota-backend-bytes 1048576`, `put big<i>` of 64 KiB each
    /// 300 ms apart: pages by revision until the quota refused the tenth.
    #[test]
    fn big_puts_match_etcd_page_for_page() {
        let element = element_bytes(17, 65_560);
        let want = [
            (22, 21),
            (55, 54),
            (104, 86),
            (169, 118),
            (169, 152),
            (169, 153),
            (218, 186),
            (218, 186),
            (267, 219),
        ];
        let mut m = SizeModel::default();
        for (i, w) in want.iter().enumerate() {
            put(&mut m, i as i64 + 2, element);
            assert_eq!(pages(&m), *w, "revision {}", i + 2);
        }
        assert!(m.size_bytes() > 1_048_576, "over quota after nine puts");
    }

    #[test]
    fn defrag_of_small_keyspace_is_20k_12k() {
        let mut m = SizeModel::default();
        for rev in 2..62 {
            put(&mut m, rev, 73);
        }
        assert!(m.size_bytes() > 20480);
        for rev in 2..57 {
            m.remove_record(Rev::new(rev, 0), 73);
        }
        m.commit();
        let left = (57..62).map(|r| (Rev::new(r, 0), 73));
        m.defrag(left);
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 12288));
        put(&mut m, 62, 73);
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 16384));
    }

    /// etcd 3.4.23 after the 120 puts above, `del k0 --prefix` (120 tombstones of 18-byte
    /// keys, `k000` to `k099`), then `defrag`: 10 pages, 8 in use.
    #[test]
    fn defrag_packs_what_is_left() {
        let mut m = SizeModel::default();
        let mut records = Vec::new();
        for rev in 2..=121 {
            put(&mut m, rev, 87);
            records.push((Rev::new(rev, 0), 87));
        }
        for sub in 0..100 {
            let rev = Rev::new(122, sub);
            m.add_record(rev, element_bytes(18, 6));
            records.push((rev, element_bytes(18, 6)));
        }
        m.commit();
        m.defrag(records.into_iter());
        assert_eq!(pages(&m), (10, 8));
        put(&mut m, 123, 87);
        assert_eq!(pages(&m), (11, 11));
    }

    #[test]
    fn a_compaction_frees_pages_and_keeps_the_file() {
        let mut m = SizeModel::default();
        for rev in 2..2000 {
            put(&mut m, rev, 87);
        }
        let before = pages(&m);
        for rev in 2..1990 {
            m.remove_record(Rev::new(rev, 0), 87);
        }
        m.commit();
        let pending = pages(&m);
        assert!(
            pending.1 > before.1 / 2,
            "what a commit frees is in use until the next one"
        );
        put(&mut m, 2000, 87);
        let after = pages(&m);
        assert_eq!(after.0, before.0, "the file never shrinks");
        assert!(after.1 < before.1 / 4, "{before:?} -> {after:?}");
    }

    #[test]
    fn removing_what_was_never_added_changes_nothing_it_cannot() {
        let mut m = SizeModel::default();
        m.remove_record(Rev::new(9, 0), 100);
        m.remove_other(10_000);
        m.commit();
        assert_eq!(pages(&m), (5, 4));
    }

    /// Seeded writes, compactions and defrags: after every commit the model stays one a
    /// snapshot may carry, what is in use fits the file, and only a defrag shrinks it.
    #[test]
    fn random_histories_keep_the_model_whole() {
        for seed in 0..40 {
            let mut rng = crate::base::Rng::new(seed);
            let mut m = SizeModel::default();
            let mut live: Vec<(Rev, u64)> = Vec::new();
            for main in 2..600 {
                let was = m.size_bytes();
                let step = rng.range(0, 100);
                match step {
                    0..=79 => {
                        let bytes = if rng.chance(0.1) {
                            65_600
                        } else {
                            rng.range(40, 400)
                        };
                        m.add_record(Rev::new(main, 0), bytes);
                        live.push((Rev::new(main, 0), bytes));
                    }
                    80..=94 => {
                        // A compaction: most records before a revision go, a key's latest stays.
                        let before = rng.range(0, live.len() as u64 + 1) as usize;
                        let mut kept = Vec::new();
                        for (i, (rev, bytes)) in live.drain(..).enumerate() {
                            if i < before && !rng.chance(0.2) {
                                m.remove_record(rev, bytes);
                            } else {
                                kept.push((rev, bytes));
                            }
                        }
                        live = kept;
                    }
                    _ => m.defrag(live.iter().copied()),
                }
                m.commit();
                let ctx = format!("seed {seed}, revision {main}");
                assert_eq!(m.check(live.len()), Ok(()), "{ctx}");
                assert!(m.in_use_bytes() <= m.size_bytes(), "{ctx}");
                assert!(
                    m.size_bytes() >= was || step >= 95,
                    "only a defrag shrinks, {ctx}"
                );
                let back: SizeModel = serde_json::from_str(&serde_json::to_string(&m).unwrap())
                    .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                assert_eq!(back, m, "{ctx}");
            }
        }
    }

    #[test]
    fn a_model_no_member_could_make_is_refused() {
        let mut m = SizeModel::default();
        for rev in 2..200 {
            put(&mut m, rev, 87);
        }
        assert_eq!(m.check(198), Ok(()));
        assert_eq!(m.check(197), Err("bad page model".to_string()));
        let json = serde_json::to_value(&m).unwrap();
        let spoil = |path: &[&str], v: serde_json::Value| {
            let mut j = json.clone();
            let mut at = &mut j;
            for p in path {
                at = match p.parse::<usize>() {
                    Ok(i) => &mut at[i],
                    Err(_) => &mut at[*p],
                };
            }
            *at = v;
            serde_json::from_value::<SizeModel>(j).map(|m| m.check(198))
        };
        let bad = Err("bad page model".to_string());
        let huge = serde_json::json!(u64::MAX);
        assert_eq!(spoil(&["pages", "high_water"], huge.clone()).unwrap(), bad);
        assert_eq!(
            spoil(&["pages", "free"], serde_json::json!([[0, 999]])).unwrap(),
            bad
        );
        assert_eq!(spoil(&["leaves", "0", "count"], huge.clone()).unwrap(), bad);
        assert_eq!(
            spoil(
                &["leaves", "1", "first"],
                serde_json::json!({"main": 0, "sub": 0})
            )
            .unwrap(),
            bad
        );
        assert_eq!(spoil(&["tail"], serde_json::json!([])).unwrap(), bad);
        assert_eq!(
            spoil(&["tail", "0", "1"], serde_json::json!(16)).unwrap(),
            bad
        );
        assert_eq!(
            spoil(&["root"], serde_json::json!([4, u64::MAX])).unwrap(),
            bad
        );
    }
}
