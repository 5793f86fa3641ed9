//! etcd members in a simulated world: each a Raft node plus the state machine its committed
//! entries are applied to (the MVCC store and the membership attributes), the cluster-wide
//! views the console, UI and checkers read, and the client API `etcdctl` uses.

mod client;
mod cluster;
mod data_dir;
mod facts;
mod member;
mod partition_view;
pub mod pki;
mod preset;
mod quorum_view;
mod snapshot_file;
mod switches;

pub use client::{
    prefix_bounds, prefix_range_end, AlarmMember, ClientError, Clock, Compare, CompareResult,
    CompareTarget, DeleteRangeRequest, DeleteRangeResponse, EndpointStatus, Event, EventType,
    Header, InFlightKv, KeyValue, LeaseId, MemberEntry, PerfLoad, PutRequest, PutResponse,
    RangeRequest, RangeResponse, Reply, Request, RequestOp, Response, ResponseOp, SortOrder,
    SortTarget, TxnRequest, TxnResponse, WatchId, WatchRequest, WatchResponse, WatchStream,
    EPOCH_UNIX_MS,
};
pub use cluster::{
    parse_members, Cluster, ClusterConfig, MemberStatus, StatusView, MAX_MEMBERS,
    REQUEST_TIMEOUT_MS,
};
pub use data_dir::{read_data_dir, restore, RestoreError, RestoreRequest, RestoredDataDir};
pub use facts::{
    message_kind, message_kind_names, Counts, Fact, FactKind, Facts, FACTS_KEEP, MESSAGE_KINDS,
};
pub use member::{
    describe_entry, restore_member, Applied, Attributes, Identity, LogEvent, Member, Proposal,
    CLUSTER_VERSION, SERVER_VERSION,
};
pub use partition_view::PartitionView;
pub use preset::{kubeadm, new_data_dir, Preset};
pub use quorum_view::QuorumView;
pub use snapshot_file::{snapshot_file_status, SnapshotFileError, SnapshotStatus};
pub use switches::Switch;

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

fn sha1_u64(data: &[u8]) -> u64 {
    let digest = sha1_smol::Sha1::from(data).digest().bytes();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// etcd's member id: the first 8 bytes of sha1(sorted peer URLs joined + cluster token)
/// (etcdserver/api/membership/member.go `NewMember`, without a time).
pub fn member_id(peer_urls: &[String], token: &str) -> u64 {
    let mut urls = peer_urls.to_vec();
    urls.sort();
    sha1_u64(format!("{}{token}", urls.concat()).as_bytes())
}

/// etcd's cluster id: sha1 over the sorted member ids (membership/cluster.go `genID`).
pub fn cluster_id(member_ids: &[u64]) -> u64 {
    let mut ids = member_ids.to_vec();
    ids.sort_unstable();
    let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_be_bytes()).collect();
    sha1_u64(&bytes)
}

/// The etcd member id of simulated member `id`.
pub fn etcd_id(id: MemberId) -> u64 {
    member_id(&[peer_url(id)], CLUSTER_TOKEN)
}

/// The cluster id of a simulated cluster of `members`.
pub fn simulated_cluster_id(members: &[MemberId]) -> u64 {
    cluster_id(&members.iter().map(|m| etcd_id(*m)).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_derive_as_etcd_derives_them() {
        // The recorded single-member etcd: peer http://127.0.0.1:23800, token fixture-token.
        let id = member_id(&["http://127.0.0.1:23800".to_string()], "fixture-token");
        assert_eq!(format!("{id:x}"), "e17f1bb8d129776f");
        // The capture's cluster id (SPEC §7) from that one member.
        assert_eq!(cluster_id(&[id]), 5309295613060013864);
        assert_ne!(etcd_id(MemberId(1)), etcd_id(MemberId(2)));
        assert_eq!(client_url(MemberId(1)), "http://127.0.0.1:2379");
        assert_eq!(peer_url(MemberId(3)), "http://127.0.0.1:32380");
    }
}
