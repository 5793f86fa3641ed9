//! The revisioned key-value store: etcd 3.4's MVCC (`mvcc/`), its lessor (`lease/`) and the
//! parts of its apply loop that act on them (`etcdserver/apply.go`), as a pure, deterministic
//! module. See `/work/shared/conformance/etcd-3.4/SPEC.md` for the observed semantics.
//!
//! - [`Store::apply`] takes a [`Request`] (the payload of a Raft entry, serde-encoded) and
//!   answers like etcd's applier; [`Store::range`] is the local read path.
//! - Every write request that changes something makes exactly one revision; a txn's changes
//!   share it with sub-revisions in op order. Old revisions stay readable until compacted.
//! - Leases are granted and revoked through `apply`; their expiry clock runs only on the
//!   primary lessor (the leader): [`Store::lease_promote`], [`Store::lease_renew`],
//!   [`Store::expired_leases`].
//! - Watchers are member-local: [`Store::watch`], [`Store::take_watch_responses`].
//! - [`Store::image`] is the replicated state a Raft snapshot holds (sharing the store's
//!   records; [`StoreImage::restore`] rebuilds a store from it); [`Store::encode`] /
//!   [`Store::decode`] carry it as bytes for `snapshot save/restore` and snapshot files;
//!   [`Store::hash_kv`] is etcd's CRC-32C `hashkv`.
//! - [`Store::db_size`] is a page model of the bbolt file (see `size.rs`), used by the quota.

mod error;
mod key_index;
mod kv;
mod lease;
mod record;
mod request;
mod request_size;
mod size;
mod snapshot;
mod store;
mod watch;

#[cfg(test)]
mod model_tests;
#[cfg(test)]
mod store_tests;

pub use error::{DecodeError, MvccError};
pub use key_index::{Generation, IndexError, KeyIndex};
pub use kv::{prefix_range_end, Crc32c, KeyValue, LeaseId, Rev};
pub use lease::{LeaseTimeToLive, FOREVER_TTL_S};
pub use request::*;
pub use request_size::{
    grpc_request_bytes, raft_request_bytes, MAX_CALL_SEND_BYTES, MAX_REQUEST_BYTES,
};
pub use size::PAGE_BYTES;
pub use snapshot::StoreImage;
pub use store::{
    in_range, txn_is_read_only, DbSize, HashKv, LiveKeys, Store, StoreConfig, StoreView,
    DEFAULT_QUOTA_BYTES,
};
pub use watch::{Event, EventType, WatchId, WatchRequest, WatchResponse, WATCH_BATCH_MAX_REVS};
