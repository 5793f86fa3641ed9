//! The console: the same command lines the CLI runs (`etcdctl ...` and the simulator's verbs),
//! with a history (↑/↓), Tab completion (`console::complete`), heredocs and pasted scripts
//! (`lab::Continuation`: a `> ` prompt until the marker), where etcdctl connects, and the
//! transcript with replayed lines dimmed, a divider per new run and the page's hints.

use super::i18n::{console_hint, t, Lang, Text};
use super::lab::{ConsoleEntry, Continuation, EntryKind, Lab, Msg};
use super::page::{Dispatch, Page};
use crate::base::Millis;
use crate::console::complete::complete;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct InputProps {
    pub lang: Lang,
    pub members: Vec<String>,
    pub on_command: Callback<String>,
}

/// What the command line keeps between keys (its text lives in the input element).
#[derive(Default)]
struct LineState {
    history: Vec<String>,
    /// Position while browsing the history with ↑/↓ (== len: the line being written).
    cursor: usize,
    continuation: Continuation,
}

impl LineState {
    /// Runs each complete text, remembering it for ↑ (a heredoc by its first line).
    fn submit(&mut self, texts: Vec<String>, on_command: &Callback<String>) {
        for text in texts {
            let first = text.lines().next().unwrap_or("").trim().to_string();
            if self.history.last() != Some(&first) {
                self.history.push(first);
            }
            on_command.emit(text);
        }
        self.cursor = self.history.len();
    }
}

/// The command line itself (its text, history, continuation and candidates are its own).
#[component]
pub fn ConsoleInput(props: &InputProps) -> Html {
    let candidates = use_state(Vec::<String>::new);
    let state = use_mut_ref(LineState::default);
    // Re-rendered when the continuation changes (it lives in the RefCell above).
    let pending = use_state(Vec::<String>::new);
    let onkeydown = {
        let (candidates, state, pending) = (candidates.clone(), state.clone(), pending.clone());
        let members = props.members.clone();
        let on_command = props.on_command.clone();
        Callback::from(move |e: KeyboardEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let value = input.value();
            let mut st = state.borrow_mut();
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    let ready = st.continuation.enter(&value);
                    st.submit(ready.into_iter().collect(), &on_command);
                    pending.set(st.continuation.lines().to_vec());
                    input.set_value("");
                    candidates.set(Vec::new());
                }
                "Tab" if !value.is_empty() && st.continuation.lines().is_empty() => {
                    e.prevent_default();
                    let done = complete(&value, &members);
                    input.set_value(&done.line);
                    candidates.set(done.candidates);
                }
                "ArrowUp" | "ArrowDown" if st.continuation.lines().is_empty() => {
                    e.prevent_default();
                    let up = e.key() == "ArrowUp";
                    st.cursor = if up {
                        st.cursor.saturating_sub(1)
                    } else {
                        (st.cursor + 1).min(st.history.len())
                    };
                    let line = st.history.get(st.cursor).cloned().unwrap_or_default();
                    input.set_value(&line);
                }
                "Escape" => {
                    st.continuation.cancel();
                    pending.set(Vec::new());
                    candidates.set(Vec::new());
                }
                "c" if e.ctrl_key() && !st.continuation.lines().is_empty() => {
                    e.prevent_default();
                    st.continuation.cancel();
                    pending.set(Vec::new());
                    input.set_value("");
                }
                _ => {}
            }
        })
    };
    let onpaste = {
        let (state, pending) = (state.clone(), pending.clone());
        let on_command = props.on_command.clone();
        Callback::from(move |e: Event| {
            let Some(text) = e
                .dyn_ref::<web_sys::ClipboardEvent>()
                .and_then(|c| c.clipboard_data())
                .and_then(|d| d.get_data("text").ok())
            else {
                return;
            };
            if !text.contains('\n') {
                return; // one line: the input takes it as it is
            }
            e.prevent_default();
            let input: HtmlInputElement = e.target_unchecked_into();
            let mut st = state.borrow_mut();
            let (ready, rest) = st.continuation.paste(&input.value(), &text);
            st.submit(ready, &on_command);
            pending.set(st.continuation.lines().to_vec());
            input.set_value(&rest);
        })
    };
    let awaiting = state.borrow().continuation.awaiting();
    let prompt = if pending.is_empty() { "$" } else { ">" };
    html! {
        <div class="console-input">
            if !pending.is_empty() {
                <pre class="console-pending" data-console-pending="">
                    { for pending.iter().enumerate().map(|(i, l)| {
                        format!("{} {l}\n", if i == 0 { "$" } else { ">" })
                    }) }
                </pre>
            }
            <div class="console-line">
                <span class="prompt" aria-hidden="true" data-console-prompt={prompt}>{ prompt }</span>
                <input type="text" data-console="etcdctl" id="console-input"
                    aria-label={t(props.lang, Text::Console)}
                    placeholder={t(props.lang, Text::ConsolePlaceholder)}
                    autocomplete="off" spellcheck="false" autocapitalize="off"
                    {onkeydown} {onpaste} />
            </div>
            if let Some(marker) = awaiting {
                <div class="muted console-awaiting" data-console-awaiting={marker.clone()}>
                    { format!("{} {marker} · {}", t(props.lang, Text::HeredocWaiting), t(props.lang, Text::HeredocCancel)) }
                </div>
            }
            if !candidates.is_empty() {
                <div class="hint" data-console-hint="" data-console-candidates={candidates.len().to_string()}>
                    { for candidates.iter().map(|c| html! { <span class="completion">{ c.clone() }</span> }) }
                </div>
            }
        </div>
    }
}

/// Runs the console's long run a slice per animation frame while there is one; a slice ends
/// when its real-time budget is spent (`long_run::Pace`), so it is given all the time left:
/// a cap in virtual time grown frame by frame only made the first frames of a skip idle.
#[hook]
pub fn use_long_runs(page: &Page) {
    let active = page.lab.borrow().long_run().is_some();
    let d = page.dispatcher();
    super::frames::use_frames(
        active,
        (),
        Callback::from(move |_| {
            d.dispatch(Msg::Continue(Millis::MAX));
            0.0
        }),
    );
}

/// While a long run goes on: its virtual time done of its total (`data-console-progress`
/// `DONE/TOTAL` in ms) and the lines typed after it.
pub fn progress(lab: &Lab, lang: Lang) -> Html {
    let Some(p) = lab.long_run() else {
        return html! {};
    };
    // As the header's clock reads (`12719ms / 60s` was a script's form, not a reader's).
    let mut text = format!(
        "{} {:.1} / {:.1} s",
        t(lang, Text::ConsoleRunning),
        p.done_ms as f64 / 1000.0,
        p.total_ms as f64 / 1000.0
    );
    if p.queued > 0 {
        text.push_str(&format!(" · {} {}", p.queued, t(lang, Text::ConsoleQueued)));
    }
    html! {
        <div class="console-progress muted" role="status"
            data-console-progress={format!("{}/{}", p.done_ms, p.total_ms)}
            data-console-queued={p.queued.to_string()}>
            <progress max={p.total_ms.max(1).to_string()} value={p.done_ms.to_string()}></progress>
            { " " }{ text }
        </div>
    }
}

/// Where etcdctl without `--endpoints` connects now, and the list it picks from.
pub fn endpoint(lab: &Lab, lang: Lang) -> Html {
    let (now, all, local) = lab.console_endpoint();
    let of = if local {
        Text::ConsoleEndpointLocal
    } else {
        Text::ConsoleEndpointOf
    };
    html! {
        <div class="console-endpoint muted" data-console-endpoint={now.clone()}>
            { t(lang, Text::ConsoleEndpoint) }{ " " }<code>{ now }</code>
            { format!(" · {} {}", t(lang, of), all.join(", ")) }
        </div>
    }
}

/// Above the transcript of a loaded run: what the dimmed lines are, and the button that plays
/// the run again from its start.
pub fn replay_bar(lab: &Lab, lang: Lang, d: &Dispatch) -> Html {
    if !lab.can_play_from_start() {
        return html! {};
    }
    let play = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::PlayFromStart))
    };
    let note = if lab.is_playing_back() {
        Text::PlayingBack
    } else {
        Text::ConsoleReplayed
    };
    html! {
        <div class="console-replay" data-console-replay="">
            <span class="muted">{ t(lang, note) }</span>
            <button class="small" data-action="play-from-start" onclick={play}>
                { t(lang, Text::PlayFromStart) }</button>
        </div>
    }
}

#[derive(Properties)]
pub struct OutputProps {
    pub lab: Rc<RefCell<Lab>>,
    /// `Lab::transcript_edits` when the stage rendered.
    pub edits: u64,
    pub lang: Lang,
    pub node: NodeRef,
}

impl PartialEq for OutputProps {
    // The run changes in place: its transcript's edits tell when the output changed.
    fn eq(&self, other: &OutputProps) -> bool {
        Rc::ptr_eq(&self.lab, &other.lab)
            && (self.edits, self.lang, &self.node) == (other.edits, other.lang, &other.node)
    }
}

/// The transcript, rendered again only when it changed (not in every frame of the clock).
#[component]
pub fn Output(props: &OutputProps) -> Html {
    output(
        props.lab.borrow().transcript(),
        props.lang,
        props.node.clone(),
    )
}

/// The transcript: each command as `$ line` (its heredoc after it), then what it printed,
/// then the page's hint, if any.
fn output(entries: &[ConsoleEntry], lang: Lang, node: NodeRef) -> Html {
    html! {
        <pre class="console-output" data-console-output="" ref={node} aria-live="polite">
            { for entries.iter().map(|e| entry(e, lang)) }
        </pre>
    }
}

fn entry(e: &ConsoleEntry, lang: Lang) -> Html {
    if e.kind == EntryKind::NewRun {
        return html! {
            <span class="console-divider" data-console-divider="">
                { format!("── {} · {} ──\n", t(lang, Text::NewRun), e.line) }</span>
        };
    }
    // Not "entry": that is a log cell's class (a centred inline-flex column).
    let class = classes!(
        "console-entry",
        (e.kind == EntryKind::Replayed).then_some("console-replayed")
    );
    let heredoc = e.stdin.as_ref().map(|body| {
        let lines: String = body.lines().map(|l| format!("> {l}\n")).collect();
        format!("{lines}> EOF\n")
    });
    let first = match &e.stdin {
        Some(_) => format!("{} <<EOF", e.line),
        None => e.line.clone(),
    };
    html! {
        <span class={class} data-console-entry={if e.kind == EntryKind::Replayed { "replayed" } else { "typed" }}>
            <span class="cmd">{ format!("[{:.1}s] $ {first}\n", e.time_ms as f64 / 1000.0) }</span>
            if let Some(h) = heredoc { <span class="console-heredoc">{ h }</span> }
            if !e.stdout.is_empty() {
                <span class={classes!("out", e.is_tabular().then_some("console-table"))}>{ e.stdout.clone() }</span>
            }
            if !e.stderr.is_empty() { <span class="err">{ e.stderr.clone() }</span> }
            if e.code != 0 { <span class="code">{ format!("[exit {}]\n", e.code) }</span> }
            if let Some(hint) = &e.hint {
                <span class="raftlab-hint" data-console-raftlab-hint="">
                    { format!("{} {}\n", t(lang, Text::HintPrefix), console_hint(lang, hint)) }</span>
            }
        </span>
    }
}
