//! The page's state and its reducer. Plain Rust: no DOM here; the engine computes every
//! protocol fact, the model only drives it (time, play/pause, the user's commands). Every
//! change to the world goes through `Session::execute` with a script verb, so that export,
//! share and replay reproduce it.

use super::i18n::Lang;
use super::lamport::Recorder;
use super::share::Shared;
use crate::base::Millis;
use crate::check::Violation;
use crate::console::{run_script, Session};
use crate::etcd::{ClusterConfig, Switch, MAX_MEMBERS};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

pub const DEFAULT_SPEED_LOG10: f64 = -0.7; // 0.2×: slow enough to see a heartbeat travel
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

/// A message for the user that is not console output (a bad URL, an import, a download).
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
}

/// The panels of the side area.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Logs,
    SpaceTime,
    Network,
    Rules,
    Share,
    Keys,
    Kube,
}

#[derive(Clone)]
pub struct Model {
    pub session: Rc<RefCell<Session>>,
    /// After a scrub back in time: the run as it was before, so the slider can still move
    /// forward into it while paused. Playing, stepping or a command drops it (a new branch).
    pub ahead: Option<Rc<Session>>,
    pub recorder: Rc<RefCell<Recorder>>,
    pub transcript: Rc<RefCell<Vec<ConsoleEntry>>>,
    pub playing: bool,
    pub speed_log10: f64,
    pub settings: ClusterConfig,
    pub lang: Lang,
    pub presenter: bool,
    pub tab: Tab,
    /// The member whose key-value store the Keys tab shows (None: the leader, or m1).
    pub kv_member: Option<crate::base::MemberId>,
    /// The Kubernetes tab follows the last kubectl change end to end.
    pub follow: bool,
    /// The Logs tab shows this entry instead of the most recent ones.
    pub log_focus: Option<u64>,
    /// The message whose fields are shown (clicked in the cluster or the diagram).
    pub selected_message: Option<u64>,
    pub notice: Option<Notice>,
    /// Virtual milliseconds owed but not yet run (fractions carry over between frames).
    pub carry_ms: f64,
    pub version: u64,
}

pub enum Msg {
    /// A frame passed: `real_ms` of wall time.
    Frame(f64),
    Play,
    Pause,
    TogglePlay,
    Step,
    SetSpeed(f64),
    SetMembers(usize),
    SetSeed(u64),
    SetSwitch(Switch, bool),
    Reset,
    SetLang(Lang),
    SetPresenter(bool),
    SetTab(Tab),
    ShowKeysOf(crate::base::MemberId),
    /// Follow the last kubectl change (one is made first when there is none), or stop.
    Follow(bool),
    /// Show one Raft entry in the Logs tab (None: the most recent entries again).
    ShowEntry(Option<u64>),
    /// One command line (typed in the console or sent by a button), e.g. `kill m1`.
    Command(String),
    /// Several commands as one user action (a network preset).
    Commands(Vec<String>),
    /// Go to virtual time `t` (back, or forward into the run left behind by a scrub).
    Scrub(Millis),
    SelectMessage(Option<u64>),
    /// Start over with these settings and replay this script (a shared URL or an import).
    Load(Shared),
    Notify(Notice),
    DismissNotice,
    ClearConsole,
}

impl Model {
    pub fn new(settings: ClusterConfig, lang: Lang, presenter: bool) -> Model {
        let session = fresh_session(&settings, true);
        let model = Model {
            session: Rc::new(RefCell::new(session)),
            ahead: None,
            recorder: Rc::new(RefCell::new(Recorder::default())),
            transcript: Rc::new(RefCell::new(Vec::new())),
            playing: true,
            speed_log10: DEFAULT_SPEED_LOG10,
            settings,
            lang,
            presenter,
            tab: Tab::Logs,
            kv_member: None,
            follow: false,
            log_focus: None,
            selected_message: None,
            notice: None,
            carry_ms: 0.0,
            version: 0,
        };
        model.observe();
        model
    }

    pub fn speed(&self) -> f64 {
        10f64.powf(self.speed_log10)
    }

    /// The furthest moment the time slider reaches.
    pub fn horizon_ms(&self) -> Millis {
        let now = self.session.borrow().world.now();
        self.ahead.as_ref().map_or(now, |a| a.world.now().max(now))
    }

    pub fn violations(&self) -> Vec<Violation> {
        let session = self.session.borrow();
        session
            .monitor()
            .map(|m| m.violations().to_vec())
            .unwrap_or_default()
    }

    /// Feeds the invariant monitor (the session's) and the message recorder the world as it
    /// is now.
    fn observe(&self) {
        self.session.borrow_mut().observe();
        let session = self.session.borrow();
        self.recorder.borrow_mut().observe(&session.world);
    }

    /// A new run (the current settings), forgetting everything of the old one.
    fn restart_with(&mut self, settings: ClusterConfig, network_setup: bool) {
        self.settings = settings;
        self.session = Rc::new(RefCell::new(fresh_session(&self.settings, network_setup)));
        self.ahead = None;
        self.recorder = Rc::new(RefCell::new(Recorder::default()));
        self.selected_message = None;
        self.carry_ms = 0.0;
    }

    /// Running a command or time from a moment reached by scrubbing back starts a branch.
    fn branch(&mut self) {
        self.ahead = None;
    }

    fn run(&mut self, line: &str) {
        self.branch();
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        let out = {
            let mut session = self.session.borrow_mut();
            let time_ms = session.world.now();
            let out = session.execute(line, None);
            ConsoleEntry {
                time_ms,
                line: line.to_string(),
                stdout: out.stdout,
                stderr: out.stderr,
                code: out.code,
            }
        };
        let mut transcript = self.transcript.borrow_mut();
        transcript.push(out);
        let excess = transcript.len().saturating_sub(TRANSCRIPT_KEEP);
        transcript.drain(..excess);
    }

    fn advance(&mut self, virtual_ms: u64) {
        self.session.borrow_mut().run_for(virtual_ms);
        self.observe();
    }

    fn scrub(&mut self, t: Millis) {
        let now = self.session.borrow().world.now();
        if t == now {
            return;
        }
        let base = match &self.ahead {
            Some(ahead) => ahead.clone(),
            None => {
                let current = Rc::new(self.session.borrow().clone());
                self.ahead = Some(current.clone());
                current
            }
        };
        let mut session = (*base).clone();
        let t = t.min(base.world.now());
        if let Err(e) = session.rewind_to(t) {
            self.notice = Some(Notice {
                error: true,
                text: e.to_string(),
            });
            return;
        }
        if session.world.now() >= base.world.now() {
            self.ahead = None; // back at the end of the old run: nothing is ahead any more
        }
        self.session = Rc::new(RefCell::new(session));
        self.recorder.borrow_mut().forget_after(t);
        self.selected_message = None;
        self.observe();
    }

    pub fn load(&mut self, shared: Shared) {
        self.restart_with(shared.settings, false);
        self.transcript.borrow_mut().clear();
        let run = run_script(&mut self.session.borrow_mut(), &shared.script, true);
        if run.code != 0 {
            let errors: Vec<&str> = run
                .stdout
                .lines()
                .filter(|l| l.starts_with("Error: "))
                .take(3)
                .collect();
            self.notice = Some(Notice {
                error: true,
                text: errors.join("\n"),
            });
        }
        self.playing = false;
        self.observe();
    }
}

/// A new session for `settings`; `network_setup` runs the UI's slower network first (a
/// loaded script carries its own).
pub fn fresh_session(settings: &ClusterConfig, network_setup: bool) -> Session {
    let mut session = Session::new(settings.clone());
    session.set_wire_log(super::lamport::WIRE_LOG);
    session.watch_invariants();
    if network_setup {
        session.execute(UI_NETWORK_SETUP, None);
    }
    session
}

impl Reducible for Model {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let mut next = (*self).clone();
        next.version += 1;
        match msg {
            Msg::Frame(real_ms) => {
                if next.playing {
                    next.carry_ms += real_ms.clamp(0.0, MAX_FRAME_MS) * next.speed();
                    let whole = next.carry_ms.floor();
                    next.carry_ms -= whole;
                    if whole >= 1.0 {
                        next.advance(whole as u64);
                    }
                }
            }
            Msg::Play => {
                next.branch();
                next.playing = true;
            }
            Msg::Pause => next.playing = false,
            Msg::TogglePlay => {
                next.branch();
                next.playing = !next.playing;
            }
            Msg::Step => {
                next.branch();
                next.playing = false;
                next.session.borrow_mut().step();
                next.observe();
            }
            Msg::SetSpeed(log10) => next.speed_log10 = log10.clamp(-2.0, 2.0),
            Msg::SetMembers(n) => {
                let settings = ClusterConfig {
                    members: n.clamp(1, MAX_MEMBERS),
                    ..next.settings.clone()
                };
                next.restart_with(settings, true);
            }
            Msg::SetSeed(seed) => {
                let settings = ClusterConfig {
                    seed,
                    ..next.settings.clone()
                };
                next.restart_with(settings, true);
            }
            Msg::SetSwitch(switch, on) => {
                let mut settings = next.settings.clone();
                switch.set(&mut settings, on);
                next.restart_with(settings, true);
            }
            Msg::Reset => {
                let settings = next.settings.clone();
                next.restart_with(settings, true);
            }
            Msg::SetLang(lang) => next.lang = lang,
            Msg::SetPresenter(on) => next.presenter = on,
            Msg::ShowKeysOf(member) => next.kv_member = Some(member),
            Msg::Follow(on) => {
                let wrote =
                    next.session.borrow().kube.as_ref().is_some_and(|k| {
                        crate::kube::trace::follow_last(k.api.journal()).is_some()
                    });
                if on && !wrote {
                    next.run(FOLLOW_FIRST_COMMAND);
                    next.observe();
                }
                next.follow = on;
            }
            Msg::ShowEntry(index) => {
                next.log_focus = index;
                if index.is_some() {
                    next.tab = Tab::Logs;
                }
            }
            Msg::SetTab(tab) => {
                next.tab = tab;
            }
            Msg::Command(line) => {
                next.run(&line);
                next.observe();
            }
            Msg::Commands(lines) => {
                for line in lines {
                    next.run(&line);
                }
                next.observe();
            }
            Msg::Scrub(t) => {
                next.playing = false;
                next.scrub(t);
            }
            Msg::SelectMessage(id) => {
                next.selected_message = id;
                if id.is_some() {
                    next.playing = false; // hold the message still while it is read
                }
            }
            Msg::Load(shared) => next.load(shared),
            Msg::Notify(notice) => next.notice = Some(notice),
            Msg::DismissNotice => next.notice = None,
            Msg::ClearConsole => next.transcript.borrow_mut().clear(),
        }
        Rc::new(next)
    }
}
