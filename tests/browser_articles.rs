//! Issue 13 in the page: the articles' kubeadm cluster as a world choice, and the article's
//! commands typed into the console as printed, in headless Chromium against the built app.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_articles --
//! --nocapture`. Screenshots land in `tests/artifacts/articles-*.png`.

mod browser_support;

use browser_support::raftlab::PLAY;
use browser_support::{story, wait_for, Harness, Member, Page, Result};

const WORLD: &str = r#"[data-control="world"]"#;
const MEMBERS: &str = r#"[data-control="members"]"#;

/// Chooses a world as a person does; answers the page's "start a new run?" if it asks.
async fn choose_world(page: &Page, name: &str) -> Result {
    page.set_value(WORLD, name).await?;
    if page.count(r#"[data-confirm="restart"]"#).await? > 0 {
        page.click(r#"[data-answer="yes"]"#).await?;
    }
    Ok(())
}

/// Article 001's 三 Step 1 and Step 3 in the kubeadm world: its one member, the etcd static
/// pod, and `etcdctl endpoint health` over the article's TLS endpoint once its `export`
/// lines have run.
#[test]
fn the_kubeadm_world_runs_the_articles_commands() {
    story(
        "the_kubeadm_world_runs_the_articles_commands",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            choose_world(&page, "kubeadm").await?;
            page.wait_count("[data-member]", 1).await?;
            let master: Member = page.wait_single_leader().await?;
            assert_eq!(master.name, "m1", "the hooks keep the member's slot");
            // What a person reads is the member's etcd name, as etcdctl prints it.
            let shown = page
                .execute(
                    "return [
                       document.querySelector('[data-node=\"m1\"] text.name').textContent,
                       document.querySelector('[data-member=\"m1\"] .member-name').textContent,
                       document.querySelector('.leader-now').textContent,
                     ];",
                    vec![],
                )
                .await?;
            let shown: Vec<&str> = shown
                .as_array()
                .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
                .unwrap_or_default();
            assert_eq!(shown.len(), 3, "{shown:?}");
            assert_eq!(&shown[..2], ["master", "master"], "ring and card");
            assert!(shown[2].contains("master"), "the leader line: {shown:?}");
            wait_for("the event log naming master", async || {
                let log = page.text("[data-event-log]").await?;
                Ok(log.contains("master became leader").then_some(()))
            })
            .await?;
            let disabled = page
                .execute(
                    "return document.querySelector(arguments[0]).disabled;",
                    vec![MEMBERS.into()],
                )
                .await?;
            assert_eq!(
                disabled.as_bool(),
                Some(true),
                "kubeadm's member count is fixed"
            );
            page.console("kubectl get pods -n kube-system | grep etcd")
                .await?;
            let out = page.wait_console_output("etcd-master").await?;
            assert!(out.contains("Running"), "{out}");
            for line in [
                "export ETCDCTL_ENDPOINTS=https://127.0.0.1:2379",
                "export ETCDCTL_CACERT=/etc/kubernetes/pki/etcd/ca.crt",
                "export ETCDCTL_CERT=/etc/kubernetes/pki/etcd/healthcheck-client.crt",
                "export ETCDCTL_KEY=/etc/kubernetes/pki/etcd/healthcheck-client.key",
            ] {
                page.console(line).await?;
            }
            page.console("etcdctl endpoint health").await?;
            let out = page
                .wait_console_output("https://127.0.0.1:2379 is healthy")
                .await?;
            assert!(!out.contains("unhealthy"), "{out}");
            page.console("etcdctl member list -w table").await?;
            page.wait_console_output("https://10.140.0.33:2380").await?;
            // Without --endpoints etcdctl dials its default, the member on this machine.
            for line in [
                "unset ETCDCTL_ENDPOINTS",
                "etcdctl endpoint health -w table",
            ] {
                page.console(line).await?;
            }
            // Named as dialed: the table's row is `127.0.0.1:2379`, not the https URL.
            page.wait_console_output("| 127.0.0.1:2379 |   true |")
                .await?;
            let footer = page.text("[data-console-endpoint]").await?;
            assert!(
                footer.contains("127.0.0.1:2379")
                    && footer.contains("the member on this machine: master"),
                "{footer}"
            );
            // Paused, so that the kubelet does not start it again between the two kills.
            page.pause().await?;
            page.console("kill master").await?;
            page.wait_members("master stopped", |ms| {
                ms.iter().find(|m| m.is_stopped()).cloned()
            })
            .await?;
            page.console("kill master").await?;
            page.wait_console_output("Error: master is already stopped")
                .await?;
            // The kubelet starts the etcd container again after its back-off.
            page.set_speed(10.0).await?;
            page.click(PLAY).await?;
            page.wait_single_leader().await?;
            page.screenshot("articles-kubeadm-console").await?;
            // The "start here" card speaks the articles' first steps in this world.
            assert_eq!(page.count(r#"[data-start="cut-network"]"#).await?, 0);
            let healthy = "https://127.0.0.1:2379 is healthy";
            let before = page.console_output().await?.matches(healthy).count();
            page.click(r#"[data-start="etcd-health"]"#).await?;
            wait_for("the card's endpoint health", async || {
                let now = page.console_output().await?.matches(healthy).count();
                Ok((now > before).then_some(()))
            })
            .await?;
            page.click(r#"[data-start="static-pods"]"#).await?;
            page.wait_console_output("coredns-").await?;
            page.screenshot("articles-kubeadm-start-here").await?;
            choose_world(&page, "members").await?;
            page.wait_count("[data-member]", 3).await?;
            Ok(())
        },
    );
}
