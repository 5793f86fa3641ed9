//! Expected failures of the store, each printed with etcd's own text.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An expected failure of a store operation. `Display` is the text etcd puts in the gRPC
/// status (what `etcdctl` prints after `Error: `).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MvccError {
    /// A read, watch or compaction below the compacted revision.
    Compacted,
    /// A read or compaction above the current revision.
    FutureRevision,
    /// An empty key in get/put/del or in a txn compare.
    EmptyKey,
    /// `ignore_value`/`ignore_lease` on a key that does not exist.
    KeyNotFound,
    /// `ignore_value` together with a value.
    ValueProvided,
    /// `ignore_lease` together with a lease.
    LeaseProvided,
    /// More than 128 compares or ops in one branch of a txn.
    TooManyOps,
    /// A write whose Raft request is over `--max-request-bytes` (1.5 MiB).
    RequestTooLarge,
    /// A txn writes one key twice, or puts a key it also deletes.
    DuplicateKey,
    /// The lease does not exist (any more).
    LeaseNotFound,
    /// A grant with the ID of a lease that exists.
    LeaseExists,
    /// A grant with a TTL above 9,000,000,000 s.
    LeaseTtlTooLarge,
    /// The write would exceed the backend quota, or the NOSPACE alarm is active.
    NoSpace,
    /// A lease renewal on a member whose lessor is not the primary (not the leader).
    NotPrimary,
}

impl MvccError {
    /// The gRPC status code etcd answers with, as clientv3 logs it (`code = OutOfRange`).
    pub fn grpc_code(self) -> &'static str {
        match self {
            MvccError::Compacted | MvccError::FutureRevision | MvccError::LeaseTtlTooLarge => {
                "OutOfRange"
            }
            MvccError::EmptyKey
            | MvccError::KeyNotFound
            | MvccError::ValueProvided
            | MvccError::LeaseProvided
            | MvccError::TooManyOps
            | MvccError::RequestTooLarge
            | MvccError::DuplicateKey => "InvalidArgument",
            MvccError::LeaseNotFound => "NotFound",
            MvccError::LeaseExists => "FailedPrecondition",
            MvccError::NoSpace => "ResourceExhausted",
            MvccError::NotPrimary => "Unavailable",
        }
    }
}

impl fmt::Display for MvccError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            MvccError::Compacted => "etcdserver: mvcc: required revision has been compacted",
            MvccError::FutureRevision => "etcdserver: mvcc: required revision is a future revision",
            MvccError::EmptyKey => "etcdserver: key is not provided",
            MvccError::KeyNotFound => "etcdserver: key not found",
            MvccError::ValueProvided => "etcdserver: value is provided",
            MvccError::LeaseProvided => "etcdserver: lease is provided",
            MvccError::TooManyOps => "etcdserver: too many operations in txn request",
            MvccError::RequestTooLarge => "etcdserver: request is too large",
            MvccError::DuplicateKey => "etcdserver: duplicate key given in txn request",
            MvccError::LeaseNotFound => "etcdserver: requested lease not found",
            MvccError::LeaseExists => "etcdserver: lease already exists",
            MvccError::LeaseTtlTooLarge => "etcdserver: too large lease TTL",
            MvccError::NoSpace => "etcdserver: mvcc: database space exceeded",
            MvccError::NotPrimary => "etcdserver: not primary",
        };
        f.write_str(text)
    }
}

impl std::error::Error for MvccError {}

/// A snapshot that cannot be decoded into a store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "snapshot: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_etcds() {
        assert_eq!(
            MvccError::Compacted.to_string(),
            "etcdserver: mvcc: required revision has been compacted"
        );
        assert_eq!(
            MvccError::FutureRevision.to_string(),
            "etcdserver: mvcc: required revision is a future revision"
        );
        assert_eq!(
            MvccError::NoSpace.to_string(),
            "etcdserver: mvcc: database space exceeded"
        );
        assert_eq!(
            MvccError::LeaseNotFound.to_string(),
            "etcdserver: requested lease not found"
        );
        assert_eq!(MvccError::Compacted.grpc_code(), "OutOfRange");
        assert_eq!(MvccError::NoSpace.grpc_code(), "ResourceExhausted");
    }
}
