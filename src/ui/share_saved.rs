//! The session this browser keeps (issue 15: nothing lost on a reload): the run as a share
//! fragment (settings, the script so far up to the moment reached, the lessons), the console
//! as it read, and what the page showed (tab, play or pause, speed, the console drawer). A
//! reload, back/forward or reopening the tab opens it again; a link opens its own run once
//! per tab. The choosing and the formats are here (pure, tested natively); the storage
//! calls are the page's (`page.rs`, `app.rs`).

use super::lab::ConsoleEntry;
use super::share::{decode, percent_decode};
use super::view::{reduce, Action, Tab, View};

/// Local storage, shared by the browser's tabs: the last session worked on.
pub const SESSION_KEY: &str = "raftlab.session";
pub const CONSOLE_KEY: &str = "raftlab.console";
pub const VIEW_KEY: &str = "raftlab.view";
/// Set while a kept run is being replayed: still set at the next opening means that replay
/// killed the page, so the page opens fresh instead of dying again on every reload.
pub const RESTORING_KEY: &str = "raftlab.restoring";
/// In the tab's own session storage: the link this tab opened. Reloading that address comes
/// back to the session as it went on, not to the link's start; a new tab opening the link
/// gets the link's run.
pub const OPENED_KEY: &str = "raftlab.opened";

/// The console kept is at most this long in JSON (local storage holds about 5 MB per site,
/// and the run's fragment needs its share): older entries go first.
const MAX_CONSOLE_CHARS: usize = 1_000_000;

#[derive(Debug, PartialEq)]
pub enum Opening<'a> {
    Fresh,
    /// A link's run: the address's fragment, without its `#`.
    Link(&'a str),
    /// The kept session's fragment.
    Saved(&'a str),
}

#[derive(Debug, PartialEq)]
pub struct Choice<'a> {
    pub opening: Opening<'a>,
    /// The address carries a link that cannot be read: why. The page says so and opens what
    /// it would have opened without it (a bad link changes nothing).
    pub bad_link: Option<String>,
    /// Replaying the kept session stopped the page last time, so it is not tried again.
    pub restore_died: bool,
}

/// What the page opens: a link this tab has not opened yet, else the kept session unless
/// replaying it killed the page, else a fresh run.
pub fn choose<'a>(
    hash: &'a str,
    opened: Option<&str>,
    saved: &'a str,
    last_restore_died: bool,
) -> Choice<'a> {
    let link = hash.strip_prefix('#').unwrap_or(hash);
    let bad_link = match decode(link) {
        Ok(Some(_)) if opened != Some(link) => {
            return Choice {
                opening: Opening::Link(link),
                bad_link: None,
                restore_died: false,
            };
        }
        Ok(_) => None,
        Err(e) => Some(e),
    };
    let opening = if saved.is_empty() || last_restore_died {
        Opening::Fresh
    } else {
        Opening::Saved(saved)
    };
    Choice {
        opening,
        bad_link,
        restore_died: last_restore_died,
    }
}

/// What the page shows, in the kept text: `tab=keys&playing=0&speed=1&drawer=1`.
pub fn encode_view(view: &View) -> String {
    format!(
        "tab={}&playing={}&speed={}&drawer={}",
        view.tab.key(),
        u8::from(view.playing),
        view.speed_log10,
        u8::from(view.drawer)
    )
}

/// `view` as the kept text left it: each part that reads well is taken, the rest ignored
/// (a damaged text costs only what it damaged).
pub fn apply_view(mut view: View, text: &str) -> View {
    for pair in text.split('&') {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(raw).unwrap_or_default();
        let flag = match value.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        };
        let action = match (key, flag) {
            ("tab", _) => Tab::by_key(&value).map(Action::SetTab),
            ("playing", Some(on)) => Some(if on { Action::Play } else { Action::Pause }),
            ("speed", _) => value
                .parse::<f64>()
                .ok()
                .filter(|s| s.is_finite())
                .map(Action::SetSpeed),
            ("drawer", Some(open)) => Some(Action::SetDrawer(open)),
            _ => None,
        };
        if let Some(action) = action {
            view = reduce(view, action);
        }
    }
    view
}

/// The console as JSON, its oldest entries dropped until it fits the storage it gets.
pub fn encode_console(entries: &[ConsoleEntry]) -> String {
    let mut from = 0;
    loop {
        let json = serde_json::to_string(&entries[from..]).unwrap_or_default();
        if json.len() <= MAX_CONSOLE_CHARS || from == entries.len() {
            return json;
        }
        from += 1;
    }
}

/// The kept console; None when the text is not one (then the replay's own transcript stays).
pub fn decode_console(text: &str) -> Option<Vec<ConsoleEntry>> {
    serde_json::from_str(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::i18n::Lang;

    const LINK: &str = "v=1&members=3&seed=7&script=wait%201s";

    #[test]
    fn a_new_link_wins_then_the_kept_session() {
        let hash = format!("#{LINK}");
        let c = choose(&hash, None, "v=1&seed=2", false);
        assert_eq!(c.opening, Opening::Link(LINK));
        let c = choose("", None, "v=1&seed=2", false);
        assert_eq!(c.opening, Opening::Saved("v=1&seed=2"));
        assert_eq!(choose("#", None, "", false).opening, Opening::Fresh);
    }

    #[test]
    fn reloading_a_link_this_tab_opened_comes_back_to_the_session() {
        let hash = format!("#{LINK}");
        let c = choose(&hash, Some(LINK), "v=1&seed=2", false);
        assert_eq!(c.opening, Opening::Saved("v=1&seed=2"));
        assert_eq!(c.bad_link, None);
    }

    #[test]
    fn a_bad_link_opens_the_session_as_it_was_and_says_why() {
        let c = choose("#v=1&members=banana", None, "v=1&seed=2", false);
        assert_eq!(c.opening, Opening::Saved("v=1&seed=2"));
        let why = c.bad_link.unwrap_or_default();
        assert!(why.contains("members must be"), "{why}");
        let c = choose("#%zz", None, "", false);
        assert_eq!(c.opening, Opening::Fresh);
        assert!(c.bad_link.is_some());
    }

    #[test]
    fn a_restore_that_killed_the_page_is_not_tried_again() {
        let c = choose("", None, "v=1&seed=2", true);
        assert_eq!(c.opening, Opening::Fresh);
        assert!(c.restore_died);
        let hash = format!("#{LINK}");
        assert_eq!(
            choose(&hash, Some(LINK), "v=1", true).opening,
            Opening::Fresh
        );
    }

    #[test]
    fn the_view_round_trips_and_a_damaged_text_costs_only_its_damage() {
        let mut view = View::new(Lang::En, false);
        view.tab = Tab::Keys;
        view.playing = false;
        view.drawer = true;
        view.speed_log10 = 1.0;
        let text = encode_view(&view);
        assert_eq!(text, "tab=keys&playing=0&speed=1&drawer=1");
        assert_eq!(apply_view(View::new(Lang::En, false), &text), view);
        let fresh = View::new(Lang::En, false);
        let damaged = apply_view(fresh.clone(), "tab=<b>&playing=2&speed=NaN&drawer=1&%zz");
        assert_eq!(
            damaged,
            View {
                drawer: true,
                ..fresh.clone()
            }
        );
        let fast = apply_view(fresh, "speed=1e300");
        assert!(fast.speed_log10 <= 2.0, "clamped as the speed control is");
    }

    #[test]
    fn the_console_round_trips_and_drops_its_oldest_entries_to_fit() {
        let lab = crate::ui::lab::Lab::new(crate::etcd::ClusterConfig::default());
        let mut entries = lab.transcript().to_vec();
        let mut lab = lab;
        lab.apply(crate::ui::lab::Msg::Command("etcdctl put k v".into()));
        entries.extend(lab.transcript().iter().cloned());
        assert!(!entries.is_empty());
        assert_eq!(
            decode_console(&encode_console(&entries)),
            Some(entries.clone())
        );
        let mut big = entries[0].clone();
        big.stdout = "x".repeat(MAX_CONSOLE_CHARS / 2);
        let many = vec![big.clone(), big.clone(), big, entries[0].clone()];
        let kept = decode_console(&encode_console(&many)).unwrap_or_default();
        assert_eq!(kept.len(), 2, "the newest that fit");
        assert_eq!(decode_console("<script>"), None);
        assert_eq!(decode_console(""), None);
    }
}
