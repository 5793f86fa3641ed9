//! A member's data directory as `etcdutl snapshot restore` writes it: one entry of the
//! console's virtual filesystem (path to bytes) holding the member's new identity and its
//! restored store, which `restart m1 --data-dir DIR` starts the member from.

use super::snapshot_file::{read_snapshot_file, SnapshotFileError};
use super::{cluster_id, member_id};
use crate::mvcc;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What `snapshot restore` leaves in its data directory: the member's identity (from the
/// restore flags) and the restored store (`mvcc::Store::encode` bytes), with its leases and
/// compaction. The member must start from this, as etcd does from a restored data dir.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredDataDir {
    pub name: String,
    pub peer_urls: Vec<String>,
    pub initial_cluster_token: String,
    /// etcd's member id: sha1(sorted peer URLs + token), first 8 bytes.
    pub member_id: u64,
    /// sha1 over the sorted member ids of `--initial-cluster`.
    pub cluster_id: u64,
    /// Every member of `--initial-cluster`: (name, peer URLs).
    pub initial_cluster: Vec<(String, Vec<String>)>,
    pub db: Vec<u8>,
}

/// The restored data directory at `path` of the virtual filesystem, if there is one.
pub fn read_data_dir(files: &BTreeMap<String, Vec<u8>>, path: &str) -> Option<RestoredDataDir> {
    serde_json::from_slice(files.get(path.trim_end_matches('/'))?).ok()
}

/// `snapshot restore SNAPSHOT` as its flags ask it (etcdutl's defaults already filled in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestoreRequest<'a> {
    pub snapshot_path: &'a str,
    pub name: &'a str,
    /// Empty: `<name>.etcd`.
    pub data_dir: &'a str,
    /// `name=url,name=url,...`.
    pub initial_cluster: &'a str,
    pub initial_cluster_token: &'a str,
    /// `url,url,...`.
    pub initial_advertise_peer_urls: &'a str,
    /// As typed: etcdutl parses it only once the snapshot has been read.
    pub bump_revision: &'a str,
    pub mark_compacted: bool,
}

impl RestoreRequest<'_> {
    /// The data directory the restore writes.
    pub fn data_dir(&self) -> String {
        if self.data_dir.is_empty() {
            format!("{}.etcd", self.name)
        } else {
            self.data_dir.to_string()
        }
    }
}

/// Why a restore failed. The console prints etcdutl's text for each (with Go's quoting).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// A `--initial-cluster` part without `=`.
    BadInitialCluster(String),
    /// `--name` is not in `--initial-cluster`.
    NameNotInCluster(String),
    /// The member's URLs in `--initial-cluster` differ from `--initial-advertise-peer-urls`.
    AdvertiseMismatch {
        name: String,
        in_cluster: Vec<String>,
        advertised: Vec<String>,
    },
    DataDirExists(String),
    Snapshot(SnapshotFileError),
    /// `--bump-revision` is not an unsigned integer.
    BadBumpRevision(String),
    MarkCompactedRequired,
    MarkCompactedDisallowed,
    Store(String),
}

/// `snapshot restore`: reads the snapshot file, checks the new member's identity, and writes
/// the data directory; returns its path.
pub fn restore(
    files: &mut BTreeMap<String, Vec<u8>>,
    req: &RestoreRequest,
) -> Result<String, RestoreError> {
    let cluster = parse_initial_cluster(req.initial_cluster)?;
    let peer_urls = own_peer_urls(req, &cluster)?;
    let data_dir = req.data_dir();
    let path = data_dir.trim_end_matches('/');
    if files.contains_key(path) {
        return Err(RestoreError::DataDirExists(data_dir));
    }
    let db = restored_db(files, req)?;
    let token = req.initial_cluster_token;
    let ids: Vec<u64> = cluster.iter().map(|(_, u)| member_id(u, token)).collect();
    let dir = RestoredDataDir {
        member_id: member_id(&peer_urls, token),
        cluster_id: cluster_id(&ids),
        name: req.name.to_string(),
        peer_urls,
        initial_cluster_token: token.to_string(),
        initial_cluster: cluster,
        db,
    };
    let bytes = serde_json::to_vec(&dir).map_err(|e| RestoreError::Store(e.to_string()))?;
    files.insert(path.to_string(), bytes);
    Ok(data_dir)
}

/// `--initial-cluster` as (name, peer URLs) in order of first appearance.
fn parse_initial_cluster(text: &str) -> Result<Vec<(String, Vec<String>)>, RestoreError> {
    let mut cluster: Vec<(String, Vec<String>)> = Vec::new();
    for part in text.split(',').filter(|s| !s.is_empty()) {
        let Some((name, url)) = part.split_once('=') else {
            return Err(RestoreError::BadInitialCluster(part.to_string()));
        };
        match cluster.iter_mut().find(|(n, _)| n == name) {
            Some((_, urls)) => urls.push(url.to_string()),
            None => cluster.push((name.to_string(), vec![url.to_string()])),
        }
    }
    Ok(cluster)
}

/// The restored member's peer URLs: its entry of `--initial-cluster`, which must name the
/// URLs it advertises.
fn own_peer_urls(
    req: &RestoreRequest,
    cluster: &[(String, Vec<String>)],
) -> Result<Vec<String>, RestoreError> {
    let Some((_, in_cluster)) = cluster.iter().find(|(n, _)| n == req.name) else {
        return Err(RestoreError::NameNotInCluster(req.name.to_string()));
    };
    let advertised: Vec<String> = req
        .initial_advertise_peer_urls
        .split(',')
        .map(str::to_string)
        .collect();
    let sorted = |urls: &[String]| {
        let mut urls = urls.to_vec();
        urls.sort();
        urls
    };
    if sorted(in_cluster) != sorted(&advertised) {
        return Err(RestoreError::AdvertiseMismatch {
            name: req.name.to_string(),
            in_cluster: in_cluster.clone(),
            advertised,
        });
    }
    Ok(in_cluster.clone())
}

/// The store of the snapshot file, its revision bumped and compacted if asked.
fn restored_db(
    files: &BTreeMap<String, Vec<u8>>,
    req: &RestoreRequest,
) -> Result<Vec<u8>, RestoreError> {
    let db = read_snapshot_file(files, req.snapshot_path).map_err(RestoreError::Snapshot)?;
    let mut store = mvcc::Store::decode(db)
        .map_err(|e| RestoreError::Snapshot(SnapshotFileError::Corrupt(e)))?;
    let bump = req
        .bump_revision
        .parse::<u64>()
        .map_err(|_| RestoreError::BadBumpRevision(req.bump_revision.to_string()))?;
    match (bump, req.mark_compacted) {
        (0, false) => Ok(db.to_vec()),
        (0, true) => Err(RestoreError::MarkCompactedDisallowed),
        (_, false) => Err(RestoreError::MarkCompactedRequired),
        (_, true) => {
            store
                .bump_revision_and_compact(bump as i64)
                .map_err(|e| RestoreError::Store(e.to_string()))?;
            Ok(store.encode())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restored_identity_is_etcds() {
        let id = member_id(&["http://127.0.0.1:23804".to_string()], "restore-token");
        assert_eq!(format!("{id:x}"), "7bd0eeac1181ef69");
        assert_eq!(cluster_id(&[id]), 11679938116525535020);
    }

    fn request(snapshot_path: &str) -> RestoreRequest<'_> {
        RestoreRequest {
            snapshot_path,
            name: "m1",
            data_dir: "",
            initial_cluster: "m1=http://127.0.0.1:23804",
            initial_cluster_token: "restore-token",
            initial_advertise_peer_urls: "http://127.0.0.1:23804",
            bump_revision: "0",
            mark_compacted: false,
        }
    }

    #[test]
    fn a_restore_writes_a_data_dir_that_reads_back() {
        let db = mvcc::Store::default().encode();
        let mut files = BTreeMap::from([("snap.db".to_string(), db.clone())]);
        assert_eq!(
            restore(&mut files, &request("snap.db")),
            Ok("m1.etcd".into())
        );
        let dir = read_data_dir(&files, "m1.etcd/").expect("the restored data dir");
        assert_eq!(format!("{:x}", dir.member_id), "7bd0eeac1181ef69");
        assert_eq!((dir.name.as_str(), dir.db), ("m1", db));
        assert_eq!(
            restore(&mut files, &request("snap.db")),
            Err(RestoreError::DataDirExists("m1.etcd".into()))
        );
    }

    #[test]
    fn bad_requests_fail_before_writing() {
        let mut files = BTreeMap::new();
        let bad_cluster = RestoreRequest {
            initial_cluster: "m1",
            ..request("snap.db")
        };
        assert_eq!(
            restore(&mut files, &bad_cluster),
            Err(RestoreError::BadInitialCluster("m1".into()))
        );
        let other_name = RestoreRequest {
            name: "m2",
            ..request("snap.db")
        };
        assert_eq!(
            restore(&mut files, &other_name),
            Err(RestoreError::NameNotInCluster("m2".into()))
        );
        assert_eq!(
            restore(&mut files, &request("missing.db")),
            Err(RestoreError::Snapshot(SnapshotFileError::NoSuchFile(
                "missing.db".into()
            )))
        );
        assert!(files.is_empty());
    }
}
