//! The run the page drives: the console `Session` (the world, its timeline, the invariant
//! monitor), the run left ahead by a scrub back in time, the message recorder and the console
//! transcript. Plain Rust: the page keeps one `Lab` in a context and sends it `Msg`s; every
//! change to the world goes through `Session::execute` with a script verb, so that export,
//! share and replay reproduce it. What a `Msg` did is handed back as a view `Action`.

use super::i18n::{t, Lang, Text};
use super::lessons::{Course, LessonMsg};
use super::long_run::{LongRun, Progress};
use super::recorder::{Recorder, WIRE_LOG};
use super::share::{self, Shared};
use super::view::{clock_step, shown_time, Action, Notice, Pace, Scrubbed, View};
use crate::base::{MemberId, Millis};
use crate::check::Violation;
use crate::console::script::{self, ScriptLine};
use crate::console::{Aside, Hint, Output, Session};
use crate::etcd::Cluster as World;
use crate::etcd::{ClusterConfig as Settings, Switch};
use crate::raft::RaftView;
use crate::sim::InFlight;
use std::rc::Rc;

/// The UI's network is slower than the CLI default so messages are visible in flight.
pub const UI_NETWORK_SETUP: &str = "latency 30ms jitter 10ms";
/// Never advance more than this much real time in one frame (after a stall, or a hidden tab)
/// beyond the sleep the frame loop was told it could take ([`Lab::sleep_ms`]).
const MAX_FRAME_MS: f64 = 100.0;
/// The longest the frame loop sleeps between frames while the run plays (real ms): at very
/// slow speeds the clock may not move for longer, and a wake-up that finds nothing is cheap.
const MAX_SLEEP_MS: f64 = 1000.0;
/// A sleep shorter than this is the next frame anyway: the frame loop asks for it.
pub const FRAME_SLEEP_MS: f64 = 16.0;
/// While the run plays, the panels follow the world at most this often (real ms), and only
/// when what they draw changed (`PanelsShow`): with 11 members at 10× something happens in
/// every frame, and redrawing every panel each frame took more than a frame has. A command,
/// a pause, a lesson step done show at once, and so does the first change after a quiet
/// spell; the ring draws at the events (see `EVENTS_FOLLOW_MS`), the clock at each of its
/// steps (see `drawn`).
const PANELS_FOLLOW_MS: f64 = 100.0;
/// While the run plays unwatched, an event of the world shows at most this long (real ms)
/// after the page last drew: the ring draws ahead the messages sent until then
/// ([`Lab::foreseen`]), which glide on the compositor, so the page need not wake at each one.
/// Most events are heartbeats and their answers, which change only the members' timers and
/// the edges' labels; each drawing costs the page a whole lifecycle of Chromium's.
const EVENTS_FOLLOW_MS: f64 = 200.0;
/// What a member notes (a new role or term, an entry applied: its colour, its numbers)
/// shows this soon after the page last drew, or at once if later, when the run foresaw it
/// (at speeds too quick for the dots to glide nothing is foreseen: it shows with the events).
const NOTES_FOLLOW_MS: f64 = 100.0;
/// The clock steps every 200 to 500 real ms: what else would wake the page unwatched (the
/// events, the panels) no more than this before (or after) a step shows with it, so that the
/// three do not drift into drawings a frame or two apart, each a whole lifecycle of Chromium's.
const ALIGN_MS: f64 = 50.0;
/// The ring draws the messages to come until the frame loop's latest wake and this much
/// (real ms at the speed played) after: a frame or two late.
const FORESIGHT_MARGIN_MS: f64 = 50.0;
/// When it foresees again, it foresees this far (real ms at the speed played), so that new
/// dots come in bunches: each drawing that starts an animation costs the page a second frame
/// of Chromium's, in which the compositor tells the page that the animation started.
const FORESIGHT_AHEAD_MS: f64 = 1_000.0;
/// At most this far ahead (virtual ms): on a slow network at a high speed the world would
/// otherwise run seconds ahead at every drawing.
const FORESIGHT_MOST_MS: Millis = 2_000;
/// A message whose flight is shorter than this (real ms at the speed played) is drawn where
/// it is at each drawing, not gliding: too quick to follow, and each dot gliding costs the
/// page a layer of its own while its animation lasts.
pub const GLIDE_LEAST_MS: f64 = 50.0;
/// A watched frame looks at the world at most this often (at high speeds, events are dense).
const MAX_SLICES_PER_FRAME: f64 = 100.0;
/// Console transcript entries kept (older ones scroll away).
const TRANSCRIPT_KEEP: usize = 200;
/// What "follow a change" runs when kubectl has not written anything yet.
const FOLLOW_FIRST_COMMAND: &str = "kubectl create deployment web --image=nginx:1.25 --replicas=3";

/// The console's entries, and how often they were changed: a frame renders the console only
/// when they were (a class's transcript holds hundreds of outputs, each a copy to diff).
#[derive(Clone, Debug, Default)]
struct Transcript {
    entries: Vec<ConsoleEntry>,
    edits: u64,
}

impl std::ops::Deref for Transcript {
    type Target = Vec<ConsoleEntry>;

    fn deref(&self) -> &Vec<ConsoleEntry> {
        &self.entries
    }
}

impl std::ops::DerefMut for Transcript {
    // Every way of changing the entries passes here, so none can be missed.
    fn deref_mut(&mut self) -> &mut Vec<ConsoleEntry> {
        self.edits += 1;
        &mut self.entries
    }
}

/// One command and what it printed, as the console shows it (and as the browser keeps it
/// across a reload: `share_saved`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConsoleEntry {
    pub kind: EntryKind,
    pub time_ms: Millis,
    /// The command; for [`EntryKind::NewRun`], the new run's flags.
    pub line: String,
    /// Its heredoc, as typed after the line.
    pub stdin: Option<String>,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    /// The page's "Raft Lab:" word on why it failed (`Output::aside`).
    pub hint: Option<Hint>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum EntryKind {
    /// Typed, or sent by a button.
    Typed,
    /// Run by a shared link or an imported script (shown dimmed: nobody typed it here).
    Replayed,
    /// A divider: a new run started here (Reset, a changed setting, a load).
    NewRun,
}

impl ConsoleEntry {
    fn new(kind: EntryKind, time_ms: Millis, line: &ScriptLine, out: &Output) -> ConsoleEntry {
        ConsoleEntry {
            kind,
            time_ms,
            line: line.text.clone(),
            stdin: line.stdin.clone(),
            stdout: out.stdout.clone(),
            stderr: out.stderr.clone(),
            code: out.code,
            hint: match &out.aside {
                Some(Aside::Hint(h)) => Some(h.clone()),
                _ => None,
            },
        }
    }

    fn divider(settings: &Settings) -> ConsoleEntry {
        ConsoleEntry {
            kind: EntryKind::NewRun,
            time_ms: 0,
            line: settings.flags(),
            stdin: None,
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
            hint: None,
        }
    }
}

impl ConsoleEntry {
    /// Output laid out in columns (etcdctl's `-w table`, kubectl's and `status`'s tables):
    /// the console scrolls it sideways rather than wrap it into a jumble.
    pub fn is_tabular(&self) -> bool {
        let mut lines = self.stdout.lines();
        let header = lines.next().unwrap_or("");
        let boxed = header.starts_with("+-");
        let columns = header.split("  ").filter(|w| !w.trim().is_empty()).count() >= 2
            && header.chars().any(|c| c.is_ascii_uppercase())
            && !header.chars().any(|c| c.is_ascii_lowercase());
        boxed || columns
    }
}

/// The console's command line between Enters: the lines kept while a heredoc (or a line
/// ending in `\`) waits for more, as bash's `> ` prompt does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Continuation {
    lines: Vec<String>,
}

impl Continuation {
    /// One entered line; the whole text to run once it is complete. Lines of a heredoc's
    /// body are kept as typed (YAML's indentation is its meaning); a blank command line is
    /// nothing.
    pub fn enter(&mut self, line: &str) -> Option<String> {
        if self.lines.is_empty() && line.trim().is_empty() {
            return None;
        }
        self.lines.push(line.to_string());
        let text = self.lines.join("\n");
        let open = script::awaiting_heredoc(&text).is_some() || text.ends_with('\\');
        if open {
            return None;
        }
        self.lines.clear();
        Some(text)
    }

    /// Pasted text into a line holding `before`: every complete line is entered; what
    /// follows the last newline stays on the command line.
    pub fn paste(&mut self, before: &str, pasted: &str) -> (Vec<String>, String) {
        let text = format!("{before}{pasted}").replace("\r\n", "\n");
        let mut parts: Vec<&str> = text.split('\n').collect();
        let rest = parts.pop().unwrap_or("").to_string();
        let ready = parts.into_iter().filter_map(|l| self.enter(l)).collect();
        (ready, rest)
    }

    /// The lines so far, while more are awaited.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The heredoc marker awaited, if any.
    pub fn awaiting(&self) -> Option<String> {
        script::awaiting_heredoc(&self.lines.join("\n"))
    }

    /// Ctrl-C or Escape: drop what was typed so far.
    pub fn cancel(&mut self) {
        self.lines.clear();
    }
}

/// A shared run played again from its start: its script's lines still to run, and what is
/// left of the `wait` being played out (frame by frame, so the class sees it happen).
#[derive(Clone, Debug)]
struct Playback {
    lines: std::collections::VecDeque<ScriptLine>,
    wait_left: Millis,
}

/// What the user (or the animation clock) asks of the page.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// A frame passed: `real_ms` of wall time, played at `pace`.
    Frame {
        real_ms: f64,
        pace: Pace,
    },
    Play,
    TogglePlay,
    Step,
    SetMembers(usize),
    /// The world the run starts from: the ring of members, or the articles' kubeadm cluster.
    SetWorld(crate::etcd::Preset),
    SetSeed(u64),
    SetSwitch(Switch, bool),
    Reset,
    /// Follow the last kubectl change (one is made first when there is none), or stop.
    Follow(bool),
    /// One command line (typed in the console or sent by a button), e.g. `kill m1`.
    Command(String),
    /// Several commands as one user action (a network preset).
    Commands(Vec<String>),
    /// The next slice of the console's long run (`wait 600s`): at most this much virtual
    /// time (the page gives it all: a slice there ends when its real-time budget is spent).
    Continue(Millis),
    /// Go to virtual time `t` (back, or forward into the run left behind by a scrub).
    Scrub(Millis),
    /// Start over with these settings and replay this script (a shared URL or an import).
    Load(Shared),
    /// Go back to the start of the loaded run and play it again, its commands at their times.
    PlayFromStart,
    ClearConsole,
    /// Forget the session this browser keeps: a fresh run on the default settings, no
    /// lesson progress, an empty console.
    StartFresh,
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
            Msg::SetMembers(_)
                | Msg::SetWorld(_)
                | Msg::SetSeed(_)
                | Msg::SetSwitch(..)
                | Msg::Reset
                | Msg::StartFresh
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
    transcript: Transcript,
    /// The run a link or an import loaded, to play again from its start.
    loaded: Option<Shared>,
    playback: Option<Playback>,
    /// Virtual milliseconds owed but not yet run (fractions carry over between frames).
    carry_ms: f64,
    /// The real ms the frame loop was last told it could sleep: the next frame may be that
    /// much longer than `MAX_FRAME_MS` without being cut short.
    slept_ms: f64,
    timeline: Timeline,
    /// Messages applied so far: a view of the run compares it to tell that the run changed.
    revision: u64,
    /// The messages that changed what the panels show: every one but the frames in which
    /// only the clock moved (the ring and the clock follow `revision`), and the frames that
    /// come less than `PANELS_FOLLOW_MS` after the last one shown.
    shown: u64,
    shown_at: PanelsShow,
    /// Real milliseconds played since the panels last followed the world.
    unshown_ms: f64,
    /// Real milliseconds played since a frame last changed the page.
    undrawn_ms: f64,
    /// The messages the world will send soon (see [`Lab::foreseen`]).
    foresight: Foresight,
    /// The lessons: the step open on this run, and the steps done.
    lessons: Course,
    /// The console's lines still running (their time passes in slices, one per frame).
    long: LongRun,
}

/// How virtual time follows real time: the ring's message dots glide on the compositor at the
/// speed they were drawn at, so they are drawn again whenever that stops holding (a command, a
/// scrub, a new speed, a frame cut short).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timeline {
    /// The revision at which virtual time last jumped or changed pace.
    pub epoch: u64,
    /// Virtual ms per real ms, as the last frame played.
    pub speed: f64,
}

/// What the world will send, foreseen at the lab's `revision`, up to `until` (0: nothing
/// foreseen), if the control plane's next `tick` does not change its course.
#[derive(Clone, Debug, Default)]
struct Foresight {
    messages: Rc<Vec<InFlight>>,
    /// When a member notes something meanwhile (`Foreseen::notes`).
    notes: Vec<Millis>,
    revision: u64,
    until: Millis,
    tick: Millis,
}

/// Where the run is, as far as the ring can tell: what changes it is an event of the world or
/// a tick of the control plane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Marker {
    steps: u64,
    kube_tick: Option<Millis>,
}

/// What the panels draw of the run, compared to tell whether they must follow it: most of
/// the world's events are heartbeats and their answers, which change nothing drawn there
/// (the wire and the timers are drawn with the clock, see `Clock`).
#[derive(Clone, Debug, Default, PartialEq)]
struct PanelsShow {
    /// Each member's state less its timers, its store's revision, its narration's length,
    /// whether it is paused.
    members: Vec<(MemberId, Option<RaftView>, i64, usize, bool)>,
    kube_tick: Option<Millis>,
    behind: bool,
    playing_back: bool,
    edits: u64,
    violations: usize,
    /// While a lesson's step is open: the world's steps (its goal may count messages).
    steps: Option<u64>,
}

/// Virtual time the line typed gets at once: a `wait 2s` ends in the frame it was typed in,
/// a `wait 600s` goes on in [`Msg::Continue`] slices.
pub const FIRST_SLICE_MS: Millis = 10_000;

/// The virtual milliseconds that `real_ms` of real time play at `speed`, rounded up.
fn virtual_ms(speed: f64, real_ms: f64) -> Millis {
    (speed * real_ms).ceil() as Millis
}

/// The page's real clock in ms (`performance.now()`); natively none, so that a slice there
/// ends by virtual time alone.
fn real_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    return super::dom::now_ms();
    #[cfg(not(target_arch = "wasm32"))]
    return 0.0;
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
            view.notice = Some(bad_link_notice(lang, &e));
            (Lab::new(Settings::default()), view)
        }
    }
}

/// What the page says of a link it cannot open (`why`: `share::decode`'s reason).
pub fn bad_link_notice(lang: Lang, why: &str) -> Notice {
    Notice::error(format!("{}: {why}", t(lang, Text::BadLink)))
}

impl Lab {
    /// A fresh run of `settings` on the UI's slower network, observed once.
    pub fn new(settings: Settings) -> Lab {
        let lab = Lab {
            session: fresh_session(&settings, true),
            settings,
            ahead: None,
            recorder: Recorder::default(),
            transcript: Transcript::default(),
            loaded: None,
            playback: None,
            carry_ms: 0.0,
            slept_ms: 0.0,
            timeline: Timeline::default(),
            revision: 0,
            shown: 0,
            shown_at: PanelsShow::default(),
            unshown_ms: 0.0,
            undrawn_ms: 0.0,
            foresight: Foresight::default(),
            lessons: Course::default(),
            long: LongRun::default(),
        };
        lab.observed()
    }

    /// A fresh run of `shared.settings` replaying `shared.script` (which carries its own
    /// network), and the first errors it printed when it failed. The console shows the
    /// replayed commands and what they printed.
    pub fn replay(shared: Shared) -> (Lab, Option<String>) {
        let mut lab = Lab {
            session: fresh_session(&shared.settings, false),
            settings: shared.settings.clone(),
            ahead: None,
            recorder: Recorder::default(),
            transcript: Transcript::default(),
            loaded: None,
            playback: None,
            carry_ms: 0.0,
            slept_ms: 0.0,
            timeline: Timeline::default(),
            revision: 0,
            shown: 0,
            shown_at: PanelsShow::default(),
            unshown_ms: 0.0,
            undrawn_ms: 0.0,
            foresight: Foresight::default(),
            lessons: Course::default(),
            long: LongRun::default(),
        };
        let mut entries = Vec::new();
        let run = script::run_script_with(
            &mut lab.session,
            &shared.script,
            true,
            &mut |line, time_ms, out| {
                entries.push(ConsoleEntry::new(EntryKind::Replayed, time_ms, line, out));
            },
        );
        lab.loaded = Some(shared);
        entries.into_iter().for_each(|e| lab.push(e));
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

    pub fn timeline(&self) -> Timeline {
        self.timeline
    }

    /// The last frame played at `speed`: a new pace starts a new timeline.
    fn played_at(&mut self, speed: f64) {
        if speed != self.timeline.speed {
            self.timeline = Timeline {
                epoch: self.revision,
                speed,
            };
        }
    }

    /// Like `revision`, but unmoved by a frame in which no event happened.
    pub fn shown_revision(&self) -> u64 {
        self.shown
    }

    fn marker(&self) -> Marker {
        Marker {
            steps: self.world().steps(),
            kube_tick: self.session.kube.as_ref().map(|k| k.next_tick_ms()),
        }
    }

    /// What the panels would draw now (see `PanelsShow`).
    fn panels_show(&self) -> PanelsShow {
        let world = self.world();
        let member = |id: MemberId| {
            let events = world.process(id).map_or(0, |m| m.events().len());
            let view = world.raft_state(id).map(RaftView::settled);
            (id, view, world.revision_of(id), events, world.is_paused(id))
        };
        PanelsShow {
            members: world.member_ids().into_iter().map(member).collect(),
            kube_tick: self.marker().kube_tick,
            behind: self.is_behind(),
            playing_back: self.playback.is_some(),
            edits: self.transcript.edits,
            violations: (self.session.monitor()).map_or(0, |m| m.violations().len()),
            steps: self.lessons.open().map(|_| world.steps()),
        }
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

    /// Changes to the transcript so far: the console renders again by this number.
    pub fn transcript_edits(&self) -> u64 {
        self.transcript.edits
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

    /// This run, replayed from the session the browser kept, as the user left it: the
    /// console reads as it did (`console`, when it was kept), and the run is the user's own
    /// rather than a link's to play again.
    pub fn restored(mut self, console: Option<Vec<ConsoleEntry>>) -> Lab {
        if let Some(console) = console {
            *self.transcript = console;
            self.trim();
        }
        self.loaded = None;
        self.playback = None;
        self
    }

    /// A link or an import loaded this run: it can be played again from its start.
    pub fn can_play_from_start(&self) -> bool {
        self.loaded.is_some()
    }

    /// How far the console's long run is, while one runs (the page disables the console
    /// and shows it).
    pub fn long_run(&self) -> Option<Progress> {
        self.long.progress(self.world().now())
    }

    /// Playing a loaded run again: its commands still run as time passes.
    pub fn is_playing_back(&self) -> bool {
        self.playback.is_some()
    }

    /// Where the console's etcdctl connects now without `--endpoints`, the members it picks
    /// from (by name), and whether that is the member beside the console (kubeadm's machine).
    pub fn console_endpoint(&self) -> (String, Vec<String>, bool) {
        use crate::console::etcdctl::endpoint;
        let world = self.world();
        let all = world
            .client_endpoints()
            .iter()
            .map(|m| world.display_name(*m))
            .collect();
        let local = endpoint::default_is_local(world);
        (endpoint::default_endpoint(world), all, local)
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
        let frame_ms = match msg {
            Msg::Frame { real_ms, .. } => Some(real_ms),
            _ => None,
        };
        let jumps = frame_ms.is_none() && !matches!(msg, Msg::View(_));
        let drawn = self.drawn();
        let (action, lesson_done) = self.apply_observed(msg);
        if jumps {
            self.timeline.epoch = self.revision;
            self.unforesee();
        }
        self.unshown_ms += frame_ms.unwrap_or(0.0);
        // The clock steps at most five times a second: the panels may come along with a step.
        let steps = self.drawn().1 != drawn.1;
        let follows = if steps {
            PANELS_FOLLOW_MS - ALIGN_MS
        } else {
            PANELS_FOLLOW_MS
        };
        // Computed only when it may matter: it asks every member for its state.
        let mut at = None;
        let due = self.unshown_ms >= follows && *at.insert(self.panels_show()) != self.shown_at;
        if frame_ms.is_none() || lesson_done || due {
            self.shown += 1;
            self.shown_at = at.unwrap_or_else(|| self.panels_show());
            self.unshown_ms = 0.0;
        }
        let action = if frame_ms.is_some() && action == Action::Refresh && self.drawn() == drawn {
            Action::Quiet
        } else {
            action
        };
        self.undrawn_ms = match action {
            Action::Quiet => self.undrawn_ms + frame_ms.unwrap_or(0.0),
            _ => 0.0,
        };
        action
    }

    /// What a frame could change on the page: the world's events, the clock as it is shown,
    /// the timeline, what the panels show, the console (a played-back command).
    fn drawn(&self) -> (Marker, u64, u64, u64, u64, u64) {
        let now = self.world().now();
        (
            self.marker(),
            shown_time(now, true, self.timeline.speed),
            self.timeline.epoch,
            self.shown,
            self.transcript.edits,
            self.foresight.revision,
        )
    }

    /// `apply`, and whether the lesson's step got done by it.
    fn apply_observed(&mut self, msg: Msg) -> (Action, bool) {
        if !matches!(
            msg,
            Msg::Frame { .. } | Msg::View(_) | Msg::Play | Msg::TogglePlay
        ) {
            // Anything the user does to the run takes it over from the playback.
            self.playback = None;
        }
        if self.lessons.waits_for_answer() && waits_with_the_world(&msg) {
            return (Action::Pause, false);
        }
        if !self.long.is_idle() && waits_for_the_long_run(&msg) {
            return (Action::Refresh, false);
        }
        let action = self.apply_now(msg);
        (action, self.lessons.observe(&self.session))
    }

    fn apply_now(&mut self, msg: Msg) -> Action {
        match msg {
            Msg::Frame { real_ms, pace } => self.frame(real_ms, pace),
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
            Msg::SetMembers(_)
            | Msg::SetWorld(_)
            | Msg::SetSeed(_)
            | Msg::SetSwitch(..)
            | Msg::Reset => {
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
            Msg::Continue(most_ms) => {
                self.continue_long_run(most_ms);
                self.observe();
            }
            Msg::Scrub(t) => return Action::Scrubbed(self.scrub(t)),
            Msg::Load(shared) => {
                let (lab, errors) = Lab::replay(shared);
                let _ = self.lessons.apply(LessonMsg::Close);
                let mut kept = std::mem::take(&mut self.transcript);
                if !kept.is_empty() {
                    kept.push(ConsoleEntry::divider(&lab.settings));
                }
                kept.extend(lab.transcript.iter().cloned());
                *self = Lab {
                    revision: self.revision,
                    shown: self.shown,
                    lessons: std::mem::take(&mut self.lessons),
                    transcript: kept,
                    ..lab
                };
                self.trim();
                return Action::Loaded(errors);
            }
            Msg::PlayFromStart => return self.play_from_start(),
            Msg::ClearConsole => self.transcript.clear(),
            Msg::StartFresh => {
                let mut fresh = Lab::new(Settings::default());
                // Counted on from here, so the console never takes the fresh one for the old.
                fresh.transcript.edits += self.transcript.edits + 1;
                *self = Lab {
                    revision: self.revision,
                    shown: self.shown,
                    ..fresh
                };
                return Action::StartedFresh;
            }
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

    /// A new run of `settings` on the UI's network; the console keeps its transcript, below
    /// a divider.
    fn restart(&mut self, settings: Settings) {
        self.push(ConsoleEntry::divider(&settings));
        self.loaded = None;
        self.long = LongRun::default();
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

    fn frame(&mut self, real_ms: f64, pace: Pace) {
        let most_ms = MAX_FRAME_MS + self.slept_ms;
        if real_ms > most_ms {
            self.timeline.epoch = self.revision;
        }
        let real_ms = real_ms.clamp(0.0, most_ms);
        if pace.watches() && self.playback.is_none() {
            return self.watched_frame(real_ms, pace);
        }
        self.played_at(pace.speed);
        self.carry_ms += real_ms * pace.speed;
        let whole = self.carry_ms.floor();
        self.carry_ms -= whole;
        let mut left = whole as Millis;
        if self.playback.is_some() {
            left = self.play_back(left);
        }
        if left >= 1 {
            self.session.run_for(left);
        }
        if whole >= 1.0 {
            self.observe();
        }
        if self.playback.is_none() && self.long.is_idle() {
            self.foresee(pace.speed);
        } else {
            self.unforesee();
        }
    }

    /// The messages the world will send from now until shortly after the page next draws,
    /// if nothing from outside the world (a command, the control plane) changes its course.
    /// A frame that shows the run playing unwatched takes them; anything else drops them.
    /// With the revision at which they were foreseen.
    pub fn foreseen(&self) -> (u64, Rc<Vec<InFlight>>) {
        (self.foresight.revision, self.foresight.messages.clone())
    }

    /// Foresees again once the timeline changed since the last time it did, the control
    /// plane ticked, or the time foreseen would not last until the page next wakes. The
    /// world follows what was foreseen of it until something from outside changes its
    /// course: a command drops the foresight; the control plane's ticks end it.
    fn foresee(&mut self, speed: f64) {
        let now = self.world().now();
        let most = now + FORESIGHT_MOST_MS;
        let margin = virtual_ms(speed, FORESIGHT_MARGIN_MS);
        let needed = (self.latest_wake(speed).saturating_add(margin))
            .min(most)
            .max(now + 1);
        let f = &self.foresight;
        if f.revision >= self.timeline.epoch && f.until >= needed && now < f.tick {
            return;
        }
        let net = &self.world().net.config;
        if (net.latency_ms + net.jitter_ms) as f64 / speed < GLIDE_LEAST_MS {
            return self.unforesee();
        }
        let tick = self.kube_tick();
        let ahead = now.saturating_add(virtual_ms(speed, FORESIGHT_AHEAD_MS));
        let until = (ahead.min(tick)).max(needed).min(most);
        let ahead = self.world().foresee(until);
        self.foresight = Foresight {
            messages: Rc::new(ahead.messages),
            notes: ahead.notes,
            revision: self.revision,
            until,
            tick,
        };
    }

    /// Forgets what was foreseen: the run changed course, or is no longer played unwatched.
    fn unforesee(&mut self) {
        if self.foresight.until > 0 {
            self.foresight = Foresight {
                revision: self.revision,
                ..Foresight::default()
            };
        }
    }

    /// How long (real ms) the frame loop can sleep before a frame would show anything new
    /// while the run plays at `pace`: until the next event of the world (played unwatched,
    /// no sooner than `EVENTS_FOLLOW_MS` after the last drawing: the ring drew the messages
    /// sent until then ahead) or tick of the control plane, the clock's next step, or the
    /// panels' next catch-up. In between the page has nothing to draw (the message dots glide
    /// on the compositor), so it asks for no frames.
    pub fn sleep_ms(&mut self, pace: Pace) -> f64 {
        self.slept_ms = self.quiet_ms(pace).clamp(0.0, MAX_SLEEP_MS);
        self.slept_ms
    }

    fn quiet_ms(&self, pace: Pace) -> f64 {
        if self.playback.is_some() || !self.long.is_idle() {
            return 0.0;
        }
        let now = self.world().now();
        let next_event = self.world().next_event_time().unwrap_or(Millis::MAX);
        // The faster of the two speeds slow motion switches between: waking early is harmless.
        let speed = pace.speed.max(pace.slow.unwrap_or(0.0));
        let until = |t: Millis| (t.saturating_sub(now) as f64 - self.carry_ms) / speed;
        let mut event = until(next_event);
        if !pace.watches() {
            event = event.max(EVENTS_FOLLOW_MS - self.undrawn_ms);
            if let Some(&note) = self.foresight.notes.iter().find(|t| **t > now) {
                event = event.min(until(note).max(NOTES_FOLLOW_MS - self.undrawn_ms));
            }
        }
        if self.foresight.until > 0 {
            // Past it, what the world sends would show late.
            event = event.min(until(self.foresight.until));
        }
        let clock = until(self.next_step(pace.speed));
        let mut other = until(self.kube_tick()).min(event);
        let panels = PANELS_FOLLOW_MS - self.unshown_ms;
        // `panels_show` asks every member for its state: only when their wake is the earliest.
        if panels < other.min(clock) && self.panels_show() != self.shown_at {
            other = panels;
        }
        // Watched (slow motion, a stop at a new leader), an event shows when it happens.
        let quiet = if !pace.watches() && other < clock && clock - other <= ALIGN_MS {
            clock
        } else {
            other.min(clock)
        };
        // Up to a millisecond late, so that rounding never wakes the loop a hair too early
        // (nor at once for what is due now: the frame after that plays no time yet).
        quiet.max(0.0).floor() + 1.0
    }

    /// When the clock shown at `speed` next moves.
    fn next_step(&self, speed: f64) -> Millis {
        shown_time(self.world().now(), true, speed) + clock_step(speed)
    }

    fn kube_tick(&self) -> Millis {
        (self.session.kube.as_ref()).map_or(Millis::MAX, |k| k.next_tick_ms())
    }

    /// The latest the frame loop wakes (virtual time) after a frame that draws, playing
    /// unwatched at `speed`: the clock's next step, the control plane's next tick, the
    /// world's next event once it may show, or the longest sleep.
    fn latest_wake(&self, speed: f64) -> Millis {
        let now = self.world().now();
        let after = |real_ms: f64| now.saturating_add(virtual_ms(speed, real_ms));
        let event = (self.world().next_event_time())
            .map_or(Millis::MAX, |t| t.max(after(EVENTS_FOLLOW_MS)));
        (self.next_step(speed).min(self.kube_tick()))
            .min(event)
            .min(after(MAX_SLEEP_MS))
    }

    /// A frame played in slices up to the next event, so that slow motion starts at the
    /// moment a campaign does and the frame ends at a new leader: a long frame (a loaded
    /// projector laptop) would otherwise play a whole election before the class sees it.
    fn watched_frame(&mut self, mut real_ms: f64, pace: Pace) {
        self.unforesee();
        let leader = self.world().leader();
        let min_slice = (real_ms * pace.speed / MAX_SLICES_PER_FRAME)
            .ceil()
            .max(1.0);
        loop {
            let speed = pace.speed_in(self.world());
            self.played_at(speed);
            let budget = self.carry_ms + real_ms * speed;
            let to_next = self
                .world()
                .next_event_time()
                .map_or(f64::MAX, |t| t.saturating_sub(self.world().now()) as f64);
            let slice = budget.floor().min(to_next.max(min_slice));
            if slice < 1.0 {
                self.carry_ms = budget;
                return;
            }
            self.carry_ms = 0.0;
            real_ms = (budget - slice) / speed;
            self.session.run_for(slice as Millis);
            self.observe();
            let now = self.world().leader();
            if pace.stop_at_new_leader && now.is_some() && now != leader {
                return;
            }
        }
    }

    /// Text typed or pasted into the console: one or more command lines, heredocs with
    /// their bodies (read as a script reads them, so the two agree).
    fn run(&mut self, text: &str) {
        self.branch();
        self.queue_lines(script::parse(text));
    }

    /// Lines for the console. An idle console runs its first slice at once (a short command
    /// answers in the frame it was typed in); behind a running line they wait for the frames'
    /// slices, so that Enters handled in one task never stack a slice each.
    fn queue_lines(&mut self, lines: Vec<ScriptLine>) {
        let idle = self.long.is_idle();
        self.long.queue(lines);
        if idle {
            self.continue_long_run(FIRST_SLICE_MS);
        }
    }

    /// Runs the next slice of the console's lines; those that ended go to the transcript.
    fn continue_long_run(&mut self, most_ms: Millis) {
        let ended = self.long.slice_within(&mut self.session, most_ms, &real_ms);
        for (line, time_ms, out) in ended {
            self.show(&line, time_ms, &out);
        }
    }

    /// What a line typed at `time_ms` printed, in the transcript.
    fn show(&mut self, line: &ScriptLine, time_ms: Millis, out: &Output) {
        if out.aside == Some(Aside::ClearScreen) {
            self.transcript.clear();
            return;
        }
        self.push(ConsoleEntry::new(EntryKind::Typed, time_ms, line, out));
    }

    fn push(&mut self, entry: ConsoleEntry) {
        self.transcript.push(entry);
        self.trim();
    }

    fn trim(&mut self) {
        let excess = self.transcript.len().saturating_sub(TRANSCRIPT_KEEP);
        self.transcript.drain(..excess);
    }

    /// A lesson message: a step that opens becomes the run (the console keeps its
    /// transcript); "Show me" types the solution in the console.
    fn lesson(&mut self, msg: LessonMsg) -> Action {
        if msg == LessonMsg::ShowMe {
            // Queued as typed lines are, so that a long `wait` among them runs in slices.
            self.branch();
            self.queue_lines(self.lessons.solution());
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
        if !self.transcript.is_empty() {
            self.push(ConsoleEntry::divider(&session.config));
        }
        self.loaded = None;
        self.playback = None;
        self.long = LongRun::default();
        self.settings = session.config.clone();
        self.session = session;
        self.ahead = None;
        self.recorder = Recorder::default();
        self.carry_ms = 0.0;
        self.observe();
    }

    /// The loaded run again from its start: a fresh session of its settings (a divider in
    /// the console), its commands to run as the clock reaches them.
    fn play_from_start(&mut self) -> Action {
        let Some(shared) = self.loaded.clone() else {
            return Action::Refresh;
        };
        self.push(ConsoleEntry::divider(&shared.settings));
        self.session = fresh_session(&shared.settings, false);
        self.settings = shared.settings.clone();
        self.ahead = None;
        self.recorder = Recorder::default();
        self.carry_ms = 0.0;
        self.playback = Some(Playback {
            lines: script::parse(&shared.script).into(),
            wait_left: 0,
        });
        self.observe();
        Action::Play
    }

    /// Plays up to `budget` ms of the loaded run: its `wait`s as time, its other commands as
    /// they come. What is left of the budget once the script is done.
    fn play_back(&mut self, mut budget: Millis) -> Millis {
        while let Some(playback) = &mut self.playback {
            if playback.wait_left > 0 {
                let ms = playback.wait_left.min(budget);
                playback.wait_left -= ms;
                budget -= ms;
                self.session.run_for(ms);
                if budget == 0 {
                    return 0;
                }
                continue;
            }
            let Some(line) = playback.lines.pop_front() else {
                self.playback = None;
                break;
            };
            let wait = line
                .text
                .strip_prefix("wait ")
                .and_then(crate::base::parse_duration);
            match (wait, &mut self.playback) {
                (Some(ms), Some(playback)) => playback.wait_left = ms,
                _ => {
                    let time_ms = self.world().now();
                    let out = self.session.execute(&line.text, line.stdin.as_deref());
                    self.push(ConsoleEntry::new(EntryKind::Replayed, time_ms, &line, &out));
                }
            }
        }
        budget
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
        self.recorder.forget_after(self.world().now());
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

/// What waits for the console's long run to end: time itself, and what would act on the
/// world under it (commands typed meanwhile are queued after it instead).
fn waits_for_the_long_run(msg: &Msg) -> bool {
    matches!(
        msg,
        Msg::Frame { .. }
            | Msg::Step
            | Msg::Follow(_)
            | Msg::Scrub(_)
            | Msg::PlayFromStart
            | Msg::Lesson(_)
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
            view.notice = Some(bad_link_notice(lang, &e));
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
        Msg::SetWorld(preset) => {
            next.preset = *preset;
            next.members = preset
                .fixed_members()
                .unwrap_or(Settings::default().members);
        }
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

    /// `wait 600s` runs in slices: frames add no time meanwhile, a line typed meanwhile waits
    /// its turn, and the transcript ends as the CLI's.
    #[test]
    fn a_long_wait_runs_in_slices_and_queues_what_is_typed_meanwhile() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let start = lab.world().now();
        lab.apply(Msg::Command("wait 600s".into()));
        let p = lab.long_run().expect("still running");
        assert_eq!((p.done_ms, p.total_ms), (FIRST_SLICE_MS, 600_000));
        let pace = Pace::steady(1.0);
        lab.apply(Msg::Frame {
            real_ms: 50.0,
            pace,
        });
        assert_eq!(lab.world().now(), start + FIRST_SLICE_MS, "a frame waits");
        lab.apply(Msg::Command("etcdctl put k v".into()));
        assert_eq!(lab.long_run().map(|p| p.queued), Some(1));
        let behind = "a line typed behind it runs no slice of its own";
        assert_eq!(lab.world().now(), start + FIRST_SLICE_MS, "{behind}");
        while lab.long_run().is_some() {
            lab.apply(Msg::Continue(50_000));
        }
        assert!(
            lab.world().now() > start + 600_000,
            "the put came after the wait"
        );
        let lines: Vec<&str> = lab.transcript.iter().map(|e| e.line.as_str()).collect();
        assert_eq!(lines, ["wait leader", "wait 600s", "etcdctl put k v"]);
        assert_eq!(lab.transcript[2].time_ms, start + 600_000);
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
    fn start_fresh_asks_first_then_forgets_the_run_the_console_and_the_lessons() {
        let settings = Settings {
            members: 5,
            seed: 9,
            ..Settings::default()
        };
        let mut lab = Lab::new(settings);
        lab.apply(Msg::Command("etcdctl put k v".into()));
        assert!(!lab.transcript().is_empty());
        assert!(
            Msg::StartFresh.restarts(),
            "it loses the commands: the page asks"
        );
        let revision = lab.revision();
        assert_eq!(lab.apply(Msg::StartFresh), Action::StartedFresh);
        assert_eq!(lab.settings(), &Settings::default());
        assert!(lab.transcript().is_empty());
        assert!(lab
            .session()
            .history()
            .iter()
            .all(|e| e.line == UI_NETWORK_SETUP));
        assert_eq!(lab.lessons().mark(), share::LessonMark::default());
        assert!(lab.revision() > revision, "the page renders the fresh run");
    }

    #[test]
    fn a_restored_run_reads_as_it_was_left() {
        let mut lab = Lab::new(Settings::default());
        lab.apply(Msg::Command("etcdctl put k v".into()));
        let kept = lab.transcript().to_vec();
        let (replayed, _) = Lab::replay(Shared {
            settings: lab.settings().clone(),
            script: lab.session().export_script(),
        });
        assert!(replayed.can_play_from_start());
        assert_ne!(
            replayed.transcript(),
            &kept[..],
            "a replay prints its own lines"
        );
        let restored = replayed.clone().restored(Some(kept.clone()));
        assert_eq!(restored.transcript(), &kept[..]);
        assert!(
            !restored.can_play_from_start(),
            "the user's own run, not a link's"
        );
        assert_eq!(restored.world().now(), lab.world().now());
        let unkept = replayed.clone().restored(None);
        assert_eq!(unkept.transcript(), replayed.transcript());
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
        let shown: Vec<(EntryKind, &str, &str)> = lab
            .transcript()
            .iter()
            .map(|e| (e.kind, e.line.as_str(), e.stdout.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                (EntryKind::Replayed, "wait leader", ""),
                (EntryKind::Replayed, "etcdctl put k v", "OK\n")
            ],
            "the console shows what the link replayed, marked as replayed"
        );
        assert!(lab.can_play_from_start());
    }

    #[test]
    fn a_loaded_run_plays_again_from_its_start_as_time_passes() {
        let script = "wait leader\nwait 1s\netcdctl put k v\nkill m1\nwait 2s\n";
        let shared = Shared {
            settings: Settings::default(),
            script: script.into(),
        };
        let (mut lab, _) = Lab::replay(shared);
        let replayed_end = lab.world().now();
        let replayed_export = lab.session().export_script();
        assert_eq!(lab.apply(Msg::PlayFromStart), Action::Play);
        assert_eq!(lab.world().now(), 0);
        assert_eq!(
            lab.transcript().last().map(|e| e.kind),
            Some(EntryKind::NewRun)
        );
        let mut frames = 0;
        while lab.is_playing_back() {
            lab.apply(Msg::Frame {
                real_ms: 50.0,
                pace: Pace::steady(1.0),
            });
            frames += 1;
            assert!(frames < 1_000, "the playback ends");
        }
        assert!(
            frames > 40,
            "the waits are played out frame by frame, not at once"
        );
        assert!(lab.world().now() >= replayed_end);
        // The same commands at the same moments; only the idle time after the last differs
        // (frames run past the end).
        let commands = |script: &str| -> Vec<String> {
            let lines: Vec<String> = script.lines().map(str::to_string).collect();
            let last = lines
                .iter()
                .rposition(|l| !l.starts_with("wait "))
                .unwrap_or(0);
            lines[..=last].to_vec()
        };
        assert_eq!(
            commands(&lab.session().export_script()),
            commands(&replayed_export)
        );
        let put = lab
            .transcript()
            .iter()
            .rev()
            .find(|e| e.line == "etcdctl put k v");
        assert_eq!(
            put.map(|e| (e.kind, e.stdout.as_str())),
            Some((EntryKind::Replayed, "OK\n"))
        );
    }

    #[test]
    fn a_command_during_the_playback_takes_the_run_over() {
        let shared = Shared {
            settings: Settings::default(),
            script: "wait leader\nwait 5s\netcdctl put k v\n".into(),
        };
        let (mut lab, _) = Lab::replay(shared);
        lab.apply(Msg::PlayFromStart);
        lab.apply(Msg::Frame {
            real_ms: 50.0,
            pace: Pace::steady(1.0),
        });
        lab.apply(Msg::Command("status".into()));
        assert!(!lab.is_playing_back());
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

    /// The console renders again by `transcript_edits`: every change to the transcript moves
    /// it (a command, a clear, a fresh start), and a frame does not.
    #[test]
    fn every_change_to_the_transcript_is_counted() {
        let mut lab = lab();
        let mut seen = vec![lab.transcript_edits()];
        let mut moved = |lab: &Lab, why: &str| {
            assert!(
                !seen.contains(&lab.transcript_edits()),
                "{why}: not counted"
            );
            seen.push(lab.transcript_edits());
        };
        lab.apply(Msg::Command("etcdctl put k v".into()));
        moved(&lab, "a command");
        let edits = lab.transcript_edits();
        lab.apply(Msg::Frame {
            real_ms: 50.0,
            pace: Pace::steady(1.0),
        });
        assert_eq!(lab.transcript_edits(), edits, "a frame");
        lab.apply(Msg::ClearConsole);
        moved(&lab, "a clear");
        lab.apply(Msg::Command("status".into()));
        moved(&lab, "another command");
        lab.apply(Msg::StartFresh);
        moved(&lab, "a fresh start");
    }

    /// The panels render again by `shown_revision`: a frame in which only the clock moved
    /// leaves it, an event of the world or a command moves it.
    #[test]
    fn only_a_frame_with_an_event_changes_what_the_panels_show() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let frame = |lab: &mut Lab, ms: Millis| {
            lab.apply(Msg::Frame {
                real_ms: ms as f64,
                pace: Pace::steady(1.0),
            })
        };
        let gap = |lab: &Lab| lab.world().next_event_time().map(|t| t - lab.world().now());
        while gap(&lab).is_none_or(|g| g < 3) {
            frame(&mut lab, 1);
        }
        let (shown, revision) = (lab.shown_revision(), lab.revision());
        frame(&mut lab, 1);
        assert_eq!(lab.shown_revision(), shown, "the clock alone moved");
        assert_eq!(
            lab.revision(),
            revision + 1,
            "the ring and the clock follow it"
        );
        let to_next = gap(&lab).unwrap_or(1);
        frame(&mut lab, to_next);
        // Within PANELS_FOLLOW_MS of real time since the panels last followed the world.
        for _ in 0..PANELS_FOLLOW_MS as u64 {
            if lab.shown_revision() > shown {
                break;
            }
            frame(&mut lab, 1);
        }
        assert!(lab.shown_revision() > shown, "an event happened");
        let shown = lab.shown_revision();
        lab.apply(Msg::Command("status".into()));
        assert!(lab.shown_revision() > shown, "a command was run");
    }

    /// The control plane's every tick changes what its panel draws.
    #[test]
    fn at_speed_the_panels_follow_the_world_ten_times_a_second_and_a_command_at_once() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        lab.apply(Msg::Command("kube up".into()));
        while !lab.long.is_idle() {
            lab.apply(Msg::Continue(FIRST_SLICE_MS));
        }
        let steps = lab.world().steps();
        let (shown, vsync) = (lab.shown_revision(), 1000.0 / 60.0);
        let mut last_followed = f64::MIN;
        // Two seconds of 60 frames a second at 10×: something happens in most frames.
        for frame in 0..120 {
            let before = lab.shown_revision();
            lab.apply(Msg::Frame {
                real_ms: vsync,
                pace: Pace::steady(10.0),
            });
            if lab.shown_revision() != before {
                let at = f64::from(frame) * vsync;
                // Never sooner, even when they come along with a step of the clock.
                assert!(at - last_followed >= PANELS_FOLLOW_MS - ALIGN_MS - 0.5);
                last_followed = at;
            }
        }
        assert!(lab.world().steps() > steps + 120, "the world was busy");
        let followed = lab.shown_revision() - shown;
        let most = (2000.0 / (PANELS_FOLLOW_MS - ALIGN_MS)) as u64;
        assert!((10..=most).contains(&followed), "{followed} of {most}");
        let shown = lab.shown_revision();
        lab.apply(Msg::Command("status".into()));
        assert_eq!(lab.shown_revision(), shown + 1, "a command shows at once");
    }

    #[test]
    fn frames_play_virtual_time_at_the_speed_and_carry_fractions() {
        let mut lab = lab();
        let start = lab.world().now();
        for _ in 0..4 {
            let action = lab.apply(Msg::Frame {
                real_ms: 10.0,
                pace: Pace::steady(0.25),
            });
            assert!(matches!(action, Action::Refresh | Action::Quiet));
        }
        assert_eq!(lab.world().now() - start, 10, "four frames of 2.5 ms");
        lab.apply(Msg::Frame {
            real_ms: 5_000.0,
            pace: Pace::steady(1.0),
        });
        assert_eq!(
            lab.world().now() - start,
            110,
            "a stalled frame counts as 100 ms"
        );
    }

    /// The frame loop sleeps as long as `sleep_ms` says, about once per step of the clock
    /// (the events wait for it to show, unless a member notes something); waking at its end shows
    /// something; every message the world sent while the page slept had been foreseen
    /// exactly, so that the ring drew it gliding from the moment it was sent; and the world
    /// is foreseen about a second ahead at a time, so new dots come in bunches.
    #[test]
    fn the_frame_loop_sleeps_while_the_ring_draws_what_was_foreseen() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let pace = Pace::steady(0.2);
        lab.apply(Msg::Frame { real_ms: 1.0, pace });
        let (mut wakes, mut shown, mut slept, mut sent, mut foresights) = (0, 0, 0.0, 0, 0);
        let mut before = lab.foreseen().1;
        while slept < 10_000.0 {
            let sleep = lab.sleep_ms(pace);
            let (_, foreseen) = lab.foreseen();
            foresights += usize::from(!Rc::ptr_eq(&before, &foreseen));
            before = foreseen.clone();
            let cursor = lab.world().wire_seq();
            if lab.apply(Msg::Frame {
                real_ms: sleep,
                pace,
            }) != Action::Quiet
            {
                shown += 1;
            }
            for w in lab.world().wire_since(cursor).filter(|w| w.lost.is_none()) {
                assert!(
                    foreseen.contains(&w.message),
                    "#{} sent at {} unforeseen",
                    w.message.id,
                    w.message.sent_ms
                );
                sent += 1;
            }
            wakes += 1;
            slept += sleep;
        }
        let steps = (10_000.0 * pace.speed / clock_step(pace.speed) as f64) as usize;
        assert!(
            (steps..=steps * 5 / 4).contains(&wakes),
            "{wakes} wakes in 10 s, {steps} steps of the clock"
        );
        assert!(sent >= 50, "{sent} messages sent");
        assert!(
            shown * 10 >= wakes * 9,
            "{shown} of {wakes} wakes showed something"
        );
        // Foreseen about a second ahead at a time: new dots come in bunches.
        assert!((8..=15).contains(&foresights), "{foresights} foresights");
        assert!(lab.foresight.until > lab.world().now());
        lab.apply(Msg::Command("etcdctl put k v".into()));
        assert_eq!(lab.foresight.until, 0, "a command changes the run's course");
    }

    /// With the control plane up, what it writes at its ticks changes the world's course:
    /// the foresight ends at each tick, and every message sent while the page slept was
    /// foreseen, but those sent from a tick on (the page wakes at each tick; a busy tick
    /// waits for its requests' answers, and what it sends meanwhile shows after it).
    #[test]
    fn the_control_plane_ticks_end_what_was_foreseen() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        lab.apply(Msg::Command("kube up".into()));
        let pace = Pace::steady(0.2);
        // The control plane's ticks catch up with the time `kube up` took.
        lab.apply(Msg::Frame {
            real_ms: 50.0,
            pace,
        });
        let (mut slept, mut sent, mut ticks) = (0.0, 0, 0);
        while slept < 20_000.0 {
            let sleep = lab.sleep_ms(pace);
            let (_, foreseen) = lab.foreseen();
            let (cursor, tick) = (lab.world().wire_seq(), lab.kube_tick());
            lab.apply(Msg::Frame {
                real_ms: sleep,
                pace,
            });
            let now = lab.world().now();
            ticks += usize::from(now > tick);
            for w in lab.world().wire_since(cursor).filter(|w| w.lost.is_none()) {
                let m = &w.message;
                assert!(
                    (now >= tick && m.sent_ms >= tick) || foreseen.contains(m),
                    "#{} sent at {} unforeseen (woke at {now}, tick {tick})",
                    m.id,
                    m.sent_ms
                );
                sent += 1;
            }
            assert!(lab.foresight.until == 0 || lab.foresight.tick >= now);
            slept += sleep;
        }
        assert!(ticks >= 5, "{ticks} ticks");
        assert!(sent >= 50, "{sent} messages sent");
    }

    /// The browser's loop, frames on a 60 Hz grid, each after the sleep `sleep_ms` asked for:
    /// the events, the panels and the clock show together, one drawing per step of the clock
    /// (four a second at the default speed, five at 10×), never two a frame or two apart.
    #[test]
    fn on_a_vsync_grid_the_page_draws_once_per_step_of_the_clock() {
        for (members, speed) in [(5, 0.2), (11, 10.0)] {
            let mut lab = Lab::new(Settings {
                members,
                seed: 1,
                ..Settings::default()
            });
            // The members' first entries (the leader's, its publish, the cluster's version)
            // are behind it: from then on only heartbeats.
            lab.apply(Msg::Command("wait leader".into()));
            lab.apply(Msg::Command("wait 5s".into()));
            let pace = Pace::steady(speed);
            let vsync: f64 = 1000.0 / 60.0;
            let (mut due, mut played, mut last_drawing) = (0.0, 0.0, f64::MIN);
            let (mut drawings, mut panels) = (0, 0);
            while played < 20_000.0 {
                let frame = (due / vsync).ceil() * vsync;
                let shown = lab.shown;
                let action = lab.apply(Msg::Frame {
                    real_ms: frame - played,
                    pace,
                });
                played = frame;
                if action != Action::Quiet {
                    assert!(
                        frame - last_drawing > 2.5 * vsync,
                        "{members} members at {speed}x: drawings at {last_drawing:.0} and {frame:.0} ms"
                    );
                    (drawings, last_drawing) = (drawings + 1, frame);
                }
                panels += usize::from(lab.shown != shown);
                let sleep = lab.sleep_ms(pace);
                due = frame + if sleep < FRAME_SLEEP_MS { 1.0 } else { sleep };
            }
            let steps = 20_000.0 * speed / clock_step(speed) as f64;
            assert!(
                (drawings as f64 - steps).abs() <= steps / 20.0,
                "{members} members at {speed}x: {drawings} drawings in 20 s, {steps} steps"
            );
            // Heartbeats only: nothing a panel draws changes.
            assert!(
                panels <= 2,
                "{members} members at {speed}x: the panels {panels} times"
            );
        }
    }

    /// Played unwatched on a 60 Hz grid, each frame after the sleep `sleep_ms` asked for, the
    /// heartbeats wait for the clock's step (`EVENTS_FOLLOW_MS`), but what a member notes (the
    /// election after the leader's crash: campaigns, votes, a new leader) shows within
    /// `NOTES_FOLLOW_MS` and a frame of happening: the run foresaw it.
    #[test]
    fn what_a_member_notes_shows_sooner_than_the_heartbeats() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let pace = Pace::steady(0.2);
        let vsync: f64 = 1000.0 / 60.0;
        let (mut due, mut played, mut killed) = (0.0, 0.0, false);
        let (mut drawn_at, mut shown, mut worst) = (lab.world().now(), 0, 0.0f64);
        while played < 20_000.0 {
            if played >= 1_000.0 && !killed {
                let leader = lab.world().leader().expect("a leader");
                lab.apply(Msg::Command(format!("kill {leader}")));
                (killed, drawn_at) = (true, lab.world().now());
            }
            let frame = (due / vsync).ceil() * vsync;
            let action = lab.apply(Msg::Frame {
                real_ms: frame - played,
                pace,
            });
            played = frame;
            if action != Action::Quiet {
                let now = lab.world().now();
                for e in lab.world().recent_events(100) {
                    if e.time_ms > drawn_at && e.time_ms <= now {
                        worst = worst.max((now - e.time_ms) as f64 / pace.speed);
                        shown += 1;
                    }
                }
                drawn_at = now;
            }
            let sleep = lab.sleep_ms(pace);
            due = frame + if sleep < FRAME_SLEEP_MS { 1.0 } else { sleep };
        }
        assert!(shown >= 3, "{shown} events of the election shown");
        assert!(
            worst <= NOTES_FOLLOW_MS + vsync + 1.0,
            "an event of the election shown {worst:.0} ms after it happened"
        );
    }

    /// What a panel draws follows the world within `PANELS_FOLLOW_MS` (and a frame) of its
    /// change: a write reaching the followers, an election after the leader's crash.
    #[test]
    fn the_panels_follow_what_changes_and_only_that() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let pace = Pace::steady(1.0);
        let vsync: f64 = 1000.0 / 60.0;
        let (mut played, mut stale_since, mut panels): (f64, Option<f64>, usize) = (0.0, None, 0);
        while played < 10_000.0 {
            if (played - 1000.0).abs() < vsync / 2.0 {
                lab.apply(Msg::Command("etcdctl put a 1".into()));
            }
            if (played - 3000.0).abs() < vsync / 2.0 {
                let leader = lab.world().leader().expect("a leader");
                lab.apply(Msg::Command(format!("kill {leader}")));
            }
            let shown = lab.shown;
            lab.apply(Msg::Frame {
                real_ms: vsync,
                pace,
            });
            played += vsync;
            panels += usize::from(lab.shown != shown);
            stale_since =
                (lab.panels_show() != lab.shown_at).then(|| stale_since.unwrap_or(played));
            let stale = stale_since.map_or(0.0, |since| played - since);
            assert!(
                stale <= PANELS_FOLLOW_MS + vsync,
                "at {played:.0} ms the panels are {stale:.0} ms behind"
            );
        }
        // The put's commit on the followers, the crash's election: a few, not 60 a second.
        assert!((2..=30).contains(&panels), "the panels {panels} times");
    }

    /// A sleep is no stall: the frame after it plays all of it; a frame longer than the sleep
    /// by more than `MAX_FRAME_MS` (a hidden tab) is cut short.
    #[test]
    fn a_frame_after_a_long_sleep_plays_it_all_and_a_stall_is_cut() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let pace = Pace::steady(0.001);
        lab.apply(Msg::Frame { real_ms: 1.0, pace });
        let sleep = lab.sleep_ms(pace);
        assert_eq!(
            sleep, MAX_SLEEP_MS,
            "1 ms of virtual time is a second of real time"
        );
        let (start, epoch) = (lab.world().now(), lab.timeline().epoch);
        lab.apply(Msg::Frame {
            real_ms: sleep,
            pace,
        });
        assert_eq!(lab.world().now() - start, 1);
        assert_eq!(lab.timeline().epoch, epoch, "the dots glide on");
        lab.sleep_ms(pace);
        lab.apply(Msg::Frame {
            real_ms: 60_000.0,
            pace,
        });
        assert_ne!(lab.timeline().epoch, epoch, "a stall starts a new timeline");
    }

    #[test]
    fn a_frame_that_changes_nothing_shown_asks_for_no_drawing() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader".into()));
        let frame = |lab: &mut Lab| {
            lab.apply(Msg::Frame {
                real_ms: 1.0,
                pace: Pace::steady(1.0),
            })
        };
        frame(&mut lab); // the first frame starts the timeline at this speed
        let (mut quiet, mut drawn) = (0, 0);
        for _ in 0..1_000 {
            let speed = lab.timeline().speed;
            let (steps, clock) = (
                lab.world().steps(),
                shown_time(lab.world().now(), true, speed),
            );
            match frame(&mut lab) {
                Action::Quiet => {
                    quiet += 1;
                    assert_eq!(lab.world().steps(), steps, "an event is drawn");
                    let now = lab.world().now();
                    assert_eq!(shown_time(now, true, speed), clock, "the clock too");
                }
                Action::Refresh => drawn += 1,
                other => panic!("{other:?}"),
            }
        }
        assert!(quiet > 500 && drawn >= 50, "{quiet} quiet, {drawn} drawn");
        let epoch = lab.timeline().epoch;
        lab.apply(Msg::Frame {
            real_ms: 1.0,
            pace: Pace::steady(2.0),
        });
        assert!(
            lab.timeline().epoch > epoch,
            "a new speed is a new timeline"
        );
        let epoch = lab.timeline().epoch;
        assert_ne!(
            frame(&mut lab),
            Action::Quiet,
            "and so is the old one again"
        );
        assert!(lab.timeline().epoch > epoch);
        let epoch = lab.timeline().epoch;
        lab.apply(Msg::Command("wait 1s".into()));
        assert!(lab.timeline().epoch > epoch, "a command jumps the timeline");
    }

    /// A frame of 100 ms at 1× can hold a whole election; watched, it stops where the
    /// campaign starts (and plays it slowed from there) and ends where the new leader is.
    #[test]
    fn a_watched_frame_slows_at_the_campaign_and_ends_at_the_new_leader() {
        for slow in [Some(0.1), None] {
            let mut lab = lab();
            lab.apply(Msg::Command("wait leader".into()));
            let first = lab.world().leader();
            lab.apply(Msg::Command("kill leader".into()));
            let new_leader = |w: &World| w.leader().is_some_and(|l| Some(l) != first);
            let mut probe = lab.world().clone();
            assert!(probe.run_until_cond(10_000, new_leader));
            let pace = Pace {
                speed: 1.0,
                slow,
                stop_at_new_leader: true,
            };
            let mut campaign_frames = 0;
            while !new_leader(lab.world()) {
                lab.apply(Msg::Frame {
                    real_ms: 100.0,
                    pace,
                });
                campaign_frames += usize::from(crate::ui::view::worth_slowing(lab.world()));
            }
            assert_eq!(
                lab.world().now(),
                probe.now(),
                "{slow:?}: the frame ends there"
            );
            if slow.is_some() {
                assert!(
                    campaign_frames >= 5,
                    "the campaign is seen frame after frame, slowed: {campaign_frames}"
                );
            }
        }
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
        lab.apply(Msg::Command("status".into()));
        lab.apply(Msg::Command("clear".into()));
        assert!(
            lab.transcript().is_empty(),
            "`clear` does what the button does"
        );
    }

    #[test]
    fn pasted_lines_and_heredocs_run_as_a_script_reads_them() {
        let mut lab = lab();
        lab.apply(Msg::Command("wait leader\nkube up\nwait 3s\n".into()));
        assert!(
            lab.long_run().is_none(),
            "a short script ends as it is typed"
        );
        assert_eq!(lab.transcript().len(), 3, "one entry per pasted line");
        let apply = "kubectl apply -f - <<EOF\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\nEOF";
        lab.apply(Msg::Command(apply.into()));
        let last = lab.transcript().last().expect("an entry");
        assert_eq!(last.line, "kubectl apply -f -");
        assert!(last
            .stdin
            .as_deref()
            .is_some_and(|s| s.starts_with("apiVersion: apps/v1\n")));
        assert_eq!(
            (last.stdout.as_str(), last.code),
            ("deployment.apps/web created\n", 0),
            "{}",
            last.stderr
        );
    }

    #[test]
    fn a_heredoc_waits_for_its_marker_typed_or_pasted() {
        let mut c = Continuation::default();
        assert_eq!(c.enter("   "), None);
        assert!(c.lines().is_empty(), "a blank line is nothing");
        assert_eq!(c.enter("kubectl apply -f - <<EOF"), None);
        assert_eq!(c.awaiting().as_deref(), Some("EOF"));
        assert_eq!(c.enter("metadata:"), None);
        assert_eq!(c.enter(""), None);
        assert_eq!(c.enter("  name: web"), None);
        assert_eq!(
            c.enter("EOF").as_deref(),
            Some("kubectl apply -f - <<EOF\nmetadata:\n\n  name: web\nEOF")
        );
        assert!(c.lines().is_empty() && c.awaiting().is_none());
        assert_eq!(c.enter("etcdctl put k \\"), None, "a backslash goes on");
        assert_eq!(c.enter("v").as_deref(), Some("etcdctl put k \\\nv"));
        let (ready, rest) = c.paste(
            "status",
            "\nkubectl apply -f - <<EOF\r\nkind: Pod\nEOF\nwait 1s\nkill",
        );
        assert_eq!(
            ready,
            [
                "status",
                "kubectl apply -f - <<EOF\nkind: Pod\nEOF",
                "wait 1s"
            ]
        );
        assert_eq!(rest, "kill");
        let (ready, rest) = c.paste("", "write f <<EOF\nhalf\n");
        assert!(ready.is_empty() && rest.is_empty());
        assert_eq!(c.lines(), ["write f <<EOF", "half"]);
        c.cancel();
        assert!(c.lines().is_empty());
    }

    #[test]
    fn tables_keep_their_columns() {
        let entry = |stdout: &str| ConsoleEntry {
            stdout: stdout.to_string(),
            ..ConsoleEntry::divider(&Settings::default())
        };
        assert!(entry("NAME    READY   STATUS\nweb-1   1/1     Running\n").is_tabular());
        assert!(entry("+------+\n| ID |\n").is_tabular());
        assert!(entry("NAME  STATE  TERM\n").is_tabular());
        assert!(!entry("OK\n").is_tabular());
        assert!(!entry("{\"header\":{}}\n").is_tabular());
        assert!(!entry("deployment.apps/web created\n").is_tabular());
    }

    #[test]
    fn every_hint_is_worded_in_both_languages() {
        use crate::console::Hint as H;
        let hints = [
            H::NoSuchEndpoint {
                endpoint: "m9".into(),
            },
            H::NoTls {
                endpoint: "https://m2:2379".into(),
            },
            H::NeedsTls {
                endpoint: "127.0.0.1:2379".into(),
            },
            H::UnknownCa {
                endpoint: "https://127.0.0.1:2379".into(),
            },
            H::NoClientCert {
                endpoint: "https://127.0.0.1:2379".into(),
            },
            H::EndpointDown {
                member: "m1".into(),
                up: vec!["m2".into()],
            },
            H::EndpointDown {
                member: "m1".into(),
                up: vec![],
            },
            H::NoQuorum {
                reachable: 1,
                quorum: 2,
            },
            H::CutOff {
                member: "m2".into(),
            },
            H::Electing,
            H::KubeNotUp,
        ];
        for hint in &hints {
            let en = super::super::i18n::console_hint(Lang::En, hint);
            let zh = super::super::i18n::console_hint(Lang::ZhTw, hint);
            assert!(en.is_ascii() && !en.is_empty(), "{en}");
            assert!(
                zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{zh}"
            );
        }
    }

    #[test]
    fn a_failed_request_carries_the_hint_to_the_console() {
        let mut lab = lab();
        lab.apply(Msg::Command("kubectl get pods".into()));
        assert_eq!(lab.transcript()[0].hint, Some(Hint::KubeNotUp));
        lab.apply(Msg::Command("wait leader".into()));
        assert_eq!(
            lab.console_endpoint(),
            (
                "m1".to_string(),
                vec!["m1".into(), "m2".into(), "m3".into()],
                false
            )
        );
        lab.apply(Msg::Command("kill m1".into()));
        assert_eq!(lab.console_endpoint().0, "m2");
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
    fn the_world_choice_starts_the_articles_kubeadm_cluster_and_back() {
        let mut lab = lab();
        assert_eq!(
            lab.apply(Msg::SetWorld(crate::etcd::Preset::Kubeadm)),
            Action::NewRun
        );
        assert_eq!(lab.settings().flags(), "--world kubeadm --seed 1");
        lab.apply(Msg::Command(
            "kubectl get pods -n kube-system | grep etcd".into(),
        ));
        let pods = lab
            .session()
            .transcript()
            .last()
            .map(|e| e.stdout.clone())
            .unwrap_or_default();
        assert!(pods.starts_with("etcd-master "), "{pods:?}");
        assert_eq!(
            lab.apply(Msg::SetWorld(crate::etcd::Preset::Members)),
            Action::NewRun
        );
        assert_eq!(lab.settings().flags(), "--members 3 --seed 1");
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
        let kinds: Vec<EntryKind> = lab.transcript().iter().map(|e| e.kind).collect();
        assert_eq!(kinds[0], EntryKind::Typed);
        assert_eq!(
            kinds.len(),
            5,
            "the old output stays, a divider per new run"
        );
        assert!(kinds[1..].iter().all(|k| *k == EntryKind::NewRun));
        assert_eq!(
            lab.transcript().last().map(|e| e.line.as_str()),
            Some(lab.settings().flags().as_str())
        );
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
    fn loading_replaces_the_run_below_a_divider() {
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
        let kinds: Vec<EntryKind> = lab.transcript().iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [EntryKind::Typed, EntryKind::NewRun, EntryKind::Replayed]
        );
        let view = reduce(View::new(Lang::En, false), Action::Loaded(None));
        assert!(!view.playing);
    }
}
