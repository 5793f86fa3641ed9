//! Every member's log side by side, aligned by index: colour is the term (and the term is
//! written), an uncommitted entry is hollow, one that differs from the leader's at the same
//! index (it will be overwritten) is hatched and crossed, a line across every row marks the
//! commit index, and each cell names its entry's kind. A slider scrolls back through the
//! whole log. Under it, the leader's progress
//! for each follower: match, next, probe/replicate/snapshot, messages in flight.

use super::i18n::{progress_state, t, Lang, Text};
use super::page::{Dispatch, Page};
use super::ring::entry_kind_label;
use super::view::Action;
use crate::base::{Index, MemberId};
use crate::etcd::Cluster as World;
use crate::raft::{EntryKind, ProgressState, RaftView};
use std::collections::BTreeSet;
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
    let _ = d;
    html! { <LogScroll last={last_index(world)} {focus} {lang} /> }
}

fn last_index(world: &World) -> u64 {
    world
        .member_ids()
        .iter()
        .filter_map(|id| world.node(*id).map(|n| n.log().last_index()))
        .max()
        .unwrap_or(0)
}

#[derive(Properties, PartialEq)]
pub struct LogScrollProps {
    pub last: u64,
    pub focus: Option<u64>,
    pub lang: Lang,
}

/// The window of the log shown, and the slider that moves it back through the whole log
/// (released at the end, it follows the newest entries again).
#[component]
pub fn LogScroll(props: &LogScrollProps) -> Html {
    let start = use_state(|| None::<u64>);
    let Some(page) = use_context::<Page>() else {
        return html! {};
    };
    let last = props.last;
    let latest_first = last.saturating_sub(SHOWN - 2).max(1);
    let first = match (props.focus, *start) {
        (Some(f), _) => f.saturating_sub(SHOWN / 2).max(1),
        (None, Some(s)) if s < latest_first => s.max(1),
        _ => latest_first,
    };
    let on_scroll = {
        let start = start.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(v) = input.value().parse::<u64>() {
                start.set((v < latest_first).then_some(v));
            }
        })
    };
    let picture = log_picture(page.lab.borrow().world(), first, props.focus);
    let (lang, d) = (props.lang, page.dispatcher());
    html! { <>
        if latest_first > 1 {
            <label class="log-scroll">
                <span>{ t(props.lang, Text::LogScroll) }</span>
                <input type="range" min="1" max={latest_first.to_string()} step="1" data-control="log-scroll"
                    value={first.to_string()} oninput={on_scroll}
                    aria-valuetext={format!("{first}–{}", (first + SHOWN - 1).min(last + 1))} />
                <output data-log-first={first.to_string()}>{ format!("{first}–{} / {last}", (first + SHOWN - 1).min(last + 1)) }</output>
            </label>
        }
        <LogWindow {picture} {lang} {d} />
    </> }
}

/// What the log window draws, as plain data: the page renders this panel at every event of
/// the world, and most of them (a tick, a heartbeat) change none of it, so the window is
/// drawn only when this changes.
#[derive(Clone, Debug, PartialEq)]
struct LogPicture {
    first: u64,
    end: u64,
    focus: Option<u64>,
    leader: Option<MemberId>,
    rows: Vec<LogRow>,
}

#[derive(Clone, Debug, PartialEq)]
struct LogRow {
    id: MemberId,
    name: String,
    /// Only the shown entries (a long log would cost every frame); none for a stopped member.
    view: Option<RaftView>,
    doomed: BTreeSet<Index>,
}

fn log_picture(world: &World, first: u64, focus: Option<u64>) -> LogPicture {
    let end = (first + SHOWN - 1).min(last_index(world) + 1).max(first);
    let rows = world
        .member_ids()
        .into_iter()
        .map(|id| LogRow {
            id,
            name: world.display_name(id),
            view: world.raft_view_of(id, first..=end).map(RaftView::settled),
            doomed: world.entries_to_be_overwritten(id),
        })
        .collect();
    LogPicture {
        first,
        end,
        focus,
        leader: world.leader(),
        rows,
    }
}

#[derive(Properties, PartialEq)]
struct LogWindowProps {
    picture: LogPicture,
    lang: Lang,
    d: Dispatch,
}

#[component]
fn LogWindow(props: &LogWindowProps) -> Html {
    let (pic, lang, d) = (&props.picture, props.lang, &props.d);
    let (focus, leader) = (pic.focus, pic.leader);
    let columns = pic.first..=pic.end;
    let leader_view = leader
        .and_then(|l| pic.rows.iter().find(|r| r.id == l))
        .and_then(|r| r.view.as_ref());
    let focus_bar = focus.map(|f| {
        let d = d.clone();
        let summary = pic
            .rows
            .iter()
            .filter_map(|r| r.view.as_ref())
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
    // One line across every row: the leader's commit index (else the highest any member knows).
    let commit = leader_view.map(|v| v.commit).unwrap_or_else(|| {
        pic.rows
            .iter()
            .filter_map(|r| r.view.as_ref().map(|v| v.commit))
            .max()
            .unwrap_or(0)
    });
    let edge = |i: u64| (i == commit).then_some("commit-edge");
    html! {
        <div class="logs" data-logs="" data-commit-line={commit.to_string()}>
            { for focus_bar }
            <div class="log-grid" style={format!("--cols: {}", columns.clone().count())}>
                <span class="log-name" />
                { for columns.clone().map(|i| html! { <span class={classes!("log-index", (focus == Some(i)).then_some("focused"), edge(i))}>{ i }</span> }) }
                { for pic.rows.iter().map(|row| {
                    let id = row.id;
                    let progress = leader_view.and_then(|lv| lv.progress.iter().find(|p| p.member == id && lv.id != id));
                    html! { <>
                        <span class={classes!("log-name", (leader == Some(id)).then_some("is-leader"))}>{ row.name.clone() }</span>
                        { for columns.clone().map(|i| cell(row.view.as_ref(), i, (row.doomed.contains(&i), focus == Some(i), i == commit), progress.map(|p| (p.match_index, p.next_index)), lang)) }
                    </> }
                }) }
            </div>
            <div class="log-legend" data-log-legend="">
                <span class="legend-item">
                    { for (1..=4).map(|term| html! { <span class={classes!("entry", "sample", format!("t{term}"))}>{ term }</span> }) }
                    { t(lang, Text::ColourIsTerm) }
                </span>
                <span class="legend-item"><span class="entry t2 sample">{ "2" }</span>{ t(lang, Text::Committed) }</span>
                <span class="legend-item"><span class="entry t2 sample uncommitted">{ "2" }</span>{ t(lang, Text::UncommittedHollow) }</span>
                <span class="legend-item"><span class="entry t2 sample conflict">{ "2" }<span class="conflict-mark">{ "✕" }</span></span>{ t(lang, Text::Conflict) }</span>
                <span class="legend-item"><span class="sample commit-sample" />{ t(lang, Text::CommitLine) }</span>
                <span class="legend-item"><span class="kind-sample">{ "put" }</span>{ t(lang, Text::EntryKinds) }</span>
            </div>
            { progress_table(&pic.rows, leader_view, lang) }
        </div>
    }
}

fn cell(
    view: Option<&RaftView>,
    index: u64,
    (conflict, focused, commit_edge): (bool, bool, bool),
    progress: Option<(u64, u64)>,
    lang: Lang,
) -> Html {
    let edge = commit_edge.then_some("commit-edge");
    let marks = progress.map(|(m, n)| (index == m, index == n));
    let (is_match, is_next) = marks.unwrap_or((false, false));
    let mark = html! { <>
        if is_match { <span class="mark-match" title={t(lang, Text::Match)}>{ "M" }</span> }
        if is_next { <span class="mark-next" title={t(lang, Text::Next)}>{ "N" }</span> }
    </> };
    let Some(view) = view else {
        return html! { <span class={classes!("cell", "empty", "stopped", edge)}>{ mark }</span> };
    };
    if index <= view.snapshot_index {
        return html! { <span class={classes!("cell", "compacted", edge)} title="snapshot">{ mark }</span> };
    }
    let Some(entry) = view.log.iter().find(|e| e.index == index) else {
        return html! { <span class={classes!("cell", "empty", edge)}>{ mark }</span> };
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
        edge,
    );
    let kind = entry_kind_label(&entry.summary, entry.kind == EntryKind::Config);
    let state = if committed {
        t(lang, Text::Committed)
    } else {
        t(lang, Text::Uncommitted)
    };
    html! {
        <span class={class} data-index={index.to_string()} data-term={entry.term.to_string()}
              data-entry-kind={kind.clone()} data-conflict={conflict.then_some("true")}
              title={format!("{} {index} · {} {} · {} · {state}", t(lang, Text::Index), t(lang, Text::Term), entry.term, entry.summary)}>
            { entry.term }
            <span class="kind">{ kind }</span>
            if conflict { <span class="conflict-mark" aria-hidden="true">{ "✕" }</span> }
            { mark }
        </span>
    }
}

fn progress_table(rows: &[LogRow], leader: Option<&RaftView>, lang: Lang) -> Html {
    let Some(leader) = leader else {
        return html! {};
    };
    let name = |id: MemberId| {
        rows.iter()
            .find(|r| r.id == id)
            .map_or_else(|| id.to_string(), |r| r.name.clone())
    };
    let rows = leader.progress.iter().filter(|p| p.member != leader.id);
    html! {
        <table class="progress" data-progress="">
            <caption>{ format!("{} ({})", t(lang, Text::Progress), name(leader.id)) }</caption>
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
                        <th>{ name(p.member) }{ if p.learner { format!(" ({})", t(lang, Text::Learner)) } else { String::new() } }</th>
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
