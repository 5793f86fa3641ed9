//! Browser stories of the ring and its panels (issue 17, points 6, 7, 8, 9, 12, 13): the
//! ring's member menu, tally and frozen members; feedback beside the controls; the logs'
//! encoding; message labels; the seed field; the network shown as a state; message dots that
//! glide on their own (issue 14).
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_ring -- --nocapture`

mod browser_support;

use browser_support::raftlab::{PAUSE, STEP};
use browser_support::{story, wait_for, Harness, Member, Page, Result};
use serde_json::json;

async fn value_of(page: &Page, selector: &str) -> Result<String> {
    let v = page
        .execute(
            "const e = document.querySelector(arguments[0]); return e ? e.value : null;",
            vec![selector.into()],
        )
        .await?;
    Ok(v.as_str().unwrap_or_default().to_string())
}

/// Steps the paused run until `selector` exists (at most `steps` events).
async fn step_until(page: &Page, selector: &str, steps: usize) -> Result {
    for _ in 0..steps {
        if page.count(selector).await? > 0 {
            return Ok(());
        }
        page.click(STEP).await?;
    }
    page.wait_exists(selector).await
}

fn node_menu(name: &str) -> String {
    format!(r#"[data-node-menu="{name}"]"#)
}

/// Point 13: a member's actions from the ring (a one-click client write on the leader, freeze,
/// time out, kill; a click outside closes it), the vote tally of a candidate and why its pre-vote was refused, and
/// "frozen" on the ring, named apart from the run's Pause.
#[test]
fn the_ring_menu_acts_and_a_campaign_shows_its_tally() {
    story(
        "the_ring_menu_acts_and_a_campaign_shows_its_tally",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            let leader = page.wait_single_leader().await?;
            // Paused, so the node clicked is the node drawn (a frame can redraw it mid-click).
            page.pause().await?;

            page.click(&format!(r#"[data-node="{}"] .body"#, leader.name))
                .await?;
            page.wait_exists(&node_menu(&leader.name)).await?;
            page.screenshot("ring-menu-1280x720").await?;
            page.click(".events").await?;
            page.wait_count("[data-node-menu]", 0).await?;
            page.click(&format!(r#"[data-node="{}"] .body"#, leader.name))
                .await?;
            page.wait_exists(&node_menu(&leader.name)).await?;
            page.click(r#"[data-node-action="client-write"]"#).await?;
            let out = page.wait_console_output("put demo").await?;
            page.wait_console_output("OK").await?;
            println!(
                "client write: {}",
                out.lines().rev().take(2).collect::<Vec<_>>().join(" | ")
            );
            assert_eq!(
                page.count("[data-node-menu]").await?,
                0,
                "an action closes the menu"
            );

            // Freeze a follower from the ring: the ring and the card say "frozen"; the card's
            // button is not named like the run's Pause.
            let follower = if leader.name == "m1" { "m2" } else { "m1" };
            page.click(&format!(r#"[data-node="{follower}"] .body"#))
                .await?;
            page.click(&format!(
                r#"{} [data-node-action="pause"]"#,
                node_menu(follower)
            ))
            .await?;
            page.wait_attr(
                &format!(r#"[data-member="{follower}"]"#),
                "data-paused",
                "true",
            )
            .await?;
            page.wait_exists(&format!(
                r#"[data-node="{follower}"][data-ring-paused="true"]"#
            ))
            .await?;
            let card_button = page
                .text(&format!(
                    r#"[data-member="{follower}"] [data-action="resume"]"#
                ))
                .await?;
            let run_button = page.text(PAUSE).await?;
            assert_ne!(
                card_button.trim(),
                run_button.trim(),
                "member action vs the run's Pause"
            );
            println!("card: {card_button:?}, run: {run_button:?}");
            page.member_click(follower, "resume").await?;
            page.wait_attr(
                &format!(r#"[data-member="{follower}"]"#),
                "data-paused",
                "false",
            )
            .await?;

            // Time out a follower while its leader is alive: its tally counts its own vote, and the
            // others' refusals (the leader's lease) are explained on its card.
            page.pause().await?;
            page.click(&format!(r#"[data-node="{follower}"] .body"#))
                .await?;
            page.click(&format!(
                r#"{} [data-node-action="timeout"]"#,
                node_menu(follower)
            ))
            .await?;
            page.wait_exists(&format!(r#"[data-node="{follower}"] [data-tally]"#))
                .await?;
            let tally = page
                .attr(
                    &format!(r#"[data-node="{follower}"] [data-tally]"#),
                    "data-tally",
                )
                .await?;
            assert_eq!(
                tally.as_deref(),
                Some("1/0"),
                "its own vote, nobody else's yet"
            );
            step_until(
                &page,
                &format!(r#"[data-member="{follower}"] [data-refusal]"#),
                300,
            )
            .await?;
            let why = page
                .text(&format!(r#"[data-member="{follower}"] .refusals"#))
                .await?;
            println!("refusal on the card: {why}");
            assert!(why.contains("heard from leader"), "{why}");
            let events = page.text("[data-event-log]").await?;
            assert!(
                events.contains(&format!("refused {follower}'s pre-vote")),
                "{events}"
            );
            page.screenshot("ring-refusal-1280x720").await?;

            // Kill from the ring; restart from the ring.
            page.click(&format!(r#"[data-node="{}"] .body"#, leader.name))
                .await?;
            page.click(&format!(
                r#"{} [data-node-action="kill"]"#,
                node_menu(&leader.name)
            ))
            .await?;
            page.wait_member_state(&leader.name, "stopped").await?;
            page.click(&format!(r#"[data-node="{}"] .body"#, leader.name))
                .await?;
            page.click(&format!(
                r#"{} [data-node-action="restart"]"#,
                node_menu(&leader.name)
            ))
            .await?;
            page.wait_members("the old leader to run again", |ms: &[Member]| {
                ms.iter()
                    .find(|m| m.name == leader.name && !m.is_stopped())
                    .cloned()
            })
            .await?;
            Ok(())
        },
    );
}

/// Point 6: with no leader, "+ learner" is disabled and says why; a failed action's error
/// shows on its card; a member that keeps campaigning is one line with a count.
#[test]
fn failures_are_explained_beside_the_controls() {
    story(
        "failures_are_explained_beside_the_controls",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            let leader = page.wait_single_leader().await?;
            let others: Vec<String> = ["m1", "m2", "m3"]
                .iter()
                .filter(|m| **m != leader.name)
                .map(|m| m.to_string())
                .collect();
            page.member_click(&others[0], "kill").await?;
            page.member_click(&others[1], "kill").await?;
            page.wait_exists(r#"[data-disabled-reason="add-learner"]"#)
                .await?;
            let disabled = page
                .attr(r#"[data-action="add-learner"]"#, "disabled")
                .await?;
            assert!(disabled.is_some(), "+ learner is disabled without a leader");
            let title = page
                .attr(r#"[data-action="add-learner"]"#, "title")
                .await?
                .unwrap_or_default();
            let reason = page.text(r#"[data-disabled-reason="add-learner"]"#).await?;
            assert_eq!(
                title.trim(),
                reason.trim(),
                "the title and the visible text agree"
            );
            println!("reason: {reason}");

            // The survivor keeps becoming pre-candidate: one line, counted.
            page.wait_exists("[data-event-log] [data-repeat]").await?;
            let repeat = page
                .attr("[data-event-log] [data-repeat]", "data-repeat")
                .await?
                .unwrap_or_default();
            println!("a repeated event: ×{repeat}");
            assert!(repeat.parse::<u32>().unwrap_or(0) >= 2, "{repeat}");

            // A command that fails says so beside the card that sent it.
            page.console(&format!("transfer {}", leader.name)).await?;
            page.wait_exists(&format!(r#"[data-action-error="{}"]"#, leader.name))
                .await?;
            let error = page
                .text(&format!(r#"[data-action-error="{}"]"#, leader.name))
                .await?;
            println!("beside the card: {error}");
            page.screenshot("failures-1280x720").await?;
            Ok(())
        },
    );
}

/// Point 7: the logs say colour = term, draw the commit line over every row, name each
/// entry's kind, cross the entries that will be overwritten, and scroll back to index 1.
#[test]
fn the_log_encodes_term_commit_conflicts_and_kinds() {
    story(
        "the_log_encodes_term_commit_conflicts_and_kinds",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            let old = page.wait_single_leader().await?;
            page.console("etcdctl put greeting hello").await?;
            page.open_tab("logs").await?;
            page.wait_exists(r#"[data-entry-kind="put"]"#).await?;
            let legend = page.text("[data-log-legend]").await?;
            assert!(legend.contains("colour = term"), "{legend}");
            let commit = page
                .attr("[data-commit-line]", "data-commit-line")
                .await?
                .unwrap_or_default();
            let edges = page.count(".commit-edge").await?;
            assert!(
                edges >= 4,
                "the commit line ({commit}) crosses the header and 3 rows: {edges}"
            );

            // Divergence: the isolated old leader takes a write it cannot commit; the majority's
            // new leader has other entries there.
            page.open_tab("network").await?;
            // At once, while it still believes it leads (its check-quorum has not fired yet).
            page.pause().await?;
            page.click(r#"[data-preset="isolate-leader"]"#).await?;
            page.console(&format!("etcdctl --endpoints={} put lost write", old.name))
                .await?;
            page.wait_console_output("context deadline exceeded")
                .await?;
            page.wait_members("a new leader", |ms| {
                ms.iter()
                    .find(|m| m.is_leader() && m.name != old.name)
                    .cloned()
            })
            .await?;
            page.open_tab("logs").await?;
            page.wait_exists(r#"[data-conflict="true"]"#).await?;
            page.screenshot("logs-conflict-1280x720").await?;

            // A long log: kube up writes many entries; the slider goes back to index 1.
            page.click(r#"[data-action="play"]"#).await?;
            page.open_tab("network").await?;
            page.click(r#"[data-action="heal"]"#).await?;
            page.console("kube up").await?;
            page.open_tab("logs").await?;
            page.wait_exists(r#"[data-control="log-scroll"]"#).await?;
            page.set_value(r#"[data-control="log-scroll"]"#, "1")
                .await?;
            page.wait_attr("[data-log-first]", "data-log-first", "1")
                .await?;
            page.wait_exists(r#".log-grid [data-index="1"]"#).await?;
            page.screenshot("logs-scrolled-1280x720").await?;
            Ok(())
        },
    );
}

/// Point 8: one label per edge and direction, clear of the members and of each other; the
/// heartbeat switch fades them; the codes have a legend.
#[test]
fn message_labels_sit_beside_their_edges() {
    story(
        "message_labels_sit_beside_their_edges",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.wait_single_leader().await?;
            page.console("etcdctl put a 1").await?;
            page.wait_exists("[data-edge-label]").await?;
            page.pause().await?;
            let labels: Vec<String> = page
                .attrs("[data-edge-label]", "data-edge-label")
                .await?
                .into_iter()
                .flatten()
                .collect();
            let mut unique = labels.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(
                unique.len(),
                labels.len(),
                "one label per edge and direction: {labels:?}"
            );
            let overlaps = page
            .execute(
                "const box = e => e.getBoundingClientRect();
                 const hit = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
                 const labels = [...document.querySelectorAll('[data-edge-label] rect')].map(box);
                 const nodes = [...document.querySelectorAll('[data-node] .body')].map(box);
                 let n = 0;
                 labels.forEach((a, i) => { labels.slice(i + 1).forEach(b => { if (hit(a, b)) n++; });
                                            nodes.forEach(b => { if (hit(a, b)) n++; }); });
                 return n;",
                vec![],
            )
            .await?;
            assert_eq!(
                overlaps.as_u64(),
                Some(0),
                "labels overlap labels or members: {labels:?}"
            );
            page.screenshot("labels-1280x720").await?;

            page.click(r#"[data-toggle="heartbeats"]"#).await?;
            let faded = page
                .execute(
                    "const e = document.querySelector('.msg.heartbeat, .msg.heartbeat-resp');
                 return e ? parseFloat(getComputedStyle(e).opacity) : 0;",
                    vec![],
                )
                .await?;
            assert!(
                faded.as_f64().unwrap_or(1.0) < 0.5,
                "faded heartbeats: {faded}"
            );
            page.click("[data-code-legend] summary").await?;
            let legend = page.text("[data-code-legend]").await?;
            assert!(
                legend.contains("AE") && legend.contains("AppendEntries"),
                "{legend}"
            );
            page.screenshot("labels-faded-1280x720").await?;
            Ok(())
        },
    );
}

/// Watches one message dot for `ms` of real time: whether it moved, how often the page wrote
/// to it, and whether it was still on the wire at the end.
const WATCH_DOT: &str = "const [ms] = arguments;
    const e = document.querySelector('[data-message]:not([data-foreseen])');
    if (!e) return null;
    const at = () => getComputedStyle(e).transform;
    const first = at();
    let writes = 0;
    const o = new MutationObserver(m => { writes += m.length; });
    o.observe(e, { attributes: true, subtree: true });
    return new Promise(done => setTimeout(() => {
        o.disconnect();
        done({ moved: at() !== first, writes, flying: e.isConnected });
    }, ms));";

/// A message dot glides to where it lands on its own (a CSS animation the compositor runs):
/// the page does not write to it while it flies, and it stands still while the run is paused.
#[test]
fn message_dots_glide_without_being_drawn_again() {
    story(
        "message_dots_glide_without_being_drawn_again",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_single_leader().await?;
            page.set_speed(0.05).await?;
            // Played at the new speed first: its first frame restarts every glide.
            let now = page.sim_time().await?.unwrap_or(0);
            page.wait_sim_time(now + 20).await?;
            let watched = wait_for("a dot watched in flight", async || {
                page.wait_exists("[data-message]").await?;
                let seen = page.execute(WATCH_DOT, vec![json!(60)]).await?;
                Ok((seen["flying"] == json!(true)).then_some(seen))
            })
            .await?;
            assert_eq!(watched["moved"], json!(true), "{watched}");
            // At most one restart: a frame later than its sleep by more than the longest frame
            // (a loaded machine) starts a new timeline. Drawn from Rust, a dot took 16 writes.
            let writes = watched["writes"].as_u64().unwrap_or(u64::MAX);
            assert!(writes <= 1, "{watched}");
            page.pause().await?;
            step_until(&page, "[data-message]", 50).await?;
            let still = page.execute(WATCH_DOT, vec![json!(150)]).await?;
            assert_eq!(still["moved"], json!(false), "paused: {still}");
            assert_eq!(still["flying"], json!(true), "paused: {still}");
            Ok(())
        },
    );
}

/// Watches a foreseen message dot (drawn before it is sent) at every animation frame for up
/// to `ms`: whether it was unseen at first, then seen gliding before the page wrote to it.
const WATCH_FORESEEN: &str = "const [ms] = arguments;
    const e = document.querySelector('[data-message][data-foreseen]');
    if (!e) return null;
    let writes = 0, unseen = false, seenUnwritten = 0, first = null;
    const o = new MutationObserver(m => { writes += m.length; });
    o.observe(e, { attributes: true, subtree: true });
    const start = performance.now();
    return new Promise(done => {
        const look = () => {
            const s = getComputedStyle(e);
            if (Number(s.opacity) < 0.01) unseen = true;
            else if (writes === 0 && e.isConnected) {
                first = first ?? s.transform;
                if (s.transform !== first) seenUnwritten += 1;
            }
            if (performance.now() - start < ms && e.isConnected) requestAnimationFrame(look);
            else { o.disconnect(); done({ unseen, seenUnwritten, id: e.dataset.message }); }
        };
        look();
    });";

/// The page draws at most about ten times a second while the run plays, and the messages
/// sent in between are drawn ahead (`Lab::foreseen`): each waits unseen, then glides from
/// its sender the moment it is sent, with nothing written to it by the page meanwhile. New
/// dots come in bunches (each drawing that starts animations costs Chromium a frame more),
/// and no dot is put back among the others (which would start its glide again).
#[test]
fn messages_sent_between_drawings_are_drawn_ahead() {
    story(
        "messages_sent_between_drawings_are_drawn_ahead",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_single_leader().await?;
            let asked = page
                .execute(COUNT_FRAME_REQUESTS, vec![json!(2000)])
                .await?;
            let asked = asked.as_u64().ok_or(format!("frame requests: {asked}"))?;
            println!("{asked} frames asked for in 2 s at the default speed");
            assert!(asked <= 40, "{asked} frames asked for in 2 s");
            let inserts = page.execute(COUNT_DOT_INSERTS, vec![json!(3000)]).await?;
            println!("dots drawn in 3 s: {inserts}");
            assert!(
                inserts["dots"].as_u64().is_some_and(|n| n >= 10),
                "{inserts}"
            );
            assert!(
                inserts["drawings"].as_u64().is_some_and(|n| n <= 8),
                "{inserts}"
            );
            assert_eq!(inserts["again"], json!(0), "{inserts}");
            let watched = wait_for("a foreseen dot seen gliding", async || {
                page.wait_exists("[data-message][data-foreseen]").await?;
                let seen = page.execute(WATCH_FORESEEN, vec![json!(400)]).await?;
                let glided = seen["unseen"] == json!(true)
                    && seen["seenUnwritten"].as_u64().unwrap_or(0) >= 1;
                Ok(glided.then_some(seen))
            })
            .await?;
            println!("watched {watched}");
            Ok(())
        },
    );
}

/// Over `ms` of real time: the message dots the ring drew, in how many drawings, and how
/// many of them it drew again (a dot moved among the others is taken out and put back).
const COUNT_DOT_INSERTS: &str = "const [ms] = arguments;
    const seen = new Set([...document.querySelectorAll('[data-message]')].map(e => e.dataset.message));
    let dots = 0, drawings = 0, again = 0;
    const o = new MutationObserver(records => {
        let drew = false;
        for (const r of records) for (const n of r.addedNodes) {
            const id = n.dataset && n.dataset.message;
            if (!id) continue;
            drew = true;
            if (seen.has(id)) again += 1; else { seen.add(id); dots += 1; }
        }
        if (drew) drawings += 1;
    });
    o.observe(document.querySelector('svg.cluster .messages'), { childList: true });
    return new Promise(done => setTimeout(() => { o.disconnect(); done({ dots, drawings, again }); }, ms));";

/// Counts the page's requests for an animation frame over `ms` of real time (the page's
/// wasm calls `window.requestAnimationFrame` by name, so wrapping it counts them).
const COUNT_FRAME_REQUESTS: &str = "const [ms] = arguments;
    const own = window.requestAnimationFrame;
    let asked = 0;
    window.requestAnimationFrame = f => { asked += 1; return own.call(window, f); };
    return new Promise(done => setTimeout(() => {
        window.requestAnimationFrame = own;
        done(asked);
    }, ms));";

/// Between the moments it shows something new the page sleeps: at 0.01× its clock moves a
/// step a second and its world about as often, so it asks for a few frames in two seconds,
/// not 120; the run still plays in real time, and a command typed meanwhile runs.
#[test]
fn a_slow_run_asks_for_a_frame_only_when_it_has_something_to_show() {
    story(
        "a_slow_run_asks_for_a_frame_only_when_it_has_something_to_show",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_single_leader().await?;
            page.set_speed(0.01).await?;
            let start = page.sim_time().await?.unwrap_or(0);
            let asked = page
                .execute(COUNT_FRAME_REQUESTS, vec![json!(2000)])
                .await?;
            let asked = asked.as_u64().ok_or(format!("frame requests: {asked}"))?;
            println!("{asked} frames asked for in 2 s at 0.01x");
            assert!(asked <= 12, "{asked} frames asked for in 2 s at 0.01x");
            page.wait_sim_time(start + 10).await?;
            let out = page.console("etcdctl put k v").await?;
            assert!(out.trim_end().ends_with("OK"), "{out}");
            Ok(())
        },
    );
}

/// Counts the page's requests for an animation frame made while its tab is hidden.
const COUNT_HIDDEN_FRAME_REQUESTS: &str = "window.__askedHidden = 0;
    window.__wentHidden = false;
    document.addEventListener('visibilitychange', () => {
        if (document.hidden) window.__wentHidden = true;
    });
    const own = window.requestAnimationFrame;
    window.requestAnimationFrame = f => {
        if (document.hidden) window.__askedHidden += 1;
        return own.call(window, f);
    };";

/// Behind another tab the page asks for no frames at all (headless Chromium would still run
/// them about once a second), and its run goes on when the tab shows again.
#[test]
fn a_hidden_tab_asks_for_no_frames() {
    story("a_hidden_tab_asks_for_no_frames", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_single_leader().await?;
        // Slow: the loop sleeps on a timer between frames, which fires in a hidden tab too.
        page.set_speed(0.01).await?;
        page.execute(COUNT_HIDDEN_FRAME_REQUESTS, vec![]).await?;
        let client = page.client();
        let app = client.window().await?;
        let blank = client.new_window(true).await?.handle;
        client.switch_to_window(blank).await?;
        tokio::time::sleep(std::time::Duration::from_secs(3)).await;
        client.close_window().await?;
        client.switch_to_window(app).await?;
        let seen = page
            .execute(
                "return [window.__wentHidden, window.__askedHidden];",
                vec![],
            )
            .await?;
        assert_eq!(seen, json!([true, 0]), "[went hidden, frames asked for]");
        page.set_speed(10.0).await?;
        let now = page.sim_time().await?.unwrap_or(0);
        page.wait_sim_time(now + 2_000).await?;
        Ok(())
    });
}

/// Point 9: typing into the seed field while the run plays keeps what is typed; Enter applies
/// it; a bad value is refused, saying why, and the run keeps its seed.
#[test]
fn the_seed_field_keeps_what_is_typed() {
    story("the_seed_field_keeps_what_is_typed", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        let seed = r#"[data-control="seed"]"#;
        page.wait_exists(PAUSE).await?;
        page.click(seed).await?;
        page.execute(
            "document.querySelector(arguments[0]).value = ''",
            vec![seed.into()],
        )
        .await?;
        page.type_text(seed, "12").await?;
        let before = page.sim_time().await?.unwrap_or(0);
        page.wait_sim_time(before + 300).await?;
        assert_eq!(
            value_of(&page, seed).await?,
            "12",
            "frames went by; the typing stays"
        );
        page.type_text(seed, "\n").await?;
        let url = wait_for("the share link to carry seed 12", async || {
            let url = page.share_url().await?;
            Ok(url.contains("seed=12").then_some(url))
        })
        .await?;
        println!("after Enter: {url}");

        page.click(seed).await?;
        page.execute(
            "document.querySelector(arguments[0]).value = ''",
            vec![seed.into()],
        )
        .await?;
        page.type_text(seed, "-3x\n").await?;
        page.wait_exists(r#"[data-field-error="seed"]"#).await?;
        let error = page.text(r#"[data-field-error="seed"]"#).await?;
        assert!(error.contains("-3x"), "the error names the value: {error}");
        assert!(
            page.share_url().await?.contains("seed=12"),
            "a bad value changes nothing"
        );
        page.screenshot("seed-error-1280x720").await?;
        Ok(())
    });
}

/// Point 12: after "isolate the leader" the chip names the partition, the group editor shows
/// it, and the quorum line counts the failures still tolerated; heal undoes all three.
#[test]
fn the_network_is_shown_as_a_state() {
    story("the_network_is_shown_as_a_state", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        page.set_speed(10.0).await?;
        let leader = page.wait_single_leader().await?;
        page.wait_attr("[data-more-failures]", "data-more-failures", "1")
            .await?;
        page.open_tab("network").await?;
        page.wait_attr(
            ".ring [data-partition-chip]",
            "data-partition-chip",
            "whole",
        )
        .await?;
        page.click(r#"[data-preset="isolate-leader"]"#).await?;
        let rest: Vec<&str> = ["m1", "m2", "m3"]
            .into_iter()
            .filter(|m| *m != leader.name)
            .collect();
        let expected = format!("{{{}}} | {{{}}}", leader.name, rest.join(","));
        let expected = if leader.name == "m1" {
            expected
        } else {
            // Groups are ordered by their first member.
            let mut groups = [
                format!("{{{}}}", leader.name),
                format!("{{{}}}", rest.join(",")),
            ];
            groups.sort_by_key(|g| if g.contains("m1") { 0 } else { 1 });
            groups.join(" | ")
        };
        page.wait_attr(
            ".ring [data-partition-chip]",
            "data-partition-chip",
            &expected,
        )
        .await?;
        let in_a = |m: &str| format!(r#"[data-group="A"] [data-partition-member="{m}"]"#);
        let in_b = |m: &str| format!(r#"[data-group="B"] [data-partition-member="{m}"]"#);
        let leader_group_a = leader.name == "m1";
        let (mine, theirs) = if leader_group_a {
            (in_a(&leader.name), in_b(rest[0]))
        } else {
            (in_b(&leader.name), in_a(rest[0]))
        };
        page.wait_exists(&mine).await?;
        page.wait_exists(&theirs).await?;
        page.wait_attr("[data-more-failures]", "data-more-failures", "0")
            .await?;
        let quorum = page.text("[data-quorum]").await?;
        println!("partitioned: {expected}; quorum line: {quorum}");
        page.screenshot("network-state-1280x720").await?;
        page.click(r#"[data-action="heal"]"#).await?;
        page.wait_attr(
            ".ring [data-partition-chip]",
            "data-partition-chip",
            "whole",
        )
        .await?;
        page.wait_exists(&in_a(&leader.name)).await?;
        page.wait_attr("[data-more-failures]", "data-more-failures", "1")
            .await?;
        Ok(())
    });
}

/// The ring, logs and network at the other sizes, in presenter mode and in zh-TW.
#[test]
fn ring_screenshots_at_every_size() {
    story("ring_screenshots_at_every_size", async |h: Harness| {
        for (w, hgt) in [(1024, 768), (1920, 1080)] {
            let page = h.open(w, hgt).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            page.wait_single_leader().await?;
            page.console("etcdctl put a 1").await?;
            page.open_tab("logs").await?;
            page.screenshot(&format!("ring-{w}x{hgt}")).await?;
            page.click(r#"[data-action="presenter"]"#).await?;
            page.screenshot(&format!("ring-presenter-{w}x{hgt}"))
                .await?;
            page.click(r#"[data-action="lang"]"#).await?;
            page.open_tab("network").await?;
            page.click(r#"[data-preset="isolate-leader"]"#).await?;
            page.wait_exists(r#".ring .partition-chip.cut"#).await?;
            page.screenshot(&format!("ring-presenter-zh-{w}x{hgt}"))
                .await?;
            page.click(r#"[data-action="presenter"]"#).await?;
            page.click(r#"[data-action="lang"]"#).await?;
            page.close().await?;
        }
        Ok(())
    });
}
