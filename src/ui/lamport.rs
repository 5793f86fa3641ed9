//! The space-time (Lamport) diagram: one lane per member, time running to the right, each
//! message an arrow from its sender's lane at the moment it was sent to its receiver's lane at
//! the moment it arrives, or ending in a cross where the network lost it. The messages come
//! from the engine's exact wire log (`Sim::wire_since`); the role changes from its narration
//! events.

use super::cluster::message_class;
use super::i18n::{t, Lang, Text};
use super::recorder::{Seen, WINDOW_MS};
use crate::base::{MemberId, Millis};
use crate::etcd::Cluster as World;
use crate::raft::{NodeEvent, RoleName};
use yew::prelude::*;

const WIDTH: f64 = 900.0;
/// The lanes start right of their names: room for `m11`, more for a longer name (`master`).
const LEFT: f64 = 48.0;
/// About one character of `.lane-name` (14 px, semibold), to make room for a longer name.
const NAME_CHAR: f64 = 9.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 22.0;
const LANE: f64 = 44.0;

/// Styles inside the SVG itself, so that a downloaded file looks the same on its own.
const STYLE: &str = "
.lane{stroke:#c3cad3;stroke-width:1.5}
.lane-name{font:600 14px system-ui,sans-serif;fill:#1d232b;dominant-baseline:middle}
.tick{stroke:#eef1f5;stroke-width:1}
.tick-label{font:11px system-ui,sans-serif;fill:#5b6572;text-anchor:middle}
.arrow{stroke-width:2;fill:none}
.msg.vote .arrow{stroke:#cc79a7}
.msg.vote-resp .arrow{stroke:#cc79a7;stroke-dasharray:5 3}
.msg.heartbeat .arrow{stroke:#56b4e9;stroke-width:1.2;opacity:.7}
.msg.heartbeat-resp .arrow{stroke:#56b4e9;stroke-width:1.2;stroke-dasharray:3 3;opacity:.7}
.msg.append .arrow{stroke:#0072b2;stroke-width:2.5}
.msg.append-resp .arrow{stroke:#0072b2;stroke-dasharray:5 3}
.msg.other .arrow{stroke:#5b6572}
.msg .head{stroke:none}
.msg.vote .head,.msg.vote-resp .head{fill:#cc79a7}
.msg.heartbeat .head,.msg.heartbeat-resp .head{fill:#56b4e9}
.msg.append .head,.msg.append-resp .head{fill:#0072b2}
.msg.other .head{fill:#5b6572}
.msg.flying .arrow{stroke-dasharray:2 3}
.msg.vanished .arrow{opacity:.35}
.msg .lost{stroke:#d55e00;stroke-width:2.2;fill:none}
.msg.selected .arrow{stroke:#1d232b;stroke-width:3.5;opacity:1}
.msg .hit{stroke:transparent;stroke-width:10;cursor:pointer}
.mark{font:700 12px system-ui,sans-serif;text-anchor:middle;dominant-baseline:middle}
.mark.leader{fill:#d55e00}.mark.candidate{fill:#cc79a7}.mark.stopped{fill:#8a9099}
.now{stroke:#1d232b;stroke-width:1.5;stroke-dasharray:4 3}
";

/// Width and height of the diagram for `lanes` members, in SVG user units.
pub fn size(lanes: usize) -> (f64, f64) {
    (WIDTH, TOP + LANE * lanes as f64 + 18.0)
}

/// Where a moment and a member are drawn: time runs right over the last `WINDOW_MS`, one
/// lane per member.
struct Axes {
    ids: Vec<MemberId>,
    names: Vec<String>,
    left: f64,
    start: Millis,
    now: Millis,
    height: f64,
}

impl Axes {
    fn x_of(&self, t: Millis) -> f64 {
        let span = WIDTH - self.left - RIGHT;
        self.left + (t.saturating_sub(self.start) as f64 / WINDOW_MS as f64) * span
    }

    fn lane_of(&self, id: MemberId) -> Option<f64> {
        self.ids
            .iter()
            .position(|m| *m == id)
            .map(|i| TOP + LANE * (i as f64 + 0.5))
    }
}

/// The diagram of `drawn` (what `Recorder::drawn` keeps of the window).
pub fn render(
    world: &World,
    drawn: &[&Seen],
    selected: Option<u64>,
    lang: Lang,
    on_select: Callback<u64>,
) -> Html {
    let now = world.now();
    let ids = world.member_ids();
    let (_, height) = size(ids.len());
    let names: Vec<String> = ids.iter().map(|id| world.display_name(*id)).collect();
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let axes = Axes {
        ids,
        left: LEFT.max(16.0 + NAME_CHAR * longest as f64),
        names,
        start: now.saturating_sub(WINDOW_MS),
        now,
        height,
    };
    let arrows = drawn
        .iter()
        .filter_map(|seen| arrow(&axes, seen, selected, &on_select));
    html! {
        <svg class="lamport" xmlns="http://www.w3.org/2000/svg" data-lamport=""
             viewBox={format!("0 0 {WIDTH} {}", fmt(height))} role="img"
             aria-label={t(lang, Text::SpaceTime)}>
            <style>{ STYLE }</style>
            <rect x="0" y="0" width={fmt(WIDTH)} height={fmt(height)} fill="white" />
            { ticks(&axes) }
            { for axes.ids.iter().zip(&axes.names).map(|(id, name)| {
                let y = axes.lane_of(*id).unwrap_or(0.0);
                html! { <>
                    <line class="lane" x1={fmt(axes.left)} x2={fmt(WIDTH - RIGHT)} y1={fmt(y)} y2={fmt(y)} />
                    <text class="lane-name" x="8" y={fmt(y)}>{ name.clone() }</text>
                </> }
            }) }
            { marks(world, &axes) }
            { for arrows }
            <line class="now" x1={fmt(axes.x_of(now))} x2={fmt(axes.x_of(now))} y1={fmt(TOP - 8.0)} y2={fmt(height - 16.0)} />
        </svg>
    }
}

/// A grid line and its label every 250 ms.
fn ticks(axes: &Axes) -> Html {
    let first_tick = axes.start.div_ceil(250) * 250;
    let height = axes.height;
    (0..8)
        .map(|i| first_tick + i * 250)
        .filter(|t| *t <= axes.now)
        .map(|t| {
            let x = axes.x_of(t);
            html! { <>
                <line class="tick" x1={fmt(x)} x2={fmt(x)} y1={fmt(TOP - 6.0)} y2={fmt(height - 16.0)} />
                <text class="tick-label" x={fmt(x)} y={fmt(height - 4.0)}>{ format!("{:.2}s", t as f64 / 1000.0) }</text>
            </> }
        })
        .collect()
}

/// One message: from its send to where it is now, its arrival, or where it vanished.
fn arrow(
    axes: &Axes,
    seen: &Seen,
    selected: Option<u64>,
    on_select: &Callback<u64>,
) -> Option<Html> {
    let (m, vanished_ms, now) = (&seen.message, seen.vanished_ms, axes.now);
    let (y1, y2) = (axes.lane_of(m.from)?, axes.lane_of(m.to)?);
    let end_t = vanished_ms.unwrap_or(m.arrive_ms).min(now);
    let (x1, x2) = (axes.x_of(m.sent_ms.max(axes.start)), axes.x_of(end_t));
    // Where the arrow is now, on the straight line from send to arrival.
    let span = m.arrive_ms.saturating_sub(m.sent_ms).max(1) as f64;
    let f = (end_t.saturating_sub(m.sent_ms) as f64 / span).clamp(0.0, 1.0);
    let y_end = y1 + (y2 - y1) * f;
    let flying = vanished_ms.is_none() && m.arrive_ms > now;
    let class = classes!(
        message_class(m.kind),
        flying.then_some("flying"),
        vanished_ms.is_some().then_some("vanished"),
        (selected == Some(m.id)).then_some("selected"),
    );
    let id = m.id;
    let onclick = on_select.reform(move |_: MouseEvent| id);
    // Lost on the wire (or dropped by hand): a cross where it vanished.
    let cross = vanished_ms.filter(|v| *v <= now).map(|_| {
        let (x, y) = (x2, y_end);
        format!(
            "M {} {} l 8 8 M {} {} l -8 8",
            fmt(x - 4.0),
            fmt(y - 4.0),
            fmt(x + 4.0),
            fmt(y - 4.0)
        )
    });
    let head = (!flying && vanished_ms.is_none()).then(|| {
        let dir = if y2 >= y1 { -1.0 } else { 1.0 };
        format!("M {} {} l -4 {} l 8 0 z", fmt(x2), fmt(y2), fmt(7.0 * dir))
    });
    Some(html! {
        <g class={class} data-lamport-message={m.id.to_string()} data-lost={cross.is_some().then_some("true")} onclick={onclick}>
            <title>{ format!("#{} {}", m.id, m.describe) }</title>
            <line class="arrow" x1={fmt(x1)} y1={fmt(y1)} x2={fmt(x2)} y2={fmt(y_end)} />
            if let Some(d) = head { <path class="head" d={d} /> }
            if let Some(d) = cross { <path class="lost" d={d} /> }
            <line class="hit" x1={fmt(x1)} y1={fmt(y1)} x2={fmt(x2)} y2={fmt(y_end)} />
        </g>
    })
}

/// Who became leader or candidate, and in which term, on its lane.
fn marks(world: &World, axes: &Axes) -> Html {
    world
        .recent_events(60)
        .into_iter()
        .filter(|e| e.time_ms >= axes.start)
        .filter_map(|e| {
            let y = axes.lane_of(e.member)?;
            let (label, class) = match e.event {
                NodeEvent::BecameRole {
                    role: RoleName::Leader,
                    term,
                } => (format!("L{term}"), "mark leader"),
                NodeEvent::BecameRole {
                    role: RoleName::Candidate,
                    term,
                } => (format!("C{term}"), "mark candidate"),
                _ => return None,
            };
            Some(html! {
                <text class={class} x={fmt(axes.x_of(e.time_ms))} y={fmt(y - 11.0)}>{ label }</text>
            })
        })
        .collect()
}

fn fmt(v: f64) -> String {
    format!("{v:.1}")
}
