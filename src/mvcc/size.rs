//! A deterministic model of etcd's bbolt file: `dbSize` (the file's page high-water mark) and
//! `dbSizeInUse` (pages not on the freelist), in 4 KiB pages.
//!
//! Not a bbolt emulation. Each stored record (a revision of a key, a lease) costs a 16-byte
//! leaf element header plus its key and value. Small records pack into leaves filled to 90%
//! (etcd writes revisions sequentially with `FillPercent = 0.9`), one branch page per ~111
//! leaves; a record over half a page gets its own overflow pages. Pages in use =
//! 2 meta pages + data pages + 1 page of copy-on-write slack, which a freshly
//! defragmented file does not have yet. The file grows to one page above what is in use and
//! never shrinks, except by defrag, which rewrites it to in-use + 2 pages (at least 5).
//! Calibrated on etcd 3.4.23: a fresh member shows 20480/16384; after compaction and defrag
//! of a small keyspace 20480/12288; with a 1 MiB quota exactly 14 puts of 64 KiB fit.

use serde::{Deserialize, Serialize};

pub const PAGE_BYTES: u64 = 4096;
const LEAF_ELEMENT_BYTES: u64 = 16;
const LEAF_FILL_BYTES: u64 = PAGE_BYTES * 9 / 10;
const BRANCH_FANOUT: u64 = LEAF_FILL_BYTES / (LEAF_ELEMENT_BYTES + 17);
const META_PAGES: u64 = 2;
const MIN_FILE_PAGES: u64 = 5;
/// etcd's own buckets on a fresh member (meta, members, cluster version, ...).
const BOOTSTRAP_BYTES: u64 = 512;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeModel {
    small_bytes: u64,
    overflow_pages: u64,
    file_pages: u64,
    just_defragmented: bool,
}

impl Default for SizeModel {
    fn default() -> Self {
        let mut m = SizeModel {
            small_bytes: BOOTSTRAP_BYTES,
            overflow_pages: 0,
            file_pages: 0,
            just_defragmented: false,
        };
        m.file_pages = MIN_FILE_PAGES.max(m.in_use_pages() + 1);
        m
    }
}

/// Pages a record of `key_len` + `value_len` bytes takes on its own, or `None` if it packs
/// into shared leaves.
fn overflow_pages(key_len: usize, value_len: usize) -> Option<u64> {
    let elem = LEAF_ELEMENT_BYTES + key_len as u64 + value_len as u64;
    (elem > PAGE_BYTES / 2).then(|| (elem + 16).div_ceil(PAGE_BYTES))
}

impl SizeModel {
    pub fn add_record(&mut self, key_len: usize, value_len: usize) {
        match overflow_pages(key_len, value_len) {
            Some(p) => self.overflow_pages += p,
            None => self.small_bytes += LEAF_ELEMENT_BYTES + (key_len + value_len) as u64,
        }
    }

    pub fn remove_record(&mut self, key_len: usize, value_len: usize) {
        match overflow_pages(key_len, value_len) {
            Some(p) => self.overflow_pages = self.overflow_pages.saturating_sub(p),
            None => {
                let b = LEAF_ELEMENT_BYTES + (key_len + value_len) as u64;
                self.small_bytes = self.small_bytes.saturating_sub(b);
            }
        }
    }

    fn data_pages(&self) -> u64 {
        let leaves = self.small_bytes.div_ceil(LEAF_FILL_BYTES).max(1);
        let mut branches = 0;
        let mut level = leaves;
        while level > 1 {
            level = level.div_ceil(BRANCH_FANOUT);
            branches += level;
        }
        leaves + branches + self.overflow_pages
    }

    fn in_use_pages(&self) -> u64 {
        META_PAGES + self.data_pages() + u64::from(!self.just_defragmented)
    }

    /// Called after every backend commit: the file grows to cover what is in use.
    pub fn commit(&mut self) {
        self.just_defragmented = false;
        self.file_pages = self.file_pages.max(self.in_use_pages() + 1);
    }

    pub fn defrag(&mut self) {
        self.just_defragmented = true;
        self.file_pages = MIN_FILE_PAGES.max(self.in_use_pages() + 2);
    }

    /// `dbSize`: bytes of the backend file.
    pub fn size_bytes(&self) -> u64 {
        self.file_pages * PAGE_BYTES
    }

    /// `dbSizeInUse`: bytes of the file not on the freelist.
    pub fn in_use_bytes(&self) -> u64 {
        self.in_use_pages().min(self.file_pages) * PAGE_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_member_is_20k_16k() {
        let m = SizeModel::default();
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 16384));
    }

    #[test]
    fn defrag_of_small_keyspace_is_20k_12k() {
        let mut m = SizeModel::default();
        for _ in 0..60 {
            m.add_record(17, 40);
            m.commit();
        }
        assert!(m.size_bytes() > 20480);
        for _ in 0..45 {
            m.remove_record(17, 40);
        }
        m.commit();
        m.defrag();
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 12288));
        m.add_record(17, 20);
        m.commit();
        assert_eq!((m.size_bytes(), m.in_use_bytes()), (20480, 16384));
    }

    #[test]
    fn big_records_take_overflow_pages() {
        let mut m = SizeModel::default();
        m.add_record(17, 65_560);
        m.commit();
        assert_eq!(m.in_use_bytes(), (2 + 1 + 17 + 1) * PAGE_BYTES);
        m.remove_record(17, 65_560);
        m.commit();
        assert_eq!(m.in_use_bytes(), 16384);
        assert_eq!(m.size_bytes(), 22 * PAGE_BYTES);
    }
}
