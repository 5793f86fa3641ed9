//! The revisioned key-value store (etcd's MVCC). Filled by the etcd issue; until then the
//! simulated members apply committed entries to a plain revision counter in `sim`.
