//! Requests and responses as data: the payload of a Raft log entry and what `apply` returns.
//! Field names and defaults follow etcd's `etcdserverpb`.

use super::kv::{KeyValue, LeaseId};
use crate::base::Revision;
use serde::{Deserialize, Serialize};

/// Keys and values in a request's JSON (a Raft entry's payload) as base64 text, as etcd's
/// JSON gateway writes bytes: as serde's default array of numbers they took 3.6 bytes a byte,
/// and parsing them (each member parses each entry) was 15 % of opening a lesson's first step.
mod base64_bytes {
    use base64::{engine::general_purpose::STANDARD, Engine};
    use serde::{de, Deserializer, Serializer};

    // Base64 in JSON; a binary format (the Raft entries') takes the bytes as they are.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&STANDARD.encode(bytes))
        } else {
            s.serialize_bytes(bytes)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        if d.is_human_readable() {
            d.deserialize_str(Base64)
        } else {
            d.deserialize_byte_buf(Base64)
        }
    }

    struct Base64;

    impl de::Visitor<'_> for Base64 {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("base64 text")
        }

        fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<u8>, E> {
            STANDARD.decode(text).map_err(E::custom)
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            Ok(bytes.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(bytes)
        }
    }
}

/// At most this many compares, or ops in one branch, per txn (etcd `--max-txn-ops`).
pub const MAX_TXN_OPS: usize = 128;

/// Largest lease TTL in seconds (etcd `lease.MaxLeaseTTL`).
pub const MAX_LEASE_TTL_S: i64 = 9_000_000_000;

/// Order of a range's results. `None` is key order (the index's natural order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SortOrder {
    #[default]
    None,
    Ascend,
    Descend,
}

/// What a range's results are sorted by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SortTarget {
    #[default]
    Key,
    Version,
    Create,
    Mod,
    Value,
}

/// A get. `range_end` empty: the single key; `[0]`: every key `>= key`; otherwise
/// `[key, range_end)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeRequest {
    #[serde(with = "base64_bytes")]
    pub key: Vec<u8>,
    #[serde(with = "base64_bytes")]
    pub range_end: Vec<u8>,
    /// 0 = no limit.
    pub limit: i64,
    /// `<= 0` = current revision.
    pub revision: Revision,
    pub sort_order: SortOrder,
    pub sort_target: SortTarget,
    pub keys_only: bool,
    pub count_only: bool,
    /// Filters applied after the fetch; 0 = off. They do not change `count` (as in etcd).
    pub min_mod_revision: Revision,
    pub max_mod_revision: Revision,
    pub min_create_revision: Revision,
    pub max_create_revision: Revision,
}

impl RangeRequest {
    /// A get of one key at the current revision.
    pub fn key(key: impl Into<Vec<u8>>) -> RangeRequest {
        RangeRequest {
            key: key.into(),
            ..RangeRequest::default()
        }
    }

    /// A get of every key starting with `prefix` (`[0]`..end for an empty prefix).
    pub fn prefix(prefix: impl Into<Vec<u8>>) -> RangeRequest {
        let (key, range_end) = prefix_bounds(prefix.into());
        RangeRequest {
            key,
            range_end,
            ..RangeRequest::default()
        }
    }
}

/// `key`/`range_end` for a prefix the way clientv3 `WithPrefix` builds them.
pub fn prefix_bounds(prefix: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    if prefix.is_empty() {
        (vec![0], vec![0])
    } else {
        let end = super::kv::prefix_range_end(&prefix);
        (prefix, end)
    }
}

/// A put.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PutRequest {
    #[serde(with = "base64_bytes")]
    pub key: Vec<u8>,
    #[serde(with = "base64_bytes")]
    pub value: Vec<u8>,
    /// 0 = no lease: a put without a lease detaches the key from its lease.
    pub lease: LeaseId,
    pub prev_kv: bool,
    /// Keep the current value (the key must exist; `value` must be empty).
    pub ignore_value: bool,
    /// Keep the current lease (the key must exist; `lease` must be 0).
    pub ignore_lease: bool,
}

impl PutRequest {
    pub fn new(key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) -> PutRequest {
        PutRequest {
            key: key.into(),
            value: value.into(),
            ..PutRequest::default()
        }
    }
}

/// A delete of a key or a range (same `range_end` rules as [`RangeRequest`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeleteRangeRequest {
    #[serde(with = "base64_bytes")]
    pub key: Vec<u8>,
    #[serde(with = "base64_bytes")]
    pub range_end: Vec<u8>,
    pub prev_kv: bool,
}

impl DeleteRangeRequest {
    pub fn key(key: impl Into<Vec<u8>>) -> DeleteRangeRequest {
        DeleteRangeRequest {
            key: key.into(),
            ..DeleteRangeRequest::default()
        }
    }
}

/// How a compare relates the stored field to the given one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompareResult {
    Equal,
    Greater,
    Less,
    NotEqual,
}

/// The field a compare looks at, with the value to compare it against.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CompareTarget {
    Version(i64),
    Create(Revision),
    Mod(Revision),
    Value(#[serde(with = "base64_bytes")] Vec<u8>),
    Lease(LeaseId),
}

/// One txn guard, on a key or (with `range_end`) on every key of a range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Compare {
    #[serde(with = "base64_bytes")]
    pub key: Vec<u8>,
    #[serde(with = "base64_bytes")]
    pub range_end: Vec<u8>,
    pub result: CompareResult,
    pub target: CompareTarget,
}

impl Compare {
    pub fn new(key: impl Into<Vec<u8>>, result: CompareResult, target: CompareTarget) -> Compare {
        Compare {
            key: key.into(),
            range_end: Vec::new(),
            result,
            target,
        }
    }
}

/// One op of a txn branch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestOp {
    Range(RangeRequest),
    Put(PutRequest),
    DeleteRange(DeleteRangeRequest),
    Txn(TxnRequest),
}

/// If every compare holds, run `success`, else `failure`; all in one revision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnRequest {
    pub compare: Vec<Compare>,
    pub success: Vec<RequestOp>,
    pub failure: Vec<RequestOp>,
}

/// Compact history up to `revision`. `physical` only changes when etcd answers; here the
/// compaction is always complete when `apply` returns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionRequest {
    pub revision: Revision,
    pub physical: bool,
}

/// Grant lease `id` (chosen by the proposing member, as etcd's ID generator does).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseGrantRequest {
    pub id: LeaseId,
    pub ttl_s: i64,
}

/// Revoke a lease and delete its keys (in one revision).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRevokeRequest {
    pub id: LeaseId,
}

/// etcd's alarm types (`etcdserverpb.AlarmType`, numbered as in JSON output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum AlarmType {
    None = 0,
    Nospace = 1,
    Corrupt = 2,
}

impl AlarmType {
    /// The name `alarm list` prints (`NOSPACE`).
    pub fn name(self) -> &'static str {
        match self {
            AlarmType::None => "NONE",
            AlarmType::Nospace => "NOSPACE",
            AlarmType::Corrupt => "CORRUPT",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AlarmAction {
    Get,
    Activate,
    Deactivate,
}

/// An alarm raised by one member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AlarmMember {
    pub member_id: u64,
    pub alarm: AlarmType,
}

/// List (`Get`, with `alarm: None` for all types), raise or clear an alarm.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlarmRequest {
    pub action: AlarmAction,
    pub member_id: u64,
    pub alarm: AlarmType,
}

/// Everything that goes through the log and `Store::apply`. Lease keep-alives do not: etcd
/// renews on the leader only, outside Raft (see `Store::lease_renew`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    Range(RangeRequest),
    Put(PutRequest),
    DeleteRange(DeleteRangeRequest),
    Txn(TxnRequest),
    Compaction(CompactionRequest),
    LeaseGrant(LeaseGrantRequest),
    LeaseRevoke(LeaseRevokeRequest),
    Alarm(AlarmRequest),
}

/// Result of a get. `revision` is the header revision (the store's current one).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RangeResponse {
    pub revision: Revision,
    pub kvs: Vec<KeyValue>,
    /// True iff `limit` cut the results.
    pub more: bool,
    /// Number of keys in the range (before `limit`).
    pub count: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PutResponse {
    pub revision: Revision,
    pub prev_kv: Option<KeyValue>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeleteRangeResponse {
    pub revision: Revision,
    pub deleted: i64,
    pub prev_kvs: Vec<KeyValue>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseOp {
    Range(RangeResponse),
    Put(PutResponse),
    DeleteRange(DeleteRangeResponse),
    Txn(TxnResponse),
}

/// Result of a txn. Nested txn responses carry revision 0, as etcd's do.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxnResponse {
    pub revision: Revision,
    pub succeeded: bool,
    pub responses: Vec<ResponseOp>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionResponse {
    pub revision: Revision,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseGrantResponse {
    pub revision: Revision,
    pub id: LeaseId,
    /// The TTL granted (raised to the minimum TTL).
    pub ttl_s: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseRevokeResponse {
    pub revision: Revision,
}

/// Alarm responses carry no header in etcd.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AlarmResponse {
    pub alarms: Vec<AlarmMember>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    Range(RangeResponse),
    Put(PutResponse),
    DeleteRange(DeleteRangeResponse),
    Txn(TxnResponse),
    Compaction(CompactionResponse),
    LeaseGrant(LeaseGrantResponse),
    LeaseRevoke(LeaseRevokeResponse),
    Alarm(AlarmResponse),
}

impl Response {
    /// The header revision (0 for alarm responses, which have no header).
    pub fn revision(&self) -> Revision {
        match self {
            Response::Range(r) => r.revision,
            Response::Put(r) => r.revision,
            Response::DeleteRange(r) => r.revision,
            Response::Txn(r) => r.revision,
            Response::Compaction(r) => r.revision,
            Response::LeaseGrant(r) => r.revision,
            Response::LeaseRevoke(r) => r.revision,
            Response::Alarm(_) => 0,
        }
    }
}

/// The quota cost etcd charges a request (`etcdserver/quota.go`): 256 + key + value per put
/// (top-level puts of the larger txn branch), 64 per lease grant, 0 for everything else.
pub fn quota_cost(req: &Request) -> u64 {
    const KV_OVERHEAD: u64 = 256;
    const LEASE_OVERHEAD: u64 = 64;
    let put = |p: &PutRequest| KV_OVERHEAD + p.key.len() as u64 + p.value.len() as u64;
    let branch = |ops: &[RequestOp]| -> u64 {
        ops.iter()
            .map(|op| {
                if let RequestOp::Put(p) = op {
                    put(p)
                } else {
                    0
                }
            })
            .sum()
    };
    match req {
        Request::Put(p) => put(p),
        Request::Txn(t) => branch(&t.success).max(branch(&t.failure)),
        Request::LeaseGrant(_) => LEASE_OVERHEAD,
        _ => 0,
    }
}

/// Checks a request the way etcd's gRPC layer does before proposing it
/// (`etcdserver/api/v3rpc/key.go`): empty keys, `ignore_*` conflicts, txn size, and keys
/// written twice in one txn.
pub fn validate(req: &Request) -> Result<(), super::MvccError> {
    match req {
        Request::Range(r) => check_range(r),
        Request::Put(p) => check_put(p),
        Request::DeleteRange(d) => check_delete(d),
        Request::Txn(t) => {
            check_txn(t, MAX_TXN_OPS)?;
            check_intervals(&t.success)?;
            check_intervals(&t.failure)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

use super::MvccError;

fn check_range(r: &RangeRequest) -> Result<(), MvccError> {
    if r.key.is_empty() {
        return Err(MvccError::EmptyKey);
    }
    Ok(())
}

fn check_put(p: &PutRequest) -> Result<(), MvccError> {
    if p.key.is_empty() {
        return Err(MvccError::EmptyKey);
    }
    if p.ignore_value && !p.value.is_empty() {
        return Err(MvccError::ValueProvided);
    }
    if p.ignore_lease && p.lease != 0 {
        return Err(MvccError::LeaseProvided);
    }
    Ok(())
}

fn check_delete(d: &DeleteRangeRequest) -> Result<(), MvccError> {
    if d.key.is_empty() {
        return Err(MvccError::EmptyKey);
    }
    Ok(())
}

fn check_txn(t: &TxnRequest, max_ops: usize) -> Result<(), MvccError> {
    let opc = t.compare.len().max(t.success.len()).max(t.failure.len());
    if opc > max_ops {
        return Err(MvccError::TooManyOps);
    }
    if t.compare.iter().any(|c| c.key.is_empty()) {
        return Err(MvccError::EmptyKey);
    }
    for op in t.success.iter().chain(&t.failure) {
        match op {
            RequestOp::Range(r) => check_range(r)?,
            RequestOp::Put(p) => check_put(p)?,
            RequestOp::DeleteRange(d) => check_delete(d)?,
            RequestOp::Txn(inner) => check_txn(inner, max_ops - opc)?,
        }
    }
    Ok(())
}

/// A delete's interval as etcd's `adt` string-affine interval: `range_end` is taken
/// literally, so a from-key delete (`range_end = [0]`) covers nothing here (an etcd 3.4
/// quirk kept on purpose).
#[derive(Clone, Debug)]
struct DelInterval {
    begin: Vec<u8>,
    end: Option<Vec<u8>>,
}

impl DelInterval {
    fn contains(&self, k: &[u8]) -> bool {
        match &self.end {
            None => self.begin == k,
            Some(end) => self.begin.as_slice() <= k && k < end.as_slice(),
        }
    }
}

/// Puts and deletes of one op list may not overlap (etcd `checkIntervals`).
fn check_intervals(
    ops: &[RequestOp],
) -> Result<(std::collections::BTreeSet<Vec<u8>>, Vec<DelInterval>), MvccError> {
    use std::collections::BTreeSet;
    let mut dels: Vec<DelInterval> = ops
        .iter()
        .filter_map(|op| match op {
            RequestOp::DeleteRange(d) => Some(DelInterval {
                begin: d.key.clone(),
                end: (!d.range_end.is_empty()).then(|| d.range_end.clone()),
            }),
            _ => None,
        })
        .collect();
    let covered = |dels: &[DelInterval], k: &[u8]| dels.iter().any(|d| d.contains(k));
    let mut puts: BTreeSet<Vec<u8>> = BTreeSet::new();
    for op in ops {
        let RequestOp::Txn(t) = op else { continue };
        let (puts_then, dels_then) = check_intervals(&t.success)?;
        let (puts_else, dels_else) = check_intervals(&t.failure)?;
        for k in &puts_then {
            if puts.contains(k) || covered(&dels, k) {
                return Err(MvccError::DuplicateKey);
            }
            puts.insert(k.clone());
        }
        for k in &puts_else {
            if (puts.contains(k) && !puts_then.contains(k)) || covered(&dels, k) {
                return Err(MvccError::DuplicateKey);
            }
            puts.insert(k.clone());
        }
        // A later child's puts are checked against earlier children's deletes, not the
        // other way round (as in etcd).
        dels.extend(dels_then);
        dels.extend(dels_else);
    }
    for op in ops {
        let RequestOp::Put(p) = op else { continue };
        if puts.contains(&p.key) || covered(&dels, &p.key) {
            return Err(MvccError::DuplicateKey);
        }
        puts.insert(p.key.clone());
    }
    Ok((puts, dels))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(k: &str) -> RequestOp {
        RequestOp::Put(PutRequest::new(k, "v"))
    }

    #[test]
    fn bytes_travel_as_base64_and_come_back_whole() {
        let value: Vec<u8> = (0..=255).collect();
        let txn = Request::Txn(TxnRequest {
            compare: vec![Compare::new(
                "k\0",
                CompareResult::Equal,
                CompareTarget::Value(value.clone()),
            )],
            success: vec![RequestOp::Put(PutRequest::new("k\0", value))],
            failure: vec![del("a", "\u{ff}")],
        });
        let json = serde_json::to_string(&txn).unwrap_or_default();
        assert!(json.contains(r#""key":"awA=""#), "{json}");
        let back: Result<Request, _> = serde_json::from_str(&json);
        assert_eq!(back.ok(), Some(txn));
        let bad = r#"{"Put":{"key":"a!","value":"","lease":0,"prev_kv":false,"ignore_value":false,"ignore_lease":false}}"#;
        let err = serde_json::from_str::<Request>(bad)
            .map(|_| ())
            .unwrap_err();
        assert!(err.to_string().contains("Invalid symbol"), "{err}");
        assert!(serde_json::from_str::<Request>(&bad.replace(r#""a!""#, "[97]")).is_err());
    }

    fn del(k: &str, end: &str) -> RequestOp {
        RequestOp::DeleteRange(DeleteRangeRequest {
            key: k.into(),
            range_end: end.into(),
            prev_kv: false,
        })
    }

    fn txn(success: Vec<RequestOp>, failure: Vec<RequestOp>) -> Request {
        Request::Txn(TxnRequest {
            compare: vec![],
            success,
            failure,
        })
    }

    #[test]
    fn duplicate_keys_table() {
        let table: Vec<(Request, Result<(), MvccError>)> = vec![
            (
                txn(vec![put("d1"), put("d1")], vec![]),
                Err(MvccError::DuplicateKey),
            ),
            (
                txn(vec![put("d1"), del("d1", "")], vec![]),
                Err(MvccError::DuplicateKey),
            ),
            (
                txn(vec![del("t", "u"), put("t9")], vec![]),
                Err(MvccError::DuplicateKey),
            ),
            (txn(vec![put("a")], vec![put("a")]), Ok(())),
            (txn(vec![del("a", "\0"), put("b")], vec![]), Ok(())),
            (
                txn(
                    vec![RequestOp::Txn(TxnRequest {
                        compare: vec![],
                        success: vec![put("x")],
                        failure: vec![put("x")],
                    })],
                    vec![],
                ),
                Ok(()),
            ),
            (
                txn(
                    vec![
                        put("x"),
                        RequestOp::Txn(TxnRequest {
                            compare: vec![],
                            success: vec![put("x")],
                            failure: vec![],
                        }),
                    ],
                    vec![],
                ),
                Err(MvccError::DuplicateKey),
            ),
        ];
        for (req, want) in table {
            assert_eq!(validate(&req), want, "{req:?}");
        }
    }

    #[test]
    fn too_many_ops_and_empty_keys() {
        let ops: Vec<RequestOp> = (0..129).map(|i| put(&format!("k{i}"))).collect();
        assert_eq!(validate(&txn(ops, vec![])), Err(MvccError::TooManyOps));
        let ops: Vec<RequestOp> = (0..128).map(|i| put(&format!("k{i}"))).collect();
        assert_eq!(validate(&txn(ops, vec![])), Ok(()));
        assert_eq!(
            validate(&Request::Put(PutRequest::new("", "v"))),
            Err(MvccError::EmptyKey)
        );
        let p = PutRequest {
            ignore_lease: true,
            lease: 5,
            ..PutRequest::new("k", "")
        };
        assert_eq!(validate(&Request::Put(p)), Err(MvccError::LeaseProvided));
        let p = PutRequest {
            ignore_value: true,
            ..PutRequest::new("k", "v")
        };
        assert_eq!(validate(&Request::Put(p)), Err(MvccError::ValueProvided));
    }

    #[test]
    fn costs() {
        assert_eq!(quota_cost(&Request::Put(PutRequest::new("ab", "cde"))), 261);
        assert_eq!(
            quota_cost(&txn(vec![put("a")], vec![put("a"), put("b")])),
            2 * 258
        );
        let nested = txn(vec![RequestOp::Txn(TxnRequest::default())], vec![]);
        assert_eq!(quota_cost(&nested), 0);
        assert_eq!(
            quota_cost(&Request::LeaseGrant(LeaseGrantRequest { id: 1, ttl_s: 5 })),
            64
        );
    }
}
