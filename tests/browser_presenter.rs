//! Issue 17, points 2-5 and the restart question, in headless Chromium through the page's
//! data hooks: the start card, the legend, "electing a leader…", slow motion, pausing on a
//! new leader, replaying the last election, the one-screen layouts, presenter mode's zoom and
//! contrast (measured from the real elements), and the screenshots of every layout.

mod browser_support;

use browser_support::raftlab::{CONSOLE, PAUSE, PLAY};
use browser_support::{story, wait_for, Harness, Member, Page, Result};
use serde_json::Value;

/// The rectangle of the first element matching `selector` (left, top, width, height), or
/// None when there is none or it is not displayed.
async fn rect(page: &Page, selector: &str) -> Result<Option<[f64; 4]>> {
    let v = page
        .execute(
            "const e = document.querySelector(arguments[0]);
             if (!e) return null;
             const r = e.getBoundingClientRect();
             return (r.width || r.height) ? [r.left, r.top, r.width, r.height] : null;",
            vec![selector.into()],
        )
        .await?;
    Ok(v.as_array().map(|a| {
        let n = |i: usize| a.get(i).and_then(Value::as_f64).unwrap_or(0.0);
        [n(0), n(1), n(2), n(3)]
    }))
}

async fn must_rect(page: &Page, selector: &str) -> Result<[f64; 4]> {
    rect(page, selector)
        .await?
        .ok_or_else(|| format!("{selector} is not displayed").into())
}

async fn number(page: &Page, script: &str) -> Result<f64> {
    let v = page.execute(script, vec![]).await?;
    v.as_f64()
        .ok_or_else(|| format!("{script}: not a number: {v}").into())
}

async fn leader(page: &Page) -> Result<String> {
    Ok(page
        .attr("[data-leader]", "data-leader")
        .await?
        .unwrap_or_default())
}

async fn wait_leader_other_than(page: &Page, old: &str) -> Result<String> {
    wait_for(&format!("a leader other than {old}"), async || {
        let now = leader(page).await?;
        Ok((!now.is_empty() && now != old).then_some(now))
    })
    .await
}

/// Point 2: the start card's four buttons do what they say through the console's commands;
/// dismissed, it stays dismissed after a reload; the header reopens it. Before the first
/// election the quorum line says "electing a leader…", not "cannot commit".
#[test]
fn start_here_card_runs_the_first_demos() {
    story(
        "start_here_card_runs_the_first_demos",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_exists("[data-onboarding]").await?;
            page.wait_single_leader().await?;
            page.scrub_to(0).await?;
            page.wait_exists("[data-electing]").await?;
            let text = page.text("[data-quorum]").await?;
            assert!(text.contains("electing a leader"), "{text}");
            assert!(!text.contains("cannot commit"), "{text}");
            page.click(PLAY).await?;
            page.set_speed(1.0).await?;
            let first: Member = page.wait_single_leader().await?;
            let first = first.name;
            page.wait_count("[data-electing]", 0).await?;

            page.click(r#"[data-start="write-key"]"#).await?;
            page.wait_console_output("$ etcdctl put greeting hello")
                .await?;
            page.wait_attr(r#"[data-tab="keys"]"#, "aria-selected", "true")
                .await?;
            page.wait_exists(r#"[data-kv-key="greeting"]"#).await?;

            page.click(r#"[data-start="kill-leader"]"#).await?;
            page.wait_console_output("$ kill leader").await?;
            wait_for("no leader after the kill", async || {
                Ok(leader(&page).await?.is_empty().then_some(()))
            })
            .await?;
            assert_eq!(
                page.count("[data-electing]").await?,
                0,
                "after a leader existed, no leader is a failure, not the first election"
            );
            let second = wait_leader_other_than(&page, &first).await?;
            page.console(&format!("restart {first}")).await?;
            page.wait_member_state(&first, "follower").await?;

            page.click(r#"[data-start="cut-network"]"#).await?;
            page.wait_console_output("$ isolate leader").await?;
            wait_leader_other_than(&page, &second).await?;

            let before = page.sim_time().await?.unwrap_or(0);
            page.click(r#"[data-start="watch"]"#).await?;
            page.wait_attr("[data-slowmo]", "data-slowmo", "on").await?;
            let after = page.sim_time().await?.unwrap_or(u64::MAX);
            assert!(after < before, "watching replays: {after} < {before}");

            page.click(r#"[data-action="dismiss-onboarding"]"#).await?;
            page.wait_count("[data-onboarding]", 0).await?;
            page.goto("/").await?;
            page.wait_count("[data-member]", 3).await?;
            assert_eq!(page.count("[data-onboarding]").await?, 0, "stays dismissed");
            page.click(r#"[data-action="onboarding"]"#).await?;
            page.wait_exists("[data-onboarding]").await?;
            Ok(())
        },
    );
}

/// Point 2: the "?" legend marks the real elements it explains (each marker on its element's
/// corner), lists what is not on screen, opens with "?" and closes with Escape.
#[test]
fn legend_points_at_the_live_picture() {
    story("legend_points_at_the_live_picture", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.set_speed(1.0).await?;
        page.wait_single_leader().await?;
        page.console("etcdctl put a 1").await?;
        page.click(r#"[data-action="legend"]"#).await?;
        page.wait_exists("[data-legend]").await?;
        page.wait_exists(PLAY).await?;
        let shown = page
            .attrs(r#"[data-legend-target="shown"]"#, "data-legend-item")
            .await?;
        for key in ["timer", "roles", "pips", "terms", "match-next"] {
            assert!(shown.contains(&Some(key.to_string())), "{key} in {shown:?}");
        }
        let misses = page
            .execute(
                "const out = [];
                 for (const m of document.querySelectorAll('[data-legend-marker]')) {
                   const t = document.querySelector(m.dataset.legendSelector);
                   if (!t) { out.push(m.dataset.legendMarker + ': no element'); continue; }
                   const a = m.getBoundingClientRect(), b = t.getBoundingClientRect();
                   const x = a.left + a.width / 2, y = a.top + a.height / 2;
                   if (Math.abs(x - b.left) > 1.5 || Math.abs(y - b.top) > 1.5)
                     out.push(m.dataset.legendMarker + ' at ' + [x, y] + ', element at ' + [b.left, b.top]);
                 }
                 return out;",
                vec![],
            )
            .await?;
        assert_eq!(
            misses,
            Value::Array(vec![]),
            "markers sit on their elements"
        );
        page.screenshot("legend-1280x720").await?;
        page.click(r#"[data-action="close-legend"]"#).await?;
        page.wait_count("[data-legend]", 0).await?;
        page.execute(
            "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '?', bubbles: true}));",
            vec![],
        )
        .await?;
        page.wait_exists("[data-legend]").await?;
        page.execute(
            "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));",
            vec![],
        )
        .await?;
        page.wait_count("[data-legend]", 0).await?;
        Ok(())
    });
}

/// Point 3: slow motion is off by default, on in presenter mode, and slows the run while a
/// member campaigns; "pause on new leader" stops the run at the new leader; "replay the last
/// election" goes back in time and the same election is won again in slow motion.
#[test]
fn slow_motion_pause_on_new_leader_and_replay() {
    story(
        "slow_motion_pause_on_new_leader_and_replay",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.set_speed(1.0).await?;
            page.wait_attr("[data-slowmo]", "data-slowmo", "off")
                .await?;
            page.click(r#"[data-action="presenter"]"#).await?;
            page.wait_attr("[data-slowmo]", "data-slowmo", "on").await?;
            // The cluster's leader (a quorum follows it), not only a member that says it
            // leads: switched on earlier, the pause would stop the run at this first leader.
            let first = wait_leader_other_than(&page, "").await?;

            page.click(r#"[data-control="pause-on-leader"]"#).await?;
            page.wait_attr(
                r#"[data-control="pause-on-leader"]"#,
                "aria-pressed",
                "true",
            )
            .await?;
            page.console("kill leader").await?;
            let slowing = wait_for("a member campaigning", async || {
                let v = page.execute(CAMPAIGN_AND_SLOWMO, vec![]).await?;
                Ok(v.as_str().map(str::to_string))
            })
            .await?;
            assert_eq!(slowing, "true", "slow motion while someone campaigns");
            let second = wait_leader_other_than(&page, &first).await?;
            page.wait_exists(PLAY).await?;
            assert_eq!(
                page.count(&format!("header {PAUSE}")).await?,
                0,
                "paused at the new leader"
            );
            assert_eq!(leader(&page).await?, second, "and still showing it");

            let won_at = page.sim_time().await?.unwrap_or(0);
            page.click(r#"[data-action="replay-election"]"#).await?;
            let back = page.sim_time().await?.unwrap_or(u64::MAX);
            assert!(
                back < won_at,
                "the replay starts before the win: {back} < {won_at}"
            );
            page.wait_exists(PAUSE).await?;
            page.wait_exists(r#"[data-slowmo-active="true"]"#).await?;
            let again = wait_leader_other_than(&page, "").await?;
            assert_eq!(again, second, "the seeded run elects the same member again");
            Ok(())
        },
    );
}

/// In one render: while a member campaigns, whether slow motion says it is slowing.
const CAMPAIGN_AND_SLOWMO: &str = r#"
const campaigning = document.querySelector('[data-member][data-state="pre-candidate"], [data-member][data-state="candidate"]');
return campaigning ? document.querySelector('[data-slowmo]').dataset.slowmoActive : null;
"#;

/// The restart question: with commands in the run, a new seed asks first; "keep" keeps the
/// run and its seed, "start over" applies the change.
#[test]
fn a_change_that_restarts_asks_first() {
    story("a_change_that_restarts_asks_first", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.set_speed(1.0).await?;
        page.set_value(r#"[data-control="seed"]"#, "4").await?;
        assert_eq!(
            page.count("[data-confirm]").await?,
            0,
            "nothing to lose yet"
        );
        page.wait_single_leader().await?;
        page.console("etcdctl put k v").await?;
        page.set_value(r#"[data-control="seed"]"#, "9").await?;
        page.wait_exists(r#"[data-confirm="restart"]"#).await?;
        page.click(r#"[data-answer="no"]"#).await?;
        page.wait_count("[data-confirm]", 0).await?;
        let seed = page
            .execute(
                "return document.querySelector('[data-control=\"seed\"]').value;",
                vec![],
            )
            .await?;
        assert_eq!(seed, "4", "the run kept its seed");
        assert!(page.sim_time().await?.unwrap_or(0) > 0);
        page.set_value(r#"[data-control="members"]"#, "5").await?;
        page.wait_exists(r#"[data-confirm="restart"]"#).await?;
        page.click(r#"[data-answer="yes"]"#).await?;
        page.wait_count("[data-member]", 5).await?;
        Ok(())
    });
}

/// Point 4: at 1280×720 everything fits one screen: the console input and "What happened"
/// are visible without scrolling; in presenter mode at 1280×720 and 1024×768 the header and
/// the tabs are one row, the quorum line is whole and above the drawer, and `/` opens the
/// drawer with the focus in the console.
#[test]
fn one_screen_layouts() {
    story("one_screen_layouts", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        fits_one_screen(&page, "normal 1280x720").await?;
        page.close().await?;
        for (w, hgt) in [(1280, 720), (1024, 768)] {
            let page = h.open(w, hgt).await?;
            page.wait_count("[data-member]", 3).await?;
            page.click(r#"[data-action="presenter"]"#).await?;
            page.wait_attr("html", "class", "presenter").await?;
            let what = format!("presenter {w}x{hgt}");
            fits_one_screen(&page, &what).await?;
            let header = must_rect(&page, "header.top").await?;
            assert!(header[3] < 56.0, "{what}: header is one row ({header:?})");
            let tops = page
                .execute(
                    "return [...document.querySelectorAll('[data-tab]')].map(t => Math.round(t.getBoundingClientRect().top));",
                    vec![],
                )
                .await?;
            let tops: Vec<i64> = tops
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default();
            assert!(
                tops.windows(2).all(|p| p[0] == p[1]),
                "{what}: one row of tabs {tops:?}"
            );
            page.wait_attr("[data-drawer]", "data-drawer", "closed")
                .await?;
            page.execute(
                "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));",
                vec![],
            )
            .await?;
            page.wait_attr("[data-drawer]", "data-drawer", "open")
                .await?;
            let focused = page
                .execute(
                    "return document.activeElement && document.activeElement.dataset.console;",
                    vec![],
                )
                .await?;
            assert_eq!(
                focused, "etcdctl",
                "{what}: / puts the focus in the console"
            );
            page.click(r#"[data-action="drawer"]"#).await?;
            page.wait_attr("[data-drawer]", "data-drawer", "closed")
                .await?;
            page.close().await?;
        }
        Ok(())
    });
}

/// The page is one screen: no scrolling, and the ring, the quorum line, the latest events
/// and the console's input on it (all but the input above the drawer). An `Err` says what
/// does not fit.
async fn fits_one_screen(page: &Page, what: &str) -> Result {
    let (_, height) = page.viewport().await?;
    let height = height as f64;
    let mut wrong = Vec::new();
    let scroll = number(page, "return document.documentElement.scrollHeight;").await?;
    if scroll > height + 1.0 {
        wrong.push(format!("the page scrolls ({scroll} > {height})"));
    }
    let drawer = must_rect(page, "[data-drawer]").await?;
    for selector in [CONSOLE, "[data-event-log]", "[data-quorum]", "svg.cluster"] {
        let r = must_rect(page, selector).await?;
        if r[1] < 0.0 || r[1] + r[3] > height + 0.5 {
            wrong.push(format!("{selector} off screen {r:?}"));
        }
        if selector != CONSOLE && r[1] + r[3] > drawer[1] + 0.5 {
            wrong.push(format!("{selector} under the drawer {r:?} / {drawer:?}"));
        }
    }
    let ring = must_rect(page, "svg.cluster").await?;
    if ring[3] < 250.0 {
        wrong.push(format!("the ring is {} px tall", ring[3]));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(format!("{what}: {}", wrong.join("; ")).into())
    }
}

/// WCAG 2 contrast of every visible text against what is behind it, from computed styles:
/// each ancestor's background composited from the root down (opacity multiplies), SVG text
/// against its node's body or, for haloed labels, its halo. Returns the texts below `min`.
const CONTRAST_SCRIPT: &str = r#"
const min = arguments[0];
const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null;
  const p = m[1].split(',').map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
const over = (top, under, a) => [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a));
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
const backdrop = el => {
  const chain = []; for (let e = el; e && e.nodeType === 1; e = e.parentElement) chain.unshift(e);
  let bg = [255, 255, 255], opacity = 1;
  for (const e of chain) { const s = getComputedStyle(e); opacity *= Number(s.opacity);
    if (e instanceof SVGElement) continue;
    const c = parse(s.backgroundColor); if (c && c[3] > 0) bg = over(c, bg, c[3] * opacity); }
  return [bg, opacity];
};
const out = [];
const seen = new Set();
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.textContent.trim()) continue;
  const el = n.parentElement; if (!el || seen.has(el)) continue; seen.add(el);
  if (el.closest('[disabled], [aria-hidden="true"], .legend-overlay')) continue;
  const r = el.getBoundingClientRect(); if (!r.width || !r.height) continue;
  if (r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
  const s = getComputedStyle(el); if (s.visibility === 'hidden') continue;
  let [bg, opacity] = backdrop(el);
  let fg;
  if (el instanceof SVGElement) {
    fg = parse(s.fill);
    const halo = parse(s.stroke);
    const body = el.closest('g') && el.closest('g').querySelector(':scope > .body');
    if (halo && parseFloat(s.strokeWidth) >= 2 && s.paintOrder.startsWith('stroke')) bg = over(halo, bg, halo[3]);
    else if (body) { const b = parse(getComputedStyle(body).fill); if (b) bg = over(b, bg, b[3]); }
  } else fg = parse(s.color);
  if (!fg) continue;
  const shown = over(fg, bg, fg[3] * opacity);
  const k = ratio(shown, bg);
  if (k < min) out.push(`${k.toFixed(2)} ${el.tagName.toLowerCase()}.${String(el.className.baseVal ?? el.className).replace(/ /g, '.')} "${n.textContent.trim().slice(0, 30)}"`);
}
return out;
"#;

/// Point 5: presenter mode zooms what the room reads (log cells, message labels, the
/// space-time diagram), measured from the real elements, and every text on screen reaches
/// 4.5:1 contrast, in normal mode too.
#[test]
fn presenter_zoom_and_contrast() {
    story("presenter_zoom_and_contrast", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.set_speed(1.0).await?;
        let first = page.wait_single_leader().await?.name;
        page.console("kill leader").await?;
        wait_leader_other_than(&page, &first).await?;
        page.console(&format!("restart {first}")).await?;
        page.console("etcdctl put a 1").await?;
        let low = page.execute(CONTRAST_SCRIPT, vec![4.5.into()]).await?;
        assert_eq!(low, Value::Array(vec![]), "normal mode: texts below 4.5:1");

        page.click(r#"[data-action="presenter"]"#).await?;
        page.wait_attr("html", "class", "presenter").await?;
        let second = leader(&page).await?;
        page.console("kill leader").await?;
        let cell = must_rect(&page, ".log-grid .entry").await?;
        assert!(cell[2] >= 40.0 && cell[3] >= 40.0, "log cell {cell:?}");
        let digits = number(&page, "return parseFloat(getComputedStyle(document.querySelector('.log-grid .entry')).fontSize);").await?;
        assert!(digits >= 20.0, "log digits {digits}px");
        let terms = page.attrs(".log-grid .entry", "data-term").await?;
        assert!(
            terms.contains(&Some("2".into())) || terms.iter().flatten().any(|t| t != "1"),
            "entries of a later term: {terms:?}"
        );
        let label = wait_for("a message label on the ring", async || {
            let v = page
                .execute(
                    "const l = document.querySelector('svg.cluster .msg-label text'); if (!l) return null;
                     const svg = l.ownerSVGElement; const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                     return Math.min(scale, svg.getBoundingClientRect().height / svg.viewBox.baseVal.height) * parseFloat(getComputedStyle(l).fontSize);",
                    vec![],
                )
                .await?;
            Ok(v.as_f64())
        })
        .await?;
        assert!(label >= 18.0, "message labels {label:.1}px");
        wait_leader_other_than(&page, &second).await?;
        page.console(&format!("restart {second}")).await?;
        page.open_tab("logs").await?;
        let low = page.execute(CONTRAST_SCRIPT, vec![4.5.into()]).await?;
        assert_eq!(low, Value::Array(vec![]), "presenter: texts below 4.5:1");
        page.open_tab("space-time").await?;
        page.wait_exists("[data-lamport-message]").await?;
        let diagram = must_rect(&page, "svg.lamport").await?;
        assert!(diagram[3] >= 300.0, "space-time diagram {diagram:?}");
        page.screenshot("presenter-space-time-1280x720").await?;
        Ok(())
    });
}

/// Point 4's look: every layout at the three sizes, both modes, both languages, saved as
/// tests/artifacts/classroom-<w>x<h>-<mode>-<lang>.png, each checked for one screen.
#[test]
fn classroom_screenshots() {
    story("classroom_screenshots", async |h: Harness| {
        let mut misfits = Vec::new();
        for (w, hgt) in [(1280, 720), (1024, 768), (1920, 1080)] {
            let page = h.open(w, hgt).await?;
            page.set_speed(1.0).await?;
            page.wait_single_leader().await?;
            page.console("etcdctl put greeting hello").await?;
            for (mode, lang) in [
                ("normal", "en"),
                ("normal", "zh-TW"),
                ("presenter", "zh-TW"),
                ("presenter", "en"),
            ] {
                let presenter =
                    page.attr("html", "class").await?.unwrap_or_default() == "presenter";
                if presenter != (mode == "presenter") {
                    page.click(r#"[data-action="presenter"]"#).await?;
                }
                if page.attr("html", "lang").await?.as_deref() != Some(lang) {
                    page.click(r#"[data-action="lang"]"#).await?;
                }
                page.wait_attr("html", "lang", lang).await?;
                page.wait_single_leader().await?;
                page.screenshot(&format!("classroom-{w}x{hgt}-{mode}-{lang}"))
                    .await?;
                if let Err(e) = fits_one_screen(&page, &format!("{mode} {lang} {w}x{hgt}")).await {
                    misfits.push(e.to_string());
                }
            }
            page.close().await?;
        }
        assert!(misfits.is_empty(), "{misfits:#?}");
        Ok(())
    });
}
