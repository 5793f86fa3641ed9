//! Transcript tests of `raftlab run`: each `tests/testdata/{run,kube,articles}/*.script` is run
//! through the real binary, which reads the flags of its first line (`# raftlab run --members 3
//! --seed 7 --echo`), and its output must equal the `.out` file beside it. `REWRITE=1 cargo test --test
//! run_transcripts` blesses new output (then read the diff before committing).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(script: &Path) -> (String, i32) {
    let text = std::fs::read_to_string(script).unwrap();
    assert!(
        text.starts_with("# raftlab run "),
        "{}: first line must be `# raftlab run FLAGS`",
        script.display()
    );
    raftlab(&[script.as_os_str()], "")
}

/// `raftlab run ARGS` with `stdin`: its stdout then stderr, and its exit code.
fn raftlab(args: &[&std::ffi::OsStr], stdin: &str) -> (String, i32) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_raftlab"))
        .arg("run")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run raftlab");
    if let Some(mut input) = child.stdin.take() {
        input.write_all(stdin.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let mut text = String::from_utf8(out.stdout).unwrap();
    text.push_str(&String::from_utf8(out.stderr).unwrap());
    (text, out.status.code().unwrap_or(-1))
}

/// A script's first line sets the run as the page's import reads it, the command line's flags
/// override it, and a header `raftlab run` cannot read stops the run before it starts.
#[test]
fn the_header_sets_the_run_and_flags_override_it() {
    let script = "# raftlab run --members 5 --seed 3\netcdctl member list\n";
    let members = |args: &[&str]| {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        let (out, code) = raftlab(&args, script);
        assert_eq!(code, 0, "{out}");
        out.lines().count()
    };
    assert_eq!(members(&[]), 5);
    assert_eq!(members(&["--members", "3"]), 3);
    assert_eq!(members(&["-n", "1", "-"]), 1);
    for (header, error) in [
        (
            "--members lots",
            "line 1: --members must be between 1 and 11, not \"lots\"",
        ),
        ("--frobnicate", "line 1: invalid option '--frobnicate'"),
        (
            "--trace t.json",
            "line 1: a header holds settings and --echo only",
        ),
    ] {
        let (out, code) = raftlab(&[], &format!("# raftlab run {header}\nwait leader\n"));
        assert_eq!(
            (out.as_str(), code),
            (format!("raftlab run: {error}\n").as_str(), 2)
        );
    }
}

/// The `.script` files of `tests/testdata/<dir>`, in order.
fn scripts_in(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/testdata")
        .join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "script"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no transcripts in {}", dir.display());
    paths
}

/// Runs every script of `dir` and compares it with its `.out` (or blesses it with REWRITE=1).
fn check_transcripts(dir: &str) {
    let rewrite = std::env::var_os("REWRITE").is_some();
    let mut failures = Vec::new();
    for script in scripts_in(dir) {
        let (got, code) = run(&script);
        let got = format!("{got}[run exit {code}]\n");
        let expected_path = script.with_extension("out");
        if rewrite {
            std::fs::write(&expected_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "--- {}\n+++ actual\n{got}",
                expected_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "transcripts differ (REWRITE=1 to bless):\n{}",
        failures.join("\n")
    );
}

/// Simulator and etcd stories (`tests/testdata/run/`).
#[test]
fn transcripts_match() {
    check_transcripts("run");
}

/// Kubernetes stories (`tests/testdata/kube/`).
#[test]
fn kube_transcripts_match() {
    check_transcripts("kube");
}

/// The articles' labs (`tests/testdata/articles/`, one script per article section): their
/// commands exactly as printed, in the kubeadm world (`--world kubeadm`).
#[test]
fn article_transcripts_match() {
    check_transcripts("articles");
}

/// The same Kubernetes story twice gives byte-identical output: the control plane is
/// deterministic too.
#[test]
fn kube_runs_are_reproducible() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/kube/deployment.script");
    assert_eq!(run(&script), run(&script));
}

/// The walking skeleton's story, asserted on the JSON rather than on a transcript: a leader
/// appears, is killed, and a different member leads in a higher term.
#[test]
fn kill_leader_story_through_raftlab_run() {
    for seed in 1..=20 {
        let script = "wait leader\nstatus -w json\nkill leader\nwait leader\nstatus -w json\n";
        let out = Command::new(env!("CARGO_BIN_EXE_raftlab"))
            .args(["run", "--members", "3", "--seed", &seed.to_string(), "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(script.as_bytes())?;
                child.wait_with_output()
            })
            .expect("run raftlab");
        assert!(out.status.success(), "seed {seed}: exit {:?}", out.status);
        let stdout = String::from_utf8(out.stdout).unwrap();
        let statuses: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let [before, after] = statuses.as_slice() else {
            panic!("seed {seed}: {stdout}")
        };
        let leader_term = |s: &serde_json::Value| {
            let leader = s["leader"].as_str().expect("a leader").to_string();
            let term = s["members"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == leader.as_str())
                .map(|m| m["term"].as_u64().unwrap())
                .unwrap();
            (leader, term)
        };
        let (old, old_term) = leader_term(before);
        let (new, new_term) = leader_term(after);
        assert_ne!(old, new, "seed {seed}");
        assert!(new_term > old_term, "seed {seed}: {old_term} -> {new_term}");
        let old_state = after["members"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == old.as_str())
            .unwrap();
        assert_eq!(old_state["state"], "stopped", "seed {seed}");
    }
}

#[test]
fn same_script_same_seed_byte_identical_output_and_trace() {
    let dir = std::env::temp_dir().join(format!("raftlab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/run/kill-leader.script");
    let run_once = |name: &str| {
        let trace = dir.join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_raftlab"))
            .args(["run", "--seed", "7", "--echo", "--trace"])
            .arg(&trace)
            .arg(&script)
            .output()
            .unwrap();
        (out.stdout, std::fs::read(&trace).unwrap())
    };
    let (a_out, a_trace) = run_once("a.json");
    let (b_out, b_trace) = run_once("b.json");
    assert_eq!(a_out, b_out);
    assert_eq!(a_trace, b_trace);
    let trace: serde_json::Value = serde_json::from_slice(&a_trace).unwrap();
    assert_eq!(trace["seed"], 7);
    assert!(trace["events"].as_array().unwrap().len() > 10);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_invocations_exit_2_with_usage() {
    for args in [
        vec!["frob"],
        vec!["run", "--members", "0"],
        vec!["run", "--members", "x"],
        vec!["run", "--bogus"],
        vec!["run", "/nonexistent/file"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_raftlab"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}
