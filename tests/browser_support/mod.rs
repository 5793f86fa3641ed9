//! Harness for the end-to-end browser tests in `tests/browser.rs`.
//!
//! A *story* is one `#[test]` that drives the built app (`dist/`) in headless Chromium:
//!
//! ```ignore
//! #[test]
//! fn my_story() {
//!     story("my_story", async |h: Harness| {
//!         let page = h.open(1280, 720).await?;
//!         page.wait_count("[data-member]", 3).await?;
//!         page.click(r#"[data-action="pause"]"#).await?;
//!         page.screenshot("my-story-1280x720").await?;
//!         Ok(())
//!     });
//! }
//! ```
//!
//! `story` skips (prints `skipped: set RAFTLAB_BROWSER=1`) unless `RAFTLAB_BROWSER=1`. When
//! set, it serves `dist/` on a free loopback port, starts chromedriver on another, runs the
//! body on a single-threaded tokio runtime, and always cleans up: browser sessions are
//! closed, chromedriver is killed, the server stops. A failed story leaves
//! `tests/artifacts/<story>-failed-<W>x<H>.{png,html}` and prints the browser's console log.
//! Stories run one at a time (a process-wide lock): one browser at a time on 2 cores.
//!
//! Every wait polls every 100 ms and gives up after `WAIT` (60 s) with a message that says
//! what was awaited (and, for cluster waits, what the members looked like last).

// A helper library shared by stories: not every story uses every helper.
#![allow(dead_code)]

mod driver;
pub mod raftlab;
mod server;

use std::future::Future;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use fantoccini::error::{CmdError, ErrorStatus};
use fantoccini::key::Key;
use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::Value;

#[allow(unused_imports)] // a story that names no member (browser_bench) still includes it
pub use raftlab::Member;
pub use server::StaticServer;

pub type Error = Box<dyn std::error::Error + Send + Sync>;
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// How long any wait lasts before the story fails.
pub const WAIT: Duration = Duration::from_secs(60);
/// How often waits poll.
pub const POLL: Duration = Duration::from_millis(100);

/// True when browser tests should run (`RAFTLAB_BROWSER=1`; CI sets it).
pub fn enabled() -> bool {
    std::env::var("RAFTLAB_BROWSER").is_ok_and(|v| v == "1")
}

/// The built app Trunk writes: `<crate>/dist`, or `RAFTLAB_DIST` (another build of the page,
/// to measure two builds side by side in one run).
pub fn dist_dir() -> PathBuf {
    std::env::var_os("RAFTLAB_DIST").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("dist"),
        PathBuf::from,
    )
}

/// Where screenshots and logs go: `<crate>/tests/artifacts` (gitignored), created on demand.
pub fn artifacts_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts");
    std::fs::create_dir_all(&dir).expect("create tests/artifacts");
    dir
}

pub fn deadline(timeout: Duration) -> tokio::time::Instant {
    tokio::time::Instant::now() + timeout
}

/// Polls `probe` every 100 ms until it returns `Some`, for at most `WAIT`. An `Err` from the
/// probe ends the wait at once (a lost session will not come back).
pub async fn wait_for<T>(what: &str, probe: impl AsyncFnMut() -> Result<Option<T>>) -> Result<T> {
    wait_for_within(WAIT, what, probe).await
}

pub async fn wait_for_within<T>(
    timeout: Duration,
    what: &str,
    mut probe: impl AsyncFnMut() -> Result<Option<T>>,
) -> Result<T> {
    let end = deadline(timeout);
    loop {
        match probe().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => return Err(format!("while waiting for {what}: {e}").into()),
        }
        if tokio::time::Instant::now() >= end {
            return Err(format!("timed out after {timeout:?} waiting for {what}").into());
        }
        tokio::time::sleep(POLL).await;
    }
}

static ONE_BROWSER_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Runs one story against `dist/`. Panics (fails the test) with a clear message if the
/// story fails, if `dist/index.html` is missing or chromedriver cannot start.
pub fn story<F, Fut>(name: &str, body: F)
where
    F: FnOnce(Harness) -> Fut,
    Fut: Future<Output = Result>,
{
    story_serving(name, &dist_dir(), body)
}

/// `story`, serving another directory (which must hold an `index.html`).
// A story's wall time is printed (never checked), to see where CI's minutes go.
#[allow(clippy::disallowed_methods)]
pub fn story_serving<F, Fut>(name: &str, root: &Path, body: F)
where
    F: FnOnce(Harness) -> Fut,
    Fut: Future<Output = Result>,
{
    if !enabled() {
        println!("{name}: skipped: set RAFTLAB_BROWSER=1");
        return;
    }
    let _one = ONE_BROWSER_AT_A_TIME
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let started = std::time::Instant::now();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let outcome = runtime.block_on(async {
        let harness = Harness::start(name, root).await?;
        let result = CatchUnwind(Box::pin(body(harness.clone()))).await;
        if !matches!(result, Ok(Ok(()))) {
            harness.save_failure_artifacts().await;
        }
        harness.close_all().await;
        drop(harness); // kills chromedriver, stops the server
        match result {
            Ok(r) => r,
            Err(panic) => resume_unwind(panic),
        }
    });
    drop(runtime);
    if let Err(e) = outcome {
        panic!("browser story `{name}` failed: {e}");
    }
    println!("{name}: passed in {:.1} s", started.elapsed().as_secs_f64());
}

/// Polls a future inside `catch_unwind`, so a panicking story still gets its clean-up.
struct CatchUnwind<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchUnwind<F> {
    type Output = std::result::Result<F::Output, Box<dyn std::any::Any + Send>>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// What a story gets: the served app and a chromedriver, from which it opens pages.
#[derive(Clone)]
pub struct Harness(Arc<HarnessInner>);

struct HarnessInner {
    story: String,
    base_url: String,
    // Fields drop in this order: sessions are closed before (close_all), then chromedriver
    // is killed, then the profile directories go, then the server stops.
    driver: driver::ChromeDriver,
    profiles: ProfileDirs,
    server: StaticServer,
    pages: Mutex<Vec<Page>>,
}

struct ProfileDirs(Mutex<Vec<PathBuf>>);

impl Drop for ProfileDirs {
    fn drop(&mut self) {
        for dir in self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
        {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

static PROFILE_COUNTER: AtomicUsize = AtomicUsize::new(0);

impl Harness {
    async fn start(story: &str, root: &Path) -> Result<Harness> {
        let index = root.join("index.html");
        if !index.is_file() {
            return Err(format!(
                "{} is missing: build the app first (`trunk build --release`; `./x test` \
                 does it before the tests)",
                index.display()
            )
            .into());
        }
        let server = StaticServer::start(root)
            .map_err(|e| format!("cannot serve {}: {e}", root.display()))?;
        let log = artifacts_dir().join(format!("{story}-chromedriver.log"));
        let driver = driver::ChromeDriver::start(&log).await?;
        Ok(Harness(Arc::new(HarnessInner {
            story: story.to_string(),
            base_url: server.base_url(),
            driver,
            profiles: ProfileDirs(Mutex::new(Vec::new())),
            server,
            pages: Mutex::new(Vec::new()),
        })))
    }

    /// `http://127.0.0.1:<port>` of the static server.
    pub fn base_url(&self) -> &str {
        &self.0.base_url
    }

    /// A new browser (fresh profile) with a `width`x`height` window, showing the app.
    pub async fn open(&self, width: u32, height: u32) -> Result<Page> {
        self.open_path("/", width, height).await
    }

    /// A new browser with a `width`x`height` window, showing `path` of the served app.
    pub async fn open_path(&self, path: &str, width: u32, height: u32) -> Result<Page> {
        let profile = std::env::temp_dir().join(format!(
            "raftlab-browser-{}-{}",
            std::process::id(),
            PROFILE_COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile)?;
        self.0
            .profiles
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(profile.clone());
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(driver::capabilities(&profile, width, height))
            .connect(&self.0.driver.url())
            .await
            .map_err(|e| format!("cannot start a Chromium session: {e}"))?;
        let page = Page {
            client,
            base_url: self.0.base_url.clone(),
            width,
            height,
        };
        self.0
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(page.clone());
        page.fit_viewport().await?;
        page.goto(path).await?;
        Ok(page)
    }

    fn open_pages(&self) -> Vec<Page> {
        self.0
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    async fn save_failure_artifacts(&self) {
        for page in self.open_pages() {
            let name = format!("{}-failed-{}x{}", self.0.story, page.width, page.height);
            match page.screenshot(&name).await {
                Ok(path) => eprintln!("failure screenshot: {}", path.display()),
                Err(e) => eprintln!("no failure screenshot ({name}): {e}"),
            }
            if let Ok(html) = page.html().await {
                let path = artifacts_dir().join(format!("{name}.html"));
                if std::fs::write(&path, html).is_ok() {
                    eprintln!("failure DOM: {}", path.display());
                }
            }
            match page.browser_log().await {
                Ok(log) if !log.is_empty() => {
                    eprintln!("browser console ({}x{}):", page.width, page.height);
                    for line in log {
                        eprintln!("  {line}");
                    }
                }
                Ok(_) => eprintln!("browser console ({}x{}): empty", page.width, page.height),
                Err(e) => eprintln!("no browser console log: {e}"),
            }
        }
    }

    async fn close_all(&self) {
        let pages: Vec<Page> = self
            .0
            .pages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain(..)
            .collect();
        for page in pages {
            // An already closed session answers with an error: nothing to do then.
            let _ = page.client.close().await;
        }
    }
}

/// One browser session showing the app. Cheap to clone (clones share the session).
#[derive(Clone)]
pub struct Page {
    client: Client,
    base_url: String,
    pub width: u32,
    pub height: u32,
}

impl Page {
    /// The underlying fantoccini client, for anything the helpers lack.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Ends this browser session (its Chromium quits). Stories that open a second page
    /// close the first, so that one browser runs at a time.
    pub async fn close(self) -> Result {
        self.client.close().await?;
        Ok(())
    }

    /// Navigates to `path` of the served app (and waits for the load event).
    pub async fn goto(&self, path: &str) -> Result {
        let url = format!("{}/{}", self.base_url, path.trim_start_matches('/'));
        self.client
            .goto(&url)
            .await
            .map_err(|e| format!("cannot load {url}: {e}"))?;
        Ok(())
    }

    /// Runs `script` as a function body (`arguments[i]` are `args`); its `return` value.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value> {
        Ok(self.client.execute(script, args).await?)
    }

    /// How many elements match `selector` now.
    pub async fn count(&self, selector: &str) -> Result<usize> {
        let n = self
            .execute(
                "return document.querySelectorAll(arguments[0]).length;",
                vec![selector.into()],
            )
            .await?;
        n.as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| format!("count of {selector}: not a number: {n}").into())
    }

    /// Waits until exactly `n` elements match `selector`.
    pub async fn wait_count(&self, selector: &str, n: usize) -> Result {
        let mut seen = None;
        wait_for(&format!("exactly {n} of {selector}"), async || {
            let now = self.count(selector).await?;
            seen = Some(now);
            Ok((now == n).then_some(()))
        })
        .await
        .map_err(|e| format!("{e} (last count: {seen:?})").into())
    }

    /// Waits until at least one element matches `selector`.
    pub async fn wait_exists(&self, selector: &str) -> Result {
        wait_for(&format!("an element {selector}"), async || {
            Ok((self.count(selector).await? > 0).then_some(()))
        })
        .await
    }

    /// Attribute `name` of the first element matching `selector` (an error if none
    /// matches; `None` if it lacks the attribute).
    pub async fn attr(&self, selector: &str, name: &str) -> Result<Option<String>> {
        let v = self
            .execute(
                "const e = document.querySelector(arguments[0]);
                 if (!e) return {missing: true};
                 return {value: e.getAttribute(arguments[1])};",
                vec![selector.into(), name.into()],
            )
            .await?;
        if v.get("missing").is_some() {
            return Err(format!("no element matches {selector}").into());
        }
        Ok(v.get("value").and_then(Value::as_str).map(str::to_string))
    }

    /// Attribute `name` of every element matching `selector`, in document order.
    pub async fn attrs(&self, selector: &str, name: &str) -> Result<Vec<Option<String>>> {
        let v = self
            .execute(
                "return Array.from(document.querySelectorAll(arguments[0]),
                                   e => e.getAttribute(arguments[1]));",
                vec![selector.into(), name.into()],
            )
            .await?;
        Ok(v.as_array()
            .map(|a| a.iter().map(|x| x.as_str().map(str::to_string)).collect())
            .unwrap_or_default())
    }

    /// Waits until the first element matching `selector` has attribute `name` == `value`.
    pub async fn wait_attr(&self, selector: &str, name: &str, value: &str) -> Result {
        let mut seen = None;
        wait_for(&format!("{selector} with {name}=\"{value}\""), async || {
            let now = self.attr(selector, name).await.ok().flatten();
            let ok = now.as_deref() == Some(value);
            seen = now;
            Ok(ok.then_some(()))
        })
        .await
        .map_err(|e| format!("{e} (last value: {seen:?})").into())
    }

    /// The rendered text (`innerText`) of the first element matching `selector`.
    pub async fn text(&self, selector: &str) -> Result<String> {
        let v = self
            .execute(
                "const e = document.querySelector(arguments[0]);
                 return e ? e.innerText : null;",
                vec![selector.into()],
            )
            .await?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no element matches {selector}").into())
    }

    /// Clicks (a real WebDriver click: scrolled into view, hit-tested) the first displayed
    /// element matching `selector`, waiting until there is one that takes the click.
    pub async fn click(&self, selector: &str) -> Result {
        let element = self.wait_displayed(selector).await?;
        let mut last = String::new();
        let mut may_have_landed = match element.click().await {
            Ok(()) => return Ok(()),
            Err(e) => !click_refused(&e),
        };
        // Re-rendered or covered for a moment: find it again and retry until WAIT.
        wait_for(&format!("a click on {selector} to land"), async || {
            let Some(el) = self.displayed(selector).await? else {
                // A loaded machine can time a click's reply out after the page took it; the
                // target then goes away with the view it opened, and the story's next wait
                // checks the outcome.
                if std::mem::take(&mut may_have_landed) {
                    eprintln!("a click on {selector} reported an error, and its target is gone: taken as landed");
                    return Ok(Some(()));
                }
                last = "not displayed".into();
                return Ok(None);
            };
            may_have_landed = false;
            match el.click().await {
                Ok(()) => Ok(Some(())),
                Err(CmdError::Standard(e)) => {
                    last = e.to_string();
                    Ok(None)
                }
                Err(e) => Err(e.into()),
            }
        })
        .await
        .map_err(|e| format!("{e} (last error: {last})").into())
    }

    /// Types `text` into the first displayed element matching `selector` (clicked first to
    /// focus it). A `\n` in `text` presses Enter.
    pub async fn type_text(&self, selector: &str, text: &str) -> Result {
        self.click(selector).await?;
        let element = self.wait_displayed(selector).await?;
        let keys = text.replace('\n', &char::from(Key::Enter).to_string());
        element.send_keys(&keys).await?;
        Ok(())
    }

    /// Presses Enter in the first displayed element matching `selector`.
    pub async fn press_enter(&self, selector: &str) -> Result {
        let element = self.wait_displayed(selector).await?;
        element
            .send_keys(&char::from(Key::Enter).to_string())
            .await?;
        Ok(())
    }

    /// Sets `.value` of the first `<input>`/`<select>` matching `selector` and dispatches
    /// bubbling `input` and `change` events, as a person's edit would. Returns the value
    /// the element holds afterwards (a range input snaps to its step and bounds).
    pub async fn set_value(&self, selector: &str, value: &str) -> Result<String> {
        let v = self
            .execute(
                "const e = document.querySelector(arguments[0]);
                 if (!e) return {missing: true};
                 e.value = arguments[1];
                 e.dispatchEvent(new Event('input', {bubbles: true}));
                 e.dispatchEvent(new Event('change', {bubbles: true}));
                 return {value: e.value};",
                vec![selector.into(), value.into()],
            )
            .await?;
        if v.get("missing").is_some() {
            return Err(format!("no element matches {selector}").into());
        }
        Ok(v.get("value")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string())
    }

    /// Saves a PNG of the viewport as `tests/artifacts/<name>.png`; returns its path.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf> {
        // A scroll or a change just made is painted at the next frame: capture after two (or
        // 200 ms, for a tab that draws no frames).
        let painted = "const done = arguments[arguments.length - 1];
            setTimeout(() => done(false), 200);
            requestAnimationFrame(() => requestAnimationFrame(() => done(true)));";
        self.client.execute_async(painted, vec![]).await?;
        let png = self.client.screenshot().await?;
        let file = if name.ends_with(".png") {
            name.to_string()
        } else {
            format!("{name}.png")
        };
        let path = artifacts_dir().join(file);
        std::fs::write(&path, &png)?;
        match png_size(&png) {
            Some((w, h)) => println!("screenshot {} ({w}x{h})", path.display()),
            None => println!("screenshot {}", path.display()),
        }
        Ok(path)
    }

    /// The page's current DOM as HTML.
    pub async fn html(&self) -> Result<String> {
        let v = self
            .execute("return document.documentElement.outerHTML;", vec![])
            .await?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// `(innerWidth, innerHeight)` of the page.
    pub async fn viewport(&self) -> Result<(u64, u64)> {
        let v = self
            .execute("return [window.innerWidth, window.innerHeight];", vec![])
            .await?;
        match (v[0].as_u64(), v[1].as_u64()) {
            (Some(w), Some(h)) => Ok((w, h)),
            _ => Err(format!("viewport: unexpected {v}").into()),
        }
    }

    /// Headless Chromium's `--window-size` is the outer window, whose viewport is shorter
    /// (by ~140 px here); grows the window until the viewport is `width`x`height`.
    async fn fit_viewport(&self) -> Result {
        let (want_w, want_h) = (u64::from(self.width), u64::from(self.height));
        let mut seen = (0, 0);
        for attempt in 0..4 {
            seen = self.viewport().await?;
            if seen == (want_w, want_h) {
                return Ok(());
            }
            if attempt == 3 {
                break;
            }
            let (outer_w, outer_h) = self.client.get_window_size().await?;
            let w = (outer_w + want_w).saturating_sub(seen.0);
            let h = (outer_h + want_h).saturating_sub(seen.1);
            self.client.set_window_size(w as u32, h as u32).await?;
        }
        Err(format!(
            "cannot make the viewport {want_w}x{want_h}: it stays {}x{}",
            seen.0, seen.1
        )
        .into())
    }

    /// The browser console's messages since the last call (chromedriver hands each out
    /// once), as `LEVEL message` lines. Wasm panics show up here.
    pub async fn browser_log(&self) -> Result<Vec<String>> {
        let v = self.client.issue_cmd(SessionPost::browser_log()).await?;
        Ok(v.as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        format!(
                            "{} {}",
                            e["level"].as_str().unwrap_or("?"),
                            e["message"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The first element matching `selector` that is displayed, if any.
    async fn displayed(&self, selector: &str) -> Result<Option<fantoccini::elements::Element>> {
        for element in self.client.find_all(Locator::Css(selector)).await? {
            match element.is_displayed().await {
                Ok(true) => return Ok(Some(element)),
                Ok(false) | Err(CmdError::Standard(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(None)
    }

    async fn wait_displayed(&self, selector: &str) -> Result<fantoccini::elements::Element> {
        wait_for(&format!("a displayed {selector}"), async || {
            self.displayed(selector).await
        })
        .await
    }
}

/// Whether WebDriver says a click never reached the page (covered, re-rendered, not
/// interactable), as opposed to an error that may come after the page took it.
fn click_refused(e: &CmdError) -> bool {
    match e {
        CmdError::Standard(w) => matches!(
            w.error,
            ErrorStatus::ElementClickIntercepted
                | ErrorStatus::StaleElementReference
                | ErrorStatus::ElementNotInteractable
                | ErrorStatus::NoSuchElement
        ),
        _ => false,
    }
}

/// A POST to one of chromedriver's own (non-W3C) session endpoints: `se/log` for the console
/// log (it needs `goog:loggingPrefs`, set in `driver::capabilities`), `goog/cdp/execute` for
/// a DevTools command.
#[derive(Debug)]
pub struct SessionPost {
    pub path: &'static str,
    pub body: Value,
}

impl SessionPost {
    fn browser_log() -> SessionPost {
        SessionPost {
            path: "se/log",
            body: serde_json::json!({"type": "browser"}),
        }
    }

    /// A DevTools command, e.g. `Emulation.setUserAgentOverride`.
    pub fn cdp(cmd: &str, params: Value) -> SessionPost {
        SessionPost {
            path: "goog/cdp/execute",
            body: serde_json::json!({"cmd": cmd, "params": params}),
        }
    }
}

impl WebDriverCompatibleCommand for SessionPost {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> std::result::Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/{}",
            session_id.unwrap_or_default(),
            self.path
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    if png.len() < 24 || &png[..8] != b"\x89PNG\r\n\x1a\n" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}
