//! The snapshot file `etcdctl snapshot save` writes (a db image: `mvcc::Store::encode` bytes)
//! and what `snapshot status` reads back from it, in the console's virtual filesystem (path
//! to bytes).

use crate::mvcc;
use std::collections::BTreeMap;
use std::fmt;

/// `snapshot status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapshotStatus {
    pub hash: u32,
    pub revision: i64,
    pub total_keys: usize,
    pub total_size: u64,
}

/// Why a snapshot file cannot be read; `Display` is etcd's text after `Error: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotFileError {
    NoSuchFile(String),
    Corrupt(mvcc::DecodeError),
}

impl fmt::Display for SnapshotFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SnapshotFileError::NoSuchFile(path) => {
                write!(f, "stat {path}: no such file or directory")
            }
            SnapshotFileError::Corrupt(e) => write!(f, "{e}"),
        }
    }
}

/// The db image stored at `path`.
pub(super) fn read_snapshot_file<'a>(
    files: &'a BTreeMap<String, Vec<u8>>,
    path: &str,
) -> Result<&'a [u8], SnapshotFileError> {
    files
        .get(path)
        .map(Vec::as_slice)
        .ok_or_else(|| SnapshotFileError::NoSuchFile(path.to_string()))
}

/// `snapshot status` of a db image.
fn snapshot_status(db: &[u8]) -> Result<SnapshotStatus, mvcc::DecodeError> {
    let store = mvcc::Store::decode(db)?;
    let hash = store.hash_kv(0).map(|h| h.hash).unwrap_or(0);
    Ok(SnapshotStatus {
        hash,
        revision: store.revision(),
        total_keys: store.bolt_key_count(),
        total_size: store.db_size().size_bytes,
    })
}

/// `snapshot status FILE`: the status of the snapshot file at `path`.
pub fn snapshot_file_status(
    files: &BTreeMap<String, Vec<u8>>,
    path: &str,
) -> Result<SnapshotStatus, SnapshotFileError> {
    snapshot_status(read_snapshot_file(files, path)?).map_err(SnapshotFileError::Corrupt)
}
