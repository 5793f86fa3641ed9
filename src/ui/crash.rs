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

/// Set by `index.html` once the page shows the crash overlay: from then on nothing is saved,
/// so the next opening finds the last good state, not the one that died.
const DEAD: &str = "raftlabDead";

pub fn page_died() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &JsValue::from_str(DEAD)).ok())
        .is_some_and(|v| v.is_truthy())
}
