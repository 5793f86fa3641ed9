//! Memory stays bounded: ten virtual minutes with Kubernetes up, time-travel checkpoints and
//! the invariant monitor on (as the page runs), under a generous bound on the heap's peak.
//! A bound on bytes is stable where a bound on seconds is not; `./x bench` measures the rest.
//! (Before the checkpoints shared their data, this run peaked at about 1.7 GB.)

use raftlab::cli::memory::{peak_rss_bytes, soak_script, PeakAlloc};
use raftlab::console::{run_script, Session};
use raftlab::etcd::ClusterConfig;

#[global_allocator]
static ALLOC: PeakAlloc = PeakAlloc::new();

/// What a whole hour may take (the benchmark's goal), so ten minutes fit with room to spare.
const PEAK_HEAP_BOUND: usize = 128 << 20;

#[test]
fn ten_minutes_with_kubernetes_stay_under_the_bound() {
    let mut session = Session::new(ClusterConfig::new(3, 1));
    session.watch_invariants();
    ALLOC.reset_peak();
    let run = run_script(&mut session, &soak_script(true, 600), false);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(session.kube.is_some(), "Kubernetes ran");
    let peak = ALLOC.peak_bytes();
    println!(
        "memory: 10 virtual minutes, 3 members + Kubernetes: peak heap {:.1} MB, peak RSS {:.1} MB",
        peak as f64 / 1e6,
        peak_rss_bytes().unwrap_or(0) as f64 / 1e6
    );
    assert!(
        peak < PEAK_HEAP_BOUND,
        "peak heap {peak} bytes is over the bound of {PEAK_HEAP_BOUND}"
    );
}
