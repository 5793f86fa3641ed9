//! The same story under different seeds: the timing of elections changes, the safety of the
//! outcome does not. Every invariant checker runs after every single event.

use raftlab::base::{MemberId, Millis};
use raftlab::check::Monitor;
use raftlab::etcd::{Cluster, ClusterConfig};

/// Steps the world event by event for `ms`, feeding the monitor after each.
fn run_checked(c: &mut Cluster, monitor: &mut Monitor, ms: Millis) {
    let end = c.now() + ms;
    while c.next_event_time().is_some_and(|t| t <= end) {
        c.step();
        monitor.observe(c);
    }
    c.run_until(end);
}

/// Kill the leader, cut the new one off, heal, restart: returns when the first leader was
/// elected, and the monitor's verdict.
fn story(seed: u64) -> (Millis, Monitor) {
    let mut c = ClusterConfig::new(5, seed).build();
    let mut monitor = Monitor::new();
    let mut first_leader_at = None;
    let end = 3_000;
    while c.now() < end && c.step() {
        monitor.observe(&c);
        if first_leader_at.is_none() && c.leader().is_some() {
            first_leader_at = Some(c.now());
        }
    }
    let first = first_leader_at.unwrap_or_else(|| panic!("seed {seed}: no leader in 3 s"));
    let leader = c.leader().unwrap();
    for i in 0..3 {
        let _ = c.propose(leader, format!("v{i}").into_bytes());
    }
    run_checked(&mut c, &mut monitor, 500);
    c.kill(leader).unwrap();
    run_checked(&mut c, &mut monitor, 4_000);
    if let Some(second) = c.leader() {
        let others: Vec<MemberId> = c
            .member_ids()
            .into_iter()
            .filter(|m| *m != second)
            .collect();
        c.net.isolate(second, &others);
        let _ = c.propose(second, b"cut off".to_vec());
    }
    run_checked(&mut c, &mut monitor, 4_000);
    c.net.heal();
    c.restart(leader).unwrap();
    run_checked(&mut c, &mut monitor, 6_000);
    assert!(c.leader().is_some(), "seed {seed}: no leader after healing");
    (first, monitor)
}

#[test]
fn different_seeds_change_timing_not_safety() {
    let mut first_election_times = Vec::new();
    for seed in 1..=40 {
        let (first, monitor) = story(seed);
        let unsafe_ones: Vec<String> = monitor
            .violations()
            .iter()
            .filter(|v| v.property.is_safety())
            .map(|v| v.to_string())
            .collect();
        assert!(
            unsafe_ones.is_empty(),
            "seed {seed}: {unsafe_ones:?} (reproduce with this seed)"
        );
        first_election_times.push(first);
    }
    first_election_times.sort_unstable();
    first_election_times.dedup();
    assert!(
        first_election_times.len() >= 10,
        "elections should happen at different moments under different seeds: {first_election_times:?}"
    );
}

#[test]
fn the_same_seed_twice_gives_the_same_trace() {
    let run = |seed| {
        let mut c = ClusterConfig::new(5, seed).build();
        let mut m = Monitor::new();
        run_checked(&mut c, &mut m, 5_000);
        (c.trace_hash(), c.steps())
    };
    assert_eq!(run(77), run(77));
}
