//! Transcript tests of the Kubernetes stories: each `tests/testdata/kube/*.script` runs through
//! `raftlab run` with the flags of its first line (`# raftlab run --seed 1 --echo`); its output
//! must equal the `.out` file beside it. `REWRITE=1 cargo test --test kube_scripts` blesses new
//! output (read the diff before keeping it).

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(script: &Path) -> (String, i32) {
    let text = std::fs::read_to_string(script).unwrap();
    let header = text.lines().next().unwrap_or_default();
    let flags: Vec<&str> = header
        .strip_prefix("# raftlab run")
        .unwrap_or_else(|| {
            panic!(
                "{}: first line must be `# raftlab run FLAGS`",
                script.display()
            )
        })
        .split_whitespace()
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_raftlab"))
        .arg("run")
        .args(&flags)
        .arg(script)
        .output()
        .expect("run raftlab");
    let mut text = String::from_utf8(out.stdout).unwrap();
    text.push_str(&String::from_utf8(out.stderr).unwrap());
    (text, out.status.code().unwrap_or(-1))
}

fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/kube");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "script"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no kube transcripts found");
    paths
}

#[test]
fn kube_transcripts_match() {
    let rewrite = std::env::var_os("REWRITE").is_some();
    let mut failures = Vec::new();
    for script in scripts() {
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

/// The same story twice gives byte-identical output: the control plane is deterministic.
#[test]
fn kube_runs_are_reproducible() {
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/kube/deployment.script");
    assert_eq!(run(&script), run(&script));
}
