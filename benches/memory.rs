//! Memory and speed of long runs, as the page runs them (time-travel checkpoints and the
//! invariant monitor on): 3 members with Kubernetes up for 5, 10, 20 and 60 virtual minutes
//! and for 3 hours, the hour again as `raftlab run` runs it (no monitor), and 3 and 5 members
//! without Kubernetes for an hour. Each run is a child process of this one, so each peak is its
//! own. `cargo bench --bench memory` prints the table; under `cargo test` (no `--bench` flag)
//! it runs one short case, to keep the test run quick.
//! Goals (issue 16): an hour with Kubernetes in at most 128 MB of peak RSS and 3 s. Before
//! the checkpoints shared their data (056e261), `raftlab run` took 1.0 GB and 3.3 s for 5
//! minutes, 1.75 GB and 7.9 s for 10, and 7.7 GB and 27 s for an hour.
//! `RAFTLAB_BENCH_WRITES_S=S` runs only #14's memory run instead (`benches/support/writes.rs`:
//! S virtual seconds at 100 writes/s on 3 members) and prints its `bench-row` for `./x bench`.

#[path = "support/writes.rs"]
mod writes;

use raftlab::cli::memory::{peak_rss_bytes, soak_script, PeakAlloc};
use raftlab::console::{run_script, Session};
use raftlab::etcd::ClusterConfig;
use std::process::Command;
use std::time::Instant;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc::new();

const CHILD: &str = "RAFTLAB_MEMORY_CASE";
const WRITES: &str = "RAFTLAB_BENCH_WRITES_S";

/// (members, Kubernetes up, virtual seconds, invariant monitor on).
const CASES: [(usize, bool, u64, bool); 8] = [
    (3, true, 300, true),
    (3, true, 600, true),
    (3, true, 1_200, true),
    (3, true, 3_600, true),
    (3, true, 10_800, true),
    // As `raftlab run` runs it (no monitor): the issue's own measurement.
    (3, true, 3_600, false),
    (3, false, 3_600, true),
    (5, false, 3_600, true),
];

fn main() {
    if let Ok(case) = std::env::var(CHILD) {
        return child(&case);
    }
    if let Ok(seconds) = std::env::var(WRITES) {
        return writes_case(seconds.parse().expect("RAFTLAB_BENCH_WRITES_S=SECONDS"));
    }
    let benching = std::env::args().any(|a| a == "--bench");
    let cases: &[(usize, bool, u64, bool)] = if benching {
        &CASES
    } else {
        &[(3, true, 60, true)]
    };
    println!("| members | Kubernetes | virtual time | monitor | peak RSS | peak heap | wall |");
    println!("|---|---|---|---|---|---|---|");
    for &(members, kube, seconds, monitor) in cases {
        let exe = std::env::current_exe().expect("the benchmark's own path");
        let out = Command::new(exe)
            .env(CHILD, format!("{members} {kube} {seconds} {monitor}"))
            .output()
            .expect("run a case");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "case failed: {report}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        println!("{}", report.trim_end());
    }
}

// A benchmark measures wall time: the one clock the engine never reads.
#[allow(clippy::disallowed_methods)]
fn child(case: &str) {
    let mut words = case.split(' ');
    let members: usize = words.next().and_then(|w| w.parse().ok()).unwrap_or(3);
    let kube = words.next() == Some("true");
    let seconds: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(60);
    let monitor = words.next() == Some("true");
    let mut session = Session::new(ClusterConfig::new(members, 1));
    if monitor {
        session.watch_invariants();
    }
    let start = Instant::now();
    let run = run_script(&mut session, &soak_script(kube, seconds), false);
    let wall = start.elapsed();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mb = |bytes: f64| bytes / 1e6;
    println!(
        "| {members} | {} | {} s | {} | {:.1} MB | {:.1} MB | {:.2} s |",
        if kube { "up" } else { "no" },
        seconds,
        if monitor { "on" } else { "off" },
        mb(peak_rss_bytes().unwrap_or(0) as f64),
        mb(ALLOC.peak_bytes() as f64),
        wall.as_secs_f64()
    );
}

/// #14's memory run in this process, alone (so the peak RSS is its own).
#[allow(clippy::disallowed_methods)]
fn writes_case(seconds: u64) {
    const MEMBERS: usize = 3;
    const PER_S: u64 = 100;
    let start = Instant::now();
    let run = writes::run(MEMBERS, seconds, PER_S);
    let wall = start.elapsed();
    assert_eq!(run.answered, seconds * PER_S, "every put answered");
    let kept = run.session.checkpoint_times();
    println!(
        "bench-row memory native: {seconds} virtual s, {MEMBERS} members, {PER_S} writes/s, \
         checkpoints and monitor on: peak RSS {:.1} MB, peak heap {:.1} MB, {:.1} s wall \
         ({} checkpoints kept, spanning {:.0} s to {:.0} s, a rewind finds any moment)",
        peak_rss_bytes().unwrap_or(0) as f64 / 1e6,
        ALLOC.peak_bytes() as f64 / 1e6,
        wall.as_secs_f64(),
        kept.len(),
        kept.first().copied().unwrap_or(0) as f64 / 1000.0,
        kept.last().copied().unwrap_or(0) as f64 / 1000.0,
    );
}
