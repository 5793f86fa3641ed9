//! When the page dies anyway (a panic, or the wasm running out of memory), it says so instead
//! of freezing: the engine keeps `window.raftlabRecovery` (the seed, the run so far as a
//! script and as a share link, and the texts in the page's language) up to date, and the
//! handler in `index.html` shows them when the wasm traps, since no Rust runs after that.

use super::i18n::{t, Lang, Text};
use wasm_bindgen::{JsCast, JsValue};

const RECOVERY: &str = "raftlabRecovery";
/// Defined by `index.html`: shows the crash overlay with a reason.
const SHOW: &str = "raftlabCrashed";

/// A panic first tells the overlay why, then the wasm aborts (`panic = "abort"`).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let reason = info.to_string();
        web_sys::console::error_1(&JsValue::from_str(&reason));
        let show = web_sys::window()
            .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str(SHOW)).ok())
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(show) = show {
            let _ = show.call1(&JsValue::NULL, &JsValue::from_str(&reason));
        }
    }));
}

/// What the overlay offers if the page dies now.
pub fn record(lang: Lang, seed: u64, script: &str, link: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let recovery = js_sys::Object::new();
    let fields = [
        ("seed", seed.to_string()),
        ("script", script.to_string()),
        ("link", link.to_string()),
        ("title", t(lang, Text::CrashTitle).to_string()),
        ("body", t(lang, Text::CrashBody).to_string()),
        ("reload", t(lang, Text::CrashReload).to_string()),
        ("scriptLabel", t(lang, Text::CrashScript).to_string()),
        ("seedLabel", t(lang, Text::Seed).to_string()),
    ];
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&recovery, &key.into(), &value.into());
    }
    let _ = js_sys::Reflect::set(&window, &RECOVERY.into(), &recovery);
}

/// The run so far, as a share fragment (one format for links and for reloads).
const SESSION_KEY: &str = "raftlab.session";
/// Set while a saved run is being replayed: still set at the next opening means that replay
/// killed the page, so the page opens fresh instead of dying again on every reload.
const RESTORING_KEY: &str = "raftlab.restoring";

/// Keeps the run so far where the next opening of the page finds it.
pub fn save_session(fragment: &str) {
    super::dom::store(SESSION_KEY, fragment);
}

/// What the page opens: a link's own run first, else the saved one unless replaying it died.
pub fn opening_fragment(hash: &str) -> String {
    let saved = super::dom::load(SESSION_KEY).unwrap_or_default();
    let died = super::dom::load(RESTORING_KEY).as_deref() == Some("1");
    let fragment = choose_opening(hash, &saved, died).to_string();
    super::dom::store(RESTORING_KEY, if fragment.is_empty() { "" } else { "1" });
    fragment
}

/// The opening replay lived through its first render.
pub fn restored() {
    super::dom::store(RESTORING_KEY, "");
}

fn choose_opening<'a>(hash: &'a str, saved: &'a str, last_restore_died: bool) -> &'a str {
    if !hash.trim_start_matches('#').is_empty() {
        hash
    } else if last_restore_died {
        ""
    } else {
        saved
    }
}

#[cfg(test)]
mod tests {
    use super::choose_opening;

    #[test]
    fn a_link_wins_then_the_saved_run_unless_its_replay_died() {
        assert_eq!(choose_opening("#s=1", "s=2", false), "#s=1");
        assert_eq!(choose_opening("", "s=2", false), "s=2");
        assert_eq!(choose_opening("#", "s=2", false), "s=2");
        assert_eq!(choose_opening("", "s=2", true), "");
    }
}
