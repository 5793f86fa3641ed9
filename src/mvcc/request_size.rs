//! The size etcd limits a write by: its `InternalRaftRequest` marshalled as protobuf
//! (`etcdserver/v3_server.go` `processInternalRaftRequestOnce`: over `--max-request-bytes`,
//! 1.5 MiB by default, it answers `etcdserver: request is too large`). Field numbers are those
//! of `etcdserverpb/rpc.proto` and `raft_internal.proto`; proto3 leaves zero fields out.

use super::request::*;

/// etcd's `--max-request-bytes` default (`embed.DefaultMaxRequestBytes`).
pub const MAX_REQUEST_BYTES: usize = 3 * 512 * 1024;

/// gRPC's default limit on a message the client sends (clientv3
/// `defaultMaxCallSendMsgSize`): a bigger request never leaves etcdctl.
pub const MAX_CALL_SEND_BYTES: usize = 2 * 1024 * 1024;

/// The request's header: field 100 (a two-byte tag), a length, and the request ID as a
/// varint. Calibrated on etcd 3.4.23: with the key `big`, a 1,572,837-byte value fits and
/// 1,572,838 bytes do not (the ID's length depends on the member's ID; this is its longest).
const HEADER_BYTES: usize = 2 + 1 + 1 + 10;

/// Bytes of `req` as etcd proposes it to Raft.
pub fn raft_request_bytes(req: &Request) -> usize {
    let number = match req {
        Request::Range(_) => 3,
        Request::Put(_) => 4,
        Request::DeleteRange(_) => 5,
        Request::Txn(_) => 6,
        Request::Compaction(_) => 7,
        Request::LeaseGrant(_) => 8,
        Request::LeaseRevoke(_) => 9,
        Request::Alarm(_) => 10,
    };
    HEADER_BYTES + field(number, grpc_request_bytes(req))
}

/// Bytes of `req` as the client sends it over gRPC (the message alone).
pub fn grpc_request_bytes(req: &Request) -> usize {
    match req {
        Request::Range(r) => range(r),
        Request::Put(p) => put(p),
        Request::DeleteRange(d) => delete(d),
        Request::Txn(t) => txn(t),
        Request::Compaction(c) => int(1, c.revision) + flag(2, c.physical),
        Request::LeaseGrant(g) => int(1, g.ttl_s) + int(2, g.id),
        Request::LeaseRevoke(r) => int(1, r.id),
        // The action and the alarm type: a tag and a one-byte enum each.
        Request::Alarm(a) => 2 * 2 + tag(2) + varint(a.member_id),
    }
}

fn varint(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

fn tag(number: u64) -> usize {
    varint(number << 3)
}

/// A length-delimited field (bytes or a message) of `len` bytes.
fn field(number: u64, len: usize) -> usize {
    tag(number) + varint(len as u64) + len
}

fn bytes(number: u64, value: &[u8]) -> usize {
    if value.is_empty() {
        0
    } else {
        field(number, value.len())
    }
}

fn int(number: u64, value: i64) -> usize {
    if value == 0 {
        0
    } else {
        // A negative int64 is ten bytes, as Go's protobuf writes it.
        tag(number) + varint(value as u64)
    }
}

fn flag(number: u64, value: bool) -> usize {
    if value {
        tag(number) + 1
    } else {
        0
    }
}

fn range(r: &RangeRequest) -> usize {
    bytes(1, &r.key)
        + bytes(2, &r.range_end)
        + int(3, r.limit)
        + int(4, r.revision)
        + 2 * 2
        + flag(8, r.keys_only)
        + flag(9, r.count_only)
        + int(10, r.min_mod_revision)
        + int(11, r.max_mod_revision)
        + int(12, r.min_create_revision)
}

fn put(p: &PutRequest) -> usize {
    bytes(1, &p.key)
        + bytes(2, &p.value)
        + int(3, p.lease)
        + flag(4, p.prev_kv)
        + flag(5, p.ignore_value)
        + flag(6, p.ignore_lease)
}

fn delete(d: &DeleteRangeRequest) -> usize {
    bytes(1, &d.key) + bytes(2, &d.range_end) + flag(3, d.prev_kv)
}

fn compare(c: &Compare) -> usize {
    let target = match &c.target {
        CompareTarget::Version(v) => int(4, *v),
        CompareTarget::Create(r) => int(5, *r),
        CompareTarget::Mod(r) => int(6, *r),
        CompareTarget::Value(v) => bytes(7, v),
        CompareTarget::Lease(l) => int(8, *l),
    };
    2 * 2 + bytes(3, &c.key) + target + bytes(64, &c.range_end)
}

fn op(o: &RequestOp) -> usize {
    match o {
        RequestOp::Range(r) => field(1, range(r)),
        RequestOp::Put(p) => field(2, put(p)),
        RequestOp::DeleteRange(d) => field(3, delete(d)),
        RequestOp::Txn(t) => field(4, txn(t)),
    }
}

fn txn(t: &TxnRequest) -> usize {
    let compares: usize = t.compare.iter().map(|c| field(1, compare(c))).sum();
    let success: usize = t.success.iter().map(|o| field(2, op(o))).sum();
    let failure: usize = t.failure.iter().map(|o| field(3, op(o))).sum();
    compares + success + failure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_put_costs_its_key_value_and_framing() {
        let req = Request::Put(PutRequest::new("foo", "bar"));
        // header 14 + put field (tag 1, len 1) + key (1 + 1 + 3) + value (1 + 1 + 3).
        assert_eq!(raft_request_bytes(&req), 14 + 2 + 5 + 5);
        assert_eq!(grpc_request_bytes(&req), 5 + 5);
    }

    #[test]
    fn the_limit_falls_between_a_1_5_mib_value_and_a_slightly_smaller_one() {
        let big = Request::Put(PutRequest::new("k", vec![b'x'; MAX_REQUEST_BYTES]));
        assert!(raft_request_bytes(&big) > MAX_REQUEST_BYTES);
        let fits = Request::Put(PutRequest::new("k", vec![b'x'; MAX_REQUEST_BYTES - 64]));
        assert!(raft_request_bytes(&fits) <= MAX_REQUEST_BYTES);
    }

    #[test]
    fn the_limits_fall_where_etcd_3_4_23_puts_them() {
        let put = |n: usize| Request::Put(PutRequest::new("big", vec![b'v'; n]));
        assert_eq!(raft_request_bytes(&put(1_572_837)), MAX_REQUEST_BYTES);
        assert_eq!(raft_request_bytes(&put(1_572_838)), MAX_REQUEST_BYTES + 1);
        // etcdctl: "trying to send message larger than max (2097162 vs. 2097152)".
        assert_eq!(grpc_request_bytes(&put(2 * 1024 * 1024)), 2_097_162);
    }

    #[test]
    fn a_txn_sums_its_ops() {
        let one = RequestOp::Put(PutRequest::new("a", vec![0; 1000]));
        let txn = TxnRequest {
            compare: vec![],
            success: vec![one.clone(), one],
            failure: vec![],
        };
        let size = raft_request_bytes(&Request::Txn(txn));
        assert!((2000..2100).contains(&size), "{size}");
    }
}
