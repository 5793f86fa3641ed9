//! The run at a glance: the clock and the leader, the quorum meter, and the latest events and
//! invariant violations, narrated.

use super::i18n::{leader_now, narrate, t, violation, Lang, Text};
use super::lab::Msg;
use super::page::{Clock, Dispatch, Page};
use super::view::{self, shown_time, Action, View, REPLAY_LEAD_MS};
use crate::check::Violation;
use crate::etcd::Cluster as World;
use yew::prelude::*;

/// `fast_forward`: the skip-ahead menu, in the time tools' row.
pub fn clock(world: &World, view: &View, d: &Dispatch, fast_forward: Html) -> Html {
    let lang = view.lang;
    html! {
        <div class="clock-row">
        <div class="clock">
            <span class="label">{ t(lang, Text::VirtualTime) }</span>
            <SimTime />
            <span class="leader-now" data-leader={world.leader().map(|l| l.to_string()).unwrap_or_default()}>{
                leader_now(lang, world.leader().map(|l| world.display_name(l)).as_deref())
            }</span>
            <InFlightCount />
        </div>
        { slow_motion_tools(world, view, d, fast_forward) }
        </div>
    }
}

/// The virtual time, drawn from the `Clock` in every frame that draws.
#[component]
fn SimTime() -> Html {
    let now = use_context::<Clock>().map_or(0, |c| c.0);
    let page = use_context::<Page>();
    let playing = page.as_ref().is_some_and(|p| p.view.playing);
    let speed = page.map_or(1.0, |p| p.lab.borrow().timeline().speed);
    let now = shown_time(now, playing, speed);
    html! {
        <span class="value" data-sim-time={now.to_string()}>{ format!("{:.2} s", now as f64 / 1000.0) }</span>
    }
}

/// The messages on the wire, drawn with the clock: the panels around it follow only what
/// changes the members, which a heartbeat does not.
#[component]
fn InFlightCount() -> Html {
    use_context::<Clock>();
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let flying = page.lab.borrow().world().in_flight_count();
    html! {
        <span class="inflight">{ format!("{flying} {}", t(page.view.lang, Text::InFlight)) }</span>
    }
}

/// Back through the time slider to just before the last election began, then play it in
/// slow motion. None before the first election.
pub fn replay_last_election(world: &World, d: &Dispatch) -> Option<Callback<MouseEvent>> {
    let start = view::last_election_start(world)?.saturating_sub(REPLAY_LEAD_MS);
    let d = d.clone();
    Some(Callback::from(move |_: MouseEvent| {
        d.dispatch(Msg::Scrub(start));
        d.dispatch(Action::SetSlowMotion(true));
        d.dispatch(Msg::Play);
    }))
}

/// Slow motion, "pause when the leader changes", "replay the last election", then the
/// fast-forward menu.
fn slow_motion_tools(world: &World, view: &View, d: &Dispatch, fast_forward: Html) -> Html {
    let lang = view.lang;
    let (slow, pause_on_change) = (view.slow_motion_on(), view.pause_on_leader_change);
    let slowing = slow && view.playing && view::worth_slowing(world);
    let toggle = |action: Action| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(action.clone()))
    };
    let replay = replay_last_election(world, d);
    html! {
        <div class="tools" role="group" aria-label={t(lang, Text::SlowMotion)}>
            <button class={classes!("toggle", slow.then_some("on"))} data-slowmo={if slow { "on" } else { "off" }}
                data-slowmo-active={slowing.to_string()} aria-pressed={slow.to_string()}
                title={t(lang, Text::SlowMotionHelp)} onclick={toggle(Action::SetSlowMotion(!slow))}>
                { t(lang, if slowing { Text::SlowMotionActive } else { Text::SlowMotion }) }</button>
            <button class={classes!("toggle", pause_on_change.then_some("on"))} data-control="pause-on-leader"
                aria-pressed={pause_on_change.to_string()} onclick={toggle(Action::SetPauseOnLeaderChange(!pause_on_change))}>
                { t(lang, Text::PauseOnLeader) }</button>
            <button data-action="replay-election" disabled={replay.is_none()} onclick={replay.unwrap_or_default()}
                title={t(lang, Text::ReplayElectionHelp)}>{ t(lang, Text::ReplayElection) }</button>
            { fast_forward }
        </div>
    }
}

pub fn quorum_meter(world: &World, lang: Lang) -> Html {
    let view = world.quorum_view();
    let (total, quorum, reachable, ok) = (
        view.voters.len(),
        view.quorum,
        view.reachable,
        view.writes_commit,
    );
    let tolerated = view.tolerated_failures;
    // Before the first election "cannot commit" is true but reads as a fault: say what is
    // going on instead.
    let electing = !ok && super::view::never_led(world);
    let rule = if view.joint {
        format!("{} = {quorum}", t(lang, Text::Quorum))
    } else {
        format!("{} = ⌊{total}/2⌋+1 = {quorum}", t(lang, Text::Quorum))
    };
    html! {
        <div class={classes!("quorum", if ok { "ok" } else if electing { "electing" } else { "blocked" })} data-quorum={quorum.to_string()}
             data-reachable={reachable.to_string()} data-voters={total.to_string()} data-writes={if ok { "commit" } else { "blocked" }}>
            <div class="pips" aria-hidden="true">
                { for (0..total).map(|i| html! {
                    <span class={classes!("pip", (i < reachable).then_some("up"), (i + 1 == quorum).then_some("threshold"))} />
                }) }
            </div>
            <div class="quorum-text">
                <strong>{ rule }</strong>
                { format!(" · {} {reachable}/{total} · ", t(lang, Text::Reachable)) }
                if electing {
                    <span class="verdict electing" data-electing="">{ t(lang, Text::ElectingLeader) }</span>
                } else {
                    <span class="verdict">{ if ok { "✓ " } else { "✕ " } }{ t(lang, if ok { Text::WritesCommit } else { Text::WritesBlocked }) }</span>
                }
                <span class="tolerates">{ tolerance(lang, total, tolerated) }</span>
                <span class="more-failures" data-more-failures={view.more_failures_tolerated.to_string()}>
                    { more_failures(lang, view.more_failures_tolerated, ok) }</span>
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

/// What the members up now still survive (ring, issue 17 point 12: the line above is the
/// configuration's promise, this is the state it is in).
fn more_failures(lang: Lang, more: usize, ok: bool) -> String {
    match (lang, ok) {
        (Lang::En, true) => format!(
            " · now {more} more failure{} tolerated",
            if more == 1 { "" } else { "s" }
        ),
        (Lang::En, false) => " · no failure tolerated now".to_string(),
        (Lang::ZhTw, true) => format!(" · 目前還能再容忍 {more} 個故障"),
        (Lang::ZhTw, false) => " · 目前無法再容忍任何故障".to_string(),
    }
}

pub fn events(world: &World, violations: &[Violation], lang: Lang) -> Html {
    // Repeats (a member that keeps becoming pre-candidate while there is no quorum) fold into
    // one line with a count (ring, issue 17 point 6).
    let recent = world.recent_events(400);
    let folded = super::ring::fold_repeats(&recent, |e| (e.member, e.event.clone()));
    let shown = folded.len().saturating_sub(8);
    html! {
        <div class="events panel">
            <h2>{ t(lang, Text::Events) }</h2>
            // Focusable, so the keyboard can scroll it (axe: scrollable-region-focusable).
            <ol aria-live="polite" data-event-log="" tabindex="0" aria-label={t(lang, Text::Events)}>
                { for violations.iter().rev().take(2).map(|v| html! {
                    <li class="violation" data-violation={v.property.name()}>
                        <span class="when">{ format!("{:.2}s", v.time_ms as f64 / 1000.0) }</span>
                        { format!("✕ {}", violation(lang, v)) }
                    </li>
                }) }
                { for folded[shown..].iter().rev().map(|(latest, count, _)| {
                    let e = &recent[*latest];
                    html! {
                        <li data-repeat={(*count > 1).then(|| count.to_string())}>
                            <span class="when">{ format!("{:.2}s", e.time_ms as f64 / 1000.0) }</span>
                            { narrate(lang, &|m| world.display_name(m), e.member, &e.event) }
                            if *count > 1 { <span class="repeat">{ format!(" ×{count}") }</span> }
                        </li>
                    }
                }) }
            </ol>
        </div>
    }
}
