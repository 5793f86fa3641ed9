//! The fuzzer runs its workers in a child process of itself. An input that overflows a stack
//! makes Rust abort the whole process, past any `catch_unwind`, so a worker notes in a ledger
//! file each input before it runs it; when the child is killed, the supervisor runs each input
//! the ledger names alone, in a child of its own, and reports the one that kills it.

use super::{shown, Args, Job};
use crate::cli::fuzz::corpus::Corpus;
use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// Set in a child: the ledger's path (empty for a child that checks one input, which keeps
/// none). A process without it supervises.
pub const LEDGER_ENV: &str = "RAFTLAB_FUZZ_LEDGER";

/// Each worker's slot: the target's name and the input it is running.
const NAME_WIDTH: usize = 16;
const SLOT: u64 = NAME_WIDTH as u64 + 22;

/// The inputs the workers of a child are on, one slot a worker, written before each input.
pub struct Ledger {
    file: File,
}

impl Ledger {
    pub fn create(path: &Path) -> io::Result<Ledger> {
        File::create(path).map(|file| Ledger { file })
    }

    pub fn note(&self, worker: u64, target: &str, input: u64) {
        let line = format!("{target:<NAME_WIDTH$} {input:>20}\n");
        // A failed note only costs the report's precision; the run goes on.
        let _ = self
            .file
            .write_at(line.as_bytes(), worker.saturating_mul(SLOT));
    }
}

/// The (target, input) pairs a ledger holds, in worker order.
fn read_ledger(path: &Path) -> Vec<(String, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut seen: Vec<(String, u64)> = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if let (Some(target), Some(Ok(input))) = (words.next(), words.next().map(str::parse)) {
            let slot = (target.to_string(), input);
            if !seen.contains(&slot) {
                seen.push(slot);
            }
        }
    }
    seen
}

/// How a child is started: with the ledger's path, or (None) to check one input quietly.
pub type Spawn<'a> = &'a dyn Fn(&[String], Option<&Path>) -> io::Result<ExitStatus>;

/// This program as a child: `raftlab fuzz ARGS`.
pub fn spawn_self(args: &[String], ledger: Option<&Path>) -> io::Result<ExitStatus> {
    let mut child = Command::new(std::env::current_exe()?);
    child.arg("fuzz").args(args);
    match ledger {
        Some(path) => child.env(LEDGER_ENV, path),
        None => child
            .env(LEDGER_ENV, "")
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    };
    child.status()
}

/// Runs `raftlab fuzz RAW` in a child; passes its exit code on, or, if it was killed, finds
/// and reports the input that kills it.
pub fn supervise(
    raw: &[String],
    args: &Args,
    corpus: &Corpus,
    spawn: Spawn,
) -> (String, String, i32) {
    let ledger = ledger_path();
    let outcome = spawn(raw, Some(&ledger));
    let on = read_ledger(&ledger);
    let _ = std::fs::remove_file(&ledger);
    match outcome {
        Err(e) => (
            String::new(),
            format!("raftlab fuzz: cannot start a worker process: {e}\n"),
            2,
        ),
        Ok(status) => match status.code() {
            Some(code) => (String::new(), String::new(), code),
            None => (String::new(), killed(status, &on, args, corpus, spawn), 1),
        },
    }
}

/// A path of its own for each child (tests supervise several at once in one process).
fn ledger_path() -> PathBuf {
    static CHILDREN: AtomicU64 = AtomicU64::new(0);
    let child = CHILDREN.fetch_add(1, Ordering::Relaxed);
    let name = format!("raftlab-fuzz-{}-{child}.inputs", std::process::id());
    std::env::temp_dir().join(name)
}

/// The report of a child killed while on the inputs `on`: the first that kills a child of
/// its own, or that none does alone.
fn killed(
    status: ExitStatus,
    on: &[(String, u64)],
    args: &Args,
    corpus: &Corpus,
    spawn: Spawn,
) -> String {
    for (name, input) in on {
        let Some(target) = args.targets.iter().find(|t| t.name == name) else {
            continue;
        };
        let again = again_args(name, args.seed, *input);
        let Ok(alone) = spawn(&with_corpus(again.clone(), args), None) else {
            continue;
        };
        if alone.code().is_none() {
            let job = Job::new(target, corpus, args.seed);
            return format!(
                "fuzz {name}: KILLED: input {input} (seed {}) kills the process ({alone})\n  input: {}\n  again: raftlab fuzz {}\n",
                args.seed,
                shown(&job.input(*input)),
                again.join(" ")
            );
        }
    }
    let list: Vec<String> = on.iter().map(|(t, i)| format!("{t} input {i}")).collect();
    format!(
        "fuzz: the worker process was killed ({status}) on {}; none of them kills it alone\n",
        if list.is_empty() {
            "no input yet".to_string()
        } else {
            list.join(", ")
        }
    )
}

fn again_args(target: &str, seed: u64, input: u64) -> Vec<String> {
    [
        "--target",
        target,
        "--seed",
        &seed.to_string(),
        "--from",
        &input.to_string(),
    ]
    .iter()
    .map(ToString::to_string)
    .chain(["--iterations".into(), "1".into()])
    .collect()
}

fn with_corpus(mut again: Vec<String>, args: &Args) -> Vec<String> {
    again.extend(["--jobs".into(), "1".into(), "--corpus".into()]);
    again.push(args.corpus.display().to_string());
    again
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exits(script: &str) -> io::Result<ExitStatus> {
        Command::new("sh").args(["-c", script]).status()
    }

    /// A child whose workers were on etcdctl inputs 5 and 8 when it died, where input
    /// `deadly` alone kills a process too.
    fn child(deadly: u64) -> impl Fn(&[String], Option<&Path>) -> io::Result<ExitStatus> {
        move |args, ledger| match ledger {
            Some(path) => {
                let ledger = Ledger::create(path)?;
                ledger.note(1, "etcdctl", 8);
                ledger.note(0, "etcdctl", 5);
                exits("kill -ABRT $$")
            }
            None if args
                .windows(2)
                .any(|w| w[0] == "--from" && w[1] == deadly.to_string()) =>
            {
                exits("kill -SEGV $$")
            }
            None => exits("exit 0"),
        }
    }

    fn run(spawn: Spawn) -> (String, String, i32) {
        let raw: Vec<String> = ["--target", "etcdctl", "--seed", "3"]
            .map(String::from)
            .into();
        let args = super::super::parse(&raw).expect("the flags parse");
        supervise(&raw, &args, &Corpus::default(), spawn)
    }

    #[test]
    fn the_input_that_kills_the_worker_process_is_named() {
        let (_, report, code) = run(&child(8));
        assert_eq!(code, 1, "{report}");
        assert!(
            report.starts_with(
                "fuzz etcdctl: KILLED: input 8 (seed 3) kills the process (signal: 11"
            ),
            "{report}"
        );
        assert!(
            report.contains(
                "again: raftlab fuzz --target etcdctl --seed 3 --from 8 --iterations 1\n"
            ),
            "{report}"
        );
    }

    #[test]
    fn a_death_no_input_repeats_alone_names_the_inputs_it_was_on() {
        let (_, report, code) = run(&child(99));
        assert_eq!(code, 1);
        assert!(report.contains("killed (signal: 6"), "{report}");
        assert!(
            report.ends_with("on etcdctl input 5, etcdctl input 8; none of them kills it alone\n"),
            "{report}"
        );
    }

    #[test]
    fn a_child_that_exits_passes_its_code_on() {
        for code in [0, 1, 2] {
            let spawn = move |_: &[String], _: Option<&Path>| exits(&format!("exit {code}"));
            assert_eq!(run(&spawn), (String::new(), String::new(), code));
        }
    }
}
