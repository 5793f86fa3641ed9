//! Keyboard, screen-reader and language stories (issue 17, points 11 and 14, the loading
//! message), and the accessibility check: axe-core (installed by `./x setup` into `.tools/`)
//! injected into the real page, normal, presenter and zh-TW.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_a11y -- --nocapture`

mod browser_support;

use browser_support::{story, story_serving, wait_for, Harness, Member, Page, Result, SessionPost};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// axe-core's browser bundle, where `./x setup` installs it.
fn axe_script() -> Result<String> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "{}: {e} (`./x setup` installs axe-core into .tools/)",
            path.display()
        )
        .into()
    })
}

/// One rule axe-core found broken, with the elements that break it.
struct Violation {
    id: String,
    impact: String,
    help: String,
    nodes: Vec<String>,
}

impl Violation {
    fn is_serious(&self) -> bool {
        self.impact == "serious" || self.impact == "critical"
    }
}

/// Runs axe-core on the page as it is now (every WCAG A/AA rule and axe's best practices).
async fn axe(page: &Page, axe_js: &str) -> Result<Vec<Violation>> {
    let loaded = page
        .execute(&format!("{axe_js}\n;return typeof axe.run;"), vec![])
        .await?;
    if loaded.as_str() != Some("function") {
        return Err(format!("axe-core did not load in the page: {loaded}").into());
    }
    let v = page
        .client()
        .execute_async(
            "const done = arguments[arguments.length - 1];
             axe.run(document, {resultTypes: ['violations']})
               .then(r => done(r.violations.map(v => ({
                  id: v.id, impact: v.impact || '', help: v.help,
                  nodes: v.nodes.map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' ')),
               }))))
               .catch(e => done({error: String(e)}));",
            vec![],
        )
        .await?;
    if let Some(e) = v.get("error") {
        return Err(format!("axe.run failed: {e}").into());
    }
    let text = |x: &Value, k: &str| x[k].as_str().unwrap_or_default().to_string();
    Ok(v.as_array()
        .map(|all| {
            all.iter()
                .map(|x| Violation {
                    id: text(x, "id"),
                    impact: text(x, "impact"),
                    help: text(x, "help"),
                    nodes: x["nodes"]
                        .as_array()
                        .map(|n| {
                            n.iter()
                                .filter_map(|s| s.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default())
}

/// Prints every violation of one page state; returns the serious and critical ones.
fn report(state: &str, found: &[Violation]) -> Vec<String> {
    println!("axe-core on {state}: {} rule(s) broken", found.len());
    let mut serious = Vec::new();
    for v in found {
        println!(
            "  [{}] {}: {} ({} element(s))",
            v.impact,
            v.id,
            v.help,
            v.nodes.len()
        );
        for node in v.nodes.iter().take(6) {
            println!("      {node}");
        }
        if v.is_serious() {
            serious.push(format!("{state}: [{}] {}: {}", v.impact, v.id, v.help));
        }
    }
    serious
}

/// A page with a leader, held still (axe reads a page that does not change under it).
async fn settled(h: &Harness) -> Result<Page> {
    let page = h.open(1280, 720).await?;
    page.wait_count("[data-member]", 3).await?;
    page.set_speed(10.0).await?;
    page.wait_single_leader().await?;
    page.pause().await?;
    Ok(page)
}

/// axe-core finds no serious or critical violation on the page: normal (two tabs, a member's
/// menu on the ring), presenter, and zh-TW.
#[test]
fn axe_finds_nothing_serious() {
    story("axe_finds_nothing_serious", async |h: Harness| {
        let axe_js = axe_script()?;
        let page = settled(&h).await?;
        let mut serious = report("normal, Logs tab", &axe(&page, &axe_js).await?);
        page.open_tab("network").await?;
        serious.extend(report("normal, Network tab", &axe(&page, &axe_js).await?));
        page.open_tab("logs").await?;
        page.click(r#"[data-node="m1"]"#).await?;
        page.wait_exists(r#"[data-node-menu="m1"]"#).await?;
        serious.extend(report(
            "a member's menu on the ring",
            &axe(&page, &axe_js).await?,
        ));
        page.click(r#"[data-action="close-node-menu"]"#).await?;

        page.click(r#"[data-action="presenter"]"#).await?;
        page.wait_attr("html", "class", "presenter").await?;
        serious.extend(report("presenter", &axe(&page, &axe_js).await?));
        page.screenshot("a11y-presenter-1280x720").await?;
        page.click(r#"[data-action="presenter"]"#).await?;

        page.click(r#"[data-action="lang"]"#).await?;
        page.wait_attr("html", "lang", "zh-TW").await?;
        serious.extend(report("zh-TW", &axe(&page, &axe_js).await?));
        page.screenshot("a11y-zh-TW-1280x720").await?;
        assert!(
            serious.is_empty(),
            "serious or critical accessibility violations:\n{}",
            serious.join("\n")
        );
        Ok(())
    });
}

/// Presses `key` on whatever has the focus (a real key event through WebDriver).
async fn press(page: &Page, key: Key) -> Result {
    let value = char::from(key);
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value })
        .then(KeyAction::Up { value });
    page.client().perform_actions(keys).await?;
    Ok(())
}

/// An attribute of the focused element (None: it lacks it).
async fn focused(page: &Page, attr: &str) -> Result<Option<String>> {
    let v = page
        .execute(
            "const e = document.activeElement; return e ? e.getAttribute(arguments[0]) : null;",
            vec![attr.into()],
        )
        .await?;
    Ok(v.as_str().map(str::to_string))
}

/// Waits until the focused element has `attr` == `value`.
async fn wait_focus(page: &Page, attr: &str, value: &str) -> Result {
    wait_for(&format!("the focus on [{attr}=\"{value}\"]"), async || {
        Ok((focused(page, attr).await?.as_deref() == Some(value)).then_some(()))
    })
    .await
}

/// The tabs follow the WAI-ARIA pattern: one tab stop, arrows move and open (wrapping),
/// Home and End go to the ends, each tab controls the panel, which its tab labels.
#[test]
fn tabs_follow_the_arrow_keys() {
    story("tabs_follow_the_arrow_keys", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        let stops = page.attrs("[role=tab]", "tabindex").await?;
        let zero = stops.iter().filter(|t| t.as_deref() == Some("0")).count();
        assert_eq!(zero, 1, "one tab stop among the tabs: {stops:?}");
        let panel = page
            .attr("[role=tabpanel]", "id")
            .await?
            .ok_or("the tab panel has no id")?;
        for controls in page.attrs("[role=tab]", "aria-controls").await? {
            assert_eq!(controls.as_deref(), Some(panel.as_str()));
        }
        page.execute(
            "document.querySelector('[data-tab=\"logs\"]').focus();",
            vec![],
        )
        .await?;
        for (key, tab) in [
            (Key::Right, "space-time"),
            (Key::Right, "network"),
            (Key::Left, "space-time"),
            (Key::End, "kube"),
            (Key::Right, "logs"),
            (Key::Left, "kube"),
            (Key::Home, "logs"),
            (Key::Right, "space-time"),
        ] {
            press(&page, key).await?;
            let selector = format!(r#"[data-tab="{tab}"]"#);
            page.wait_attr(&selector, "aria-selected", "true").await?;
            wait_focus(&page, "data-tab", tab).await?;
            assert_eq!(
                page.attr(&selector, "tabindex").await?.as_deref(),
                Some("0")
            );
            let label = page.attr("[role=tabpanel]", "aria-labelledby").await?;
            assert_eq!(
                label,
                page.attr(&selector, "id").await?,
                "the panel is labelled by {tab}"
            );
        }
        page.wait_exists("[data-lamport]").await?;
        page.screenshot("a11y-tabs-keyboard-1280x720").await?;
        Ok(())
    });
}

fn more_open(member: &str) -> String {
    format!(r#"[data-member="{member}"] details.more[open]"#)
}

/// A member's "More" menu closes on Escape (the focus back on its button) and on a click
/// outside it.
#[test]
fn escape_and_a_click_outside_close_more() {
    story(
        "escape_and_a_click_outside_close_more",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            let more = r#"[data-member="m1"] [data-action="more"]"#;
            page.click(more).await?;
            page.wait_count(&more_open("m1"), 1).await?;
            press(&page, Key::Escape).await?;
            page.wait_count(&more_open("m1"), 0).await?;
            wait_focus(&page, "data-action", "more").await?;

            page.click(more).await?;
            page.wait_count(&more_open("m1"), 1).await?;
            page.click(".brand").await?;
            page.wait_count(&more_open("m1"), 0).await?;

            // A click inside the menu's own area leaves it open.
            page.click(more).await?;
            page.wait_count(&more_open("m1"), 1).await?;
            page.click(r#"[data-member="m1"] details.more .menu"#)
                .await?;
            assert_eq!(
                page.count(&more_open("m1")).await?,
                1,
                "a click inside keeps it open"
            );
            Ok(())
        },
    );
}

/// Tab reaches every member on the ring and a message in flight (each a labelled button);
/// Enter on a message opens its inspector and the keyboard alone drops it; Enter on a node opens
/// its menu (the focus on its first item, ↓ to the next), Escape closes it back onto the node.
#[test]
fn ring_nodes_and_messages_reachable_by_tab() {
    story(
        "ring_nodes_and_messages_reachable_by_tab",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            let leader: Member = page.wait_single_leader().await?;
            println!("leader: {leader}");
            page.set_speed(0.2).await?;
            // Hold a moment with a message on the wire.
            wait_for("a message in flight on the ring, held still", async || {
                if page.count("[data-message]").await? == 0 {
                    return Ok(None);
                }
                page.pause().await?;
                if page.count("[data-message]").await? > 0 {
                    return Ok(Some(()));
                }
                page.click(r#"[data-action="play"]"#).await?;
                Ok(None)
            })
            .await?;
            // An SVG button is named by its <title>.
            let label = page
                .text(r#"[data-node="m1"] > title"#)
                .await
                .unwrap_or_default();
            let label = if label.is_empty() {
                page.execute(
                    "return document.querySelector('[data-node=\"m1\"] > title').textContent;",
                    vec![],
                )
                .await?
                .as_str()
                .unwrap_or_default()
                .to_string()
            } else {
                label
            };
            assert!(
                label.starts_with("m1, ") && label.contains("term"),
                "node label: {label:?}"
            );

            page.execute("document.activeElement.blur(); document.querySelector('.clock').setAttribute('tabindex', '-1'); document.querySelector('.clock').focus();", vec![]).await?;
            let mut nodes = Vec::new();
            let mut message = None;
            for _ in 0..60 {
                press(&page, Key::Tab).await?;
                if let Some(node) = focused(&page, "data-node").await? {
                    nodes.push(node);
                } else if let Some(id) = focused(&page, "data-message").await? {
                    message = Some(id);
                    break;
                }
            }
            assert_eq!(
                nodes,
                ["m1", "m2", "m3"],
                "Tab visits each member on the ring"
            );
            let message = message.ok_or("Tab never reached a message on the ring")?;
            let spoken = page
                .execute(
                    "return document.activeElement.querySelector('title').textContent;",
                    vec![],
                )
                .await?
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert!(
                spoken.starts_with(&format!("message #{message} ")),
                "{spoken:?}"
            );
            page.screenshot("a11y-ring-focus-1280x720").await?;

            press(&page, Key::Enter).await?;
            page.wait_exists(&format!(r#"[data-inspector="{message}"]"#))
                .await?;
            for _ in 0..20 {
                if focused(&page, "data-action").await?.as_deref() == Some("drop-message") {
                    break;
                }
                press(&page, Key::Tab).await?;
            }
            wait_focus(&page, "data-action", "drop-message").await?;
            press(&page, Key::Enter).await?;
            page.wait_console_output(&format!("$ drop-message {message}"))
                .await?;

            // Enter on a node opens its menu, as a click does, and the menu takes the focus.
            page.execute(
                "document.querySelector('[data-node=\"m2\"]').focus();",
                vec![],
            )
            .await?;
            press(&page, Key::Enter).await?;
            page.wait_exists(r#"[data-node-menu="m2"]"#).await?;
            wait_for("the focus on m2's first menu item", async || {
                let item = page
                    .execute(
                        "const a = document.activeElement; return a.getAttribute('role') === 'menuitem' && !!a.closest('[data-node-menu=\"m2\"]');",
                        vec![],
                    )
                    .await?;
                Ok((item == json!(true)).then_some(()))
            })
            .await?;
            let expanded = page.attr(r#"[data-node="m2"]"#, "aria-expanded").await?;
            assert_eq!(
                expanded.as_deref(),
                Some("true"),
                "m2 says its menu is open"
            );
            let first = focused(&page, "data-node-action").await?;
            press(&page, Key::Down).await?;
            let second = focused(&page, "data-node-action").await?;
            println!("m2's menu: {first:?}, then {second:?} by ↓");
            assert!(
                first.is_some() && second.is_some() && first != second,
                "↓ moves to the next item"
            );
            page.screenshot("a11y-ring-menu-keyboard-1280x720").await?;
            press(&page, Key::Escape).await?;
            wait_focus(&page, "data-node", "m2").await?;
            assert_eq!(
                page.count("[data-node-menu]").await?,
                0,
                "Escape closes the menu"
            );
            Ok(())
        },
    );
}

/// A browser whose languages are zh-TW opens the page in zh-TW (title too); a language chosen
/// on the page wins over the browser's from then on.
#[test]
fn zh_tw_from_the_browser_language() {
    story("zh_tw_from_the_browser_language", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        page.wait_attr("html", "lang", "en").await?;
        let agent = page.execute("return navigator.userAgent;", vec![]).await?;
        page.client()
            .issue_cmd(SessionPost::cdp(
                "Emulation.setUserAgentOverride",
                json!({"userAgent": agent, "acceptLanguage": "zh-TW,zh;q=0.9,en;q=0.8"}),
            ))
            .await?;
        page.goto("/").await?;
        let languages = page.execute("return navigator.languages;", vec![]).await?;
        assert_eq!(
            languages[0],
            json!("zh-TW"),
            "the browser now prefers zh-TW: {languages}"
        );
        page.wait_attr("html", "lang", "zh-TW").await?;
        page.wait_count("[data-member]", 3).await?;
        let title = page.client().title().await?;
        assert!(title.contains("共識"), "the title in zh-TW: {title:?}");
        let members = page.text(".members-panel h2").await?;
        assert_eq!(members.trim(), "成員", "the Members heading");
        page.screenshot("a11y-zh-TW-by-browser-1280x720").await?;

        page.click(r#"[data-action="lang"]"#).await?;
        page.wait_attr("html", "lang", "en").await?;
        page.goto("/").await?;
        page.wait_count("[data-member]", 3).await?;
        page.wait_attr("html", "lang", "en").await?;
        let title = page.client().title().await?;
        assert!(
            title.starts_with("Raft Lab: etcd"),
            "chosen English stays: {title:?}"
        );
        Ok(())
    });
}

/// The served HTML says "loading" in both languages before any wasm runs; the message goes
/// when the app mounts.
#[test]
fn loading_message_in_the_served_html() {
    story("loading_message_in_the_served_html", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        let html = page
            .client()
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 fetch('/').then(r => r.text()).then(done, e => done('fetch failed: ' + e));",
                vec![],
            )
            .await?;
        let html = html.as_str().unwrap_or_default();
        assert!(html.contains("data-loading"), "{html}");
        assert!(html.contains("Loading Raft Lab"), "English loading text");
        assert!(html.contains("正在載入 Raft Lab"), "zh-TW loading text");
        assert_eq!(
            page.count("[data-loading]").await?,
            0,
            "gone once the app runs"
        );
        Ok(())
    });
}

/// Where the wasm cannot load, the loading message turns into a reason and a way out.
#[test]
fn loading_message_says_when_the_engine_cannot_load() {
    let dir: PathBuf = std::env::temp_dir().join(format!("raftlab-no-wasm-{}", std::process::id()));
    if browser_support::enabled() {
        std::fs::create_dir_all(&dir).expect("temp dir");
        // The built page without its wasm, as when the download fails.
        for file in std::fs::read_dir(browser_support::dist_dir()).expect("dist/ (trunk build)") {
            let path = file.expect("a dist/ entry").path();
            if path.extension().is_some_and(|e| e != "wasm") {
                std::fs::copy(&path, dir.join(path.file_name().expect("a name"))).expect("copy");
            }
        }
    }
    story_serving(
        "loading_message_says_when_the_engine_cannot_load",
        &dir,
        async |h: Harness| {
            let page = h.open(1024, 768).await?;
            page.wait_exists(r#"[data-loading="failed"]"#).await?;
            let text = page.text("[data-loading]").await?;
            assert!(
                text.contains("could not be loaded") && text.contains("無法載入"),
                "{text}"
            );
            page.screenshot("a11y-loading-failed-1024x768").await?;
            Ok(())
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The speed slider says its speed ("10×", not its log "1"), and the cluster's live region
/// says who leads and whether writes commit, once a leader is elected.
#[test]
fn speed_and_cluster_are_said_in_words() {
    story("speed_and_cluster_are_said_in_words", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        page.set_speed(10.0).await?;
        page.wait_attr(r#"[data-control="speed"]"#, "aria-valuetext", "10×")
            .await?;
        let leader = page.wait_single_leader().await?;
        let said = format!("Leader {} in term", leader.name);
        wait_for(&format!("the live summary to say {said:?}"), async || {
            let text = page.text("[data-live-summary]").await?;
            Ok(text.contains(&said).then_some(text))
        })
        .await?;
        assert_eq!(
            page.attr("[data-live-summary]", "aria-live")
                .await?
                .as_deref(),
            Some("polite")
        );
        Ok(())
    });
}
