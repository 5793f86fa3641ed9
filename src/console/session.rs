//! The console session: a world, what was done to it (for export and rewind), its files and
//! shell variables; a line goes in, through the shell (assignments, expansion, pipelines) to
//! the verb its first word names.

use super::error::ConsoleError;
use super::goal::{Baseline, Watch};
use super::history::{History, HistoryEntry};
use super::later::{Later, Tool, Typed};
use super::timeline::Timeline;
use super::transcript::{Finished, Transcript};
use super::{shell, Output, WAIT_LEADER_LIMIT_MS};
use crate::base::{format_duration, Millis};
use crate::check::Monitor;
use crate::etcd::{Cluster, ClusterConfig, Preset};
use crate::kube::ControlPlane;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How long `kubeadm init`'s pods take to be Running and the nodes Ready, before the run's
/// first command (the articles start from a cluster that is up).
const KUBEADM_SETTLE_MS: Millis = 30_000;

/// A world plus the history of what was done to it: any run can be exported as a script that
/// replays it exactly (with the same seed), and rewound to any earlier moment to branch off.
#[derive(Clone, Debug)]
pub struct Session {
    pub config: ClusterConfig,
    pub world: Cluster,
    pub(super) history: History,
    pub(super) timeline: Timeline,
    /// Re-running recorded commands: do not record them again.
    pub(super) replaying: bool,
    /// Where the command being executed started (time, events handled).
    pub(super) command_start: (Millis, u64),
    /// The run's working directory (`snapshot save`, `etcdutl snapshot restore`): a virtual
    /// filesystem, so the browser and the CLI behave alike.
    pub files: BTreeMap<String, Vec<u8>>,
    // kube: the mock Kubernetes control plane, once `kube up` started it.
    pub kube: Option<crate::kube::ControlPlane>,
    /// The invariant checkers, when watched (the page): checkpointed with the world, so a
    /// rewind keeps what they saw before the moment it goes back to.
    pub(super) monitor: Option<Monitor>,
    /// Shell variables (`rev=$(…)`); the exported ones are the tools' environment.
    pub(super) vars: shell::env::Vars,
    /// Running a command substitution: its command is part of the line recorded, not one of
    /// its own.
    substituting: bool,
    /// The command substitutions of the line being expanded.
    substitutions: Substitutions,
    /// Every command line run and what it printed (bounded).
    pub(super) transcript: Transcript,
    /// The goal whose `ever` predicates are looked at after every event.
    pub(super) watch: Option<Watch>,
    /// What a script's `expect` compares with: the run's start, or the last `expect --mark`.
    pub(super) mark: Option<Baseline>,
    /// Virtual time the command being executed asked to let pass (`wait 600s`, `sleep 10`),
    /// not yet run: [`Session::resume`] runs it, all at once (the CLI) or in slices (the page).
    pub(super) owed_ms: Millis,
    /// What the command being executed left running (`wait leader`, `wait until`, `etcdctl
    /// check perf`'s load), not yet run: [`Session::resume`] runs it, as it runs `owed_ms`.
    pub(super) later: Option<Later>,
    /// When the run's first command could be given: 0, or once the preset's world is up
    /// (kubeadm's). Its script starts there.
    start_ms: Millis,
}

/// A command whose virtual time is still passing: its output is known, its time not yet run
/// (or a substitution of its line is still running: the command has not run yet).
#[derive(Clone, Debug)]
pub struct Running {
    /// When it was typed: time, and events handled.
    started: (Millis, u64),
    line: String,
    stdin: Option<String>,
    out: Output,
    from_ms: Millis,
    until_ms: Millis,
    /// What it left running: done once that is over (a wait, by `until_ms` at the latest).
    later: Option<Later>,
    /// A command substitution of the line still letting its time pass: the line's command
    /// has not run yet, and runs once that is over.
    waiting: Option<Box<Substitutions>>,
    /// It is a command substitution: part of its line, recorded with it.
    substituted: bool,
}

/// A line's command substitutions, while it is expanded: what the finished ones printed, and
/// the one still letting its time pass (`$(wait 1h)`, `$(timeout 60 etcdctl watch k)`),
/// which the line waits for. Once that one is over, the line is expanded again from its
/// start, reading what the finished ones printed instead of running them again.
#[derive(Clone, Debug, Default)]
struct Substitutions {
    done: Vec<Output>,
    next: usize,
    paused: Option<Box<Running>>,
}

impl Running {
    /// Virtual milliseconds it lets pass in all.
    pub fn total_ms(&self) -> Millis {
        self.until_ms - self.from_ms
    }

    /// The virtual time it was typed at.
    pub fn time_ms(&self) -> Millis {
        self.started.0
    }

    /// Virtual milliseconds already run, with the world at `now`.
    pub fn done_ms(&self, now: Millis) -> Millis {
        now.clamp(self.from_ms, self.until_ms) - self.from_ms
    }
}

impl Session {
    pub fn new(config: ClusterConfig) -> Session {
        let world = config.build();
        let mut session = Session {
            timeline: Timeline::new(&world, None, &BTreeMap::new()),
            world,
            config,
            history: History::default(),
            replaying: false,
            command_start: (0, 0),
            files: BTreeMap::new(),
            kube: None, // kube:
            monitor: None,
            vars: shell::env::Vars::default(),
            substituting: false,
            substitutions: Substitutions::default(),
            transcript: Transcript::default(),
            watch: None,
            mark: None,
            owed_ms: 0,
            later: None,
            start_ms: 0,
        };
        if session.config.preset == Preset::Kubeadm {
            session.kubeadm_init();
        }
        session.mark = Some(session.baseline());
        session
    }

    /// The articles' lab as `kubeadm init` leaves it: etcd has elected itself, the control
    /// plane's static pods run from their manifests, the nodes are Ready. Part of the world
    /// the seed builds, so it is no command of the run (its time is before the first one).
    fn kubeadm_init(&mut self) {
        let elected = self
            .world
            .run_until_cond(WAIT_LEADER_LIMIT_MS, |w| w.ready_leader().is_some());
        let cp = elected.then(|| {
            ControlPlane::kubeadm_init(&mut self.world, &mut self.files, self.config.seed)
        });
        if let Some(Ok(cp)) = cp {
            self.kube = Some(cp);
        }
        self.advance_until(self.world.now() + KUBEADM_SETTLE_MS);
        self.start_ms = self.world.now();
        self.timeline = Timeline::new(&self.world, self.kube.as_ref(), &self.files);
    }

    /// The kubelet of the console's machine looks at its manifests after everything that can
    /// change them or its containers (a command, time passing).
    pub(super) fn follow_manifests(&mut self) {
        if let Some(kube) = &mut self.kube {
            kube.follow_manifests(&mut self.world, &mut self.files);
        }
    }

    /// Every command line run, with its output and times (the newest, bounded).
    pub fn transcript(&self) -> &Transcript {
        &self.transcript
    }

    /// What a script's `expect` compares with: the last `expect --mark`, else the start.
    pub fn mark(&self) -> Baseline {
        self.mark.clone().unwrap_or_else(|| self.baseline())
    }

    pub fn set_mark(&mut self, baseline: Baseline) {
        self.mark = Some(baseline);
    }

    /// Starts watching the invariants (from the first checkpoint on, so that every rewind
    /// finds checkers): the page's monitor.
    pub fn watch_invariants(&mut self) {
        let mut monitor = Monitor::new();
        monitor.observe(&self.world);
        self.timeline.watch_invariants();
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

    pub fn history(&self) -> &History {
        &self.history
    }

    /// The run so far as a script: the commands, with `wait`s for the time between them.
    pub fn export_script(&self) -> String {
        let c = &self.config;
        let mut out = format!("{} {}\n", super::script::HEADER, c.flags());
        let mut time = self.start_ms;
        for entry in self.history.iter() {
            if entry.time_ms > time {
                let _ = writeln!(out, "wait {}", format_duration(entry.time_ms - time));
            }
            time = entry.end_ms;
            match entry.stdin {
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

    pub(super) fn record(&mut self, line: &str) {
        self.record_with_stdin(line, None);
    }

    pub(super) fn record_with_stdin(&mut self, line: &str, stdin: Option<&str>) {
        if self.replaying || self.substituting {
            return;
        }
        let (time_ms, steps) = self.command_start;
        self.history.push(HistoryEntry {
            time_ms,
            steps,
            end_ms: self.world.now(),
            line: line.into(),
            stdin,
        });
    }

    /// Keeps the world's wire log (`Sim::set_wire_log`), in every checkpoint too, so that a
    /// rewound run records its messages as the first one did.
    pub fn set_wire_log(&mut self, keep: usize) {
        self.world.set_wire_log(keep);
        self.timeline.set_wire_log(keep);
    }

    /// Handles one event (the UI's single step).
    pub fn step(&mut self) -> bool {
        let stepped = self.world.step();
        self.observe_goal();
        stepped
    }

    /// Runs one command line; `stdin` is its standard input (a heredoc), if any. A pipeline
    /// (`etcdctl get / --prefix --keys-only | wc -l`) runs its first command here and filters
    /// that command's output with the rest (`shell::pipe`); it is recorded whole.
    pub fn execute(&mut self, line: &str, stdin: Option<&str>) -> Output {
        let mut run = self.start(line, stdin);
        // A heavy load hands control back now and then even with all the time it wants.
        while !self.resume(&mut run, Millis::MAX) {}
        self.finish(run)
    }

    /// Runs `line` up to the virtual time it lets pass, which [`Session::resume`] then runs:
    /// `execute` is `start`, `resume` to the end and `finish`, so a command run in slices
    /// (the page) ends as the same command run at once (the CLI, transcripts).
    pub fn start(&mut self, line: &str, stdin: Option<&str>) -> Running {
        let typed = Typed {
            line,
            stdin,
            started: (self.world.now(), self.world.steps()),
        };
        self.run_line(typed, self.substituting, Substitutions::default())
    }

    /// `start`, for a line typed at `typed.started` whose finished substitutions printed what
    /// `substitutions` holds: it runs up to its command's time, or to a substitution that
    /// lets time pass.
    fn run_line(
        &mut self,
        typed: Typed,
        substituted: bool,
        substitutions: Substitutions,
    ) -> Running {
        // A command substitution settles its own wait before its line goes on.
        let outer = std::mem::take(&mut self.owed_ms);
        let outer_later = self.later.take();
        let outer_substitutions = std::mem::replace(&mut self.substitutions, substitutions);
        let was = std::mem::replace(&mut self.substituting, substituted);
        let out = self
            .try_execute(typed.line, typed.stdin, typed.started)
            .unwrap_or_else(Output::error);
        self.follow_manifests();
        self.substituting = was;
        let owed = std::mem::replace(&mut self.owed_ms, outer);
        let later = std::mem::replace(&mut self.later, outer_later);
        let substitutions = std::mem::replace(&mut self.substitutions, outer_substitutions);
        let mut from_ms = self.world.now();
        let mut until_ms = later.as_ref().map_or(from_ms + owed, Later::until_ms);
        let waiting = substitutions
            .paused
            .is_some()
            .then(|| Box::new(substitutions));
        if let Some(paused) = waiting.as_ref().and_then(|w| w.paused.as_ref()) {
            (from_ms, until_ms) = (paused.from_ms, paused.until_ms);
        } else if later.is_none() {
            // What a command left running may end long before its deadline.
            self.timeline.expect_until(until_ms);
        }
        Running {
            started: typed.started,
            line: typed.line.to_string(),
            stdin: typed.stdin.map(str::to_string),
            out,
            from_ms,
            until_ms,
            later,
            waiting,
            substituted,
        }
    }

    /// Lets at most `most_ms` more of `run`'s virtual time pass; whether all of it has (what
    /// the command left running: whether it is over).
    pub fn resume(&mut self, run: &mut Running, most_ms: Millis) -> bool {
        let slice_end = self.world.now().saturating_add(most_ms);
        while let Some(mut waiting) = run.waiting.take() {
            let Some(mut paused) = waiting.paused.take() else {
                break;
            };
            let left = slice_end.saturating_sub(self.world.now());
            if !self.resume(&mut paused, left) {
                waiting.paused = Some(paused);
                run.waiting = Some(waiting);
                return false;
            }
            waiting.done.push(self.finish(*paused));
            waiting.next = 0;
            let typed = Typed {
                line: &run.line,
                stdin: run.stdin.as_deref(),
                started: run.started,
            };
            *run = self.run_line(typed, run.substituted, *waiting);
        }
        if let Some(later) = &mut run.later {
            return later.run(self, slice_end);
        }
        let left = run.until_ms.min(slice_end).saturating_sub(self.world.now());
        if left > 0 {
            self.run_for(left);
        }
        self.world.now() >= run.until_ms
    }

    /// What `run` printed, once its time has passed; the transcript keeps it.
    pub fn finish(&mut self, run: Running) -> Output {
        let Running {
            started,
            line,
            stdin,
            mut out,
            later,
            waiting,
            substituted,
            ..
        } = run;
        let was = std::mem::replace(&mut self.substituting, substituted);
        // Ended before its substitution was over: the line's command never ran.
        if let Some(paused) = waiting.and_then(|w| w.paused) {
            self.finish(*paused);
        }
        if let Some(later) = later {
            let typed = Typed {
                line: &line,
                stdin: stdin.as_deref(),
                started,
            };
            later.finish(self, typed, &mut out);
        }
        if !self.replaying && !self.substituting && !line.trim().is_empty() {
            self.transcript.push(Finished {
                time_ms: started.0,
                end_ms: self.world.now(),
                line: line.trim(),
                stdin: stdin.as_deref(),
                stdout: &out.stdout,
                stderr: &out.stderr,
                code: out.code,
            });
        }
        self.observe_goal();
        self.substituting = was;
        out
    }

    /// A tool's command left work running (`etcdctl check perf`): it goes on once the
    /// command returns, and the command is recorded at its end.
    pub(super) fn continue_later(&mut self, work: Tool) {
        self.later = Some(Later::Tool {
            work,
            pipe: Vec::new(),
        });
    }

    /// Runs `line`, typed at `typed` (time, events handled); a default output while one of
    /// its substitutions lets time pass (`self.substitutions.paused`: the line waits for it).
    fn try_execute(
        &mut self,
        line: &str,
        stdin: Option<&str>,
        typed: (Millis, u64),
    ) -> Result<Output, ConsoleError> {
        // Shell variables and command substitutions first; the line is recorded as typed.
        let raw = shell::raw_words(line).unwrap_or_default();
        let assignments: Vec<(&str, &str)> = raw
            .iter()
            .map_while(|w| shell::env::assignment_word(w))
            .collect();
        if !raw.is_empty() && assignments.len() == raw.len() {
            // bash splits no words in an assignment: `v=$(…)` keeps the output whole.
            let mut said = Output::default();
            for (name, value) in assignments {
                let Some((value, substituted)) = self.expand(value)? else {
                    return Ok(Output::default());
                };
                self.vars.set(name, &shell::words(&value)?.join(" "));
                said.stderr.push_str(&substituted.stderr);
                said.code = substituted.code;
            }
            self.command_start = typed;
            self.record_with_stdin(line, stdin);
            return Ok(said);
        }
        let Some((expanded, substituted)) = self.expand(line)? else {
            return Ok(Output::default());
        };
        let recorded = self.history.len();
        let mut out = self.execute_pipeline(&expanded, stdin)?;
        if expanded != line && self.history.len() > recorded {
            self.history.rewrite_last(line, Some(typed));
        }
        // bash prints what the substituted commands said on stderr before the command runs.
        out.stderr.insert_str(0, &substituted.stderr);
        Ok(out)
    }

    /// `$NAME`, `${NAME}` and `$(command)` in `line`, the commands run (not recorded: the
    /// line that holds them is). With the line, what the substituted commands printed on
    /// standard error and the last one's exit status (a bare assignment's, in bash). None
    /// while a substitution lets time pass.
    fn expand(&mut self, line: &str) -> Result<Option<(String, Output)>, ConsoleError> {
        if !line.contains('$') {
            return Ok(Some((line.to_string(), Output::default())));
        }
        let vars = self.vars.clone();
        let mut said = Output::default();
        let result = shell::expand(
            line,
            &|name| vars.get(name).cloned().unwrap_or_default(),
            &mut |command| {
                let out = self.substitute(command).unwrap_or_default();
                said.stderr.push_str(&out.stderr);
                said.code = out.code;
                out.stdout
            },
        );
        if self.substitutions.paused.is_some() {
            return Ok(None);
        }
        result
            .map(|text| Some((text, said)))
            .map_err(ConsoleError::Syntax)
    }

    /// What the line's next substitution, `command`, printed: read from an earlier expansion
    /// of the line, or run now. None once one lets time pass: the rest of the line waits.
    fn substitute(&mut self, command: &str) -> Option<Output> {
        if self.substitutions.paused.is_some() {
            return None;
        }
        let n = self.substitutions.next;
        self.substitutions.next += 1;
        if let Some(out) = self.substitutions.done.get(n) {
            return Some(out.clone());
        }
        let was = std::mem::replace(&mut self.substituting, true);
        let mut run = self.start(command, None);
        self.substituting = was;
        if !self.resume(&mut run, 0) {
            self.substitutions.paused = Some(Box::new(run));
            return None;
        }
        let out = self.finish(run);
        self.substitutions.done.push(out.clone());
        Some(out)
    }

    fn execute_pipeline(
        &mut self,
        line: &str,
        stdin: Option<&str>,
    ) -> Result<Output, ConsoleError> {
        // Only some verbs pipe (the simulator's own `partition m1 | m2` uses the bar).
        let segments = shell::pipe::split(line);
        let pipes = |s: &&str| super::verbs::find(shell::command_name(s)).is_some_and(|v| v.pipes);
        let Some((first, filters)) = segments
            .split_first()
            .filter(|(first, f)| !f.is_empty() && pipes(first))
        else {
            return Ok(self.execute_command(line, stdin));
        };
        if first.is_empty() || filters.iter().any(|f| f.is_empty()) {
            // bash refuses the whole line before running any of it.
            return Err(ConsoleError::Syntax(
                "syntax error near unexpected token `|'".into(),
            ));
        }
        let filters = filters
            .iter()
            .map(|f| shell::words(f))
            .collect::<Result<Vec<_>, _>>()?;
        let recorded = self.history.len();
        let mut out = self.execute_command(first, stdin);
        if self.history.len() > recorded {
            self.history.rewrite_last(line, None);
        }
        if let Some(Later::Tool { pipe, .. }) = &mut self.later {
            // Its output is printed at its end: the filters read it then.
            *pipe = filters;
            return Ok(out);
        }
        for f in &filters {
            let (stdout, stderr, code) = shell::pipe::filter(f, &out.stdout, &self.files);
            out.stdout = stdout;
            out.stderr.push_str(&stderr);
            out.code = code;
        }
        Ok(out)
    }

    fn execute_command(&mut self, line: &str, stdin: Option<&str>) -> Output {
        self.command_start = (self.world.now(), self.world.steps());
        match shell::words(line) {
            Ok(words) => self.run_with_env(&words, line, stdin, self.vars.environment()),
            Err(e) => Output::error(e),
        }
    }

    /// Runs `words` with `env`, after their leading `NAME=value` words, which go into the
    /// environment of that command only (`ETCDCTL_API=3 etcdctl …`).
    pub(super) fn run_with_env(
        &mut self,
        words: &[String],
        line: &str,
        stdin: Option<&str>,
        mut env: shell::env::Env,
    ) -> Output {
        let prefixes = words
            .iter()
            .map_while(|w| shell::env::assignment_word(w))
            .inspect(|(name, value)| {
                env.insert((*name).to_string(), (*value).to_string());
            })
            .count();
        self.run_verb(&words[prefixes..], line, stdin, &env)
    }
}
