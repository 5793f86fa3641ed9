//! The console's stories for issue 17 (points 1, 10, 15 and `clear`), in headless Chromium
//! against the built app, through the page's data hooks.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_console --
//! --nocapture`. Screenshots land in `tests/artifacts/console-*.png`.

mod browser_support;

use browser_support::raftlab::{CONSOLE, PLAY};
use browser_support::{story, wait_for, Harness, Member, Page, Result};
use fantoccini::key::Key;

const ENDPOINT: &str = "[data-console-endpoint]";
const HINT: &str = "[data-console-raftlab-hint]";

/// A Deployment's manifest, as a learner pastes it from a tutorial.
fn deployment(name: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: {name}\n        image: nginx:1.25\n"
    )
}

async fn page_overflows(page: &Page) -> Result<bool> {
    let v = page
        .execute(
            "const d = document.documentElement; return d.scrollWidth > d.clientWidth + 1;",
            vec![],
        )
        .await?;
    Ok(v.as_bool().unwrap_or(true))
}

/// The first demo, exactly as issue 17 tells it: seed 1 elects m1; kill it from its card;
/// once a new leader wins, `etcdctl put` in the console succeeds (the console names where
/// it is connected) and the Keys tab shows the key. A request to the dead member still fails
/// as etcdctl does, and the page's dimmed hint says why.
#[test]
fn first_demo_kill_the_leader_then_write() {
    story(
        "first_demo_kill_the_leader_then_write",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            let old: Member = page.wait_single_leader().await?;
            assert_eq!(old.name, "m1", "seed 1 elects m1 first");
            page.wait_attr(ENDPOINT, "data-console-endpoint", "m1")
                .await?;
            page.member_click("m1", "kill").await?;
            page.wait_member_state("m1", "stopped").await?;
            let new = page
                .wait_members("a new leader", |ms| {
                    ms.iter().find(|m| m.is_leader() && m.name != "m1").cloned()
                })
                .await?;
            println!("new leader: {new}");
            page.wait_attr(ENDPOINT, "data-console-endpoint", "m2")
                .await?;
            page.console("etcdctl put demo works").await?;
            let out = page.wait_console_output("OK").await?;
            assert!(!out.contains("deadline"), "{out}");
            assert_eq!(page.count(HINT).await?, 0, "a success needs no hint");
            page.open_tab("keys").await?;
            page.wait_exists(r#"[data-kv-key="demo"]"#).await?;
            let row = page.text(r#"[data-kv-key="demo"]"#).await?;
            assert!(row.contains("works"), "{row}");
            page.screenshot("console-first-demo-1280x720").await?;

            // The old endpoint, named as `member list` shows it: the real error, then the hint.
            page.console("etcdctl --endpoints=http://127.0.0.1:2379 get demo")
                .await?;
            let out = page
                .wait_console_output("Error: context deadline exceeded")
                .await?;
            let in_stderr = page
                .execute(
                    "return [...document.querySelectorAll('[data-console-output] .err')]
                     .some(e => e.textContent.includes('Raft Lab'));",
                    vec![],
                )
                .await?;
            assert_eq!(
                in_stderr.as_bool(),
                Some(false),
                "the hint is not etcdctl's: {out}"
            );
            page.wait_exists(HINT).await?;
            let hint = page.text(HINT).await?;
            assert!(
                hint.starts_with("Raft Lab: m1 is down") && hint.contains("m2, m3"),
                "{hint}"
            );
            page.console("etcdctl --endpoints=m3:2379 get demo --print-value-only")
                .await?;
            page.wait_console_output("works").await?;
            page.screenshot("console-hint-1280x720").await?;
            Ok(())
        },
    );
}

/// `kubectl apply -f - <<EOF` typed line by line: the console shows a `>` prompt and the
/// lines so far until the marker, then runs the whole command; the same pasted at once.
/// Before `kube up`, kubectl's real error comes with a hint to start it.
#[test]
fn heredoc_apply_typed_and_pasted() {
    story("heredoc_apply_typed_and_pasted", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        page.console("kubectl get pods").await?;
        page.wait_console_output("The connection to the server localhost:8080 was refused")
            .await?;
        page.wait_exists(HINT).await?;
        assert!(page.text(HINT).await?.contains("kube up"));
        page.kube_up().await?;

        page.type_text(CONSOLE, "kubectl apply -f - <<EOF\n")
            .await?;
        page.wait_attr("[data-console-prompt]", "data-console-prompt", ">")
            .await?;
        page.wait_attr("[data-console-awaiting]", "data-console-awaiting", "EOF")
            .await?;
        for line in deployment("web").lines() {
            page.type_text(CONSOLE, &format!("{line}\n")).await?;
        }
        let pending = page.text("[data-console-pending]").await?;
        assert!(
            pending.contains(">       app: web"),
            "indentation kept: {pending}"
        );
        page.screenshot("console-heredoc-typing-1280x720").await?;
        page.type_text(CONSOLE, "EOF\n").await?;
        page.wait_console_output("deployment.apps/web created")
            .await?;
        page.wait_attr("[data-console-prompt]", "data-console-prompt", "$")
            .await?;
        assert_eq!(page.count("[data-console-pending]").await?, 0);

        page.paste(&format!(
            "kubectl apply -f - <<EOF\n{}EOF\n",
            deployment("api")
        ))
        .await?;
        page.wait_console_output("deployment.apps/api created")
            .await?;
        page.wait_exists(r#"[data-deployment="api"]"#).await?;
        page.console("kubectl get deployments").await?;
        page.wait_console_output("NAME").await?;
        page.screenshot("console-heredoc-pasted-1280x720").await?;
        Ok(())
    });
}

/// Tab on an ambiguous word lists every candidate (as bash does on its second Tab); on a
/// word only one fits, it completes it.
#[test]
fn ambiguous_completion_lists_the_candidates() {
    story(
        "ambiguous_completion_lists_the_candidates",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            let tab = char::from(Key::Tab).to_string();
            page.type_text(CONSOLE, &format!("k{tab}")).await?;
            page.wait_exists("[data-console-candidates]").await?;
            let listed = page.text("[data-console-hint]").await?;
            for word in ["kill", "kube", "kubectl"] {
                assert!(listed.contains(word), "{word} not in {listed:?}");
            }
            page.screenshot("console-completion-1280x720").await?;
            page.type_text(CONSOLE, &format!("ubectl ro{tab}")).await?;
            let value = page
                .execute(
                    "return document.querySelector(arguments[0]).value;",
                    vec![CONSOLE.into()],
                )
                .await?;
            assert_eq!(value.as_str(), Some("kubectl rollout "));
            Ok(())
        },
    );
}

/// `clear` empties the console as the Clear button does; Reset keeps the old output below a
/// divider; a wide table scrolls inside the console, never the page.
#[test]
fn clear_reset_divider_and_wide_tables() {
    story("clear_reset_divider_and_wide_tables", async |h: Harness| {
        let page = h.open(1024, 768).await?;
        page.wait_count("[data-member]", 3).await?;
        page.set_speed(10.0).await?;
        page.wait_single_leader().await?;
        page.console("status").await?;
        page.type_text(CONSOLE, "clear\n").await?;
        wait_for("the console to be empty", async || {
            Ok((page.count("[data-console-entry]").await? == 0).then_some(()))
        })
        .await?;
        page.console("etcdctl member list -w table").await?;
        page.console("etcdctl endpoint status -w table --cluster")
            .await?;
        page.wait_console_output("RAFT TERM").await?;
        assert!(
            !page_overflows(&page).await?,
            "a wide table must not widen the page"
        );
        let scrolls = page
            .execute(
                "const o = document.querySelector('[data-console-output]');
                 return o.scrollWidth > o.clientWidth;",
                vec![],
            )
            .await?;
        assert_eq!(
            scrolls.as_bool(),
            Some(true),
            "the console scrolls sideways"
        );
        page.console("etcdctl put after-the-table yes").await?;
        page.wait_console_output("OK").await?;
        let layout = page.execute(LAST_ENTRY_LAYOUT, vec![]).await?;
        assert_eq!(
            layout.as_str(),
            Some("one line at the left"),
            "the command after a wide table, and its output, read as typed"
        );
        page.screenshot("console-wide-table-1024x768").await?;
        page.click(r#"[data-action="reset"]"#).await?;
        // The run has history, so Reset asks first (the presenter branch's question).
        page.wait_exists(r#"[data-confirm="restart"]"#).await?;
        page.click(r#"[data-answer="yes"]"#).await?;
        page.wait_exists("[data-console-divider]").await?;
        let out = page.console_output().await?;
        assert!(out.contains("RAFT TERM"), "Reset keeps the old output");
        assert!(out.contains("--members 3 --seed 1"), "{out}");
        Ok(())
    });
}

/// Where the last console entry's command line and output sit: both at the output's left
/// edge, the command on one line (a log cell's styling once centred them in a column).
const LAST_ENTRY_LAYOUT: &str = r#"
const out = document.querySelector('[data-console-output]');
const entries = out.querySelectorAll('[data-console-entry]');
const last = entries[entries.length - 1];
const cmd = last.querySelector('.cmd').getBoundingClientRect();
const text = last.querySelector('.out').getBoundingClientRect();
const left = out.getBoundingClientRect().left + parseFloat(getComputedStyle(out).paddingLeft);
const lineHeight = parseFloat(getComputedStyle(out).lineHeight);
const atLeft = (r) => Math.abs(r.left - left) < 2;
if (!atLeft(cmd) || !atLeft(text)) return `not at the left: ${cmd.left} ${text.left} vs ${left}`;
if (cmd.height > lineHeight * 1.5) return `the command wraps: ${cmd.height}px for ${lineHeight}px lines`;
return 'one line at the left';
"#;

/// A shared link replays the run and the console shows what it ran (dimmed); "rewind to
/// start and play" plays it again, its commands appearing as the clock reaches them.
#[test]
fn shared_link_shows_its_transcript_and_plays_again() {
    story(
        "shared_link_shows_its_transcript_and_plays_again",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            page.set_speed(10.0).await?;
            page.wait_single_leader().await?;
            page.console("etcdctl put shared yes").await?;
            page.wait_console_output("OK").await?;
            page.member_click("m1", "kill").await?;
            page.wait_member_state("m1", "stopped").await?;
            page.pause().await?;
            let url = page.share_url().await?;
            let path = url
                .split_once("://")
                .and_then(|(_, rest)| rest.split_once('/'))
                .map(|(_, p)| format!("/{p}"))
                .ok_or("share link has no path")?;
            page.close().await?;

            let copy = h.open_path(&path, 1280, 720).await?;
            copy.wait_exists(r#"[data-console-entry="replayed"]"#)
                .await?;
            let opacity = copy
                .execute(
                    r#"return getComputedStyle(document.querySelector('[data-console-entry="replayed"]')).opacity;"#,
                    vec![],
                )
                .await?;
            assert_eq!(opacity.as_str(), Some("0.62"), "replayed lines are dimmed");
            let out = copy.wait_console_output("etcdctl put shared yes").await?;
            assert!(out.contains("kill m1"), "{out}");
            assert_eq!(
                copy.count(r#"[data-console-entry="typed"]"#).await?,
                0,
                "nobody typed these"
            );
            assert!(copy.count(PLAY).await? > 0, "a shared run opens paused");
            copy.screenshot("console-shared-link-1280x720").await?;
            copy.set_speed(10.0).await?;
            copy.click(r#"[data-action="play-from-start"]"#).await?;
            copy.wait_exists("[data-console-divider]").await?;
            wait_for("the put to run again in the playback", async || {
                let out = copy.console_output().await?;
                Ok((out.matches("$ etcdctl put shared yes").count() == 2).then_some(()))
            })
            .await?;
            copy.wait_member_state("m1", "stopped").await?;
            copy.screenshot("console-shared-playback-1280x720").await?;
            copy.open_tab("share").await?;
            let placeholder = copy
                .attr("[data-import-script]", "placeholder")
                .await?
                .unwrap_or_default();
            assert!(
                !placeholder.contains("&#10;") && placeholder.contains('\n'),
                "{placeholder:?}"
            );
            Ok(())
        },
    );
}
