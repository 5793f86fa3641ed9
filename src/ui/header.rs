//! The header: the simulation's controls (play, step, speed, the time slider) and the run's
//! (members, seed, reset, presenter mode, language).

use super::i18n::{t, Text};
use super::lab::{Lab, Msg};
use super::page::{Clock, Dispatch, Page};
use super::view::{shown_time, Action, View};
use crate::etcd::Preset;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

pub fn render(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let lang = view.lang;
    html! {
        <header class="top">
            <div class="brand">
                <h1>{ t(lang, Text::Title) }</h1>
                <p class="subtitle">{ t(lang, Text::Subtitle) }</p>
            </div>
            { simulation_controls(view, d) }
            { run_controls(lab, view, d) }
        </header>
    }
}

fn send(d: &Dispatch, msg: impl Fn() -> Msg + 'static) -> Callback<MouseEvent> {
    let d = d.clone();
    Callback::from(move |_: MouseEvent| d.dispatch(msg()))
}

/// A callback reading an input's value as a number, dispatching `to_msg` of it when it is one.
fn on_number<E: AsRef<web_sys::Event> + 'static, N: std::str::FromStr>(
    d: &Dispatch,
    to_msg: impl Fn(N) -> Msg + 'static,
) -> Callback<E> {
    let d = d.clone();
    Callback::from(move |e: E| {
        let input: HtmlInputElement = e.as_ref().target_unchecked_into();
        if let Ok(v) = input.value().parse::<N>() {
            d.dispatch(to_msg(v));
        }
    })
}

fn simulation_controls(view: &View, d: &Dispatch) -> Html {
    let lang = view.lang;
    let on_speed = on_number::<InputEvent, f64>(d, |v| Action::SetSpeed(v).into());
    html! {
        <div class="controls" role="toolbar" aria-label={t(lang, Text::SimulationControls)}>
            if view.playing {
                <button class="primary play" data-action="pause" onclick={send(d, || Action::Pause.into())}>{ icon("M6 4h4v16H6zM14 4h4v16h-4z") }{ t(lang, Text::Pause) }</button>
            } else {
                <button class="primary play" data-action="play" onclick={send(d, || Msg::Play)}>{ icon("M7 4l13 8-13 8z") }{ t(lang, Text::Play) }</button>
            }
            <button data-action="step" onclick={send(d, || Msg::Step)}>{ icon("M5 4l11 8-11 8zM17 4h3v16h-3z") }{ t(lang, Text::Step) }</button>
            <label class="speed"><span class="label-text">{ t(lang, Text::Speed) }</span>
                <input type="range" min="-2" max="2" step="0.1" data-control="speed"
                    value={format!("{:.1}", view.speed_log10)} oninput={on_speed}
                    aria-valuetext={format_speed(view.speed())} />
                <output>{ format_speed(view.speed()) }</output>
            </label>
            <TimeSlider />
        </div>
    }
}

/// How far the time slider's numbers move at once while the run plays at its end.
const LIVE_SLIDER_STEP_MS: u64 = 1_000;

/// The time slider, drawn in every frame that draws (the `Clock`): the rest of the header only
/// when the run or the view changes.
#[component]
fn TimeSlider() -> Html {
    use_context::<Clock>();
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let (lab, d) = (page.lab.borrow(), page.dispatcher());
    let on_time = on_number::<Event, f64>(&d, |v| Msg::Scrub(v.max(0.0) as u64));
    let hold = Callback::from(move |_: PointerEvent| d.dispatch(Action::Pause));
    let live = page.view.playing && !lab.is_behind();
    let speed = lab.timeline().speed;
    let now = shown_time(lab.world().now(), live, speed);
    let horizon = shown_time(lab.horizon_ms(), live, speed).max(1);
    // Playing at the end of the run, the thumb stays at the right end whatever the numbers:
    // they move in whole seconds, not at every step of the clock (a layout of the header each).
    let end = (horizon - horizon % LIVE_SLIDER_STEP_MS).max(1);
    let (value, max) = if live { (end, end) } else { (now, horizon) };
    html! {
        <label class="time"><span class="label-text">{ t(page.view.lang, Text::Time) }</span>
            <input type="range" min="0" max={max.to_string()} step="1" data-control="time"
                class={classes!(lab.is_behind().then_some("has-future"))}
                value={value.to_string()} onchange={on_time} onpointerdown={hold}
                aria-valuetext={format!("{:.1} s", now as f64 / 1000.0)} />
            <output>{ if lab.is_behind() {
                format!("{:.1} / {:.1} s", now as f64 / 1000.0, horizon as f64 / 1000.0)
            } else {
                format!("{:.1} s", now as f64 / 1000.0)
            } }</output>
        </label>
    }
}

fn run_controls(lab: &Lab, view: &View, d: &Dispatch) -> Html {
    let (lang, presenter, settings) = (view.lang, view.presenter, lab.settings());
    let asking = view.confirm.is_some();
    let on_members = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(n) = select.value().parse::<usize>() {
                d.dispatch(Msg::SetMembers(n));
            }
        })
    };
    let on_world = {
        let d = d.clone();
        Callback::from(move |e: Event| {
            let select: HtmlSelectElement = e.target_unchecked_into();
            if let Ok(preset) = Preset::parse(&select.value()) {
                d.dispatch(Msg::SetWorld(preset));
            }
        })
    };
    let on_seed = {
        let d = d.clone();
        Callback::from(move |seed: u64| d.dispatch(Msg::SetSeed(seed)))
    };
    let fixed = settings.preset.fixed_members().is_some();
    html! {
        <div class="controls" role="toolbar" aria-label={t(lang, Text::RunControls)}>
            <label class="world"><span class="label-text">{ t(lang, Text::World) }</span>
                <select data-control="world" onchange={on_world} key={format!("world-{asking}")}>
                    { for Preset::ALL.into_iter().map(|p| html! {
                        <option value={p.name()} selected={p == settings.preset}>{ world_name(lang, p) }</option>
                    }) }
                </select>
            </label>
            <label><span class="label-text">{ t(lang, Text::MemberCount) }</span>
                // Keyed by the restart question: a "no" puts back the run's own value.
                <select data-control="members" onchange={on_members} key={format!("members-{asking}")} disabled={fixed}>
                    { for (1..=crate::etcd::MAX_MEMBERS).map(|n| html! {
                        <option value={n.to_string()} selected={n == settings.members}>{ n }</option>
                    }) }
                </select>
            </label>
            <label><span class="label-text">{ t(lang, Text::Seed) }</span>
                <super::field::SeedField value={settings.seed} {lang} {on_seed} key={format!("seed-{asking}")} />
            </label>
            <button data-action="reset" onclick={send(d, || Msg::Reset)}>{ "↺ " }{ t(lang, Text::Reset) }</button>
            <button data-action="onboarding" aria-pressed={super::onboarding::is_open(view).to_string()}
                onclick={start_here(d, view)}>{ t(lang, Text::StartHere) }</button>
            <button data-action="legend" aria-pressed={view.legend.to_string()} aria-label={t(lang, Text::LegendTitle)}
                title={t(lang, Text::LegendTitle)} onclick={send(d, || Action::ShowLegend(true).into())}>{ "?" }</button>
            <button data-action="presenter" aria-pressed={presenter.to_string()}
                onclick={send(d, move || Action::SetPresenter(!presenter).into())}>{ t(lang, Text::Presenter) }</button>
            <button data-action="lang" onclick={send(d, move || Action::SetLang(lang.other()).into())}>{ t(lang, Text::Language) }</button>
        </div>
    }
}

fn world_name(lang: super::i18n::Lang, preset: Preset) -> &'static str {
    match preset {
        Preset::Members => t(lang, Text::WorldMembers),
        Preset::Kubeadm => t(lang, Text::WorldKubeadm),
    }
}

fn start_here(d: &Dispatch, view: &View) -> Callback<MouseEvent> {
    let (d, open) = (d.clone(), super::onboarding::is_open(view));
    Callback::from(move |_: MouseEvent| super::onboarding::show(&d, !open))
}

/// A 24×24 icon from one SVG path (no icon font: glyphs are missing on many projectors' PCs).
fn icon(path: &'static str) -> Html {
    html! { <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d={path} /></svg> }
}

/// The speed beside its slider, with as many decimals as it needs to read well.
pub fn format_speed(speed: f64) -> String {
    if speed >= 9.95 {
        format!("{speed:.0}×")
    } else if speed >= 0.995 {
        format!("{speed:.1}×")
    } else {
        format!("{speed:.2}×")
    }
}
