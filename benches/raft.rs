//! A 5-member cluster of bare Raft nodes committing 100,000 proposals in memory: every message
//! delivered at once, every Ready persisted to an in-memory `Durable`. Measures the engine
//! alone (no simulator, no state machine). `cargo bench --bench raft`.
//! Under `cargo test` (no `--bench` flag) it commits 1,000 so the test run stays quick.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use raftlab::base::{Index, MemberId, Rng};
use raftlab::raft::{Config, Durable, Message, Raft};
use std::collections::VecDeque;

const MEMBERS: u64 = 5;
/// Proposals handed to the leader between two rounds of message delivery.
const BATCH: u64 = 256;

struct Bus {
    nodes: Vec<Raft>,
    disks: Vec<Durable>,
    queue: VecDeque<Message>,
}

impl Bus {
    fn new() -> Bus {
        let voters: Vec<MemberId> = (1..=MEMBERS).map(MemberId).collect();
        let nodes = voters
            .iter()
            .map(|id| Raft::new(Config::new(*id, voters.clone()), Rng::new(id.0)))
            .collect();
        Bus {
            nodes,
            disks: vec![Durable::default(); MEMBERS as usize],
            queue: VecDeque::new(),
        }
    }

    /// Persists, sends and delivers until nothing moves.
    fn pump(&mut self) {
        loop {
            let mut moved = false;
            for (node, disk) in self.nodes.iter_mut().zip(self.disks.iter_mut()) {
                if node.has_ready() {
                    let rd = node.ready();
                    disk.persist(&rd);
                    node.advance(&rd);
                    self.queue.extend(rd.messages);
                    moved = true;
                }
            }
            while let Some(m) = self.queue.pop_front() {
                self.nodes[(m.to.0 - 1) as usize].step(m);
                moved = true;
            }
            if !moved {
                return;
            }
        }
    }

    /// Elects m1, then commits `n` proposals through it; returns the commit index reached.
    fn commit(n: u64) -> Index {
        let mut bus = Bus::new();
        bus.nodes[0].force_timeout();
        bus.pump();
        assert!(bus.nodes[0].is_leader());
        let target = bus.nodes[0].log().committed + n;
        let data = vec![b'v'; 64];
        let mut proposed = 0;
        while bus.nodes[0].log().committed < target {
            for _ in 0..BATCH.min(n - proposed) {
                bus.nodes[0].propose(data.clone()).expect("leader accepts");
                proposed += 1;
            }
            bus.pump();
        }
        bus.nodes[0].log().committed
    }
}

fn bench(c: &mut Criterion) {
    let full = std::env::args().any(|a| a == "--bench");
    let n: u64 = if full { 100_000 } else { 1_000 };
    let mut group = c.benchmark_group("raft_5_members");
    group.sample_size(10);
    group.throughput(Throughput::Elements(n));
    group.bench_function(format!("commit_{n}_proposals"), |b| {
        b.iter(|| Bus::commit(n))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
