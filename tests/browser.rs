//! End-to-end stories in headless Chromium against the built app (`dist/`).
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser -- --nocapture`
//! (`./x test` does both). Without `RAFTLAB_BROWSER=1` every story prints
//! `skipped: set RAFTLAB_BROWSER=1` and passes. Screenshots land in `tests/artifacts/`.
//! The harness and helpers are in `tests/browser_support/`.

mod browser_support;

use browser_support::{story, Harness, Member};

/// Kill the leader: a different member becomes leader in a higher term; restart the old
/// leader and it rejoins.
#[test]
fn kill_leader_reelects() {
    story("kill_leader_reelects", async |h: Harness| {
        let page = h.open(1280, 720).await?;
        page.wait_count("[data-member]", 3).await?;
        let speed = page.set_speed(10.0).await?;
        assert!(
            (speed - 10.0).abs() < 0.5,
            "speed control settled on {speed}x, not 10x"
        );

        let old = page.wait_single_leader().await?;
        let old_term = old
            .term
            .ok_or_else(|| format!("leader {old} shows no data-term"))?;
        println!("leader before the kill: {old}");

        page.member_click(&old.name, "kill").await?;
        page.wait_member_state(&old.name, "stopped").await?;

        let new = page
            .wait_members(
                &format!(
                    "a leader other than {} in a term above {old_term}",
                    old.name
                ),
                |ms| {
                    ms.iter()
                        .find(|m| m.is_leader() && m.name != old.name && m.term > Some(old_term))
                        .cloned()
                },
            )
            .await?;
        println!("leader after the kill: {new}");
        assert_ne!(new.name, old.name);
        assert!(new.term > Some(old_term), "{new} not above term {old_term}");
        let killed: Member = page.member(&old.name).await?;
        assert!(killed.is_stopped(), "{killed} came back without a restart");

        page.member_click(&old.name, "restart").await?;
        let back = page
            .wait_members(&format!("{} to run again", old.name), |ms| {
                ms.iter()
                    .find(|m| m.name == old.name && !m.is_stopped())
                    .cloned()
            })
            .await?;
        println!("after the restart: {back}");
        page.screenshot("kill-leader-1280x720").await?;
        Ok(())
    });
}

/// The cluster view at full HD, once a leader is elected.
#[test]
fn cluster_at_1920x1080() {
    story("cluster_at_1920x1080", async |h: Harness| {
        let page = h.open(1920, 1080).await?;
        page.wait_count("[data-member]", 3).await?;
        let leader = page.wait_single_leader().await?;
        println!("leader: {leader}");
        page.screenshot("cluster-1920x1080").await?;
        Ok(())
    });
}
