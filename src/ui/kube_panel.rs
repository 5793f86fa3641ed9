//! The Kubernetes tab: the control plane's objects, nodes, events and `/registry` keys, and one
//! kubectl change followed end to end.

use super::i18n::{t, Lang, Text};
use super::lab::Msg;
use super::page::Dispatch;
use super::panels::{rows_not_shown, ROWS_SHOWN};
use super::view::Action;
use crate::base::Millis;
use crate::console::Session;
use crate::kube::view::{DeploymentView, EventView, NodeView};
use yew::prelude::*;

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
                                            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::ShowEntry(entry)))}>
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
        return html! {
            <div class="kube-panel" data-kube="down">
                <p>{ t(lang, Text::KubeDown) }</p>
                <button class="primary" data-action="kube-up" onclick={d.command("kube up".into())}>
                    { t(lang, Text::KubeUp) }</button>
            </div>
        };
    };
    let view = kube.view(ROWS_SHOWN);
    let world = &session.world;
    let stopped = |leads: bool, who: &str| {
        (!leads).then(|| html! { <p class="kube-stopped">{ format!("{who}: {}", t(lang, Text::KubeStopped)) }</p> })
    };
    let followed = crate::kube::trace::follow_last(kube.api.journal());
    let (registry, stored) = crate::kube::view::registry_keys(world, ROWS_SHOWN);
    html! {
        <div class="kube-panel" data-kube="up">
            { for stopped(view.controller_manager_leads, "kube-controller-manager") }
            { for stopped(view.scheduler_leads, "kube-scheduler") }
            { if follow { follow_panel(followed.as_ref(), lang, d) } else { follow_button(followed.is_some(), lang, d) } }
            { tree(&view.deployments, lang) }
            <h3>{ t(lang, Text::KubeNodes) }</h3>
            { nodes(&view.nodes) }
            <h3>{ t(lang, Text::KubeEvents) }</h3>
            { events(&view.events, world.now()) }
            <h3>{ t(lang, Text::KubeRegistry) }</h3>
            <ol class="kube-registry" data-registry="">
                { for registry.iter().map(|(key, rev)| html! {
                    <li><span class="rev">{ *rev }</span><span class="k">{ key.clone() }</span></li>
                }) }
            </ol>
            { rows_not_shown(stored - registry.len(), "", "etcdctl get /registry --prefix --keys-only", lang) }
        </div>
    }
}

/// The `/registry` keys of the leader's store (or the first member's), with their mod
/// revisions.
fn follow_button(wrote: bool, lang: Lang, d: &Dispatch) -> Html {
    let d = d.clone();
    let label = if wrote {
        Text::KubeFollow
    } else {
        Text::KubeFollowStart
    };
    html! {
        <button class="primary" data-action="kube-follow"
            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::Follow(true)))}>
            { format!("⤷ {}", t(lang, label)) }</button>
    }
}

fn tree(deployments: &[DeploymentView], lang: Lang) -> Html {
    html! {
        <ul class="kube-tree">
            { for deployments.iter().map(|dep| html! {
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
                                { rows_not_shown(rs.pod_count() - rs.pods.len(), &statuses(&rs.rest), &format!("kubectl get pods -n {}", dep.namespace), lang) }
                            </li>
                        }) }
                    </ul>
                </li>
            }) }
        </ul>
    }
}

/// The rest of a cut list by status (`230 Running, 170 Pending`): it must not hide that some
/// are stuck.
fn statuses(counts: &[(String, usize)]) -> String {
    let parts: Vec<String> = counts.iter().map(|(s, n)| format!("{n} {s}")).collect();
    parts.join(", ")
}

fn nodes(nodes: &[NodeView]) -> Html {
    html! {
        <div class="kube-nodes">
            { for nodes.iter().map(|n| html! {
                <span class={classes!("kube-node", if n.ready { "ready" } else { "not-ready" }, n.control_plane.then_some("control-plane"))}
                    data-node-name={n.name.clone()} data-control-plane={n.control_plane.to_string()}>
                    { format!("{} {}", n.name, if n.ready { "Ready" } else { "NotReady" }) }
                    if n.control_plane { <span class="role">{ "control-plane" }</span> }
                </span>
            }) }
        </div>
    }
}

fn events(events: &[EventView], now: Millis) -> Html {
    html! {
        <table class="kube-events" data-events="">
            <tr><th>{ "LAST SEEN" }</th><th>{ "TYPE" }</th><th>{ "REASON" }</th><th>{ "OBJECT" }</th><th>{ "MESSAGE" }</th></tr>
            { for events.iter().map(|e| {
                let age = crate::kube::meta::human_duration(now.saturating_sub(e.last_seen_ms));
                let age = if e.count > 1 { format!("{age} (x{})", e.count) } else { age };
                html! {
                    <tr data-event-reason={e.reason.clone()} class={classes!((e.event_type == "Warning").then_some("warning"))}>
                        <td class="age">{ age }</td><td>{ e.event_type.clone() }</td><td>{ e.reason.clone() }</td>
                        <td class="obj">{ e.object.clone() }</td><td>{ e.message.clone() }</td>
                    </tr>
                }
            }) }
        </table>
    }
}
