//! Property test against a simple model: key -> every (revision, value or deletion).
//! Random puts, deletes, txns, compactions and ranges at random revisions must agree; a
//! watcher from revision 1 must see exactly the model's history; a snapshot round trip must
//! change nothing. On failure proptest prints the minimal failing case and its seed.

use super::*;
use crate::base::Revision;
use proptest::prelude::*;
use std::collections::BTreeMap;

type Model = BTreeMap<Vec<u8>, Vec<(Revision, Option<Vec<u8>>)>>;
/// (key, create revision, mod revision, version, value).
type Row = (Vec<u8>, Revision, Revision, i64, Vec<u8>);

#[derive(Clone, Debug)]
enum Op {
    Put(u8, u8),
    Delete(u8, Option<u8>),
    /// If key's version equals `version`, put `then_key`, else delete `else_key`.
    Txn {
        key: u8,
        version: i64,
        then_key: u8,
        value: u8,
        else_key: u8,
    },
    Compact(Revision),
    Range {
        from: u8,
        to: Option<u8>,
        back: Revision,
        limit: i64,
    },
}

fn key(k: u8) -> Vec<u8> {
    format!("k{k}").into_bytes()
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..8u8, any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        2 => (0..8u8, proptest::option::of(0..9u8)).prop_map(|(k, e)| Op::Delete(k, e)),
        2 => (0..8u8, 0..3i64, 0..8u8, any::<u8>(), 0..8u8).prop_map(|(key, version, then_key, value, else_key)| {
            Op::Txn { key, version, then_key, value, else_key }
        }),
        1 => (0..40i64).prop_map(Op::Compact),
        3 => (0..8u8, proptest::option::of(0..9u8), 0..6i64, 0..4i64)
            .prop_map(|(from, to, back, limit)| Op::Range { from, to, back, limit }),
    ]
}

/// The model's answer: live `(key, create, mod, version, value)` in `[from, to)` at `at`.
fn model_range(m: &Model, from: &[u8], to: &[u8], at: Revision) -> Vec<Row> {
    let mut out = Vec::new();
    for (k, versions) in m {
        if !in_range(k, from, to) {
            continue;
        }
        let upto: Vec<_> = versions.iter().filter(|(r, _)| *r <= at).collect();
        let Some((modr, Some(value))) = upto.last() else {
            continue;
        };
        // The generation started after the last deletion before this revision.
        let gen: Vec<_> = upto.iter().rev().take_while(|(_, v)| v.is_some()).collect();
        let create = gen.last().map_or(*modr, |(r, _)| *r);
        out.push((k.clone(), create, *modr, gen.len() as i64, value.clone()));
    }
    out
}

fn live_keys(m: &Model, from: &[u8], to: &[u8], at: Revision) -> Vec<Vec<u8>> {
    model_range(m, from, to, at)
        .into_iter()
        .map(|t| t.0)
        .collect()
}

fn run(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut s = Store::default();
    let all = s.watch(WatchRequest {
        key: vec![0],
        range_end: vec![0],
        start_revision: 1,
        ..Default::default()
    });
    let mut m: Model = BTreeMap::new();
    let mut rev: Revision = 1;
    let mut compacted: Revision = -1;
    let mut history: Vec<(Revision, EventType, Vec<u8>)> = Vec::new();
    for op in ops {
        match op {
            Op::Put(k, v) => {
                s.apply(&Request::Put(PutRequest::new(key(k), vec![v])), 0)
                    .unwrap();
                rev += 1;
                m.entry(key(k)).or_default().push((rev, Some(vec![v])));
                history.push((rev, EventType::Put, key(k)));
            }
            Op::Delete(k, end) => {
                let end = end.map(key).unwrap_or_default();
                let doomed = live_keys(&m, &key(k), &end, rev);
                let req = DeleteRangeRequest {
                    key: key(k),
                    range_end: end,
                    prev_kv: false,
                };
                let got = s.apply(&Request::DeleteRange(req), 0).unwrap();
                if !doomed.is_empty() {
                    rev += 1;
                }
                prop_assert_eq!(got.revision(), rev);
                for d in doomed {
                    m.entry(d.clone()).or_default().push((rev, None));
                    history.push((rev, EventType::Delete, d));
                }
            }
            Op::Txn {
                key: ck,
                version,
                then_key,
                value,
                else_key,
            } => {
                let cur = model_range(&m, &key(ck), &[], rev);
                let holds = cur.first().map_or(0, |t| t.3) == version;
                let req = Request::Txn(TxnRequest {
                    compare: vec![Compare::new(
                        key(ck),
                        CompareResult::Equal,
                        CompareTarget::Version(version),
                    )],
                    success: vec![RequestOp::Put(PutRequest::new(key(then_key), vec![value]))],
                    failure: vec![RequestOp::DeleteRange(DeleteRangeRequest::key(key(
                        else_key,
                    )))],
                });
                let Response::Txn(t) = s.apply(&req, 0).unwrap() else {
                    unreachable!()
                };
                prop_assert_eq!(t.succeeded, holds);
                if holds {
                    rev += 1;
                    m.entry(key(then_key))
                        .or_default()
                        .push((rev, Some(vec![value])));
                    history.push((rev, EventType::Put, key(then_key)));
                } else if !live_keys(&m, &key(else_key), &[], rev).is_empty() {
                    rev += 1;
                    m.entry(key(else_key)).or_default().push((rev, None));
                    history.push((rev, EventType::Delete, key(else_key)));
                }
                prop_assert_eq!(t.revision, rev);
            }
            Op::Compact(c) => {
                let got = s.apply(
                    &Request::Compaction(CompactionRequest {
                        revision: c,
                        physical: false,
                    }),
                    0,
                );
                if c <= compacted {
                    prop_assert_eq!(got, Err(MvccError::Compacted));
                } else if c > rev {
                    prop_assert_eq!(got, Err(MvccError::FutureRevision));
                } else {
                    prop_assert!(got.is_ok());
                    compacted = c;
                }
            }
            Op::Range {
                from,
                to,
                back,
                limit,
            } => {
                let at = (rev - back).max(1);
                let end = to.map(key).unwrap_or_default();
                let req = RangeRequest {
                    key: key(from),
                    range_end: end.clone(),
                    revision: at,
                    limit,
                    ..Default::default()
                };
                let got = s.range(&req);
                if at < compacted {
                    prop_assert_eq!(got, Err(MvccError::Compacted));
                    continue;
                }
                let got = got.unwrap();
                let want = model_range(&m, &key(from), &end, at);
                prop_assert_eq!(got.count, want.len() as i64);
                prop_assert_eq!(got.revision, rev);
                let n = if limit > 0 {
                    want.len().min(limit as usize)
                } else {
                    want.len()
                };
                prop_assert_eq!(got.more, n < want.len());
                let got_t: Vec<_> = got
                    .kvs
                    .into_iter()
                    .map(|kv| {
                        (
                            kv.key,
                            kv.create_revision,
                            kv.mod_revision,
                            kv.version,
                            kv.value,
                        )
                    })
                    .collect();
                prop_assert_eq!(got_t, want[..n].to_vec());
            }
        }
        prop_assert_eq!(s.revision(), rev);
    }
    // Every readable revision agrees with the model over the whole keyspace.
    for at in compacted.max(1)..=rev {
        let got = s
            .range(&RangeRequest {
                revision: at,
                ..RangeRequest::prefix("")
            })
            .unwrap();
        let got_t: Vec<_> = got
            .kvs
            .into_iter()
            .map(|kv| {
                (
                    kv.key,
                    kv.create_revision,
                    kv.mod_revision,
                    kv.version,
                    kv.value,
                )
            })
            .collect();
        prop_assert_eq!(got_t, model_range(&m, &[0], &[0], at), "at revision {}", at);
    }
    // The watcher saw the whole history, in order.
    let seen: Vec<_> = s
        .take_watch_responses(all)
        .into_iter()
        .flat_map(|r| r.events)
        .map(|e| (e.kv.mod_revision, e.kind, e.kv.key))
        .collect();
    prop_assert_eq!(seen, history);
    // A snapshot round trip changes nothing observable.
    let t = Store::decode(&s.encode()).unwrap();
    prop_assert_eq!(t.hash_kv(0), s.hash_kv(0));
    prop_assert_eq!(t.view().kvs, s.view().kvs);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn store_agrees_with_model(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops)?;
    }
}
