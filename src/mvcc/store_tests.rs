//! Unit tests of every operation and error, and a replay of the etcd 3.4.23 fixtures
//! (`shared/conformance/etcd-3.4`, scenario `single`, json pass) checking revisions, metadata,
//! watch output, db sizes and the `hashkv` value the real server printed.

use super::*;

fn put(s: &mut Store, k: &str, v: &str) -> Result<Response, MvccError> {
    s.apply(&Request::Put(PutRequest::new(k, v)), 0)
}

fn get(s: &Store, k: &str) -> Option<KeyValue> {
    s.range(&RangeRequest::key(k))
        .unwrap()
        .kvs
        .into_iter()
        .next()
}

fn meta(kv: &KeyValue) -> (Revision, Revision, i64) {
    (kv.create_revision, kv.mod_revision, kv.version)
}

fn del(key: &str, end: &str, prev_kv: bool) -> Request {
    Request::DeleteRange(DeleteRangeRequest {
        key: key.into(),
        range_end: end.into(),
        prev_kv,
    })
}

fn prefix_del(p: &str) -> Request {
    let (key, range_end) = prefix_bounds(p.into());
    Request::DeleteRange(DeleteRangeRequest {
        key,
        range_end,
        prev_kv: false,
    })
}

fn txn(compare: Vec<Compare>, success: Vec<RequestOp>, failure: Vec<RequestOp>) -> Request {
    Request::Txn(TxnRequest {
        compare,
        success,
        failure,
    })
}

fn op_put(k: &str, v: &str) -> RequestOp {
    RequestOp::Put(PutRequest::new(k, v))
}

fn op_get(k: &str) -> RequestOp {
    RequestOp::Range(RangeRequest::key(k))
}

fn cmp(k: &str, result: CompareResult, target: CompareTarget) -> Compare {
    Compare::new(k, result, target)
}

use crate::base::{Millis, Revision};
use std::cell::Cell;
use CompareResult::*;

#[test]
fn revisions_versions_and_generations() {
    let mut s = Store::default();
    assert_eq!(s.revision(), 1);
    assert_eq!(put(&mut s, "foo", "bar").unwrap().revision(), 2);
    let r = s.apply(
        &Request::Put(PutRequest {
            prev_kv: true,
            ..PutRequest::new("foo", "b2")
        }),
        0,
    );
    let Ok(Response::Put(p)) = r else {
        panic!("{r:?}")
    };
    assert_eq!(p.revision, 3);
    assert_eq!(p.prev_kv.map(|kv| kv.value), Some(b"bar".to_vec()));
    put(&mut s, "foo", "b3").unwrap();
    assert_eq!(meta(&get(&s, "foo").unwrap()), (2, 4, 3));
    // A delete of nothing makes no revision; a delete does.
    assert_eq!(s.apply(&del("nosuch", "", false), 0).unwrap().revision(), 4);
    assert_eq!(s.apply(&del("foo", "", false), 0).unwrap().revision(), 5);
    assert_eq!(get(&s, "foo"), None);
    let old = s
        .range(&RangeRequest {
            revision: 4,
            ..RangeRequest::key("foo")
        })
        .unwrap();
    assert_eq!(old.kvs[0].value, b"b3".to_vec());
    assert_eq!(old.revision, 5);
    put(&mut s, "foo", "reborn").unwrap();
    assert_eq!(meta(&get(&s, "foo").unwrap()), (6, 6, 1));
}

#[test]
fn range_errors_limits_and_sorting() {
    let mut s = Store::default();
    for (k, v) in [
        ("dir/a", "1"),
        ("dir/b", "2"),
        ("dir/c", "3"),
        ("dir/a", "11"),
        ("dir/b", "22"),
    ] {
        put(&mut s, k, v).unwrap();
    }
    put(&mut s, "dir/b", "222").unwrap();
    let all = |r: RangeRequest| s.range(&r).unwrap();
    let keys = |r: &RangeResponse| -> Vec<String> {
        r.kvs
            .iter()
            .map(|kv| String::from_utf8(kv.key.clone()).unwrap())
            .collect()
    };
    let base = RangeRequest::prefix("dir/");
    let r = all(RangeRequest {
        limit: 2,
        ..base.clone()
    });
    assert_eq!(
        (keys(&r), r.more, r.count),
        (vec!["dir/a".into(), "dir/b".into()], true, 3)
    );
    let r = all(RangeRequest {
        sort_target: SortTarget::Mod,
        sort_order: SortOrder::Descend,
        ..base.clone()
    });
    assert_eq!(keys(&r), ["dir/b", "dir/a", "dir/c"]);
    let r = all(RangeRequest {
        sort_target: SortTarget::Version,
        ..base.clone()
    });
    assert_eq!(keys(&r), ["dir/c", "dir/a", "dir/b"]);
    let r = all(RangeRequest {
        sort_order: SortOrder::Descend,
        limit: 2,
        ..base.clone()
    });
    assert_eq!(
        (keys(&r), r.more, r.count),
        (vec!["dir/c".into(), "dir/b".into()], true, 3)
    );
    let r = all(RangeRequest {
        keys_only: true,
        ..base.clone()
    });
    assert!(r.kvs.iter().all(|kv| kv.value.is_empty()) && r.kvs.len() == 3);
    let r = all(RangeRequest {
        count_only: true,
        ..base.clone()
    });
    assert_eq!((r.kvs.len(), r.count), (0, 3));
    let r = all(RangeRequest {
        key: b"dir/b".to_vec(),
        range_end: vec![0],
        ..Default::default()
    });
    assert_eq!(keys(&r), ["dir/b", "dir/c"]);
    let r = all(RangeRequest {
        key: b"dir/a".to_vec(),
        range_end: b"dir/c".to_vec(),
        ..base.clone()
    });
    assert_eq!(keys(&r), ["dir/a", "dir/b"]);
    let r = all(RangeRequest {
        key: b"z".to_vec(),
        range_end: b"a".to_vec(),
        ..base.clone()
    });
    assert_eq!(r.count, 0);
    let r = all(RangeRequest {
        max_mod_revision: 4,
        ..base.clone()
    });
    assert_eq!((keys(&r), r.count), (vec!["dir/c".into()], 3));
    assert_eq!(
        s.range(&RangeRequest {
            revision: 99,
            ..base.clone()
        }),
        Err(MvccError::FutureRevision)
    );
    assert_eq!(s.range(&RangeRequest::key("")), Err(MvccError::EmptyKey));
    s.apply(
        &Request::Compaction(CompactionRequest {
            revision: 4,
            physical: false,
        }),
        0,
    )
    .unwrap();
    let all = |r: RangeRequest| s.range(&r).unwrap();
    assert_eq!(
        s.range(&RangeRequest {
            revision: 3,
            ..base.clone()
        }),
        Err(MvccError::Compacted)
    );
    let at4 = all(RangeRequest {
        revision: 4,
        ..base.clone()
    });
    assert_eq!(keys(&at4), ["dir/a", "dir/b", "dir/c"]);
    assert_eq!(
        all(RangeRequest {
            revision: -1,
            ..base
        })
        .revision,
        7
    );
}

#[test]
fn put_flags_and_lease_errors() {
    let mut s = Store::default();
    let ignore_value = |k: &str| PutRequest {
        ignore_value: true,
        ..PutRequest::new(k, "")
    };
    assert_eq!(
        s.apply(&Request::Put(ignore_value("nokey")), 0),
        Err(MvccError::KeyNotFound)
    );
    assert_eq!(s.revision(), 1);
    put(&mut s, "k", "v").unwrap();
    s.apply(&Request::Put(ignore_value("k")), 0).unwrap();
    assert_eq!(meta(&get(&s, "k").unwrap()), (2, 3, 2));
    assert_eq!(get(&s, "k").unwrap().value, b"v".to_vec());
    let leased = PutRequest {
        lease: 77,
        ..PutRequest::new("k", "x")
    };
    assert_eq!(
        s.apply(&Request::Put(leased.clone()), 0),
        Err(MvccError::LeaseNotFound)
    );
    s.apply(
        &Request::LeaseGrant(LeaseGrantRequest { id: 77, ttl_s: 60 }),
        0,
    )
    .unwrap();
    s.apply(&Request::Put(leased), 0).unwrap();
    let keep = PutRequest {
        ignore_lease: true,
        ..PutRequest::new("k", "y")
    };
    s.apply(&Request::Put(keep), 0).unwrap();
    assert_eq!(get(&s, "k").unwrap().lease, 77);
    put(&mut s, "k", "z").unwrap();
    assert_eq!(
        get(&s, "k").unwrap().lease,
        0,
        "a put without a lease detaches"
    );
    assert!(s.lease_time_to_live(77, true, 0).keys.is_empty());
}

#[test]
fn txn_semantics() {
    let mut s = Store::default();
    put(&mut s, "foo", "reborn").unwrap(); // 2
    let r = s
        .apply(
            &txn(
                vec![
                    cmp("foo", Equal, CompareTarget::Value(b"reborn".to_vec())),
                    cmp("foo", Equal, CompareTarget::Version(1)),
                    cmp("foo", Less, CompareTarget::Mod(100)),
                    cmp("missing", Equal, CompareTarget::Create(0)),
                ],
                vec![op_put("t1", "a"), op_put("t2", "b"), op_get("t1")],
                vec![op_put("t3", "fail")],
            ),
            0,
        )
        .unwrap();
    let Response::Txn(t) = r else { panic!() };
    assert!(t.succeeded);
    assert_eq!(t.revision, 3);
    let ResponseOp::Range(g) = &t.responses[2] else {
        panic!()
    };
    assert_eq!((g.revision, meta(&g.kvs[0])), (3, (3, 3, 1)));
    assert_eq!(get(&s, "t2").unwrap().mod_revision, 3);
    // A value compare on a missing key is false, even against "".
    let r = s
        .apply(
            &txn(
                vec![cmp("missing", Equal, CompareTarget::Value(vec![]))],
                vec![op_put("never", "x")],
                vec![op_get("missing")],
            ),
            0,
        )
        .unwrap();
    let Response::Txn(t) = r else { panic!() };
    assert!(!t.succeeded);
    assert_eq!(t.revision, 3, "read-only branch makes no revision");
    // A txn whose only op deletes nothing makes no revision.
    let r = s.apply(
        &txn(
            vec![],
            vec![RequestOp::DeleteRange(DeleteRangeRequest::key("no"))],
            vec![],
        ),
        0,
    );
    assert_eq!(r.unwrap().revision(), 3);
    // Rejections.
    let dup = txn(vec![], vec![op_put("d", "1"), op_put("d", "2")], vec![]);
    assert_eq!(s.apply(&dup, 0), Err(MvccError::DuplicateKey));
    let leased = RequestOp::Put(PutRequest {
        lease: 0x1234abcd,
        ..PutRequest::new("tl", "x")
    });
    assert_eq!(
        s.apply(&txn(vec![], vec![leased], vec![]), 0),
        Err(MvccError::LeaseNotFound)
    );
    let future = RequestOp::Range(RangeRequest {
        revision: 4,
        ..RangeRequest::key("t1")
    });
    assert_eq!(
        s.apply(&txn(vec![], vec![op_put("a", "b"), future], vec![]), 0),
        Err(MvccError::FutureRevision)
    );
    assert_eq!(s.revision(), 3);
    // Nested txn: its compares see the state before any op; its header revision is 0.
    let nested = RequestOp::Txn(TxnRequest {
        compare: vec![cmp("n", Equal, CompareTarget::Version(0))],
        success: vec![op_put("n2", "inner")],
        failure: vec![],
    });
    let r = s
        .apply(&txn(vec![], vec![op_put("n", "outer"), nested], vec![]), 0)
        .unwrap();
    let Response::Txn(t) = r else { panic!() };
    let ResponseOp::Txn(inner) = &t.responses[1] else {
        panic!()
    };
    assert!(inner.succeeded);
    assert_eq!((t.revision, inner.revision), (4, 0));
    assert_eq!(get(&s, "n2").unwrap().mod_revision, 4);
}

#[test]
fn compaction_errors_and_what_survives() {
    let mut s = Store::default();
    put(&mut s, "a", "1").unwrap(); // 2
    put(&mut s, "a", "2").unwrap(); // 3
    s.apply(&del("a", "", false), 0).unwrap(); // 4
    put(&mut s, "b", "1").unwrap(); // 5
    let compact = |rev| {
        Request::Compaction(CompactionRequest {
            revision: rev,
            physical: true,
        })
    };
    assert_eq!(s.apply(&compact(9), 0), Err(MvccError::FutureRevision));
    assert_eq!(s.apply(&compact(4), 0).unwrap().revision(), 5);
    assert_eq!(s.compact_revision(), 4);
    assert_eq!(s.apply(&compact(4), 0), Err(MvccError::Compacted));
    assert_eq!(s.apply(&compact(0), 0), Err(MvccError::Compacted));
    // a's generation ended at 4: gone entirely. b's history stays.
    assert_eq!(s.backend_record_count(), 1);
    assert_eq!(
        s.range(&RangeRequest {
            revision: 4,
            ..RangeRequest::key("a")
        })
        .unwrap()
        .count,
        0
    );
    assert_eq!(s.revision(), 5);
}

#[test]
fn a_delete_lets_go_of_the_leases_of_the_keys_it_deletes_and_no_others() {
    let mut s = Store::default();
    for id in [5, 6] {
        let grant = Request::LeaseGrant(LeaseGrantRequest { id, ttl_s: 60 });
        s.apply(&grant, 0).unwrap();
    }
    for (k, lease) in [("a", 5), ("b", 6), ("c", 5), ("d", 5), ("e", 6)] {
        let p = PutRequest {
            lease,
            ..PutRequest::new(k, "v")
        };
        s.apply(&Request::Put(p), 0).unwrap();
    }
    s.apply(&del("a", "c", false), 0).unwrap();
    s.apply(&del("e", "", false), 0).unwrap();
    s.apply(&del("z", "a", false), 0).unwrap();
    let keys = |s: &Store, id| s.lease_time_to_live(id, true, 0).keys;
    assert_eq!(keys(&s, 5), vec![b"c".to_vec(), b"d".to_vec()]);
    assert_eq!(keys(&s, 6), Vec::<Vec<u8>>::new());
    s.apply(&del("d", "\0", false), 0).unwrap();
    assert_eq!(keys(&s, 5), vec![b"c".to_vec()]);
    let revoke = Request::LeaseRevoke(LeaseRevokeRequest { id: 5 });
    assert_eq!(s.apply(&revoke, 0).unwrap().revision(), 10);
    assert_eq!(get(&s, "c"), None);
    assert_eq!(s.range(&RangeRequest::prefix("")).map(|r| r.count), Ok(0));
}

#[test]
fn leases_revoke_in_one_revision_and_expire() {
    let mut s = Store::default();
    s.lease_promote(0, 0);
    let grant = |id, ttl_s| Request::LeaseGrant(LeaseGrantRequest { id, ttl_s });
    let Response::LeaseGrant(g) = s.apply(&grant(5, 1), 1_000).unwrap() else {
        panic!()
    };
    assert_eq!((g.id, g.ttl_s, g.revision), (5, 2, 1));
    assert_eq!(s.apply(&grant(5, 1), 0), Err(MvccError::LeaseExists));
    assert_eq!(
        s.apply(&grant(6, 9_000_000_001), 0),
        Err(MvccError::LeaseTtlTooLarge)
    );
    for k in ["le2", "le1"] {
        s.apply(
            &Request::Put(PutRequest {
                lease: 5,
                ..PutRequest::new(k, "v")
            }),
            0,
        )
        .unwrap();
    }
    assert_eq!(s.expired_leases(2_999), Vec::<LeaseId>::new());
    assert_eq!(s.expired_leases(3_000), vec![5]);
    let w = s.watch(WatchRequest {
        key: b"le".to_vec(),
        range_end: b"lf".to_vec(),
        ..Default::default()
    });
    let r = s
        .apply(&Request::LeaseRevoke(LeaseRevokeRequest { id: 5 }), 3_000)
        .unwrap();
    assert_eq!(r.revision(), 4);
    let resp = s.take_watch_responses(w);
    assert_eq!(resp.len(), 1);
    let ev: Vec<_> = resp[0]
        .events
        .iter()
        .map(|e| (e.kind, e.kv.key.clone(), e.kv.mod_revision))
        .collect();
    assert_eq!(
        ev,
        vec![
            (EventType::Delete, b"le1".to_vec(), 4),
            (EventType::Delete, b"le2".to_vec(), 4)
        ]
    );
    assert_eq!(
        s.apply(&Request::LeaseRevoke(LeaseRevokeRequest { id: 5 }), 0),
        Err(MvccError::LeaseNotFound)
    );
    let ttl = s.lease_time_to_live(5, true, 0);
    assert_eq!((ttl.ttl_s, ttl.granted_ttl_s), (-1, 0));
    // Revoking a lease without keys makes no revision.
    s.apply(&grant(7, 6), 0).unwrap();
    assert_eq!(
        s.apply(&Request::LeaseRevoke(LeaseRevokeRequest { id: 7 }), 0)
            .unwrap()
            .revision(),
        4
    );
    assert_eq!(s.lease_renew(7, 0), Err(MvccError::LeaseNotFound));
}

#[test]
fn watch_history_live_and_compacted() {
    let mut s = Store::default();
    put(&mut s, "w", "1").unwrap(); // 2
    let live = s.watch(WatchRequest {
        key: b"w".to_vec(),
        prev_kv: true,
        ..Default::default()
    });
    put(&mut s, "w", "2").unwrap(); // 3
    s.apply(&del("w", "", false), 0).unwrap(); // 4
    let resps = s.take_watch_responses(live);
    assert_eq!(
        resps.iter().map(|r| r.revision).collect::<Vec<_>>(),
        vec![3, 4]
    );
    let del_ev = &resps[1].events[0];
    assert_eq!(del_ev.kind, EventType::Delete);
    assert_eq!(
        del_ev.kv,
        KeyValue {
            key: b"w".to_vec(),
            mod_revision: 4,
            ..Default::default()
        }
    );
    assert_eq!(
        del_ev.prev_kv.as_ref().map(|kv| kv.value.clone()),
        Some(b"2".to_vec())
    );
    let hist = s.watch(WatchRequest {
        key: b"w".to_vec(),
        start_revision: 2,
        ..Default::default()
    });
    let resps = s.take_watch_responses(hist);
    assert_eq!(resps.len(), 1);
    assert_eq!(resps[0].revision, 4);
    assert_eq!(resps[0].events.len(), 3);
    assert!(resps[0].events.iter().all(|e| e.prev_kv.is_none()));
    let future = s.watch(WatchRequest {
        key: b"w".to_vec(),
        start_revision: 100,
        ..Default::default()
    });
    put(&mut s, "w", "3").unwrap();
    assert!(s.take_watch_responses(future).is_empty());
    s.apply(
        &Request::Compaction(CompactionRequest {
            revision: 4,
            physical: false,
        }),
        0,
    )
    .unwrap();
    let gone = s.watch(WatchRequest {
        key: b"w".to_vec(),
        start_revision: 3,
        ..Default::default()
    });
    let resps = s.take_watch_responses(gone);
    assert_eq!(
        (
            resps[0].canceled,
            resps[0].compact_revision,
            resps[0].revision
        ),
        (true, 4, 0)
    );
    assert!(s.take_watch_responses(gone).is_empty());
    assert!(s.cancel_watch(hist));
    assert!(!s.cancel_watch(gone));
}

#[test]
fn quota_and_nospace_alarm() {
    let mut s = Store::new(StoreConfig {
        quota_backend_bytes: 1_048_576,
        ..StoreConfig::default()
    });
    let big = vec![b'x'; 65_536];
    let mut fits = 0;
    loop {
        let req = Request::Put(PutRequest::new(format!("big{fits:03}"), big.clone()));
        if s.check_quota(&req).is_err() {
            break;
        }
        s.apply(&req, 0).unwrap();
        fits += 1;
    }
    assert_eq!(
        fits, 9,
        "etcd 3.4.23 took 9 puts of 64 KiB under 1 MiB with one put per commit (recorded \
         with puts batched into fewer commits: 13 or 14)"
    );
    let alarm = |action| {
        Request::Alarm(AlarmRequest {
            action,
            member_id: 42,
            alarm: AlarmType::Nospace,
        })
    };
    s.apply(&alarm(AlarmAction::Activate), 0).unwrap();
    let nospace = Err(MvccError::NoSpace);
    assert_eq!(put(&mut s, "small", "v"), nospace);
    let grant = Request::LeaseGrant(LeaseGrantRequest { id: 1, ttl_s: 60 });
    assert_eq!(s.apply(&grant, 0), nospace);
    assert_eq!(
        s.apply(&txn(vec![], vec![op_put("small", "v")], vec![]), 0),
        nospace
    );
    assert!(s
        .apply(&txn(vec![], vec![op_get("big000")], vec![]), 0)
        .is_ok());
    assert_eq!(
        s.apply(&del("big000", "", false), 0).unwrap().revision(),
        11
    );
    let listed = s.apply(
        &Request::Alarm(AlarmRequest {
            action: AlarmAction::Get,
            member_id: 0,
            alarm: AlarmType::None,
        }),
        0,
    );
    let nospace_member = AlarmMember {
        member_id: 42,
        alarm: AlarmType::Nospace,
    };
    assert_eq!(
        listed,
        Ok(Response::Alarm(AlarmResponse {
            alarms: vec![nospace_member]
        }))
    );
    s.apply(&alarm(AlarmAction::Deactivate), 0).unwrap();
    assert_eq!(
        s.check_quota(&Request::Put(PutRequest::new("small", "v"))),
        Err(MvccError::NoSpace),
        "disarmed too early: the file is still over quota, as in etcd"
    );
    s.apply(&alarm(AlarmAction::Activate), 0).unwrap();
    s.apply(&prefix_del("big"), 0).unwrap();
    s.apply(
        &Request::Compaction(CompactionRequest {
            revision: 12,
            physical: true,
        }),
        0,
    )
    .unwrap();
    assert!(
        s.db_size().size_bytes > 900_000,
        "compaction does not shrink the file"
    );
    s.defrag();
    assert_eq!(
        s.db_size(),
        DbSize {
            size_bytes: 20480,
            in_use_bytes: 12288
        }
    );
    let r = s.apply(&alarm(AlarmAction::Deactivate), 0).unwrap();
    assert_eq!(
        r,
        Response::Alarm(AlarmResponse {
            alarms: vec![nospace_member]
        })
    );
    put(&mut s, "small", "v").unwrap();
    assert_eq!(s.db_size().size_bytes, 20480);
}

#[test]
fn over_quota_write_is_applied_then_refused() {
    let mut s = Store::new(StoreConfig {
        quota_backend_bytes: 30_000,
        ..StoreConfig::default()
    });
    let req = Request::Put(PutRequest::new("k", vec![b'x'; 20_000]));
    assert_eq!(s.check_quota(&req), Err(MvccError::NoSpace));
    assert_eq!(s.apply(&req, 0), Err(MvccError::NoSpace));
    assert_eq!(s.revision(), 2, "etcd applies it and answers NoSpace");
    let unlimited = Store::new(StoreConfig {
        quota_backend_bytes: -1,
        ..StoreConfig::default()
    });
    assert_eq!(unlimited.check_quota(&req), Ok(()));
}

#[test]
fn snapshot_roundtrip_and_bad_input() {
    let mut s = Store::default();
    s.apply(
        &Request::LeaseGrant(LeaseGrantRequest { id: 9, ttl_s: 100 }),
        0,
    )
    .unwrap();
    for i in 0..20 {
        let lease = if i % 3 == 0 { 9 } else { 0 };
        let p = PutRequest {
            lease,
            ..PutRequest::new(format!("k{}", i % 7), format!("v{i}"))
        };
        s.apply(&Request::Put(p), 0).unwrap();
        if i % 5 == 4 {
            s.apply(&del(&format!("k{}", i % 7), "", false), 0).unwrap();
        }
    }
    s.apply(
        &Request::Compaction(CompactionRequest {
            revision: 12,
            physical: false,
        }),
        0,
    )
    .unwrap();
    let image = s.image();
    let bytes = s.encode();
    assert_eq!(image.encode(), bytes);
    // Writes after the image leave it as it was.
    let mut later = s.clone();
    later
        .apply(&Request::Put(PutRequest::new("later", "x")), 0)
        .unwrap();
    assert_eq!(image.encode(), bytes);
    let from_image = image.restore().unwrap();
    let t = Store::decode(&bytes).unwrap();
    assert_eq!(from_image.index, t.index, "the same key index, rebuilt");
    assert_eq!(from_image.backend, t.backend);
    assert_eq!(from_image.lessor, t.lessor);
    assert_eq!(from_image.encode(), bytes);
    assert_eq!(t.revision(), s.revision());
    assert_eq!(t.compact_revision(), 12);
    assert_eq!(t.view().kvs, s.view().kvs);
    assert_eq!(t.hash_kv(0), s.hash_kv(0));
    assert_eq!(t.db_size(), s.db_size());
    assert_eq!(
        t.lease_time_to_live(9, true, 0).keys,
        s.lease_time_to_live(9, true, 0).keys
    );
    for rev in 12..=s.revision() {
        let r = RangeRequest {
            revision: rev,
            ..RangeRequest::prefix("k")
        };
        assert_eq!(t.range(&r), s.range(&r), "at {rev}");
    }
    assert_eq!(t.encode(), bytes);
    assert!(Store::decode(b"nonsense").is_err());
    assert!(Store::decode(&bytes[..bytes.len() / 2]).is_err());
    let text = String::from_utf8(bytes).unwrap();
    let reordered = text.replacen("\"current_rev\":", "\"current_rev\":1,\"x\":", 1);
    assert!(Store::decode(reordered.as_bytes()).is_err());
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value["size"]["pages"]["high_water"] = serde_json::json!(u64::MAX);
    let err = Store::decode(&serde_json::to_vec(&value).unwrap()).unwrap_err();
    assert_eq!(err.0, "bad page model");
}

#[test]
fn request_is_serde_payload() {
    let req = txn(
        vec![cmp("a", Greater, CompareTarget::Lease(3))],
        vec![RequestOp::Txn(TxnRequest::default()), op_put("a", "b")],
        vec![RequestOp::DeleteRange(DeleteRangeRequest::key("z"))],
    );
    let bytes = serde_json::to_vec(&req).unwrap();
    assert_eq!(serde_json::from_slice::<Request>(&bytes).unwrap(), req);
}

/// Replays the `single` scenario of the etcd 3.4.23 fixtures (json pass, whose lease IDs are
/// used) and checks what the real server answered.
#[test]
fn etcd_fixture_single_scenario() {
    const L600: LeaseId = 8606275714869496672; // 776fa22a27de0b60
    const L2: LeaseId = 8606275714869496685; // 776fa22a27de0b6d
    const L3600: LeaseId = 8606275714869496714; // 776fa22a27de0b8a
    let mut s = Store::default();
    assert_eq!(
        s.db_size(),
        DbSize {
            size_bytes: 20480,
            in_use_bytes: 16384
        }
    );
    let clock: Cell<Millis> = Cell::new(0);
    s.lease_promote(0, 0);
    let ok = |s: &mut Store, req: Request, rev: Revision| {
        let got = s
            .apply(&req, clock.get())
            .unwrap_or_else(|e| panic!("{req:?}: {e}"));
        assert_eq!(got.revision(), rev, "{req:?}");
        got
    };
    let p = |k: &str, v: &str| Request::Put(PutRequest::new(k, v));
    let now: Millis = 0;
    // A
    ok(&mut s, p("foo", "bar"), 2);
    let r = ok(
        &mut s,
        Request::Put(PutRequest {
            prev_kv: true,
            ..PutRequest::new("foo", "bar2")
        }),
        3,
    );
    assert!(matches!(
        r,
        Response::Put(PutResponse {
            prev_kv: Some(_),
            ..
        })
    ));
    ok(&mut s, p("foo", "bar3"), 4);
    let r = ok(
        &mut s,
        Request::Put(PutRequest {
            prev_kv: true,
            ..PutRequest::new("dir/a", "1")
        }),
        5,
    );
    assert_eq!(
        r,
        Response::Put(PutResponse {
            revision: 5,
            prev_kv: None
        })
    );
    for (i, (k, v)) in [
        ("dir/b", "2"),
        ("dir/c", "3"),
        ("dir2/x", "x"),
        ("zz", "last"),
        ("dir/a", "11"),
        ("dir/b", "22"),
        ("dir/b", "222"),
    ]
    .into_iter()
    .enumerate()
    {
        ok(&mut s, p(k, v), 6 + i as Revision);
    }
    assert_eq!(meta(&get(&s, "dir/b").unwrap()), (6, 12, 3));
    // C
    ok(&mut s, del("foo", "", false), 13);
    ok(&mut s, p("foo", "reborn"), 14);
    ok(&mut s, del("nosuch", "", false), 14);
    let Response::DeleteRange(d) = ok(
        &mut s,
        {
            let (key, range_end) = prefix_bounds(b"dir/".to_vec());
            Request::DeleteRange(DeleteRangeRequest {
                key,
                range_end,
                prev_kv: true,
            })
        },
        15,
    ) else {
        panic!()
    };
    assert_eq!((d.deleted, d.prev_kvs.len()), (3, 3));
    let Response::DeleteRange(d) = ok(&mut s, del("dir2/x", "foo", false), 16) else {
        panic!()
    };
    assert_eq!(d.deleted, 1);
    ok(&mut s, p("multi", "line1\nline2\n"), 17);
    ok(&mut s, p("-dash", "-val"), 18);
    ok(&mut s, p("ключ", "значение"), 19);
    ok(&mut s, p("k with space", "v with space"), 20);
    assert_eq!(s.apply(&p("", "v"), now), Err(MvccError::EmptyKey));
    ok(
        &mut s,
        Request::Put(PutRequest {
            ignore_value: true,
            ..PutRequest::new("foo", "")
        }),
        21,
    );
    assert_eq!(meta(&get(&s, "foo").unwrap()), (14, 21, 2));
    ok(&mut s, p("emptyval", ""), 22);
    let Response::DeleteRange(d) = ok(&mut s, del("zzz", "\0", false), 23) else {
        panic!()
    };
    assert_eq!(d.deleted, 1, "ключ sorts after zzz");
    // D
    let r = ok(
        &mut s,
        txn(
            vec![
                cmp("foo", Equal, CompareTarget::Value(b"reborn".to_vec())),
                cmp("foo", Equal, CompareTarget::Version(2)),
                cmp("zz", Equal, CompareTarget::Mod(9)),
                cmp("foo", Equal, CompareTarget::Create(14)),
            ],
            vec![
                op_put("t1", "a"),
                op_put("t2", "b"),
                op_get("t1"),
                RequestOp::DeleteRange(DeleteRangeRequest::key("zz")),
            ],
            vec![op_put("t3", "fail")],
        ),
        24,
    );
    let Response::Txn(t) = r else { panic!() };
    assert!(t.succeeded && t.responses.len() == 4);
    ok(
        &mut s,
        txn(
            vec![cmp("foo", Equal, CompareTarget::Value(b"nope".to_vec()))],
            vec![op_put("t3", "ok")],
            vec![op_put("t3", "fail"), op_get("t1")],
        ),
        25,
    );
    ok(&mut s, txn(vec![], vec![op_put("t4", "x")], vec![]), 26);
    ok(
        &mut s,
        txn(
            vec![cmp("missing", Equal, CompareTarget::Version(0))],
            vec![op_get("missing")],
            vec![],
        ),
        26,
    );
    ok(
        &mut s,
        txn(
            vec![
                cmp("foo", Greater, CompareTarget::Version(1)),
                cmp("foo", Less, CompareTarget::Mod(100)),
                cmp("foo", NotEqual, CompareTarget::Value(b"x".to_vec())),
                cmp("t1", Greater, CompareTarget::Value(b"0".to_vec())),
            ],
            vec![op_put("t5", "y")],
            vec![],
        ),
        27,
    );
    let r = ok(
        &mut s,
        txn(
            vec![cmp("t5", Equal, CompareTarget::Value(b"y".to_vec()))],
            vec![RequestOp::Put(PutRequest {
                prev_kv: true,
                ..PutRequest::new("t5", "z")
            })],
            vec![op_get("t5")],
        ),
        28,
    );
    let Response::Txn(t) = r else { panic!() };
    let ResponseOp::Put(pr) = &t.responses[0] else {
        panic!()
    };
    assert_eq!(pr.prev_kv.as_ref().map(meta), Some((27, 27, 1)));
    let keys_only = RequestOp::Range(RangeRequest {
        keys_only: true,
        ..RangeRequest::prefix("t")
    });
    ok(
        &mut s,
        txn(
            vec![],
            vec![op_put("t6", "new"), op_get("t6"), keys_only],
            vec![],
        ),
        29,
    );
    let del_t4 = RequestOp::DeleteRange(DeleteRangeRequest {
        prev_kv: true,
        ..DeleteRangeRequest::key("t4")
    });
    ok(
        &mut s,
        txn(
            vec![cmp("t4", Equal, CompareTarget::Value(b"nope".to_vec()))],
            vec![],
            vec![del_t4],
        ),
        30,
    );
    ok(
        &mut s,
        txn(
            vec![],
            vec![RequestOp::DeleteRange(DeleteRangeRequest::key("nosuch"))],
            vec![],
        ),
        30,
    );
    // E
    let e01 = s.watch(WatchRequest {
        key: b"foo".to_vec(),
        start_revision: 2,
        ..Default::default()
    });
    let e01 = s.take_watch_responses(e01);
    let revs: Vec<_> = e01[0]
        .events
        .iter()
        .map(|e| (e.kind, e.kv.mod_revision))
        .collect();
    use EventType::{Delete as D, Put as P};
    assert_eq!(
        revs,
        vec![(P, 2), (P, 3), (P, 4), (D, 13), (P, 14), (P, 21)]
    );
    assert_eq!(e01[0].revision, 30);
    ok(&mut s, p("w", "1"), 31);
    ok(&mut s, p("w", "2"), 32);
    ok(&mut s, del("w", "", false), 33);
    ok(
        &mut s,
        txn(
            vec![],
            vec![op_put("lw/1", "a"), op_put("lw/2", "b")],
            vec![],
        ),
        34,
    );
    let Response::DeleteRange(d) = ok(&mut s, prefix_del("lw/"), 35) else {
        panic!()
    };
    assert_eq!(d.deleted, 2);
    // F
    let grant = |id, ttl_s| Request::LeaseGrant(LeaseGrantRequest { id, ttl_s });
    ok(&mut s, grant(L600, 600), 35);
    let lp = |k: &str, v: &str, lease| {
        Request::Put(PutRequest {
            lease,
            ..PutRequest::new(k, v)
        })
    };
    ok(&mut s, lp("lk1", "v1", L600), 36);
    ok(&mut s, lp("lk2", "v2", L600), 37);
    let ttl = s.lease_time_to_live(L600, true, now + 500);
    assert_eq!(
        (ttl.ttl_s, ttl.granted_ttl_s, ttl.keys.len()),
        (599, 600, 2)
    );
    ok(
        &mut s,
        Request::Put(PutRequest {
            ignore_lease: true,
            ..PutRequest::new("lk1", "v1b")
        }),
        38,
    );
    assert_eq!(meta(&get(&s, "lk1").unwrap()), (36, 38, 2));
    ok(&mut s, p("lk2", "v2b"), 39);
    assert_eq!(
        s.lease_time_to_live(L600, true, now).keys,
        vec![b"lk1".to_vec()]
    );
    let both = PutRequest {
        ignore_lease: true,
        lease: L600,
        ..PutRequest::new("lk1", "x")
    };
    assert_eq!(
        s.apply(&Request::Put(both), now),
        Err(MvccError::LeaseProvided)
    );
    let missing = PutRequest {
        ignore_lease: true,
        ..PutRequest::new("nokey", "v")
    };
    assert_eq!(
        s.apply(&Request::Put(missing), now),
        Err(MvccError::KeyNotFound)
    );
    ok(
        &mut s,
        Request::LeaseRevoke(LeaseRevokeRequest { id: L600 }),
        40,
    );
    assert_eq!(
        s.apply(&Request::LeaseRevoke(LeaseRevokeRequest { id: L600 }), now),
        Err(MvccError::LeaseNotFound)
    );
    assert_eq!(
        s.apply(&lp("lk3", "v", L600), now),
        Err(MvccError::LeaseNotFound)
    );
    let Response::LeaseGrant(g) = ok(&mut s, grant(L2, 1), 40) else {
        panic!()
    };
    assert_eq!(g.ttl_s, 2);
    ok(&mut s, lp("le1", "a", L2), 41);
    ok(&mut s, lp("le2", "b", L2), 42);
    clock.set(4_000);
    let now = clock.get();
    for id in s.expired_leases(now) {
        ok(&mut s, Request::LeaseRevoke(LeaseRevokeRequest { id }), 43);
    }
    assert_eq!(s.range(&RangeRequest::prefix("le")).unwrap().count, 0);
    assert_eq!(
        s.apply(&grant(1, 9_000_000_001), now),
        Err(MvccError::LeaseTtlTooLarge)
    );
    ok(&mut s, grant(L3600, 3600), 43);
    ok(&mut s, lp("keep/leased", "yes", L3600), 44);
    // G
    assert_eq!(
        s.range(&RangeRequest {
            revision: 13,
            ..RangeRequest::key("foo")
        })
        .unwrap()
        .count,
        0
    );
    let compact = |revision| {
        Request::Compaction(CompactionRequest {
            revision,
            physical: false,
        })
    };
    ok(&mut s, compact(14), 44);
    let err = |s: &Store, rev| {
        s.range(&RangeRequest {
            revision: rev,
            ..RangeRequest::key("foo")
        })
    };
    assert_eq!(err(&s, 13), Err(MvccError::Compacted));
    assert_eq!(err(&s, 14).unwrap().kvs[0].value, b"reborn".to_vec());
    let g06 = s
        .range(&RangeRequest {
            revision: 14,
            ..RangeRequest::prefix("")
        })
        .unwrap();
    assert_eq!(g06.count, 6);
    assert_eq!(s.apply(&compact(14), now), Err(MvccError::Compacted));
    assert_eq!(
        s.apply(&compact(99999), now),
        Err(MvccError::FutureRevision)
    );
    let w = s.watch(WatchRequest {
        key: b"foo".to_vec(),
        start_revision: 5,
        ..Default::default()
    });
    let w = s.take_watch_responses(w);
    assert!(w[0].canceled && w[0].compact_revision == 14);
    let w = s.watch(WatchRequest {
        key: b"foo".to_vec(),
        start_revision: 14,
        ..Default::default()
    });
    assert_eq!(s.take_watch_responses(w)[0].events.len(), 2);
    ok(&mut s, compact(44), 44);
    assert_eq!(err(&s, 43), Err(MvccError::Compacted));
    let h = s.hash_kv(0).unwrap();
    assert_eq!(
        (h.hash, h.revision, h.compact_revision),
        (1880204132, 44, 44),
        "G16 hashkv"
    );
    assert_eq!(s.hash_kv(44), Err(MvccError::Compacted));
    assert_eq!(s.hash_kv(3), Err(MvccError::Compacted));
    s.defrag();
    assert_eq!(
        s.db_size(),
        DbSize {
            size_bytes: 20480,
            in_use_bytes: 12288
        },
        "H02"
    );
    assert_eq!(s.view().kvs.len(), 12);
    let restored = Store::decode(&s.encode()).unwrap();
    assert_eq!(
        restored.db_size(),
        DbSize {
            size_bytes: 20480,
            in_use_bytes: 12288
        },
        "I10"
    );
    assert_eq!(restored.leases(), vec![L3600], "I12");
    assert_eq!(restored.hash_kv(0), s.hash_kv(0));
}

/// The page's views read only what they draw: the first keys of a store, and the keys and
/// mod revisions under a prefix from the index; both as the full view has them.
#[test]
fn a_view_of_the_first_keys_and_the_keys_under_a_prefix_agree_with_the_full_view() {
    let mut s = Store::new(StoreConfig::default());
    for (k, v) in [
        ("b/2", "x"),
        ("a", "1"),
        ("b/1", "y"),
        ("c", "z"),
        ("b/3", "w"),
    ] {
        put(&mut s, k, v).unwrap();
    }
    put(&mut s, "b/1", "again").unwrap();
    s.apply(&del("c", "", false), 0).unwrap();
    let full = s.view();
    assert_eq!(full.live_keys, 4);
    let first = s.view_first(2);
    assert_eq!(first.kvs, full.kvs[..2]);
    assert_eq!((first.live_keys, first.revision), (4, full.revision));
    let under: Vec<(Vec<u8>, Revision)> = full
        .kvs
        .iter()
        .filter(|kv| kv.key.starts_with(b"b/"))
        .map(|kv| (kv.key.clone(), kv.mod_revision))
        .collect();
    let end = prefix_range_end(b"b/");
    assert_eq!(s.live_keys(b"b/", &end, usize::MAX), (under.clone(), 3));
    assert_eq!(s.live_keys(b"b/", &end, 2), (under[..2].to_vec(), 3));
    assert_eq!(under.len(), 3);
}
