//! The run the page drives: the console `Session` (the world, its timeline, the invariant
//! monitor), the run left ahead by a scrub back in time, the message recorder and the console
//! transcript. Plain Rust: the page keeps one `Lab` in a context and sends it `Msg`s; every
//! change to the world goes through `Session::execute` with a script verb, so that export,
//! share and replay reproduce it. What a `Msg` did is handed back as a view `Action`.

use super::i18n::{t, Lang, Text};
use super::lessons::{Course, LessonMsg};
use super::recorder::{Recorder, WIRE_LOG};
use super::share::{self, Shared};
use super::view::{Action, Notice, Scrubbed, View};
use crate::base::Millis;
use crate::check::Violation;
use crate::console::{run_script, Session};
use crate::etcd::Cluster as World;
use crate::etcd::{ClusterConfig as Settings, Switch};

/// The UI's network is slower than the CLI default so messages are visible in flight.
pub const UI_NETWORK_SETUP: &str = "latency 30ms jitter 10ms";
/// Never advance more than this much real time in one frame (after a stall, or a hidden tab).
const MAX_FRAME_MS: f64 = 100.0;
/// Console transcript entries kept (older ones scroll away).
const TRANSCRIPT_KEEP: usize = 200;
/// What "follow a change" runs when kubectl has not written anything yet.
const FOLLOW_FIRST_COMMAND: &str = "kubectl create deployment web --image=nginx:1.25 --replicas=3";

/// One command and what it printed, as the console shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConsoleEntry {
    pub time_ms: Millis,
    pub line: String,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

/// What the user (or the animation clock) asks of the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A frame passed: `real_ms` of wall time, played at `speed` virtual ms per real ms.
    Frame {
        real_ms: f64,
        speed: f64,
    },
    Play,
    TogglePlay,
    Step,
    SetMembers(usize),
    SetSeed(u64),
    SetSwitch(Switch, bool),
    Reset,
    /// Follow the last kubectl change (one is made first when there is none), or stop.
    Follow(bool),
    /// One command line (typed in the console or sent by a button), e.g. `kill m1`.
    Command(String),
    /// Several commands as one user action (a network preset).
    Commands(Vec<String>),
    /// Go to virtual time `t` (back, or forward into the run left behind by a scrub).
    Scrub(Millis),
    /// Start over with these settings and replay this script (a shared URL or an import).
    Load(Shared),
    ClearConsole,
    /// The lessons: open a step, Next, Back, Show me, an answer...
    Lesson(LessonMsg),
    /// Changes only what the page shows, not the run.
    View(Action),
}

impl From<Action> for Msg {
    fn from(action: Action) -> Msg {
        Msg::View(action)
    }
}

impl Msg {
    /// This message starts the run over (the messages `Lab::apply` restarts on; a test
    /// keeps the two lists equal), so the page asks first when the run has history to lose.
    pub fn restarts(&self) -> bool {
        matches!(
            self,
            Msg::SetMembers(_) | Msg::SetSeed(_) | Msg::SetSwitch(..) | Msg::Reset
        )
    }
}

#[derive(Clone, Debug)]
pub struct Lab {
    settings: Settings,
    session: Session,
    /// After a scrub back in time: the run as it was before, so the slider can still move
    /// forward into it while paused. Playing, stepping or a command drops it (a new branch).
    ahead: Option<Session>,
    recorder: Recorder,
    transcript: Vec<ConsoleEntry>,
    /// Virtual milliseconds owed but not yet run (fractions carry over between frames).
    carry_ms: f64,
    /// Messages applied so far: a view of the run compares it to tell that the run changed.
    revision: u64,
    /// The lessons: the step open on this run, and the steps done.
    lessons: Course,
}

/// The page as a visit finds it: the run a shared link carries (`fragment`, the URL's hash),
/// else a fresh cluster; a link that cannot be read says why.
pub fn open(fragment: &str, lang: Lang, presenter: bool) -> (Lab, View) {
    let mut view = View::new(lang, presenter);
    match share::decode(fragment) {
        Ok(None) => (Lab::new(Settings::default()), view),
        Ok(Some(shared)) => {
            let (lab, errors) = Lab::replay(shared);
            view = super::view::reduce(view, Action::Loaded(errors));
            if view.notice.is_none() {
                view.notice = Some(Notice::info(t(lang, Text::LoadedLink)));
            }
            (lab, view)
        }
        Err(e) => {
            view.notice = Some(Notice::error(format!("{}: {e}", t(lang, Text::BadLink))));
            (Lab::new(Settings::default()), view)
        }
    }
}

impl Lab {
    /// A fresh run of `settings` on the UI's slower network, observed once.
    pub fn new(settings: Settings) -> Lab {
        let lab = Lab {
            session: fresh_session(&settings, true),
            settings,
            ahead: None,
            recorder: Recorder::default(),
            transcript: Vec::new(),
            carry_ms: 0.0,
            revision: 0,
            lessons: Course::default(),
        };
        lab.observed()
    }

    /// A fresh run of `shared.settings` replaying `shared.script` (which carries its own
    /// network), and the first errors it printed when it failed.
    pub fn replay(shared: Shared) -> (Lab, Option<String>) {
        let mut lab = Lab {
            session: fresh_session(&shared.settings, false),
            settings: shared.settings,
            ahead: None,
            recorder: Recorder::default(),
            transcript: Vec::new(),
            carry_ms: 0.0,
            revision: 0,
            lessons: Course::default(),
        };
        let run = run_script(&mut lab.session, &shared.script, true);
        let errors = (run.code != 0).then(|| {
            let first: Vec<&str> = run
                .stdout
                .lines()
                .filter(|l| l.starts_with("Error: "))
                .take(3)
                .collect();
            first.join("\n")
        });
        (lab.observed(), errors)
    }

    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    pub fn world(&self) -> &World {
        &self.session.world
    }

    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    pub fn transcript(&self) -> &[ConsoleEntry] {
        &self.transcript
    }

    pub fn lessons(&self) -> &Course {
        &self.lessons
    }

    /// The share link's fragment: the run replayed from its settings, and where the lessons
    /// stand (the open step, the steps done).
    pub fn share_fragment(&self) -> String {
        let run = share::encode(&Shared {
            settings: self.settings.clone(),
            script: self.session.export_script(),
        });
        run + &share::encode_lessons(&self.lessons.mark())
    }

    /// A scrub back in time left the rest of the old run ahead of the slider.
    pub fn is_behind(&self) -> bool {
        self.ahead.is_some()
    }

    /// The furthest moment the time slider reaches.
    pub fn horizon_ms(&self) -> Millis {
        let now = self.world().now();
        self.ahead.as_ref().map_or(now, |a| a.world.now().max(now))
    }

    pub fn violations(&self) -> Vec<Violation> {
        self.session
            .monitor()
            .map(|m| m.violations().to_vec())
            .unwrap_or_default()
    }

    /// Does what `msg` asks of the run; the returned action tells the view what happened.
    pub fn apply(&mut self, msg: Msg) -> Action {
        self.revision += 1;
        if self.lessons.waits_for_answer() && waits_with_the_world(&msg) {
            return Action::Pause;
        }
        let action = self.apply_now(msg);
        self.lessons.observe(&self.session);
        action
    }

    fn apply_now(&mut self, msg: Msg) -> Action {
        match msg {
            Msg::Frame { real_ms, speed } => self.frame(real_ms, speed),
            Msg::Play => {
                self.branch();
                return Action::Play;
            }
            Msg::TogglePlay => {
                self.branch();
                return Action::TogglePlay;
            }
            Msg::Step => {
                self.branch();
                self.session.step();
                self.observe();
                return Action::Pause;
            }
            Msg::SetMembers(_) | Msg::SetSeed(_) | Msg::SetSwitch(..) | Msg::Reset => {
                let _ = self.lessons.apply(LessonMsg::Close); // the lesson's world is gone
                self.restart(next_settings(&self.settings, &msg));
                return Action::NewRun;
            }
            Msg::Follow(on) => return self.follow(on),
            Msg::Command(line) => {
                self.run(&line);
                self.observe();
            }
            Msg::Commands(lines) => {
                lines.iter().for_each(|line| self.run(line));
                self.observe();
            }
            Msg::Scrub(t) => return Action::Scrubbed(self.scrub(t)),
            Msg::Load(shared) => {
                let (lab, errors) = Lab::replay(shared);
                let _ = self.lessons.apply(LessonMsg::Close);
                *self = Lab {
                    revision: self.revision,
                    lessons: std::mem::take(&mut self.lessons),
                    ..lab
                };
                return Action::Loaded(errors);
            }
            Msg::ClearConsole => self.transcript.clear(),
            Msg::Lesson(msg) => return self.lesson(msg),
            Msg::View(action) => return action,
        }
        Action::Refresh
    }

    /// Feeds the invariant monitor (the session's) and the message recorder the world as it
    /// is now.
    fn observe(&mut self) {
        self.session.observe();
        self.recorder.observe(&self.session.world);
    }

    fn observed(mut self) -> Lab {
        self.observe();
        self
    }

    /// A new run of `settings` on the UI's network; the console keeps its transcript.
    fn restart(&mut self, settings: Settings) {
        self.session = fresh_session(&settings, true);
        self.settings = settings;
        self.ahead = None;
        self.recorder = Recorder::default();
        self.carry_ms = 0.0;
    }

    /// Running a command or time from a moment reached by scrubbing back starts a branch.
    fn branch(&mut self) {
        self.ahead = None;
    }

    fn frame(&mut self, real_ms: f64, speed: f64) {
        self.carry_ms += real_ms.clamp(0.0, MAX_FRAME_MS) * speed;
        let whole = self.carry_ms.floor();
        self.carry_ms -= whole;
        if whole >= 1.0 {
            self.session.run_for(whole as u64);
            self.observe();
        }
    }

    fn run(&mut self, line: &str) {
        self.run_with(line, None);
    }

    /// A line and its standard input (a heredoc of a lesson's solution).
    fn run_with(&mut self, line: &str, stdin: Option<&str>) {
        self.branch();
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let time_ms = self.world().now();
        let out = self.session.execute(line, stdin);
        self.transcript.push(ConsoleEntry {
            time_ms,
            line: line.to_string(),
            stdout: out.stdout,
            stderr: out.stderr,
            code: out.code,
        });
        let excess = self.transcript.len().saturating_sub(TRANSCRIPT_KEEP);
        self.transcript.drain(..excess);
    }

    /// A lesson message: a step that opens becomes the run (the console keeps its
    /// transcript); "Show me" types the solution in the console.
    fn lesson(&mut self, msg: LessonMsg) -> Action {
        if msg == LessonMsg::ShowMe {
            for line in self.lessons.solution() {
                self.run_with(&line.text, line.stdin.as_deref());
            }
            self.observe();
            return Action::Refresh;
        }
        match self.lessons.apply(msg) {
            Ok(Some(session)) => {
                self.install(session);
                Action::NewRun
            }
            Ok(None) => Action::Refresh,
            Err(e) => Action::Notify(Notice::error(e)),
        }
    }

    /// Runs `session` from now on, as a new run (nothing is ahead, no message recorded yet).
    fn install(&mut self, session: Session) {
        self.settings = session.config.clone();
        self.session = session;
        self.ahead = None;
        self.recorder = Recorder::default();
        self.carry_ms = 0.0;
        self.observe();
    }

    fn follow(&mut self, on: bool) -> Action {
        let wrote = self
            .session
            .kube
            .as_ref()
            .is_some_and(|k| crate::kube::trace::follow_last(k.api.journal()).is_some());
        if on && !wrote {
            self.run(FOLLOW_FIRST_COMMAND);
            self.observe();
        }
        Action::Follow(on)
    }

    fn scrub(&mut self, t: Millis) -> Scrubbed {
        if t == self.world().now() {
            return Scrubbed::Stayed;
        }
        let base = self.ahead.take().unwrap_or_else(|| self.session.clone());
        let mut session = base.clone();
        let t = t.min(base.world.now());
        let rewound = session.rewind_to(t);
        let end_ms = base.world.now();
        self.ahead = Some(base);
        if let Err(e) = rewound {
            return Scrubbed::Failed(e.to_string());
        }
        if session.world.now() >= end_ms {
            self.ahead = None; // back at the end of the old run: nothing is ahead any more
        }
        self.session = session;
        self.recorder.forget_after(t);
        self.observe();
        Scrubbed::Moved
    }
}

/// What waits, with the world, for a lesson's question to be answered: time, and whatever
/// acts on the run.
fn waits_with_the_world(msg: &Msg) -> bool {
    matches!(
        msg,
        Msg::Frame { .. }
            | Msg::Play
            | Msg::TogglePlay
            | Msg::Step
            | Msg::Command(_)
            | Msg::Commands(_)
            | Msg::Follow(_)
            | Msg::Scrub(_)
            | Msg::Lesson(LessonMsg::ShowMe)
    )
}

/// The page as a visit finds it, with its lessons: the step a link carries (and the run it
/// left in that step), else the step this browser had open; the steps done, from both.
pub fn open_with_lessons(fragment: &str, stored: &str, lang: Lang, presenter: bool) -> (Lab, View) {
    let (mut lab, mut view) = open(fragment, lang, presenter);
    let stored = share::decode_lessons(stored).unwrap_or_default();
    lab.lessons.merge_done(&stored);
    let linked = share::decode(fragment).ok().flatten();
    let mark = match share::decode_lessons(fragment) {
        Ok(mark) => mark,
        Err(e) => {
            view.notice = Some(Notice::error(format!("{}: {e}", t(lang, Text::BadLink))));
            return (lab, view);
        }
    };
    lab.lessons.merge_done(&mark);
    let step = match &linked {
        Some(_) => mark.open,
        None => stored.open,
    };
    let Some(step) = step else {
        return (lab, view);
    };
    let linked = linked.map(|_| lab.session.clone());
    match lab.lessons.resume(&step, linked.as_ref()) {
        Ok((session, warning)) => {
            lab.install(session);
            if let Some(text) = warning {
                view.notice = Some(Notice::error(text));
            }
        }
        Err(e) => view.notice = Some(Notice::error(e)),
    }
    (lab, view)
}

/// The settings a restarting `msg` asks for, from the current ones.
fn next_settings(current: &Settings, msg: &Msg) -> Settings {
    let mut next = current.clone();
    match msg {
        Msg::SetMembers(n) => next.members = (*n).clamp(1, crate::etcd::MAX_MEMBERS),
        Msg::SetSeed(seed) => next.seed = *seed,
        Msg::SetSwitch(switch, on) => switch.set(&mut next, *on),
        _ => {}
    }
    next
}

/// A new session for `settings`; `network_setup` runs the UI's slower network first (a
/// loaded script carries its own).
pub fn fresh_session(settings: &Settings, network_setup: bool) -> Session {
    let mut session = Session::new(settings.clone());
    session.set_wire_log(WIRE_LOG);
    session.watch_invariants();
    if network_setup {
        session.execute(UI_NETWORK_SETUP, None);
    }
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::view::{reduce, Tab};

    fn lab() -> Lab {
        Lab::new(Settings::default())
    }

    #[test]
    fn a_plain_visit_opens_a_fresh_run_on_the_slow_network() {
        let (lab, view) = open("", Lang::En, true);
        assert_eq!(lab.settings(), &Settings::default());
        assert_eq!(lab.world().net.config.latency_ms, 30);
        assert!(view.playing && view.presenter);
        assert_eq!(view.notice, None);
    }

    #[test]
    fn a_bad_link_opens_a_fresh_run_and_says_why() {
        let (lab, view) = open("#v=1&members=99", Lang::En, false);
        assert_eq!(lab.settings(), &Settings::default());
        let text = format!(
            "{}: members must be 1 to 11, not \"99\"",
            t(Lang::En, Text::BadLink)
        );
        assert_eq!(view.notice, Some(Notice::error(text)));
    }

    #[test]
    fn a_shared_link_replays_its_run_paused() {
        let shared = Shared {
            settings: Settings {
                members: 5,
                seed: 3,
                ..Settings::default()
            },
            script: "wait leader\netcdctl put k v\n".into(),
        };
        let (lab, view) = open(&share::encode(&shared), Lang::ZhTw, false);
        assert_eq!(lab.world().member_ids().len(), 5);
        assert!(lab.world().leader().is_some());
        assert!(!view.playing);
        assert_eq!(
            view.notice,
            Some(Notice::info(t(Lang::ZhTw, Text::LoadedLink)))
        );
        assert!(
            lab.transcript().is_empty(),
            "a replay is not typed in the console"
        );
    }

    #[test]
    fn a_failing_shared_script_reports_its_first_errors() {
        let shared = Shared {
            settings: Settings::default(),
            script: "kill m9\n".into(),
        };
        let (_, view) = open(&share::encode(&shared), Lang::En, false);
        let notice = view.notice.unwrap_or(Notice::info(""));
        assert!(
            notice.error && notice.text.starts_with("Error: "),
            "{notice:?}"
        );
    }

    #[test]
    fn frames_play_virtual_time_at_the_speed_and_carry_fractions() {
        let mut lab = lab();
        let start = lab.world().now();
        for _ in 0..4 {
            assert_eq!(
                lab.apply(Msg::Frame {
                    real_ms: 10.0,
                    speed: 0.25
                }),
                Action::Refresh
            );
        }
        assert_eq!(lab.world().now() - start, 10, "four frames of 2.5 ms");
        lab.apply(Msg::Frame {
            real_ms: 5_000.0,
            speed: 1.0,
        });
        assert_eq!(
            lab.world().now() - start,
            110,
            "a stalled frame counts as 100 ms"
        );
    }

    #[test]
    fn commands_go_to_the_console_and_its_transcript() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        lab.apply(Msg::Command("   ".into()));
        lab.apply(Msg::Commands(vec![
            "etcdctl put k v".into(),
            "kill m9".into(),
        ]));
        let lines: Vec<(&str, i32)> = lab
            .transcript()
            .iter()
            .map(|e| (e.line.as_str(), e.code))
            .collect();
        assert_eq!(lines[..2], [("wait leader", 0), ("etcdctl put k v", 0)]);
        assert_eq!(lines[2].0, "kill m9");
        assert_ne!(lines[2].1, 0);
        assert_eq!(lab.transcript()[1].stdout, "OK\n");
        lab.apply(Msg::ClearConsole);
        assert!(lab.transcript().is_empty());
    }

    #[test]
    fn the_transcript_keeps_the_latest_entries() {
        let mut lab = lab();
        for i in 0..TRANSCRIPT_KEEP + 5 {
            lab.apply(Msg::Command(format!("etcdctl put k{i} v")));
        }
        assert_eq!(lab.transcript().len(), TRANSCRIPT_KEEP);
        assert_eq!(lab.transcript()[0].line, "etcdctl put k5 v");
    }

    #[test]
    fn settings_changes_start_a_new_run_and_keep_the_console() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        assert_eq!(lab.apply(Msg::SetMembers(40)), Action::NewRun);
        assert_eq!(lab.settings().members, crate::etcd::MAX_MEMBERS);
        assert_eq!(lab.world().now(), 0);
        lab.apply(Msg::SetSeed(9));
        lab.apply(Msg::SetSwitch(Switch::CheckQuorum, false));
        assert_eq!(
            (lab.settings().seed, lab.settings().check_quorum),
            (9, false)
        );
        lab.apply(Msg::Reset);
        assert_eq!(lab.settings().members, crate::etcd::MAX_MEMBERS);
        assert_eq!(lab.transcript().len(), 1);
    }

    #[test]
    fn a_step_pauses_and_play_branches() {
        let mut lab = lab();
        assert_eq!(lab.apply(Msg::Step), Action::Pause);
        assert_eq!(lab.apply(Msg::Play), Action::Play);
        assert_eq!(lab.apply(Msg::TogglePlay), Action::TogglePlay);
        let view = Action::SetTab(Tab::Rules);
        assert_eq!(
            lab.apply(view.clone().into()),
            view,
            "view messages pass through"
        );
    }

    #[test]
    fn scrubbing_back_keeps_the_old_run_ahead_until_a_new_branch() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait 2s".into()));
        let end = lab.world().now();
        assert_eq!(
            lab.apply(Msg::Scrub(end)),
            Action::Scrubbed(Scrubbed::Stayed)
        );
        assert_eq!(
            lab.apply(Msg::Scrub(1_000)),
            Action::Scrubbed(Scrubbed::Moved)
        );
        assert_eq!((lab.world().now(), lab.horizon_ms()), (1_000, end));
        assert!(lab.is_behind());
        assert_eq!(
            lab.apply(Msg::Scrub(end + 50)),
            Action::Scrubbed(Scrubbed::Moved)
        );
        assert_eq!(
            lab.world().now(),
            end,
            "forward only as far as the old run went"
        );
        assert!(!lab.is_behind());
        lab.apply(Msg::Scrub(500));
        lab.apply(Msg::Step);
        assert!(!lab.is_behind(), "stepping starts a branch");
        assert_eq!(lab.horizon_ms(), lab.world().now());
    }

    #[test]
    fn following_makes_a_change_to_follow_when_kubectl_made_none() {
        let mut lab = lab();
        lab.apply(Msg::Command("kube up".into()));
        assert_eq!(lab.apply(Msg::Follow(true)), Action::Follow(true));
        assert_eq!(
            lab.transcript().last().map(|e| e.line.as_str()),
            Some(FOLLOW_FIRST_COMMAND)
        );
        lab.apply(Msg::Follow(true));
        assert_eq!(lab.transcript().len(), 2, "one change is enough");
        assert_eq!(lab.apply(Msg::Follow(false)), Action::Follow(false));
    }

    #[test]
    fn loading_replaces_the_run_and_clears_the_console() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let shared = Shared {
            settings: Settings {
                seed: 5,
                ..Settings::default()
            },
            script: "wait leader\n".into(),
        };
        assert_eq!(lab.apply(Msg::Load(shared)), Action::Loaded(None));
        assert_eq!(lab.revision(), 2, "a new run is still a change");
        assert_eq!(lab.settings().seed, 5);
        assert!(lab.transcript().is_empty());
        let view = reduce(View::new(Lang::En, false), Action::Loaded(None));
        assert!(!view.playing);
    }
}
