//! The cluster drawn as SVG: members on a ring, messages in flight between them (one label
//! per edge and direction, beside the edge), each member's election timer running down around
//! it, a candidate's vote tally, and a member's actions one click away (a small menu).
//! `LiveRing` takes a picture of the world (plain data) when something happens in it; the
//! `Ring` component keeps what only the page knows (which menu is open) and sends the menu's
//! commands; a `MessageDot` glides on its own between events.

use super::a11y::tab_after_key;
use super::dom;
use super::i18n::{member_label, message_label, role, t, Lang, Text};
use super::lab::{Msg, Timeline, GLIDE_LEAST_MS};
use super::page::{Clock, Dispatch, Page};
use super::ring::{self, EdgeLabel, LabelMetrics, Placed, Wire};
use crate::base::{MemberId, Millis};
use crate::etcd::{Cluster as World, PartitionView};
use crate::sim::InFlight;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

const SIZE: f64 = 560.0;
const CENTER: f64 = SIZE / 2.0;
const RING: f64 = 200.0;
/// The member menu's width in CSS pixels, and how far above the member's centre it starts.
const MENU_WIDTH: f64 = 170.0;
const MENU_RISE: f64 = 60.0;

/// Where an open member menu sits, in CSS pixels from the picture's corner: worked out from
/// the picture's size on the page when it opens (the SVG keeps its square centred).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Anchor {
    member: MemberId,
    left_px: f64,
    top_px: f64,
}

impl Anchor {
    fn beside(member: MemberId, (x, y): (f64, f64), radius: f64, (w, h): (f64, f64)) -> Anchor {
        let scale = (w.min(h) / SIZE).max(0.01);
        let (ox, oy) = ((w - SIZE * scale) / 2.0, (h - SIZE * scale) / 2.0);
        let (px, py) = (ox + x * scale, oy + y * scale);
        let gap = (radius + 12.0) * scale;
        // On the side facing the centre, so it stays inside the picture.
        let left_px = if x > CENTER {
            px - gap - MENU_WIDTH
        } else {
            px + gap
        };
        Anchor {
            member,
            left_px: left_px.max(0.0),
            top_px: (py - MENU_RISE).max(0.0),
        }
    }
}

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

/// A campaign's answers so far, from the candidate's own view.
#[derive(Clone, Debug, PartialEq)]
pub struct Tally {
    pub granted: usize,
    pub refused: usize,
    pub needed: usize,
}

/// One member as the ring draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct NodePicture {
    pub id: MemberId,
    /// What it is called on screen (kubeadm's member is `master`, its id `m1`).
    pub name: String,
    pub state: &'static str,
    pub term: u64,
    /// The election timer's remaining fraction (none for a leader or a stopped member).
    pub timer: Option<f64>,
    pub paused: bool,
    pub leading: bool,
    pub tally: Option<Tally>,
    /// Voters that answered this member's campaign, and how.
    pub answers: Vec<(MemberId, bool)>,
}

/// One message on the wire, drawn from where it leaves to where it lands (edge to edge, not
/// centre to centre).
#[derive(Clone, Debug, PartialEq)]
pub struct Dot {
    pub id: u64,
    pub kind: &'static str,
    pub from: MemberId,
    pub to: MemberId,
    pub start: (f64, f64),
    pub end: (f64, f64),
    pub sent_ms: Millis,
    pub arrive_ms: Millis,
    pub describe: crate::sim::Line,
}

impl Dot {
    /// Where it is at virtual time `now`.
    pub fn at(&self, now: Millis) -> (f64, f64) {
        let span = self.arrive_ms.saturating_sub(self.sent_ms).max(1) as f64;
        let p = (now.saturating_sub(self.sent_ms) as f64 / span).clamp(0.0, 1.0);
        let ((x1, y1), (x2, y2)) = (self.start, self.end);
        (x1 + (x2 - x1) * p, y1 + (y2 - y1) * p)
    }
}

/// Everything the ring draws, taken from the world when something happens in it (the messages
/// move on their own: see `MessageDot`).
#[derive(Clone, Debug, PartialEq)]
pub struct RingPicture {
    pub nodes: Vec<NodePicture>,
    /// (i, j, cut) for each pair of members.
    pub links: Vec<(usize, usize, bool)>,
    pub dots: Vec<Dot>,
    pub labels: Vec<EdgeLabel>,
    pub radius: f64,
    /// The leader's one-click client write.
    pub client_write: Option<String>,
    pub partition: PartitionView,
}

fn dot(m: &InFlight, ids: &[MemberId], radius: f64) -> Option<Dot> {
    let count = ids.len();
    let fi = ids.iter().position(|i| *i == m.from)?;
    let ti = ids.iter().position(|i| *i == m.to)?;
    let ((x1, y1), (x2, y2)) = (position(fi, count), position(ti, count));
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let edge = (radius / len).min(0.45);
    let along = |q: f64| (x1 + dx * q, y1 + dy * q);
    Some(Dot {
        id: m.id,
        kind: m.kind,
        from: m.from,
        to: m.to,
        start: along(edge),
        end: along(1.0 - edge),
        sent_ms: m.sent_ms,
        arrive_ms: m.arrive_ms,
        describe: m.describe.clone(),
    })
}

fn node_picture(world: &World, id: MemberId, needed: usize) -> NodePicture {
    let state = state_of(world, id);
    let view = world.raft_state(id);
    let term = view.as_ref().map_or(0, |v| v.term);
    let timer = view
        .as_ref()
        .filter(|v| v.role.as_str() != "leader")
        .map(|v| 1.0 - f64::from(v.election_elapsed) / f64::from(v.election_timeout.max(1)));
    let answers = view.as_ref().map(|v| v.votes.clone()).unwrap_or_default();
    let tally = (!answers.is_empty()).then(|| Tally {
        granted: answers.iter().filter(|(_, g)| *g).count(),
        refused: answers.iter().filter(|(_, g)| !*g).count(),
        needed,
    });
    NodePicture {
        id,
        name: world.display_name(id),
        state,
        term,
        timer,
        paused: world.is_paused(id),
        leading: world.leader() == Some(id),
        tally,
        answers,
    }
}

/// The ring as `world` is now, with the messages it will send soon (`ahead`, foreseen) drawn
/// to glide when they are sent.
pub fn picture(world: &World, ahead: &[InFlight]) -> RingPicture {
    let ids = world.member_ids();
    let count = ids.len();
    let radius = node_radius(count);
    let needed = world.quorum_view().quorum;
    let nodes: Vec<NodePicture> = ids
        .iter()
        .map(|id| node_picture(world, *id, needed))
        .collect();
    let links = (0..count)
        .flat_map(|i| ((i + 1)..count).map(move |j| (i, j)))
        .map(|(i, j)| {
            let (a, b) = (ids[i], ids[j]);
            (i, j, world.net.is_cut(a, b) || world.net.is_cut(b, a))
        })
        .collect();
    let flying = world.in_flight();
    let index = |m: MemberId| ids.iter().position(|i| *i == m);
    let wires: Vec<Wire> = flying
        .iter()
        .filter_map(|m| {
            Some(Wire {
                from: index(m.from)?,
                to: index(m.to)?,
                kind: m.kind,
                entries: m.entries,
            })
        })
        .collect();
    let labels = ring::edge_labels(&wires);
    // What was foreseen stays foreseen while the world follows it: some of it now flies,
    // some already landed.
    let mut sent: Vec<u64> = flying.iter().map(|m| m.id).collect();
    sent.sort_unstable();
    let now = world.now();
    let ahead = (ahead.iter()).filter(|m| m.arrive_ms > now && sent.binary_search(&m.id).is_err());
    // In the order they were sent, which never changes as they go: a dot the ring moved
    // among its siblings would start its glide again.
    let mut dots: Vec<Dot> = (flying.iter().chain(ahead))
        .filter_map(|m| dot(m, &ids, radius))
        .collect();
    dots.sort_unstable_by_key(|d| d.id);
    RingPicture {
        dots,
        labels,
        client_write: (world.leader()).map(|l| ring::client_write(l, world.revision_of(l))),
        partition: world.partition_view(),
        nodes,
        links,
        radius,
    }
}

/// Message labels on screen, in CSS px: a laptop's reading size, and the room's (issue 17
/// point 5 asks at least 18 px in presenter mode).
const LABEL_PX: f64 = 12.0;
const PRESENTER_LABEL_PX: f64 = 19.0;

/// Message labels' type size in SVG units for their size on screen: the ring is drawn
/// `SIZE` units wide at whatever size the layout leaves it (`scale` px per unit).
fn label_font(scale: Option<f64>, presenter: bool) -> f64 {
    let px = if presenter {
        PRESENTER_LABEL_PX
    } else {
        LABEL_PX
    };
    (px / scale.unwrap_or(0.5)).clamp(10.0, 64.0)
}

/// Where the labels go, set in `font` (SVG units).
fn placed_labels(pic: &RingPicture, font: f64) -> Vec<Placed> {
    let count = pic.nodes.len();
    let centres: Vec<(f64, f64)> = (0..count).map(|i| position(i, count)).collect();
    ring::place_labels(
        &centres,
        &pic.labels,
        LabelMetrics::for_font(font, pic.radius + 12.0),
    )
}

/// The ring as the world is at this frame: the picture is taken again when an event happened
/// or the run changed, and the ring draws only a picture that changed.
#[component]
pub fn LiveRing() -> Html {
    use_context::<Clock>();
    let taken = use_mut_ref(|| None::<(Taken, Rc<RingPicture>)>);
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let lab = page.lab.borrow();
    let timeline = lab.timeline();
    let playing = page.view.playing;
    let (foreseen, ahead) = lab.foreseen();
    let at = (
        timeline.epoch,
        lab.world().steps(),
        lab.shown_revision(),
        playing.then_some(foreseen),
    );
    let picture = match &*taken.borrow() {
        Some((when, picture)) if *when == at => picture.clone(),
        // With no motion to bring them in, messages not yet sent would show early.
        _ if playing && !dom::reduced_motion() => Rc::new(picture(lab.world(), &ahead)),
        _ => Rc::new(picture(lab.world(), &[])),
    };
    *taken.borrow_mut() = Some((at, picture.clone()));
    let view = &page.view;
    html! {
        <Ring {picture} {timeline} {playing} presenter={view.presenter}
            lang={view.lang} selected={view.selected_message} d={page.dispatcher()} />
    }
}

/// When a picture was taken: the timeline, the world's events, the run's shown revision, the
/// messages foreseen.
type Taken = (u64, u64, u64, Option<u64>);

/// All plain data (and a dispatcher that stays the same), so a frame whose picture is the
/// last one's skips the ring entirely.
#[derive(Properties, PartialEq)]
pub struct RingProps {
    pub picture: Rc<RingPicture>,
    pub timeline: Timeline,
    /// Whether the run plays: the messages stand still while it does not.
    pub playing: bool,
    pub presenter: bool,
    pub lang: Lang,
    pub selected: Option<u64>,
    pub d: Dispatch,
}

/// The ring's CSS pixels per SVG unit, measured when the space it is drawn in changes size (a
/// window resized, the console drawer opened): read in a render, the size forced a layout in
/// every frame. That space's size is also handed to the CSS (`--ring-w`, `--ring-h`) where
/// the layout fits the ring to it: sized in percent, the SVG was laid out whole again in
/// every frame that moved a message.
#[hook]
fn use_scale(svg: &NodeRef) -> UseStateHandle<Option<f64>> {
    let scale = use_state_eq(|| None::<f64>);
    {
        let (svg, scale) = (svg.clone(), scale.clone());
        use_effect_with((), move |_| {
            let stage = svg
                .cast::<web_sys::Element>()
                .and_then(|el| el.parent_element());
            let measured = stage.clone();
            let stop = stage.map(|stage| {
                dom::observe_size(&stage, move || {
                    let Some(stage) = measured.as_ref() else {
                        return;
                    };
                    let (w, h) = (stage.client_width(), stage.client_height());
                    let size = format!("--ring-w: {w}px; --ring-h: {h}px");
                    let _ = stage.set_attribute("style", &size);
                    let side = w.min(h);
                    scale.set((side > 0).then(|| f64::from(side) / SIZE));
                })
            });
            move || {
                if let Some(stop) = stop {
                    stop();
                }
            }
        });
    }
    scale
}

/// The ring, and the action menu of the member last clicked.
#[component]
pub fn Ring(props: &RingProps) -> Html {
    let menu = use_state(|| None::<Anchor>);
    let svg = use_node_ref();
    let page = use_context::<Page>();
    let pic = &props.picture;
    let lang = props.lang;
    let count = pic.nodes.len();
    // Made once per ring size, so the members (components) skip a redraw of the ring when
    // theirs did not change; the member says whether its menu is open.
    let toggle = {
        let (menu, svg) = (menu.setter(), svg.clone());
        use_callback(pic.radius, move |(id, x, y, open): Toggle, radius| {
            let size = svg
                .cast::<web_sys::Element>()
                .map(|el| (f64::from(el.client_width()), f64::from(el.client_height())));
            menu.set(match (open, size) {
                (false, Some(size)) => Some(Anchor::beside(id, (x, y), *radius, size)),
                _ => None,
            })
        })
    };
    use_close_on_outside_click(&menu);
    // The menu pattern: an opened menu takes the focus on its first item, and a closed one
    // gives it back to its member (once the render has removed the menu).
    let last_open = use_mut_ref(|| None::<MemberId>);
    use_effect_with(menu.map(|a| a.member), move |member| {
        match (*member, last_open.replace(*member)) {
            (Some(id), _) => {
                dom::focus_selector(&format!(r#"{} [role="menuitem"]"#, menu_selector(id)));
            }
            (None, Some(closed)) => dom::focus_selector(&format!(r#"[data-node="{closed}"]"#)),
            (None, None) => {}
        }
    });
    let scale = use_scale(&svg);
    let fade = use_state_eq(|| false);
    let font = label_font(*scale, props.presenter);
    // Made once: a new callback in every render would make every message dot's props differ.
    let on_select = use_memo(props.d.clone(), Dispatch::select_message);
    let now = page.as_ref().map_or(0, |p| p.lab.borrow().world().now());
    let glide = Glide {
        epoch: props.timeline.epoch,
        playing: props.playing,
        now,
        speed: props.timeline.speed,
    };
    let placed = placed_labels(pic, font);
    let ids: Rc<Vec<MemberId>> = Rc::new(pic.nodes.iter().map(|n| n.id).collect());
    let menu_html = menu
        .and_then(|a| pic.nodes.iter().find(|n| n.id == a.member).map(|n| (a, n)))
        .map(|(a, n)| node_menu(n, a, pic, lang, page.as_ref(), menu.clone()));
    html! {
        <div class={classes!("ring", fade.then_some("heartbeats-faded"))} data-ring="">
            <div class="ring-stage">
            <svg ref={svg} class="cluster" viewBox={format!("0 0 {SIZE} {SIZE}")} role="group"
                 aria-label={t(lang, Text::Cluster)}>
                // A group per kind: Yew matches unkeyed children by position, so in one flat
                // list a message arriving made it rebuild members and links each frame.
                <Links links={pic.links.clone()} {count} />
                <g class="nodes">{ for pic.nodes.iter().enumerate().map(|(i, n)| {
                    let open = menu.is_some_and(|a| a.member == n.id);
                    html! { <Node key={n.id.to_string()} n={n.clone()} {i} ids={ids.clone()}
                        radius={pic.radius} {lang} {open} toggle={toggle.clone()} /> }
                }) }</g>
                // Messages last, on top of the members, so every one of them can be clicked.
                <g class="messages">
                    { for pic.dots.iter().map(|d| message_dot(d, &pic.nodes, lang, (props.selected, &on_select), glide)) }
                </g>
                <g class="labels">{ for pic.labels.iter().zip(&placed).map(|(l, p)| label(l, p, &pic.nodes, font)) }</g>
            </svg>
            { for menu_html }
            </div>
            { ring_tools(&pic.partition, lang, &fade) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct LinksProps {
    links: Vec<(usize, usize, bool)>,
    count: usize,
}

/// The links between members: a component of its own, so the ring's other redraws (a message
/// sent, a timer's tick) skip them; with 11 members there are 55, four numbers each.
#[component]
fn Links(props: &LinksProps) -> Html {
    let count = props.count;
    html! {
        <g class="links">{ for props.links.iter().map(|(i, j, cut)| {
            let ((x1, y1), (x2, y2)) = (position(*i, count), position(*j, count));
            html! { <line class={if *cut { "link cut" } else { "link" }}
                x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} /> }
        }) }</g>
    }
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

/// While a member's menu is open, a click anywhere but in it or on its member (whose own
/// click toggles it) closes it, as the page's other menus do.
#[hook]
fn use_close_on_outside_click(menu: &UseStateHandle<Option<Anchor>>) {
    let handle = menu.clone();
    use_effect_with(menu.map(|a| a.member), move |open| {
        let document = web_sys::window().and_then(|w| w.document());
        let listener = open.map(|id| {
            let keep = format!(r#"{}, [data-node="{id}"]"#, menu_selector(id));
            Closure::<dyn Fn(MouseEvent)>::new(move |e: MouseEvent| {
                let inside = e
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .and_then(|el| el.closest(&keep).ok().flatten())
                    .is_some();
                if !inside {
                    handle.set(None);
                }
            })
        });
        if let (Some(d), Some(l)) = (&document, &listener) {
            let _ = d.add_event_listener_with_callback("click", l.as_ref().unchecked_ref());
        }
        move || {
            if let (Some(d), Some(l)) = (&document, &listener) {
                let _ = d.remove_event_listener_with_callback("click", l.as_ref().unchecked_ref());
            }
        }
    });
}

fn menu_selector(id: MemberId) -> String {
    format!(r#"[data-node-menu="{id}"]"#)
}

/// A member's click: which, where it is drawn, and whether its menu is open.
type Toggle = (MemberId, f64, f64, bool);

#[derive(Properties, PartialEq)]
struct NodeProps {
    n: NodePicture,
    i: usize,
    /// The members in ring order (where a voter's answer mark goes).
    ids: Rc<Vec<MemberId>>,
    radius: f64,
    lang: Lang,
    open: bool,
    toggle: Callback<Toggle>,
}

/// One member: a component, so a redraw of the ring for a message skips the members whose
/// picture did not change.
#[component]
fn Node(props: &NodeProps) -> Html {
    let (n, i, lang, open) = (&props.n, props.i, props.lang, props.open);
    let count = props.ids.len();
    let radius = props.radius;
    let (x, y) = position(i, count);
    let id = n.id;
    let class = classes!(
        "node",
        n.state,
        n.paused.then_some("paused"),
        n.leading.then_some("effective")
    );
    let onclick = props.toggle.reform(move |_: MouseEvent| (id, x, y, open));
    let onkeydown = {
        let toggle = props.toggle.clone();
        on_activate(move || toggle.emit((id, x, y, open)))
    };
    // Named by its <title> (an aria-label would have to repeat the texts drawn on it).
    let spoken = format!(
        "{}: {}",
        member_label(lang, &n.name, n.state, n.term),
        t(lang, Text::NodeMenuHint)
    );
    let under = if n.paused && n.state != "stopped" {
        t(lang, Text::Frozen)
    } else {
        role(lang, n.state)
    };
    html! {
        <g class={class} data-node={id.to_string()} data-ring-paused={n.paused.then_some("true")}
           tabindex="0" role="button" aria-haspopup="menu" aria-expanded={open.to_string()} {onclick} {onkeydown}>
            <title>{ spoken }</title>
            <circle class="halo" cx={x.to_string()} cy={y.to_string()} r={(radius + 9.0).to_string()} />
            if let Some(fraction) = n.timer.filter(|_| !n.paused) {
                <path class="timer" d={arc_path(x, y, radius + 9.0, fraction)} />
            }
            <circle class="body" cx={x.to_string()} cy={y.to_string()} r={radius.to_string()} />
            <text class="name" x={x.to_string()} y={(y - radius * 0.22).to_string()}>{ n.name.clone() }</text>
            <text class="term" x={x.to_string()} y={(y + radius * 0.38).to_string()}>
                { if n.state == "stopped" { "✕".to_string() } else { format!("T{}", n.term) } }
            </text>
            <text class="role" x={x.to_string()} y={(y + radius + 28.0).to_string()}>{ under }</text>
            if let Some(tally) = &n.tally {
                <text class="tally" x={x.to_string()} y={(y + radius + 46.0).to_string()}
                    data-tally={format!("{}/{}", tally.granted, tally.refused)}>
                    { format!("✓{} ✕{} · {} {}", tally.granted, tally.refused, t(lang, Text::TallyNeed), tally.needed) }
                </text>
            }
            { for n.answers.iter().filter(|(v, _)| *v != id).map(|(voter, granted)| answer_mark(*voter, *granted, &props.ids, radius)) }
        </g>
    }
}

/// A ✓ or ✕ on a voter's halo, facing the candidate it answered.
fn answer_mark(voter: MemberId, granted: bool, ids: &[MemberId], radius: f64) -> Html {
    let Some(vi) = ids.iter().position(|m| *m == voter) else {
        return html! {};
    };
    let (x, y) = position(vi, ids.len());
    let (ox, oy) = ((x - CENTER) / RING, (y - CENTER) / RING);
    let (mx, my) = (x - ox * (radius + 14.0), y - oy * (radius + 14.0));
    html! {
        <text class={classes!("answer", if granted { "granted" } else { "refused" })}
            x={format!("{mx:.1}")} y={format!("{my:.1}")} data-answer={voter.to_string()}
            data-granted={granted.to_string()}>{ if granted { "✓" } else { "✕" } }</text>
    }
}

fn message_dot(
    d: &Dot,
    nodes: &[NodePicture],
    lang: Lang,
    (selected, on_select): (Option<u64>, &Callback<u64>),
    glide: Glide,
) -> Html {
    let name = |m: MemberId| {
        nodes
            .iter()
            .find(|n| n.id == m)
            .map_or_else(|| m.to_string(), |n| n.name.clone())
    };
    html! {
        <MessageDot key={d.id} dot={d.clone()} names={(name(d.from), name(d.to))} {lang}
            selected={selected == Some(d.id)} on_select={on_select.clone()} {glide} />
    }
}

/// How the messages move: from the virtual time `now` at `speed`, until the timeline `epoch`
/// ends or the run stops playing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glide {
    pub epoch: u64,
    pub playing: bool,
    pub now: Millis,
    pub speed: f64,
}

#[derive(Properties)]
pub struct MessageDotProps {
    pub dot: Dot,
    /// Who sends it and who receives it, as the ring names them (its tooltip).
    pub names: (String, String),
    pub lang: Lang,
    pub selected: bool,
    pub on_select: Callback<u64>,
    pub glide: Glide,
}

impl PartialEq for MessageDotProps {
    // The time a glide starts from is read only when it starts (see `MessageDot`): a dot whose
    // props differ by it alone is not drawn again each time the ring is, once it is sent.
    fn eq(&self, other: &MessageDotProps) -> bool {
        let started = |g: Glide| Glide { now: 0, ..g };
        self.dot == other.dot
            && self.names == other.names
            && self.lang == other.lang
            && self.selected == other.selected
            && self.on_select == other.on_select
            && started(self.glide) == started(other.glide)
            && self.sent() == other.sent()
    }
}

impl MessageDotProps {
    /// Whether the message is on the wire at the ring's time, rather than foreseen.
    fn sent(&self) -> bool {
        self.dot.sent_ms <= self.glide.now
    }
}

/// A message dot glides to where it lands as a CSS animation of its transform, which the
/// compositor runs: moved from Rust each frame, the dots cost a style, a layout and a paint
/// of the ring in every frame. Its path is worked out when it appears and again when the
/// timeline changes (a new animation name restarts the animation from there), or when what
/// was foreseen of it turns out otherwise.
#[component]
fn MessageDot(props: &MessageDotProps) -> Html {
    let d = &props.dot;
    let restarts = use_mut_ref(|| 0u32);
    let style = {
        let (glide, restarts) = (props.glide, restarts.clone());
        use_memo(
            (props.glide.epoch, props.glide.playing, d.clone()),
            move |(_, _, d)| {
                let mut n = restarts.borrow_mut();
                *n += 1;
                glide_style(d, glide, *n % 2 == 0)
            },
        )
    };
    let title = {
        let d = d.clone();
        use_memo((props.lang, props.names.clone()), move |(lang, names)| {
            let spoken = message_label(*lang, d.id, d.kind, &names.0, &names.1);
            format!("{spoken}: {}", d.describe)
        })
    };
    let id = d.id;
    let onclick = props.on_select.reform(move |_: MouseEvent| id);
    let onkeydown = {
        let on_select = props.on_select.clone();
        on_activate(move || on_select.emit(id))
    };
    let class = classes!(message_class(d.kind), props.selected.then_some("selected"));
    let sent = props.sent();
    // Not a style of the gliding <g> itself: in Chromium a change of its style once it is
    // sent restarts its animations on the compositor, which costs the page a frame.
    let pointer = (!sent).then_some("none");
    html! {
        <g class={class} style={(*style).clone()} data-message={id.to_string()} data-kind={d.kind}
           data-foreseen={(!sent).then_some("")} onclick={onclick}
           tabindex={if sent { "0" } else { "-1" }} role="button" {onkeydown}>
            <title>{ (*title).clone() }</title>
            <circle class="hit" r="16" pointer-events={pointer} />
            <circle class="dot" r="7" pointer-events={pointer} />
        </g>
    }
}

/// A glide's keyframes move the dot in their first hundredth and hold it there after
/// (static/style.css): its animation then lasts a hundred times its motion, and ends long
/// after the page has drawn the dot away. In Chromium each animation that starts after a
/// delay or ends costs the page a main-thread frame of its own (about 2 ms); one that starts
/// as the ring draws it shares that drawing's frames.
const GLIDE_HOLDS: f64 = 100.0;

/// The dot's place now, and while the run plays, its glide to where it lands, timed in real
/// ms at the timeline's speed (unless its whole flight is too quick to follow). A foreseen message glides from as far behind its sender as it
/// has yet to wait, unseen until it is sent. Paused, no animation at all: nothing is left
/// for the compositor to keep, and a scrub or a step places the dot exactly.
fn glide_style(d: &Dot, glide: Glide, flip: bool) -> String {
    let (x, y) = d.at(glide.now);
    let from = glide.now.max(d.sent_ms);
    let wait = (from - glide.now) as f64 / glide.speed;
    let flight = (d.arrive_ms.saturating_sub(from) as f64 / glide.speed).max(1.0);
    let whole = d.arrive_ms.saturating_sub(d.sent_ms) as f64 / glide.speed;
    if !glide.playing || glide.speed <= 0.0 || (whole < GLIDE_LEAST_MS && wait <= 0.0) {
        return format!("transform:translate({x:.1}px,{y:.1}px)");
    }
    let (ex, ey) = d.end;
    let (vx, vy) = ((ex - x) / flight, (ey - y) / flight);
    let (x0, y0) = (x - vx * wait, y - vy * wait);
    let (glides, appears) = if flip {
        ("glide-b", "appear-b")
    } else {
        ("glide-a", "appear-a")
    };
    let moves = GLIDE_HOLDS * (wait + flight);
    let path = format!(
        "transform:translate({x:.1}px,{y:.1}px);--x0:{x0:.1}px;--y0:{y0:.1}px;\
         --x1:{ex:.1}px;--y1:{ey:.1}px"
    );
    if wait > 0.0 {
        let shows = GLIDE_HOLDS * wait;
        format!(
            "{path};animation-name:{glides},{appears};animation-duration:{moves:.0}ms,{shows:.0}ms"
        )
    } else {
        format!("{path};animation-name:{glides};animation-duration:{moves:.0}ms")
    }
}

fn label(l: &EdgeLabel, p: &Placed, nodes: &[NodePicture], font: f64) -> Html {
    let name = |i: usize| nodes.get(i).map_or(String::new(), |n| n.id.to_string());
    let class = classes!("msg-label", l.heartbeat_only.then_some("heartbeat"));
    let edge = format!("{}>{}", name(l.from), name(l.to));
    html! {
        <g class={class} key={edge.clone()} data-edge-label={edge}
            data-label-count={l.count.to_string()}>
            <rect x={format!("{:.1}", p.x - p.width / 2.0)} y={format!("{:.1}", p.y - p.height / 2.0)}
                width={format!("{:.1}", p.width)} height={format!("{:.1}", p.height)} rx="4" />
            <text x={format!("{:.1}", p.x)} y={format!("{:.1}", p.y)}
                font-size={format!("{font:.1}")}>{ l.text.clone() }</text>
        </g>
    }
}

/// The heartbeat switch (a class on the ring: a CSS `:has()` on the switch restyled the
/// whole ring each time a message was drawn), the legend of the codes, and the network's
/// state: in this row, not over the ring, where it covered the top member on a narrow column.
fn ring_tools(partition: &PartitionView, lang: Lang, fade: &UseStateHandle<bool>) -> Html {
    let toggle = {
        let fade = fade.clone();
        Callback::from(move |_: Event| fade.set(!*fade))
    };
    html! {
        <div class="ring-tools">
            <label class="fade-heartbeats">
                <input type="checkbox" data-toggle="heartbeats" checked={**fade} onchange={toggle} />
                { t(lang, Text::FadeHeartbeats) }
            </label>
            <details class="code-legend" data-code-legend="">
                <summary>{ t(lang, Text::MessageCodes) }</summary>
                <dl>
                    { for ring::CODES.iter().map(|(kind, code)| html! { <>
                        <dt>{ *code }</dt><dd>{ *kind }</dd>
                    </> }) }
                </dl>
                <p class="muted">{ t(lang, Text::MessageCodesHint) }</p>
            </details>
            { super::network::partition_chip(partition, lang) }
        </div>
    }
}

/// The member's actions, each the console verb a card button sends.
fn node_menu(
    n: &NodePicture,
    at: Anchor,
    pic: &RingPicture,
    lang: Lang,
    page: Option<&Page>,
    menu: UseStateHandle<Option<Anchor>>,
) -> Html {
    let id = n.id;
    let dismiss = |menu: &UseStateHandle<Option<Anchor>>| menu.set(None);
    let send = |line: String| {
        let d = page.map(Page::dispatcher);
        let menu = menu.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(d) = &d {
                d.dispatch(Msg::Command(line.clone()));
            }
            dismiss(&menu);
        })
    };
    let close = {
        let menu = menu.clone();
        Callback::from(move |_: MouseEvent| dismiss(&menu))
    };
    let onkeydown = {
        let menu = menu.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Escape" {
                e.prevent_default();
                dismiss(&menu);
            } else if move_in_menu(id, &e.key()) {
                e.prevent_default();
            }
        })
    };
    let running = n.state != "stopped";
    let write = pic.client_write.clone().filter(|_| n.leading);
    html! {
        <div class="node-menu" data-node-menu={id.to_string()} {onkeydown}
             style={format!("left:{:.0}px;top:{:.0}px;width:{MENU_WIDTH}px", at.left_px, at.top_px)}>
            <div class="node-menu-head">
                <strong>{ n.name.clone() }</strong>
                <button class="close" data-action="close-node-menu" onclick={close} aria-label={t(lang, Text::Close)}>{ "✕" }</button>
            </div>
            // Only menu items in the menu (axe: a menu's children are its items).
            <div role="menu" aria-label={n.name.clone()}>
            if running {
                <button role="menuitem" data-node-action="kill" onclick={send(format!("kill {id}"))}>{ t(lang, Text::Kill) }</button>
                if n.paused {
                    <button role="menuitem" data-node-action="resume" onclick={send(format!("resume {id}"))}>{ t(lang, Text::ResumeMember) }</button>
                } else {
                    <button role="menuitem" data-node-action="pause" onclick={send(format!("pause {id}"))}>{ t(lang, Text::PauseMember) }</button>
                }
                if !n.leading {
                    <button role="menuitem" data-node-action="timeout" onclick={send(format!("timeout {id}"))}>{ t(lang, Text::Timeout) }</button>
                }
                if let Some(line) = write {
                    <button role="menuitem" class="primary" data-node-action="client-write" title={line.clone()} onclick={send(line)}>{ t(lang, Text::ClientWrite) }</button>
                }
            } else {
                <button role="menuitem" class="primary" data-node-action="restart" onclick={send(format!("restart {id}"))}>{ t(lang, Text::Restart) }</button>
            }
            </div>
        </div>
    }
}

/// ↑ and ↓ move between the open menu's items (wrapping), Home and End to its ends: whether
/// `key` was one of those.
fn move_in_menu(id: MemberId, key: &str) -> bool {
    use wasm_bindgen::JsCast;
    let as_tab_key = match key {
        "ArrowDown" => "ArrowRight",
        "ArrowUp" => "ArrowLeft",
        "Home" | "End" => key,
        _ => return false,
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return false;
    };
    let Ok(items) =
        document.query_selector_all(&format!(r#"{} [role="menuitem"]"#, menu_selector(id)))
    else {
        return false;
    };
    let items: Vec<web_sys::HtmlElement> = (0..items.length())
        .filter_map(|i| items.item(i)?.dyn_into().ok())
        .collect();
    let active = document.active_element();
    let at = items
        .iter()
        .position(|b| active.as_ref().is_some_and(|a| a == b.as_ref()))
        .unwrap_or(items.len().saturating_sub(1));
    let Some(next) = tab_after_key(as_tab_key, at, items.len()) else {
        return false;
    };
    let _ = items[next].focus();
    true
}
