//! An etcd member: Raft node + MVCC state machine + request handling. Filled by the etcd issue.
