//! The tabs of the side area and the panel each one shows.

use super::dom;
use super::i18n::{t, Lang, Text};
use super::lab::Lab;
use super::page::Dispatch;
use super::recorder::Recorder;
use super::view::{Action, Notice, Tab, View};
use super::{kube_panel, lamport, logs, network, panels, rules, share_panel};
use yew::prelude::*;

const TABS: [(Tab, &str, Text); 7] = [
    (Tab::Logs, "logs", Text::Log),
    (Tab::SpaceTime, "space-time", Text::TabSpaceTime),
    (Tab::Network, "network", Text::TabNetwork),
    (Tab::Rules, "rules", Text::TabRules),
    (Tab::Share, "share", Text::TabShare),
    (Tab::Keys, "keys", Text::TabKeys),
    (Tab::Kube, "kube", Text::TabKube),
];

pub fn tabs(current: Tab, lang: Lang, d: &Dispatch) -> Html {
    html! {
        <div class="tabs" role="tablist">
            { for TABS.iter().map(|(tab, key, label)| {
                let (tab, d) = (*tab, d.clone());
                html! {
                    <button role="tab" data-tab={*key} aria-selected={(tab == current).to_string()}
                        class={classes!((tab == current).then_some("current"))}
                        onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::SetTab(tab)))}>
                        { t(lang, *label) }
                    </button>
                }
            }) }
        </div>
    }
}

/// The open tab's panel.
pub fn body(lab: &Lab, view: &View, on_select: Callback<u64>, d: &Dispatch) -> Html {
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
    html! {
        <div class="space-time">
            <p class="muted">{ t(lang, Text::SpaceTimeHint) }</p>
            { lamport::render(lab.world(), recorder, view.selected_message, lang, on_select) }
            <div class="button-row">
                <button data-action="download-svg" onclick={save_svg}>{ t(lang, Text::DownloadSvg) }</button>
                <button data-action="download-png" onclick={save_png}>{ t(lang, Text::DownloadPng) }</button>
            </div>
        </div>
    }
}
