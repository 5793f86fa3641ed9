//! Issue #14's engine workload, run on our engine and on tikv raft-rs 0.7 in one criterion
//! run: 5 voters in memory, one thread, N 64-byte `key=value` proposals on the leader, B per
//! round, pumped to quiescence; every member applies to its own `BTreeMap`; the clock stops
//! when all 5 applied all N. Also the state-machine limit: the same inserts into 5 `BTreeMap`s
//! with no consensus. Prints the ratios and the messages per entry of each engine.
//! Our engine runs with `Config::batch_append` on; raft-rs runs twice, with its defaults (its
//! own `batch_append` off, one entry per append) and with its batching on.
//! `cargo bench --bench raft` (N = 100,000). Under `cargo test` (no `--bench`) N = 1,000 and
//! each engine runs once, so the workload cannot rot; nothing about time is asserted.
//! `RAFTLAB_BENCH_ONCE=ENGINE:B` runs one engine once, for callgrind (`./x bench`);
//! `RAFTLAB_BENCH_N` sets N (both there and for the full run); `RAFTLAB_BENCH_CRITERION=0`
//! prints the table's rows without criterion's own runs after them.

#[path = "support/workload.rs"]
mod workload;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::time::{Duration, Instant};
use workload::{limit, ours, Outcome, Workload};

const BATCHES: [usize; 3] = [1, 16, 256];

mod theirs {
    use super::workload::{apply, Outcome, Workload, MEMBERS};
    use raft::eraftpb::{ConfState, Message};
    use raft::storage::MemStorage;
    use raft::{Config, RawNode};
    use std::collections::{BTreeMap, VecDeque};

    type Node = RawNode<MemStorage>;

    fn handle(node: &mut Node, sm: &mut BTreeMap<Vec<u8>, Vec<u8>>, out: &mut VecDeque<Message>) {
        let mut rd = node.ready();
        out.extend(rd.take_messages());
        for e in rd.take_committed_entries() {
            apply(sm, &e.data);
        }
        let store = node.raft.raft_log.store.clone();
        store.wl().append(rd.entries()).expect("in memory");
        if let Some(hs) = rd.hs() {
            store.wl().set_hardstate(hs.clone());
        }
        out.extend(rd.take_persisted_messages());
        let mut light = node.advance(rd);
        out.extend(light.take_messages());
        for e in light.take_committed_entries() {
            apply(sm, &e.data);
        }
        node.advance_apply();
    }

    fn pump(nodes: &mut [Node], sms: &mut [BTreeMap<Vec<u8>, Vec<u8>>], messages: &mut u64) {
        let mut queue = VecDeque::new();
        loop {
            let mut moved = false;
            for (node, sm) in nodes.iter_mut().zip(sms.iter_mut()) {
                if node.has_ready() {
                    handle(node, sm, &mut queue);
                    moved = true;
                }
            }
            while let Some(m) = queue.pop_front() {
                *messages += 1;
                nodes[(m.to - 1) as usize]
                    .step(m)
                    .expect("a peer's message");
                moved = true;
            }
            if !moved {
                return;
            }
        }
    }

    /// raft-rs with its defaults: one append per proposal per follower.
    pub fn run(w: &Workload) -> Outcome {
        run_with(w, Config::default())
    }

    /// raft-rs with its own batching on (`batch_append`, appends up to 1 MiB), as ours runs:
    /// the fair comparison for the batched rounds.
    pub fn run_batched(w: &Workload) -> Outcome {
        let config = Config {
            batch_append: true,
            max_size_per_msg: 1 << 20,
            ..Config::default()
        };
        run_with(w, config)
    }

    fn run_with(w: &Workload, base: Config) -> Outcome {
        let logger = slog::Logger::root(slog::Discard, slog::o!());
        let voters: Vec<u64> = (1..=MEMBERS).collect();
        let mut nodes: Vec<Node> = voters
            .iter()
            .map(|id| {
                let storage =
                    MemStorage::new_with_conf_state(ConfState::from((voters.clone(), vec![])));
                let config = Config {
                    id: *id,
                    ..base.clone()
                };
                RawNode::new(&config, storage, &logger).expect("valid config")
            })
            .collect();
        let mut sms = vec![BTreeMap::new(); MEMBERS as usize];
        let mut messages = 0;
        nodes[0].campaign().expect("campaign");
        pump(&mut nodes, &mut sms, &mut messages);
        for chunk in w.proposals.chunks(w.batch) {
            for p in chunk {
                nodes[0].propose(vec![], p.clone()).expect("leader accepts");
            }
            pump(&mut nodes, &mut sms, &mut messages);
        }
        assert!(sms.iter().all(|sm| sm.len() == w.proposals.len()));
        Outcome { messages }
    }
}

type Engine = (&'static str, fn(&Workload) -> Outcome);
const ENGINES: [Engine; 4] = [
    ("raftlab", ours),
    ("raft-rs", theirs::run),
    ("btreemap-limit", limit),
    ("raft-rs-batched", theirs::run_batched),
];

/// Median wall time of `samples` runs, and the messages of one.
#[allow(clippy::disallowed_methods)] // a benchmark is the one place that reads the real clock
fn measure(run: fn(&Workload) -> Outcome, w: &Workload, samples: usize) -> (Duration, u64) {
    let mut times = Vec::new();
    let mut messages = 0;
    for _ in 0..samples {
        let start = Instant::now();
        messages = run(w).messages;
        times.push(start.elapsed());
    }
    times.sort();
    (times[times.len() / 2], messages)
}

/// One table row per batch: `bench-row` lines that `./x bench` collects into its table.
fn report(n: usize, samples: usize) {
    for batch in BATCHES {
        let w = Workload::new(n, batch);
        let rows: Vec<(Duration, u64)> = ENGINES
            .iter()
            .map(|(_, run)| measure(*run, &w, samples))
            .collect();
        let per_s = |d: Duration| n as f64 / d.as_secs_f64();
        let (ours, theirs, limit, batched) = (rows[0], rows[1], rows[2], rows[3]);
        let ratio = |other: Duration| other.as_secs_f64() / ours.0.as_secs_f64();
        let per_entry = |messages: u64| messages as f64 / n as f64;
        println!(
            "bench-row engine B={batch}: raftlab {:.0}/s, raft-rs {:.0}/s, ratio {:.2}x; \
             msgs/entry {:.2} vs {:.2}; raft-rs batched {:.0}/s, ratio {:.2}x, msgs/entry \
             {:.2}; state-machine limit {:.0}/s (raftlab at {:.2}x of it)",
            per_s(ours.0),
            per_s(theirs.0),
            ratio(theirs.0),
            per_entry(ours.1),
            per_entry(theirs.1),
            per_s(batched.0),
            ratio(batched.0),
            per_entry(batched.1),
            per_s(limit.0),
            ratio(limit.0),
        );
    }
}

fn bench(c: &mut Criterion) {
    if let Ok(once) = std::env::var("RAFTLAB_BENCH_ONCE") {
        let (name, batch) = once.split_once(':').expect("RAFTLAB_BENCH_ONCE=ENGINE:B");
        let n = std::env::var("RAFTLAB_BENCH_N").map_or(100_000, |v| v.parse().expect("N"));
        let run = ENGINES
            .iter()
            .find(|(e, _)| *e == name)
            .expect("an engine name")
            .1;
        let out = run(&Workload::new(n, batch.parse().expect("B")));
        println!(
            "bench-once {name} B={batch} N={n} messages={}",
            out.messages
        );
        // criterion_main parses the arguments again after the run, on a heap the run left
        // fragmented: ~2k instructions per entry of the 2N − N difference, for either engine.
        std::process::exit(0);
    }
    let full = std::env::args().any(|a| a == "--bench");
    let n = match std::env::var("RAFTLAB_BENCH_N") {
        Ok(v) if full => v.parse().expect("RAFTLAB_BENCH_N=ENTRIES"),
        _ if full => 100_000,
        _ => 1_000,
    };
    report(n, if full { 5 } else { 1 });
    if !full || std::env::var("RAFTLAB_BENCH_CRITERION").is_ok_and(|v| v == "0") {
        return;
    }
    let mut group = c.benchmark_group("engine_5_members");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n as u64));
    for batch in BATCHES {
        let w = Workload::new(n, batch);
        for (name, run) in ENGINES {
            group.bench_function(format!("{name}/B={batch}"), |b| b.iter(|| run(&w)));
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
