//! The page (wasm32 only): Yew components that render the engine's views and send the same
//! commands the console and scripts send.

mod cluster;
mod frames;
mod i18n;
mod model;

use crate::base::MemberId;
use crate::etcd::Cluster as World;
use i18n::{narrate, role, t, Lang, Text};
use model::{Model, Msg};
use web_sys::HtmlInputElement;
use yew::prelude::*;

const LANG_KEY: &str = "raftlab.lang";

pub fn start() {
    yew::Renderer::<App>::new().render();
}

fn stored_lang() -> Lang {
    let stored = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(LANG_KEY).ok().flatten());
    stored
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(Lang::En)
}

fn store_lang(lang: Lang) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(LANG_KEY, lang.code());
    }
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.code());
    }
}

#[component]
fn App() -> Html {
    let model = use_reducer(|| Model::new(3, 1, stored_lang()));
    {
        let dispatcher = model.dispatcher();
        frames::use_animation_frames(
            model.playing,
            Callback::from(move |ms| dispatcher.dispatch(Msg::Frame(ms))),
        );
    }
    use_effect_with(model.lang, |lang| store_lang(*lang));

    let send = |msg: fn() -> Msg| {
        let d = model.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(msg()))
    };
    let lang = model.lang;
    let session = model.session.borrow();
    let world = &session.world;

    let on_speed = {
        let d = model.dispatcher();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<f64>() {
                d.dispatch(Msg::SetSpeed(v));
            }
        })
    };
    let on_members = {
        let d = model.dispatcher();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(n) = input.value().parse::<usize>() {
                d.dispatch(Msg::SetMembers(n));
            }
        })
    };
    let on_seed = {
        let d = model.dispatcher();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(seed) = input.value().trim().parse::<u64>() {
                d.dispatch(Msg::SetSeed(seed));
            }
        })
    };
    let on_lang = {
        let d = model.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::SetLang(lang.other())))
    };

    html! {
        <div class="app" lang={lang.code()}>
            <header class="top">
                <div class="brand">
                    <h1>{ t(lang, Text::Title) }</h1>
                    <p class="subtitle">{ t(lang, Text::Subtitle) }</p>
                </div>
                <div class="controls" role="toolbar">
                    if model.playing {
                        <button class="primary" data-action="pause" onclick={send(|| Msg::Pause)}>{ icon("M6 4h4v16H6zM14 4h4v16h-4z") }{ t(lang, Text::Pause) }</button>
                    } else {
                        <button class="primary" data-action="play" onclick={send(|| Msg::Play)}>{ icon("M7 4l13 8-13 8z") }{ t(lang, Text::Play) }</button>
                    }
                    <button data-action="step" onclick={send(|| Msg::Step)}>{ icon("M5 4l11 8-11 8zM17 4h3v16h-3z") }{ t(lang, Text::Step) }</button>
                    <label class="speed">{ t(lang, Text::Speed) }
                        <input type="range" min="-2" max="2" step="0.1" data-control="speed"
                            value={format!("{:.1}", model.speed_log10)} oninput={on_speed} />
                        <output>{ format_speed(model.speed()) }</output>
                    </label>
                    <label>{ t(lang, Text::Members) }
                        <select data-control="members" onchange={on_members}>
                            { for (1..=11).map(|n| html! {
                                <option value={n.to_string()} selected={n == model.members}>{ n }</option>
                            }) }
                        </select>
                    </label>
                    <label>{ t(lang, Text::Seed) }
                        <input class="seed" type="number" min="0" data-control="seed" value={model.seed.to_string()} onchange={on_seed} />
                    </label>
                    <button data-action="reset" onclick={send(|| Msg::Reset)}>{ "↺ " }{ t(lang, Text::Reset) }</button>
                    <button data-action="lang" onclick={on_lang}>{ t(lang, Text::Language) }</button>
                </div>
            </header>
            <main class="stage">
                <section class="cluster-panel">
                    <div class="clock" data-sim-time={world.now().to_string()}>
                        <span class="label">{ t(lang, Text::VirtualTime) }</span>
                        <span class="value">{ format!("{:.1} s", world.now() as f64 / 1000.0) }</span>
                        <span class="leader-now">{ match world.leader() {
                            Some(l) => format!("{}: {l}", t(lang, Text::Leader)),
                            None => t(lang, Text::NoLeader).to_string(),
                        } }</span>
                        <span class="inflight">{ format!("{} {}", world.in_flight().len(), t(lang, Text::InFlight)) }</span>
                    </div>
                    { cluster::render_cluster(world, lang) }
                    { quorum_meter(world, lang) }
                </section>
                <section class="side">
                    <div class="members">
                        { for world.member_ids().into_iter().map(|id| member_card(&model, world, id)) }
                    </div>
                    { logs(world, lang) }
                    { events(world, lang) }
                </section>
            </main>
        </div>
    }
}

/// A 24×24 icon from one SVG path (no icon font: glyphs are missing on many projectors' PCs).
fn icon(path: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg> }
}

fn format_speed(speed: f64) -> String {
    if speed >= 1.0 {
        format!("{speed:.0}×")
    } else {
        format!("{speed:.2}×")
    }
}

fn quorum_meter(world: &World, lang: Lang) -> Html {
    let total = world.member_ids().len();
    let quorum = total / 2 + 1;
    let reachable = world.largest_connected_group().len();
    let ok = reachable >= quorum && world.leader().is_some();
    html! {
        <div class={classes!("quorum", if ok { "ok" } else { "blocked" })} data-quorum={quorum.to_string()} data-reachable={reachable.to_string()}>
            <div class="pips">
                { for (0..total).map(|i| html! {
                    <span class={classes!("pip", (i < reachable).then_some("up"), (i + 1 == quorum).then_some("threshold"))} />
                }) }
            </div>
            <div class="quorum-text">
                <strong>{ format!("{} = ⌊{total}/2⌋+1 = {quorum}", t(lang, Text::Quorum)) }</strong>
                { format!(" · {} {reachable}/{total} · ", t(lang, Text::Reachable)) }
                <span class="verdict">{ t(lang, if ok { Text::WritesCommit } else { Text::WritesBlocked }) }</span>
            </div>
        </div>
    }
}

fn member_card(model: &UseReducerHandle<Model>, world: &World, id: MemberId) -> Html {
    let lang = model.lang;
    let state = cluster::state_of(world, id);
    let view = world.raft_view(id);
    let paused = world.is_paused(id);
    let command = |verb: &'static str| {
        let d = model.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::Command(format!("{verb} {id}"))))
    };
    let term = view
        .as_ref()
        .map_or_else(|| world.durable(id).map_or(0, |d| d.hard.term), |v| v.term);
    html! {
        <div class={classes!("member", state, paused.then_some("paused"))}
             data-member={id.to_string()} data-state={state} data-term={term.to_string()}
             data-paused={paused.to_string()}>
            <div class="member-head">
                <span class={classes!("badge", state)}>{ role(lang, state) }</span>
                <strong class="member-name">{ id.to_string() }</strong>
                if paused { <span class="badge paused">{ t(lang, Text::Paused) }</span> }
            </div>
            if let Some(v) = &view {
                <dl class="facts">
                    <dt>{ t(lang, Text::Term) }</dt><dd>{ v.term }</dd>
                    <dt>{ t(lang, Text::Vote) }</dt><dd>{ v.vote.map_or("–".into(), |m| m.to_string()) }</dd>
                    <dt>{ t(lang, Text::Commit) }</dt><dd>{ v.commit }</dd>
                    <dt>{ t(lang, Text::Applied) }</dt><dd>{ v.applied }</dd>
                </dl>
            } else {
                <p class="down">{ format!("{} · {} {term}", t(lang, Text::Stopped), t(lang, Text::Term)) }</p>
            }
            <div class="member-actions">
                if view.is_some() {
                    <button data-action="kill" onclick={command("kill")}>{ t(lang, Text::Kill) }</button>
                    if paused {
                        <button data-action="resume" onclick={command("resume")}>{ t(lang, Text::ResumeMember) }</button>
                    } else {
                        <button data-action="pause" onclick={command("pause")}>{ t(lang, Text::PauseMember) }</button>
                    }
                    <button data-action="timeout" onclick={command("timeout")}>{ t(lang, Text::Timeout) }</button>
                } else {
                    <button data-action="restart" class="primary" onclick={command("restart")}>{ t(lang, Text::Restart) }</button>
                }
            </div>
        </div>
    }
}

fn logs(world: &World, lang: Lang) -> Html {
    const SHOWN: usize = 24;
    html! {
        <div class="logs">
            <h2>{ t(lang, Text::Log) }</h2>
            { for world.member_ids().into_iter().map(|id| {
                let entries = world.raft_view(id).map(|v| {
                    let skip = v.log.len().saturating_sub(SHOWN);
                    v.log.into_iter().skip(skip).map(|e| {
                        let committed = e.index <= v.commit;
                        html! {
                            <span class={classes!("entry", format!("t{}", e.term % 8), (!committed).then_some("uncommitted"))}
                                  title={format!("{}@{} {}", e.index, e.term, e.summary)}>{ e.term }</span>
                        }
                    }).collect::<Html>()
                });
                html! {
                    <div class="log-row">
                        <span class="log-name">{ id.to_string() }</span>
                        <span class="log-entries">{ entries.unwrap_or_default() }</span>
                    </div>
                }
            }) }
        </div>
    }
}

fn events(world: &World, lang: Lang) -> Html {
    let recent = world.recent_events(8);
    let recent = recent.iter().rev();
    html! {
        <div class="events">
            <h2>{ t(lang, Text::Events) }</h2>
            <ol aria-live="polite" data-event-log="">
                { for recent.map(|e| html! {
                    <li>
                        <span class="when">{ format!("{:.2}s", e.time_ms as f64 / 1000.0) }</span>
                        { narrate(lang, &e.member.to_string(), &e.event) }
                    </li>
                }) }
            </ol>
        </div>
    }
}
