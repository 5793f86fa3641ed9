//! The cluster drawn as SVG: members on a ring, messages in flight between them, each
//! member's election timer running down around it.

use super::i18n::{member_label, message_label, role, t, Lang, Text};
use crate::base::{MemberId, Millis};
use crate::etcd::Cluster as World;
use crate::sim::InFlight;
use yew::prelude::*;

const SIZE: f64 = 560.0;
const CENTER: f64 = SIZE / 2.0;
const RING: f64 = 200.0;

pub fn node_radius(count: usize) -> f64 {
    (58.0 - count as f64 * 3.0).clamp(26.0, 48.0)
}

pub fn position(i: usize, count: usize) -> (f64, f64) {
    let angle =
        -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / count.max(1) as f64;
    (CENTER + RING * angle.cos(), CENTER + RING * angle.sin())
}

/// A member's state as the page names it (and as `data-state` carries it).
pub fn state_of(world: &World, id: MemberId) -> &'static str {
    world.node(id).map_or("stopped", |n| n.role_name().as_str())
}

pub fn message_class(kind: &str) -> &'static str {
    match kind {
        "PreVote" | "RequestVote" => "msg vote",
        "PreVoteResp" | "RequestVoteResp" => "msg vote-resp",
        "Heartbeat" => "msg heartbeat",
        "HeartbeatResp" => "msg heartbeat-resp",
        "AppendEntries" | "InstallSnapshot" => "msg append",
        "AppendResp" => "msg append-resp",
        _ => "msg other",
    }
}

fn arc_path(cx: f64, cy: f64, r: f64, fraction: f64) -> String {
    let fraction = fraction.clamp(0.0, 0.9999);
    let angle = std::f64::consts::TAU * fraction - std::f64::consts::FRAC_PI_2;
    let (x, y) = (cx + r * angle.cos(), cy + r * angle.sin());
    let large = if fraction > 0.5 { 1 } else { 0 };
    format!("M {cx} {} A {r} {r} 0 {large} 1 {x:.2} {y:.2}", cy - r)
}

/// Enter or Space on a focused SVG button does what its click does (an SVG `<g>` is no
/// `<button>`, so the browser does not turn the key into a click).
fn on_activate(action: impl Fn() + 'static) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" || e.key() == " " {
            e.prevent_default();
            e.stop_propagation();
            action();
        }
    })
}

/// A member's node on the ring leads the keyboard to its card's controls (the first of them).
fn focus_card(id: MemberId) {
    use wasm_bindgen::JsCast;
    let button = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(&format!(r#"[data-member="{id}"] .member-actions button"#))
                .ok()
                .flatten()
        })
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(button) = button {
        let _ = button.focus();
    }
}

fn render_message(
    m: &InFlight,
    lang: Lang,
    now: Millis,
    ids: &[MemberId],
    radius: f64,
    selected: Option<u64>,
    on_select: &Callback<u64>,
) -> Html {
    let count = ids.len();
    let (Some(fi), Some(ti)) = (
        ids.iter().position(|i| *i == m.from),
        ids.iter().position(|i| *i == m.to),
    ) else {
        return html! {};
    };
    let ((x1, y1), (x2, y2)) = (position(fi, count), position(ti, count));
    let span = (m.arrive_ms.saturating_sub(m.sent_ms)).max(1) as f64;
    let p = (now.saturating_sub(m.sent_ms) as f64 / span).clamp(0.0, 1.0);
    // Travel from edge to edge, not centre to centre.
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let edge = (radius / len).min(0.45);
    let q = edge + (1.0 - 2.0 * edge) * p;
    let (x, y) = (x1 + dx * q, y1 + dy * q);
    let label = if m.entries > 0 {
        format!("{}({})", m.kind, m.entries)
    } else {
        m.kind.to_string()
    };
    let id = m.id;
    let onclick = on_select.reform(move |_: MouseEvent| id);
    let onkeydown = {
        let on_select = on_select.clone();
        on_activate(move || on_select.emit(id))
    };
    // Named by its <title> (an aria-label would have to repeat the label drawn on it).
    let spoken = message_label(lang, id, m.kind, &m.from.to_string(), &m.to.to_string());
    let class = classes!(
        message_class(m.kind),
        (selected == Some(id)).then_some("selected")
    );
    html! {
        <g class={class} key={id} data-message={m.id.to_string()} data-kind={m.kind} onclick={onclick}
           tabindex="0" role="button" {onkeydown}>
            <title>{ format!("{spoken}: {}", m.describe) }</title>
            <circle class="hit" cx={format!("{x:.1}")} cy={format!("{y:.1}")} r="16" />
            <circle class="dot" cx={format!("{x:.1}")} cy={format!("{y:.1}")} r="7" />
            if !m.kind.starts_with("Heartbeat") {
                <text x={format!("{x:.1}")} y={format!("{:.1}", y - 11.0)} class="msg-label">{ label }</text>
            }
        </g>
    }
}

pub fn render_cluster(
    world: &World,
    lang: Lang,
    selected: Option<u64>,
    on_select: Callback<u64>,
) -> Html {
    let ids = world.member_ids();
    let count = ids.len();
    let radius = node_radius(count);
    let now = world.now();
    let leader = world.leader();
    let links = ids.iter().enumerate().flat_map(|(i, a)| {
        ids.iter()
            .enumerate()
            .skip(i + 1)
            .map(move |(j, b)| (i, j, *a, *b))
    });
    html! {
        <svg class="cluster" viewBox={format!("0 0 {SIZE} {SIZE}")} role="group"
             aria-label={t(lang, Text::Cluster)}>
            { for links.map(|(i, j, a, b)| {
                let ((x1, y1), (x2, y2)) = (position(i, count), position(j, count));
                let cut = world.net.is_cut(a, b) || world.net.is_cut(b, a);
                html! { <line class={if cut { "link cut" } else { "link" }}
                    x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} /> }
            }) }
            { for ids.iter().enumerate().map(|(i, id)| {
                let (x, y) = position(i, count);
                let state = state_of(world, *id);
                let view = world.raft_state(*id);
                let term = view.as_ref().map_or(0, |v| v.term);
                let timer = view.as_ref().filter(|v| v.role.as_str() != "leader").map(|v| {
                    1.0 - f64::from(v.election_elapsed) / f64::from(v.election_timeout.max(1))
                });
                let paused = world.is_paused(*id);
                let class = classes!("node", state, paused.then_some("paused"), (leader == Some(*id)).then_some("effective"));
                html! {
                    <g class={class} key={id.to_string()} data-node={id.to_string()} tabindex="0" role="button"
                       onkeydown={{ let id = *id; on_activate(move || focus_card(id)) }}>
                        <title>{ member_label(lang, &id.to_string(), state, term) }</title>
                        <circle class="halo" cx={x.to_string()} cy={y.to_string()} r={(radius + 9.0).to_string()} />
                        if let Some(fraction) = timer {
                            <path class="timer" d={arc_path(x, y, radius + 9.0, fraction)} />
                        }
                        <circle class="body" cx={x.to_string()} cy={y.to_string()} r={radius.to_string()} />
                        <text class="name" x={x.to_string()} y={(y - radius * 0.22).to_string()}>{ id.to_string() }</text>
                        <text class="term" x={x.to_string()} y={(y + radius * 0.38).to_string()}>
                            { if state == "stopped" { "✕".to_string() } else { format!("T{term}") } }
                        </text>
                        <text class="role" x={x.to_string()} y={(y + radius + 28.0).to_string()}>
                            { role(lang, state) }
                        </text>
                    </g>
                }
            }) }
            // Messages last, on top of the members, so every one of them can be clicked.
            { for world.in_flight().iter().map(|m| render_message(m, lang, now, &ids, radius, selected, &on_select)) }
        </svg>
    }
}
