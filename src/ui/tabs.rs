//! The tabs of the side area and the panel each one shows.

use super::a11y::{message_after_key, tab_after_key};
use super::dom;
use super::i18n::{t, Lang, Text};
use super::lab::Lab;
use super::page::Dispatch;
use super::recorder::Recorder;
use super::view::{Action, Notice, Tab, View};
use super::{kube_panel, lamport, logs, network, panels, rules, share_panel};
use yew::prelude::*;

fn label(tab: Tab) -> Text {
    match tab {
        Tab::Logs => Text::Log,
        Tab::SpaceTime => Text::TabSpaceTime,
        Tab::Network => Text::TabNetwork,
        Tab::Rules => Text::TabRules,
        Tab::Share => Text::TabShare,
        Tab::Keys => Text::TabKeys,
        Tab::Kube => Text::TabKube,
    }
}

/// The panel every tab controls (one element: it shows the open tab's body).
const PANEL_ID: &str = "tab-panel";

fn tab_id(key: &str) -> String {
    format!("tab-{key}")
}

/// The tab list, as the WAI-ARIA tabs pattern has it: one tab stop (the open tab; the others
/// are reached with the arrow keys, Home and End, which open them too).
pub fn tabs(current: Tab, lang: Lang, d: &Dispatch) -> Html {
    html! {
        <div class="tabs" role="tablist" aria-label={t(lang, Text::Panels)}>
            { for Tab::ALL.into_iter().enumerate().map(|(at, tab)| {
                let (key, selected) = (tab.key(), tab == current);
                let onclick = { let d = d.clone(); Callback::from(move |_: MouseEvent| d.dispatch(Action::SetTab(tab))) };
                let onkeydown = {
                    let d = d.clone();
                    Callback::from(move |e: KeyboardEvent| {
                        if let Some(next) = tab_after_key(&e.key(), at, Tab::ALL.len()) {
                            e.prevent_default();
                            let tab = Tab::ALL[next];
                            d.dispatch(Action::SetTab(tab));
                            dom::focus(&tab_id(tab.key()));
                        }
                    })
                };
                html! {
                    <button role="tab" id={tab_id(key)} data-tab={key} aria-selected={selected.to_string()}
                        aria-controls={PANEL_ID} tabindex={if selected { "0" } else { "-1" }}
                        class={classes!(selected.then_some("current"))} {onclick} {onkeydown}>
                        { t(lang, label(tab)) }
                    </button>
                }
            }) }
        </div>
    }
}

/// The open tab's panel, labelled by its tab.
pub fn panel(lab: &Lab, view: &View, on_select: Callback<u64>, d: &Dispatch) -> Html {
    let key = view.tab.key();
    html! {
        // A tab stop of its own (WAI-ARIA tabs), so the keyboard scrolls a panel with no control.
        <div class="tab-body" role="tabpanel" id={PANEL_ID} aria-labelledby={tab_id(key)} tabindex="0">
            { body(lab, view, on_select, d) }
        </div>
    }
}

/// The open tab's body.
fn body(lab: &Lab, view: &View, on_select: Callback<u64>, d: &Dispatch) -> Html {
    let (world, session, lang) = (lab.world(), lab.session(), view.lang);
    match view.tab {
        Tab::Logs => logs::render(world, view.log_focus, lang, d),
        Tab::SpaceTime => space_time(lab, view, on_select, d),
        Tab::Network => network::network(world, lang, d),
        Tab::Rules => rules::rules(lab.settings(), session.monitor(), lang, d),
        Tab::Share => share_panel::share(lab, lang, d),
        Tab::Keys => panels::keys(world, view.kv_member, lang, d),
        Tab::Kube => kube_panel::kube(session, view.follow, lang, d),
    }
}

fn notify_failure(d: &Dispatch, result: Result<(), String>) {
    if let Err(text) = result {
        d.dispatch(Action::Notify(Notice::error(text)));
    }
}

fn space_time(lab: &Lab, view: &View, on_select: Callback<u64>, d: &Dispatch) -> Html {
    let lang = view.lang;
    let save_svg = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            let result = dom::outer_html("svg.lamport").and_then(|svg| {
                dom::download_text("raftlab-space-time.svg", "image/svg+xml", &svg)
            });
            notify_failure(&d, result);
        })
    };
    let lanes = lab.world().member_ids().len();
    let save_png = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            let (w, h) = lamport::size(lanes);
            let result = dom::outer_html("svg.lamport")
                .and_then(|svg| dom::download_svg_as_png("raftlab-space-time.png", &svg, w, h));
            notify_failure(&d, result);
        })
    };
    let recorder: &Recorder = lab.recorder();
    let (drawn, in_window) = recorder.drawn(lab.world().now());
    // The keyboard walks the arrows (a tab stop per arrow would be hundreds of them).
    let onkeydown = {
        let ids: Vec<u64> = drawn.iter().map(|s| s.message.id).collect();
        let (selected, on_select) = (view.selected_message, on_select.clone());
        Callback::from(move |e: KeyboardEvent| {
            if let Some(id) = message_after_key(&e.key(), &ids, selected) {
                e.prevent_default();
                on_select.emit(id);
            }
        })
    };
    html! {
        <div class="space-time">
            <p class="muted">{ t(lang, Text::SpaceTimeHint) }</p>
            <div class="lamport-keys" tabindex="0" role="group" data-lamport-keys=""
                aria-label={t(lang, Text::SpaceTimeKeys)} {onkeydown}>
                { lamport::render(lab.world(), &drawn, view.selected_message, lang, on_select) }
            </div>
            if drawn.len() < in_window {
                <p class="muted" data-lamport-cut={in_window.to_string()}>
                    { format!("{} {} {in_window}", drawn.len(), t(lang, Text::SpaceTimeCut)) }
                </p>
            }
            <div class="button-row">
                <button data-action="download-svg" onclick={save_svg}>{ t(lang, Text::DownloadSvg) }</button>
                <button data-action="download-png" onclick={save_png}>{ t(lang, Text::DownloadPng) }</button>
            </div>
        </div>
    }
}
