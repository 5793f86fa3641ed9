//! One card per member: its role, term, vote, commit and applied index, and its controls
//! (each a script verb sent through the console engine).

use super::cluster::state_of;
use super::i18n::{role, t, Lang, Text};
use crate::base::MemberId;
use crate::etcd::Cluster as World;
use yew::prelude::*;

/// The fsync delay the "slow disk" control sets.
pub const SLOW_DISK: &str = "200ms";

pub fn render(world: &World, lang: Lang, send: &Callback<String>) -> Html {
    let add = |verb: &'static str| send.reform(move |_: MouseEvent| verb.to_string());
    html! {
        <div class="members-panel">
            <div class="panel-head">
                <h2>{ t(lang, Text::Members) }</h2>
                <div class="head-actions">
                    <button data-action="add-member" onclick={add("add-member")}>{ t(lang, Text::AddMember) }</button>
                    <button data-action="add-learner" onclick={add("add-learner")}>{ t(lang, Text::AddLearner) }</button>
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
                <strong class="member-name">{ id.to_string() }</strong>
                <span class={classes!("badge", state)}>{ role(lang, state) }</span>
                if learner { <span class="badge learner">{ t(lang, Text::Learner) }</span> }
                if paused { <span class="badge paused">{ t(lang, Text::Paused) }</span> }
                if slow { <span class="badge slow">{ t(lang, Text::SlowDiskBadge) }</span> }
            </div>
            if let Some(v) = &view {
                <div class="facts">
                    <span><abbr title={t(lang, Text::Term)}>{ "T" }</abbr><b>{ v.term }</b></span>
                    <span>{ t(lang, Text::Vote) }{ " " }<b>{ v.vote.map_or("–".into(), |m| m.to_string()) }</b></span>
                    <span>{ t(lang, Text::Commit) }{ " " }<b>{ v.commit }</b></span>
                    <span>{ t(lang, Text::Applied) }{ " " }<b>{ v.applied }</b></span>
                </div>
            } else {
                <p class="down">{ format!("{} · {} {term}", t(lang, Text::Stopped), t(lang, Text::Term)) }</p>
            }
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

fn close_menu(e: &MouseEvent) {
    use wasm_bindgen::JsCast;
    let details = e
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("details").ok().flatten());
    if let Some(details) = details {
        let _ = details.remove_attribute("open");
    }
}
