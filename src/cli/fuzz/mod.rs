//! `raftlab fuzz`: a seeded, grammar-aware fuzzer over every parser and the engine behind
//! it. Input `i` of a run is made from the seed and `i` alone, so any input can be made again
//! (`--from I --iterations 1`). A panic is caught, shrunk to the smallest input that still
//! panics at the same place, and reported with its target, seed and iteration; an input that
//! runs longer than `--timeout` seconds is reported as a hang, one that grows the process past
//! 4 GiB as too big for the page. Each makes the exit code 1.
//! Inputs are shared out among `--jobs` workers, each with its own session; the inputs run
//! and what panics do not depend on how many. The workers run in a child process, so that an
//! input that kills a process is named too ([`supervise`]).

mod corpus;
mod mutate;
mod shrink;
mod supervise;
mod targets;

use crate::base::Rng;
use corpus::Corpus;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{JoinHandle, ThreadId};
use std::time::{Duration, Instant};
use supervise::Ledger;
use targets::{Form, Target, TARGETS};

pub const USAGE: &str = "usage: raftlab fuzz [--target NAME|all] [--iterations N] [--seed S]
                    [--from I] [--timeout SECS] [--corpus DIR] [--jobs J]
       raftlab fuzz --list

Feeds N inputs (default 10000) to each target, made by changing real inputs from the
transcripts under --corpus (default tests/testdata); input I depends only on the seed and I.
J workers (default: one per CPU) share the inputs out; --jobs 1 reports in input order.
Exit code 1 if any input panicked, ran longer than --timeout seconds (default 60), grew
the process past 4 GiB (more than the page's wasm can hold) or killed the process (a stack
overflow aborts it: the workers run in a child process).";

struct Args {
    targets: Vec<&'static Target>,
    iterations: u64,
    seed: u64,
    from: u64,
    timeout: Duration,
    corpus: PathBuf,
    jobs: u64,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        targets: TARGETS.iter().collect(),
        iterations: 10_000,
        seed: 1,
        from: 0,
        timeout: Duration::from_secs(60),
        corpus: PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/testdata")),
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    };
    let mut words = args.iter();
    while let Some(flag) = words.next() {
        let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: &String| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--target" => parsed.targets = pick_targets(value()?)?,
            "--iterations" => parsed.iterations = number(value()?)?,
            "--seed" => parsed.seed = number(value()?)?,
            "--from" => parsed.from = number(value()?)?,
            "--timeout" => parsed.timeout = Duration::from_secs(number(value()?)?),
            "--corpus" => parsed.corpus = value()?.into(),
            "--jobs" => match number(value()?)? {
                0 => return Err("--jobs 0: at least one worker".into()),
                n => parsed.jobs = n,
            },
            _ => return Err(format!("unknown flag {flag:?}")),
        }
    }
    Ok(parsed)
}

fn pick_targets(names: &str) -> Result<Vec<&'static Target>, String> {
    if names == "all" {
        return Ok(TARGETS.iter().collect());
    }
    names
        .split(',')
        .map(|n| targets::find(n).ok_or_else(|| format!("no target {n:?} (see --list)")))
        .collect()
}

/// Runs `raftlab fuzz ARGS`; gives stdout, stderr and the exit code.
pub fn main(args_raw: &[String]) -> (String, String, i32) {
    if args_raw.iter().any(|a| a == "--list") {
        let list: String = TARGETS
            .iter()
            .map(|t| format!("{:<11}{}\n", t.name, t.about))
            .collect();
        return (list, String::new(), 0);
    }
    if !cfg!(panic = "unwind") {
        // The release profile aborts on panic, which no harness can catch.
        let hint = "raftlab fuzz: this build aborts on panic; build it with --profile fuzz\n";
        return (String::new(), hint.into(), 2);
    }
    let args = match parse(args_raw) {
        Ok(args) => args,
        Err(e) => return (String::new(), format!("raftlab fuzz: {e}\n{USAGE}\n"), 2),
    };
    let corpus = match Corpus::read(&args.corpus) {
        Ok(c) => Arc::new(c),
        Err(e) => return (String::new(), format!("raftlab fuzz: {e}\n"), 2),
    };
    let ledger = match std::env::var_os(supervise::LEDGER_ENV) {
        None => return supervise::supervise(args_raw, &args, &corpus, &supervise::spawn_self),
        Some(path) if path.is_empty() => None,
        Some(path) => match Ledger::create(path.as_ref()) {
            Ok(ledger) => Some(Arc::new(ledger)),
            Err(e) => return (String::new(), format!("raftlab fuzz: {path:?}: {e}\n"), 2),
        },
    };
    silence_panics();
    let mut failed = false;
    for target in &args.targets {
        failed |= !fuzz_target(target, &args, &corpus, ledger.as_ref());
    }
    (String::new(), String::new(), i32::from(failed))
}

/// What a target's inputs are made from.
struct Job {
    target: &'static Target,
    seeds: Vec<Vec<u8>>,
    donors: Vec<String>,
    seed: u64,
}

impl Job {
    fn new(target: &'static Target, corpus: &Corpus, seed: u64) -> Job {
        Job {
            target,
            seeds: (target.seeds)(corpus),
            donors: corpus.lines.clone(),
            seed,
        }
    }

    /// Input `i`: one of the seeds, changed; depends only on the run's seed and `i`.
    fn input(&self, i: u64) -> Vec<u8> {
        let mut rng = Rng::derive(self.seed, &format!("{}#{i}", self.target.name));
        let original = rng.pick(&self.seeds).cloned().unwrap_or_default();
        let as_bytes = match self.target.form {
            Form::Bytes => true,
            Form::Either => rng.chance(0.25),
            Form::Text => false,
        };
        if as_bytes {
            mutate::bytes(&mut rng, &original)
        } else {
            let text = String::from_utf8_lossy(&original);
            mutate::text(&mut rng, &text, &self.donors).into_bytes()
        }
    }
}

/// The message and place of each worker's last panic, kept by the hook instead of printed:
/// by thread, since workers panic at once and a dead worker's is read by the main thread.
static LAST_PANIC: Mutex<Vec<(ThreadId, String)>> = Mutex::new(Vec::new());

fn keep_panic(message: String) {
    let me = std::thread::current().id();
    if let Ok(mut last) = LAST_PANIC.lock() {
        last.retain(|(id, _)| *id != me);
        last.push((me, message));
    }
}

fn take_panic(thread: ThreadId) -> Option<String> {
    let mut last = LAST_PANIC.lock().ok()?;
    let at = last.iter().position(|(id, _)| *id == thread)?;
    Some(last.swap_remove(at).1)
}

fn silence_panics() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let place = crate_frame()
            .unwrap_or_else(|| info.location().map(ToString::to_string).unwrap_or_default());
        keep_panic(format!("{message} (at {place})"));
    }));
}

/// The innermost function of this crate on the stack (the harness aside): where a panic
/// inside the standard library (a bad slice index) was called from.
fn crate_frame() -> Option<String> {
    let trace = std::backtrace::Backtrace::force_capture().to_string();
    let mut frames = trace.lines().map(str::trim);
    while let Some(line) = frames.next() {
        let Some((_, function)) = line.split_once(": ") else {
            continue;
        };
        if function.starts_with("raftlab::") && !function.starts_with("raftlab::cli::fuzz") {
            let function = function.rsplit_once("::h").map_or(function, |(f, _)| f);
            let file = frames.next().filter(|l| l.starts_with("at "));
            return Some(file.map_or(function.to_string(), |f| format!("{function} {f}")));
        }
    }
    None
}

/// Runs one input; the panic's message and place if it panicked.
fn panics(target: &Target, base: &crate::console::Session, input: &[u8]) -> Option<String> {
    let caught = catch_unwind(AssertUnwindSafe(|| (target.run)(base, input)));
    caught
        .is_err()
        .then(|| take_panic(std::thread::current().id()).unwrap_or_default())
}

/// The iteration the worker is on, plus one (0: none being watched), and the last one it
/// started (what a crash of the harness itself was working on), also noted in the ledger
/// for the supervisor, if it keeps one.
#[derive(Default)]
struct Progress {
    current: AtomicU64,
    started: AtomicU64,
    ledger: Option<Arc<Ledger>>,
    /// The worker's slowest input so far and its wall time in microseconds: a console line
    /// slow natively blocks the page longer still (#15 asks for 100 ms at most).
    slowest: AtomicU64,
    slowest_us: AtomicU64,
}

impl Progress {
    fn timed(&self, input: u64, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        if us > self.slowest_us.load(Ordering::Relaxed) {
            self.slowest_us.store(us, Ordering::Relaxed);
            self.slowest.store(input, Ordering::Relaxed);
        }
    }

    /// (microseconds, input) of the slowest input run.
    fn slowest(&self) -> (u64, u64) {
        let us = self.slowest_us.load(Ordering::Relaxed);
        (us, self.slowest.load(Ordering::Relaxed))
    }
}

/// The inputs one worker runs: every `stride`-th from `from + offset`, below `end`.
#[derive(Clone, Copy)]
struct Shard {
    from: u64,
    end: u64,
    offset: u64,
    stride: u64,
}

impl Shard {
    fn inputs(self) -> impl Iterator<Item = u64> {
        let stride = usize::try_from(self.stride).unwrap_or(usize::MAX).max(1);
        (self.from.saturating_add(self.offset)..self.end).step_by(stride)
    }
}

/// The places panics were first seen at, shared by the workers: each place is shrunk once.
type Places = Mutex<Vec<String>>;

struct Worker {
    progress: Arc<Progress>,
    handle: JoinHandle<u64>,
}

/// Fuzzes one target; false if an input panicked or hung.
// The harness measures the wall time of a run (its rate, the hang guard), never the engine.
#[allow(clippy::disallowed_methods)]
fn fuzz_target(
    target: &'static Target,
    args: &Args,
    corpus: &Arc<Corpus>,
    ledger: Option<&Arc<Ledger>>,
) -> bool {
    let job = Arc::new(Job::new(target, corpus, args.seed));
    if job.seeds.is_empty() {
        eprintln!(
            "fuzz {}: no inputs to start from in the corpus",
            target.name
        );
        return false;
    }
    let started = Instant::now();
    let workers = spawn_workers(&job, args, corpus, ledger);
    watch(&job, &workers, args.timeout);
    let progress: Vec<Arc<Progress>> = workers.iter().map(|w| w.progress.clone()).collect();
    let panicked: u64 = workers
        .into_iter()
        .map(|w| {
            let thread = w.handle.thread().id();
            w.handle
                .join()
                .unwrap_or_else(|_| harness_panicked(&job, &w.progress, thread))
        })
        .sum();
    let seconds = started.elapsed().as_secs_f64();
    // Read once the workers are joined, so that what each wrote is seen.
    let (slowest_us, slowest) = (progress.iter().map(|p| p.slowest()))
        .max()
        .unwrap_or_default();
    println!(
        "fuzz {}: {} inputs (seed {}, from {}), {panicked} panicked, {:.0} inputs/s ({seconds:.1} s), the slowest input {slowest} in {:.1} ms",
        target.name,
        args.iterations,
        args.seed,
        args.from,
        args.iterations as f64 / seconds.max(1e-9),
        slowest_us as f64 / 1000.0
    );
    panicked == 0
}

/// One worker per job (no more than there are inputs), each preparing its own session.
fn spawn_workers(
    job: &Arc<Job>,
    args: &Args,
    corpus: &Arc<Corpus>,
    ledger: Option<&Arc<Ledger>>,
) -> Vec<Worker> {
    let stride = args.jobs.min(args.iterations).max(1);
    let end = args.from.saturating_add(args.iterations);
    let places: Arc<Places> = Arc::default();
    (0..stride)
        .map(|offset| {
            let shard = Shard {
                from: args.from,
                end,
                offset,
                stride,
            };
            let progress = Arc::new(Progress {
                ledger: ledger.cloned(),
                ..Progress::default()
            });
            let (job, corpus, places, mine) = (
                job.clone(),
                corpus.clone(),
                places.clone(),
                progress.clone(),
            );
            let handle =
                std::thread::spawn(move || run_inputs(&job, &corpus, &mine, shard, &places));
            Worker { progress, handle }
        })
        .collect()
}

/// Past this resident size an input could not run in the page either (wasm32 addresses at
/// most 4 GiB): the harness names it there rather than be killed by the kernel, unnamed.
const MEMORY_LIMIT_KIB: u64 = 4 << 20;

/// This process's resident size in KiB, from Linux's `/proc`; None where that cannot be read.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The report of a process grown to `kib` while its workers were on `inputs`.
fn memory_report(job: &Job, inputs: &[u64], kib: u64) -> String {
    let mut report = format!(
        "fuzz {}: MEMORY: the process grew to {} MiB, past {} MiB, on {} (seed {})\n",
        job.target.name,
        kib >> 10,
        MEMORY_LIMIT_KIB >> 10,
        inputs
            .iter()
            .map(|i| format!("input {i}"))
            .collect::<Vec<_>>()
            .join(", "),
        job.seed
    );
    for &i in inputs {
        let again = format!(
            "--target {} --seed {} --from {i} --iterations 1",
            job.target.name, job.seed
        );
        let _ = writeln!(
            report,
            "  input {i}: {}\n  again: raftlab fuzz {again}",
            shown(&job.input(i))
        );
    }
    report
}

/// Waits for the workers; exits the process with a report if one input runs too long or the
/// process grows past [`MEMORY_LIMIT_KIB`].
#[allow(clippy::disallowed_methods)]
fn watch(job: &Job, workers: &[Worker], timeout: Duration) {
    let mut last: Vec<(u64, Instant)> = workers.iter().map(|_| (0, Instant::now())).collect();
    while workers.iter().any(|w| !w.handle.is_finished()) {
        std::thread::sleep(Duration::from_millis(50));
        if let Some(kib) = resident_kib().filter(|kib| *kib > MEMORY_LIMIT_KIB) {
            let running = workers.iter().filter(|w| !w.handle.is_finished());
            let inputs: Vec<u64> = (running.map(|w| w.progress.current.load(Ordering::Relaxed)))
                .filter_map(|now| now.checked_sub(1))
                .collect();
            eprint!("{}", memory_report(job, &inputs, kib));
            std::process::exit(1);
        }
        for (worker, (seen, since)) in workers.iter().zip(&mut last) {
            let now = worker.progress.current.load(Ordering::Relaxed);
            if now != *seen {
                (*seen, *since) = (now, Instant::now());
            } else if now != 0 && since.elapsed() > timeout && !worker.handle.is_finished() {
                let i = now - 1;
                eprintln!(
                    "fuzz {}: HANG: input {i} (seed {}) ran over {} s\n  input: {}",
                    job.target.name,
                    job.seed,
                    timeout.as_secs(),
                    shown(&job.input(i))
                );
                std::process::exit(1);
            }
        }
    }
}

/// A worker: runs the inputs of its shard; gives how many panicked.
// Each input's wall time is the harness's report of slow inputs, not a measure of the engine.
#[allow(clippy::disallowed_methods)]
fn run_inputs(
    job: &Job,
    corpus: &Corpus,
    progress: &Progress,
    shard: Shard,
    places: &Places,
) -> u64 {
    let base = (job.target.prepare)(corpus);
    let mut panicked = 0;
    for i in shard.inputs() {
        progress.started.store(i, Ordering::Relaxed);
        progress.current.store(i + 1, Ordering::Relaxed);
        if let Some(ledger) = &progress.ledger {
            ledger.note(shard.offset, job.target.name, i);
        }
        let input = job.input(i);
        let began = Instant::now();
        let outcome = panics(job.target, &base, &input);
        progress.timed(i, began.elapsed());
        let Some(message) = outcome else {
            continue;
        };
        panicked += 1;
        progress.current.store(0, Ordering::Relaxed);
        let place = place_of(&message);
        if !first_at(places, &place) {
            eprintln!(
                "fuzz {}: input {i} panicked again at {place}",
                job.target.name
            );
            continue;
        }
        let smallest = shrink::shrink(&input, job.target.form, &mut |candidate| {
            panics(job.target, &base, candidate).is_some_and(|m| place_of(&m) == place)
        });
        eprintln!(
            "fuzz {}: PANIC: input {i} (seed {}): {message}\n  input: {}\n  smallest input: {}\n  again: raftlab fuzz --target {} --seed {} --from {i} --iterations 1",
            job.target.name,
            job.seed,
            shown(&input),
            shown(&smallest),
            job.target.name,
            job.seed
        );
    }
    panicked
}

/// Whether `place` is new (and now seen).
fn first_at(places: &Places, place: &str) -> bool {
    let Ok(mut seen) = places.lock() else {
        return true;
    };
    let new = !seen.iter().any(|p| p == place);
    if new {
        seen.push(place.to_string());
    }
    new
}

/// Reports a panic outside the target (making or shrinking an input): the inputs after it
/// in that worker's share were not run. Counts as one panic.
fn harness_panicked(job: &Job, progress: &Progress, thread: ThreadId) -> u64 {
    let i = progress.started.load(Ordering::Relaxed);
    eprintln!(
        "fuzz {}: PANIC in the fuzzer itself at input {i} (seed {}), the inputs after it not run: {}\n  again: raftlab fuzz --target {} --seed {} --from {i} --iterations 1",
        job.target.name,
        job.seed,
        take_panic(thread).unwrap_or_default(),
        job.target.name,
        job.seed
    );
    1
}

/// The `(at file:line:col)` a panic message ends with.
fn place_of(message: &str) -> String {
    message
        .rsplit_once(" (at ")
        .map_or(message, |(_, place)| place)
        .to_string()
}

/// An input as a Rust literal (escapes for control characters and bytes), cut if huge.
fn shown(input: &[u8]) -> String {
    const MAX: usize = 2_000;
    let text = match std::str::from_utf8(input) {
        Ok(text) => format!("{text:?}"),
        Err(_) => format!("bytes {input:02x?}"),
    };
    if text.len() > MAX {
        let cut = (0..=MAX)
            .rev()
            .find(|i| text.is_char_boundary(*i))
            .unwrap_or(0);
        format!("{}… ({} bytes in all)", &text[..cut], input.len())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parser with a planted bug: a `!` in a word that also has a digit.
    static BUGGY: Target = Target {
        name: "buggy",
        about: "a planted bug",
        seeds: |_| vec![b"etcdctl put key1 value --lease=7".to_vec()],
        form: Form::Text,
        prepare: |_| crate::console::Session::new(crate::etcd::ClusterConfig::new(1, 1)),
        run: |_, input| {
            let text = String::from_utf8_lossy(input);
            assert!(
                !text.split(' ').any(|w| w.contains('!') && w.contains('1')),
                "planted"
            );
        },
    };

    #[test]
    fn a_planted_panic_is_caught_counted_and_reproducible() {
        silence_panics();
        let corpus = Corpus::default();
        let job = Job {
            target: &BUGGY,
            seeds: (BUGGY.seeds)(&corpus),
            donors: vec!["a!b 1".into()],
            seed: 4,
        };
        let shard = |offset, stride| Shard {
            from: 0,
            end: 3_000,
            offset,
            stride,
        };
        let one = |shard| {
            run_inputs(
                &job,
                &corpus,
                &Progress::default(),
                shard,
                &Places::default(),
            )
        };
        let panicked = one(shard(0, 1));
        assert!(panicked > 0, "the planted bug was never hit (seed 4)");
        // Three workers at once, sharing the places seen: the same inputs panic.
        let places = Places::default();
        let shared: u64 = std::thread::scope(|s| {
            let workers: Vec<_> = (0..3)
                .map(|k| {
                    let (job, corpus, places) = (&job, &corpus, &places);
                    s.spawn(move || {
                        run_inputs(job, corpus, &Progress::default(), shard(k, 3), places)
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap_or(0)).sum()
        });
        assert_eq!(shared, panicked, "three workers found what one did");
        let first = (0..3_000)
            .find(|i| panics(&BUGGY, &(BUGGY.prepare)(&corpus), &job.input(*i)).is_some())
            .expect("the same inputs panic again");
        assert_eq!(
            job.input(first),
            job.input(first),
            "input {first} is made again"
        );
    }

    #[test]
    fn shards_run_every_input_once() {
        for (from, end, stride) in [
            (0, 10, 1),
            (5, 17, 3),
            (7, 8, 4),
            (u64::MAX - 2, u64::MAX, 2),
        ] {
            let mut all: Vec<u64> = (0..stride)
                .flat_map(|offset| {
                    Shard {
                        from,
                        end,
                        offset,
                        stride,
                    }
                    .inputs()
                })
                .collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (from..end).collect::<Vec<_>>(),
                "{from}..{end} by {stride}"
            );
        }
    }

    #[test]
    fn unknown_targets_and_flags_are_usage_errors() {
        let (_, err, code) = main(&["--target".into(), "nope".into()]);
        assert_eq!(code, 2);
        assert!(err.contains("no target \"nope\""), "{err}");
        let (_, err, code) = main(&["--iterations".into()]);
        assert_eq!(code, 2);
        assert!(err.contains("--iterations needs a value"), "{err}");
        let (_, err, code) = main(&["--jobs".into(), "0".into()]);
        assert_eq!(code, 2);
        assert!(err.contains("--jobs 0: at least one worker"), "{err}");
        let (list, _, code) = main(&["--list".into()]);
        assert_eq!(code, 0);
        assert_eq!(list.lines().count(), TARGETS.len());
    }

    #[test]
    fn an_input_that_grows_the_process_too_big_is_named_with_how_to_run_it_again() {
        let corpus = Corpus::default();
        let job = Job::new(&BUGGY, &corpus, 4);
        let report = memory_report(&job, &[7, 12], 5 << 20);
        let mut lines = report.lines();
        assert_eq!(
            lines.next(),
            Some("fuzz buggy: MEMORY: the process grew to 5120 MiB, past 4096 MiB, on input 7, input 12 (seed 4)")
        );
        assert!(
            lines.next().unwrap().starts_with("  input 7: \""),
            "{report}"
        );
        assert_eq!(
            lines.next(),
            Some("  again: raftlab fuzz --target buggy --seed 4 --from 7 --iterations 1")
        );
        assert_eq!(lines.count(), 2, "{report}");
        assert!(resident_kib().is_some_and(|kib| kib > 0 && kib < MEMORY_LIMIT_KIB));
    }
}
