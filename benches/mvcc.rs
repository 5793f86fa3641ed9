//! MVCC store throughput on a store of 100,000 keys: puts (overwrites, one revision each),
//! single-key gets and 100-key prefix ranges. `cargo bench --bench mvcc -- --quick`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use raftlab::mvcc::{PutRequest, RangeRequest, Request, Store};

const KEYS: u64 = 100_000;

fn key(i: u64) -> Vec<u8> {
    format!("/registry/pods/ns{:03}/pod-{:06}", i % 1000, i).into_bytes()
}

fn filled_store() -> Store {
    let mut s = Store::default();
    for i in 0..KEYS {
        let req = Request::Put(PutRequest::new(key(i), vec![b'v'; 64]));
        s.apply(&req, 0).expect("put");
    }
    s
}

fn bench(c: &mut Criterion) {
    let mut store = filled_store();
    let mut g = c.benchmark_group("mvcc_100k_keys");
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    g.bench_function("put_overwrite", |b| {
        b.iter(|| {
            i = (i + 7919) % KEYS;
            let req = Request::Put(PutRequest::new(key(i), vec![b'w'; 64]));
            black_box(store.apply(&req, 0).expect("put"));
        })
    });
    let mut j = 0u64;
    g.bench_function("get_one_key", |b| {
        b.iter(|| {
            j = (j + 7919) % KEYS;
            black_box(store.range(&RangeRequest::key(key(j))).expect("get"));
        })
    });
    let mut n = 0u64;
    g.bench_function("range_prefix_100_keys", |b| {
        b.iter(|| {
            n = (n + 1) % 1000;
            let r = RangeRequest::prefix(format!("/registry/pods/ns{n:03}/"));
            let resp = store.range(&r).expect("range");
            assert_eq!(resp.count, 100);
            black_box(resp);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
