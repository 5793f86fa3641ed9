//! Console lines whose virtual time runs in slices across animation frames (`wait 600s`, a
//! pasted script), so that no command blocks the page for long; the session runs each line as
//! the CLI does (`Session::start`, `resume`, `finish`), only the page cuts its time in pieces.

use crate::base::Millis;
use crate::console::script::ScriptLine;
use crate::console::{Output, Running, Session};
use std::collections::VecDeque;

/// Lines a slice starts at most: a pasted script of a thousand lines runs over many frames.
pub const LINES_PER_SLICE: usize = 20;

/// What the console is running: the line whose time is passing, and the lines after it.
#[derive(Clone, Debug, Default)]
pub struct LongRun {
    queue: VecDeque<ScriptLine>,
    /// The line whose time is passing, and whether all of it has (its ending then waits
    /// for a slice with time for it).
    current: Option<(ScriptLine, Running, bool)>,
}

/// How far the line whose time is passing is: virtual milliseconds done of its total, and
/// the lines still waiting after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub done_ms: Millis,
    pub total_ms: Millis,
    pub queued: usize,
}

/// A line that ended in a slice: the line, when it was typed, what it printed.
pub type Ended = (ScriptLine, Millis, Output);

impl LongRun {
    /// Lines typed or pasted; they run after those already waiting.
    pub fn queue(&mut self, lines: Vec<ScriptLine>) {
        self.queue.extend(lines);
    }

    pub fn is_idle(&self) -> bool {
        self.current.is_none() && self.queue.is_empty()
    }

    pub fn progress(&self, now: Millis) -> Option<Progress> {
        let queued = self.queue.len();
        match &self.current {
            Some((_, run, _)) => Some(Progress {
                done_ms: run.done_ms(now),
                total_ms: run.total_ms(),
                queued,
            }),
            None if queued > 0 => Some(Progress {
                done_ms: 0,
                total_ms: 0,
                queued,
            }),
            None => None,
        }
    }

    /// Runs at most `most_ms` of virtual time and starts at most [`LINES_PER_SLICE`] lines;
    /// the lines that ended, in order.
    pub fn slice(&mut self, s: &mut Session, most_ms: Millis) -> Vec<Ended> {
        self.slice_within(s, most_ms, &|| 0.0)
    }

    /// [`LongRun::slice`], also ending once it has taken [`SLICE_BUDGET_MS`] of real time on
    /// `clock` (ms): the virtual time runs in pieces sized by the pace so far, since a moment
    /// of a busy control plane can cost a hundred times one of an idle cluster.
    pub fn slice_within(
        &mut self,
        s: &mut Session,
        most_ms: Millis,
        clock: &dyn Fn() -> f64,
    ) -> Vec<Ended> {
        let mut pace = Pace::new(most_ms, clock);
        let mut ended = Vec::new();
        let mut started = 0;
        loop {
            if let Some((line, mut run, over)) = self.current.take() {
                let finished = over
                    || loop {
                        let before = s.world.now();
                        let done = s.resume(&mut run, pace.piece_ms());
                        pace.ran(s.world.now() - before);
                        if done || pace.spent() {
                            break done;
                        }
                    };
                // Ending a line can cost as much as a piece (`check perf` deletes its keys).
                if !finished || (!over && !pace.has_room()) {
                    self.current = Some((line, run, finished));
                    return ended;
                }
                let time_ms = run.time_ms();
                ended.push((line, time_ms, s.finish(run)));
            }
            if started == LINES_PER_SLICE || pace.over_budget() {
                return ended;
            }
            let Some(line) = self.queue.pop_front() else {
                return ended;
            };
            started += 1;
            let run = s.start(&line.text, line.stdin.as_deref());
            self.current = Some((line, run, false));
        }
    }
}

/// Real milliseconds a slice aims at: well under the 100 ms a command may block the page,
/// with room for the frame's drawing.
pub const SLICE_BUDGET_MS: f64 = 45.0;
/// A slice's first piece of virtual time: a control-plane tick.
const FIRST_PIECE_MS: Millis = 100;

/// How a slice keeps to its time: the virtual time it has left, and the real time it has
/// taken on the page's clock.
struct Pace<'a> {
    left_ms: Millis,
    done_ms: Millis,
    piece_ms: Millis,
    clock: &'a dyn Fn() -> f64,
    started: f64,
    /// Real ms spent when the last piece ended; whether another would end within the budget.
    last_real: f64,
    room: bool,
}

impl<'a> Pace<'a> {
    fn new(most_ms: Millis, clock: &'a dyn Fn() -> f64) -> Pace<'a> {
        Pace {
            left_ms: most_ms,
            done_ms: 0,
            piece_ms: FIRST_PIECE_MS,
            clock,
            started: clock(),
            last_real: 0.0,
            room: true,
        }
    }

    fn piece_ms(&self) -> Millis {
        self.piece_ms.min(self.left_ms)
    }

    /// `ran_ms` of virtual time ran: the next piece is what the budget has left at the pace
    /// so far, at most twice the last (a busy moment can follow an idle one: a Deployment
    /// created, its pods come).
    fn ran(&mut self, ran_ms: Millis) {
        let asked_ms = self.piece_ms();
        self.left_ms = self.left_ms.saturating_sub(ran_ms);
        self.done_ms += ran_ms;
        let real = (self.clock)() - self.started;
        let per_ms = real / self.done_ms.max(1) as f64;
        let fits = (SLICE_BUDGET_MS - real).max(0.0) / per_ms.max(1e-9);
        let grown = (self.piece_ms as f64 * 2.0).min(fits) as Millis;
        self.piece_ms = grown.max(FIRST_PIECE_MS);
        // A piece cannot be cut (a control-plane tick overshoots what it was asked for):
        // the next one would cost what the last did for the virtual time it was asked.
        let piece_real = real - self.last_real;
        let next_real = piece_real * self.piece_ms() as f64 / asked_ms.max(1) as f64;
        self.room = real + next_real <= SLICE_BUDGET_MS;
        self.last_real = real;
    }

    fn over_budget(&self) -> bool {
        (self.clock)() - self.started >= SLICE_BUDGET_MS
    }

    /// Whether another piece at the last one's cost ends within the budget.
    fn has_room(&self) -> bool {
        self.room
    }

    /// No virtual time left, or no real time for another piece.
    fn spent(&self) -> bool {
        self.left_ms == 0 || !self.room
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::script;
    use crate::console::WAIT_LEADER_LIMIT_MS;
    use crate::etcd::ClusterConfig;

    fn session() -> Session {
        Session::new(ClusterConfig::default())
    }

    const SCRIPT: &str = "wait leader\netcdctl put k v\nwait 600s\nsleep 90\netcdctl get k\n";

    /// The page's slices end as the CLI's run at once: same outputs, same time, same
    /// exported history.
    #[test]
    fn a_script_run_in_slices_ends_as_it_does_at_once() {
        let (whole, at_once) = at_once(SCRIPT);
        let mut sliced = session();
        let mut run = LongRun::default();
        run.queue(script::parse(SCRIPT));
        let (mut outputs, mut slices, mut seen) = (Vec::new(), 0, Vec::new());
        while !run.is_idle() {
            outputs.extend(run.slice(&mut sliced, 7_000).into_iter().map(|e| e.2));
            if let Some(p) = run.progress(sliced.world.now()) {
                seen.push(p);
            }
            slices += 1;
        }
        assert_eq!(outputs, at_once);
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.export_script(), whole.export_script());
        assert!(slices > 600_000 / 7_000, "{slices} slices");
        let wait = seen.iter().filter(|p| p.total_ms == 600_000);
        assert!(wait
            .clone()
            .any(|p| p.done_ms > 0 && p.done_ms < p.total_ms));
        // `wait leader` spent part of the first slice, so the wait's slices need not fall on
        // multiples of 7 s; none runs more than its 7 s.
        let done: Vec<Millis> = wait.map(|p| p.done_ms).collect();
        assert!(done.windows(2).all(|w| w[1] - w[0] <= 7_000), "{done:?}");
    }

    /// A slice also ends once its real time is spent (the page's clock; here one that moves
    /// 10 ms each time it is read): slices allowed an hour of virtual time each run only
    /// pieces of the script's ten minutes, and still end as the run at once.
    #[test]
    fn a_slice_ends_when_its_real_time_is_spent_and_the_run_ends_as_at_once() {
        let (whole, at_once) = at_once(SCRIPT);
        let mut s = session();
        let mut run = LongRun::default();
        run.queue(script::parse(SCRIPT));
        let t = std::cell::Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 10.0);
            t.get()
        };
        let (mut outputs, mut slices) = (Vec::new(), 0);
        while !run.is_idle() {
            let ended = run.slice_within(&mut s, 3_600_000, &clock);
            outputs.extend(ended.into_iter().map(|e| e.2));
            slices += 1;
        }
        assert_eq!(outputs, at_once);
        assert_eq!(s.world.now(), whole.world.now());
        assert_eq!(s.export_script(), whole.export_script());
        assert!(slices > 100, "{slices} slices");
    }

    /// A piece cannot be cut, so a slice starts none that would end past its budget at the
    /// last piece's cost: after a tick of 30 ms it stops (the check after the piece let a
    /// second one end at 60 ms); pieces of 0.05 ms per virtual ms grow while they fit.
    #[test]
    fn a_slice_starts_no_piece_it_cannot_end_within_its_budget() {
        let t = std::cell::Cell::new(0.0);
        let clock = || t.get();
        let mut pace = Pace::new(3_600_000, &clock);
        t.set(30.0);
        pace.ran(350);
        assert!(pace.spent(), "another 30 ms piece would end at 60 ms");
        t.set(0.0);
        let mut pace = Pace::new(3_600_000, &clock);
        let mut pieces = Vec::new();
        while !pace.spent() {
            let piece = pace.piece_ms();
            pieces.push(piece);
            t.set(t.get() + piece as f64 * 0.05);
            pace.ran(piece);
        }
        assert_eq!(pieces, [100, 200, 400, 200], "45 ms at {} ms", t.get());
    }

    /// Ending a line can cost as much as a piece (`check perf` deletes its keys): a line
    /// whose time ran out in a slice with no room left ends first thing in the next one,
    /// the world as it was.
    #[test]
    fn a_line_whose_time_ran_out_with_no_room_left_ends_in_the_next_slice() {
        let mut s = session();
        s.execute("wait leader", None);
        let mut run = LongRun::default();
        run.queue(script::parse("wait 300ms\n"));
        let t = std::cell::Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 40.0);
            t.get()
        };
        let end = s.world.now() + 300;
        let mut slices = Vec::new();
        while !run.is_idle() {
            let ended = run.slice_within(&mut s, 3_600_000, &clock);
            slices.push((s.world.now(), ended.len()));
        }
        assert_eq!(
            slices[slices.len() - 2..],
            [(end, 0), (end, 1)],
            "{slices:?}"
        );
    }

    /// A control plane's busiest minute (500 replicas coming in, 170 left Pending), cut in
    /// pieces by real time as the page cuts it, ends as run at once.
    #[test]
    fn a_busy_control_plane_cut_by_real_time_ends_as_at_once() {
        const KUBE: &str = "wait leader\nkube up\nwait 45s\nkubectl create deployment web --image=nginx:1.25 --replicas=500\nwait 1m\nkubectl get deployment web\n";
        let (whole, at_once) = at_once(KUBE);
        let mut s = session();
        let mut run = LongRun::default();
        run.queue(script::parse(KUBE));
        let t = std::cell::Cell::new(0.0);
        let clock = || {
            t.set(t.get() + 10.0);
            t.get()
        };
        let mut outputs = Vec::new();
        while !run.is_idle() {
            let ended = run.slice_within(&mut s, 3_600_000, &clock);
            outputs.extend(ended.into_iter().map(|e| e.2));
        }
        assert_eq!(outputs, at_once);
        assert!(outputs[5].stdout.contains("330/500"), "{:?}", outputs[5]);
        assert_eq!(s.world.now(), whole.world.now());
        assert_eq!(s.export_script(), whole.export_script());
    }

    /// Runs `script` at once, as the CLI does: the session, and what each line printed.
    fn at_once(script: &str) -> (Session, Vec<Output>) {
        let mut whole = session();
        let outputs = script::parse(script)
            .iter()
            .map(|l| whole.execute(&l.text, l.stdin.as_deref()))
            .collect();
        (whole, outputs)
    }

    /// Runs `script` in slices of `slice_ms`: what each line printed, the slices it took, and
    /// the progress seen between them.
    fn in_slices(script: &str, slice_ms: Millis) -> (Session, Vec<Output>, usize, Vec<Progress>) {
        let mut s = session();
        let mut run = LongRun::default();
        run.queue(script::parse(script));
        let (mut outputs, mut slices, mut seen) = (Vec::new(), 0, Vec::new());
        while !run.is_idle() {
            outputs.extend(run.slice(&mut s, slice_ms).into_iter().map(|e| e.2));
            seen.extend(run.progress(s.world.now()));
            slices += 1;
        }
        (s, outputs, slices, seen)
    }

    /// `wait leader` and `wait until` run in slices too (issue 15: no command holds the page):
    /// one that cannot be met (no quorum) takes its minute over many slices and fails as the
    /// CLI's does; met ones end at the same moment, with the same history, as run at once.
    #[test]
    fn waits_for_a_condition_run_in_slices_and_end_as_at_once() {
        const WAITS: &str = "partition m1 | m2 | m3\nwait leader\nwait until leader > 0\nheal\nwait leader\nwait until time > 70s\netcdctl put k v\n";
        let (whole, at_once) = at_once(WAITS);
        let (sliced, outputs, slices, seen) = in_slices(WAITS, 1_000);
        assert_eq!(outputs, at_once);
        assert_eq!(outputs[1].stderr, "Error: no leader within 60s\n");
        assert!(outputs[2]
            .stderr
            .starts_with("Error: wait until: not within 60s"));
        assert_eq!(outputs[6].stdout, "OK\n");
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.export_script(), whole.export_script());
        assert!(slices > 2 * 60, "{slices} slices");
        let waiting = seen.iter().filter(|p| p.total_ms == WAIT_LEADER_LIMIT_MS);
        assert!(waiting
            .clone()
            .any(|p| p.done_ms > 0 && p.done_ms < p.total_ms));
        // A slice of 1 s runs at most one moment past its second.
        assert!(waiting.clone().count() > 100, "{seen:?}");
    }

    /// `etcdctl check perf`'s minute of load runs in slices (issue 15: no command holds the
    /// page), its progress shown against the minute; its verdicts, a pipeline's filter over
    /// them, the history and the world end as run at once.
    #[test]
    fn a_load_runs_in_slices_and_ends_as_at_once() {
        const LOAD: &str =
            "wait leader\netcdctl check perf\netcdctl check perf | grep -c PASS\netcdctl get /etcdctl-check-perf/ --prefix --keys-only | wc -l\n";
        let (whole, at_once) = at_once(LOAD);
        let (sliced, outputs, slices, seen) = in_slices(LOAD, 1_000);
        assert_eq!(outputs, at_once);
        assert!(outputs[1].stdout.ends_with("\nPASS\n"), "{:?}", outputs[1]);
        assert_eq!(outputs[2].stdout, "4\n");
        assert_eq!(outputs[3].stdout, "0\n", "the load deleted its keys");
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        assert!(
            !whole.export_script().contains("wait 1m"),
            "{}",
            whole.export_script()
        );
        assert!(slices > 2 * 60, "{slices} slices");
        let loading = seen.iter().filter(|p| p.total_ms == 60_000);
        assert!(loading
            .clone()
            .any(|p| p.done_ms > 0 && p.done_ms < p.total_ms));
    }

    /// `etcdctl watch` streams in slices too, Kubernetes acting meanwhile (its leader leases
    /// are renewed every 2 s, and the watch sees each renewal); it ends as run at once.
    #[test]
    fn a_watch_streams_the_control_planes_writes_in_slices_as_at_once() {
        const WATCH: &str = "wait leader\nkube up\nwait 10s\ntimeout 30 etcdctl watch --prefix /registry/leases/kube-system | grep -c ^/registry\n";
        let (whole, at_once) = at_once(WATCH);
        let (sliced, outputs, _, seen) = in_slices(WATCH, 1_000);
        assert_eq!(outputs, at_once);
        let renewals: u32 = outputs[3].stdout.trim().parse().unwrap_or(0);
        assert!(renewals >= 2 * 14, "{:?}", outputs[3]);
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        let streaming = seen.iter().filter(|p| p.total_ms == 30_000);
        assert!(streaming
            .clone()
            .any(|p| p.done_ms > 0 && p.done_ms < p.total_ms));
        assert!(streaming.count() >= 20, "in slices");
    }

    /// `lease keep-alive` renews in slices too, every third of the TTL, and ends as run at
    /// once: the lease outlives its TTL many times over.
    #[test]
    fn a_keep_alive_renews_in_slices_as_at_once() {
        let mut whole = session();
        whole.execute("wait leader", None);
        let granted = whole.execute("etcdctl lease grant 9", None).stdout;
        let id = granted.split_whitespace().nth(1).unwrap_or("0").to_string();
        let script = format!(
            "wait leader\netcdctl lease grant 9\ntimeout 60 etcdctl lease keep-alive {id} | grep -c keepalived\netcdctl lease timetolive {id}\n"
        );
        let (whole, at_once) = at_once(&script);
        let (sliced, outputs, _, seen) = in_slices(&script, 1_000);
        assert_eq!(outputs, at_once);
        assert_eq!(outputs[2].stdout, "20\n", "every 3 s: {:?}", outputs[2]);
        assert!(outputs[3].stdout.contains("remaining("), "{:?}", outputs[3]);
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        let renewing = seen.iter().filter(|p| p.total_ms == 60_000);
        assert!(renewing.count() >= 50, "in slices");
    }

    /// A command inside `$(…)` lets its time pass in slices too (issue 15: no command holds
    /// the page), its line waiting for it: the line's command runs once its substitutions
    /// are over, with what they printed, and everything ends as run at once.
    #[test]
    fn a_substitution_lets_its_time_pass_in_slices_and_its_line_waits_for_it() {
        const SUBS: &str = "wait leader\nkube up\nn=$(timeout 30 etcdctl watch --prefix /registry/leases/kube-system | grep -c ^/registry)\netcdctl put k \"$(wait 10m)$(echo $(wait 20m)late)$(etcdctl get nothing)\"\netcdctl get k --print-value-only\necho $n $(wait 5h)\n";
        let (whole, at_once) = at_once(SUBS);
        let (sliced, outputs, slices, seen) = in_slices(SUBS, 1_000);
        assert_eq!(outputs, at_once);
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        let renewals: u32 = outputs[5].stdout.trim().parse().unwrap_or(0);
        assert!(renewals >= 2 * 14, "{:?}", outputs[5]);
        assert_eq!(outputs[3].stdout, "OK\n");
        assert_eq!(outputs[4].stdout, "late\n");
        assert!(
            outputs[5].stderr.starts_with("Error: wait 5h: longer"),
            "{:?}",
            outputs[5]
        );
        let put = sliced
            .history()
            .iter()
            .find(|h| h.line.starts_with("etcdctl put"));
        let put = put.expect("the put is one entry of the history, as typed");
        assert!(put.end_ms - put.time_ms >= 30 * 60_000, "{put:?}");
        assert!(!whole.export_script().contains("\nwait 10m\n"));
        assert!(slices > 30 * 60, "{slices} slices");
        // The page's progress follows each substitution's time, in slices (with Kubernetes
        // up, a slice may end a moment past its second: a controller's request in it).
        for total in [30_000, 10 * 60_000, 20 * 60_000] {
            let done: Vec<Millis> = seen
                .iter()
                .filter(|p| p.total_ms == total)
                .map(|p| p.done_ms)
                .collect();
            assert!(
                done.iter().any(|d| *d > 0 && *d < total),
                "{total}: {done:?}"
            );
            assert!(done.len() as Millis >= total / 1_100, "{done:?}");
        }
    }

    /// `kubectl rollout status` waits in slices too (issue 15: a Deployment the nodes cannot
    /// hold must not freeze the page), looking at the Deployment every 200 ms of virtual time
    /// as kubectl polls; it rolls out, or times out at its `--timeout`, as run at once.
    #[test]
    fn a_rollout_status_waits_in_slices_and_ends_as_at_once() {
        const ROLLOUT: &str = "wait leader\nkube up\nkubectl create deployment web --image=nginx --replicas=3\nkubectl rollout status deploy/web\nkubectl create deployment big --image=nginx --replicas=400\nkubectl rollout status deploy/big --timeout=30s | grep -c Waiting\nkubectl rollout status deploy/big --timeout=5h\nkubectl get deploy big\n";
        let (whole, at_once) = at_once(ROLLOUT);
        let (sliced, outputs, _, seen) = in_slices(ROLLOUT, 1_000);
        assert_eq!(outputs, at_once);
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        assert!(
            outputs[3]
                .stdout
                .ends_with("deployment \"web\" successfully rolled out\n"),
            "{:?}",
            outputs[3]
        );
        let waiting: u32 = outputs[5].stdout.trim().parse().unwrap_or(0);
        assert!(waiting > 2, "{:?}", outputs[5]);
        assert_eq!(
            outputs[5].stderr,
            "error: timed out waiting for the condition\n"
        );
        assert!(outputs[6].stderr.contains("longer than the longest wait"));
        assert!(outputs[7].stdout.contains("/400"), "{:?}", outputs[7]);
        // Its 30 s count from its first look, a moment before the command returned.
        let timing_out = seen
            .iter()
            .filter(|p| (29_000..=30_000).contains(&p.total_ms));
        assert!(timing_out
            .clone()
            .any(|p| p.done_ms > 0 && p.done_ms < p.total_ms));
        // A slice ends past its second by what the control plane's round in it takes: with
        // 400 pods to create, seconds of virtual time (each write a round of Raft).
        let done: Vec<_> = timing_out.map(|p| p.done_ms).collect();
        assert!(done.len() >= 5, "in slices: {done:?}");
    }

    /// `kubectl delete` waits in slices for its objects to be gone, as kubectl does: it
    /// deletes them all, then waits for them all (`--wait=false`: not at all); it ends as
    /// run at once.
    #[test]
    fn a_delete_waits_in_slices_for_all_its_objects_and_ends_as_at_once() {
        const DELETE: &str = "wait leader\nkube up\nkubectl create deployment web --image=nginx --replicas=3\nwait 10s\nkubectl delete $(kubectl get pods -o name)\nkubectl get pods --no-headers | grep -c Terminating\nkubectl delete $(kubectl get pods -o name) --wait=false\nkubectl get pods --no-headers | grep -c Terminating\n";
        let (whole, at_once) = at_once(DELETE);
        let (sliced, outputs, _, seen) = in_slices(DELETE, 1_000);
        assert_eq!(outputs, at_once);
        assert_eq!(sliced.world.now(), whole.world.now());
        assert_eq!(sliced.world.trace_hash(), whole.world.trace_hash());
        assert_eq!(sliced.export_script(), whole.export_script());
        assert_eq!(outputs[4].stdout.matches("\" deleted\n").count(), 3);
        assert_eq!(outputs[5].stdout, "0\n", "all gone after the wait");
        assert_eq!(outputs[6].stdout.matches("\" deleted\n").count(), 3);
        assert_eq!(outputs[7].stdout, "3\n", "none waited for");
        let deletes: Vec<_> = sliced
            .history()
            .iter()
            .filter(|h| h.line.starts_with("kubectl delete"))
            .collect();
        assert!(
            deletes[0].end_ms - deletes[0].time_ms > 1_000,
            "{deletes:?}"
        );
        assert!(
            deletes[1].end_ms - deletes[1].time_ms < 1_000,
            "{deletes:?}"
        );
        let waiting = seen.iter().filter(|p| p.total_ms > 290_000);
        assert!(waiting.clone().any(|p| p.done_ms > 0), "{seen:?}");
    }

    /// A slice never runs more virtual time than it was given, nor starts more lines.
    #[test]
    fn a_slice_stays_within_its_budget() {
        let mut s = session();
        let mut run = LongRun::default();
        run.queue(script::parse(&"status\n".repeat(3 * LINES_PER_SLICE)));
        assert_eq!(run.slice(&mut s, 1_000).len(), LINES_PER_SLICE);
        run.queue(script::parse("wait 1h"));
        let start = s.world.now();
        while run.progress(s.world.now()).is_some_and(|p| p.total_ms == 0) {
            run.slice(&mut s, 1_000);
        }
        let before = s.world.now();
        run.slice(&mut s, 1_000);
        assert_eq!(s.world.now() - before, 1_000, "started at {start}");
    }

    /// A wait past the longest one fails at once, with the CLI's error, and lets no time pass.
    #[test]
    fn a_wait_too_long_fails_before_any_slice() {
        let (mut s, mut whole) = (session(), session());
        let mut run = LongRun::default();
        run.queue(script::parse("wait 5h"));
        let ended = run.slice(&mut s, 1_000);
        assert_eq!(ended[0].2, whole.execute("wait 5h", None));
        assert_ne!(ended[0].2.code, 0);
        assert_eq!(s.world.now(), 0);
        assert!(run.is_idle());
    }
}
