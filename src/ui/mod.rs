//! The page (wasm32 only): Yew components that render the engine's views and send the same
//! commands the console and scripts send.

mod cluster;
mod console;
mod crash;
mod dom;
mod frames;
mod i18n;
mod lamport;
mod logs;
mod members;
mod model;
mod panels;
mod share;

use crate::etcd::Cluster as World;
use i18n::{narrate, t, Lang, Text};
use model::{Model, Msg, Notice, Tab};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

const LANG_KEY: &str = "raftlab.lang";
const PRESENTER_KEY: &str = "raftlab.presenter";

pub fn start() {
    crash::install_panic_hook();
    yew::Renderer::<App>::new().render();
}

fn stored_lang() -> Lang {
    dom::load(LANG_KEY)
        .as_deref()
        .and_then(Lang::from_code)
        .unwrap_or(Lang::En)
}

fn set_root_attributes(lang: Lang, presenter: bool) {
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.set_attribute("lang", lang.code());
        let _ = root.set_attribute("class", if presenter { "presenter" } else { "" });
    }
}

/// The first model: a shared link's run when the URL carries one, else a fresh cluster.
fn initial_model() -> Model {
    let lang = stored_lang();
    let presenter = dom::load(PRESENTER_KEY).as_deref() == Some("1");
    match share::decode(&dom::hash()) {
        Ok(None) => Model::new(crate::etcd::ClusterConfig::default(), lang, presenter),
        Ok(Some(shared)) => {
            let mut model = Model::new(shared.settings.clone(), lang, presenter);
            model.load(shared);
            if model.notice.is_none() {
                model.notice = Some(Notice {
                    error: false,
                    text: t(lang, Text::LoadedLink).into(),
                });
            }
            model
        }
        Err(e) => {
            let mut model = Model::new(crate::etcd::ClusterConfig::default(), lang, presenter);
            model.notice = Some(Notice {
                error: true,
                text: format!("{}: {e}", t(lang, Text::BadLink)),
            });
            model
        }
    }
}

/// Space: play/pause, N: step, /: the console, Esc: close the message inspector. Only when
/// no text field has the focus.
#[hook]
fn use_shortcuts(dispatcher: UseReducerDispatcher<Model>) {
    use_effect_with((), move |_| {
        let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            if e.ctrl_key() || e.meta_key() || e.alt_key() {
                return;
            }
            let typing = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| {
                    matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                });
            if typing {
                return;
            }
            match e.key().as_str() {
                " " => {
                    let on_button = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| matches!(el.tag_name().as_str(), "BUTTON" | "SUMMARY"));
                    if !on_button {
                        e.prevent_default();
                        dispatcher.dispatch(Msg::TogglePlay);
                    }
                }
                "n" | "N" => dispatcher.dispatch(Msg::Step),
                "/" => {
                    e.prevent_default();
                    dom::focus("console-input");
                }
                "Escape" => dispatcher.dispatch(Msg::SelectMessage(None)),
                _ => {}
            }
        });
        let document = web_sys::window().and_then(|w| w.document());
        if let Some(d) = &document {
            let _ =
                d.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(d) = &document {
                let _ = d.remove_event_listener_with_callback(
                    "keydown",
                    listener.as_ref().unchecked_ref(),
                );
            }
        }
    });
}

#[component]
fn App() -> Html {
    let model = use_reducer(initial_model);
    {
        let dispatcher = model.dispatcher();
        frames::use_animation_frames(
            model.playing,
            Callback::from(move |ms| dispatcher.dispatch(Msg::Frame(ms))),
        );
    }
    use_shortcuts(model.dispatcher());
    use_effect_with((model.lang, model.presenter), |(lang, presenter)| {
        dom::store(LANG_KEY, lang.code());
        dom::store(PRESENTER_KEY, if *presenter { "1" } else { "0" });
        set_root_attributes(*lang, *presenter);
    });
    use_recovery(&model);
    let console_node = use_node_ref();
    let transcript_len = model.transcript.borrow().len();
    {
        let node = console_node.clone();
        use_effect_with(
            (transcript_len, model.transcript.borrow().last().cloned()),
            move |_| {
                if let Some(el) = node.cast::<web_sys::Element>() {
                    el.set_scroll_top(el.scroll_height());
                }
            },
        );
    }

    let d = model.dispatcher();
    let lang = model.lang;
    let session = model.session.borrow();
    let world = &session.world;
    let send_line = {
        let d = d.clone();
        Callback::from(move |line: String| d.dispatch(Msg::Command(line)))
    };
    let select_message = {
        let d = d.clone();
        Callback::from(move |id: u64| d.dispatch(Msg::SelectMessage(Some(id))))
    };
    let member_names: Vec<String> = world.member_ids().iter().map(|m| m.to_string()).collect();

    html! {
        <div class={classes!("app", model.presenter.then_some("presenter"))} lang={lang.code()}>
            { header(&model, world) }
            if let Some(notice) = &model.notice {
                <div class={classes!("notice", notice.error.then_some("error"))} role="alert" data-notice="">
                    <span>{ notice.text.clone() }</span>
                    <button onclick={{ let d = d.clone(); Callback::from(move |_: MouseEvent| d.dispatch(Msg::DismissNotice)) }}
                        aria-label={t(lang, Text::Dismiss)}>{ "✕" }</button>
                </div>
            }
            if model.ahead.is_some() {
                <div class="notice branch" data-branch="">{ t(lang, Text::BackInTime) }</div>
            }
            <main class="stage">
                <section class="cluster-panel panel" aria-label={t(lang, Text::Cluster)}>
                    <div class="clock">
                        <span class="label">{ t(lang, Text::VirtualTime) }</span>
                        <span class="value" data-sim-time={world.now().to_string()}>{ format!("{:.2} s", world.now() as f64 / 1000.0) }</span>
                        <span class="leader-now" data-leader={world.leader().map(|l| l.to_string()).unwrap_or_default()}>{ match world.leader() {
                            Some(l) => format!("{}: {l}", t(lang, Text::Leader)),
                            None => t(lang, Text::NoLeader).to_string(),
                        } }</span>
                        <span class="inflight">{ format!("{} {}", world.in_flight().len(), t(lang, Text::InFlight)) }</span>
                    </div>
                    <div class="cluster-wrap">
                        { cluster::render_cluster(world, lang, model.selected_message, select_message.clone()) }
                        if let Some(id) = model.selected_message {
                            { panels::inspector(world, &model.recorder.borrow(), id, lang, &d) }
                        }
                    </div>
                    { quorum_meter(world, lang) }
                </section>
                <section class="side">
                    <div class="panel">{ members::render(world, lang, &send_line) }</div>
                    <div class="panel tabs-panel">
                        { tabs(model.tab, lang, &d) }
                        <div class="tab-body" role="tabpanel">
                            { match model.tab {
                                Tab::Logs => logs::render(world, model.log_focus, lang, &d),
                                Tab::SpaceTime => space_time(&model, world, lang, select_message.clone(), &d),
                                Tab::Network => panels::network(world, lang, &d),
                                Tab::Rules => panels::rules(&model.settings, session.monitor(), lang, &d),
                                Tab::Share => panels::share(&session, &model.settings, lang, &d),
                                Tab::Keys => panels::keys(world, model.kv_member, lang, &d),
                                Tab::Kube => panels::kube(&session, model.follow, lang, &d),
                            } }
                        </div>
                    </div>
                </section>
                <section class="console panel">
                    <div class="panel-head">
                        <h2>{ t(lang, Text::Console) }</h2>
                        <span class="muted keys">{ t(lang, Text::Shortcuts) }</span>
                        <button class="small" data-action="clear-console"
                            onclick={{ let d = d.clone(); Callback::from(move |_: MouseEvent| d.dispatch(Msg::ClearConsole)) }}>
                            { t(lang, Text::Clear) }</button>
                    </div>
                    { console::output(&model.transcript.borrow(), console_node.clone()) }
                    <console::ConsoleInput lang={lang} members={member_names} on_command={send_line.clone()} />
                </section>
                { events(world, &model, lang) }
            </main>
        </div>
    }
}

/// Keeps what the crash overlay offers current: after each command, and every ten virtual
/// seconds (so a reload comes back close to where the page died).
#[hook]
fn use_recovery(model: &UseReducerHandle<Model>) {
    let session = model.session.borrow();
    let key = (
        model.settings.clone(),
        model.lang,
        session.history().len(),
        session.world.now() / 10_000,
    );
    drop(session);
    let model = model.clone();
    use_effect_with(key, move |(settings, lang, _, _)| {
        let session = model.session.borrow();
        let link = format!(
            "{}#{}",
            dom::base_url(),
            panels::share_fragment(&session, settings)
        );
        crash::record(*lang, settings.seed, &session.export_script(), &link);
    });
}

fn header(model: &UseReducerHandle<Model>, world: &World) -> Html {
    let lang = model.lang;
    let d = model.dispatcher();
    let send = |msg: fn() -> Msg| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(msg()))
    };
    let on_speed = {
        let d = d.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<f64>() {
                d.dispatch(Msg::SetSpeed(v));
            }
        })
    };
    let on_time = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<f64>() {
                d.dispatch(Msg::Scrub(v.max(0.0) as u64));
            }
        })
    };
    let hold = {
        let d = d.clone();
        Callback::from(move |_: PointerEvent| d.dispatch(Msg::Pause))
    };
    let on_members = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(n) = select.value().parse::<usize>() {
                d.dispatch(Msg::SetMembers(n));
            }
        })
    };
    let on_seed = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            match input.value().trim().parse::<u64>() {
                Ok(seed) => d.dispatch(Msg::SetSeed(seed)),
                Err(_) => d.dispatch(Msg::Notify(Notice {
                    error: true,
                    text: format!("seed must be a whole number, not {:?}", input.value()),
                })),
            }
        })
    };
    let presenter = model.presenter;
    let on_presenter = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::SetPresenter(!presenter)))
    };
    let on_lang = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::SetLang(lang.other())))
    };
    let now = world.now();
    let horizon = model.horizon_ms().max(1);
    html! {
        <header class="top">
            <div class="brand">
                <h1>{ t(lang, Text::Title) }</h1>
                <p class="subtitle">{ t(lang, Text::Subtitle) }</p>
            </div>
            <div class="controls" role="toolbar" aria-label="simulation">
                if model.playing {
                    <button class="primary play" data-action="pause" onclick={send(|| Msg::Pause)}>{ icon("M6 4h4v16H6zM14 4h4v16h-4z") }{ t(lang, Text::Pause) }</button>
                } else {
                    <button class="primary play" data-action="play" onclick={send(|| Msg::Play)}>{ icon("M7 4l13 8-13 8z") }{ t(lang, Text::Play) }</button>
                }
                <button data-action="step" onclick={send(|| Msg::Step)}>{ icon("M5 4l11 8-11 8zM17 4h3v16h-3z") }{ t(lang, Text::Step) }</button>
                <label class="speed">{ t(lang, Text::Speed) }
                    <input type="range" min="-2" max="2" step="0.1" data-control="speed"
                        value={format!("{:.1}", model.speed_log10)} oninput={on_speed} />
                    <output>{ format_speed(model.speed()) }</output>
                </label>
                <label class="time">{ t(lang, Text::Time) }
                    <input type="range" min="0" max={horizon.to_string()} step="1" data-control="time"
                        class={classes!(model.ahead.is_some().then_some("has-future"))}
                        value={now.to_string()} onchange={on_time} onpointerdown={hold}
                        aria-valuetext={format!("{:.1} s", now as f64 / 1000.0)} />
                    <output>{ if model.ahead.is_some() {
                        format!("{:.1} / {:.1} s", now as f64 / 1000.0, horizon as f64 / 1000.0)
                    } else {
                        format!("{:.1} s", now as f64 / 1000.0)
                    } }</output>
                </label>
            </div>
            <div class="controls" role="toolbar" aria-label="run">
                <label>{ t(lang, Text::Members) }
                    <select data-control="members" onchange={on_members}>
                        { for (1..=crate::etcd::MAX_MEMBERS).map(|n| html! {
                            <option value={n.to_string()} selected={n == model.settings.members}>{ n }</option>
                        }) }
                    </select>
                </label>
                <label>{ t(lang, Text::Seed) }
                    <input class="seed" type="number" min="0" data-control="seed" value={model.settings.seed.to_string()} onchange={on_seed} />
                </label>
                <button data-action="reset" onclick={send(|| Msg::Reset)}>{ "↺ " }{ t(lang, Text::Reset) }</button>
                <button data-action="presenter" aria-pressed={presenter.to_string()} onclick={on_presenter}>{ t(lang, Text::Presenter) }</button>
                <button data-action="lang" onclick={on_lang}>{ t(lang, Text::Language) }</button>
            </div>
        </header>
    }
}

fn tabs(current: Tab, lang: Lang, d: &UseReducerDispatcher<Model>) -> Html {
    let all = [
        (Tab::Logs, "logs", Text::Log),
        (Tab::SpaceTime, "space-time", Text::TabSpaceTime),
        (Tab::Network, "network", Text::TabNetwork),
        (Tab::Rules, "rules", Text::TabRules),
        (Tab::Share, "share", Text::TabShare),
        (Tab::Keys, "keys", Text::TabKeys),
        (Tab::Kube, "kube", Text::TabKube),
    ];
    html! {
        <div class="tabs" role="tablist">
            { for all.iter().map(|(tab, key, label)| {
                let (tab, d) = (*tab, d.clone());
                html! {
                    <button role="tab" data-tab={*key} aria-selected={(tab == current).to_string()}
                        class={classes!((tab == current).then_some("current"))}
                        onclick={Callback::from(move |_: MouseEvent| d.dispatch(Msg::SetTab(tab)))}>
                        { t(lang, *label) }
                    </button>
                }
            }) }
        </div>
    }
}

fn space_time(
    model: &Model,
    world: &World,
    lang: Lang,
    on_select: Callback<u64>,
    d: &UseReducerDispatcher<Model>,
) -> Html {
    let save_svg = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            let result = dom::outer_html("svg.lamport").and_then(|svg| {
                dom::download_text("raftlab-space-time.svg", "image/svg+xml", &svg)
            });
            if let Err(text) = result {
                d.dispatch(Msg::Notify(Notice { error: true, text }));
            }
        })
    };
    let lanes = world.member_ids().len();
    let save_png = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| {
            let (w, h) = lamport::size(lanes);
            let result = dom::outer_html("svg.lamport")
                .and_then(|svg| dom::download_svg_as_png("raftlab-space-time.png", &svg, w, h));
            if let Err(text) = result {
                d.dispatch(Msg::Notify(Notice { error: true, text }));
            }
        })
    };
    html! {
        <div class="space-time">
            <p class="muted">{ t(lang, Text::SpaceTimeHint) }</p>
            { lamport::render(world, &model.recorder.borrow(), model.selected_message, lang, on_select) }
            <div class="button-row">
                <button data-action="download-svg" onclick={save_svg}>{ t(lang, Text::DownloadSvg) }</button>
                <button data-action="download-png" onclick={save_png}>{ t(lang, Text::DownloadPng) }</button>
            </div>
        </div>
    }
}

/// A 24×24 icon from one SVG path (no icon font: glyphs are missing on many projectors' PCs).
fn icon(path: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg> }
}

fn format_speed(speed: f64) -> String {
    if speed >= 9.95 {
        format!("{speed:.0}×")
    } else if speed >= 0.995 {
        format!("{speed:.1}×")
    } else {
        format!("{speed:.2}×")
    }
}

fn quorum_meter(world: &World, lang: Lang) -> Html {
    let view = world.quorum_view();
    let (total, quorum, reachable, ok) = (
        view.voters.len(),
        view.quorum,
        view.reachable,
        view.writes_commit,
    );
    let tolerated = view.tolerated_failures;
    let rule = if view.joint {
        format!("{} = {quorum}", t(lang, Text::Quorum))
    } else {
        format!("{} = ⌊{total}/2⌋+1 = {quorum}", t(lang, Text::Quorum))
    };
    html! {
        <div class={classes!("quorum", if ok { "ok" } else { "blocked" })} data-quorum={quorum.to_string()}
             data-reachable={reachable.to_string()} data-voters={total.to_string()} data-writes={if ok { "commit" } else { "blocked" }}>
            <div class="pips" aria-hidden="true">
                { for (0..total).map(|i| html! {
                    <span class={classes!("pip", (i < reachable).then_some("up"), (i + 1 == quorum).then_some("threshold"))} />
                }) }
            </div>
            <div class="quorum-text">
                <strong>{ rule }</strong>
                { format!(" · {} {reachable}/{total} · ", t(lang, Text::Reachable)) }
                <span class="verdict">{ if ok { "✓ " } else { "✕ " } }{ t(lang, if ok { Text::WritesCommit } else { Text::WritesBlocked }) }</span>
                <span class="tolerates">{ tolerance(lang, total, tolerated) }</span>
            </div>
        </div>
    }
}

/// "3 voters survive 1 failure": the difference between 3 and 4 members, said out loud.
fn tolerance(lang: Lang, voters: usize, failures: usize) -> String {
    match lang {
        Lang::En => format!(
            " · {voters} voters survive {failures} failure{}",
            if failures == 1 { "" } else { "s" }
        ),
        Lang::ZhTw => format!(" · {voters} 個投票成員可容忍 {failures} 個故障"),
    }
}

fn events(world: &World, model: &Model, lang: Lang) -> Html {
    let recent = world.recent_events(8);
    let violations = model.violations();
    html! {
        <div class="events panel">
            <h2>{ t(lang, Text::Events) }</h2>
            <ol aria-live="polite" data-event-log="">
                { for violations.iter().rev().take(2).map(|v| html! {
                    <li class="violation" data-violation={v.property.name()}>
                        <span class="when">{ format!("{:.2}s", v.time_ms as f64 / 1000.0) }</span>
                        { format!("✕ {v}") }
                    </li>
                }) }
                { for recent.iter().rev().map(|e| html! {
                    <li>
                        <span class="when">{ format!("{:.2}s", e.time_ms as f64 / 1000.0) }</span>
                        { narrate(lang, &e.member.to_string(), &e.event) }
                    </li>
                }) }
            </ol>
        </div>
    }
}
