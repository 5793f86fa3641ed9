//! The page's two halves, joined for Yew: the run (`Lab`) owned by the root component and
//! handed down by context, and the view state in a `use_reducer` over the pure `view::reduce`.

use super::dom;
use super::i18n::{t, Lang, Text};
use super::lab::{self, Lab, Msg};
use super::share_saved::{self as saved, Opening};
use super::view::{self, Action, Notice, Pace, View};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

const LANG_KEY: &str = "raftlab.lang";
const PRESENTER_KEY: &str = "raftlab.presenter";
/// The open lesson step and the steps done, in the share link's spelling.
const LESSONS_KEY: &str = "raftlab.lessons";

impl Reducible for View {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        // The same state: Yew renders nothing.
        if action == Action::Quiet {
            return self;
        }
        Rc::new(view::reduce((*self).clone(), action))
    }
}

/// Where every component sends its `Msg`: the run does its part at once, then the view
/// reduces what the run reports.
#[derive(Clone)]
pub struct Dispatch {
    lab: Rc<RefCell<Lab>>,
    view: UseReducerDispatcher<View>,
    played: Played,
}

/// While the run plays: the real time (`performance.now()`'s clock) it has been played to, and
/// at what pace. The frame loop sleeps while nothing would show; whatever the user does in the
/// meantime first plays the time slept so far, so that it happens when it was done.
#[derive(Clone, Default)]
pub struct Played(Rc<Cell<Option<(f64, Pace)>>>);

impl Played {
    /// The real ms from the time played to `now`, which is now played to, at `pace`.
    fn advance(&self, now: f64, pace: Pace) -> f64 {
        let since = self.0.get().map_or(now, |(at, _)| at);
        self.0.set(Some((now.max(since), pace)));
        now - since
    }

    /// The run stopped playing.
    pub fn stop(&self) {
        self.0.set(None);
    }
}

impl PartialEq for Dispatch {
    fn eq(&self, other: &Dispatch) -> bool {
        Rc::ptr_eq(&self.lab, &other.lab) && self.view == other.view
    }
}

impl Dispatch {
    pub fn dispatch(&self, msg: impl Into<Msg>) {
        let msg = msg.into();
        // A change that starts over asks first when commands would be lost (issue 17).
        if msg.restarts() && has_history(&self.lab.borrow()) {
            self.view.dispatch(Action::Confirm(Box::new(msg)));
            return;
        }
        self.dispatch_confirmed(msg);
    }

    /// `dispatch` without the question: the user said yes.
    pub fn dispatch_confirmed(&self, msg: Msg) {
        if let (false, Some((_, pace))) = (matches!(msg, Msg::Frame { .. }), self.played.0.get()) {
            self.play_to(dom::now_ms(), pace);
        }
        if msg == Msg::StartFresh {
            forget_session();
        }
        // The borrow ends before the view reduces, so a render it triggers can read the run.
        let action = self.lab.borrow_mut().apply(msg);
        self.view.dispatch(action);
    }

    /// Plays the run up to real time `now` at `pace`, and tells the view when the leader
    /// changed (to pause there if asked).
    pub fn play_to(&self, now: f64, pace: Pace) {
        let real_ms = self.played.advance(now, pace);
        let before = self.lab.borrow().world().leader();
        self.dispatch_confirmed(Msg::Frame { real_ms, pace });
        let after = self.lab.borrow().world().leader();
        if after.is_some() && after != before {
            self.dispatch(Action::LeaderChanged);
        }
    }

    /// The run this dispatcher sends to.
    pub fn lab(&self) -> Rc<RefCell<Lab>> {
        self.lab.clone()
    }

    /// A click on a message (a dot, a chip, a row) that selects it.
    pub fn select_message(&self) -> Callback<u64> {
        let d = self.clone();
        Callback::from(move |id: u64| d.dispatch(Action::SelectMessage(Some(id))))
    }

    /// A click that runs `line` in the console.
    pub fn command(&self, line: String) -> Callback<MouseEvent> {
        let d = self.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Command(line.clone())))
    }
}

/// The run holds commands of the user's (or of a shared script), beyond the page's own
/// network setup that every fresh run starts with.
fn has_history(lab: &Lab) -> bool {
    lab.session()
        .history()
        .iter()
        .any(|e| e.line != lab::UI_NETWORK_SETUP)
}

/// The context every part of the page reads: the run, the view, and where to send messages.
#[derive(Clone)]
pub struct Page {
    pub lab: Rc<RefCell<Lab>>,
    /// The run's shown revision when this render began: the run changes in place, so the
    /// context tells its readers to render again by this number, which a frame that only moved
    /// the clock leaves alone (the ring, the clock and the time slider follow the `Clock`).
    lab_revision: u64,
    pub view: UseReducerHandle<View>,
    pub played: Played,
}

impl PartialEq for Page {
    fn eq(&self, other: &Page) -> bool {
        Rc::ptr_eq(&self.lab, &other.lab)
            && self.lab_revision == other.lab_revision
            && self.view == other.view
    }
}

impl Page {
    pub fn dispatcher(&self) -> Dispatch {
        Dispatch {
            lab: self.lab.clone(),
            view: self.view.dispatcher(),
            played: self.played.clone(),
        }
    }
}

/// The page as the visit opens it (a shared link's run, or a fresh one), kept across renders.
#[hook]
pub fn use_page() -> Page {
    let opened = use_state(|| {
        let presenter = dom::load(PRESENTER_KEY).as_deref() == Some("1");
        let stored_lessons = dom::load(LESSONS_KEY).unwrap_or_default();
        let (lab, view) = open_kept(opening_lang(), presenter, &stored_lessons);
        (Rc::new(RefCell::new(lab)), view)
    });
    let view = use_reducer(|| opened.1.clone());
    let lab_revision = opened.0.borrow().shown_revision();
    let played = (*use_state(Played::default)).clone();
    Page {
        lab: opened.0.clone(),
        lab_revision,
        view,
        played,
    }
}

/// The page as this visit finds it (`share_saved::choose`): a link's run, the session the
/// browser kept, or a fresh run; a bad link changes nothing and says why.
fn open_kept(lang: Lang, presenter: bool, stored_lessons: &str) -> (Lab, View) {
    let (hash, saved) = (
        dom::hash(),
        dom::load(saved::SESSION_KEY).unwrap_or_default(),
    );
    let opened = dom::tab_load(saved::OPENED_KEY);
    let died = dom::load(saved::RESTORING_KEY).as_deref() == Some("1");
    let choice = saved::choose(&hash, opened.as_deref(), &saved, died);
    let replays = choice.opening != Opening::Fresh;
    dom::store(saved::RESTORING_KEY, if replays { "1" } else { "" });
    let (lab, mut view) = match choice.opening {
        Opening::Link(link) => {
            dom::tab_store(saved::OPENED_KEY, link);
            lab::open_with_lessons(link, stored_lessons, lang, presenter)
        }
        Opening::Saved(fragment) => restore(fragment, stored_lessons, lang, presenter),
        Opening::Fresh => lab::open_with_lessons("", stored_lessons, lang, presenter),
    };
    if choice.restore_died {
        view.notice = Some(Notice::error(t(lang, Text::RestoreDied)));
    }
    if let Some(why) = choice.bad_link {
        view.notice = Some(lab::bad_link_notice(lang, &why));
        dom::drop_hash();
    }
    (lab, view)
}

/// The kept session: its run replayed, its console and view as they were.
fn restore(fragment: &str, stored_lessons: &str, lang: Lang, presenter: bool) -> (Lab, View) {
    let (lab, view) = lab::open_with_lessons(fragment, stored_lessons, lang, presenter);
    let console = dom::load(saved::CONSOLE_KEY).and_then(|text| saved::decode_console(&text));
    let mut view = saved::apply_view(view, &dom::load(saved::VIEW_KEY).unwrap_or_default());
    // The errors the replay printed were seen when typed (the console shows them again):
    // what is news now is that the session came back.
    view.notice = Some(Notice::info(t(lang, Text::RestoredSession)));
    (lab.restored(console), view)
}

/// Keeps the run where the next opening finds it; nothing once the page died (the last good
/// state stays). Whether the browser kept it all.
pub fn save_run(lab: &Lab) -> bool {
    if super::crash::page_died() {
        return true;
    }
    // A refused run leaves the last one kept, with its console; a refused console leaves
    // none, never the lines of an older run beside this one.
    if !dom::store(saved::SESSION_KEY, &lab.share_fragment()) {
        return false;
    }
    let kept = dom::store(saved::CONSOLE_KEY, &saved::encode_console(lab.transcript()));
    if !kept {
        dom::forget(saved::CONSOLE_KEY);
    }
    kept
}

/// `view`: what the page shows, as `share_saved::encode_view` wrote it.
pub fn save_view(view: &str) {
    if !super::crash::page_died() {
        dom::store(saved::VIEW_KEY, view);
    }
}

/// The opening replay lived through its first render.
pub fn opened_alive() {
    dom::store(saved::RESTORING_KEY, "");
}

/// "Start fresh": the browser keeps nothing of this session, and the address no link.
fn forget_session() {
    for key in [
        saved::SESSION_KEY,
        saved::CONSOLE_KEY,
        saved::VIEW_KEY,
        LESSONS_KEY,
    ] {
        dom::forget(key);
    }
    dom::tab_store(saved::OPENED_KEY, "");
    dom::drop_hash();
}

/// The language and presenter mode outlive the visit (local storage) and style the whole
/// document. The language is stored once the user switches it: until then each visit follows
/// the browser's languages.
#[hook]
pub fn use_remembered_preferences(lang: Lang, presenter: bool) {
    let opened_in = use_mut_ref(|| lang);
    use_effect_with((lang, presenter), move |(lang, presenter)| {
        if *lang != *opened_in.borrow() {
            dom::store(LANG_KEY, lang.code());
            *opened_in.borrow_mut() = *lang;
        }
        dom::store(PRESENTER_KEY, if *presenter { "1" } else { "0" });
        set_root_attributes(*lang, *presenter);
    });
}

/// The lessons' progress and open step outlive the visit (local storage): a reload lands on
/// the same step.
#[hook]
pub fn use_remembered_lessons(lab: &Lab) {
    let mark = super::share::encode_lessons(&lab.lessons().mark());
    use_effect_with(mark, |mark| {
        dom::store(LESSONS_KEY, mark);
    });
}

/// The language chosen before on this browser, else the first of the browser's languages the
/// page speaks (a browser set to zh-TW opens in zh-TW), else English.
fn opening_lang() -> Lang {
    dom::load(LANG_KEY)
        .as_deref()
        .and_then(Lang::from_code)
        .or_else(|| Lang::from_browser(&dom::browser_languages()))
        .unwrap_or(Lang::En)
}

fn set_root_attributes(lang: Lang, presenter: bool) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.code());
        dom::set_title(t(lang, Text::PageTitle));
        let _ = root.set_attribute("class", if presenter { "presenter" } else { "" });
    }
}

/// The run's virtual time, provided beside `Page`: a frame in which nothing happened changes
/// only this, and only the parts that draw the time (the clock, the ring, the time slider,
/// a panel's `Shows`) render again then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock(pub u64);

/// How a panel draws itself from the run and the view.
pub type Render = fn(&Lab, &View, &Dispatch) -> Html;

/// What of the clock a panel shows (0 for none): it renders again when that changes.
pub type Shows = fn(&Lab, &View) -> u64;

#[derive(Properties)]
pub struct PanelProps {
    pub shows: Shows,
    pub render: Render,
}

impl PartialEq for PanelProps {
    // A place in the layout renders one panel, so its functions never change.
    fn eq(&self, _: &PanelProps) -> bool {
        true
    }
}

/// A part of the page that renders again only when the context does (a command, an event of
/// the world, the view) or what it shows of the clock changes: most frames only move it.
#[component]
pub fn Panel(props: &PanelProps) -> Html {
    use_context::<Clock>();
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let shown = (props.shows)(&page.lab.borrow(), &page.view);
    html! { <PanelBody {shown} render={props.render} /> }
}

#[derive(Properties)]
struct PanelBodyProps {
    shown: u64,
    render: Render,
}

impl PartialEq for PanelBodyProps {
    fn eq(&self, other: &PanelBodyProps) -> bool {
        self.shown == other.shown
    }
}

#[component]
fn PanelBody(props: &PanelBodyProps) -> Html {
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let lab = page.lab.borrow();
    (props.render)(&lab, &page.view, &page.dispatcher())
}
