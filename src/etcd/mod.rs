//! etcd members in a simulated world: each a Raft node plus the state machine its committed
//! entries are applied to, with the cluster-wide views the console, UI and checkers read.

mod cluster;
mod member;

pub use cluster::{Cluster, ClusterConfig, MemberStatus, StatusView};
pub use member::{Applied, LogEvent, Member};
