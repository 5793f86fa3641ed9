//! The "?" legend: drawn over the live picture, each item a numbered marker on the corner of
//! the real element it explains (found in the page as rendered, measured with getBoundingClientRect),
//! and the list of what the numbers mean, placed where it covers the fewest of them.

use super::i18n::{t, Lang, Text};
use super::page::Page;
use super::view::Action;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// What the legend explains: its hook, where the element is, and the text.
const ITEMS: [(&str, &str, Text); 6] = [
    ("timer", "svg.cluster .node .timer", Text::LegendTimer),
    ("roles", "svg.cluster .node .body", Text::LegendRoles),
    ("message", "svg.cluster .msg .dot", Text::LegendMessage),
    ("pips", ".quorum .pips", Text::LegendPips),
    ("terms", ".log-grid .entry", Text::LegendTerms),
    (
        "match-next",
        ".log-grid .mark-match, .log-grid .mark-next",
        Text::LegendMatchNext,
    ),
];
/// The list's size as laid out by style.css (`.legend-card`), to choose its corner.
const CARD_W: f64 = 420.0;
const CARD_H: f64 = 330.0;
const MARGIN: f64 = 12.0;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Rect {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

impl Rect {
    fn overlaps(&self, o: &Rect) -> bool {
        self.left < o.left + o.width
            && o.left < self.left + self.width
            && self.top < o.top + o.height
            && o.top < self.top + self.height
    }
}

fn measure(selector: &str) -> Option<Rect> {
    let document = web_sys::window()?.document()?;
    let element = document.query_selector(selector).ok()??;
    let r = element.get_bounding_client_rect();
    (r.width() > 0.0 || r.height() > 0.0).then(|| Rect {
        left: r.left(),
        top: r.top(),
        width: r.width(),
        height: r.height(),
    })
}

fn viewport() -> (f64, f64) {
    let w = web_sys::window();
    let size = |v: Option<wasm_bindgen::JsValue>| v.and_then(|v| v.as_f64()).unwrap_or(0.0);
    (
        size(w.as_ref().and_then(|w| w.inner_width().ok())),
        size(w.as_ref().and_then(|w| w.inner_height().ok())),
    )
}

/// The corner of the viewport where the list hides the fewest markers (ties: bottom right).
fn card_corner(targets: &[Rect], (w, h): (f64, f64)) -> (f64, f64) {
    let (right, bottom) = (
        (w - CARD_W - MARGIN).max(0.0),
        (h - CARD_H - MARGIN).max(0.0),
    );
    let corners = [
        (right, bottom),
        (MARGIN, bottom),
        (right, MARGIN),
        (MARGIN, MARGIN),
    ];
    let covered = |&(left, top): &(f64, f64)| {
        let card = Rect {
            left,
            top,
            width: CARD_W,
            height: CARD_H,
        };
        targets.iter().filter(|t| t.overlaps(&card)).count()
    };
    corners
        .into_iter()
        .min_by_key(covered)
        .unwrap_or((right, bottom))
}

fn measure_all() -> Vec<Option<Rect>> {
    ITEMS.iter().map(|(_, sel, _)| measure(sel)).collect()
}

/// Measures the items after every render of the page (the legend reads the page's context,
/// so it renders with it) and when the window changes size: the markers stay on the things
/// they explain.
#[hook]
fn use_measured() -> Vec<Option<Rect>> {
    let rects = use_state(Vec::new);
    {
        let rects = rects.clone();
        use_effect(move || {
            let now = measure_all();
            if *rects != now {
                rects.set(now);
            }
        });
    }
    {
        let rects = rects.clone();
        use_effect_with((), move |_| {
            let listener = Closure::<dyn Fn()>::new(move || rects.set(measure_all()));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ =
                    w.add_event_listener_with_callback("resize", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = w.remove_event_listener_with_callback(
                        "resize",
                        listener.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }
    (*rects).clone()
}

#[derive(Properties, PartialEq)]
pub struct LegendProps {
    pub lang: Lang,
}

#[component]
pub fn Legend(props: &LegendProps) -> Html {
    let lang = props.lang;
    let page = use_context::<Page>();
    let rects = use_measured();
    let close = Callback::from(move |_: MouseEvent| {
        if let Some(p) = &page {
            p.dispatcher().dispatch(Action::ShowLegend(false));
        }
    });
    let present: Vec<Rect> = rects.iter().flatten().copied().collect();
    let (left, top) = card_corner(&present, viewport());
    html! {
        <div class="legend-overlay" data-legend="" role="dialog" aria-modal="true" aria-labelledby="legend-title">
            { for ITEMS.iter().zip(rects.iter()).enumerate().filter_map(|(i, ((key, selector, _), rect))| {
                rect.map(|r| html! {
                    <>
                        <div class="legend-target" aria-hidden="true"
                            style={format!("left:{:.0}px;top:{:.0}px;width:{:.0}px;height:{:.0}px", r.left - 4.0, r.top - 4.0, r.width + 8.0, r.height + 8.0)} />
                        <span class="legend-marker" data-legend-marker={*key} data-legend-selector={*selector} aria-hidden="true"
                            style={format!("left:{:.0}px;top:{:.0}px", r.left, r.top)}>{ i + 1 }</span>
                    </>
                })
            }) }
            <div class="legend-card" style={format!("left:{left:.0}px;top:{top:.0}px")}>
                <div class="panel-head">
                    <h2 id="legend-title">{ t(lang, Text::LegendTitle) }</h2>
                    <button class="close" data-action="close-legend" onclick={close} aria-label={t(lang, Text::Close)}>{ "✕" }</button>
                </div>
                <ol>
                    { for ITEMS.iter().zip(rects.iter()).map(|((key, _, text), rect)| html! {
                        <li data-legend-item={*key} data-legend-target={if rect.is_some() { "shown" } else { "absent" }}>
                            { t(lang, *text) }
                            if rect.is_none() { <span class="muted">{ " " }{ t(lang, Text::LegendAbsent) }</span> }
                        </li>
                    }) }
                </ol>
            </div>
        </div>
    }
}
