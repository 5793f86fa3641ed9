//! What a command leaves running when it returns: a wait for a condition (`wait leader`,
//! `wait until`), or a tool's work (`etcdctl check perf`'s minute of load). The session runs
//! it after the command ([`Session::resume`]), all at once (the CLI) or in slices (the page),
//! and its end prints what the command printed at its end.

use super::verbs::Awaited;
use super::{etcdctl, kubectl};
use super::{shell, Output, Session};
use crate::base::Millis;
use crate::etcd::Clock;

/// A command line as typed, and when (time, events handled).
pub struct Typed<'a> {
    pub line: &'a str,
    pub stdin: Option<&'a str>,
    pub started: (Millis, u64),
}

/// What a command left running.
#[derive(Clone, Debug)]
pub enum Later {
    /// `wait leader`, `wait until`.
    Wait(Awaited),
    /// A tool's work: `etcdctl check perf`'s load, `etcdctl watch`'s stream, `kubectl
    /// rollout status`'s wait.
    Tool {
        work: Tool,
        /// The filters of the pipeline it began (`etcdctl check perf | grep FAIL`), which
        /// read its output once it is all printed.
        pipe: Vec<Vec<String>>,
    },
}

/// The tool whose command left work running.
#[derive(Clone, Debug)]
pub enum Tool {
    Etcdctl(Box<etcdctl::Continued>),
    Kubectl(Box<kubectl::Continued>),
}

impl Later {
    /// When it ends at the latest (a wait), or as planned (a load may take a moment more).
    pub fn until_ms(&self) -> Millis {
        match self {
            Later::Wait(a) => a.deadline_ms(),
            Later::Tool { work, .. } => work.until_ms(),
        }
    }

    /// Lets time pass until it is over, stopping soon after `slice_end`; whether it is over.
    pub fn run(&mut self, s: &mut Session, slice_end: Millis) -> bool {
        match self {
            Later::Wait(a) => a.run(s, slice_end),
            Later::Tool { work, .. } => work.run(s, slice_end),
        }
    }

    /// Ends it: `out`, what the command line printed when it returned, gets what it prints
    /// at its end. A tool's command is recorded then, as `line` with `stdin`, typed at
    /// `started` (time, events handled).
    pub fn finish(self, s: &mut Session, typed: Typed, out: &mut Output) {
        match self {
            Later::Wait(a) => {
                if let Err(e) = a.finish(s) {
                    let failed = Output::error(e);
                    out.stderr.push_str(&failed.stderr);
                    out.code = failed.code;
                }
            }
            Later::Tool { work, pipe } => {
                let said = work.finish(s);
                out.stdout.push_str(&said.stdout);
                out.stderr.push_str(&said.stderr);
                out.code = said.code;
                out.aside = said.aside;
                for filter in pipe {
                    let (stdout, stderr, code) =
                        shell::pipe::filter(&filter, &out.stdout, &s.files);
                    out.stdout = stdout;
                    out.stderr.push_str(&stderr);
                    out.code = code;
                }
                s.command_start = typed.started;
                s.record_with_stdin(typed.line, typed.stdin);
            }
        }
    }
}

impl Tool {
    fn until_ms(&self) -> Millis {
        match self {
            Tool::Etcdctl(work) => work.planned_end_ms(),
            Tool::Kubectl(work) => work.deadline_ms(),
        }
    }

    fn run(&mut self, s: &mut Session, slice_end: Millis) -> bool {
        match self {
            Tool::Etcdctl(work) => work.run(s, slice_end),
            Tool::Kubectl(work) => look_until(work, s, slice_end),
        }
    }

    /// What it printed at its end, and how the command exited.
    fn finish(self, s: &mut Session) -> Output {
        match self {
            Tool::Etcdctl(work) => {
                let mut files = std::mem::take(&mut s.files);
                let said = work.finish(&mut s.world, &mut files);
                s.files = files;
                said
            }
            Tool::Kubectl(work) => work.finish().into(),
        }
    }
}

/// kubectl's wait: the control plane runs on, a moment at a time, kubectl looking again after
/// each, until the wait is over or the slice ends; whether the wait is over.
fn look_until(work: &mut kubectl::Continued, s: &mut Session, slice_end: Millis) -> bool {
    while s.world.now() < slice_end {
        let next = work.next_look_ms(s.world.now());
        Clock::advance_until(s, next);
        if work.look(s.kube.as_mut(), &mut s.world, &s.files) {
            return true;
        }
    }
    false
}

/// A tool's work lets the session's time pass: Kubernetes acts meanwhile, and the checkers
/// look, as when time passes between commands.
impl Clock for Session {
    fn world(&mut self) -> &mut crate::etcd::Cluster {
        &mut self.world
    }

    fn next_moment(&self) -> Option<Millis> {
        let tick = self
            .kube
            .as_ref()
            .map(crate::kube::ControlPlane::next_tick_ms);
        match (self.world.next_event_time(), tick) {
            (Some(e), Some(k)) => Some(e.min(k)),
            (e, k) => e.or(k),
        }
    }

    fn advance_until(&mut self, t: Millis) {
        Session::advance_until(self, t);
        self.observe();
    }
}
