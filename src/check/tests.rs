use super::*;
use crate::etcd::ClusterConfig;

fn run_checked(cluster: &mut Cluster, monitor: &mut Monitor, ms: Millis) {
    let deadline = cluster.now() + ms;
    while cluster.next_event_time().is_some_and(|t| t <= deadline) {
        cluster.step();
        let new = monitor.observe(cluster);
        assert!(new.is_empty(), "{}", new[0]);
    }
    cluster.run_until(deadline);
}

#[test]
fn a_healthy_cluster_with_crashes_breaks_nothing() {
    let mut c = ClusterConfig::new(5, 11).build();
    let mut monitor = Monitor::new();
    run_checked(&mut c, &mut monitor, 3_000);
    for round in 0..6u8 {
        let leader = c.leader().expect("a leader");
        c.propose(leader, vec![b'a' + round]).unwrap();
        run_checked(&mut c, &mut monitor, 500);
        c.kill(leader).unwrap();
        run_checked(&mut c, &mut monitor, 3_000);
        c.restart(leader).unwrap();
        run_checked(&mut c, &mut monitor, 1_000);
    }
    assert!(monitor.is_clean());
    assert_eq!(monitor.properties(), Property::ALL.to_vec());
}

#[test]
fn a_partitioned_leader_steps_down_within_the_bound() {
    let mut c = ClusterConfig::new(3, 5).build();
    let mut monitor = Monitor::with(&[Property::StaleLeader, Property::Disruption]);
    run_checked(&mut c, &mut monitor, 3_000);
    let leader = c.leader().unwrap();
    let others: Vec<MemberId> = c
        .member_ids()
        .into_iter()
        .filter(|m| *m != leader)
        .collect();
    c.net.isolate(leader, &others);
    run_checked(&mut c, &mut monitor, 10_000);
    c.net.heal();
    run_checked(&mut c, &mut monitor, 5_000);
    assert!(monitor.is_clean());
}

#[test]
fn a_stale_leader_is_reported_once_with_a_readable_sentence() {
    let mut config = ClusterConfig::new(3, 5);
    config.check_quorum = false;
    let mut c = config.build();
    let mut monitor = Monitor::with(&[Property::StaleLeader]);
    c.run_until_cond(5_000, |c| c.leader().is_some());
    let leader = c.leader().unwrap();
    let others: Vec<MemberId> = c
        .member_ids()
        .into_iter()
        .filter(|m| *m != leader)
        .collect();
    c.net.isolate(leader, &others);
    let mut seen = Vec::new();
    let deadline = c.now() + 10_000;
    while c.next_event_time().is_some_and(|t| t <= deadline) {
        c.step();
        seen.extend(monitor.observe(&c));
    }
    assert_eq!(seen.len(), 1, "{seen:?}");
    let text = seen[0].to_string();
    assert!(
        text.starts_with(&format!("stale leader: {leader} still leads term ")),
        "{text}"
    );
    assert!(
        text.contains(&format!("it reaches only {leader} of 3 voters")),
        "{text}"
    );
    assert_eq!(monitor.violations(), &seen[..]);
    assert!(monitor.saw(Property::StaleLeader) && !monitor.saw(Property::Disruption));
}

#[test]
fn violations_read_as_sentences() {
    let v = Violation {
        property: Property::ElectionSafety,
        time_ms: 1200,
        members: vec![MemberId(1), MemberId(3)],
        detail: "m1 and m3 both led term 4".into(),
    };
    assert_eq!(v.to_string(), "election safety: m1 and m3 both led term 4");
    let safety: Vec<&str> = Property::ALL
        .iter()
        .filter(|p| p.is_safety())
        .map(|p| p.name())
        .collect();
    assert_eq!(
        safety,
        [
            "election safety",
            "log matching",
            "leader completeness",
            "state machine safety",
            "monotonic commit"
        ]
    );
}

#[test]
fn the_checkers_forget_entries_once_every_member_compacted_them() {
    let mut c = ClusterConfig::new(3, 4).build();
    c.set_snapshot_count(10);
    let mut monitor = Monitor::new();
    run_checked(&mut c, &mut monitor, 3_000);
    for i in 0..200u32 {
        let leader = c.leader().expect("a leader");
        c.propose(leader, i.to_be_bytes().to_vec()).unwrap();
        run_checked(&mut c, &mut monitor, 50);
    }
    run_checked(&mut c, &mut monitor, 1_000);
    let last = c
        .leader()
        .and_then(|l| c.node(l))
        .map_or(0, |n| n.log().last_index());
    assert!(last > 200, "{last} entries");
    // Three checkers hold a record per entry; only the entries since the last compaction
    // everywhere (at most about a snapshot count each, plus what is in flight) are left.
    assert!(monitor.records() < 3 * 40, "{} records", monitor.records());
    assert!(monitor.is_clean());
}

#[test]
fn a_violation_names_an_entry_by_its_request_not_its_bytes() {
    let request = crate::etcd::Request::Put(crate::mvcc::PutRequest::new("x", "1"));
    let entry = crate::raft::Entry {
        index: 5,
        term: 3,
        kind: crate::raft::EntryKind::Normal,
        data: crate::etcd::Proposal::Kv { id: 7, request }.encode().into(),
    };
    assert_eq!(entry_text(&entry), "5@3 (put x=1)");
}
