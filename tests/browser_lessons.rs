//! The Lessons panel in headless Chromium (issue 12): the table of contents, a goal met by the
//! member's own Kill button, Back, jumps, a predict question and its reveal, a reload, the
//! share link, zh-TW, and a screenshot of every lesson's first step in both languages.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_lessons --
//! --nocapture`. Hooks: the list `[data-lessons]`, each `[data-lesson="ID"]`, the open step
//! `[data-lesson-open="ID"] [data-step="N"]`, the goal `[data-goal][data-met]`, the buttons
//! `[data-action="lesson-next|lesson-back|lesson-restart|lesson-show"]`, each TOC step
//! `[data-lesson-jump="ID:N"]`, the predict panel `[data-predict]` and its `[data-choice="K"]`.

mod browser_support;

use browser_support::raftlab::PLAY;
use browser_support::{story, Harness, Member, Page, Result};

const ELECTION: &str = "leader-election";
/// Lesson 5's step whose goal is a new leader after a crash.
const KILL_STEP: usize = 4;
/// Lesson 5's first step: a question with choices, the second of which is right.
const CHOICE_STEP: usize = 1;
const CHOICE_RIGHT: usize = 2;

fn open_step(id: &str, step: usize) -> String {
    format!(r#"[data-lesson-open="{id}"] [data-step="{step}"]"#)
}

fn goal(met: bool) -> String {
    format!(r#"[data-lesson-open] [data-goal][data-met="{met}"]"#)
}

/// Unfolds the table of contents (the Lessons card, or the open step's Contents) if folded.
async fn open_contents(page: &Page) -> Result {
    page.wait_exists("[data-lessons]").await?;
    let folded = page
        .execute(
            "const d = document.querySelector('[data-lessons]').closest('details');
             return !!d && !d.open;",
            vec![],
        )
        .await?;
    if folded.as_bool() == Some(true) {
        page.click(r#"[data-action="lesson-contents"]"#).await?;
    }
    Ok(())
}

/// Opens the contents and jumps to step `step` of lesson `id`.
async fn jump(page: &Page, id: &str, step: usize) -> Result {
    open_contents(page).await?;
    let target = format!(r#"[data-lesson-jump="{id}:{step}"]"#);
    // In the open card the contents scroll under its sticky buttons: bring the step to the
    // middle, as a reader scrolling to it would.
    page.execute(
        "const e = document.querySelector(arguments[0]);
         if (e) e.scrollIntoView({block: 'center'});",
        vec![target.clone().into()],
    )
    .await?;
    page.click(&target).await?;
    page.wait_exists(&open_step(id, step)).await
}

/// Every lesson id the table of contents lists, in order.
async fn lesson_ids(page: &Page) -> Result<Vec<String>> {
    open_contents(page).await?;
    page.wait_exists("[data-lessons] [data-lesson]").await?;
    Ok(page
        .attrs("[data-lessons] [data-lesson]", "data-lesson")
        .await?
        .into_iter()
        .flatten()
        .collect())
}

/// The list shows every lesson with its steps; in lesson 5, killing the leader with its own
/// Kill button (not the solution) meets the goal and marks the step done; Back opens the step
/// before, Next this one again from its start (goal unmet, the leader alive); Restart too.
#[test]
fn kill_button_meets_the_goal_and_back_rewinds() {
    story(
        "kill_button_meets_the_goal_and_back_rewinds",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            let ids = lesson_ids(&page).await?;
            println!("lessons: {ids:?}");
            assert!(ids.contains(&ELECTION.to_string()), "{ids:?}");
            for id in &ids {
                let steps = page
                    .count(&format!(r#"[data-lesson-jump^="{id}:"]"#))
                    .await?;
                assert!(steps > 0, "lesson {id} lists no step");
            }

            jump(&page, ELECTION, KILL_STEP).await?;
            page.wait_exists(&goal(false)).await?;
            page.set_speed(10.0).await?;
            let leader = page.wait_single_leader().await?;
            println!("step {KILL_STEP} opens with {leader}");
            page.member_click(&leader.name, "kill").await?;
            page.wait_exists(&goal(true)).await?;
            let jump_done = format!(r#"[data-lesson-jump="{ELECTION}:{KILL_STEP}"]"#);
            page.wait_attr(&jump_done, "data-done", "true").await?;
            page.screenshot("lesson-goal-met-1280x720").await?;

            page.click(r#"[data-action="lesson-back"]"#).await?;
            page.wait_exists(&open_step(ELECTION, KILL_STEP - 1))
                .await?;
            page.wait_exists(&goal(false)).await?;
            page.click(r#"[data-action="lesson-next"]"#).await?;
            page.wait_exists(&open_step(ELECTION, KILL_STEP)).await?;
            page.wait_exists(&goal(false)).await?;
            let back: Member = page.member(&leader.name).await?;
            assert!(
                !back.is_stopped(),
                "the step opens from its start: {back} runs"
            );

            page.member_click(&leader.name, "kill").await?;
            page.wait_exists(&goal(true)).await?;
            page.click(r#"[data-action="lesson-restart"]"#).await?;
            page.wait_exists(&goal(false)).await?;
            let again = page.member(&leader.name).await?;
            assert!(!again.is_stopped(), "Restart forgets the kill: {again}");
            Ok(())
        },
    );
}

/// A predict question holds the world still until it is answered; "Show me" types the
/// solution in the console; the reveal shows once the goal is met. Then a jump into another
/// lesson, a reload that lands on the same step with the progress kept, the share link that
/// carries the step, and zh-TW.
#[test]
fn predict_reveal_jump_reload_share_and_zh() {
    story(
        "predict_reveal_jump_reload_share_and_zh",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            let ids = lesson_ids(&page).await?;
            jump(&page, ELECTION, CHOICE_STEP).await?;
            page.wait_exists("[data-predict]").await?;
            page.wait_exists(PLAY).await?;
            let held = page.sim_time().await?;
            page.click(PLAY).await?;
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            assert_eq!(
                page.sim_time().await?,
                held,
                "the world waits for the answer"
            );
            let header_pause = r#"button.play[data-action="pause"]"#;
            assert_eq!(page.count(header_pause).await?, 0, "Play does not play yet");

            let choice = format!(r#"[data-predict] [data-choice="{CHOICE_RIGHT}"]"#);
            // The card's buttons stay pinned at its foot; a student scrolls the choice above
            // them, as this does, before clicking it.
            page.execute(
                "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})",
                vec![choice.clone().into()],
            )
            .await?;
            page.click(&choice).await?;
            page.wait_attr("[data-predict]", "data-answered", "true")
                .await?;
            page.click(r#"[data-action="lesson-show"]"#).await?;
            page.wait_console_output("$ wait 500ms").await?;
            page.wait_exists(&goal(true)).await?;
            page.wait_attr("[data-reveal]", "data-right", "true")
                .await?;
            let reveal = page.text("[data-reveal]").await?;
            assert!(reveal.contains("Heartbeat"), "reveal: {reveal}");
            page.screenshot("lesson-reveal-1280x720").await?;

            let other = ids
                .iter()
                .find(|id| *id != ELECTION)
                .ok_or("only one lesson ships: nothing to jump to")?
                .clone();
            jump(&page, &other, 1).await?;
            page.wait_attr(
                &format!(r#"[data-lesson-jump="{ELECTION}:{CHOICE_STEP}"]"#),
                "data-done",
                "true",
            )
            .await?;

            page.client().refresh().await?;
            page.wait_exists(&open_step(&other, 1)).await?;
            page.wait_attr(
                &format!(r#"[data-lesson-jump="{ELECTION}:{CHOICE_STEP}"]"#),
                "data-done",
                "true",
            )
            .await?;

            let url = page.share_url().await?;
            assert!(url.contains(&format!("&lesson={other}.1")), "{url}");
            let path = url
                .split_once("://")
                .and_then(|(_, rest)| rest.split_once('/'))
                .map(|(_, p)| format!("/{p}"))
                .ok_or("share link has no path")?;

            page.click(r#"[data-action="lang"]"#).await?;
            page.wait_attr("html", "lang", "zh-TW").await?;
            let next = page.text(r#"[data-action="lesson-next"]"#).await?;
            assert!(next.contains("下一步"), "Next in zh-TW: {next}");
            page.screenshot("lesson-zh-TW-1280x720").await?;
            page.close().await?;

            let copy = h.open_path(&path, 1280, 720).await?;
            copy.wait_exists(&open_step(&other, 1)).await?;
            Ok(())
        },
    );
}

/// A share link taken after the goal was met opens the same step with the goal met: the
/// link's run is replayed after the step's own start.
#[test]
fn a_share_link_keeps_the_step_and_what_was_done_in_it() {
    story(
        "a_share_link_keeps_the_step_and_what_was_done_in_it",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            jump(&page, ELECTION, KILL_STEP).await?;
            page.set_speed(10.0).await?;
            page.console("kill leader").await?;
            page.wait_exists(&goal(true)).await?;
            page.pause().await?;
            let url = page.share_url().await?;
            assert!(
                url.contains(&format!("&lesson={ELECTION}.{KILL_STEP}")),
                "{url}"
            );
            let path = url
                .split_once("://")
                .and_then(|(_, rest)| rest.split_once('/'))
                .map(|(_, p)| format!("/{p}"))
                .ok_or("share link has no path")?;
            page.close().await?;
            let copy = h.open_path(&path, 1280, 720).await?;
            copy.wait_exists(&open_step(ELECTION, KILL_STEP)).await?;
            copy.wait_exists(&goal(true)).await?;
            Ok(())
        },
    );
}

/// Every lesson's first step in both languages, at 1280x720: the step is on screen beside the
/// cluster (not over it), and nothing in the panel runs out sideways.
#[test]
fn every_lesson_first_step_screenshots() {
    story("every_lesson_first_step_screenshots", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        let ids = lesson_ids(&page).await?;
        for lang in ["en", "zh-TW"] {
            if lang == "zh-TW" {
                page.click(r#"[data-action="lang"]"#).await?;
                page.wait_attr("html", "lang", "zh-TW").await?;
            }
            for id in &ids {
                jump(&page, id, 1).await?;
                page.wait_exists("[data-lesson-open] [data-goal]").await?;
                page.execute("window.scrollTo(0, 0);", vec![]).await?;
                check_layout(&page, id).await?;
                page.screenshot(&format!("lesson-{id}-{lang}-1280x720"))
                    .await?;
            }
        }
        Ok(())
    });
}

/// The lesson panel starts on screen, right of the cluster, and neither it nor its text
/// overflows sideways.
async fn check_layout(page: &Page, id: &str) -> Result {
    let v = page
        .execute(
            "const c = document.querySelector('svg.cluster').getBoundingClientRect();
             const p = document.querySelector('[data-lesson-open]');
             const r = p.getBoundingClientRect();
             const wide = Array.from(p.querySelectorAll('*'))
               .filter(e => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'auto')
               .map(e => e.tagName + '.' + e.className);
             return {cluster_right: c.right, cluster_w: c.width, left: r.left, right: r.right,
                     top: r.top, width: innerWidth, wide: wide};",
            vec![],
        )
        .await?;
    let n = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    assert!(n("cluster_w") > 300.0, "{id}: the cluster is shown: {v}");
    assert!(
        n("left") >= n("cluster_right"),
        "{id}: the lesson is beside the cluster: {v}"
    );
    assert!(
        n("right") <= n("width"),
        "{id}: the lesson fits the window: {v}"
    );
    assert!(
        n("top") < 200.0,
        "{id}: the lesson starts near the top: {v}"
    );
    assert_eq!(
        v["wide"],
        serde_json::json!([]),
        "{id}: text runs out sideways: {v}"
    );
    Ok(())
}

/// In presenter mode the open step is large for the room (its text at least 1.3× the
/// laptop's, and at least 20 px) and still beside the cluster on one screen, in both
/// languages, at 1280×720 and 1024×768.
#[test]
fn presenter_mode_makes_the_lesson_large() {
    story(
        "presenter_mode_makes_the_lesson_large",
        async |h: Harness| {
            for (w, hgt) in [(1280, 720), (1024, 768)] {
                let page = h.open(w, hgt).await?;
                page.wait_count("[data-member]", 3).await?;
                jump(&page, ELECTION, 1).await?;
                let laptop = lesson_text_px(&page).await?;
                page.click(r#"[data-action="presenter"]"#).await?;
                page.wait_exists("html.presenter").await?;
                for lang in ["en", "zh-TW"] {
                    if lang == "zh-TW" {
                        page.click(r#"[data-action="lang"]"#).await?;
                        page.wait_attr("html", "lang", "zh-TW").await?;
                    }
                    page.wait_exists(&open_step(ELECTION, 1)).await?;
                    let room = lesson_text_px(&page).await?;
                    assert!(
                        room >= 20.0 && room >= laptop * 1.3,
                        "{lang} {w}x{hgt}: the lesson text is {room:.1}px (laptop {laptop:.1}px)"
                    );
                    page.execute("window.scrollTo(0, 0);", vec![]).await?;
                    check_layout(&page, ELECTION).await?;
                    page.screenshot(&format!("lesson-presenter-{lang}-{w}x{hgt}"))
                        .await?;
                }
                page.click(r#"[data-action="lang"]"#).await?;
                page.click(r#"[data-action="presenter"]"#).await?;
                page.close().await?;
            }
            Ok(())
        },
    );
}

/// The open step's text size, in CSS px.
async fn lesson_text_px(page: &Page) -> Result<f64> {
    let v = page
        .execute(
            "const p = document.querySelector('[data-lesson-open] .lesson-text p');
             return p ? parseFloat(getComputedStyle(p).fontSize) : null;",
            vec![],
        )
        .await?;
    v.as_f64().ok_or_else(|| "no lesson text on screen".into())
}
