//! `raftlab lesson list` and `raftlab lesson check [ID|FILE.yaml|--all]`: the shipped lessons,
//! and the proof that each step's solution reaches its goal and each predict answer is right.

use crate::lesson::check::{check, Report};
use crate::lesson::{shipped, Lesson};
use std::fmt::Write as _;

pub const USAGE: &str = "usage: raftlab lesson list
       raftlab lesson check [ID|FILE.yaml|--all]

list: every shipped lesson, with its steps.
check: runs every step of the lessons named (all of them by default): the setup, the goal
not met yet, the solution, the goal met, and every predict answer against the run. A FILE
(a name ending in .yaml) is a lesson file of your own. Exit 1 if any step fails.";

/// Runs `raftlab lesson ARGS…`; returns what to print on stdout, on stderr, and the exit code.
pub fn main(args: &[String]) -> (String, String, i32) {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["list"] => list(),
        ["check"] | ["check", "--all"] => match shipped::all() {
            Ok(lessons) => report(&lessons),
            Err(e) => (String::new(), format!("raftlab lesson check: {e}\n"), 1),
        },
        ["check", target] if !target.starts_with('-') => match load(target) {
            Ok(lesson) => report(&[lesson]),
            Err((e, code)) => (String::new(), format!("raftlab lesson check: {e}\n"), code),
        },
        ["--help" | "-h" | "help"] => (format!("{USAGE}\n"), String::new(), 0),
        _ => (String::new(), format!("{USAGE}\n"), 2),
    }
}

/// A shipped lesson by id, or a file (a name ending in `.yaml`/`.yml`, or one with a `/`).
/// An unreadable file is a usage error (2); a file that is not a lesson fails the check (1).
fn load(target: &str) -> Result<Lesson, (String, i32)> {
    let is_file = target.ends_with(".yaml") || target.ends_with(".yml") || target.contains('/');
    if !is_file {
        return shipped::find(target).map_err(|e| (e, 2));
    }
    let bytes = std::fs::read(target).map_err(|e| (format!("cannot read {target}: {e}"), 2))?;
    Lesson::parse(target, &String::from_utf8_lossy(&bytes)).map_err(|e| (e, 1))
}

fn list() -> (String, String, i32) {
    let lessons = match shipped::all() {
        Ok(l) => l,
        Err(e) => return (String::new(), format!("raftlab lesson list: {e}\n"), 1),
    };
    let width = lessons.iter().map(|l| l.id.len()).max().unwrap_or(2).max(2);
    let mut out = format!("{:<width$}  STEPS  TITLE\n", "ID");
    for l in &lessons {
        let _ = writeln!(
            out,
            "{:<width$}  {:>5}  {}",
            l.id,
            l.steps().len(),
            l.title.en
        );
    }
    (out, String::new(), 0)
}

/// One line per step (`ok` or `FAIL` and why), then a summary; exit 1 on any failure.
fn report(lessons: &[Lesson]) -> (String, String, i32) {
    let mut out = String::new();
    let (mut steps, mut failed, mut predicts) = (0, 0, 0);
    for lesson in lessons {
        let r = check(lesson);
        steps += r.total;
        predicts += lesson
            .steps()
            .iter()
            .filter(|s| s.predict.is_some())
            .count();
        failed += write_report(&mut out, &r);
    }
    let verdict = if failed == 0 { "ok" } else { "FAIL" };
    let _ = writeln!(
        out,
        "{verdict}: {} lessons, {steps} steps ({predicts} with a predict question), {failed} failed",
        lessons.len()
    );
    (out, String::new(), i32::from(failed > 0))
}

/// Writes a lesson's lines; returns how many of its steps failed (or were not reached).
fn write_report(out: &mut String, r: &Report) -> usize {
    let mut failed = 0;
    for s in &r.steps {
        let head = format!("{} step {}/{}", r.id, s.step + 1, r.total);
        if s.problems.is_empty() {
            let _ = writeln!(out, "{head}: ok  {}", s.title);
        } else {
            failed += 1;
            for p in &s.problems {
                let _ = writeln!(out, "{head}: FAIL  {p}");
            }
        }
    }
    if let Some(why) = &r.stopped {
        let missing = r.total - r.steps.len();
        failed += missing.max(1);
        let _ = writeln!(out, "{}: FAIL  {why}", r.id);
    }
    failed
}
