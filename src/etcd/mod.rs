//! etcd members in a simulated world: each a Raft node plus the state machine its committed
//! entries are applied to (the MVCC store and the membership attributes), the cluster-wide
//! views the console, UI and checkers read, and the client API `etcdctl` uses.

mod client;
mod cluster;
mod member;

pub use client::{
    snapshot_status, ClientError, EndpointStatus, Header, MemberEntry, Reply, SnapshotStatus,
    EPOCH_UNIX_MS,
};
pub use cluster::{Cluster, ClusterConfig, MemberStatus, StatusView, REQUEST_TIMEOUT_MS};
pub use member::{
    describe_entry, Applied, Attributes, Identity, LogEvent, Member, Proposal, CLUSTER_VERSION,
    SERVER_VERSION,
};

use crate::base::MemberId;

/// etcd's `--initial-cluster-token` for simulated clusters.
pub const CLUSTER_TOKEN: &str = "raftlab";

/// Ports as in etcd's own Procfile: m1 on 2379/2380, mN on N2379/N2380.
fn port_base(id: MemberId) -> u64 {
    if id.0 <= 1 {
        0
    } else {
        id.0 * 10_000
    }
}

pub fn client_url(id: MemberId) -> String {
    format!("http://127.0.0.1:{}", port_base(id) + 2379)
}

pub fn peer_url(id: MemberId) -> String {
    format!("http://127.0.0.1:{}", port_base(id) + 2380)
}

/// etcd's member id: the first 8 bytes of sha1(sorted peer URLs + cluster token)
/// (etcdserver/api/membership/member.go `NewMember`).
pub fn etcd_id(id: MemberId) -> u64 {
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(peer_url(id).as_bytes());
    hasher.update(CLUSTER_TOKEN.as_bytes());
    let digest = hasher.digest().bytes();
    u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ])
}

/// etcd's cluster id: sha1 over the sorted member ids (membership/cluster.go `genID`).
pub fn cluster_id(members: &[MemberId]) -> u64 {
    let mut ids: Vec<u64> = members.iter().map(|m| etcd_id(*m)).collect();
    ids.sort_unstable();
    let mut hasher = sha1_smol::Sha1::new();
    for id in ids {
        hasher.update(&id.to_be_bytes());
    }
    let digest = hasher.digest().bytes();
    u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_derive_as_etcd_derives_them() {
        // The recorded single-member etcd: peer http://127.0.0.1:23800, token fixture-token.
        let mut h = sha1_smol::Sha1::new();
        h.update(b"http://127.0.0.1:23800fixture-token");
        let d = h.digest().bytes();
        let id = u64::from_be_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]]);
        assert_eq!(format!("{id:x}"), "e17f1bb8d129776f");
        assert_ne!(etcd_id(MemberId(1)), etcd_id(MemberId(2)));
        assert_eq!(client_url(MemberId(1)), "http://127.0.0.1:2379");
        assert_eq!(peer_url(MemberId(3)), "http://127.0.0.1:32380");
    }
}
