//! The "start here" card: four first experiments, each a button that sends what the console
//! (or the button elsewhere on the page that does the same) sends, so the console echoes it
//! and a share link replays it. Dismissed, it stays dismissed across visits until reopened.

use super::dom;
use super::i18n::{t, Text};
use super::lab::Lab;
use super::lab::Msg;
use super::page::Dispatch;
use super::status;
use super::view::{Action, Tab, View};
use crate::etcd::kubeadm::ETCDCTL_EXPORTS;
use crate::etcd::Preset;
use std::cell::Cell;
use yew::prelude::*;

const ONBOARDING_KEY: &str = "raftlab.onboarding";
/// The key the card writes, as the Keys tab's empty state suggests it.
pub const FIRST_WRITE: &str = "etcdctl put greeting hello";

thread_local! {
    /// The stored choice, read once per visit (the card is rendered every frame).
    static STORED_DISMISSED: Cell<Option<bool>> = const { Cell::new(None) };
}

fn stored_dismissed() -> bool {
    STORED_DISMISSED.with(|cached| {
        let dismissed = cached
            .get()
            .unwrap_or_else(|| dom::load(ONBOARDING_KEY).as_deref() == Some("dismissed"));
        cached.set(Some(dismissed));
        dismissed
    })
}

/// Shows or hides the card, and remembers it for the next visit.
pub fn show(d: &Dispatch, open: bool) {
    STORED_DISMISSED.with(|cached| cached.set(Some(!open)));
    dom::store(ONBOARDING_KEY, if open { "open" } else { "dismissed" });
    d.dispatch(Action::ShowOnboarding(open));
}

pub fn is_open(view: &View) -> bool {
    view.onboarding.unwrap_or_else(|| !stored_dismissed())
}

pub fn card(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let lang = view.lang;
    let world = lab.world();
    let leader = world.leader();
    let dismiss = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| show(&d, false))
    };
    // Before the first election there is nothing to replay: watching is playing slowly.
    let watch = status::replay_last_election(world, d).unwrap_or_else(|| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Action::SetSlowMotion(true));
            d.dispatch(Msg::Play);
        })
    });
    let write = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            d.dispatch(Msg::Command(FIRST_WRITE.into()));
            d.dispatch(Action::SetTab(Tab::Keys));
        })
    };
    let no_leader = leader.is_none().then(|| t(lang, Text::NeedsLeader));
    // One member and no network to cut: the articles' first steps instead.
    let middle = if lab.settings().preset == Preset::Kubeadm {
        let tls = |last: &str| {
            let mut lines: Vec<String> = ETCDCTL_EXPORTS.iter().map(|l| l.to_string()).collect();
            lines.push(last.to_string());
            Msg::Commands(lines)
        };
        let health = tls("etcdctl endpoint health");
        let write_lines = tls(FIRST_WRITE);
        let d2 = d.clone();
        let write = Callback::from(move |_: MouseEvent| {
            d2.dispatch(write_lines.clone());
            d2.dispatch(Action::SetTab(Tab::Keys));
        });
        let d3 = d.clone();
        let health = Callback::from(move |_: MouseEvent| d3.dispatch(health.clone()));
        html! { <>
            { step(2, "static-pods", t(lang, Text::StartPods), t(lang, Text::StartPodsWhat),
                d.command("kubectl get pods -n kube-system".into()), None) }
            { step(3, "etcd-health", t(lang, Text::StartTls), t(lang, Text::StartTlsWhat), health, None) }
            { step(4, "write-key", t(lang, Text::StartWrite), t(lang, Text::StartWriteWhat), write, None) }
        </> }
    } else {
        html! { <>
            { step(2, "kill-leader", t(lang, Text::StartKill), t(lang, Text::StartKillWhat),
                d.command("kill leader".into()), no_leader) }
            { step(3, "cut-network", t(lang, Text::StartCut), t(lang, Text::StartCutWhat),
                d.command("isolate leader".into()), no_leader) }
            { step(4, "write-key", t(lang, Text::StartWrite), t(lang, Text::StartWriteWhat), write, None) }
        </> }
    };
    html! {
        <aside class="onboarding panel" data-onboarding="" aria-labelledby="onboarding-title">
            <div class="panel-head">
                <h2 id="onboarding-title">{ t(lang, Text::StartHere) }</h2>
                <button class="close" data-action="dismiss-onboarding" onclick={dismiss}
                    aria-label={t(lang, Text::Dismiss)}>{ "✕" }</button>
            </div>
            <ol class="first-steps">
                { step(1, "watch", t(lang, Text::StartWatch), t(lang, Text::StartWatchWhat), watch, None) }
                { middle }
            </ol>
        </aside>
    }
}

fn step(
    n: usize,
    hook: &'static str,
    label: &'static str,
    what: &'static str,
    onclick: Callback<MouseEvent>,
    disabled_because: Option<&'static str>,
) -> Html {
    html! {
        <li>
            <button data-start={hook} disabled={disabled_because.is_some()} onclick={onclick}
                title={disabled_because.unwrap_or_default()}>
                <span class="n" aria-hidden="true">{ n }</span>{ label }</button>
            <span class="what">{ disabled_because.unwrap_or(what) }</span>
        </li>
    }
}
