//! The few browser services the page uses: local storage, the URL, downloads, files, and an
//! SVG turned into a PNG. Every failure is reported as a `String`, never a panic.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement};

fn js_error(e: JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "the browser refused".into())
}

/// Real time in ms on `performance.now()`'s clock, the one animation frames are stamped with.
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Whether the user asked the browser for less motion (the page's CSS then stops every
/// animation).
pub fn reduced_motion() -> bool {
    // Made once, read at each drawing of the ring.
    thread_local! {
        static QUERY: Option<web_sys::MediaQueryList> = web_sys::window()
            .and_then(|w| w.match_media("(prefers-reduced-motion: reduce)").ok()?);
    }
    QUERY.with(|q| q.as_ref().is_some_and(web_sys::MediaQueryList::matches))
}

fn local() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The tab's own storage (`sessionStorage`): it lives through reloads and back/forward in
/// this tab only.
fn tab() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

pub fn load(key: &str) -> Option<String> {
    local()?.get_item(key).ok()?
}

/// Whether the browser kept it (a full quota or storage turned off keep nothing).
pub fn store(key: &str, value: &str) -> bool {
    local().is_some_and(|storage| storage.set_item(key, value).is_ok())
}

pub fn forget(key: &str) {
    if let Some(storage) = local() {
        let _ = storage.remove_item(key);
    }
}

pub fn tab_load(key: &str) -> Option<String> {
    tab()?.get_item(key).ok()?
}

pub fn tab_store(key: &str, value: &str) {
    if let Some(storage) = tab() {
        let _ = storage.set_item(key, value);
    }
}

/// Drops the address's fragment without a reload (a reload then opens no link).
pub fn drop_hash() {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&base_url()));
    }
}

pub fn reload() {
    if let Some(window) = web_sys::window() {
        let _ = window.location().reload();
    }
}

/// Calls `handler` on each of the window's (or, for `visibilitychange`, the document's)
/// `events`; the returned function stops that (a hook's clean-up).
pub fn listen(events: &'static [&'static str], handler: impl Fn() + 'static) -> impl FnOnce() {
    let closure = Closure::<dyn Fn()>::new(handler);
    let target = |event: &str| -> Option<web_sys::EventTarget> {
        let window = web_sys::window()?;
        if event == "visibilitychange" {
            return window.document().map(Into::into);
        }
        Some(window.into())
    };
    for event in events {
        if let Some(t) = target(event) {
            let _ = t.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
        }
    }
    move || {
        for event in events {
            if let Some(t) = target(event) {
                let _ =
                    t.remove_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
            }
        }
    }
}

/// Calls `handler` when `element`'s size changes (and once when it is first laid out), until
/// the returned function is called.
pub fn observe_size(element: &web_sys::Element, handler: impl Fn() + 'static) -> impl FnOnce() {
    let closure = Closure::<dyn Fn()>::new(handler);
    let observer = web_sys::ResizeObserver::new(closure.as_ref().unchecked_ref()).ok();
    if let Some(o) = &observer {
        o.observe(element);
    }
    move || {
        if let Some(o) = observer {
            o.disconnect();
        }
        drop(closure);
    }
}

/// `location.hash` (with its `#`), or empty.
pub fn hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The page's address without its fragment.
pub fn base_url() -> String {
    let Some(location) = web_sys::window().map(|w| w.location()) else {
        return String::new();
    };
    let href = location.href().unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// Offers `bytes` (as `mime`) for download as `filename`.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_error)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_error)?;
    let result = click_link(filename, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
    result
}

fn click_link(filename: &str, href: &str) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: HtmlAnchorElement = document
        .create_element("a")
        .map_err(js_error)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(href);
    a.set_download(filename);
    a.click();
    Ok(())
}

/// The markup of the first element matching `selector`.
pub fn outer_html(selector: &str) -> Result<String, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let element = document
        .query_selector(selector)
        .map_err(js_error)?
        .ok_or_else(|| format!("nothing to save ({selector} is not on the page)"))?;
    Ok(element.outer_html())
}

/// Draws `svg` (standalone markup, `width`×`height` user units) at 2× into a canvas and
/// offers it as a PNG download. The drawing finishes after the image loads.
pub fn download_svg_as_png(
    filename: &str,
    svg: &str,
    width: f64,
    height: f64,
) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let image = HtmlImageElement::new().map_err(js_error)?;
    let canvas: HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(js_error)?
        .dyn_into()
        .map_err(|_| "no canvas".to_string())?;
    let scale = 2.0;
    canvas.set_width((width * scale) as u32);
    canvas.set_height((height * scale) as u32);
    let filename = filename.to_string();
    let (image_in, canvas_in) = (image.clone(), canvas.clone());
    let onload = Closure::once(move || {
        let Ok(Some(context)) = canvas_in.get_context("2d") else {
            return;
        };
        let Ok(context) = context.dyn_into::<web_sys::CanvasRenderingContext2d>() else {
            return;
        };
        let _ = context.draw_image_with_html_image_element_and_dw_and_dh(
            &image_in,
            0.0,
            0.0,
            width * scale,
            height * scale,
        );
        if let Ok(url) = canvas_in.to_data_url_with_type("image/png") {
            let _ = click_link(&filename, &url);
        }
    });
    image.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget(); // runs once, then the browser drops the image and the closure
    let data = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        super::share::percent_encode(svg)
    );
    image.set_src(&data);
    Ok(())
}

/// Reads the first file of a file input as text, then calls `done` with it (or an error).
pub fn read_file(
    input: &web_sys::HtmlInputElement,
    done: impl FnOnce(Result<String, String>) + 'static,
) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        done(Err("no file chosen".into()));
        return;
    };
    if file.size() > 2_000_000.0 {
        done(Err(format!("{} is too large (at most 2 MB)", file.name())));
        return;
    }
    let Ok(reader) = web_sys::FileReader::new() else {
        done(Err("the browser cannot read files".into()));
        return;
    };
    let reader_in = reader.clone();
    let onload = Closure::once(move || {
        let text = reader_in
            .result()
            .ok()
            .and_then(|v| v.as_string())
            .ok_or_else(|| "the file is not text".to_string());
        done(text);
    });
    reader.set_onloadend(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    if let Err(e) = reader.read_as_text(&file) {
        let _ = e; // onloadend still fires with an error result
    }
}

/// Copies `text` to the clipboard (best effort: the field also shows it, selected).
pub fn copy(text: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(text);
    }
}

/// Focuses the element with this id.
pub fn focus(id: &str) {
    if let Some(element) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = element.focus();
    }
}

/// Focuses the first element `selector` finds, HTML or SVG (an SVG `<g tabindex="0">` has
/// its own `focus`, which web-sys binds only on `SvgElement`).
pub fn focus_selector(selector: &str) {
    let element = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(selector).ok().flatten());
    if let Some(element) = element {
        if let Ok(focus) = js_sys::Reflect::get(&element, &"focus".into())
            .and_then(|f| f.dyn_into::<js_sys::Function>())
        {
            let _ = focus.call0(&element);
        }
    }
}

/// The browser's preferred languages, best first (`navigator.languages`).
pub fn browser_languages() -> Vec<String> {
    web_sys::window()
        .map(|w| w.navigator().languages())
        .map(|list| list.iter().filter_map(|v| v.as_string()).collect())
        .unwrap_or_default()
}

/// The document's title (the tab, the window list, what a screen reader says first).
pub fn set_title(title: &str) {
    if let Some(document) = web_sys::window().and_then(|w| w.document()) {
        document.set_title(title);
    }
}
