//! The inspector of one message, and one member's key-value store.

use super::i18n::{t, Lang, Text};
use super::page::Dispatch;
use super::recorder::Recorder;
use super::view::Action;
use crate::base::MemberId;
use crate::etcd::Cluster as World;
use yew::prelude::*;

/// Rows a panel's list draws at most: a class reads a few, a page cannot draw ten thousand
/// in a frame (`check perf`'s keys, 500 pods), and the console lists them all.
pub const ROWS_SHOWN: usize = 100;

/// The line after a list cut at [`ROWS_SHOWN`]: how many rows are not shown (`kinds`, if
/// any, says of what kinds), and the command that lists them all.
pub fn rows_not_shown(more: usize, kinds: &str, command: &str, lang: Lang) -> Html {
    if more == 0 {
        return html! {};
    }
    let kinds = if kinds.is_empty() {
        String::new()
    } else {
        format!(" ({kinds})")
    };
    let (not_shown, all) = (t(lang, Text::RowsNotShown), t(lang, Text::RowsAllOfThem));
    html! {
        <p class="rows-more" data-rows-more={more.to_string()}>
            { format!("… {more} {not_shown}{kinds}{all} ") }<code>{ command }</code>
        </p>
    }
}

pub fn inspector(world: &World, recorder: &Recorder, id: u64, lang: Lang, d: &Dispatch) -> Html {
    let flying = world.in_flight().into_iter().find(|m| m.id == id);
    let on_wire = flying.is_some();
    let Some(m) = flying.or_else(|| recorder.get(id).map(|s| s.message.clone())) else {
        return html! {};
    };
    let (from, to, kind, term, entries, sent, arrive, describe) = (
        m.from,
        m.to,
        m.kind,
        m.term,
        m.entries,
        m.sent_ms,
        m.arrive_ms,
        m.describe,
    );
    let close = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Action::SelectMessage(None)))
    };
    let ms = |v: u64| format!("{:.3} s", v as f64 / 1000.0);
    html! {
        <div class="inspector" data-inspector={id.to_string()} role="dialog" aria-label={t(lang, Text::Message)}>
            <div class="panel-head">
                <h3>{ format!("{} #{id} · {kind}", t(lang, Text::Message)) }</h3>
                <button class="close" data-action="close-message" onclick={close} aria-label={t(lang, Text::Close)}>{ "✕" }</button>
            </div>
            <dl>
                <dt>{ t(lang, Text::Kind) }</dt><dd>{ kind }</dd>
                <dt>{ t(lang, Text::From) }</dt><dd>{ from.to_string() }</dd>
                <dt>{ t(lang, Text::To) }</dt><dd>{ to.to_string() }</dd>
                <dt>{ t(lang, Text::Term) }</dt><dd>{ term }</dd>
                <dt>{ t(lang, Text::Entries) }</dt><dd>{ entries }</dd>
                <dt>{ t(lang, Text::Sent) }</dt><dd>{ ms(sent) }</dd>
                <dt>{ t(lang, Text::Arrives) }</dt><dd>{ ms(arrive) }</dd>
            </dl>
            <code class="describe">{ describe.to_string() }</code>
            if on_wire {
                <div class="button-row">
                    <button data-action="drop-message" class="danger" onclick={d.command(format!("drop-message {id}"))}>{ t(lang, Text::Drop) }</button>
                    <button data-action="delay-message" onclick={d.command(format!("delay-message {id} 300ms"))}>{ t(lang, Text::Delay) }</button>
                </div>
            } else {
                <p class="muted">{ t(lang, Text::Gone) }</p>
            }
        </div>
    }
}

/// One member's MVCC store, as the engine reports it, and the latest changes a watch would
/// deliver. Nothing here is computed: it is `Cluster::kv_view` and `Store::recent_events`.
pub fn keys(world: &World, chosen: Option<MemberId>, lang: Lang, d: &Dispatch) -> Html {
    let ids = world.member_ids();
    let member = chosen
        .filter(|m| ids.contains(m))
        .or_else(|| world.leader())
        .or_else(|| ids.first().copied());
    let Some(member) = member else {
        return html! {};
    };
    let Some(view) = world.kv_view_first(member, ROWS_SHOWN) else {
        return html! {};
    };
    let events = world
        .process(member)
        .map(|m| m.store.recent_events(12))
        .unwrap_or_default();
    let text = |b: &[u8]| crate::raft::summarize(b);
    let compacted = if view.compact_revision > 0 {
        view.compact_revision.to_string()
    } else {
        "–".into()
    };
    html! {
        <div class="keys-panel" data-kv-member={member.to_string()} data-kv-revision={view.revision.to_string()}>
            <div class="kv-members" role="group">
                { for ids.iter().map(|id| {
                    let (id, d) = (*id, d.clone());
                    html! {
                        <button class={classes!((id == member).then_some("current"))} data-kv-show={id.to_string()}
                            onclick={Callback::from(move |_: MouseEvent| d.dispatch(Action::ShowKeysOf(id)))}>{ world.display_name(id) }</button>
                    }
                }) }
                <span class="kv-revs">
                    { format!("{} {} · {} {compacted}", t(lang, Text::KvRevision), view.revision, t(lang, Text::KvCompacted)) }
                </span>
            </div>
            if view.kvs.is_empty() {
                <p class="kv-empty">{ t(lang, Text::KvEmpty) }</p>
            } else {
                <table class="kv-table">
                    <thead><tr><th>{ "key" }</th><th>{ "value" }</th><th>{ "create" }</th><th>{ "mod" }</th><th>{ "version" }</th><th>{ "lease" }</th></tr></thead>
                    <tbody>
                        { for view.kvs.iter().map(|kv| html! {
                            <tr data-kv-key={text(&kv.key)}>
                                <td class="k">{ text(&kv.key) }</td>
                                <td>{ text(&kv.value) }</td>
                                <td>{ kv.create_revision }</td>
                                <td>{ kv.mod_revision }</td>
                                <td>{ kv.version }</td>
                                <td>{ if kv.lease == 0 { "–".to_string() } else { format!("{:x}", kv.lease) } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                { rows_not_shown(view.live_keys - view.kvs.len(), "", "etcdctl get --prefix \"\"", lang) }
            }
            <h3>{ t(lang, Text::WatchStream) }</h3>
            <ol class="watch-stream" data-watch-stream="">
                { for events.iter().map(|e| {
                    let kind = match e.kind { crate::mvcc::EventType::Put => "PUT", crate::mvcc::EventType::Delete => "DELETE" };
                    html! {
                        <li class={classes!("ev", kind.to_lowercase())}>
                            <span class="rev">{ e.kv.mod_revision }</span>
                            <span class="kind">{ kind }</span>
                            <span class="k">{ text(&e.kv.key) }</span>
                            if kind == "PUT" { <span class="v">{ text(&e.kv.value) }</span> }
                        </li>
                    }
                }) }
            </ol>
        </div>
    }
}
