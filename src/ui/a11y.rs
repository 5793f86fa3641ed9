//! Keyboard and screen-reader support that is not one component's: the tabs' arrow keys, the
//! cluster's spoken summary (throttled, so a room's screen reader is not flooded while an
//! election flaps), and the "More" menus closing on Escape or a click elsewhere.

/// Real milliseconds between two announcements of the cluster summary at most.
pub const ANNOUNCE_GAP_MS: f64 = 2000.0;

/// The tab a key press on the tab at `at` moves to (WAI-ARIA tabs: arrows wrap around,
/// Home and End go to the ends), if the key is one of those.
pub fn tab_after_key(key: &str, at: usize, count: usize) -> Option<usize> {
    if count == 0 {
        return None;
    }
    match key {
        "ArrowRight" => Some((at + 1) % count),
        "ArrowLeft" => Some((at + count - 1) % count),
        "Home" => Some(0),
        "End" => Some(count - 1),
        _ => None,
    }
}

/// The message an arrow key selects among `ids` (in send order) from `selected`: → the next
/// one, ← the previous one, the last one when nothing is selected yet (the newest), Home and
/// End the ends.
pub fn message_after_key(key: &str, ids: &[u64], selected: Option<u64>) -> Option<u64> {
    let (first, last) = (*ids.first()?, *ids.last()?);
    let at = selected.and_then(|s| ids.iter().position(|i| *i == s));
    match (key, at) {
        ("Home", _) => Some(first),
        ("End", _) | ("ArrowLeft" | "ArrowRight", None) => Some(last),
        ("ArrowRight", Some(i)) => Some(ids[(i + 1).min(ids.len() - 1)]),
        ("ArrowLeft", Some(i)) => Some(ids[i.saturating_sub(1)]),
        _ => None,
    }
}

/// What the live summary speaks about: a change of any of these is announced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Facts {
    pub leader: Option<(String, u64)>,
    pub reachable: usize,
    pub voters: usize,
    pub writes_commit: bool,
}

/// Decides when the summary is spoken: at once when something changed and the last
/// announcement is old enough, else once the gap has passed (the latest facts then, not every
/// state in between).
#[derive(Debug, Default)]
pub struct Announcer {
    spoken: Option<Facts>,
    spoken_at_ms: Option<f64>,
    pending: Option<Facts>,
}

impl Announcer {
    /// The facts now, at real time `now_ms`: the facts to speak now, if any.
    pub fn offer(&mut self, now_ms: f64, facts: Facts) -> Option<Facts> {
        if self.spoken.as_ref() == Some(&facts) {
            self.pending = None;
            return None;
        }
        self.pending = Some(facts);
        self.due(now_ms)
    }

    /// The waiting facts, if the gap since the last announcement has passed.
    pub fn due(&mut self, now_ms: f64) -> Option<Facts> {
        let wait = self.wait_ms(now_ms)?;
        if wait > 0.0 {
            return None;
        }
        let facts = self.pending.take()?;
        self.spoken = Some(facts.clone());
        self.spoken_at_ms = Some(now_ms);
        Some(facts)
    }

    /// How long the waiting facts still wait (None: nothing waits).
    pub fn wait_ms(&self, now_ms: f64) -> Option<f64> {
        self.pending.as_ref()?;
        Some(
            self.spoken_at_ms
                .map_or(0.0, |at| (at + ANNOUNCE_GAP_MS - now_ms).max(0.0)),
        )
    }
}

#[cfg(target_arch = "wasm32")]
pub use live::{live_summary, use_dismissable_menus};

#[cfg(target_arch = "wasm32")]
mod live {
    use super::{Announcer, Facts};
    use crate::etcd::Cluster as World;
    use crate::ui::i18n::{cluster_summary, Lang};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    use yew::prelude::*;

    /// The facts of `world` the summary speaks of.
    fn facts(world: &World) -> Facts {
        let quorum = world.quorum_view();
        let leader = world.leader().map(|l| {
            let term = world.raft_state(l).map_or(0, |v| v.term);
            (l.to_string(), term)
        });
        Facts {
            leader,
            reachable: quorum.reachable,
            voters: quorum.voters.len(),
            writes_commit: quorum.writes_commit,
        }
    }

    fn say(lang: Lang, f: &Facts) -> String {
        let leader = f.leader.as_ref().map(|(l, term)| (l.as_str(), *term));
        cluster_summary(lang, leader, f.reachable, f.voters, f.writes_commit)
    }

    /// The cluster told to screen readers: a polite live region, spoken on leader and quorum
    /// changes, at most once every `ANNOUNCE_GAP_MS`.
    pub fn live_summary(world: &World, lang: Lang) -> Html {
        html! { <LiveSummary facts={facts(world)} {lang} /> }
    }

    #[derive(Properties, PartialEq)]
    struct Props {
        facts: Facts,
        lang: Lang,
    }

    #[component]
    fn LiveSummary(props: &Props) -> Html {
        let spoken = use_state(|| None::<Facts>);
        let announcer = use_mut_ref(Announcer::default);
        let timer = use_mut_ref(|| None::<gloo_timers::callback::Timeout>);
        {
            let spoken = spoken.clone();
            use_effect_with(props.facts.clone(), move |facts| {
                let now = js_sys::Date::now();
                if let Some(f) = announcer.borrow_mut().offer(now, facts.clone()) {
                    spoken.set(Some(f));
                }
                // What waits for the gap is spoken when it ends, even if nothing renders then
                // (a paused run).
                if let Some(wait) = announcer.borrow().wait_ms(now) {
                    let announcer = announcer.clone();
                    let spoken = spoken.clone();
                    *timer.borrow_mut() = Some(gloo_timers::callback::Timeout::new(
                        wait.ceil() as u32 + 1,
                        move || {
                            if let Some(f) = announcer.borrow_mut().due(js_sys::Date::now()) {
                                spoken.set(Some(f));
                            }
                        },
                    ));
                }
            });
        }
        let text = spoken
            .as_ref()
            .map(|f| say(props.lang, f))
            .unwrap_or_default();
        html! {
            <p class="sr-only" role="status" aria-live="polite" data-live-summary="">{ text }</p>
        }
    }

    /// Open "More" menus (`<details class="more">`) close on Escape (the focus goes back to
    /// their button) and on a click outside them, as menus do.
    #[hook]
    pub fn use_dismissable_menus() {
        use_effect_with((), move |_| {
            let document = web_sys::window().and_then(|w| w.document());
            let on_key = Closure::<dyn Fn(KeyboardEvent)>::new(|e: KeyboardEvent| {
                if e.key() == "Escape" {
                    close_menus(None, true);
                }
            });
            let on_click = Closure::<dyn Fn(MouseEvent)>::new(|e: MouseEvent| {
                let target = e.target().and_then(|t| t.dyn_into::<web_sys::Node>().ok());
                close_menus(target.as_ref(), false);
            });
            if let Some(d) = &document {
                let _ =
                    d.add_event_listener_with_callback("keydown", on_key.as_ref().unchecked_ref());
                let _ =
                    d.add_event_listener_with_callback("click", on_click.as_ref().unchecked_ref());
            }
            move || {
                if let Some(d) = &document {
                    let _ = d.remove_event_listener_with_callback(
                        "keydown",
                        on_key.as_ref().unchecked_ref(),
                    );
                    let _ = d.remove_event_listener_with_callback(
                        "click",
                        on_click.as_ref().unchecked_ref(),
                    );
                }
            }
        });
    }

    /// Closes every open menu that does not hold `inside`; `refocus`: its button takes the
    /// focus (Escape), so the keyboard stays where it was.
    fn close_menus(inside: Option<&web_sys::Node>, refocus: bool) {
        let Some(document) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let Ok(open) = document.query_selector_all("details.more[open]") else {
            return;
        };
        for i in 0..open.length() {
            let Some(menu) = open
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
            else {
                continue;
            };
            if inside.is_some_and(|node| menu.contains(Some(node))) {
                continue;
            }
            let _ = menu.remove_attribute("open");
            if refocus {
                if let Some(summary) = menu
                    .query_selector("summary")
                    .ok()
                    .flatten()
                    .and_then(|s| s.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = summary.focus();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrows_wrap_and_home_end_go_to_the_ends() {
        assert_eq!(tab_after_key("ArrowRight", 0, 7), Some(1));
        assert_eq!(tab_after_key("ArrowRight", 6, 7), Some(0));
        assert_eq!(tab_after_key("ArrowLeft", 0, 7), Some(6));
        assert_eq!(tab_after_key("Home", 4, 7), Some(0));
        assert_eq!(tab_after_key("End", 2, 7), Some(6));
        assert_eq!(tab_after_key("Enter", 2, 7), None);
        assert_eq!(tab_after_key("End", 0, 0), None);
    }

    #[test]
    fn arrows_walk_the_diagram_s_messages() {
        let ids = [4, 7, 9];
        assert_eq!(message_after_key("ArrowLeft", &ids, None), Some(9));
        assert_eq!(message_after_key("ArrowLeft", &ids, Some(9)), Some(7));
        assert_eq!(message_after_key("ArrowLeft", &ids, Some(4)), Some(4));
        assert_eq!(message_after_key("ArrowRight", &ids, Some(7)), Some(9));
        assert_eq!(message_after_key("ArrowRight", &ids, Some(9)), Some(9));
        assert_eq!(
            message_after_key("ArrowRight", &ids, Some(100)),
            Some(9),
            "gone: the newest"
        );
        assert_eq!(message_after_key("Home", &ids, Some(9)), Some(4));
        assert_eq!(message_after_key("End", &ids, None), Some(9));
        assert_eq!(message_after_key("Enter", &ids, Some(7)), None);
        assert_eq!(message_after_key("ArrowLeft", &[], None), None);
    }

    fn led_by(leader: Option<&str>, writes_commit: bool) -> Facts {
        Facts {
            leader: leader.map(|l| (l.to_string(), 2)),
            reachable: if writes_commit { 3 } else { 1 },
            voters: 3,
            writes_commit,
        }
    }

    #[test]
    fn the_summary_is_spoken_on_changes_at_most_once_per_gap() {
        let mut a = Announcer::default();
        let first = led_by(None, false);
        assert_eq!(a.offer(0.0, first.clone()), Some(first.clone()));
        assert_eq!(a.offer(10.0, first.clone()), None, "nothing new");
        // An election: the change waits for the gap, and only the latest state is spoken.
        assert_eq!(a.offer(500.0, led_by(Some("m1"), true)), None);
        assert_eq!(a.wait_ms(500.0), Some(ANNOUNCE_GAP_MS - 500.0));
        assert_eq!(a.offer(900.0, led_by(Some("m2"), true)), None);
        assert_eq!(a.due(1999.0), None);
        assert_eq!(a.due(2000.0), Some(led_by(Some("m2"), true)));
        assert_eq!(a.wait_ms(2000.0), None, "nothing waits any more");
        // A change back to what was last spoken, before the gap, is not spoken at all.
        assert_eq!(a.offer(2100.0, led_by(None, false)), None);
        assert_eq!(a.offer(2200.0, led_by(Some("m2"), true)), None);
        assert_eq!(a.due(9000.0), None);
        // Long after, a change is spoken at once.
        assert_eq!(
            a.offer(9000.0, led_by(None, false)),
            Some(led_by(None, false))
        );
    }
}
