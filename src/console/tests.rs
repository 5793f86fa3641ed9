use super::timeline::{MAX_CHECKPOINTS, MAX_OLD_CHECKPOINTS, RECENT_MS};
use super::*;
use crate::etcd::ClusterConfig;

fn session() -> Session {
    Session::new(ClusterConfig::new(3, 1))
}

#[test]
fn every_verb_listed_is_one_the_console_runs() {
    for verb in verbs::names() {
        let out = session().execute(verb, None);
        assert!(
            !out.stderr.contains("unknown command") && !out.stderr.contains("not found"),
            "{verb}: {:?}",
            out.stderr
        );
    }
}

#[test]
fn unknown_verbs_bad_members_and_durations_are_errors_not_panics() {
    let mut s = session();
    for bad in [
        "frobnicate",
        "kill",
        "kill m9",
        "kill x",
        "wait soon",
        "wait",
        "partition m1",
        "partition m1 |",
        "drop m1",
        "drop m1 m2 2",
        "loss -1",
        "latency fast",
        "status -w yaml",
        "kill 'm1",
        "heal now",
    ] {
        let out = s.execute(bad, None);
        assert_eq!(out.code, 1, "{bad}");
        assert!(out.stderr.starts_with("Error: "), "{bad}: {:?}", out.stderr);
    }
    assert_eq!(s.execute("", None), Output::default());
}

#[test]
fn script_errors_name_their_line_and_the_run_goes_on() {
    let mut s = session();
    let run = run_script(
        &mut s,
        "wait leader\n\nbogus\nkill m7\nstatus -w json\n",
        true,
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("$ bogus\nError: line 3: unknown command \"bogus\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("Error: line 4: no member named \"m7\"\n[exit 1]\n"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\"leader\":\"m"), "{}", run.stdout);
}

#[test]
fn time_travel_returns_exactly_to_the_recorded_state_and_branches() {
    let mut s = session();
    run_script(
        &mut s,
        "wait leader\nkill leader\nwait 1200ms\npartition m1 | m2,m3\nwait 700ms\n",
        false,
    );
    s.run_for(3_000 - s.world.now());
    assert_eq!(s.world.now(), 3_000);
    let (status_at_t, hash_at_t, steps_at_t) =
        (s.world.status(), s.world.trace_hash(), s.world.steps());
    run_script(
        &mut s,
        "heal\nwait 2s\ntimeout m2\nwait 3s\nrestart m1\nwait 2s\n",
        false,
    );
    assert!(s.world.now() > 9_000);
    assert_ne!(s.world.trace_hash(), hash_at_t);

    s.rewind_to(3_000).unwrap();
    assert_eq!(s.world.now(), 3_000);
    assert_eq!(s.world.status(), status_at_t);
    assert_eq!(
        s.world.trace_hash(),
        hash_at_t,
        "the replay is event for event the same"
    );
    assert_eq!(s.world.steps(), steps_at_t);
    assert!(
        !s.export_script().contains("heal"),
        "the future was forgotten"
    );

    // A new branch from there, and a rewind into it again.
    run_script(&mut s, "isolate m2\nwait 4s\n", false);
    let hash_branch = s.world.trace_hash();
    s.rewind_to(5_000).unwrap();
    s.run_for(2_000);
    assert_eq!(s.world.trace_hash(), hash_branch);
    assert!(s.rewind_to(999_999).is_err(), "no travel into the future");
}

/// A rewind into `etcdctl check perf`'s minute of load lands where the command began: no run
/// can stop a load midway, and the world there is exactly the one it was given in.
#[test]
fn a_rewind_into_a_load_lands_where_it_began() {
    let mut s = session();
    run_script(&mut s, "wait leader\nwait 1s\n", false);
    let (began, hash) = (s.world.now(), s.world.trace_hash());
    run_script(&mut s, "etcdctl check perf\nwait 2s\n", false);
    assert!(s.world.now() >= began + 62_000, "{}", s.world.now());
    s.rewind_to(began + 30_000).unwrap();
    assert_eq!(s.world.now(), began);
    assert_eq!(s.world.trace_hash(), hash);
    assert!(!s.export_script().contains("check perf"));
}

/// Kubernetes goes on during `etcdctl check perf`'s minute of load: its leader leases are
/// renewed meanwhile, so no component loses its lease and is elected again afterwards (a
/// control plane frozen for the minute did, 15 s leases expiring).
#[test]
fn the_control_plane_goes_on_during_a_load() {
    let mut s = session();
    run_script(&mut s, "wait leader\nkube up\nwait 20s\n", false);
    let elected = |s: &mut Session| {
        let events = s.execute("kubectl get events -A", None).stdout;
        events.matches("became leader").count()
    };
    let before = elected(&mut s);
    assert_eq!(before, 2, "the scheduler and the controller manager");
    let perf = s.execute("etcdctl check perf", None);
    assert!(perf.stdout.ends_with("PASS\n"), "{perf:?}");
    s.execute("wait 1s", None);
    assert_eq!(elected(&mut s), before);
}

#[test]
fn time_travel_includes_the_kubernetes_control_plane() {
    let mut s = session();
    run_script(&mut s, "wait leader\nkube up\nwait 3s\n", false);
    s.run_for(1_000);
    let t = s.world.now();
    let hash_at_t = s.world.trace_hash();
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";
    s.execute("kubectl apply -f -", Some(manifest));
    s.run_for(5_000);
    let after = s.world.trace_hash();
    s.rewind_to(t).unwrap();
    assert_eq!(s.world.trace_hash(), hash_at_t);
    s.execute("kubectl apply -f -", Some(manifest));
    s.run_for(5_000);
    assert_eq!(
        s.world.trace_hash(),
        after,
        "replaying the same commands with the control plane gives the same run"
    );
}

#[test]
fn after_an_hour_with_kubernetes_a_rewind_still_lands_exactly() {
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";
    let mut s = session();
    s.watch_invariants();
    run_script(&mut s, "wait leader\nkube up\n", false);
    s.execute("kubectl apply -f -", Some(manifest));
    // The moments to come back to: early, after the scale, and near the end.
    let moments: [Millis; 3] = [90_000, 1_900_000, 3_500_000];
    let mut seen = Vec::new();
    for (i, t) in moments.into_iter().enumerate() {
        s.run_for(t - s.world.now());
        let (hash, status) = (s.world.trace_hash(), s.world.status());
        let pods = s.execute("kubectl get pods", None).stdout;
        seen.push((hash, status, pods));
        s.rewind_to(t).unwrap();
        if i == 0 {
            run_script(
                &mut s,
                "wait 30m\nkubectl scale deployment web --replicas=3\n",
                false,
            );
        }
    }
    let end = 3_660_000;
    s.run_for(end - s.world.now());
    let end_hash = s.world.trace_hash();
    let lands = |s: &mut Session, i: usize| {
        let (t, (hash, status, pods)) = (moments[i], &seen[i]);
        s.rewind_to(t).unwrap();
        assert_eq!(s.world.now(), t);
        assert_eq!(s.world.trace_hash(), *hash, "at {t} ms");
        assert_eq!(s.world.status(), *status, "at {t} ms");
        assert_eq!(
            s.execute("kubectl get pods", None).stdout,
            *pods,
            "at {t} ms"
        );
        s.rewind_to(t).unwrap();
    };
    lands(&mut s, 2);
    lands(&mut s, 1);
    // Forward again from there: the same half hour, event for event.
    s.run_for(end - s.world.now());
    assert_eq!(s.world.trace_hash(), end_hash);
    lands(&mut s, 0);
    assert!(s.monitor().is_some_and(|m| m.violations().is_empty()));
}

#[test]
fn checkpoints_are_dense_for_the_last_hour_and_few_before_it() {
    let mut s = session();
    run_script(&mut s, "wait leader\n", false);
    s.run_for(1_800_000 - s.world.now());
    let hash_at_half_hour = s.world.trace_hash();
    s.run_for(3 * 3_600_000 - s.world.now());
    let times = s.checkpoint_times();
    let horizon = s.world.now() - RECENT_MS;
    let old = times.iter().filter(|t| **t < horizon).count();
    assert_eq!(times[0], 0, "the first moment is always kept");
    assert!(old <= MAX_OLD_CHECKPOINTS + 1, "{old} old checkpoints");
    assert!(times.len() <= MAX_CHECKPOINTS + MAX_OLD_CHECKPOINTS + 1);
    let recent: Vec<Millis> = times.iter().copied().filter(|t| *t >= horizon).collect();
    let widest = recent.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    assert!(
        widest <= 16_000,
        "the last hour has a checkpoint every {widest} ms at most"
    );
    s.rewind_to(1_800_000).unwrap();
    assert_eq!(
        s.world.trace_hash(),
        hash_at_half_hour,
        "exact from an old checkpoint"
    );
}

/// `wait 1h` takes the spacing the thinning would reach by its end at its start: the same
/// run and as dense a last hour, from a third of the checkpoints.
#[test]
fn an_hours_wait_takes_only_the_checkpoints_it_keeps() {
    let mut stepped = session();
    run_script(&mut stepped, "wait leader\n", false);
    let start = stepped.world.now();
    stepped.run_for(1_800_000);
    let hash_at_half_hour = stepped.world.trace_hash();
    stepped.run_for(1_800_000);
    let mut waited = session();
    run_script(&mut waited, "wait leader\nwait 3600s\n", false);
    assert_eq!(waited.world.trace_hash(), stepped.world.trace_hash());
    let widest = |s: &Session| {
        let times = s.checkpoint_times();
        times.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    };
    assert!(
        widest(&waited) <= widest(&stepped),
        "as dense as thinning left it"
    );
    let (made, before) = (waited.checkpoints_made(), stepped.checkpoints_made());
    assert!(
        made <= MAX_CHECKPOINTS as u64 && made * 3 <= before,
        "{made} vs {before} made"
    );
    waited.rewind_to(start + 1_800_000).unwrap();
    assert_eq!(
        waited.world.trace_hash(),
        hash_at_half_hour,
        "exact after the wait"
    );
}

#[test]
fn a_busy_cluster_keeps_dense_checkpoints_only_for_its_recent_growth() {
    let mut s = session();
    // 10 puts a second on 3 members grow the world by 60 a second: 10 s of them.
    s.timeline.set_recent_growth(600);
    run_script(&mut s, "wait leader\n", false);
    let mut hashes = Vec::new();
    for i in 0..600 {
        s.execute(&format!("etcdctl put k{} v{i}", i % 20), None);
        s.run_for(100);
        hashes.push((s.world.now(), s.world.trace_hash()));
    }
    let times = s.checkpoint_times();
    let now = s.world.now();
    let dense: Vec<Millis> = times.iter().copied().filter(|t| now - t <= 9_000).collect();
    assert!(dense.len() >= 9, "the last seconds stay dense: {times:?}");
    assert!(
        times.len() <= 12 + MAX_OLD_CHECKPOINTS + 1,
        "{} checkpoints over a minute: {times:?}",
        times.len()
    );
    let (t, hash) = hashes[100];
    s.rewind_to(t).unwrap();
    assert_eq!(s.world.trace_hash(), hash, "exact from an old checkpoint");
}

#[test]
fn the_control_plane_does_not_depend_on_how_time_is_sliced() {
    let manifest = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n";
    let run = |slice: Millis| {
        let mut s = session();
        run_script(&mut s, "wait leader\nkube up\n", false);
        s.execute("kubectl apply -f -", Some(manifest));
        let end = s.world.now() + 8_000;
        while s.world.now() < end {
            s.run_for(slice.min(end - s.world.now()));
        }
        (s.world.now(), s.world.trace_hash())
    };
    assert_eq!(
        run(37),
        run(8_000),
        "frames of 37 ms and one 8 s step give the same run"
    );
}

#[test]
fn a_thousand_lines_of_junk_never_panic_and_each_is_reported() {
    let mut rng = crate::base::Rng::new(2024);
    let verbs = [
        "kill",
        "restart",
        "wait",
        "partition",
        "drop",
        "latency",
        "loss",
        "fsync",
        "transfer",
        "delay-message",
        "status",
    ];
    let mut script = String::new();
    for i in 0..1_000 {
        let line: String = match i % 4 {
            0 => (0..rng.range(1, 40))
                .map(|_| char::from(rng.range(33, 127) as u8))
                .filter(|c| *c != '#')
                .collect(),
            1 => format!(
                "{} {}",
                rng.pick(&verbs).unwrap(),
                ["m99", "'oops", "-1", "|", "x y z", "\\"][rng.range(0, 6) as usize]
            ),
            2 => format!("zz{}", rng.next_u64()),
            _ => String::from_utf8_lossy(
                &(0..rng.range(1, 30))
                    .map(|_| rng.range(128, 256) as u8)
                    .collect::<Vec<u8>>(),
            )
            .into_owned(),
        };
        script.push_str(&line);
        script.push('\n');
    }
    // A junk line that happens to read `name=value` is a shell assignment, not an error.
    let parsed: Vec<_> = script::parse(&script)
        .into_iter()
        .filter(|l| {
            !shell::words(&l.text).is_ok_and(|w| {
                !w.is_empty() && w.iter().all(|w| shell::env::assignment_word(w).is_some())
            })
        })
        .collect();
    let run = run_script(&mut s_for_junk(), &script, true);
    assert_eq!(run.code, 1);
    let reported = run.stdout.matches("Error: line ").count();
    assert_eq!(reported, parsed.len(), "every junk line is reported once");
    for line in &parsed {
        assert!(
            run.stdout
                .contains(&format!("Error: line {}: ", line.line_no)),
            "line {}",
            line.line_no
        );
    }
}

#[test]
fn random_tool_lines_never_panic() {
    // Words that real command lines are made of, shuffled into nonsense.
    let words = [
        "get",
        "put",
        "del",
        "txn",
        "watch",
        "lease",
        "grant",
        "revoke",
        "keep-alive",
        "member",
        "add",
        "remove",
        "list",
        "endpoint",
        "status",
        "health",
        "hashkv",
        "snapshot",
        "save",
        "restore",
        "compaction",
        "defrag",
        "alarm",
        "disarm",
        "move-leader",
        "check",
        "perf",
        "apply",
        "create",
        "delete",
        "describe",
        "scale",
        "rollout",
        "undo",
        "history",
        "set",
        "image",
        "deployment",
        "pod",
        "secret",
        "generic",
        "-f",
        "-",
        "-o",
        "yaml",
        "json",
        "wide",
        "-w",
        "table",
        "fields",
        "--prefix",
        "--rev=-3",
        "--limit=x",
        "--lease=zz",
        "--endpoints=m9",
        "--hex",
        "--",
        "''",
        "\"",
        "foo",
        "m1",
        "--replicas=-1",
        "web",
        "nginx:1",
        "-n",
        "kube-system",
        "--keys-only",
        "--from-key",
        "\\x00",
        "--bump-revision",
        "99999999999999999999",
        "--data-dir",
        "/",
        "--command-timeout=1ms",
        "ключ",
    ];
    let tools = ["etcdctl", "etcdutl", "kubectl"];
    let mut rng = crate::base::Rng::new(99);
    let mut s = session();
    s.execute("wait leader", None);
    s.execute("kube up", None);
    let (mut failed, mut succeeded) = (0, 0);
    for _ in 0..1_500 {
        let mut line = rng.pick(&tools).unwrap().to_string();
        for _ in 0..rng.range(0, 7) {
            line.push(' ');
            line.push_str(rng.pick(&words).unwrap());
        }
        let stdin = rng
            .chance(0.3)
            .then(|| "kind: Deployment\n: : :\n\tvalue(\"x\") = \"y\"\nput a b\n\n".to_string());
        let out = s.execute(&line, stdin.as_deref());
        assert!(out.code >= 0, "{line}");
        if out.code != 0 {
            assert!(
                !(out.stderr.is_empty() && out.stdout.is_empty()),
                "{line}: failed silently"
            );
            failed += 1;
        } else {
            succeeded += 1;
        }
    }
    assert!(
        failed > 500 && succeeded > 50,
        "{failed} failed, {succeeded} succeeded"
    );
}

fn s_for_junk() -> Session {
    session()
}

#[test]
fn exported_scripts_carry_the_settings() {
    let mut config = ClusterConfig::new(5, 9);
    config.pre_vote = false;
    config.teach("commit-old-terms").unwrap();
    assert!(config.teach("nonsense").is_err());
    let s = Session::new(config);
    let header = s.export_script().lines().next().unwrap().to_string();
    assert_eq!(
        header,
        "# raftlab run --members 5 --seed 9 --no-pre-vote --teach commit-old-terms"
    );
}

#[test]
fn export_replays_to_the_same_state() {
    let mut a = session();
    run_script(
        &mut a,
        "wait leader\nkill leader\nwait 3s\nrestart m1\nwait 1s\n",
        false,
    );
    let script = a.export_script();
    let mut b = session();
    run_script(&mut b, &script, false);
    assert_eq!(a.world.status(), b.world.status(), "{script}");
    assert_eq!(a.world.trace_hash(), b.world.trace_hash());
}

/// A variable set from a command substitution is recorded as typed: the exported script
/// replays it (the substituted command runs again, at the same moment), and a rewind to
/// before it forgets the variable.
#[test]
fn variables_and_substitutions_replay_and_rewind() {
    let mut s = Session::new(ClusterConfig::new(3, 1));
    let script = "wait leader\netcdctl put k v\nwait 1s\nrev=$(etcdctl get k -w json | jq .header.revision)\nwait 1s\netcdctl get k --rev=\"$rev\" --print-value-only\n";
    let run = run_script(&mut s, script, true);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.ends_with("v\n"), "{}", run.stdout);
    let rev = s.vars.get("rev").cloned().unwrap();
    assert!(rev.parse::<i64>().unwrap() > 1);
    let exported = s.export_script();
    assert!(
        exported.contains("rev=$(etcdctl get k -w json | jq .header.revision)"),
        "{exported}"
    );
    let mut again = Session::new(ClusterConfig::new(3, 1));
    let rerun = run_script(&mut again, &exported, true);
    assert_eq!(rerun.stdout, run.stdout);
    assert_eq!(again.vars, s.vars);
    let set_at = s
        .history()
        .iter()
        .find(|h| h.line.starts_with("rev="))
        .unwrap()
        .time_ms;
    s.rewind_to(set_at).unwrap();
    assert!(
        !s.vars.contains_key("rev"),
        "set after the moment rewound to"
    );
}

/// The page's invariant monitor lives in the session and is checkpointed with the world:
/// going back to after a violation keeps it; going back to before it forgets it; running
/// on from there sees it again, at the same moment.
#[test]
fn a_rewind_keeps_what_the_monitor_saw_before_it() {
    let mut config = ClusterConfig::new(3, 4);
    config.pre_vote = false;
    let mut s = Session::new(config);
    s.watch_invariants();
    // As the page runs: a command, then frames of virtual time, each observed.
    let frames = |s: &mut Session, ms: Millis| {
        for _ in 0..ms / 16 {
            s.run_for(16);
        }
    };
    frames(&mut s, 2_000);
    s.execute("isolate m3", None);
    frames(&mut s, 6_000);
    s.execute("heal", None);
    frames(&mut s, 4_000);
    let seen = s.monitor().unwrap().violations().to_vec();
    let first = seen
        .first()
        .expect("a rejoining member disrupts the leader")
        .clone();
    let end = s.world.now();
    assert!(first.time_ms < end);

    let mut later = s.clone();
    later
        .rewind_to(first.time_ms + (end - first.time_ms) / 2)
        .unwrap();
    assert_eq!(later.monitor().unwrap().violations().first(), Some(&first));

    // The checker saw it at the first frame after it happened (frames are 16 ms).
    let mut before = s.clone();
    before.rewind_to(first.time_ms - 17).unwrap();
    assert!(before.monitor().unwrap().violations().is_empty());
    let rest = end - before.world.now();
    frames(&mut before, rest);
    assert_eq!(
        before
            .monitor()
            .unwrap()
            .violations()
            .first()
            .map(|v| v.property),
        Some(first.property)
    );
}

// goal: the transcript of every command, and the verbs expect and ls.

#[test]
fn the_transcript_has_every_line_once_with_its_output_and_times() {
    let mut s = session();
    s.execute("wait leader", None);
    let put_at = s.world.now();
    s.execute("etcdctl put /a 1", None);
    s.execute("rev=$(etcdctl get /a -w json | wc -c)", None);
    s.execute("echo $(etcdctl get /a --print-value-only)", None);
    s.execute("etcdctl get / --prefix --keys-only | wc -l", None);
    s.execute("etcdctl txn", Some("put /b 2\n\n\n"));
    s.execute("bogus", None);
    let entries: Vec<_> = s.transcript().entries().collect();
    let lines: Vec<&str> = entries.iter().map(|e| e.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "wait leader",
            "etcdctl put /a 1",
            "rev=$(etcdctl get /a -w json | wc -c)",
            "echo $(etcdctl get /a --print-value-only)",
            "etcdctl get / --prefix --keys-only | wc -l",
            "etcdctl txn",
            "bogus",
        ],
        "a substitution is part of its line, a pipeline one entry"
    );
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3, 4, 5, 6]);
    assert!(
        entries[0].end_ms > entries[0].time_ms,
        "wait leader takes time"
    );
    assert_eq!(entries[1].time_ms, put_at);
    assert!(entries[1].end_ms > put_at, "a write takes a round of Raft");
    assert_eq!((entries[1].stdout.as_str(), entries[1].code), ("OK\n", 0));
    assert_eq!(entries[3].stdout, "1\n");
    // `--keys-only` prints a blank line after each key: wc -l counts lines, not keys.
    assert_eq!(entries[4].stdout, "2\n");
    assert_eq!(entries[5].stdin.as_deref(), Some("put /b 2\n\n\n"));
    assert_eq!(entries[6].code, 1);
    assert!(entries[6].stderr.starts_with("Error: unknown command"));
}

#[test]
fn a_rewind_forgets_the_lines_given_at_or_after_its_time() {
    let mut s = session();
    s.execute("wait leader", None);
    s.run_for(2_000);
    let t = s.world.now();
    s.execute("etcdctl put /a 1", None);
    s.run_for(2_000);
    s.execute("status", None);
    assert_eq!(s.transcript().entries().len(), 3);
    s.rewind_to(t).unwrap();
    let lines: Vec<&str> = s.transcript().entries().map(|e| e.line.as_str()).collect();
    assert_eq!(
        lines,
        ["wait leader"],
        "the replayed history is not run again into it"
    );
    s.execute("status", None);
    assert_eq!(s.transcript().last().map(|e| e.seq), Some(1));
}

#[test]
fn expect_is_silent_when_it_holds_and_says_why_when_not() {
    let mut s = session();
    assert_eq!(s.execute("expect leader absent", None), Output::default());
    s.execute("wait leader", None);
    let out = s.execute("expect leader.term > start.leader.term", None);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: expect: leader.term > start.leader.term is false (leader.term is 2, start.leader.term is absent)\n"
    );
    let usage = s.execute("expect", None);
    assert_eq!(
        usage.stderr,
        "Error: usage: expect PRED [and PRED]... | expect --mark [PRED...]\n"
    );
    let syntax = s.execute("expect leader ==", None);
    assert!(
        syntax.stderr.starts_with("Error: usage: expect PRED"),
        "{syntax:?}"
    );
    // Quotes are the goal's own, not the shell's.
    s.execute("etcdctl put /a 'two words'", None);
    assert_eq!(
        s.execute("expect key(/a).value == \"two words\"", None)
            .code,
        0
    );
    assert_eq!(s.execute("expect --mark", None).code, 0);
    assert_eq!(
        s.execute("expect start.key(/a).value == 'two words'", None)
            .code,
        0
    );
    assert!(s.history().iter().all(|e| !e.line.starts_with("expect")));
    let flag = s.execute("expect --markx", None);
    assert!(flag.stderr.starts_with("Error: usage: expect"), "{flag:?}");
    // The goal is read after the shell's expansion, as any command's words are.
    s.execute("v=$(etcdctl get /a --print-value-only)", None);
    assert_eq!(s.execute("expect key(/a).value == \"$v\"", None).code, 0);
}

#[test]
fn ls_lists_the_working_directory_as_gnu_ls_does_into_a_pipe() {
    let mut s = session();
    assert_eq!(s.execute("ls", None), Output::default());
    assert_eq!(s.execute("ls -l", None).stdout, "total 0\n");
    s.execute("write b.yaml", Some("kind: Pod\n"));
    s.execute("write a.txt", Some(""));
    assert_eq!(s.execute("ls", None).stdout, "a.txt\nb.yaml\n");
    assert_eq!(
        s.execute("ls -l", None).stdout,
        "total 4\n-rw-r--r-- 1 root root  0 a.txt\n-rw-r--r-- 1 root root 10 b.yaml\n"
    );
    assert_eq!(s.execute("ls -1l b.yaml", None).code, 0);
    let missing = s.execute("ls a.txt nope", None);
    assert_eq!(missing.stdout, "a.txt\n");
    assert_eq!(
        missing.stderr,
        "ls: cannot access 'nope': No such file or directory\n"
    );
    assert_eq!(missing.code, 2);
    assert_eq!(s.execute("ls -x", None).code, 2);
}

/// `write` and `kubectl apply -f` name files as every shell tool does: `write /root/m.yaml`
/// was kept under that spelling, which `cat m.yaml` (nor `cat /root/m.yaml`) never found.
#[test]
fn a_written_file_is_the_same_file_by_any_of_its_paths() {
    let mut s = session();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
    assert_eq!(s.execute("write /root/m.yaml", Some(pod)).code, 0);
    assert_eq!(s.execute("write ./k8s/n.yaml", Some("x\n")).code, 0);
    for name in ["m.yaml", "./m.yaml", "/root/m.yaml", "~/m.yaml"] {
        let cat = s.execute(&format!("cat {name}"), None);
        assert_eq!((cat.stdout.as_str(), cat.code), (pod, 0), "{name}");
    }
    assert_eq!(s.execute("cat /root/k8s/n.yaml", None).stdout, "x\n");
    assert_eq!(s.execute("ls", None).stdout, "k8s\nm.yaml\n");
    run_script(&mut s, "wait leader\nkube up\n", false);
    for name in ["m.yaml", "/root/m.yaml"] {
        let apply = s.execute(&format!("kubectl apply -f {name}"), None);
        assert_eq!(apply.code, 0, "{name}: {apply:?}");
    }
    let none = s.execute("kubectl apply -f /root/none.yaml", None);
    assert_eq!(
        none.stderr,
        "error: the path \"/root/none.yaml\" does not exist\n"
    );
    let enc = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources:\n      - secrets\n    providers:\n      - identity: {}\n";
    s.execute("write enc.yaml", Some(enc));
    let restart = s.execute(
        "kube apiserver --encryption-provider-config /root/enc.yaml",
        None,
    );
    assert_eq!(restart.code, 0, "{restart:?}");
}

#[test]
fn etcdctl_put_over_the_limits_gets_etcds_errors() {
    // As etcd 3.4.23 answers (values from stdin): over 1.5 MiB the server refuses the
    // request; at 2 MiB gRPC refuses to send it.
    let mut s = session();
    s.execute("wait leader", None);
    let put = |s: &mut Session, n: usize| s.execute("etcdctl put big", Some(&"v".repeat(n)));
    let out = put(&mut s, 1_600_000);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("\"error\":\"rpc error: code = InvalidArgument desc = etcdserver: request is too large\"}\n"));
    assert!(out
        .stderr
        .ends_with("\nError: etcdserver: request is too large\n"));
    let out = put(&mut s, 2 * 1024 * 1024);
    let error = "rpc error: code = ResourceExhausted desc = trying to send message larger than max (2097162 vs. 2097152)";
    assert!(
        out.stderr.contains(&format!("\"error\":\"{error}\"}}\n")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.ends_with(&format!("\nError: {error}\n")));
    assert_eq!(
        s.execute("etcdctl get big --keys-only", None).stdout,
        "",
        "nothing was written"
    );
    assert_eq!(put(&mut s, 1_572_837).stdout, "OK\n");
}

#[test]
fn a_timeout_longer_than_the_longest_wait_is_refused_not_run() {
    // Found by `raftlab fuzz --target etcdctl --seed 1` (input 2405): the watch ran for 68
    // virtual years, holding the page.
    let mut s = session();
    s.execute("wait leader", None);
    let before = s.world.now();
    let out = s.execute("timeout 2147483647 etcdctl -w json watch w --prev-kv", None);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: timeout 2147483647: longer than the longest wait, 2h (wait again to go on)\n"
    );
    assert_eq!(s.world.now(), before, "nothing ran");
    let out = s.execute("timeout 1 etcdctl watch w", None);
    assert_eq!(
        out.code, 124,
        "a short timeout still runs the watch: {out:?}"
    );
}

#[test]
fn a_command_timeout_longer_than_the_longest_wait_is_refused_not_run() {
    // A put to a member cut off from the quorum waits its whole --command-timeout.
    let mut s = session();
    s.execute("wait leader", None);
    s.execute("partition m1 | m2,m3", None);
    let before = s.world.now();
    let out = s.execute(
        "etcdctl --endpoints=m1 --command-timeout=1000000h put a b",
        None,
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.ends_with(
            "Error: --command-timeout=1000000h: longer than the longest wait, 2h (wait again to go on)\n"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(s.world.now(), before, "nothing ran");
}

#[test]
fn endpoints_that_could_outlast_the_longest_wait_are_refused_before_the_first_dial() {
    // Found by `raftlab fuzz --target script --seed 1` (input 232130): `endpoint status` on
    // ~400,000 endpoints, most unreachable, waited 5 s on each: 23 virtual days.
    let mut s = session();
    s.execute("wait leader", None);
    let before = s.world.now();
    let many = vec!["m3m1"; 1_441].join(",");
    for verb in [
        "endpoint status -w table",
        "endpoint health",
        "endpoint hashkv",
        "defrag",
    ] {
        let out = s.execute(&format!("etcdctl --endpoints={many} {verb}"), None);
        assert_eq!(out.code, 1, "{verb}");
        assert_eq!(
            out.stderr,
            "Error: 1441 endpoints, each up to --command-timeout=5s: longer than the longest \
             wait, 2h (name fewer endpoints or a shorter --command-timeout)\n",
            "{verb}"
        );
        assert_eq!(s.world.now(), before, "{verb}: nothing ran");
    }
    let out = s.execute(
        "etcdctl --command-timeout=1h --endpoints=m1:2379,a,b endpoint health",
        None,
    );
    assert!(
        out.stderr
            .contains("3 endpoints, each up to --command-timeout=1h"),
        "{out:?}"
    );
    assert_eq!(s.world.now(), before, "nothing ran");
    // Two unreachable endpoints are dialled, each waited out.
    let out = s.execute("etcdctl --endpoints=m3m1,m1:2379 endpoint status", None);
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("m1:2379, "), "{out:?}");
    assert!(out
        .stderr
        .contains("Failed to get the status of endpoint m3m1"));
    assert_eq!(s.world.now(), before + 5_000, "one timeout waited");
}

#[test]
fn one_word_with_a_space_in_it_is_an_unknown_command() {
    // Found by `raftlab fuzz --target etcdctl --seed 1` (input 121533): `endpoint\ health`
    // matched `endpoint health` by its text and then panicked on its missing second word.
    let mut s = session();
    s.execute("wait leader", None);
    let out = s.execute("etcdctl endpoint\\ health", None);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stderr,
        "Error: unknown command \"endpoint health\" for \"etcdctl\"\n\
         Run 'etcdctl --help' for usage.\n\
         Error: unknown command \"endpoint health\" for \"etcdctl\"\n"
    );
}

#[test]
fn a_table_cell_wider_than_a_format_width_is_printed_whole() {
    // Found by `raftlab fuzz --target etcdctl --seed 1` (input 524701): an endpoint of 65,600
    // bytes was wider than `format!` pads (65,535) and panicked in the table.
    let mut s = session();
    s.execute("wait leader", None);
    let wide = "x".repeat(70_000);
    let out = s.execute(
        &format!("etcdctl -w table --endpoints={wide} endpoint health"),
        None,
    );
    assert_eq!(out.code, 1, "the endpoint is not a member");
    let row = out
        .stdout
        .lines()
        .find(|l| l.contains(&wide))
        .expect("its row");
    assert!(row.starts_with(&format!("| {wide} |")), "{}", &row[..80]);
}

/// A long wait records the wire only where the page will draw it (its last seconds, and
/// each checkpoint's): the same records there as a run in short slices, far fewer in all.
#[test]
fn a_long_wait_records_only_the_wire_the_page_draws() {
    let start = |s: &mut Session| {
        s.set_wire_log(4_096);
        s.execute("wait leader", None);
    };
    let (mut waited, mut sliced) = (session(), session());
    start(&mut waited);
    start(&mut sliced);
    waited.execute("wait 3600s", None);
    while sliced.world.now() < waited.world.now() {
        sliced.run_for(1_000.min(waited.world.now() - sliced.world.now()));
    }
    let drawn = |s: &Session| {
        let from = s.world.now() - CHECKPOINT_WIRE_MS;
        let records = s.world.wire_since(0).filter(|w| w.at_ms >= from);
        records
            .map(|w| (w.at_ms, w.message.id, w.message.arrive_ms, w.lost))
            .collect::<Vec<_>>()
    };
    assert!(!drawn(&waited).is_empty());
    assert_eq!(drawn(&waited), drawn(&sliced), "the run's last seconds");
    let (made, all) = (waited.world.wire_seq(), sliced.world.wire_seq());
    assert!(made * 2 < all, "{made} of {all} records made");
    let t = 1_800_500;
    waited.rewind_to(t).unwrap();
    sliced.rewind_to(t).unwrap();
    assert_eq!(drawn(&waited), drawn(&sliced), "after a rewind");
}

#[test]
fn a_checkpoint_and_the_live_log_keep_only_their_last_seconds_of_wire_records() {
    let mut s = session();
    s.set_wire_log(4_096);
    s.execute("wait leader", None);
    s.execute("wait 60s", None);
    let newest = s.checkpoint_times().last().copied().unwrap();
    let first = s.world.wire_since(0).next().map_or(0, |w| w.at_ms);
    assert!(
        first >= newest - CHECKPOINT_WIRE_MS && first < s.world.now() - 2 * 1_500,
        "the live log keeps the seconds before its newest checkpoint ({newest}): {first}"
    );
    let t = 30_500;
    s.rewind_to(t).unwrap();
    let at: Vec<Millis> = s.world.wire_since(0).map(|w| w.at_ms).collect();
    let checkpoint = s
        .checkpoint_times()
        .into_iter()
        .filter(|c| *c <= t)
        .max()
        .unwrap();
    assert!(
        at[0] >= checkpoint - CHECKPOINT_WIRE_MS,
        "{} before {checkpoint}",
        at[0]
    );
    assert!(
        at[0] < checkpoint - 2 * 1_500,
        "the page's diagram still has its window"
    );
    assert!(
        at.iter().all(|a| *a <= t) && at.len() > 100,
        "{} records",
        at.len()
    );
}

/// `raftlab fuzz --target script --seed 1 --from 14853 --iterations 1` (kube/limits.script
/// with its 16-byte value grown to 4,700) doubled the variable to 300 MB and ran 37 s, past
/// the fuzzer's minute on a loaded machine; a line now stops expanding at the limit.
#[test]
fn a_variable_doubled_past_the_line_limit_is_refused_and_keeps_its_value() {
    let mut s = session();
    s.execute(&format!("v={}", "x".repeat(4096)), None);
    let grow = format!("v={}", "$v".repeat(16));
    assert_eq!(s.execute(&grow, None).code, 0, "64 KiB");
    assert_eq!(s.execute(&grow, None).code, 0, "1 MiB");
    let over = s.execute(&grow, None);
    assert_eq!(over.stdout, "");
    assert_eq!(
        over.stderr,
        "Error: expansion longer than 8 MiB: Raft Lab runs lines of at most 8 MiB\n"
    );
    assert_eq!(over.code, 1);
    let echoed = s.execute("echo \"$v$v$v$v$v$v$v$v$v\" | wc -c", None);
    assert!(echoed.stderr.contains("expansion longer"), "{echoed:?}");
    assert_eq!(s.execute("echo $v | wc -c", None).stdout, "1048577\n");
}

/// `etcdctl watch -i` reads its lines as time passes: the page runs it in slices, as it runs
/// any watch, and it prints what the same command run at once prints; a timeout stops all of
/// its lines, as it stops the process (a line each for the whole timeout held the page for
/// hours of virtual time).
#[test]
fn an_interactive_watch_runs_in_slices_and_its_timeout_bounds_every_line() {
    let lines = "watch --rev 1 a\nbogus 鍵\nwatch --prefix b\n";
    let prepare = |s: &mut Session| {
        s.execute("wait leader", None);
        s.execute("etcdctl put a 1", None);
    };
    let (mut whole, mut sliced) = (session(), session());
    prepare(&mut whole);
    prepare(&mut sliced);
    let at_once = whole.execute("etcdctl watch -i", Some(lines));
    let start = sliced.world.now();
    let mut run = sliced.start("etcdctl watch -i", Some(lines));
    assert_eq!(
        sliced.world.now(),
        start,
        "no line's time passes in the command itself"
    );
    let mut slices = 0;
    while !sliced.resume(&mut run, 300) {
        slices += 1;
        assert!(
            sliced.world.now() <= start + 300 * slices,
            "a slice lets at most its time pass"
        );
    }
    let out = sliced.finish(run);
    assert!(
        slices >= 10,
        "two lines' watches of 2 s each, in slices of 300 ms: {slices}"
    );
    assert_eq!(
        (out.stdout.as_str(), out.code),
        (at_once.stdout.as_str(), at_once.code)
    );
    assert_eq!(out.stderr, at_once.stderr);
    assert!(out.stdout.contains("PUT\na\n1\n"), "{}", out.stdout);
    assert_eq!(
        out.stderr,
        "Invalid command bogus 鍵 (only support watch)\nError: Error reading watch request line: EOF\n"
    );
    assert_eq!(sliced.world.now(), whole.world.now());
    assert_eq!(sliced.world.now(), start + 2 * etcdctl::DEFAULT_STREAM_MS);

    let mut s = session();
    prepare(&mut s);
    let start = s.world.now();
    let many = "watch --rev 1 a\n".repeat(1_000);
    let out = s.execute("timeout 3 etcdctl watch -i", Some(&many));
    assert_eq!(s.world.now(), start + 3_000, "the timeout stops the lines");
    assert_eq!((out.code, out.stderr.as_str()), (124, ""));
    assert_eq!(
        out.stdout.matches("PUT\na\n1\n").count(),
        2,
        "two lines ran before it"
    );
    let out = s.execute("timeout 60 etcdctl watch -i", Some("watch --rev 1 a\n"));
    assert_eq!(
        s.world.now(),
        start + 63_000,
        "the last line watches until the timeout"
    );
    assert_eq!(out.code, 124);
}

/// Figure 8 with `commit-old-terms` on: m2 committed and applied 13@2, which the next leader
/// m5 overwrites. Told by m2's stale-append answer that it matched, m5 used to probe m2 for
/// ever, a new probe chain per heartbeat, until memory ran out (fuzz script input 322589, a
/// `wait` of four virtual minutes). m2 now takes m5's entries and the traffic stays flat.
#[test]
fn a_follower_whose_committed_entry_a_broken_leader_contradicts_catches_up() {
    let text = include_str!("../../tests/testdata/run/figure8-on.script");
    let mut config = ClusterConfig::new(5, 8);
    config.pre_vote = false;
    config.check_quorum = false;
    config.max_entries_per_msg = Some(1);
    config.teach("commit-old-terms").unwrap();
    let mut s = Session::new(config);
    let (story, _) = text.split_once("\nstatus\n# m2 applied").unwrap();
    run_script(&mut s, story, false);
    let mut lines_per_ten_seconds = Vec::new();
    for _ in 0..3 {
        let before = s.world.trace_len();
        run_script(&mut s, "wait 10s", false);
        lines_per_ten_seconds.push(s.world.trace_len() - before);
    }
    let status = s.world.status();
    let last = |name: &str| {
        let m = status.members.iter().find(|m| m.name.to_string() == name);
        m.map(|m| (m.last_index, m.last_term)).unwrap()
    };
    assert_eq!(last("m2"), last("m5"), "{status:?}");
    let (first, third) = (lines_per_ten_seconds[0], lines_per_ten_seconds[2]);
    assert!(third <= first + first / 10, "{lines_per_ten_seconds:?}");
}
