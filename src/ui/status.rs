//! The run at a glance: the clock and the leader, the quorum meter, and the latest events and
//! invariant violations, narrated.

use super::i18n::{leader_now, narrate, t, violation, Lang, Text};
use crate::check::Violation;
use crate::etcd::Cluster as World;
use yew::prelude::*;

pub fn clock(world: &World, lang: Lang) -> Html {
    html! {
        <div class="clock">
            <span class="label">{ t(lang, Text::VirtualTime) }</span>
            <span class="value" data-sim-time={world.now().to_string()}>{ format!("{:.2} s", world.now() as f64 / 1000.0) }</span>
            <span class="leader-now" data-leader={world.leader().map(|l| l.to_string()).unwrap_or_default()}>{
                leader_now(lang, world.leader().map(|l| l.to_string()).as_deref())
            }</span>
            <span class="inflight">{ format!("{} {}", world.in_flight().len(), t(lang, Text::InFlight)) }</span>
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

pub fn events(world: &World, violations: &[Violation], lang: Lang) -> Html {
    let recent = world.recent_events(8);
    html! {
        <div class="events panel">
            <h2>{ t(lang, Text::Events) }</h2>
            <ol aria-live="polite" data-event-log="">
                { for violations.iter().rev().take(2).map(|v| html! {
                    <li class="violation" data-violation={v.property.name()}>
                        <span class="when">{ format!("{:.2}s", v.time_ms as f64 / 1000.0) }</span>
                        { format!("✕ {}", violation(lang, v)) }
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
