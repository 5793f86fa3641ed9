//! The share tab: the link that replays this run, the script and trace downloads, and the
//! import of a script.

use super::dom;
use super::i18n::{t, Lang, Text};
use super::lab::{Lab, Msg};
use super::page::Dispatch;
use super::share::{self, Shared};
use super::view::{Action, Notice};
use crate::console::trace_file::replay_trace_json;
use crate::etcd::ClusterConfig as Settings;
use web_sys::HtmlInputElement;
use yew::prelude::*;

pub fn share(lab: &Lab, lang: Lang, d: &Dispatch) -> Html {
    let (session, settings) = (lab.session(), lab.settings());
    let url = format!("{}#{}", dom::base_url(), lab.share_fragment());
    let copy = {
        let (url, d) = (url.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            dom::copy(&url);
            d.dispatch(Action::Notify(Notice::info(t(lang, Text::Copied))));
        })
    };
    let script = session.export_script();
    let export_script = {
        let (script, d) = (script.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            report(
                &d,
                dom::download_text("raftlab-run.txt", "text/plain", &script),
            );
        })
    };
    let export_trace = {
        let (script, settings, d) = (script.clone(), settings.clone(), d.clone());
        Callback::from(move |_: MouseEvent| {
            let json = replay_trace_json(&settings, &script).map_err(|e| e.to_string());
            report(
                &d,
                json.and_then(|json| {
                    dom::download_text("raftlab-trace.json", "application/json", &json)
                }),
            );
        })
    };
    html! {
        <div class="share" data-panel="share">
            <h3>{ t(lang, Text::ShareLink) }</h3>
            <p class="muted">{ t(lang, Text::ShareHint) }</p>
            <div class="share-row">
                <input type="text" readonly=true data-share-url="" value={url}
                    aria-label={t(lang, Text::ShareLink)}
                    onfocus={Callback::from(|e: FocusEvent| {
                        let input: HtmlInputElement = e.target_unchecked_into();
                        input.select();
                    })} />
                <button data-action="copy-link" class="primary" onclick={copy}>{ t(lang, Text::Copy) }</button>
            </div>
            <div class="button-row">
                <button data-action="export-script" onclick={export_script}>{ t(lang, Text::ExportScript) }</button>
                <button data-action="export-trace" onclick={export_trace}>{ t(lang, Text::ExportTrace) }</button>
            </div>
            <ImportScript lang={lang} settings={settings.clone()} dispatch={d.clone()} />
            { kept_here(lang, d) }
        </div>
    }
}

/// What this browser keeps across reloads, and the way to forget it.
fn kept_here(lang: Lang, d: &Dispatch) -> Html {
    let fresh = {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.dispatch(Msg::StartFresh))
    };
    html! {
        <div class="kept">
            <h3>{ t(lang, Text::KeptHere) }</h3>
            <p class="muted">{ t(lang, Text::KeptHint) }</p>
            <div class="button-row">
                <button class="danger" data-start-fresh="" onclick={fresh}>{ t(lang, Text::StartFresh) }</button>
            </div>
        </div>
    }
}

fn report(d: &Dispatch, result: Result<(), String>) {
    if let Err(text) = result {
        d.dispatch(Action::Notify(Notice::error(text)));
    }
}

fn bad_import(lang: Lang, why: &str) -> Notice {
    Notice::error(format!("{}: {why}", t(lang, Text::BadImport)))
}

/// An example script (a Rust string: an HTML entity like `&#10;` would show as typed).
const IMPORT_PLACEHOLDER: &str = "# raftlab run --members 3 --seed 1\nwait leader\nkill leader";

#[derive(Properties, PartialEq)]
pub struct ImportProps {
    pub lang: Lang,
    pub settings: Settings,
    pub dispatch: Dispatch,
}

/// Paste or pick a script; "run" starts a new run from it (settings from its first line).
#[component]
pub fn ImportScript(props: &ImportProps) -> Html {
    let text = use_state(String::new);
    let lang = props.lang;
    let oninput = {
        let text = text.clone();
        Callback::from(move |e: InputEvent| {
            let area: web_sys::HtmlTextAreaElement = e.target_unchecked_into();
            text.set(area.value());
        })
    };
    let onfile = {
        let (text, d) = (text.clone(), props.dispatch.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let (text, d) = (text.clone(), d.clone());
            // A file that is no script is refused as it is read: the field keeps what it held.
            dom::read_file(&input, move |result| {
                match result.and_then(|c| share::check_import(&c).map(|()| c)) {
                    Ok(content) => text.set(content),
                    Err(e) => d.dispatch(Action::Notify(bad_import(lang, &e))),
                }
            });
        })
    };
    let run = {
        let (text, d, settings) = (text.clone(), props.dispatch.clone(), props.settings.clone());
        Callback::from(move |_: MouseEvent| {
            let script = (*text).clone();
            match share::check_import(&script) {
                Ok(()) => d.dispatch(Msg::Load(Shared {
                    settings: share::settings_from_script(&script, &settings),
                    script,
                })),
                Err(e) => d.dispatch(Action::Notify(bad_import(lang, &e))),
            }
        })
    };
    html! {
        <div class="import">
            <h3>{ t(lang, Text::ImportScript) }</h3>
            <textarea data-import-script="" rows="4" spellcheck="false"
                aria-label={t(lang, Text::ImportScript)}
                placeholder={IMPORT_PLACEHOLDER}
                value={(*text).clone()} {oninput} />
            <div class="button-row">
                <input type="file" accept=".txt,.sh,text/plain" data-import-file="" onchange={onfile}
                    aria-label={t(lang, Text::ImportScript)} />
                <button data-action="import-run" class="primary" disabled={text.trim().is_empty()} onclick={run}>
                    { t(lang, Text::RunScript) }</button>
            </div>
        </div>
    }
}
