//! One card per member: its role, term, vote, commit and applied index, and its controls
//! (each a script verb sent through the console engine).

use super::cluster::state_of;
use super::i18n::{refusal_reason, role, t, Lang, Text};
use super::page::Page;
use crate::base::{MemberId, Millis};
use crate::etcd::Cluster as World;
use crate::raft::NodeEvent;
use yew::prelude::*;

/// How long after a refusal the card still explains it (virtual time).
const REFUSAL_SHOWN_MS: Millis = 3_000;

/// A button that cannot act now: disabled, and why, in its title and in a line beside it.
pub fn blocked_button(
    action: &'static str,
    label: &str,
    reason: Option<&str>,
    onclick: Callback<MouseEvent>,
) -> Html {
    let reason_id = format!("why-{action}");
    html! { <>
        <button data-action={action} disabled={reason.is_some()} title={reason.map(str::to_string)}
            aria-describedby={reason.map(|_| reason_id.clone())} {onclick}>{ label.to_string() }</button>
        if let Some(reason) = reason {
            <span class="disabled-reason" id={reason_id} data-disabled-reason={action}>{ reason.to_string() }</span>
        }
    </> }
}

/// The fsync delay the "slow disk" control sets.
pub const SLOW_DISK: &str = "200ms";

pub fn render(world: &World, lang: Lang, send: &Callback<String>) -> Html {
    let add = |verb: &'static str| send.reform(move |_: MouseEvent| verb.to_string());
    let no_leader = world.leader().is_none().then(|| t(lang, Text::NeedsLeader));
    html! {
        <div class="members-panel">
            <div class="panel-head">
                <h2>{ t(lang, Text::Members) }</h2>
                <div class="head-actions">
                    { blocked_button("add-member", t(lang, Text::AddMember), no_leader, add("add-member")) }
                    { blocked_button("add-learner", t(lang, Text::AddLearner), no_leader, add("add-learner")) }
                </div>
            </div>
            <div class="members">
                { for world.member_ids().into_iter().map(|id| card(world, id, lang, send)) }
            </div>
        </div>
    }
}

fn card(world: &World, id: MemberId, lang: Lang, send: &Callback<String>) -> Html {
    let state = state_of(world, id);
    let view = world.raft_state(id);
    let paused = world.is_paused(id);
    let slow = world.process(id).is_some_and(|m| m.fsync_ms > 0);
    let learner = view.as_ref().is_some_and(|v| v.learners.contains(&id));
    let command = |line: String| send.reform(move |_: MouseEvent| line.clone());
    let verb = |verb: &str| command(format!("{verb} {id}"));
    // Items of the "more" menu also close it.
    let item = |line: String| {
        send.reform(move |e: MouseEvent| {
            close_menu(&e);
            line.clone()
        })
    };
    let term = view
        .as_ref()
        .map_or_else(|| world.durable(id).map_or(0, |d| d.hard.term), |v| v.term);
    let running = view.is_some();
    html! {
        <div class={classes!("member", state, paused.then_some("paused"))}
             data-member={id.to_string()} data-state={state} data-term={term.to_string()}
             data-paused={paused.to_string()} data-learner={learner.to_string()}
             data-slow-disk={slow.to_string()}>
            <div class="member-head">
                <strong class="member-name">{ world.display_name(id) }</strong>
                <span class={classes!("badge", state)}>{ role(lang, state) }</span>
                if learner { <span class="badge learner">{ t(lang, Text::Learner) }</span> }
                if paused { <span class="badge paused">{ t(lang, Text::Frozen) }</span> }
                if slow { <span class="badge slow">{ t(lang, Text::SlowDiskBadge) }</span> }
            </div>
            if let Some(v) = &view {
                <div class="facts">
                    <span><abbr title={t(lang, Text::Term)}>{ "T" }</abbr><b>{ v.term }</b></span>
                    <span>{ t(lang, Text::Vote) }{ " " }<b>{ v.vote.map_or("–".into(), |m| world.display_name(m)) }</b></span>
                    <span>{ t(lang, Text::Commit) }{ " " }<b>{ v.commit }</b></span>
                    <span>{ t(lang, Text::Applied) }{ " " }<b>{ v.applied }</b></span>
                </div>
            } else {
                <p class="down">{ format!("{} · {} {term}", t(lang, Text::Stopped), t(lang, Text::Term)) }</p>
            }
            { refusals(world, id, lang) }
            <Feedback member={id.to_string()} />
            <div class="member-actions">
                if running {
                    <button data-action="kill" onclick={verb("kill")}>{ t(lang, Text::Kill) }</button>
                    if paused {
                        <button data-action="resume" onclick={verb("resume")}>{ t(lang, Text::ResumeMember) }</button>
                    } else {
                        <button data-action="pause" onclick={verb("pause")}>{ t(lang, Text::PauseMember) }</button>
                    }
                    <button data-action="timeout" onclick={verb("timeout")}>{ t(lang, Text::Timeout) }</button>
                } else {
                    <button data-action="restart" class="primary" onclick={verb("restart")}>{ t(lang, Text::Restart) }</button>
                }
                if running && state == "leader" {
                    <button data-action="client-write" class="primary" title={super::ring::client_write(id, world.revision_of(id))}
                        onclick={command(super::ring::client_write(id, world.revision_of(id)))}>{ t(lang, Text::ClientWrite) }</button>
                }
                <details class="more">
                    <summary data-action="more">{ t(lang, Text::More) }</summary>
                    <div class="menu">
                        if running && state != "leader" && !learner {
                            <button data-action="transfer" onclick={item(format!("transfer {id}"))}>{ t(lang, Text::Transfer) }</button>
                        }
                        if slow {
                            <button data-action="fast-disk" onclick={item(format!("fsync {id} 0ms"))}>{ t(lang, Text::FastDisk) }</button>
                        } else {
                            <button data-action="slow-disk" onclick={item(format!("fsync {id} {SLOW_DISK}"))}>{ t(lang, Text::SlowDisk) }</button>
                        }
                        <button data-action="snapshot" onclick={item(format!("snapshot {id}"))}>{ t(lang, Text::Snapshot) }</button>
                        if learner {
                            <button data-action="promote" onclick={item(format!("promote {id}"))}>{ t(lang, Text::Promote) }</button>
                        }
                        <button data-action="remove" class="danger" onclick={item(format!("remove-member {id}"))}>{ t(lang, Text::Remove) }</button>
                    </div>
                </details>
            </div>
        </div>
    }
}

/// Why the voters said no to this member's latest campaign (a "time out" that led nowhere),
/// from the engine's refusal events of the last few seconds.
fn refusals(world: &World, id: MemberId, lang: Lang) -> Html {
    let now = world.now();
    let mut seen: Vec<MemberId> = Vec::new();
    let lines: Vec<Html> = world
        .recent_events(40)
        .iter()
        .rev()
        .filter(|e| now.saturating_sub(e.time_ms) <= REFUSAL_SHOWN_MS)
        .filter_map(|e| match &e.event {
            NodeEvent::RefusedVote { candidate, reason, .. } if *candidate == id && !seen.contains(&e.member) => {
                seen.push(e.member);
                let why = refusal_reason(lang, &|m| world.display_name(m), id, reason);
                Some(html! {
                    <li data-refusal={e.member.to_string()}>{ format!("✕ {}: {why}", world.display_name(e.member)) }</li>
                })
            }
            _ => None,
        })
        .collect();
    if lines.is_empty() {
        return html! {};
    }
    html! {
        <div class="refusals" role="status">
            <span>{ t(lang, Text::RefusedBy) }</span>
            <ul>{ for lines }</ul>
        </div>
    }
}

#[derive(Properties, PartialEq)]
pub struct FeedbackProps {
    pub member: String,
}

/// The last command, when it was about this member and failed: its error, beside the buttons
/// that sent it (the console has it too, but the eye is here).
#[component]
pub fn Feedback(props: &FeedbackProps) -> Html {
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let lab = page.lab.borrow();
    let Some(last) = lab.transcript().last() else {
        return html! {};
    };
    let about_me = last
        .line
        .split_whitespace()
        .skip(1)
        .any(|w| w == props.member);
    if last.code == 0 || !about_me {
        return html! {};
    }
    let error = last
        .stderr
        .lines()
        .chain(last.stdout.lines())
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    html! {
        <p class="action-error" role="alert" data-action-error={props.member.clone()}>
            <code>{ last.line.clone() }</code>{ " → " }{ error.to_string() }
        </p>
    }
}

/// Closes the `<details>` menu a click came from (a chosen item ends the menu).
pub(super) fn close_menu(e: &MouseEvent) {
    use wasm_bindgen::JsCast;
    let details = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("details").ok().flatten());
    if let Some(details) = details {
        let _ = details.remove_attribute("open");
    }
}
