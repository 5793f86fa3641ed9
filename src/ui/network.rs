//! The network tab: the network's state (a chip), presets, partitions by drag and drop
//! (starting from the partition in force), latency, jitter and loss sliders, and the
//! messages in flight.

use super::i18n::{t, Lang, Text};
use super::lab::Msg;
use super::page::Dispatch;
use super::ring;
use crate::base::MemberId;
use crate::etcd::{Cluster as World, PartitionView};
use std::collections::BTreeMap;
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub fn network(world: &World, lang: Lang, d: &Dispatch) -> Html {
    let ids = world.member_ids();
    let leader = world.leader();
    let config = &world.net.config;
    let (latency, jitter) = (config.latency_ms, config.jitter_ms);
    let split = leader.map(|l| {
        let k = (ids.len() / 2).max(1);
        let mut minority = vec![l];
        minority.extend(ids.iter().copied().filter(|m| *m != l).take(k - 1));
        let majority: Vec<MemberId> = ids
            .iter()
            .copied()
            .filter(|m| !minority.contains(m))
            .collect();
        format!("partition {} | {}", names(&minority), names(&majority))
    });
    let asymmetric: Option<Vec<String>> = leader.map(|l| {
        ids.iter()
            .filter(|m| **m != l)
            .map(|m| format!("drop {m} {l}"))
            .collect()
    });
    let flying = world.in_flight();
    let partition = world.partition_view();
    let active: Vec<usize> = ids
        .iter()
        .map(|m| partition.group_of(*m).min(GROUPS.len() - 1))
        .collect();
    let why = leader.is_none().then(|| t(lang, Text::NeedsLeader));
    html! {
        <div class="network" data-panel="network">
            { partition_chip(&partition, lang) }
            <h3>{ t(lang, Text::Presets) }</h3>
            <div class="button-row">
                <button data-preset="isolate-leader" disabled={leader.is_none()} title={why}
                    onclick={d.command("isolate leader".into())}>{ t(lang, Text::IsolateLeader) }</button>
                <button data-preset="split" disabled={split.is_none()} title={why}
                    onclick={d.command(split.unwrap_or_default())}>{ t(lang, Text::Split) }</button>
                <button data-preset="asymmetric" disabled={asymmetric.is_none()} title={why}
                    onclick={{ let d = d.clone(); let lines = asymmetric.unwrap_or_default();
                        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Commands(lines.clone()))) }}>
                    { t(lang, Text::Asymmetric) }</button>
                <button data-action="heal" class="primary" disabled={partition.is_whole()}
                    onclick={d.command("heal".into())}>{ t(lang, Text::Heal) }</button>
            </div>
            if let Some(why) = why {
                <p class="disabled-reason" data-disabled-reason="presets">{ why }</p>
            }
            <PartitionEditor members={ids.iter().map(|m| m.to_string()).collect::<Vec<_>>()} {active} lang={lang} dispatch={d.clone()} />
            <div class="sliders">
                { slider(lang, d, Text::Latency, "latency", config.latency_ms as f64, (500.0, 5.0, " ms"),
                    move |v| format!("latency {}ms jitter {jitter}ms", v.max(1.0) as u64)) }
                { slider(lang, d, Text::Jitter, "jitter", config.jitter_ms as f64, (200.0, 5.0, " ms"),
                    move |v| format!("latency {latency}ms jitter {}ms", v as u64)) }
                { slider(lang, d, Text::Loss, "loss", (config.loss * 100.0).round(), (50.0, 1.0, " %"),
                    |v| format!("loss {}%", v as u64)) }
            </div>
            <h3>{ t(lang, Text::MessagesInFlight) }{ format!(" ({})", flying.len()) }</h3>
            <div class="inflight-list">
                if flying.is_empty() { <span class="muted">{ t(lang, Text::NoMessages) }</span> }
                { for flying.iter().take(40).map(|m| {
                    let id = m.id;
                    html! {
                        <button class="msg-chip" data-select-message={id.to_string()}
                            onclick={d.select_message().reform(move |_: MouseEvent| id)}>
                            { format!("#{id} {}→{} {}", m.from, m.to, m.kind) }
                        </button>
                    }
                }) }
            </div>
        </div>
    }
}

/// A range input whose committed value (on `change`) becomes the command `to_line(value)`.
fn slider(
    lang: Lang,
    d: &Dispatch,
    label: Text,
    control: &'static str,
    value: f64,
    (max, step, unit): (f64, f64, &'static str),
    to_line: impl Fn(f64) -> String + 'static,
) -> Html {
    let d = d.clone();
    let onchange = Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        if let Ok(v) = input.value().parse::<f64>() {
            d.dispatch(Msg::Command(to_line(v)));
        }
    });
    html! {
        <label class="slider">
            <span>{ t(lang, label) }</span>
            <input type="range" min="0" max={max.to_string()} step={step.to_string()}
                data-control={control} value={value.to_string()} {onchange} />
            <output>{ format!("{value}{unit}") }</output>
        </label>
    }
}

/// The network's state as a chip: whole, or which groups are cut apart and which links fail.
pub fn partition_chip(view: &PartitionView, lang: Lang) -> Html {
    let detail = ring::partition_chip(view);
    let whole = view.is_whole();
    html! {
        <span class={classes!("partition-chip", if whole { "whole" } else { "cut" })} role="status"
              data-partition-chip={if whole { "whole".to_string() } else { detail.clone() }}>
            { if whole { t(lang, Text::NetworkWhole).to_string() } else { format!("{}: {detail}", t(lang, Text::Partitioned)) } }
        </span>
    }
}

fn names(ids: &[MemberId]) -> String {
    ids.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Properties, PartialEq)]
pub struct PartitionProps {
    pub members: Vec<String>,
    /// Each member's group in the network as it is (0 = A), so the editor starts from it.
    pub active: Vec<usize>,
    pub lang: Lang,
    pub dispatch: Dispatch,
}

const GROUPS: [&str; 3] = ["A", "B", "C"];

/// Members dragged (or clicked) into up to three groups; "cut" partitions between them.
#[component]
pub fn PartitionEditor(props: &PartitionProps) -> Html {
    let from_network = |props: &PartitionProps| -> BTreeMap<String, usize> {
        props
            .members
            .iter()
            .cloned()
            .zip(props.active.iter().copied())
            .collect()
    };
    let groups = use_state(|| from_network(props));
    {
        // A change of the network itself (a preset, heal, a console line) replaces the draft.
        let groups = groups.clone();
        let now = from_network(props);
        use_effect_with(now, move |now| groups.set(now.clone()));
    }
    let group_of = |m: &String| groups.get(m).copied().unwrap_or(0);
    let lang = props.lang;
    let move_to = {
        let groups = groups.clone();
        move |member: String, group: usize| {
            let mut next = (*groups).clone();
            next.insert(member, group);
            groups.set(next);
        }
    };
    let apply = {
        let d = props.dispatch.clone();
        let members = props.members.clone();
        let groups = groups.clone();
        Callback::from(move |_: MouseEvent| {
            let parts: Vec<String> = (0..GROUPS.len())
                .map(|g| {
                    members
                        .iter()
                        .filter(|m| groups.get(*m).copied().unwrap_or(0) == g)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(",")
                })
                .filter(|p| !p.is_empty())
                .collect();
            d.dispatch(Msg::Command(format!("partition {}", parts.join(" | "))));
        })
    };
    let used = (0..GROUPS.len())
        .filter(|g| props.members.iter().any(|m| group_of(m) == *g))
        .count();
    html! {
        <div class="partition-editor">
            <p class="muted">{ t(lang, Text::GroupHint) }</p>
            <div class="groups">
                { for GROUPS.iter().enumerate().map(|(g, name)| {
                    let ondragover = Callback::from(|e: DragEvent| e.prevent_default());
                    let ondrop = {
                        let move_to = move_to.clone();
                        Callback::from(move |e: DragEvent| {
                            e.prevent_default();
                            if let Some(member) = e.data_transfer().and_then(|dt| dt.get_data("text/plain").ok()) {
                                move_to(member, g);
                            }
                        })
                    };
                    html! {
                        <div class="group" data-group={name.to_string()} {ondragover} {ondrop}>
                            <span class="group-name">{ format!("{} {name}", t(lang, Text::Group)) }</span>
                            { for props.members.iter().filter(|m| group_of(m) == g).map(|m| {
                                let member = m.clone();
                                let ondragstart = {
                                    let member = member.clone();
                                    Callback::from(move |e: DragEvent| {
                                        if let Some(dt) = e.data_transfer() {
                                            let _ = dt.set_data("text/plain", &member);
                                        }
                                    })
                                };
                                let onclick = {
                                    let move_to = move_to.clone();
                                    let member = member.clone();
                                    Callback::from(move |_: MouseEvent| move_to(member.clone(), (g + 1) % GROUPS.len()))
                                };
                                html! {
                                    <button class="chip" draggable="true" data-partition-member={member.clone()}
                                        {ondragstart} {onclick}>{ member }</button>
                                }
                            }) }
                        </div>
                    }
                }) }
            </div>
            <button data-action="partition" disabled={used < 2} onclick={apply}>{ t(lang, Text::ApplyPartition) }</button>
        </div>
    }
}
