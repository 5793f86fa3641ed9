//! What the page shows, apart from the run itself: the open tab, the selection, play/pause
//! and speed, the language, a notice. `reduce` is a pure function of the state and an
//! action; the run (`super::lab::Lab`) lives beside it and reports what it did as an action.

use super::i18n::Lang;
use super::lab::Msg;
use crate::base::{MemberId, Millis};
use crate::etcd::Cluster as World;
use crate::raft::{NodeEvent, RoleName};

pub const DEFAULT_SPEED_LOG10: f64 = -0.7; // 0.2×: slow enough to see a heartbeat travel
const SPEED_LOG10_MIN: f64 = -2.0;
const SPEED_LOG10_MAX: f64 = 2.0;
/// Slow motion plays the moments that matter ten times slower than the chosen speed: at the
/// default 0.2× an election (about 120 virtual ms) then lasts some 6 s instead of 0.6 s.
pub const SLOW_MOTION_FACTOR: f64 = 0.1;
/// "Replay the last election" starts this long before the first campaign of it, so the class
/// sees the election timer run out.
pub const REPLAY_LEAD_MS: Millis = 250;

/// A message for the user that is not console output (a bad URL, an import, a download).
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
}

impl Notice {
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            error: false,
            text: text.into(),
        }
    }

    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            error: true,
            text: text.into(),
        }
    }
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

impl Tab {
    /// In the order the tab list shows them.
    pub const ALL: [Tab; 7] = [
        Tab::Logs,
        Tab::SpaceTime,
        Tab::Network,
        Tab::Rules,
        Tab::Share,
        Tab::Keys,
        Tab::Kube,
    ];

    /// The tab's name in `data-tab` and in the session the browser keeps.
    pub fn key(self) -> &'static str {
        match self {
            Tab::Logs => "logs",
            Tab::SpaceTime => "space-time",
            Tab::Network => "network",
            Tab::Rules => "rules",
            Tab::Share => "share",
            Tab::Keys => "keys",
            Tab::Kube => "kube",
        }
    }

    pub fn by_key(key: &str) -> Option<Tab> {
        Tab::ALL.into_iter().find(|t| t.key() == key)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub playing: bool,
    pub speed_log10: f64,
    pub lang: Lang,
    pub presenter: bool,
    pub tab: Tab,
    /// The member whose key-value store the Keys tab shows (None: the leader, or m1).
    pub kv_member: Option<MemberId>,
    /// The Kubernetes tab follows the last kubectl change end to end.
    pub follow: bool,
    /// The Logs tab shows this entry instead of the most recent ones.
    pub log_focus: Option<u64>,
    /// The message whose fields are shown (clicked in the cluster or the diagram).
    pub selected_message: Option<u64>,
    pub notice: Option<Notice>,
    /// Slow motion around elections and proposals; None: the mode's default (on when
    /// presenting).
    pub slow_motion: Option<bool>,
    /// Pause the run when the leader changes.
    pub pause_on_leader_change: bool,
    /// The "start here" card; None: as the visitor left it (remembered by the page).
    pub onboarding: Option<bool>,
    /// The "?" legend drawn over the picture.
    pub legend: bool,
    /// The console drawer is open (it always shows its input and last lines).
    pub drawer: bool,
    /// A change that would start the run over, waiting for the user's yes.
    pub confirm: Option<Box<Msg>>,
}

/// How a scrub of the time slider went.
#[derive(Clone, Debug, PartialEq)]
pub enum Scrubbed {
    /// Already at that moment.
    Stayed,
    Moved,
    /// The engine could not go there; its reason.
    Failed(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Play,
    Pause,
    TogglePlay,
    SetSpeed(f64),
    SetLang(Lang),
    SetPresenter(bool),
    SetTab(Tab),
    ShowKeysOf(MemberId),
    Follow(bool),
    /// Show one Raft entry in the Logs tab (None: the most recent entries again).
    ShowEntry(Option<u64>),
    SelectMessage(Option<u64>),
    Notify(Notice),
    DismissNotice,
    /// The run started over: what was selected in the old one is gone.
    NewRun,
    /// A scrub of the time slider (which holds the run still).
    Scrubbed(Scrubbed),
    /// A script replayed from the start; the errors it printed, if it failed.
    Loaded(Option<String>),
    /// The run moved on; nothing the view holds changed.
    Refresh,
    /// A frame moved the run less than anything on the page shows: nothing to draw again.
    Quiet,
    SetSlowMotion(bool),
    SetPauseOnLeaderChange(bool),
    /// The leader changed while the run played (pauses it when asked to).
    LeaderChanged,
    ShowOnboarding(bool),
    ShowLegend(bool),
    SetDrawer(bool),
    /// Ask before this change starts the run over (it has history to lose).
    Confirm(Box<Msg>),
    /// The question was answered (the change itself is sent apart when the answer is yes).
    Answered,
    /// The kept session was forgotten: the page as a first visit finds it, in the same
    /// language and mode.
    StartedFresh,
}

impl View {
    pub fn new(lang: Lang, presenter: bool) -> View {
        View {
            playing: true,
            speed_log10: DEFAULT_SPEED_LOG10,
            lang,
            presenter,
            tab: Tab::Logs,
            kv_member: None,
            follow: false,
            log_focus: None,
            selected_message: None,
            notice: None,
            slow_motion: None,
            pause_on_leader_change: false,
            onboarding: None,
            legend: false,
            drawer: false,
            confirm: None,
        }
    }

    pub fn slow_motion_on(&self) -> bool {
        self.slow_motion.unwrap_or(self.presenter)
    }

    /// How the animation clock plays the run: at the speed, slower while something worth
    /// watching happens, and ending a frame at a new leader when the run pauses there.
    pub fn pace(&self) -> Pace {
        Pace {
            speed: self.speed(),
            slow: self
                .slow_motion_on()
                .then(|| self.speed() * SLOW_MOTION_FACTOR),
            stop_at_new_leader: self.pause_on_leader_change,
        }
    }

    /// Virtual milliseconds per real millisecond.
    pub fn speed(&self) -> f64 {
        10f64.powf(self.speed_log10)
    }
}

/// What the clock prints moves in steps of at least this (virtual ms).
pub const CLOCK_STEP_MS: u64 = 10;
/// While the run plays, the clock and the time slider move at most this often (real ms), not
/// in every frame: each change costs the page a frame of its own (a style, a layout, a paint
/// and a commit: about 2 ms in headless Chromium even for one text). Paused, they show the
/// exact time.
const CLOCK_REAL_MS: f64 = 200.0;

/// The clock's step while the run plays at `speed`: the finest of 10, 20, 50, 100, 200... ms
/// of virtual time that lasts `CLOCK_REAL_MS` of real time.
pub fn clock_step(speed: f64) -> u64 {
    let least = speed * CLOCK_REAL_MS;
    let mut decade = CLOCK_STEP_MS;
    loop {
        for step in [decade, decade * 2, decade * 5] {
            if step as f64 >= least || step >= 1_000_000_000 {
                return step;
            }
        }
        decade *= 10;
    }
}

/// `now` as the clock and the time slider show it, the run playing at `speed` or not.
pub fn shown_time(now: u64, playing: bool, speed: f64) -> u64 {
    if playing {
        now - now % clock_step(speed)
    } else {
        now
    }
}

/// The animation clock's instructions for one frame (see [`View::pace`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// Virtual ms per real ms.
    pub speed: f64,
    /// The speed while the world is worth slowing for (slow motion on).
    pub slow: Option<f64>,
    pub stop_at_new_leader: bool,
}

impl Pace {
    /// Plain playback at `speed`, as a test or a replay wants it.
    pub fn steady(speed: f64) -> Pace {
        Pace {
            speed,
            slow: None,
            stop_at_new_leader: false,
        }
    }

    /// The speed for the world as it is now.
    pub fn speed_in(&self, world: &World) -> f64 {
        match self.slow {
            Some(slow) if worth_slowing(world) => slow,
            _ => self.speed,
        }
    }

    /// Whether a frame must look at the world as it goes, rather than play it in one go.
    pub fn watches(&self) -> bool {
        self.slow.is_some() || self.stop_at_new_leader
    }
}

pub fn reduce(mut view: View, action: Action) -> View {
    match action {
        Action::Play => view.playing = true,
        Action::Pause => view.playing = false,
        Action::TogglePlay => view.playing = !view.playing,
        Action::SetSpeed(log10) => view.speed_log10 = log10.clamp(SPEED_LOG10_MIN, SPEED_LOG10_MAX),
        Action::SetLang(lang) => view.lang = lang,
        Action::SetPresenter(on) => view.presenter = on,
        Action::SetTab(tab) => view.tab = tab,
        Action::ShowKeysOf(member) => view.kv_member = Some(member),
        Action::Follow(on) => view.follow = on,
        Action::ShowEntry(index) => {
            view.log_focus = index;
            if index.is_some() {
                view.tab = Tab::Logs;
            }
        }
        Action::SelectMessage(id) => {
            view.selected_message = id;
            if id.is_some() {
                view.playing = false; // hold the message still while it is read
            }
        }
        Action::Notify(notice) => view.notice = Some(notice),
        Action::DismissNotice => view.notice = None,
        Action::NewRun => view.selected_message = None,
        Action::Scrubbed(scrubbed) => {
            view.playing = false;
            match scrubbed {
                Scrubbed::Stayed => {}
                Scrubbed::Moved => view.selected_message = None,
                Scrubbed::Failed(text) => view.notice = Some(Notice::error(text)),
            }
        }
        Action::Loaded(errors) => {
            view.playing = false;
            view.selected_message = None;
            if let Some(text) = errors {
                view.notice = Some(Notice::error(text));
            }
        }
        Action::Refresh | Action::Quiet => {}
        Action::SetSlowMotion(on) => view.slow_motion = Some(on),
        Action::SetPauseOnLeaderChange(on) => view.pause_on_leader_change = on,
        Action::LeaderChanged => {
            if view.pause_on_leader_change {
                view.playing = false;
            }
        }
        Action::ShowOnboarding(on) => view.onboarding = Some(on),
        Action::ShowLegend(on) => {
            view.legend = on;
            if on {
                view.playing = false; // the legend points at things that must hold still
            }
        }
        Action::SetDrawer(open) => view.drawer = open,
        Action::Confirm(msg) => view.confirm = Some(msg),
        Action::Answered => view.confirm = None,
        Action::StartedFresh => {
            let notice = Notice::info(super::i18n::t(view.lang, super::i18n::Text::StartedFresh));
            view = View {
                notice: Some(notice),
                onboarding: view.onboarding,
                ..View::new(view.lang, view.presenter)
            };
        }
    }
    view
}

/// Slow motion's moments: a member campaigns (pre-candidate or candidate), or the leader
/// holds an entry not yet committed (a proposal on its way to a quorum).
pub fn worth_slowing(world: &World) -> bool {
    world.processes().any(|(_, m)| {
        m.node().is_some_and(|n| match n.role_name() {
            RoleName::PreCandidate | RoleName::Candidate => true,
            RoleName::Leader => n.log().last_index() > n.log().committed,
            RoleName::Follower => false,
        })
    })
}

fn leader_events(world: &World) -> impl Iterator<Item = (Millis, MemberId, u64)> + '_ {
    world.processes().flat_map(|(id, m)| {
        m.events().iter().filter_map(move |e| match e.event {
            NodeEvent::BecameRole {
                role: RoleName::Leader,
                term,
            } => Some((e.time_ms, id, term)),
            _ => None,
        })
    })
}

/// No member has become leader yet in this run (as the members' own narration says).
pub fn never_led(world: &World) -> bool {
    world.leader().is_none() && leader_events(world).next().is_none()
}

/// When the last won election began: the winner's campaign for that term (its pre-vote when
/// the role change just before it was one). None before the first election.
pub fn last_election_start(world: &World) -> Option<Millis> {
    let (won_ms, winner, term) = leader_events(world).max_by_key(|(t, _, term)| (*term, *t))?;
    let events = world.process(winner)?.events();
    let roles: Vec<(Millis, RoleName, u64)> = events
        .iter()
        .filter(|e| e.time_ms <= won_ms)
        .filter_map(|e| match e.event {
            NodeEvent::BecameRole { role, term } => Some((e.time_ms, role, term)),
            _ => None,
        })
        .collect();
    let at = roles
        .iter()
        .rposition(|&(_, role, t)| role == RoleName::Candidate && t == term);
    Some(match at {
        Some(i) => match i.checked_sub(1).map(|p| roles[p]) {
            Some((pre_ms, RoleName::PreCandidate, _)) => pre_ms,
            _ => roles[i].0,
        },
        None => won_ms,
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_moves_in_round_steps_at_most_five_times_a_second() {
        for (speed, step) in [(0.01, 10), (0.1, 20), (0.2, 50), (0.5, 100), (1.0, 200)] {
            assert_eq!(super::clock_step(speed), step, "at {speed}x");
        }
        for (speed, step) in [(3.0, 1_000), (10.0, 2_000), (100.0, 20_000)] {
            assert_eq!(super::clock_step(speed), step, "at {speed}x");
        }
        assert_eq!(super::clock_step(f64::NAN), 1_000_000_000);
        assert_eq!(super::shown_time(1_234, true, 0.2), 1_200);
        assert_eq!(super::shown_time(1_234, false, 0.2), 1_234);
    }

    use super::*;

    #[test]
    fn started_fresh_is_a_first_visit_in_the_same_language_and_mode() {
        let mut view = View::new(Lang::ZhTw, true);
        view.tab = Tab::Keys;
        view.playing = false;
        let fresh = reduce(view, Action::StartedFresh);
        assert_eq!((fresh.lang, fresh.presenter), (Lang::ZhTw, true));
        assert_eq!((fresh.tab, fresh.playing), (Tab::Logs, true));
        assert!(fresh.notice.is_some_and(|n| !n.error));
        for tab in Tab::ALL {
            assert_eq!(Tab::by_key(tab.key()), Some(tab));
        }
    }

    fn fresh() -> View {
        View::new(Lang::En, false)
    }

    fn after(actions: Vec<Action>) -> View {
        actions.into_iter().fold(fresh(), reduce)
    }

    #[test]
    fn a_visit_starts_playing_slowly_on_the_logs_tab() {
        let view = fresh();
        assert!(view.playing);
        assert_eq!(view.tab, Tab::Logs);
        assert!((view.speed() - 10f64.powf(DEFAULT_SPEED_LOG10)).abs() < 1e-12);
        assert_eq!(view.notice, None);
    }

    #[test]
    fn play_pause_and_toggle() {
        assert!(!after(vec![Action::Pause]).playing);
        assert!(after(vec![Action::Pause, Action::Play]).playing);
        assert!(!after(vec![Action::TogglePlay]).playing);
        assert!(after(vec![Action::TogglePlay, Action::TogglePlay]).playing);
    }

    #[test]
    fn speed_is_held_to_a_hundredth_and_a_hundred_times() {
        assert_eq!(after(vec![Action::SetSpeed(7.0)]).speed_log10, 2.0);
        assert_eq!(after(vec![Action::SetSpeed(-9.0)]).speed_log10, -2.0);
        assert_eq!(after(vec![Action::SetSpeed(0.5)]).speed_log10, 0.5);
        assert!((after(vec![Action::SetSpeed(1.0)]).speed() - 10.0).abs() < 1e-9);
    }

    #[test]
    fn selecting_a_message_holds_the_run_still() {
        let view = after(vec![Action::SelectMessage(Some(7))]);
        assert_eq!(view.selected_message, Some(7));
        assert!(!view.playing);
        let closed = reduce(reduce(view, Action::Play), Action::SelectMessage(None));
        assert_eq!(closed.selected_message, None);
        assert!(closed.playing, "closing the inspector does not pause");
    }

    #[test]
    fn showing_an_entry_opens_the_logs_tab() {
        let view = after(vec![Action::SetTab(Tab::Kube), Action::ShowEntry(Some(12))]);
        assert_eq!((view.tab, view.log_focus), (Tab::Logs, Some(12)));
        let latest = after(vec![Action::SetTab(Tab::Kube), Action::ShowEntry(None)]);
        assert_eq!((latest.tab, latest.log_focus), (Tab::Kube, None));
    }

    #[test]
    fn a_new_run_forgets_the_selection_but_not_the_rest() {
        let view = after(vec![
            Action::SetTab(Tab::Network),
            Action::SetLang(Lang::ZhTw),
            Action::SelectMessage(Some(3)),
            Action::NewRun,
        ]);
        assert_eq!(view.selected_message, None);
        assert_eq!((view.tab, view.lang), (Tab::Network, Lang::ZhTw));
    }

    #[test]
    fn a_scrub_pauses_and_says_why_it_failed() {
        let stayed = after(vec![Action::SelectMessage(Some(3)), Action::Play]);
        let stayed = reduce(stayed, Action::Scrubbed(Scrubbed::Stayed));
        assert_eq!((stayed.playing, stayed.selected_message), (false, Some(3)));
        let moved = after(vec![
            Action::SelectMessage(Some(3)),
            Action::Scrubbed(Scrubbed::Moved),
        ]);
        assert_eq!(moved.selected_message, None);
        let failed = after(vec![Action::Scrubbed(Scrubbed::Failed("too far".into()))]);
        assert_eq!(failed.notice, Some(Notice::error("too far")));
        assert!(!failed.playing);
    }

    #[test]
    fn a_loaded_script_pauses_and_reports_its_errors() {
        let clean = after(vec![
            Action::Notify(Notice::info("hi")),
            Action::Loaded(None),
        ]);
        assert!(!clean.playing);
        assert_eq!(
            clean.notice,
            Some(Notice::info("hi")),
            "a clean load keeps the notice"
        );
        let failed = after(vec![Action::Loaded(Some("Error: no leader".into()))]);
        assert_eq!(failed.notice, Some(Notice::error("Error: no leader")));
    }

    #[test]
    fn notices_come_and_go_and_refresh_changes_nothing() {
        let view = after(vec![Action::Notify(Notice::error("bad"))]);
        assert_eq!(view.notice, Some(Notice::error("bad")));
        assert_eq!(reduce(view.clone(), Action::Refresh), view);
        assert_eq!(reduce(view, Action::DismissNotice).notice, None);
    }

    #[test]
    fn the_small_settings_of_the_view() {
        let member = crate::base::MemberId(2);
        let view = after(vec![
            Action::SetPresenter(true),
            Action::ShowKeysOf(member),
            Action::Follow(true),
        ]);
        assert!(view.presenter && view.follow);
        assert_eq!(view.kv_member, Some(member));
        assert!(!reduce(view, Action::Follow(false)).follow);
    }

    #[test]
    fn slow_motion_is_the_presenters_default_and_a_switch() {
        assert!(!fresh().slow_motion_on());
        let presenting = View::new(Lang::En, true);
        assert!(presenting.slow_motion_on());
        assert!(!reduce(presenting, Action::SetSlowMotion(false)).slow_motion_on());
        assert!(after(vec![Action::SetSlowMotion(true)]).slow_motion_on());
    }

    #[test]
    fn pausing_on_a_new_leader_only_when_asked() {
        assert!(after(vec![Action::LeaderChanged]).playing);
        let asked = after(vec![
            Action::SetPauseOnLeaderChange(true),
            Action::LeaderChanged,
        ]);
        assert!(!asked.playing);
    }

    #[test]
    fn the_legend_holds_the_picture_still_and_the_question_comes_and_goes() {
        let view = after(vec![Action::ShowLegend(true)]);
        assert!(view.legend && !view.playing);
        assert!(!reduce(view, Action::ShowLegend(false)).legend);
        let asking = after(vec![Action::Confirm(Box::new(Msg::SetSeed(4)))]);
        assert_eq!(asking.confirm.as_deref(), Some(&Msg::SetSeed(4)));
        assert_eq!(reduce(asking, Action::Answered).confirm, None);
        let open = after(vec![Action::SetDrawer(true), Action::ShowOnboarding(false)]);
        assert!(open.drawer);
        assert_eq!(open.onboarding, Some(false));
    }

    #[test]
    fn exactly_the_messages_that_start_over_ask_first() {
        use super::super::lab::Lab;
        use crate::etcd::{ClusterConfig, Switch};
        let restarting = [
            Msg::SetMembers(5),
            Msg::SetSeed(3),
            Msg::SetSwitch(Switch::PreVote, false),
            Msg::Reset,
        ];
        let others = [Msg::Step, Msg::Play, Msg::Command("wait leader".into())];
        let mut lab = Lab::new(ClusterConfig::default());
        for msg in restarting {
            assert!(msg.restarts(), "{msg:?}");
            assert_eq!(lab.apply(msg), Action::NewRun);
        }
        for msg in others {
            assert!(!msg.restarts(), "{msg:?}");
            assert_ne!(lab.apply(msg), Action::NewRun);
        }
    }

    fn world() -> World {
        crate::etcd::ClusterConfig::new(3, 1).build()
    }

    #[test]
    fn before_the_first_election_nobody_has_led() {
        let mut w = world();
        assert!(never_led(&w));
        assert_eq!(last_election_start(&w), None);
        w.run_until_cond(10_000, |w| w.leader().is_some());
        assert!(!never_led(&w));
        let leader = w.leader().expect("a leader");
        w.kill(leader).expect("kill");
        assert!(
            !never_led(&w),
            "a leader existed: no leader now is a failure"
        );
    }

    #[test]
    fn slow_motion_moments_are_campaigns_and_proposals() {
        let mut w = world();
        let campaigning = w.run_until_cond(10_000, worth_slowing);
        assert!(campaigning, "the first election campaigns");
        assert!(w.processes().any(|(_, m)| m
            .node()
            .is_some_and(|n| n.role_name() != RoleName::Follower)));
        w.run_until_cond(10_000, |w| w.leader().is_some() && !worth_slowing(w));
        assert!(!worth_slowing(&w), "a quiet leader is not worth slowing");
        let leader = w.leader().expect("a leader");
        w.propose(leader, b"x".to_vec()).expect("propose");
        assert!(worth_slowing(&w), "a proposal on its way to a quorum");
    }

    #[test]
    fn the_last_election_starts_with_the_winners_campaign() {
        let mut w = world();
        w.run_until_cond(10_000, |w| w.leader().is_some());
        let first = last_election_start(&w).expect("an election");
        assert!(first < w.now());
        let leader = w.leader().expect("a leader");
        w.kill(leader).expect("kill");
        let killed_at = w.now();
        w.run_until_cond(20_000, |w| w.leader().is_some());
        let second = last_election_start(&w).expect("a second election");
        assert!(
            second > killed_at && second < w.now(),
            "{killed_at} < {second} < {}",
            w.now()
        );
        let winner = w.leader().expect("the new leader");
        let campaigned = w
            .process(winner)
            .expect("its process")
            .events()
            .iter()
            .any(|e| {
                e.time_ms == second
                    && matches!(
                        e.event,
                        NodeEvent::BecameRole {
                            role: RoleName::PreCandidate | RoleName::Candidate,
                            ..
                        }
                    )
            });
        assert!(campaigned, "the start is the winner's own campaign");
    }
}
