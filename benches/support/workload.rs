//! Issue #14's engine workload, shared by `benches/raft.rs` (native, beside raft-rs) and
//! `benches/wasm/engine.rs` (the same code built for wasm32 and run in headless Chromium), so
//! the native and the wasm figures time one piece of code.

use raftlab::base::{MemberId, Rng};
use raftlab::raft::{Config, Durable, Message, Raft};
use std::collections::{BTreeMap, VecDeque};

pub const MEMBERS: u64 = 5;
pub const ENTRY_BYTES: usize = 64;

/// The workload every engine runs: its proposals and how many go in one round.
pub struct Workload {
    pub proposals: Vec<Vec<u8>>,
    pub batch: usize,
}

impl Workload {
    pub fn new(n: usize, batch: usize) -> Workload {
        let proposals = (0..n)
            .map(|i| {
                let mut p = format!("key{i:08}=").into_bytes();
                p.resize(ENTRY_BYTES, b'v');
                p
            })
            .collect();
        Workload { proposals, batch }
    }
}

/// A member's state machine: `key=value` entries inserted into a `BTreeMap`.
pub fn apply(sm: &mut BTreeMap<Vec<u8>, Vec<u8>>, data: &[u8]) {
    if let Some(eq) = data.iter().position(|b| *b == b'=') {
        sm.insert(data[..eq].to_vec(), data[eq + 1..].to_vec());
    }
}

/// What one run reports: the messages delivered.
pub struct Outcome {
    pub messages: u64,
}

/// Our engine: 5 voters in memory, pumped to quiescence after each round of proposals.
pub fn ours(w: &Workload) -> Outcome {
    let voters: Vec<MemberId> = (1..=MEMBERS).map(MemberId).collect();
    let mut nodes: Vec<Raft> = voters
        .iter()
        .map(|id| {
            let mut config = Config::new(*id, voters.clone());
            // raft-rs's option of the same name (off in the raft-rs run, as in its defaults):
            // a round's proposals ride one append per follower, not one each.
            config.batch_append = true;
            Raft::new(config, Rng::new(id.0))
        })
        .collect();
    let mut disks = vec![Durable::default(); MEMBERS as usize];
    let mut sms = vec![BTreeMap::new(); MEMBERS as usize];
    let mut queue: VecDeque<Message> = VecDeque::new();
    let mut messages = 0;
    let mut pump = |nodes: &mut Vec<Raft>, sms: &mut Vec<BTreeMap<_, _>>| loop {
        let mut moved = false;
        for ((node, disk), sm) in nodes.iter_mut().zip(disks.iter_mut()).zip(sms.iter_mut()) {
            if node.has_ready() {
                let mut rd = node.ready();
                disk.persist(&rd);
                queue.extend(rd.messages.drain(..));
                for e in &rd.committed_entries {
                    apply(sm, &e.data);
                }
                node.advance(&rd);
                node.recycle(&mut rd);
                moved = true;
            }
        }
        while let Some(m) = queue.pop_front() {
            messages += 1;
            nodes[(m.to.0 - 1) as usize].step(m);
            moved = true;
        }
        if !moved {
            return;
        }
    };
    nodes[0].force_timeout();
    pump(&mut nodes, &mut sms);
    assert!(nodes[0].is_leader());
    for chunk in w.proposals.chunks(w.batch) {
        for p in chunk {
            nodes[0].propose(p.clone()).expect("leader accepts");
        }
        pump(&mut nodes, &mut sms);
    }
    assert!(sms.iter().all(|sm| sm.len() == w.proposals.len()));
    Outcome { messages }
}

/// The state-machine limit: the same inserts into 5 `BTreeMap`s, no consensus.
pub fn limit(w: &Workload) -> Outcome {
    let mut sms = vec![BTreeMap::new(); MEMBERS as usize];
    for p in &w.proposals {
        for sm in sms.iter_mut() {
            apply(sm, p);
        }
    }
    Outcome { messages: 0 }
}
