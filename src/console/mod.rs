//! Command lines, typed in the browser console or read from scripts: the simulator's own
//! verbs now (`etcdctl`, `etcdutl` and `kubectl` join them with their issues). Every command
//! answers with stdout, stderr and an exit code, as a real process would.

pub mod etcdctl;
mod pipe;
pub mod script;
mod shell;

use crate::base::{format_duration, parse_duration, MemberId, Millis};
use crate::check::Monitor;
use crate::etcd::{Cluster, ClusterConfig};
use crate::sim::SimError;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What a command printed and how it exited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output {
            stdout,
            stderr: String::new(),
            code: 0,
        }
    }

    fn error(message: impl std::fmt::Display) -> Output {
        Output {
            stdout: String::new(),
            stderr: format!("Error: {message}\n"),
            code: 1,
        }
    }
}

/// Every command a console line can start with: the real tools, then the simulator's verbs
/// (`Session::execute` dispatches each; the unknown-command text and the page's completion
/// read this list).
pub const VERBS: &[&str] = &[
    "etcdctl",
    "etcdutl",
    "kubectl",
    "kube",
    "wait",
    "status",
    "kill",
    "restart",
    "pause",
    "resume",
    "timeout",
    "transfer",
    "partition",
    "isolate",
    "heal",
    "latency",
    "loss",
    "drop",
    "add-member",
    "add-learner",
    "remove-member",
    "promote",
    "snapshot",
    "snapshot-count",
    "fsync",
    "drop-message",
    "delay-message",
    "write",
    "echo",
    "date",
];

/// How long `wait leader` waits before giving up (virtual time).
pub const WAIT_LEADER_LIMIT_MS: Millis = 60_000;
/// The longest `wait`: past an hour and a bit (the API server's event TTL plus its lease's
/// slack), a wait is a typo, and it would hold the page for as long as it runs.
pub const WAIT_LIMIT_MS: Millis = 2 * 3_600_000;

/// One command that changed the world, and exactly where in the run it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    pub time_ms: Millis,
    /// Events the world had handled when the command ran (several can share a millisecond).
    pub steps: u64,
    /// When the command was done (later than `time_ms` for commands that wait).
    pub end_ms: Millis,
    pub line: String,
    pub stdin: Option<String>,
}

/// A copy of the world taken every so often, to travel back in time quickly.
#[derive(Clone, Debug)]
struct Checkpoint {
    world: Cluster,
    kube: Option<crate::kube::ControlPlane>,
    files: BTreeMap<String, Vec<u8>>,
    monitor: Option<Monitor>,
    vars: BTreeMap<String, String>,
    history_len: usize,
}

/// Virtual time between checkpoints (doubles when too many pile up).
const CHECKPOINT_EVERY_MS: Millis = 1_000;
/// Checkpoints of the last [`RECENT_MS`]: a rewind there replays at most the spacing.
const MAX_CHECKPOINTS: usize = 256;
const RECENT_MS: Millis = 3_600_000;
/// Older moments keep only this many checkpoints (and the first), spread over the run: each
/// holds a world that shares little with the present, so their number bounds the memory.
const MAX_OLD_CHECKPOINTS: usize = 8;

/// Drops every other checkpoint in `range` (an inclusive range of positions), keeping the
/// last one of it.
fn thin_every_other(checkpoints: &mut Vec<Checkpoint>, range: std::ops::RangeInclusive<usize>) {
    let (first, last) = (*range.start(), *range.end());
    let mut position = 0;
    checkpoints.retain(|_| {
        let keep = position < first || position > last || (last - position) % 2 == 0;
        position += 1;
        keep
    });
}

/// A world plus the history of what was done to it: any run can be exported as a script that
/// replays it exactly (with the same seed), and rewound to any earlier moment to branch off.
#[derive(Clone, Debug)]
pub struct Session {
    pub config: ClusterConfig,
    pub world: Cluster,
    history: Vec<HistoryEntry>,
    checkpoints: Vec<Checkpoint>,
    checkpoint_every_ms: Millis,
    /// Re-running recorded commands: do not record them again.
    replaying: bool,
    /// Where the command being executed started (time, events handled).
    command_start: (Millis, u64),
    /// The run's working directory (`snapshot save`, `etcdutl snapshot restore`): a virtual
    /// filesystem, so the browser and the CLI behave alike.
    pub files: BTreeMap<String, Vec<u8>>,
    // kube: the mock Kubernetes control plane, once `kube up` started it.
    pub kube: Option<crate::kube::ControlPlane>,
    /// The invariant checkers, when watched (the page): checkpointed with the world, so a
    /// rewind keeps what they saw before the moment it goes back to.
    monitor: Option<Monitor>,
    /// Shell variables (`rev=$(…)`).
    vars: BTreeMap<String, String>,
    /// Running a command substitution: its command is part of the line recorded, not one of
    /// its own.
    substituting: bool,
}

impl Session {
    pub fn new(config: ClusterConfig) -> Session {
        let world = config.build();
        let first = Checkpoint {
            world: world.clone(),
            kube: None,
            files: BTreeMap::new(),
            monitor: None,
            vars: BTreeMap::new(),
            history_len: 0,
        };
        Session {
            world,
            config,
            history: Vec::new(),
            checkpoints: vec![first],
            checkpoint_every_ms: CHECKPOINT_EVERY_MS,
            replaying: false,
            command_start: (0, 0),
            files: BTreeMap::new(),
            kube: None, // kube:
            monitor: None,
            vars: BTreeMap::new(),
            substituting: false,
        }
    }

    /// Starts watching the invariants (from the first checkpoint on, so that every rewind
    /// finds checkers): the page's monitor.
    pub fn watch_invariants(&mut self) {
        let mut monitor = Monitor::new();
        monitor.observe(&self.world);
        for c in &mut self.checkpoints {
            c.monitor.get_or_insert_with(Monitor::new);
        }
        self.monitor = Some(monitor);
    }

    /// The invariant checkers, if watched.
    pub fn monitor(&self) -> Option<&Monitor> {
        self.monitor.as_ref()
    }

    /// Lets the checkers look at the world as it is now.
    pub fn observe(&mut self) {
        if let Some(m) = &mut self.monitor {
            m.observe(&self.world);
        }
    }

    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// The run so far as a script: the commands, with `wait`s for the time between them.
    pub fn export_script(&self) -> String {
        let c = &self.config;
        let mut out = format!("# raftlab run {}\n", c.flags());
        let mut time = 0;
        for entry in &self.history {
            if entry.time_ms > time {
                let _ = writeln!(out, "wait {}", format_duration(entry.time_ms - time));
            }
            time = entry.end_ms;
            match &entry.stdin {
                Some(stdin) => {
                    let _ = write!(out, "{} <<EOF\n{stdin}EOF\n", entry.line);
                }
                None => {
                    let _ = writeln!(out, "{}", entry.line);
                }
            }
        }
        if self.world.now() > time {
            let _ = writeln!(out, "wait {}", format_duration(self.world.now() - time));
        }
        out
    }

    fn record(&mut self, line: &str) {
        self.record_with_stdin(line, None);
    }

    fn record_with_stdin(&mut self, line: &str, stdin: Option<&str>) {
        if self.replaying || self.substituting {
            return;
        }
        let (time_ms, steps) = self.command_start;
        self.history.push(HistoryEntry {
            time_ms,
            steps,
            end_ms: self.world.now(),
            line: line.to_string(),
            stdin: stdin.map(str::to_string),
        });
    }

    /// Keeps the world's wire log (`Sim::set_wire_log`), in every checkpoint too, so that a
    /// rewound run records its messages as the first one did.
    pub fn set_wire_log(&mut self, keep: usize) {
        self.world.set_wire_log(keep);
        for c in &mut self.checkpoints {
            c.world.set_wire_log(keep);
        }
    }

    /// Advances virtual time by `ms`, taking checkpoints on the way.
    pub fn run_for(&mut self, ms: Millis) {
        let target = self.world.now() + ms;
        loop {
            let last = self.checkpoints.last().map_or(0, |c| c.world.now());
            let next_checkpoint = last + self.checkpoint_every_ms;
            if next_checkpoint > target {
                break;
            }
            self.advance_until(next_checkpoint);
            self.observe();
            self.checkpoint();
        }
        self.advance_until(target);
        self.observe();
    }

    // kube: the control plane, when up, acts as virtual time passes.
    fn advance_until(&mut self, t: Millis) {
        match &mut self.kube {
            Some(kube) => kube.run_until(&mut self.world, t),
            None => self.world.run_until(t),
        }
    }

    /// Handles one event (the UI's single step).
    pub fn step(&mut self) -> bool {
        self.world.step()
    }

    fn checkpoint(&mut self) {
        self.checkpoints.push(Checkpoint {
            world: self.world.clone(),
            kube: self.kube.clone(),
            files: self.files.clone(),
            monitor: self.monitor.clone(),
            vars: self.vars.clone(),
            history_len: self.history.len(),
        });
        let horizon = self.world.now().saturating_sub(RECENT_MS);
        let old = self.checkpoints[1..].partition_point(|c| c.world.now() < horizon);
        if old > MAX_OLD_CHECKPOINTS {
            thin_every_other(&mut self.checkpoints, 1..=old);
        }
        let recent = self.checkpoints[1..].partition_point(|c| c.world.now() < horizon) + 1;
        let newest = self.checkpoints.len() - 1;
        if newest + 1 - recent > MAX_CHECKPOINTS {
            thin_every_other(&mut self.checkpoints, recent..=newest);
            self.checkpoint_every_ms *= 2;
        }
    }

    /// Virtual times of the checkpoints kept: how far back a rewind finds one, and how close.
    pub fn checkpoint_times(&self) -> Vec<Millis> {
        self.checkpoints.iter().map(|c| c.world.now()).collect()
    }

    /// Travels back to virtual time `t` (at most now): the world is exactly as it was when the
    /// clock reached `t`, before any command given at `t`; what happened after is forgotten,
    /// so the run branches from here.
    pub fn rewind_to(&mut self, t: Millis) -> Result<(), String> {
        if t > self.world.now() {
            return Err(format!(
                "cannot travel forward: it is {} and {} has not happened yet",
                format_duration(self.world.now()),
                format_duration(t)
            ));
        }
        let position = self
            .checkpoints
            .iter()
            .rposition(|c| c.world.now() <= t)
            .unwrap_or(0);
        self.checkpoints.truncate(position + 1);
        let checkpoint = self.checkpoints[position].clone();
        self.world = checkpoint.world;
        self.kube = checkpoint.kube;
        self.files = checkpoint.files;
        self.vars = checkpoint.vars;
        if self.monitor.is_some() {
            self.monitor = checkpoint.monitor;
        }
        let replay: Vec<HistoryEntry> = self.history[checkpoint.history_len..]
            .iter()
            .take_while(|e| e.time_ms < t)
            .cloned()
            .collect();
        self.history.truncate(checkpoint.history_len + replay.len());
        self.replaying = true;
        for entry in replay {
            if self.kube.is_some() {
                // The control plane's own requests are part of the run: let it act again.
                self.advance_until(entry.time_ms);
            } else {
                self.world.run_to_steps(entry.steps);
            }
            self.world.set_now(entry.time_ms);
            self.observe();
            self.execute(&entry.line, entry.stdin.as_deref());
            self.observe();
        }
        self.replaying = false;
        self.advance_until(t);
        self.observe();
        Ok(())
    }

    /// Runs one command line; `stdin` is its standard input (a heredoc), if any. A pipeline
    /// (`etcdctl get / --prefix --keys-only | wc -l`) runs its first command here and filters
    /// that command's output with the rest (`pipe`); it is recorded whole.
    pub fn execute(&mut self, line: &str, stdin: Option<&str>) -> Output {
        // Shell variables and command substitutions first; the line is recorded as typed.
        let start = (self.world.now(), self.world.steps());
        let typed = line;
        if let Some((name, value)) = shell::assignment(line.trim()) {
            let value = match self.expand(value).map(|v| shlex::split(&v)) {
                Ok(Some(words)) => words.join(" "),
                Ok(None) => return Output::error("unterminated quote or trailing backslash"),
                Err(e) => return Output::error(&e),
            };
            self.vars.insert(name.to_string(), value);
            self.command_start = start;
            self.record_with_stdin(typed, stdin);
            return Output::default();
        }
        let expanded = match self.expand(line) {
            Ok(l) => l,
            Err(e) => return Output::error(&e),
        };
        let recorded = self.history.len();
        let out = self.execute_pipeline(&expanded, stdin);
        if expanded != typed && self.history.len() > recorded {
            if let Some(entry) = self.history.last_mut() {
                entry.line = typed.to_string();
                (entry.time_ms, entry.steps) = start;
            }
        }
        out
    }

    /// `$NAME`, `${NAME}` and `$(command)` in `line`, the commands run (not recorded: the
    /// line that holds them is).
    fn expand(&mut self, line: &str) -> Result<String, String> {
        if !line.contains('$') {
            return Ok(line.to_string());
        }
        let vars = self.vars.clone();
        let was = std::mem::replace(&mut self.substituting, true);
        let result = shell::expand(
            line,
            &|name| vars.get(name).cloned().unwrap_or_default(),
            &mut |command| self.execute(command, None).stdout,
        );
        self.substituting = was;
        result
    }

    fn execute_pipeline(&mut self, line: &str, stdin: Option<&str>) -> Output {
        // Only the tools pipe (the simulator's own `partition m1 | m2` uses the bar).
        let segments = pipe::split(line);
        let tool = |s: &&str| {
            let first = s.split_whitespace().next().unwrap_or("");
            matches!(
                first,
                "etcdctl" | "etcdutl" | "kubectl" | "timeout" | "status" | "echo" | "date"
            )
        };
        let Some((first, filters)) = segments
            .split_first()
            .filter(|(first, f)| !f.is_empty() && tool(first))
        else {
            return self.execute_command(line, stdin);
        };
        if first.is_empty() || filters.iter().any(|f| f.is_empty()) {
            // bash refuses the whole line before running any of it.
            return Output::error("syntax error near unexpected token `|'");
        }
        let recorded = self.history.len();
        let mut out = self.execute_command(first, stdin);
        if self.history.len() > recorded {
            if let Some(entry) = self.history.last_mut() {
                entry.line = line.to_string();
            }
        }
        for f in filters {
            let Some(words) = shlex::split(f) else {
                return Output::error("unterminated quote or trailing backslash");
            };
            let (stdout, stderr, code) = pipe::filter(&words, &out.stdout);
            out.stdout = stdout;
            out.stderr.push_str(&stderr);
            out.code = code;
        }
        out
    }

    fn execute_command(&mut self, line: &str, stdin: Option<&str>) -> Output {
        self.command_start = (self.world.now(), self.world.steps());
        let Some(words) = shlex::split(line) else {
            return Output::error("unterminated quote or trailing backslash");
        };
        let Some((verb, args)) = words.split_first() else {
            return Output::default();
        };
        // The real tools. Every call is recorded: requests take virtual time, and replaying
        // a run must take it again.
        let tool = match (verb.as_str(), args) {
            ("etcdctl", rest) => Some(etcdctl::etcdctl(self, rest, stdin)),
            ("etcdutl", rest) => Some(etcdctl::etcdutl(self, rest, stdin)),
            // kube: kubectl talks to the mock apiserver (refused before `kube up`).
            ("kubectl", rest) => {
                let out = crate::kube::kubectl::kubectl(
                    self.kube.as_mut(),
                    &mut self.world,
                    &self.files,
                    rest,
                    stdin,
                );
                Some(Output {
                    stdout: out.stdout,
                    stderr: out.stderr,
                    code: out.code,
                })
            }
            ("timeout", [secs, tool, rest @ ..]) if tool == "etcdctl" => {
                // coreutils `timeout`: a bare number is seconds.
                let limit = match secs.parse::<u64>() {
                    Ok(whole_seconds) => whole_seconds.checked_mul(1000),
                    Err(_) => parse_duration(secs),
                };
                match limit {
                    Some(limit) => Some(etcdctl::etcdctl_timeout(self, rest, stdin, limit)),
                    None => Some(Output {
                        stdout: String::new(),
                        stderr: format!("timeout: invalid time interval '{secs}'\n"),
                        code: 125,
                    }),
                }
            }
            _ => None,
        };
        if let Some(out) = tool {
            self.record_with_stdin(line, stdin);
            return out;
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let result = match verb.as_str() {
            "wait" => self.wait(&args),
            "echo" => Ok(Output::ok(format!("{}\n", args.join(" ")))),
            "date" => shell::date(&args, self.world.now()).map(Output::ok),
            "kube" => self.kube_verb(&args, line), // kube:
            "write" => self.write_file(&args, stdin, line),
            "status" => self.status(&args),
            "kill" | "restart" | "pause" | "resume" | "timeout" => {
                self.member_action(verb, &args, line)
            }
            "transfer" => self.transfer(&args, line),
            "partition" => self.partition(&args, line),
            "isolate" => self.isolate(&args, line),
            "heal" => self.heal(&args, line),
            "latency" => self.latency(&args, line),
            "add-member" | "add-learner" => self.add_member(verb == "add-learner", &args, line),
            "remove-member" | "promote" | "snapshot" => self.membership(verb, &args, line),
            "fsync" => self.fsync(&args, line),
            "snapshot-count" => self.snapshot_count(&args, line),
            "drop-message" | "delay-message" => self.message(verb, &args, line),
            "loss" => self.loss(&args, line),
            "drop" => self.drop_link(&args, line),
            other => Err(format!(
                "unknown command {other:?} (try: {})",
                VERBS.join(", ")
            )),
        };
        result.unwrap_or_else(Output::error)
    }

    /// A member name, or `leader` for the current leader.
    fn member(&self, name: &str) -> Result<MemberId, String> {
        if name == "leader" {
            return self
                .world
                .leader()
                .ok_or_else(|| SimError::NoLeader.to_string());
        }
        self.world.member(name).map_err(|e| e.to_string())
    }

    /// Records a command that changed the world, for export.
    fn done(&mut self, result: Result<(), SimError>, line: &str) -> Result<Output, String> {
        result.map_err(|e| e.to_string())?;
        self.record(line);
        Ok(Output::default())
    }

    fn wait(&mut self, args: &[&str]) -> Result<Output, String> {
        match args {
            ["leader"] => {
                // A leader is ready once it committed an entry of its own term (its no-op).
                let found = self.world.run_until_cond(WAIT_LEADER_LIMIT_MS, |w| {
                    w.leader()
                        .and_then(|l| w.node(l))
                        .is_some_and(|n| n.log().term(n.log().committed) == Some(n.term()))
                });
                if !found {
                    return Err(format!(
                        "no leader within {}",
                        format_duration(WAIT_LEADER_LIMIT_MS)
                    ));
                }
                let line = "wait leader";
                self.record(line);
                Ok(Output::default())
            }
            [duration] => {
                let ms = parse_duration(duration)
                    .ok_or_else(|| format!("bad duration {duration:?} (e.g. 500ms, 2s, 1h30m)"))?;
                if ms > WAIT_LIMIT_MS {
                    return Err(format!(
                        "wait {duration}: longer than the longest wait, {}h (wait again to go on)",
                        WAIT_LIMIT_MS / 3_600_000
                    ));
                }
                self.run_for(ms);
                Ok(Output::default())
            }
            _ => Err("usage: wait leader | wait DURATION".into()),
        }
    }

    // kube: `kube up` starts the mock control plane on the cluster, `kube down` stops it.
    /// `write FILE <<EOF`: puts the heredoc into the run's working directory (a manifest, an
    /// EncryptionConfiguration), as `cat > FILE` would.
    fn write_file(
        &mut self,
        args: &[&str],
        stdin: Option<&str>,
        line: &str,
    ) -> Result<Output, String> {
        let [path] = args else {
            return Err("usage: write FILE <<EOF ... EOF".into());
        };
        self.files
            .insert((*path).to_string(), stdin.unwrap_or("").as_bytes().to_vec());
        self.record_with_stdin(line, stdin);
        Ok(Output::default())
    }

    /// An `EncryptionConfiguration` from the working directory.
    fn encryption_config(
        &self,
        path: &str,
    ) -> Result<crate::kube::encryption::EncryptionConfig, String> {
        let bytes = self
            .files
            .get(path)
            .ok_or_else(|| format!("open {path}: no such file or directory"))?;
        let docs = crate::kube::yaml::parse_documents(&String::from_utf8_lossy(bytes))?;
        let doc = docs.first().ok_or_else(|| format!("{path}: empty file"))?;
        crate::kube::encryption::EncryptionConfig::parse(doc)
            .map_err(|e| format!("error while parsing file: {e}"))
    }

    fn kube_verb(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        match args {
            // kube: restarting the API server with `--encryption-provider-config FILE` turns
            // encryption at rest on for what it writes from then on; `--event-ttl D` sets how
            // long Events live.
            ["apiserver", flags @ ..] if !flags.is_empty() => {
                let mut encryption = None;
                let mut event_ttl = None;
                let mut rest = flags.iter().flat_map(|f| match f.split_once('=') {
                    Some((k, v)) if k.starts_with("--") => vec![k, v],
                    _ => vec![*f],
                });
                while let Some(flag) = rest.next() {
                    let value = rest
                        .next()
                        .ok_or_else(|| format!("kube apiserver: flag needs an argument: {flag}"))?;
                    match flag {
                        "--encryption-provider-config" => {
                            encryption = Some(self.encryption_config(value)?)
                        }
                        "--event-ttl" => {
                            event_ttl = Some(
                                crate::base::parse_duration(value)
                                    .filter(|ms| *ms >= 1000)
                                    .ok_or_else(|| {
                                        format!("kube apiserver: invalid argument {value:?} for \"--event-ttl\" flag: time: invalid duration {value:?}")
                                    })?,
                            )
                        }
                        _ => return Err(format!("kube apiserver: unknown flag: {flag}")),
                    }
                }
                let kube = self
                    .kube
                    .as_mut()
                    .ok_or("kube: the control plane is not up (kube up)")?;
                if let Some(config) = encryption {
                    kube.api.encryption = Some(config);
                }
                if let Some(ttl) = event_ttl {
                    kube.api.event_ttl_ms = ttl;
                }
                self.record(line);
                Ok(Output::default())
            }
            ["up"] if self.kube.is_some() => Err("kube: the control plane is already up".into()),
            ["up"] => {
                let kube = crate::kube::ControlPlane::up(&mut self.world, self.config.seed)
                    .map_err(|e| format!("kube up: {}", e.message))?;
                self.kube = Some(kube);
                self.record(line);
                Ok(Output::default())
            }
            [verb @ ("stop-kubelet" | "start-kubelet"), node] => {
                let kube = self
                    .kube
                    .as_mut()
                    .ok_or("kube: the control plane is not up (kube up)")?;
                if !kube.set_kubelet_running(node, *verb == "start-kubelet") {
                    return Err(format!(
                        "kube: no node named {node:?} ({})",
                        kube.node_names().join(", ")
                    ));
                }
                self.record(line);
                Ok(Output::default())
            }
            // kube: follow the last kubectl change through apiserver, etcd, Raft, the watch
            // cache and the controllers (what the page's "follow" button shows).
            ["trace"] => {
                let kube = self
                    .kube
                    .as_ref()
                    .ok_or("kube: the control plane is not up (kube up)")?;
                let followed = crate::kube::trace::follow_last(kube.api.journal())
                    .ok_or("kube trace: no kubectl command has written anything yet")?;
                Ok(Output::ok(crate::kube::trace::render(&followed)))
            }
            ["down"] => {
                self.kube = None;
                self.record(line);
                Ok(Output::default())
            }
            _ => Err(
                "usage: kube up | kube down | kube apiserver [--encryption-provider-config FILE] [--event-ttl DURATION] | kube stop-kubelet|start-kubelet NODE | kube trace"
                    .into(),
            ),
        }
    }

    fn status(&mut self, args: &[&str]) -> Result<Output, String> {
        let json = match args {
            [] => false,
            ["-w", "json"] | ["-w=json"] | ["--write-out=json"] | ["--write-out", "json"] => true,
            ["-w", "simple"] | ["-w=simple"] => false,
            _ => return Err("usage: status [-w json]".into()),
        };
        let status = self.world.status();
        if json {
            let text = serde_json::to_string(&status).map_err(|e| e.to_string())?;
            return Ok(Output::ok(text + "\n"));
        }
        let leader = status.leader.map_or("none".to_string(), |l| l.to_string());
        let mut out = format!(
            "time {}  leader {leader}\n",
            format_duration(status.time_ms)
        );
        let _ = writeln!(
            out,
            "{:<5} {:<14} {:>5} {:<5} {:>7} {:>8} {:>9}",
            "NAME", "STATE", "TERM", "VOTE", "COMMIT", "APPLIED", "LAST"
        );
        for m in status.members {
            let vote = m.vote.map_or("-".to_string(), |v| v.to_string());
            let last = format!("{}@{}", m.last_index, m.last_term);
            let _ = writeln!(
                out,
                "{:<5} {:<14} {:>5} {:<5} {:>7} {:>8} {:>9}",
                m.name.to_string(),
                m.state,
                m.term,
                vote,
                m.commit,
                m.applied,
                last
            );
        }
        Ok(Output::ok(out))
    }

    fn member_action(&mut self, verb: &str, args: &[&str], line: &str) -> Result<Output, String> {
        if let ("restart", [name, "--data-dir", dir]) = (verb, args) {
            return self.restart_from_data_dir(name, dir, line);
        }
        let [name] = args else {
            return Err(format!("usage: {verb} MEMBER"));
        };
        let member = self.member(name)?;
        let result = match verb {
            "kill" => self.world.kill(member),
            "restart" => self.world.restart(member),
            "pause" => self.world.pause(member),
            "resume" => self.world.resume(member),
            _ => self.world.timeout(member),
        };
        self.done(result, line)
    }

    /// `restart m1 --data-dir restored`: m1 starts from a data directory that `etcdutl
    /// snapshot restore` wrote, with the identity and store the restore gave it.
    fn restart_from_data_dir(
        &mut self,
        name: &str,
        dir: &str,
        line: &str,
    ) -> Result<Output, String> {
        let member = self.member(name)?;
        if self.world.is_running(member) {
            return Err(SimError::NotStopped(member).to_string());
        }
        let restored = etcdctl::etcdutl::read_data_dir(&self.files, dir).ok_or_else(|| {
            format!("{dir}: no restored data directory (run etcdutl snapshot restore first)")
        })?;
        let identity = crate::etcd::Identity {
            name: restored.name,
            peer_urls: restored.peer_urls,
            client_urls: vec![crate::etcd::client_url(member)],
            etcd_id: restored.member_id,
            cluster_id: restored.cluster_id,
        };
        // The restored cluster's members: a single-member restore keeps whatever name it was
        // given; larger ones name their members after the simulated ones (m1, m2, ...).
        let voters: Vec<MemberId> = if restored.initial_cluster.len() <= 1 {
            vec![member]
        } else {
            restored
                .initial_cluster
                .iter()
                .map(|(name, _)| {
                    self.world.member(name).map_err(|_| {
                        format!("cannot map member {name:?} of --initial-cluster to a simulated member (name them m1, m2, ...)")
                    })
                })
                .collect::<Result<_, _>>()?
        };
        let own = voters.len() == 1 || self.world.member(&identity.name).ok() == Some(member);
        if !own || !voters.contains(&member) {
            return Err(format!(
                "{dir} was restored for member {:?}, not {member}",
                identity.name
            ));
        }
        self.world.with_process(member, |m, _| {
            m.install_restored(identity, restored.db, voters)
        });
        let result = self.world.restart(member);
        self.done(result, line)
    }

    fn transfer(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let [name] = args else {
            return Err("usage: transfer MEMBER (hand leadership to MEMBER)".into());
        };
        let to = self.member(name)?;
        let result = self.world.transfer_leader(to);
        self.done(result, line)
    }

    /// `partition m1,m2 | m3,m4,m5`: links between groups are cut both ways.
    fn partition(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let spec = args.join(" ");
        let mut groups = Vec::new();
        for part in spec.split('|') {
            let mut group = Vec::new();
            for name in part.split([',', ' ']).filter(|n| !n.is_empty()) {
                group.push(self.member(name)?);
            }
            if group.is_empty() {
                return Err("usage: partition m1,m2 | m3[,...] (each group needs a member)".into());
            }
            groups.push(group);
        }
        if groups.len() < 2 {
            return Err("usage: partition m1,m2 | m3[,...] (at least two groups)".into());
        }
        self.world.net.partition(&groups);
        self.done(Ok(()), line)
    }

    fn isolate(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let [name] = args else {
            return Err("usage: isolate MEMBER".into());
        };
        let member = self.member(name)?;
        let others: Vec<MemberId> = self
            .world
            .member_ids()
            .into_iter()
            .filter(|m| *m != member)
            .collect();
        self.world.net.isolate(member, &others);
        self.done(Ok(()), line)
    }

    fn heal(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        if !args.is_empty() {
            return Err("usage: heal".into());
        }
        self.world.net.heal();
        self.done(Ok(()), line)
    }

    fn latency(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let parse =
            |s: &str| parse_duration(s).ok_or_else(|| format!("bad duration {s:?} (e.g. 20ms)"));
        let (latency, jitter) = match args {
            [l] => (parse(l)?, None),
            [l, "jitter", j] => (parse(l)?, Some(parse(j)?)),
            _ => return Err("usage: latency DURATION [jitter DURATION]".into()),
        };
        self.world.net.config.latency_ms = latency.max(1);
        if let Some(jitter) = jitter {
            self.world.net.config.jitter_ms = jitter;
        }
        self.record(line);
        Ok(Output::default())
    }

    fn add_member(&mut self, learner: bool, args: &[&str], line: &str) -> Result<Output, String> {
        if !args.is_empty() {
            return Err(format!(
                "usage: {}",
                if learner { "add-learner" } else { "add-member" }
            ));
        }
        let id = self.world.add_member(learner).map_err(|e| e.to_string())?;
        self.record(line);
        Ok(Output::ok(format!("added {id}\n")))
    }

    fn membership(&mut self, verb: &str, args: &[&str], line: &str) -> Result<Output, String> {
        let [name] = args else {
            return Err(format!("usage: {verb} MEMBER"));
        };
        let member = self.member(name)?;
        let result = match verb {
            "remove-member" => self.world.remove_member(member),
            "promote" => self.world.promote(member),
            _ => self.world.snapshot(member),
        };
        self.done(result, line)
    }

    /// `fsync m1 200ms`: every fsync of m1 takes that long (0ms: a fast disk again).
    fn fsync(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let [name, duration] = args else {
            return Err("usage: fsync MEMBER DURATION".into());
        };
        let member = self.member(name)?;
        let ms = parse_duration(duration)
            .ok_or_else(|| format!("bad duration {duration:?} (e.g. 200ms)"))?;
        let result = self.world.set_fsync(member, ms);
        self.done(result, line)
    }

    fn snapshot_count(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let count = match args {
            [n] => n.parse::<u64>().ok().filter(|n| *n > 0),
            _ => None,
        }
        .ok_or("usage: snapshot-count N (N > 0 applied entries between snapshots)")?;
        self.world.set_snapshot_count(count);
        self.done(Ok(()), line)
    }

    /// `drop-message 42`, `delay-message 42 100ms`: act on one message in flight.
    fn message(&mut self, verb: &str, args: &[&str], line: &str) -> Result<Output, String> {
        let parse_id = |s: &str| {
            s.trim_start_matches('#')
                .parse::<u64>()
                .map_err(|_| format!("bad message id {s:?}"))
        };
        let result = match (verb, args) {
            ("drop-message", [id]) => self.world.drop_message(parse_id(id)?),
            ("delay-message", [id, d]) => {
                let ms = parse_duration(d).ok_or_else(|| format!("bad duration {d:?}"))?;
                self.world.delay_message(parse_id(id)?, ms)
            }
            ("drop-message", _) => return Err("usage: drop-message ID".into()),
            _ => return Err("usage: delay-message ID DURATION".into()),
        };
        self.done(result, line)
    }

    fn probability(text: &str) -> Result<f64, String> {
        let p: f64 = text
            .trim_end_matches('%')
            .parse()
            .map_err(|_| format!("bad probability {text:?} (0 to 1, or a percentage like 20%)"))?;
        let p = if text.ends_with('%') { p / 100.0 } else { p };
        if !(0.0..=1.0).contains(&p) {
            return Err(format!(
                "bad probability {text:?} (0 to 1, or a percentage like 20%)"
            ));
        }
        Ok(p)
    }

    fn loss(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let [p] = args else {
            return Err("usage: loss PROBABILITY".into());
        };
        self.world.net.config.loss = Self::probability(p)?;
        self.record(line);
        Ok(Output::default())
    }

    /// `drop m1 m2 [p]`: messages from m1 to m2 are lost with probability p (default 1).
    fn drop_link(&mut self, args: &[&str], line: &str) -> Result<Output, String> {
        let (from, to, p) = match args {
            [a, b] => (self.member(a)?, self.member(b)?, 1.0),
            [a, b, p] => (self.member(a)?, self.member(b)?, Self::probability(p)?),
            _ => return Err("usage: drop FROM TO [PROBABILITY]".into()),
        };
        self.world.net.link_loss.insert((from, to), p);
        self.record(line);
        Ok(Output::default())
    }
}

/// The result of running a whole script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// 0 if every command exited 0, else 1.
    pub code: i32,
}

/// Runs `text` as a script. With `echo`, each command's output is preceded by `$ <line>` and
/// followed by `[exit N]` when N ≠ 0, all on stdout; otherwise stdout and stderr stay apart.
/// A failing line does not stop the run; errors of the script itself name their line.
pub fn run_script(session: &mut Session, text: &str, echo: bool) -> RunOutput {
    let mut run = RunOutput::default();
    for line in script::parse(text) {
        let mut out = session.execute(&line.text, line.stdin.as_deref());
        if out.code != 0 {
            run.code = 1;
            if out.stderr.starts_with("Error: ") && !is_tool_command(&line.text) {
                out.stderr = format!("Error: line {}: {}", line.line_no, &out.stderr[7..]);
            }
        }
        if echo {
            let first = line.text.clone() + line.stdin.as_ref().map_or("", |_| " <<EOF");
            let _ = writeln!(run.stdout, "$ {first}");
            run.stdout.push_str(&out.stdout);
            run.stdout.push_str(&out.stderr);
            if out.code != 0 {
                let _ = writeln!(run.stdout, "[exit {}]", out.code);
            }
        } else {
            run.stdout.push_str(&out.stdout);
            run.stderr.push_str(&out.stderr);
        }
    }
    run
}

/// Lines for the real tools keep the tools' own error text, without line numbers.
fn is_tool_command(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let first = match words.next() {
        // `timeout N etcdctl ...` is still the tool talking.
        Some("timeout") => words.nth(1).unwrap_or(""),
        Some(word) => word,
        None => "",
    };
    matches!(first, "etcdctl" | "etcdutl" | "kubectl")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::new(ClusterConfig::new(3, 1))
    }

    #[test]
    fn every_verb_listed_is_one_the_console_runs() {
        for verb in VERBS {
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
            .filter(|l| shell::assignment(&l.text).is_none())
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
            let stdin = rng.chance(0.3).then(|| {
                "kind: Deployment\n: : :\n\tvalue(\"x\") = \"y\"\nput a b\n\n".to_string()
            });
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
}
