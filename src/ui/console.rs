//! The console: the same command lines the CLI runs (`etcdctl ...` and the simulator's verbs),
//! with a history (↑/↓) and Tab completion of verbs and member names.

use super::i18n::{t, Lang, Text};
use super::lab::ConsoleEntry;
use web_sys::HtmlInputElement;
use yew::prelude::*;

const ETCDCTL: &[&str] = &[
    "compaction",
    "del",
    "endpoint",
    "get",
    "lease",
    "member",
    "put",
    "txn",
    "watch",
];

/// Completes the last word of `line`: the new line, and the candidates when more than one
/// fits (for a hint).
pub fn complete(line: &str, members: &[String]) -> (String, Vec<String>) {
    let cut = line
        .rfind(|c: char| c.is_whitespace() || c == ',' || c == '|')
        .map_or(0, |i| i + 1);
    let (head, word) = line.split_at(cut);
    let before: Vec<&str> = head.split_whitespace().collect();
    let pool: Vec<String> = match before.as_slice() {
        [] => {
            let mut verbs: Vec<String> =
                crate::console::verbs::names().map(str::to_string).collect();
            verbs.sort();
            verbs
        }
        ["etcdctl"] => ETCDCTL.iter().map(|s| s.to_string()).collect(),
        ["wait"] => vec!["leader".into(), "1s".into()],
        ["status"] => vec!["-w".into()],
        ["status", "-w"] => vec!["json".into()],
        _ => members
            .iter()
            .cloned()
            .chain(std::iter::once("leader".to_string()))
            .collect(),
    };
    let fits: Vec<String> = pool.into_iter().filter(|c| c.starts_with(word)).collect();
    match fits.as_slice() {
        [] => (line.to_string(), Vec::new()),
        [only] => (format!("{head}{only} "), Vec::new()),
        many => {
            let mut common = many[0].clone();
            for c in &many[1..] {
                let same = common
                    .chars()
                    .zip(c.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                common = common.chars().take(same).collect();
            }
            (format!("{head}{common}"), many.to_vec())
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct InputProps {
    pub lang: Lang,
    pub members: Vec<String>,
    pub on_command: Callback<String>,
}

/// The command line itself (its text, history and hint are its own state).
#[component]
pub fn ConsoleInput(props: &InputProps) -> Html {
    let text = use_state(String::new);
    let hint = use_state(Vec::<String>::new);
    let history = use_mut_ref(Vec::<String>::new);
    // Position while browsing the history with ↑/↓ (== len: the line being written).
    let cursor = use_mut_ref(|| 0usize);

    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            text.set(input.value());
        })
    };
    let onkeydown = {
        let (text, hint, history, cursor) =
            (text.clone(), hint.clone(), history.clone(), cursor.clone());
        let members = props.members.clone();
        let on_command = props.on_command.clone();
        Callback::from(move |e: KeyboardEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let value = input.value();
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    let line = value.trim().to_string();
                    if !line.is_empty() {
                        let mut h = history.borrow_mut();
                        if h.last() != Some(&line) {
                            h.push(line.clone());
                        }
                        *cursor.borrow_mut() = h.len();
                        on_command.emit(line);
                    }
                    input.set_value("");
                    text.set(String::new());
                    hint.set(Vec::new());
                }
                "Tab" if !value.is_empty() => {
                    e.prevent_default();
                    let (line, candidates) = complete(&value, &members);
                    input.set_value(&line);
                    text.set(line);
                    hint.set(candidates);
                }
                "ArrowUp" | "ArrowDown" => {
                    e.prevent_default();
                    let h = history.borrow();
                    let mut c = cursor.borrow_mut();
                    *c = if e.key() == "ArrowUp" {
                        c.saturating_sub(1)
                    } else {
                        (*c + 1).min(h.len())
                    };
                    let line = h.get(*c).cloned().unwrap_or_default();
                    input.set_value(&line);
                    text.set(line);
                }
                "Escape" => hint.set(Vec::new()),
                _ => {}
            }
        })
    };
    html! {
        <div class="console-input">
            <span class="prompt" aria-hidden="true">{ "$" }</span>
            <input type="text" data-console="etcdctl" id="console-input"
                aria-label={t(props.lang, Text::Console)}
                placeholder={t(props.lang, Text::ConsolePlaceholder)}
                autocomplete="off" spellcheck="false" autocapitalize="off"
                value={(*text).clone()} {oninput} {onkeydown} />
            if !hint.is_empty() {
                <div class="hint" data-console-hint="">{ hint.join("  ") }</div>
            }
        </div>
    }
}

/// The transcript: each command as `$ line`, then what it printed.
pub fn output(entries: &[ConsoleEntry], node: NodeRef) -> Html {
    html! {
        <pre class="console-output" data-console-output="" ref={node} aria-live="polite">
            { for entries.iter().map(|e| html! { <>
                <span class="cmd">{ format!("[{:.1}s] $ {}\n", e.time_ms as f64 / 1000.0, e.line) }</span>
                if !e.stdout.is_empty() { <span class="out">{ e.stdout.clone() }</span> }
                if !e.stderr.is_empty() { <span class="err">{ e.stderr.clone() }</span> }
                if e.code != 0 { <span class="code">{ format!("[exit {}]\n", e.code) }</span> }
            </> }) }
        </pre>
    }
}
