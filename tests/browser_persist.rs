//! Issue 15's "nothing lost on reload or crash of the page", in headless Chromium against the
//! built app: a reload, back/forward and reopening the tab bring the session back exactly
//! (the same `data-sim-time`, leader, console, tab, language); "start fresh" forgets it; a
//! reload after the page died restores the last good state (and a restore that kills the page
//! is not tried twice); a corrupt share link and a corrupt imported file change nothing.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_persist --
//! --nocapture`. Screenshots land in `tests/artifacts/persist-*.png`.

mod browser_support;

use browser_support::raftlab::{NOTICE, PLAY, SPEED};
use browser_support::{story, wait_for, Harness, Member, Page, Result};
use fantoccini::Locator;

/// What must come back: the moment, the leader, the console, the tab, the language,
/// whether the run plays and at what speed.
#[derive(Debug, PartialEq)]
struct Session {
    sim_time: Option<u64>,
    leader: Option<String>,
    console: String,
    tab: Option<String>,
    lang: Option<String>,
    paused: bool,
    speed: Option<String>,
}

async fn session(page: &Page) -> Result<Session> {
    let members: Vec<Member> = page.members().await?;
    Ok(Session {
        sim_time: page.sim_time().await?,
        leader: members
            .iter()
            .find(|m| m.is_leader())
            .map(|m| m.name.clone()),
        console: page.console_output().await?,
        tab: page
            .attr(r#"[data-tab][aria-selected="true"]"#, "data-tab")
            .await?,
        lang: page.attr("html", "lang").await?,
        paused: page.count(PLAY).await? > 0,
        speed: page
            .execute(
                "return document.querySelector(arguments[0]).value;",
                vec![SPEED.into()],
            )
            .await?
            .as_str()
            .map(str::to_string),
    })
}

/// Waits until the page has opened again (its members drawn, its clock shown).
async fn opened(page: &Page) -> Result {
    page.wait_count("[data-member]", 3).await?;
    wait_for("the clock", async || Ok(page.sim_time().await?)).await?;
    Ok(())
}

/// A run worth keeping: a leader, a key written and read, the first leader killed and a new
/// one elected, then paused (so that nothing moves while it is compared).
async fn work(page: &Page) -> Result {
    opened(page).await?;
    page.set_speed(10.0).await?;
    let first = page.wait_single_leader().await?;
    page.console("etcdctl put greeting hello").await?;
    page.wait_console_output("OK").await?;
    page.console("etcdctl get greeting").await?;
    page.wait_console_output("hello").await?;
    page.member_click(&first.name, "kill").await?;
    page.wait_members("a new leader", |ms| {
        ms.iter()
            .find(|m| m.is_leader() && m.name != first.name)
            .cloned()
    })
    .await?;
    page.pause().await
}

async fn notice_containing(page: &Page, needle: &str) -> Result<String> {
    wait_for(&format!("a notice saying {needle:?}"), async || {
        Ok(page.notice().await?.filter(|n| n.contains(needle)))
    })
    .await
}

/// Reload, back/forward and a reopened tab each bring back the same session, to the
/// virtual millisecond.
#[test]
fn reload_back_forward_and_reopening_restore_the_session_exactly() {
    story(
        "reload_back_forward_and_reopening_restore_the_session_exactly",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            work(&page).await?;
            page.open_tab("keys").await?;
            page.click(r#"[data-action="lang"]"#).await?;
            page.wait_attr("html", "lang", "zh-TW").await?;
            let before = session(&page).await?;
            println!("before: {before:?}");
            assert!(before.console.contains("$ etcdctl put greeting hello"));
            assert!(before.paused && before.leader.is_some());
            assert_eq!(before.speed.as_deref(), Some("1"), "10x");

            page.client().refresh().await?;
            opened(&page).await?;
            notice_containing(&page, "已還原").await?;
            assert_eq!(session(&page).await?, before, "after a reload");
            page.wait_exists(r#"[data-kv-key="greeting"]"#).await?;
            page.screenshot("persist-reloaded-1280x720").await?;

            page.client().goto("about:blank").await?;
            page.client().back().await?;
            opened(&page).await?;
            assert_eq!(session(&page).await?, before, "after back");

            // Another tab of the same browser opens the page; the first one closes.
            let old = page.client().window().await?;
            let tab = page.client().new_window(true).await?;
            page.client().switch_to_window(tab.handle).await?;
            page.goto("/").await?;
            opened(&page).await?;
            assert_eq!(session(&page).await?, before, "in a reopened tab");
            page.client().switch_to_window(old).await?;
            page.client().close_window().await?;
            Ok(())
        },
    );
}

/// "Start fresh" (after its question) forgets the session: the page and its next reload
/// are a first visit's.
#[test]
fn start_fresh_forgets_the_session() {
    story("start_fresh_forgets_the_session", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        work(&page).await?;
        page.open_tab("share").await?;
        page.click("[data-start-fresh]").await?;
        page.click(r#"[data-confirm="restart"] [data-answer="yes"]"#)
            .await?;
        notice_containing(&page, "Started fresh").await?;
        let fresh = session(&page).await?;
        assert!(!fresh.console.contains("greeting"), "{fresh:?}");
        assert_eq!(fresh.tab.as_deref(), Some("logs"));
        page.screenshot("persist-start-fresh-1280x720").await?;

        page.client().refresh().await?;
        opened(&page).await?;
        let after = session(&page).await?;
        assert!(!after.console.contains("greeting"), "{after:?}");
        page.console("etcdctl get greeting").await?;
        let out = page.console_output().await?;
        assert!(
            !out.contains("hello"),
            "the key is gone with the run: {out}"
        );
        Ok(())
    });
}

/// The page dies (a wasm trap, raised as `tests/browser.rs` does): a plain reload brings
/// back the last good state. A restore that itself killed the page is not tried again.
#[test]
fn a_reload_after_the_page_died_restores_the_last_good_state() {
    story(
        "a_reload_after_the_page_died_restores_the_last_good_state",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            work(&page).await?;
            let before = session(&page).await?;
            page.trap_wasm().await?;
            page.wait_exists("[data-crash]").await?;
            page.client().refresh().await?;
            opened(&page).await?;
            assert_eq!(page.count("[data-crash]").await?, 0);
            assert_eq!(session(&page).await?, before, "the last good state");

            // As if replaying the kept session had killed the page on the last opening.
            page.execute("localStorage.setItem('raftlab.restoring', '1');", vec![])
                .await?;
            page.client().refresh().await?;
            opened(&page).await?;
            let notice = notice_containing(&page, "stopped the page").await?;
            println!("notice: {notice}");
            let fresh = session(&page).await?;
            assert!(!fresh.console.contains("greeting"), "{fresh:?}");
            Ok(())
        },
    );
}

/// A browser whose storage fills up says so once, and a reload goes back to the last moment
/// it kept (with that moment's console), not to nothing.
#[test]
fn a_full_storage_is_said_once_and_the_last_kept_state_comes_back() {
    story(
        "a_full_storage_is_said_once_and_the_last_kept_state_comes_back",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            work(&page).await?;
            page.execute(
                "const set = Storage.prototype.setItem;
                 Storage.prototype.setItem = function (k, v) {
                   if (k === 'raftlab.session' || k === 'raftlab.console') {
                     throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
                   }
                   return set.call(this, k, v);
                 };",
                vec![],
            )
            .await?;
            page.console("etcdctl put lost value").await?;
            page.wait_console_output("OK").await?;
            let notice = notice_containing(&page, "stopped keeping").await?;
            println!("notice: {notice}");
            page.screenshot("persist-storage-full-1280x720").await?;

            page.client().refresh().await?;
            opened(&page).await?;
            notice_containing(&page, "is back").await?;
            let back = session(&page).await?;
            assert!(back.console.contains("etcdctl get greeting"), "{back:?}");
            assert!(!back.console.contains("put lost"), "{back:?}");
            page.console("etcdctl get lost").await?;
            page.console("etcdctl get greeting").await?;
            page.wait_console_output("hello").await?;
            let out = page.console_output().await?;
            assert!(
                !out.contains("lost\nvalue"),
                "the unkept put is gone: {out}"
            );
            Ok(())
        },
    );
}

/// A damaged link, pasted into the open page or opened with it, is refused with its reason
/// and changes nothing.
#[test]
fn a_corrupt_share_link_changes_nothing() {
    story(
        "a_corrupt_share_link_changes_nothing",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            work(&page).await?;
            let before = session(&page).await?;
            page.execute(
                "location.hash = 'v=1&members=banana&script=wait%201s';",
                vec![],
            )
            .await?;
            let notice = notice_containing(&page, "This link could not be opened").await?;
            assert!(notice.contains("members must be"), "{notice}");
            assert_eq!(session(&page).await?, before, "pasted into the open page");
            page.screenshot("persist-bad-link-1280x720").await?;

            page.execute(
                "history.replaceState(null, '', '/#v=1&seed=%zz'); location.reload();",
                vec![],
            )
            .await?;
            opened(&page).await?;
            notice_containing(&page, "This link could not be opened").await?;
            assert_eq!(session(&page).await?, before, "opened with the page");
            let hash = page.execute("return location.hash;", vec![]).await?;
            assert_eq!(hash.as_str(), Some(""), "the address no longer carries it");
            Ok(())
        },
    );
}

/// A file that is no script (a PNG picked by mistake) and a script whose header
/// `raftlab run` refuses are both refused, saying why; the run stays as it was.
#[test]
fn a_corrupt_imported_file_changes_nothing() {
    story(
        "a_corrupt_imported_file_changes_nothing",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            work(&page).await?;
            page.open_tab("share").await?;
            let before = session(&page).await?;
            let png = browser_support::artifacts_dir().join("persist-not-a-script.png");
            std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\xff\xfe")?;
            page.client()
                .find(Locator::Css("[data-import-file]"))
                .await?
                .send_keys(&png.display().to_string())
                .await?;
            let notice = notice_containing(&page, "This file could not be imported").await?;
            assert!(notice.contains("not a text file"), "{notice}");
            let field = page
                .execute(
                    "return document.querySelector('[data-import-script]').value;",
                    vec![],
                )
                .await?;
            assert_eq!(field.as_str(), Some(""), "the field keeps what it held");
            assert_eq!(session(&page).await?, before, "after the PNG");

            page.set_value(
                "[data-import-script]",
                "# raftlab run --members banana\nwait leader\nkill leader\n",
            )
            .await?;
            page.click(r#"[data-action="import-run"]"#).await?;
            wait_for("the header's error", async || {
                Ok(page
                    .notice()
                    .await?
                    .filter(|n| n.contains("--members must be")))
            })
            .await?;
            assert_eq!(session(&page).await?, before, "after the bad header");
            assert_eq!(page.count(NOTICE).await?, 1);
            page.screenshot("persist-bad-import-1280x720").await?;
            Ok(())
        },
    );
}
