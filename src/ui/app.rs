//! The root of the page: it owns the run and the view (`page::use_page`), the animation clock,
//! the keyboard shortcuts and the crash record, and provides the `Page` context that the
//! layout below renders from.

use super::a11y;
use super::console;
use super::crash;
use super::dom;
use super::frames;
use super::header;
use super::i18n::{t, Lang, Text};
use super::lab::{self, Lab, Msg};
use super::page::{self, Clock, Dispatch, Page, Panel, Render, Shows};
use super::status;
use super::tabs;
use super::view::{Action, Notice, Tab, View};
use super::{cluster, legend, lessons_panel, members, onboarding, panels};
use super::{share, share_saved};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

pub fn start() {
    crash::install_panic_hook();
    yew::Renderer::<App>::new().render();
}

#[component]
fn App() -> Html {
    let page = page::use_page();
    use_clock(&page);
    console::use_long_runs(&page);
    use_shortcuts(page.dispatcher(), page.view.legend);
    a11y::use_dismissable_menus();
    page::use_remembered_preferences(page.view.lang, page.view.presenter);
    page::use_remembered_lessons(&page.lab.borrow());
    use_recovery(&page);
    use_save_on_leave(&page);
    use_link_changes(page.dispatcher(), page.view.lang);
    let now = page.lab.borrow().world().now();
    html! {
        <ContextProvider<Page> context={page.clone()}>
            <ContextProvider<Clock> context={Clock(now)}>
                <Stage />
            </ContextProvider<Clock>>
        </ContextProvider<Page>>
    }
}

/// The animation clock: each frame plays the run at the view's speed for the world as it is
/// (slow motion), then sleeps until the run would show something new; a command, a new speed
/// or a new timeline wakes it.
#[hook]
fn use_clock(page: &Page) {
    let pace = page.view.pace();
    let (d, lab, played) = (page.dispatcher(), page.lab.clone(), page.played.clone());
    let wake = (lab.borrow().timeline(), pace);
    use_effect_with(page.view.playing, move |_| move || played.stop());
    frames::use_frames(
        page.view.playing,
        wake,
        Callback::from(move |now| {
            d.play_to(now, pace);
            lab.borrow_mut().sleep_ms(pace)
        }),
    );
}

/// Space: play/pause, N: step, /: the console drawer, ?: the legend, Esc: close what is
/// open. Only when no text field has the focus.
#[hook]
fn use_shortcuts(d: Dispatch, legend_open: bool) {
    use_effect_with(legend_open, move |legend_open| {
        let legend_open = *legend_open;
        let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if let Some(msg) = shortcut(&e, legend_open) {
                d.dispatch(msg);
            }
        });
        let document = web_sys::window().and_then(|w| w.document());
        if let Some(d) = &document {
            let _ =
                d.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(d) = &document {
                let _ = d.remove_event_listener_with_callback(
                    "keydown",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    });
}

/// What a key pressed outside the text fields asks for (and keeps from the browser).
fn shortcut(e: &KeyboardEvent, legend_open: bool) -> Option<Msg> {
    if e.ctrl_key() || e.meta_key() || e.alt_key() {
        return None;
    }
    let target_tag = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|el| el.tag_name());
    let target_is = |tags: &[&str]| target_tag.as_deref().is_some_and(|tag| tags.contains(&tag));
    if target_is(&["INPUT", "TEXTAREA", "SELECT"]) {
        return None;
    }
    match e.key().as_str() {
        " " if !target_is(&["BUTTON", "SUMMARY"]) => {
            e.prevent_default();
            Some(Msg::TogglePlay)
        }
        "n" | "N" => Some(Msg::Step),
        "/" => {
            e.prevent_default();
            dom::focus("console-input");
            Some(Action::SetDrawer(true).into())
        }
        "?" => Some(Action::ShowLegend(!legend_open).into()),
        "Escape" if legend_open => Some(Action::ShowLegend(false).into()),
        "Escape" => Some(Action::SelectMessage(None).into()),
        _ => None,
    }
}

const SAVE_EVERY_MS: f64 = 5_000.0;

/// Keeps what the crash overlay offers, and the session a reload restores, current: after
/// each command or setting, each change of what the page shows, and every few seconds of
/// wall time while it plays (leaving the page saves the exact moment: `use_save_on_leave`).
#[hook]
fn use_recovery(page: &Page) {
    let key = {
        let lab = page.lab.borrow();
        (
            lab.settings().clone(),
            page.view.lang,
            (lab.session().history().len(), lab.transcript().len()),
            // Wall time, not virtual: at 100x, ten virtual seconds pass ten times a second,
            // and each save writes the whole run.
            (js_sys::Date::now() / SAVE_EVERY_MS) as u64,
            share_saved::encode_view(&page.view),
        )
    };
    let run = page.lab.clone();
    let (d, told) = (page.dispatcher(), use_mut_ref(|| false));
    use_effect_with(key, move |(settings, lang, _, _, view)| {
        let lab = run.borrow();
        let link = format!("{}#{}", dom::base_url(), lab.share_fragment());
        crash::record(*lang, settings.seed, &lab.session().export_script(), &link);
        let kept = page::save_run(&lab);
        page::save_view(view);
        page::opened_alive();
        drop(lab);
        // Said once a visit: the notice would come back after every command otherwise.
        if !kept && !told.replace(true) {
            d.dispatch(Action::Notify(Notice::error(t(*lang, Text::NotKept))));
        }
    });
}

/// Leaving the page (a reload, back/forward, closing the tab, or the tab hidden, after
/// which a phone may end it unasked) saves the run at the exact virtual moment it reached.
#[hook]
fn use_save_on_leave(page: &Page) {
    let run = page.lab.clone();
    use_effect_with((), move |_| {
        dom::listen(&["pagehide", "visibilitychange"], move || {
            if let Ok(lab) = run.try_borrow() {
                page::save_run(&lab);
            }
        })
    });
}

/// A link pasted into the address bar of the open page changes only its fragment: a link
/// that reads well opens as on a fresh visit; a bad one changes nothing and says why.
#[hook]
fn use_link_changes(d: Dispatch, lang: Lang) {
    use_effect_with(lang, move |lang| {
        let lang = *lang;
        dom::listen(&["hashchange"], move || match share::decode(&dom::hash()) {
            Ok(Some(_)) => dom::reload(),
            Ok(None) => {}
            Err(why) => {
                dom::drop_hash();
                d.dispatch(Action::Notify(lab::bad_link_notice(lang, &why)));
            }
        })
    });
}

/// The layout: header, notices; the cluster, the quorum line and the latest events on the
/// left, the side panels on the right; the console as a drawer along the bottom; the start
/// card, the legend and the restart question over them. It renders when the run shows
/// something new or the view changes (`Page`); a frame that only moves the clock renders
/// the parts that draw it (`Clock`).
#[component]
fn Stage() -> Html {
    let page = use_context::<Page>();
    let console_node = use_node_ref();
    let transcript_end = page.as_ref().map(|p| {
        let lab = p.lab.borrow();
        (lab.transcript_edits(), (p.view.drawer, p.view.presenter))
    });
    {
        let node = console_node.clone();
        use_effect_with(transcript_end, move |_| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let Some(page) = page else {
        return html! {};
    };
    let (lab, view, d) = (page.lab.borrow(), &*page.view, page.dispatcher());
    html! {
        <div class={classes!("app", view.presenter.then_some("presenter"))} lang={view.lang.code()}>
            { header::render(&lab, view, &d) }
            { notices(&lab, view, &d) }
            <main class="stage">
                <div class="left">
                    { cluster_panel(&lab, view, &d) }
                    <Panel shows={(|_, _| 0) as Shows} render={events as Render} />
                </div>
                <Panel shows={side_clock as Shows} render={side as Render} />
            </main>
            { console_panel(&lab, view, console_node, &d) }
            if view.legend {
                <legend::Legend lang={view.lang} />
            }
            if let Some(msg) = &view.confirm {
                { confirm_restart(msg, view.lang, &d) }
            }
        </div>
    }
}

/// "Start over?" before a change drops the run's commands.
fn confirm_restart(msg: &Msg, lang: Lang, d: &Dispatch) -> Html {
    let yes = {
        let (d, msg) = (d.clone(), msg.clone());
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::Answered);
            d.dispatch_confirmed(msg.clone());
        })
    };
    let no = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::Answered))
    };
    html! {
        <div class="modal-backdrop">
            <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" data-confirm="restart">
                <h2 id="confirm-title">{ t(lang, Text::RestartTitle) }</h2>
                <p>{ t(lang, Text::RestartBody) }</p>
                <div class="button-row">
                    <button class="danger" data-answer="yes" onclick={yes}>{ t(lang, Text::RestartYes) }</button>
                    <button class="primary" data-answer="no" onclick={no} autofocus=true>{ t(lang, Text::RestartNo) }</button>
                </div>
            </div>
        </div>
    }
}

fn notices(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let lang = view.lang;
    let dismiss = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::DismissNotice))
    };
    html! { <>
        if let Some(notice) = &view.notice {
            <div class={classes!("notice", notice.error.then_some("error"))} role="alert" data-notice="">
                <span>{ notice.text.clone() }</span>
                <button onclick={dismiss} aria-label={t(lang, Text::Dismiss)}>{ "✕" }</button>
            </div>
        }
        if lab.is_behind() {
            <div class="notice branch" data-branch="">{ t(lang, Text::BackInTime) }</div>
        }
    </> }
}

fn cluster_panel(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let (world, lang) = (lab.world(), view.lang);
    html! {
        <section class="cluster-panel panel" aria-label={t(lang, Text::Cluster)}>
            { status::clock(world, view, d, super::fast_forward::render(lab, view, d)) }
            <div class="cluster-wrap">
                <cluster::LiveRing />
                <Panel shows={inspected_flying as Shows} render={inspector as Render} />
            </div>
            { status::quorum_meter(world, lang) }
            { a11y::live_summary(world, lang) }
        </section>
    }
}

fn events(lab: &Lab, view: &View, _: &Dispatch) -> Html {
    status::events(lab.world(), &lab.violations(), view.lang)
}

/// What of the clock the side panels show: the space-time diagram scrolls with it and the
/// network tab lists the messages on the wire (a heartbeat changes nothing else); the
/// control plane's events give their age in seconds, and a member's refusals fade after
/// seconds (`members::REFUSAL_SHOWN_MS`), even in a world where nothing happens.
fn side_clock(lab: &Lab, view: &View) -> u64 {
    let now = lab.world().now();
    match view.tab {
        Tab::SpaceTime | Tab::Network => now,
        _ => now / 1000,
    }
}

/// Whether the message inspected is still on the wire: the inspector says when it lands.
fn inspected_flying(lab: &Lab, view: &View) -> u64 {
    view.selected_message.map_or(0, |id| {
        1 + u64::from(lab.world().in_flight().iter().any(|m| m.id == id))
    })
}

fn inspector(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    view.selected_message.map_or_else(Html::default, |id| {
        panels::inspector(lab.world(), lab.recorder(), id, view.lang, d)
    })
}

fn side(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let send_line = send_line(d);
    html! {
        <section class="side">
            if onboarding::is_open(view) {
                { onboarding::card(lab, view, d) }
            }
            { lessons_panel::card(lab, view.lang, d) }
            <div class="panel members-panel">{ members::render(lab.world(), view.lang, &send_line) }</div>
            <div class="panel tabs-panel">
                { tabs::tabs(view.tab, view.lang, d) }
                { tabs::panel(lab, view, d.select_message(), d) }
            </div>
        </section>
    }
}

fn send_line(d: &Dispatch) -> Callback<String> {
    let d = d.clone();
    Callback::from(move |line: String| d.dispatch(Msg::Command(line)))
}

/// The console, as a drawer: closed it shows its input and last lines; `/` or its handle
/// opens it over the stage.
fn console_panel(lab: &Lab, view: &View, node: NodeRef, d: &Dispatch) -> Html {
    let (lang, open) = (view.lang, view.drawer);
    let member_names: Vec<String> = lab
        .world()
        .member_ids()
        .iter()
        .map(|m| m.to_string())
        .collect();
    let clear = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::ClearConsole))
    };
    let toggle = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::SetDrawer(!open)))
    };
    html! {
        <section class={classes!("console", "panel", "drawer", open.then_some("open"))}
            data-drawer={if open { "open" } else { "closed" }} aria-label={t(lang, Text::Console)}>
            <div class="panel-head">
                <button class="drawer-handle" data-action="drawer" aria-expanded={open.to_string()} onclick={toggle}>
                    <span aria-hidden="true">{ if open { "▾ " } else { "▴ " } }</span>{ t(lang, Text::Console) }</button>
                <span class="muted keys">{ t(lang, Text::Shortcuts) }</span>
                <button class="small" data-action="clear-console" onclick={clear}>
                    { t(lang, Text::Clear) }</button>
            </div>
            { console::replay_bar(lab, lang, d) }
            <console::Output lab={d.lab()} edits={lab.transcript_edits()} {lang} {node} />
            { console::progress(lab, lang) }
            <console::ConsoleInput lang={lang} members={member_names} on_command={send_line(d)} />
            { console::endpoint(lab, lang) }
        </section>
    }
}
