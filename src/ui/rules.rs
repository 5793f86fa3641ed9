//! The rules tab: the Raft switches (each change starts a new run) and the invariant monitor.

use super::i18n::{property, t, violation, Lang, Text};
use super::lab::Msg;
use super::page::Dispatch;
use super::share;
use crate::check::{Monitor, Property};
use crate::etcd::{ClusterConfig, Switch};
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The label of a Raft switch on the rules tab.
fn switch_label(switch: Switch) -> Text {
    match switch {
        Switch::PreVote => Text::SwitchPreVote,
        Switch::CheckQuorum => Text::SwitchCheckQuorum,
        Switch::CommitOldTerms => Text::SwitchCommitOld,
        Switch::NoVoteLogCheck => Text::SwitchVoteAny,
        Switch::ForgetVote => Text::SwitchForgetVote,
    }
}

pub fn rules(
    settings: &ClusterConfig,
    monitor: Option<&Monitor>,
    lang: Lang,
    d: &Dispatch,
) -> Html {
    let none = Monitor::new();
    let monitor = monitor.unwrap_or(&none);
    let violations = monitor.violations();
    html! {
        <div class="rules" data-panel="rules">
            <h3>{ t(lang, Text::Switches) }</h3>
            <p class="muted">{ t(lang, Text::SwitchesRestart) }</p>
            <div class="switches">
                { for Switch::ALL.into_iter().map(|switch| {
                    let d = d.clone();
                    let on = switch.get(settings);
                    let onchange = Callback::from(move |e: Event| {
                        let input: HtmlInputElement = e.target_unchecked_into();
                        d.dispatch(Msg::SetSwitch(switch, input.checked()));
                    });
                    let breaking = switch.is_teaching();
                    html! {
                        <label class={classes!("switch", breaking.then_some("breaking"))}>
                            <input type="checkbox" data-switch={share::page_key(switch)} checked={on} {onchange} />
                            <span>{ t(lang, switch_label(switch)) }</span>
                        </label>
                    }
                }) }
            </div>
            <h3>{ t(lang, Text::Monitor) }</h3>
            <div class={classes!("monitor", if violations.is_empty() { "clean" } else { "violated" })}
                 data-monitor="" data-violations={violations.len().to_string()}>
                if violations.is_empty() {
                    <p>{ "✓ " }{ t(lang, Text::AllHold) }</p>
                } else {
                    <ul role="alert">
                        { for violations.iter().rev().take(8).map(|v| html! {
                            <li data-violation={v.property.name()}>
                                <span class="when">{ format!("{:.2}s", v.time_ms as f64 / 1000.0) }</span>
                                <strong>{ "✕ " }</strong>{ violation(lang, v) }
                            </li>
                        }) }
                    </ul>
                }
                <p class="watched">{ property_list(monitor, lang) }</p>
            </div>
        </div>
    }
}

fn property_list(monitor: &Monitor, lang: Lang) -> String {
    monitor
        .properties()
        .into_iter()
        .map(|p: Property| {
            let mark = if monitor.saw(p) { "✕" } else { "✓" };
            format!("{mark} {}", property(lang, p))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
