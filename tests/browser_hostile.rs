//! Issue 15's "markup and links stay inert": an XSS sweep in headless Chromium against the
//! built app. Hostile HTML, SVG, `javascript:` and Unicode tricks go into keys and values, a
//! member's name, a ConfigMap's data and annotations, a label, a Deployment's image (its
//! pods' events), a file name, a share link (the notice) and the console; then every panel
//! is opened and the downloaded space-time SVG is loaded as a document. A script that ran
//! would set `top.__xss`: it stays unset, no element carries an `on…` attribute or a
//! `javascript:` link, and the text shows as text.
//!
//! Run: `trunk build --release && RAFTLAB_BROWSER=1 cargo test --test browser_hostile --
//! --nocapture`.

mod browser_support;

use browser_support::{story, wait_for, Harness, Member, Page, Result};
use serde_json::Value;

/// Markup that runs `top.__xss = n` wherever a browser parses it as HTML or SVG, with the
/// Unicode tricks (a right-to-left override, a zero-width space) text must survive. No
/// single quote: the console's shell quotes it whole.
fn hostile(n: u32) -> String {
    format!(
        "<img src=x onerror=\"top.__xss={n}\"><svg onload=\"top.__xss={n}\"></svg>\
         <script>top.__xss={n}</script><a href=\"javascript:top.__xss={n}\">j</a>\u{202e}x\u{200b}"
    )
}

/// What shows that the text was shown as text, in any panel.
const SHOWN: &str = "onerror=\"top.__xss=";

/// What would prove markup was taken as markup, now: a script that ran, an `on…`
/// attribute, a `javascript:` link, the `<img src=x>` itself, or a script element the page
/// did not have (`scripts` of them at the start).
async fn breaches(page: &Page, scripts: u64) -> Result<Vec<String>> {
    let v = page
        .execute(
            "const bad = [];
             if (top.__xss !== undefined) bad.push('a script ran: ' + top.__xss);
             for (const e of document.querySelectorAll('*')) {
               for (const a of e.attributes) {
                 if (/^on/i.test(a.name)) bad.push(e.tagName + ' has ' + a.name);
                 if (/^(href|src|xlink:href|action|formaction)$/i.test(a.name)
                     && /^\\s*javascript:/i.test(a.value)) bad.push(e.tagName + ' ' + a.name);
               }
             }
             if (document.querySelector('img[src=\"x\"]')) bad.push('an img was made');
             const scripts = document.querySelectorAll('script').length;
             if (scripts !== arguments[0]) bad.push(scripts + ' scripts, not ' + arguments[0]);
             return bad;",
            vec![scripts.into()],
        )
        .await?;
    Ok(v.as_array()
        .map(|a| a.iter().map(|s| s.to_string()).collect())
        .unwrap_or_default())
}

async fn assert_inert(page: &Page, scripts: u64, place: &str) -> Result {
    // A script would run at once, an onerror once the image failed: give them the time.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let bad = breaches(page, scripts).await?;
    assert!(bad.is_empty(), "{place}: {bad:?}");
    Ok(())
}

async fn shown_as_text(page: &Page) -> Result<bool> {
    let v = page
        .execute(
            "return document.body.innerText.includes(arguments[0]);",
            vec![SHOWN.into()],
        )
        .await?;
    Ok(v.as_bool() == Some(true))
}

/// Every kind of name and text the page shows, hostile.
async fn feed(page: &Page) -> Result {
    page.console(&format!("etcdctl put '{}' '{}'", hostile(1), hostile(2)))
        .await?;
    page.wait_console_output("OK").await?;
    page.console(&format!("mkdir -p '/tmp/{}'", hostile(4)))
        .await?;
    page.console("ls /tmp").await?;
    page.kube_up().await?;
    page.console(&format!(
        "etcdctl member add '{}' --peer-urls=http://10.0.0.9:2380",
        hostile(3)
    ))
    .await?;
    page.console("etcdctl member list").await?;
    let configmap = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hostile\n  annotations:\n    note: '{}'\ndata:\n  page: '{}'\n",
        hostile(5),
        hostile(6)
    );
    page.paste(&format!("kubectl apply -f - <<EOF\n{configmap}EOF\n"))
        .await?;
    page.wait_console_output("configmap/hostile").await?;
    let labelled = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: labelled\n  labels:\n    app: '{}'\n",
        hostile(7)
    );
    page.paste(&format!("kubectl apply -f - <<EOF\n{labelled}EOF\n"))
        .await?;
    page.console(&format!(
        "kubectl create deployment evil --image='{}' --replicas=1",
        hostile(8)
    ))
    .await?;
    page.console("kubectl get configmap hostile -o yaml")
        .await?;
    page.console("kubectl get events").await?;
    page.execute(
        "location.hash = 'v=1&' + encodeURIComponent(arguments[0]) + '=1';",
        vec![hostile(9).into()],
    )
    .await?;
    wait_for("the bad link's notice", async || Ok(page.notice().await?)).await?;
    Ok(())
}

/// The downloaded space-time SVG, as the page handed it to the browser.
async fn downloaded_svg(page: &Page) -> Result<String> {
    page.execute(
        "window.__blobs = [];
         const make = URL.createObjectURL;
         URL.createObjectURL = function (b) { window.__blobs.push(b); return make.call(URL, b); };",
        vec![],
    )
    .await?;
    page.click(r#"[data-action="download-svg"]"#).await?;
    let v: Value = page
        .client()
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const b = window.__blobs[window.__blobs.length - 1];
             if (!b) { done(null); return; }
             b.text().then(done);",
            vec![],
        )
        .await?;
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| "the SVG download made no blob".into())
}

/// The SVG opened as a document of its own (as a student double-clicking the file would):
/// its scripts, if it had any, would run there and reach `top`.
async fn open_as_document(page: &Page, svg: &str) -> Result {
    page.client()
        .execute_async(
            "const done = arguments[arguments.length - 1];
             const url = URL.createObjectURL(new Blob([arguments[0]], {type: 'image/svg+xml'}));
             const frame = document.createElement('iframe');
             frame.onload = () => setTimeout(() => { frame.remove(); done(true); }, 300);
             frame.src = url;
             document.body.appendChild(frame);",
            vec![svg.into()],
        )
        .await?;
    Ok(())
}

#[test]
fn hostile_text_stays_text_in_every_panel_and_the_downloaded_svg() {
    story(
        "hostile_text_stays_text_in_every_panel_and_the_downloaded_svg",
        async |h: Harness| {
            let page = h.open(1280, 720).await?;
            page.wait_count("[data-member]", 3).await?;
            let scripts = page
                .execute("return document.querySelectorAll('script').length;", vec![])
                .await?
                .as_u64()
                .unwrap_or(0);
            // The sweep's own check sees a breach when there is one.
            page.execute(
                "const b = document.createElement('b');
                 b.setAttribute('onclick', 'void 0'); b.id = 'planted';
                 document.body.appendChild(b); top.__xss = 0;",
                vec![],
            )
            .await?;
            let planted = breaches(&page, scripts).await?;
            assert_eq!(planted.len(), 2, "{planted:?}");
            page.execute(
                "document.getElementById('planted').remove(); delete top.__xss;",
                vec![],
            )
            .await?;
            assert_eq!(breaches(&page, scripts).await?, Vec::<String>::new());
            page.set_speed(10.0).await?;
            let _leader: Member = page.wait_single_leader().await?;
            feed(&page).await?;
            assert_inert(&page, scripts, "after feeding").await?;
            page.click(r#"[data-action="drawer"]"#).await?;
            assert!(shown_as_text(&page).await?, "the console shows the text");
            page.click(r#"[data-action="drawer"]"#).await?;
            page.pause().await?;
            for tab in [
                "logs",
                "space-time",
                "network",
                "rules",
                "share",
                "keys",
                "kube",
            ] {
                page.open_tab(tab).await?;
                assert_inert(&page, scripts, tab).await?;
                if tab == "keys" {
                    assert!(shown_as_text(&page).await?, "the Keys tab shows the key");
                }
            }
            page.screenshot("hostile-kube-1280x720").await?;
            page.open_tab("space-time").await?;
            let svg = downloaded_svg(&page).await?;
            assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
            assert!(!svg.contains("<script"), "no script element in the SVG");
            assert!(!svg.contains("<img"), "no img element in the SVG");
            open_as_document(&page, &svg).await?;
            assert_inert(&page, scripts, "the downloaded SVG").await?;
            Ok(())
        },
    );
}
