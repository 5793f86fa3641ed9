//! What the page shows, apart from the run itself: the open tab, the selection, play/pause
//! and speed, the language, a notice. `reduce` is a pure function of the state and an
//! action; the run (`super::lab::Lab`) lives beside it and reports what it did as an action.

use super::i18n::Lang;
use crate::base::MemberId;

pub const DEFAULT_SPEED_LOG10: f64 = -0.7; // 0.2×: slow enough to see a heartbeat travel
const SPEED_LOG10_MIN: f64 = -2.0;
const SPEED_LOG10_MAX: f64 = 2.0;

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
        }
    }

    /// Virtual milliseconds per real millisecond.
    pub fn speed(&self) -> f64 {
        10f64.powf(self.speed_log10)
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
        Action::Refresh => {}
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
