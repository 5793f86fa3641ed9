//! The side panels: network (presets, partitions by drag and drop, sliders, messages in
//! flight), rules (Raft switches and the invariant monitor), share (link, export, import),
//! and the inspector of one message.

use super::dom;
use super::i18n::{switch_label, t, Lang, Text};
use super::lamport::Recorder;
use super::model::{Model, Msg, Notice};
use super::share::{self, Shared};
use crate::base::MemberId;
use crate::check::{Monitor, Property};
use crate::console::trace_file::replay_trace_json;
use crate::console::Session;
use crate::etcd::{Cluster as World, ClusterConfig, Switch};
use std::collections::BTreeMap;
use web_sys::HtmlInputElement;
use yew::prelude::*;

type Dispatch = UseReducerDispatcher<Model>;

fn command(d: &Dispatch, line: String) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_| d.dispatch(Msg::Command(line.clone())))
}

// ----- network --------------------------------------------------------------------------

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
    html! {
        <div class="network" data-panel="network">
            <h3>{ t(lang, Text::Presets) }</h3>
            <div class="button-row">
                <button data-preset="isolate-leader" disabled={leader.is_none()}
                    onclick={command(d, "isolate leader".into())}>{ t(lang, Text::IsolateLeader) }</button>
                <button data-preset="split" disabled={split.is_none()}
                    onclick={command(d, split.unwrap_or_default())}>{ t(lang, Text::Split) }</button>
                <button data-preset="asymmetric" disabled={asymmetric.is_none()}
                    onclick={{ let d = d.clone(); let lines = asymmetric.unwrap_or_default();
                        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Commands(lines.clone()))) }}>
                    { t(lang, Text::Asymmetric) }</button>
                <button data-action="heal" class="primary" onclick={command(d, "heal".into())}>{ t(lang, Text::Heal) }</button>
            </div>
            <PartitionEditor members={ids.iter().map(|m| m.to_string()).collect::<Vec<_>>()} lang={lang} dispatch={d.clone()} />
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
                    let d = d.clone();
                    html! {
                        <button class="msg-chip" data-select-message={id.to_string()}
                            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::SelectMessage(Some(id))))}>
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

fn names(ids: &[MemberId]) -> String {
    ids.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Properties, PartialEq)]
pub struct PartitionProps {
    pub members: Vec<String>,
    pub lang: Lang,
    pub dispatch: Dispatch,
}

const GROUPS: [&str; 3] = ["A", "B", "C"];

/// Members dragged (or clicked) into up to three groups; "cut" partitions between them.
#[component]
pub fn PartitionEditor(props: &PartitionProps) -> Html {
    let groups = use_state(BTreeMap::<String, usize>::new);
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

// ----- rules ----------------------------------------------------------------------------

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
                                <strong>{ format!("✕ {}", v.property.name()) }</strong>
                                { format!(": {}", v.detail) }
                            </li>
                        }) }
                    </ul>
                }
                <p class="watched">{ property_list(monitor) }</p>
            </div>
        </div>
    }
}

fn property_list(monitor: &Monitor) -> String {
    monitor
        .properties()
        .into_iter()
        .map(|p: Property| {
            let mark = if monitor.saw(p) { "✕" } else { "✓" };
            format!("{mark} {}", p.name())
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

// ----- share ----------------------------------------------------------------------------

pub fn share_fragment(session: &Session, settings: &ClusterConfig) -> String {
    share::encode(&Shared {
        settings: settings.clone(),
        script: session.export_script(),
    })
}

pub fn share(session: &Session, settings: &ClusterConfig, lang: Lang, d: &Dispatch) -> Html {
    let url = format!("{}#{}", dom::base_url(), share_fragment(session, settings));
    let copy = {
        let (url, d) = (url.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            dom::copy(&url);
            d.dispatch(Msg::Notify(Notice {
                error: false,
                text: t(lang, Text::Copied).into(),
            }));
        })
    };
    let script = session.export_script();
    let export_script = {
        let (script, d) = (script.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            report(
                &d,
                dom::download_text("raftlab-run.txt", "text/plain", &script),
            );
        })
    };
    let export_trace = {
        let (script, settings, d) = (script.clone(), settings.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            let json = replay_trace_json(&settings, &script).map_err(|e| e.to_string());
            report(
                &d,
                json.and_then(|json| {
                    dom::download_text("raftlab-trace.json", "application/json", &json)
                }),
            );
        })
    };
    html! {
        <div class="share" data-panel="share">
            <h3>{ t(lang, Text::ShareLink) }</h3>
            <p class="muted">{ t(lang, Text::ShareHint) }</p>
            <div class="share-row">
                <input type="text" readonly=true data-share-url="" value={url}
                    aria-label={t(lang, Text::ShareLink)}
                    onfocus={Callback::from(|e: FocusEvent| {
                        let input: HtmlInputElement = e.target_unchecked_into();
                        input.select();
                    })} />
                <button data-action="copy-link" class="primary" onclick={copy}>{ t(lang, Text::Copy) }</button>
            </div>
            <div class="button-row">
                <button data-action="export-script" onclick={export_script}>{ t(lang, Text::ExportScript) }</button>
                <button data-action="export-trace" onclick={export_trace}>{ t(lang, Text::ExportTrace) }</button>
            </div>
            <ImportScript lang={lang} settings={settings.clone()} dispatch={d.clone()} />
        </div>
    }
}

fn report(d: &Dispatch, result: Result<(), String>) {
    if let Err(text) = result {
        d.dispatch(Msg::Notify(Notice { error: true, text }));
    }
}

#[derive(Properties, PartialEq)]
pub struct ImportProps {
    pub lang: Lang,
    pub settings: ClusterConfig,
    pub dispatch: Dispatch,
}

/// Paste or pick a script; "run" starts a new run from it (settings from its first line).
#[component]
pub fn ImportScript(props: &ImportProps) -> Html {
    let text = use_state(String::new);
    let lang = props.lang;
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            text.set(area.value());
        })
    };
    let onfile = {
        let (text, d) = (text.clone(), props.dispatch.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let (text, d) = (text.clone(), d.clone());
            dom::read_file(&input, move |result| match result {
                Ok(content) => text.set(content),
                Err(e) => d.dispatch(Msg::Notify(Notice {
                    error: true,
                    text: e,
                })),
            });
        })
    };
    let run = {
        let (text, d, settings) = (text.clone(), props.dispatch.clone(), props.settings.clone());
        Callback::from(move |_: MouseEvent| {
            let script = (*text).clone();
            match share::check_script(&script) {
                Ok(()) => d.dispatch(Msg::Load(Shared {
                    settings: share::settings_from_script(&script, &settings),
                    script,
                })),
                Err(e) => d.dispatch(Msg::Notify(Notice {
                    error: true,
                    text: e,
                })),
            }
        })
    };
    html! {
        <div class="import">
            <h3>{ t(lang, Text::ImportScript) }</h3>
            <textarea data-import-script="" rows="4" spellcheck="false"
                aria-label={t(lang, Text::ImportScript)}
                placeholder="# raftlab run --members 3 --seed 1&#10;wait leader&#10;kill leader"
                value={(*text).clone()} {oninput} />
            <div class="button-row">
                <input type="file" accept=".txt,.sh,text/plain" data-import-file="" onchange={onfile}
                    aria-label={t(lang, Text::ImportScript)} />
                <button data-action="import-run" class="primary" disabled={text.trim().is_empty()} onclick={run}>
                    { t(lang, Text::RunScript) }</button>
            </div>
        </div>
    }
}

// ----- one message ----------------------------------------------------------------------

pub fn inspector(world: &World, recorder: &Recorder, id: u64, lang: Lang, d: &Dispatch) -> Html {
    let flying = world.in_flight().into_iter().find(|m| m.id == id);
    let on_wire = flying.is_some();
    let Some(m) = flying.or_else(|| recorder.get(id).map(|s| s.message.clone())) else {
        return html! {};
    };
    let (from, to, kind, term, entries, sent, arrive, describe) = (
        m.from,
        m.to,
        m.kind,
        m.term,
        m.entries,
        m.sent_ms,
        m.arrive_ms,
        m.describe,
    );
    let close = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::SelectMessage(None)))
    };
    let ms = |v: u64| format!("{:.3} s", v as f64 / 1000.0);
    html! {
        <div class="inspector" data-inspector={id.to_string()} role="dialog" aria-label={t(lang, Text::Message)}>
            <div class="panel-head">
                <h3>{ format!("{} #{id} · {kind}", t(lang, Text::Message)) }</h3>
                <button class="close" data-action="close-message" onclick={close} aria-label={t(lang, Text::Close)}>{ "✕" }</button>
            </div>
            <dl>
                <dt>{ t(lang, Text::Kind) }</dt><dd>{ kind }</dd>
                <dt>{ t(lang, Text::From) }</dt><dd>{ from.to_string() }</dd>
                <dt>{ t(lang, Text::To) }</dt><dd>{ to.to_string() }</dd>
                <dt>{ t(lang, Text::Term) }</dt><dd>{ term }</dd>
                <dt>{ t(lang, Text::Entries) }</dt><dd>{ entries }</dd>
                <dt>{ t(lang, Text::Sent) }</dt><dd>{ ms(sent) }</dd>
                <dt>{ t(lang, Text::Arrives) }</dt><dd>{ ms(arrive) }</dd>
            </dl>
            <code class="describe">{ describe }</code>
            if on_wire {
                <div class="button-row">
                    <button data-action="drop-message" class="danger" onclick={command(d, format!("drop-message {id}"))}>{ t(lang, Text::Drop) }</button>
                    <button data-action="delay-message" onclick={command(d, format!("delay-message {id} 300ms"))}>{ t(lang, Text::Delay) }</button>
                </div>
            } else {
                <p class="muted">{ t(lang, Text::Gone) }</p>
            }
        </div>
    }
}

/// One member's MVCC store, as the engine reports it, and the latest changes a watch would
/// deliver. Nothing here is computed: it is `Cluster::kv_view` and `Store::recent_events`.
pub fn keys(world: &World, chosen: Option<MemberId>, lang: Lang, d: &Dispatch) -> Html {
    let ids = world.member_ids();
    let member = chosen
        .filter(|m| ids.contains(m))
        .or_else(|| world.leader())
        .or_else(|| ids.first().copied());
    let Some(member) = member else {
        return html! {};
    };
    let Some(view) = world.kv_view(member) else {
        return html! {};
    };
    let events = world
        .process(member)
        .map(|m| m.store.recent_events(12))
        .unwrap_or_default();
    let text = |b: &[u8]| crate::raft::summarize(b);
    let compacted = if view.compact_revision > 0 {
        view.compact_revision.to_string()
    } else {
        "–".into()
    };
    html! {
        <div class="keys-panel" data-kv-member={member.to_string()} data-kv-revision={view.revision.to_string()}>
            <div class="kv-members" role="group">
                { for ids.iter().map(|id| {
                    let (id, d) = (*id, d.clone());
                    html! {
                        <button class={classes!((id == member).then_some("current"))} data-kv-show={id.to_string()}
                            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::ShowKeysOf(id)))}>{ id.to_string() }</button>
                    }
                }) }
                <span class="kv-revs">
                    { format!("{} {} · {} {compacted}", t(lang, Text::KvRevision), view.revision, t(lang, Text::KvCompacted)) }
                </span>
            </div>
            if view.kvs.is_empty() {
                <p class="kv-empty">{ t(lang, Text::KvEmpty) }</p>
            } else {
                <table class="kv-table">
                    <thead><tr><th>{ "key" }</th><th>{ "value" }</th><th>{ "create" }</th><th>{ "mod" }</th><th>{ "version" }</th><th>{ "lease" }</th></tr></thead>
                    <tbody>
                        { for view.kvs.iter().map(|kv| html! {
                            <tr data-kv-key={text(&kv.key)}>
                                <td class="k">{ text(&kv.key) }</td>
                                <td>{ text(&kv.value) }</td>
                                <td>{ kv.create_revision }</td>
                                <td>{ kv.mod_revision }</td>
                                <td>{ kv.version }</td>
                                <td>{ if kv.lease == 0 { "–".to_string() } else { format!("{:x}", kv.lease) } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
            }
            <h3>{ t(lang, Text::WatchStream) }</h3>
            <ol class="watch-stream" data-watch-stream="">
                { for events.iter().map(|e| {
                    let kind = match e.kind { crate::mvcc::EventType::Put => "PUT", crate::mvcc::EventType::Delete => "DELETE" };
                    html! {
                        <li class={classes!("ev", kind.to_lowercase())}>
                            <span class="rev">{ e.kv.mod_revision }</span>
                            <span class="kind">{ kind }</span>
                            <span class="k">{ text(&e.kv.key) }</span>
                            if kind == "PUT" { <span class="v">{ text(&e.kv.value) }</span> }
                        </li>
                    }
                }) }
            </ol>
        </div>
    }
}

/// One kubectl change followed end to end (`kube::trace`): each write with the component
/// that made it and its path through the apiserver, etcd's txn, Raft and the watch.
fn follow_panel(followed: Option<&crate::kube::trace::Followed>, lang: Lang, d: &Dispatch) -> Html {
    use crate::kube::trace;
    let close = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Follow(false)))
    };
    let Some(f) = followed else {
        return html! {};
    };
    html! {
        <section class="kube-follow" data-follow="on">
            <header>
                <h3>{ t(lang, Text::KubeFollowTitle) }</h3>
                <button data-action="kube-follow-close" onclick={close}>{ t(lang, Text::KubeFollowClose) }</button>
            </header>
            <p class="help">{ t(lang, Text::KubeFollowHelp) }</p>
            <p class="follow-command"><code>{ f.command }</code></p>
            <ol class="follow-steps">
                { for f.writes.iter().map(|w| {
                    let actor_class = if w.actor == "kubectl" { "kubectl" } else if w.actor == "kubelet" { "kubelet" } else { "controller" };
                    let (raft, index) = match w.entry {
                        Some((i, term)) => (format!("{} · raft #{i} · term {term}", w.endpoint), i.to_string()),
                        None => (format!("{} · raft", w.endpoint), String::new()),
                    };
                    let op = if w.verb == "delete" { "del" } else { "put" };
                    let watch = match w.watched_ms {
                        Some(t) => format!("watch {} +{} ms", trace::watch_kind(w), t.saturating_sub(w.applied_ms)),
                        None => t(lang, Text::KubeNotWatched).to_string(),
                    };
                    html! {
                        <li class={classes!("follow-step", actor_class)} data-actor={w.actor.clone()}
                            data-raft-index={index.clone()} data-revision={w.revision.to_string()}>
                            <div class="head">
                                <span class="t">{ trace::at(w.sent_ms) }</span>
                                <span class="actor">{ w.actor.clone() }</span>
                                <span class="verb">{ w.verb }</span>
                                <span class="obj">{ trace::object_name(w) }</span>
                            </div>
                            if !w.changes.is_empty() {
                                <ul class="changes">{ for w.changes.iter().map(|c| html! { <li>{ c.clone() }</li> }) }</ul>
                            }
                            <div class="path">
                                <span class="hop api">{ "kube-apiserver" }</span>
                                <span class="hop txn" title={w.key.clone()}>{ format!("txn: mod_revision = {} → {op}", w.compare_mod) }</span>
                                {{
                                    let d = d.clone();
                                    let entry = w.entry.map(|(i, _)| i);
                                    html! {
                                        <button class="hop raft" data-action="show-entry" data-index={index.clone()}
                                            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::ShowEntry(entry)))}>
                                            { raft }</button>
                                    }
                                }}
                                <span class="hop commit">{ format!("{} +{} ms · rev {}", t(lang, Text::KubeCommitted), w.applied_ms.saturating_sub(w.sent_ms), w.revision) }</span>
                                <span class="hop watch">{ watch }</span>
                            </div>
                        </li>
                    }
                }) }
            </ol>
        </section>
    }
}

/// The Kubernetes control plane on this cluster: Deployments → ReplicaSets → Pods (desired vs
/// ready), the nodes, and the `/registry` keys in etcd with their revisions, all read from the
/// engine (`ControlPlane::view`, `Cluster::kv_view`). Commands go through the console.
pub fn kube(session: &Session, follow: bool, lang: Lang, d: &Dispatch) -> Html {
    let Some(kube) = session.kube.as_ref() else {
        let d = d.clone();
        return html! {
            <div class="kube-panel" data-kube="down">
                <p>{ t(lang, Text::KubeDown) }</p>
                <button class="primary" data-action="kube-up"
                    onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::Command("kube up".into())))}>
                    { t(lang, Text::KubeUp) }</button>
            </div>
        };
    };
    let view = kube.view();
    let world = &session.world;
    let registry = crate::kube::view::registry_keys(world);
    let stopped = |leads: bool, who: &str| {
        (!leads).then(|| html! { <p class="kube-stopped">{ format!("{who}: {}", t(lang, Text::KubeStopped)) }</p> })
    };
    let followed = crate::kube::trace::follow_last(kube.api.journal());
    let follow_button = {
        let d = d.clone();
        let label = if followed.is_some() {
            Text::KubeFollow
        } else {
            Text::KubeFollowStart
        };
        html! {
            <button class="primary" data-action="kube-follow"
                onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::Follow(true)))}>
                { format!("⤷ {}", t(lang, label)) }</button>
        }
    };
    html! {
        <div class="kube-panel" data-kube="up">
            { for stopped(view.controller_manager_leads, "kube-controller-manager") }
            { for stopped(view.scheduler_leads, "kube-scheduler") }
            { if follow { follow_panel(followed.as_ref(), lang, d) } else { follow_button } }
            <ul class="kube-tree">
                { for view.deployments.iter().map(|dep| html! {
                    <li data-deployment={dep.name.clone()}>
                        <span class="kind">{ "deployment" }</span>
                        <strong>{ format!(" {}/{}", dep.namespace, dep.name) }</strong>
                        <span class="ratio">{ format!(" {}/{}", dep.ready, dep.desired) }</span>
                        <ul>
                            { for dep.replica_sets.iter().map(|rs| html! {
                                <li data-replicaset={rs.name.clone()}>
                                    <span class="kind">{ "replicaset" }</span>{ format!(" {} ", rs.name) }
                                    <span class="ratio">{ format!("{}/{}", rs.ready, rs.desired) }</span>
                                    <ul>
                                        { for rs.pods.iter().map(|pod| html! {
                                            <li data-pod={pod.name.clone()} data-pod-status={pod.status.clone()}
                                                class={classes!("pod", pod.status.to_lowercase())}>
                                                <span class="kind">{ "pod" }</span>{ format!(" {} ", pod.name) }
                                                <span class="status">{ pod.status.clone() }</span>
                                                <span class="node">{ if pod.node.is_empty() { "(unscheduled)".to_string() } else { pod.node.clone() } }</span>
                                            </li>
                                        }) }
                                    </ul>
                                </li>
                            }) }
                        </ul>
                    </li>
                }) }
            </ul>
            <h3>{ t(lang, Text::KubeNodes) }</h3>
            <div class="kube-nodes">
                { for view.nodes.iter().map(|n| html! {
                    <span class={classes!("kube-node", if n.ready { "ready" } else { "not-ready" }, n.control_plane.then_some("control-plane"))}
                        data-node-name={n.name.clone()} data-control-plane={n.control_plane.to_string()}>
                        { format!("{} {}", n.name, if n.ready { "Ready" } else { "NotReady" }) }
                        if n.control_plane { <span class="role">{ "control-plane" }</span> }
                    </span>
                }) }
            </div>
            <h3>{ t(lang, Text::KubeEvents) }</h3>
            <table class="kube-events" data-events="">
                <tr><th>{ "LAST SEEN" }</th><th>{ "TYPE" }</th><th>{ "REASON" }</th><th>{ "OBJECT" }</th><th>{ "MESSAGE" }</th></tr>
                { for view.events.iter().map(|e| {
                    let age = crate::kube::meta::human_duration(world.now().saturating_sub(e.last_seen_ms));
                    let age = if e.count > 1 { format!("{age} (x{})", e.count) } else { age };
                    html! {
                        <tr data-event-reason={e.reason.clone()} class={classes!((e.event_type == "Warning").then_some("warning"))}>
                            <td class="age">{ age }</td><td>{ e.event_type.clone() }</td><td>{ e.reason.clone() }</td>
                            <td class="obj">{ e.object.clone() }</td><td>{ e.message.clone() }</td>
                        </tr>
                    }
                }) }
            </table>
            <h3>{ t(lang, Text::KubeRegistry) }</h3>
            <ol class="kube-registry" data-registry="">
                { for registry.iter().map(|(key, rev)| html! {
                    <li><span class="rev">{ *rev }</span><span class="k">{ key.clone() }</span></li>
                }) }
            </ol>
        </div>
    }
}
