//! Every shipped lesson, proven: `raftlab lesson check` over each (setup, goal not met, the
//! solution, goal met, predict answers as the run did), and the command itself on a teacher's
//! edited files.

use raftlab::lesson::check::check;
use raftlab::lesson::shipped;
use std::process::Command;

/// Each lesson in its own test, so that they run side by side and a failure names it.
macro_rules! lesson_checks {
    ($($name:ident => $id:literal),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                let lesson = shipped::find($id).unwrap_or_else(|e| panic!("{e}"));
                let report = check(&lesson);
                assert!(report.ok(), "{report:#?}");
                assert_eq!(report.steps.len(), lesson.steps().len());
            }
        )*

        /// The list above is every shipped lesson.
        #[test]
        fn every_shipped_lesson_is_checked() {
            let ids: Vec<String> = shipped::all().unwrap().into_iter().map(|l| l.id).collect();
            assert_eq!(ids, [$($id),*]);
        }
    };
}

lesson_checks! {
    registry => "registry",
    desired_observed => "desired-observed",
    apiserver_only => "apiserver-only",
    secrets => "secrets",
    leader_election => "leader-election",
    write_journey => "write-journey",
    quorum => "quorum",
    odd_members => "odd-members",
    partitions => "partitions",
    reading_the_registry => "reading-the-registry",
    backup => "backup",
    restore => "restore",
    mvcc_history => "mvcc-history",
    healthy_etcd => "healthy-etcd",
    breaking_raft => "breaking-raft",
}

fn raftlab(args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_raftlab"))
        .args(args)
        .output()
        .expect("run raftlab");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

/// A teacher's copy of lesson 5 in a temporary file, edited by `edit`.
fn edited(name: &str, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let (_, text) = shipped::FILES
        .iter()
        .find(|(n, _)| n.ends_with("leader-election.yaml"))
        .expect("lesson 5");
    let dir = std::env::temp_dir().join(format!("raftlab-lessons-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, edit(text.to_string())).expect("write");
    path
}

#[test]
fn the_command_checks_a_teachers_file_and_says_what_is_wrong() {
    let good = edited("good.yaml", |t| t);
    let (out, _, code) = raftlab(&["lesson", "check", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("leader-election step 2/4: ok"), "{out}");
    assert!(
        out.ends_with("ok: 1 lessons, 4 steps (3 with a predict question), 0 failed\n"),
        "{out}"
    );

    let typo = edited("typo.yaml", |t| t.replacen("goal_text:", "goal_txt:", 1));
    let (_, err, code) = raftlab(&["lesson", "check", typo.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(
        err.contains("typo.yaml: lesson \"leader-election\": step 1: unknown field `goal_txt`"),
        "{err}"
    );

    let wrong = edited("wrong.yaml", |t| t.replacen("answer: 3", "answer: 1", 1));
    let (out, _, code) = raftlab(&["lesson", "check", wrong.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("leader-election step 3/4: FAIL  choice 1 does not hold after the solution, but the answer is 1"), "{out}");
    assert!(
        out.contains("leader-election step 3/4: FAIL  choice 3 holds after the solution"),
        "{out}"
    );
    assert!(
        out.ends_with("FAIL: 1 lessons, 4 steps (3 with a predict question), 1 failed\n"),
        "{out}"
    );

    let lax = edited("lax.yaml", |t| {
        t.replacen(
            "goal: \"delivered(Heartbeat) > 0\"",
            "goal: \"leader exists\"",
            1,
        )
    });
    let (out, _, code) = raftlab(&["lesson", "check", lax.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "step 1/4: FAIL  the goal is already met when the step starts: leader exists holds"
        ),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(good.parent().unwrap());
}

#[test]
fn list_and_the_errors_of_the_command() {
    let (out, _, code) = raftlab(&["lesson", "list"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("ID "), "{out}");
    assert!(
        out.contains("leader-election           4  Leader, heartbeats and the election timeout"),
        "{out}"
    );
    let (_, err, code) = raftlab(&["lesson", "check", "no-such"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("raftlab lesson check: no lesson \"no-such\" (one of: registry, "),
        "{err}"
    );
    let (_, err, code) = raftlab(&["lesson", "check", "/nowhere/x.yaml"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with("raftlab lesson check: cannot read /nowhere/x.yaml: "),
        "{err}"
    );
    let (_, err, code) = raftlab(&["lesson", "frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("usage: raftlab lesson list"), "{err}");
    let (out, _, code) = raftlab(&["--help"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("raftlab lesson check [ID|FILE.yaml|--all]"),
        "{out}"
    );
}
