//! Every member's log side by side, aligned by index: term (coloured by term, and written),
//! committed or not, applied, compacted into a snapshot, and entries that differ from the
//! leader's at the same index (they will be overwritten). Under it, the leader's progress
//! for each follower: match, next, probe/replicate/snapshot, messages in flight.

use super::i18n::{progress_state, t, Lang, Text};
use super::page::Dispatch;
use super::view::Action;
use crate::base::MemberId;
use crate::etcd::Cluster as World;
use crate::raft::{EntryKind, ProgressState, RaftView};
use yew::prelude::*;

/// Indices shown (the most recent ones).
const SHOWN: u64 = 20;

fn state_name(state: ProgressState) -> &'static str {
    match state {
        ProgressState::Probe => "probe",
        ProgressState::Replicate => "replicate",
        ProgressState::Snapshot => "snapshot",
    }
}

/// `focus`: an entry to show (and mark) instead of the most recent ones, e.g. the Raft entry of
/// a followed Kubernetes change.
pub fn render(world: &World, focus: Option<u64>, lang: Lang, d: &Dispatch) -> Html {
    let ids = world.member_ids();
    let last = ids
        .iter()
        .filter_map(|id| world.node(*id).map(|n| n.log().last_index()))
        .max()
        .unwrap_or(0);
    // One column past the end, where the leader's nextIndex usually points; around the focus
    // when there is one.
    let first = match focus {
        Some(f) => f.saturating_sub(SHOWN / 2).max(1),
        None => last.saturating_sub(SHOWN - 2).max(1),
    };
    let end = match focus {
        Some(_) => (first + SHOWN - 1).min(last + 1).max(first),
        None => (last + 1).max(first),
    };
    let columns = first..=end;
    // Only the shown entries are described (a long log would cost every frame).
    let views: Vec<(MemberId, Option<RaftView>)> = ids
        .iter()
        .map(|id| (*id, world.raft_view_of(*id, columns.clone())))
        .collect();
    let leader = world.leader();
    let leader_view = leader
        .and_then(|l| views.iter().find(|(id, _)| *id == l))
        .and_then(|(_, v)| v.as_ref());
    let focus_bar = focus.map(|f| {
        let d = d.clone();
        let summary = views
            .iter()
            .filter_map(|(_, v)| v.as_ref())
            .find_map(|v| v.log.iter().find(|e| e.index == f))
            .map(|e| format!(" (term {}): {}", e.term, e.summary))
            .unwrap_or_default();
        html! {
            <p class="log-focus" data-log-focus={f.to_string()}>
                <span>{ format!("{} {f}{summary}", t(lang, Text::FocusedEntry)) }</span>
                <button data-action="log-latest" onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::ShowEntry(None)))}>
                    { t(lang, Text::ShowLatest) }</button>
            </p>
        }
    });
    html! {
        <div class="logs" data-logs="">
            { for focus_bar }
            <div class="log-grid" style={format!("--cols: {}", columns.clone().count())}>
                <span class="log-name" />
                { for columns.clone().map(|i| html! { <span class={classes!("log-index", (focus == Some(i)).then_some("focused"))}>{ i }</span> }) }
                { for views.iter().map(|(id, view)| {
                    let progress = leader_view.and_then(|lv| lv.progress.iter().find(|p| p.member == *id && lv.id != *id));
                    let doomed = world.entries_to_be_overwritten(*id);
                    html! { <>
                        <span class={classes!("log-name", (leader == Some(*id)).then_some("is-leader"))}>{ id.to_string() }</span>
                        { for columns.clone().map(|i| cell(view.as_ref(), i, doomed.contains(&i), focus == Some(i), progress.map(|p| (p.match_index, p.next_index)), lang)) }
                    </> }
                }) }
            </div>
            <div class="log-legend">
                <span class="entry t1 sample">{ "2" }</span>{ t(lang, Text::Committed) }
                <span class="entry t1 sample uncommitted">{ "2" }</span>{ t(lang, Text::Uncommitted) }
                <span class="entry t1 sample applied">{ "2" }</span>{ t(lang, Text::Applied) }
                <span class="entry t1 sample conflict">{ "2" }</span>{ t(lang, Text::Conflict) }
            </div>
            { progress_table(leader_view, lang) }
        </div>
    }
}

fn cell(
    view: Option<&RaftView>,
    index: u64,
    conflict: bool,
    focused: bool,
    progress: Option<(u64, u64)>,
    lang: Lang,
) -> Html {
    let marks = progress.map(|(m, n)| (index == m, index == n));
    let (is_match, is_next) = marks.unwrap_or((false, false));
    let mark = html! { <>
        if is_match { <span class="mark-match" title={t(lang, Text::Match)}>{ "M" }</span> }
        if is_next { <span class="mark-next" title={t(lang, Text::Next)}>{ "N" }</span> }
    </> };
    let Some(view) = view else {
        return html! { <span class="cell empty stopped">{ mark }</span> };
    };
    if index <= view.snapshot_index {
        return html! { <span class="cell compacted" title="snapshot">{ mark }</span> };
    }
    let Some(entry) = view.log.iter().find(|e| e.index == index) else {
        return html! { <span class="cell empty">{ mark }</span> };
    };
    let committed = index <= view.commit;
    let applied = index <= view.applied;
    let class = classes!(
        "cell",
        "entry",
        format!("t{}", entry.term % 8),
        (!committed).then_some("uncommitted"),
        applied.then_some("applied"),
        conflict.then_some("conflict"),
        focused.then_some("focused"),
        (entry.kind == EntryKind::Config).then_some("config"),
    );
    let state = if committed {
        t(lang, Text::Committed)
    } else {
        t(lang, Text::Uncommitted)
    };
    html! {
        <span class={class} data-index={index.to_string()} data-term={entry.term.to_string()}
              title={format!("{} {index} · {} {} · {} · {state}", t(lang, Text::Index), t(lang, Text::Term), entry.term, entry.summary)}>
            { entry.term }{ mark }
        </span>
    }
}

fn progress_table(leader: Option<&RaftView>, lang: Lang) -> Html {
    let Some(leader) = leader else {
        return html! {};
    };
    let rows = leader.progress.iter().filter(|p| p.member != leader.id);
    html! {
        <table class="progress" data-progress="">
            <caption>{ format!("{} ({})", t(lang, Text::Progress), leader.id) }</caption>
            <thead><tr>
                <th />
                <th>{ t(lang, Text::Match) }</th>
                <th>{ t(lang, Text::Next) }</th>
                <th>{ t(lang, Text::State) }</th>
                <th>{ t(lang, Text::InflightColumn) }</th>
            </tr></thead>
            <tbody>
                { for rows.map(|p| html! {
                    <tr data-progress-member={p.member.to_string()} data-progress-state={state_name(p.state)}>
                        <th>{ p.member.to_string() }{ if p.learner { format!(" ({})", t(lang, Text::Learner)) } else { String::new() } }</th>
                        <td>{ p.match_index }</td>
                        <td>{ p.next_index }</td>
                        <td><span class={classes!("pstate", state_name(p.state))}>{ progress_state(lang, p.state) }</span></td>
                        <td>{ p.inflight }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}
