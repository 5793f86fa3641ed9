//! Issue #14's browser measurements, printed as `bench-row` lines for `./x bench`'s table
//! (benchmarks: nothing about time is asserted). Ignored by a plain `cargo test`; `./x bench`
//! runs them in full (`RAFTLAB_BENCH=full`), `./x bench-quick` (and so `./x test`) at small N.
//!
//! - `engine_wasm_vs_native`: `benches/support/workload.rs` built for wasm32
//!   (`benches/wasm/engine.rs`) and timed in headless Chromium, interleaved with the same code
//!   run natively in this process (built with this test's profile: `--profile bench` in full);
//!   and the memory run (`benches/support/writes.rs`) in wasm: its time and wasm heap.
//! - `page_phases`: the built app (`dist/`) through its data hooks, with CDP
//!   `Performance.getMetrics` over each phase: main-thread busy per second of wall time.
//!
//! Run: `./x bench` (or `RAFTLAB_BROWSER=1 cargo test --test browser_bench -- --ignored
//! --nocapture` after building `dist/` and the wasm module as `./x` does).

mod browser_support;

#[path = "../benches/support/workload.rs"]
#[allow(dead_code)] // the limit is benches/raft.rs's row
mod workload;

use browser_support::raftlab::{PAUSE, PLAY};
use browser_support::{story, story_serving, wait_for_within, Harness, Page, Result, SessionPost};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// Full runs (`./x bench`) or quick ones (CI: small N, about a second per phase).
fn full() -> bool {
    std::env::var("RAFTLAB_BENCH").is_ok_and(|v| v == "full")
}

/// The wasm module `./x` builds (the bench and release profiles both write it there;
/// `RAFTLAB_ENGINE_WASM` names another).
fn engine_wasm() -> PathBuf {
    std::env::var_os("RAFTLAB_ENGINE_WASM").map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("target/wasm32-unknown-unknown/release/examples/engine_wasm.wasm")
        },
        PathBuf::from,
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Runs `samples` times natively; the median wall ms and the messages of one run.
#[allow(clippy::disallowed_methods)] // a benchmark is the one place that reads the real clock
fn native(n: usize, batch: usize, samples: usize) -> (f64, u64) {
    let w = workload::Workload::new(n, batch);
    let mut times = Vec::new();
    let mut messages = 0;
    for _ in 0..samples {
        let start = std::time::Instant::now();
        messages = workload::ours(&w).messages;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    (median(times), messages)
}

/// Loads the module into the page once: every import (wasm-bindgen's, unused by the engine)
/// throws, so a call into the page's glue would show, not pass silently.
const LOAD: &str = "const done = arguments[arguments.length - 1];
    (async () => {
      const bytes = await (await fetch('/engine_wasm.wasm')).arrayBuffer();
      const module = await WebAssembly.compile(bytes);
      const imports = {};
      for (const d of WebAssembly.Module.imports(module))
        (imports[d.module] ??= {})[d.name] = () => { throw new Error('wasm import ' + d.name); };
      window.__engine = (await WebAssembly.instantiate(module, imports)).exports;
      done('ok');
    })().catch(e => done(String(e)));";

/// Times `run_engine` in the page `samples` times: [median ms, messages].
const RUN: &str = "const [n, batch, samples] = arguments; const e = window.__engine;
    e.prepare(n, batch); const times = []; let messages = 0n;
    for (let i = 0; i < samples; i++) {
      const t = performance.now(); messages = e.run_engine(0); times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return [times[Math.floor(times.length / 2)], Number(messages)];";

/// One memory run in the page: [wall ms, puts answered, wasm memory bytes].
const WRITES: &str = "const [members, seconds, perS] = arguments; const e = window.__engine;
    const t = performance.now(); const answered = e.run_writes(members, seconds, perS);
    return [performance.now() - t, Number(answered), e.memory.buffer.byteLength];";

async fn in_page(page: &Page, script: &str, args: Vec<Value>) -> Result<Vec<f64>> {
    let v = page.execute(script, args).await?;
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .ok_or_else(|| format!("unexpected answer from the page: {v}").into())
}

/// A directory holding the module and a blank page to load it from.
fn wasm_root() -> Result<PathBuf> {
    let wasm = engine_wasm();
    if !wasm.is_file() {
        return Err(format!(
            "{} is missing: `./x bench-quick` builds it (cargo build --release --target \
             wasm32-unknown-unknown --example engine_wasm)",
            wasm.display()
        )
        .into());
    }
    let root = std::env::temp_dir().join(format!("raftlab-wasm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&root)?;
    std::fs::copy(&wasm, root.join("engine_wasm.wasm"))?;
    std::fs::write(
        root.join("index.html"),
        "<!doctype html><title>engine bench</title>",
    )?;
    Ok(root)
}

/// The engine bench in wasm beside native, B = 1/16/256, and the memory run in wasm.
#[test]
#[ignore = "a benchmark: ./x bench and ./x bench-quick run it"]
fn engine_wasm_vs_native() {
    let root = match wasm_root() {
        Ok(root) => root,
        Err(e) => panic!("{e}"),
    };
    story_serving("engine_wasm_vs_native", &root, async |h: Harness| {
        let page = h.open(1280, 720).await?;
        let hour = Some(Duration::from_secs(3_600));
        page.client()
            .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(hour, hour, None))
            .await?;
        let loaded = page.client().execute_async(LOAD, vec![]).await?;
        if loaded != json!("ok") {
            return Err(format!("the wasm module did not load: {loaded}").into());
        }
        let n = std::env::var("RAFTLAB_BENCH_N")
            .ok()
            .and_then(|v| v.parse().ok());
        let (n, samples) = if full() {
            (n.unwrap_or(100_000), 5)
        } else {
            (1_000, 1)
        };
        for batch in [1, 16, 256] {
            let (native_ms, native_msgs) = native(n, batch, samples);
            let wasm = in_page(&page, RUN, vec![n.into(), batch.into(), samples.into()]).await?;
            assert_eq!(
                wasm[1] as u64, native_msgs,
                "the same run in wasm and natively"
            );
            let per_s = |ms: f64| n as f64 / ms * 1000.0;
            println!(
                "bench-row wasm engine B={batch}: wasm {:.0}/s, native {:.0}/s, wasm at {:.2}x \
                 of native (N={n}, median of {samples}{})",
                per_s(wasm[0]),
                per_s(native_ms),
                native_ms / wasm[0],
                if cfg!(debug_assertions) {
                    ", debug"
                } else {
                    ""
                }
            );
        }
        writes_rows(&page).await
    });
    let _ = std::fs::remove_dir_all(root);
}

/// The memory run (3 members, 100 writes/s) and the fast-forward workload (5 members, 10
/// writes/s) in wasm: virtual time, wall time, answered puts, wasm memory.
async fn writes_rows(page: &Page) -> Result {
    let seconds: u64 = std::env::var("RAFTLAB_BENCH_WRITES_S")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if full() { 3_600 } else { 20 });
    for (members, per_s, what) in [(5, 10, "fast-forward"), (3, 100, "memory")] {
        // A fresh module per run: wasm memory never shrinks, so its size is this run's peak.
        page.goto("/").await?;
        let loaded = page.client().execute_async(LOAD, vec![]).await?;
        if loaded != json!("ok") {
            return Err(format!("the wasm module did not load: {loaded}").into());
        }
        let r = in_page(
            page,
            WRITES,
            vec![members.into(), seconds.into(), per_s.into()],
        )
        .await?;
        assert_eq!(r[1] as u64, seconds * per_s, "every put answered");
        println!(
            "bench-row wasm {what}: {seconds} virtual s, {members} members, {per_s} writes/s \
             (engine and console, no UI): {:.0} ms wall ({:.0}x real time), wasm heap {:.1} MB",
            r[0],
            seconds as f64 * 1000.0 / r[0],
            r[2] / 1e6
        );
    }
    Ok(())
}

/// CDP `Performance.getMetrics` of the current tab, by name.
async fn metrics(page: &Page) -> Result<Metrics> {
    let v = page
        .client()
        .issue_cmd(SessionPost::cdp("Performance.getMetrics", json!({})))
        .await?;
    let get = |name: &str| {
        v["metrics"]
            .as_array()
            .and_then(|ms| ms.iter().find(|m| m["name"] == name))
            .and_then(|m| m["value"].as_f64())
            .ok_or_else(|| format!("no {name} in {v}"))
    };
    Ok(Metrics {
        task_s: get("TaskDuration")?,
        thread_s: get("ThreadTime")?,
        script_s: get("ScriptDuration")?,
        layout_s: get("LayoutDuration")? + get("RecalcStyleDuration")?,
        at_s: get("Timestamp")?,
        heap: get("JSHeapUsedSize")?,
    })
}

#[derive(Clone, Copy)]
struct Metrics {
    /// Main-thread tasks' wall time (what the issue's figures are): inflated when the
    /// machine is loaded, since a descheduled task still counts.
    task_s: f64,
    /// The main thread's CPU time: what a loaded machine does not inflate.
    thread_s: f64,
    script_s: f64,
    /// Style and layout: with script, what a frame's work is made of (paint is the rest).
    layout_s: f64,
    at_s: f64,
    heap: f64,
}

impl Metrics {
    /// Per second of wall time since `before`: main-thread tasks, main-thread CPU and script,
    /// in ms/s.
    fn busy_since(&self, before: &Metrics) -> Busy {
        let wall = (self.at_s - before.at_s).max(1e-9);
        let per_s = |a: f64, b: f64| (a - b) / wall * 1000.0;
        Busy {
            task: per_s(self.task_s, before.task_s),
            cpu: per_s(self.thread_s, before.thread_s),
            script: per_s(self.script_s, before.script_s),
            layout: per_s(self.layout_s, before.layout_s),
        }
    }
}

struct Busy {
    task: f64,
    cpu: f64,
    script: f64,
    layout: f64,
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "main thread busy {:.1} ms/s (CPU {:.1} ms/s, script {:.1} ms/s, style and layout \
             {:.1} ms/s)",
            self.task, self.cpu, self.script, self.layout
        )
    }
}

async fn enable_metrics(page: &Page) -> Result {
    page.client()
        .issue_cmd(SessionPost::cdp("Performance.enable", json!({})))
        .await?;
    Ok(())
}

/// Seconds each steady phase is measured.
fn phase_seconds() -> f64 {
    if full() {
        10.0
    } else {
        1.0
    }
}

/// Measures the page over one steady phase and prints its row.
async fn phase(page: &Page, name: &str) -> Result {
    let before = metrics(page).await?;
    tokio::time::sleep(Duration::from_secs_f64(phase_seconds())).await;
    let after = metrics(page).await?;
    let busy = after.busy_since(&before);
    println!(
        "bench-row page {name}: {busy}, JS heap {:.1} MB, over {:.0} s",
        after.heap / 1e6,
        after.at_s - before.at_s
    );
    Ok(())
}

/// Records, from the document's start, when the first member is in the DOM and the frame
/// after it (ms since navigation start).
const FIRST_MEMBER: &str = "new MutationObserver((_, o) => {
      if (!document.querySelector('[data-member]')) return;
      o.disconnect(); window.__firstMemberDom = performance.now();
      requestAnimationFrame(() => { window.__firstMemberFrame = performance.now(); });
    }).observe(document, {subtree: true, childList: true});";

/// Opens the app on a cold cache and reports when its first member was drawn.
async fn first_member(h: &Harness) -> Result<Page> {
    // A page of the server that is not the app, so the app's first load is cold.
    let page = h.open_path("/no-such-page", 1280, 720).await?;
    page.client()
        .issue_cmd(SessionPost::cdp(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": FIRST_MEMBER}),
        ))
        .await?;
    page.goto("/").await?;
    page.wait_count("[data-member]", 3).await?;
    let at = wait_for_within(
        Duration::from_secs(60),
        "the first member's frame",
        async || {
            let v = page
                .execute(
                    "return [window.__firstMemberDom, window.__firstMemberFrame];",
                    vec![],
                )
                .await?;
            Ok(v[1]
                .as_f64()
                .map(|frame| (v[0].as_f64().unwrap_or(frame), frame)))
        },
    )
    .await?;
    println!(
        "bench-row page first member drawn: {:.0} ms after navigation (in the DOM at {:.0} ms; \
         cold cache, 1280x720)",
        at.1, at.0
    );
    Ok(page)
}

async fn set_members(page: &Page, members: usize) -> Result {
    page.set_value(r#"[data-control="members"]"#, &members.to_string())
        .await?;
    page.wait_count("[data-member]", members).await?;
    page.wait_single_leader().await?;
    Ok(())
}

/// The steady phases: 5 members at the default speed, 11 at 10× (with frame work), paused.
async fn steady_phases(page: &Page) -> Result {
    set_members(page, 5).await?;
    playing_phase(page, "5 members, default speed").await?;
    set_members(page, 11).await?;
    page.set_speed(10.0).await?;
    playing_phase(page, "11 members at 10x").await?;
    page.pause().await?;
    // The frames still drawing the last moments of 10x are that phase's, not a paused page's.
    tokio::time::sleep(Duration::from_secs(1)).await;
    phase(page, "paused (11 members)").await?;
    // Some seconds after a page goes quiet, V8 collects garbage to give memory back (~80 ms
    // once, in the phase above or not): what a paused page spends once that is done.
    phase(page, "paused, the next seconds").await?;
    page.click(PLAY).await?;
    page.wait_exists(PAUSE).await?;
    Ok(())
}

/// A phase of the page playing: its main thread per second, then (over as many seconds more)
/// its frames. Not at once: the probe's own `requestAnimationFrame` makes the browser draw a
/// frame at every vsync, which a page that sleeps between changes would not have asked for.
async fn playing_phase(page: &Page, name: &str) -> Result {
    let busy = phase_on(page).await?;
    let f = page.frame_times(phase_seconds()).await?;
    println!(
        "bench-row page {name}: {busy}; frame work p50 {:.1} ms, p95 {:.1} ms; \
         frame interval p95 {:.1} ms ({} frames)",
        f.busy_p50, f.busy_p95, f.interval_p95, f.frames
    );
    Ok(())
}

/// The app's tab hidden behind an about:blank tab (11 members at 10×, playing), read while it
/// is hidden; then that about:blank tab over as many seconds.
async fn hidden_phase(page: &Page) -> Result {
    let client = page.client();
    let app = client.window().await?;
    // Opened from the app's own DevTools session, the tab comes to the front while WebDriver
    // stays on the app, whose metrics can then be read while it is hidden: the switch out
    // (the run saved on leaving) and back (a frame catching up) are not the hidden tab's.
    client
        .issue_cmd(SessionPost::cdp(
            "Target.createTarget",
            json!({"url": "about:blank"}),
        ))
        .await?;
    wait_for_within(
        Duration::from_secs(10),
        "the app's tab hidden",
        async || {
            let v = page
                .execute("return document.visibilityState;", vec![])
                .await?;
            Ok((v == json!("hidden")).then_some(()))
        },
    )
    .await?;
    // Leaving's own work (the run saved as the tab hides) is done first.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let busy = phase_on(page).await?;
    let still = page
        .execute("return document.visibilityState;", vec![])
        .await?;
    if still != json!("hidden") {
        return Err(format!("the app's tab showed again while measured: {still}").into());
    }
    let blank = client
        .windows()
        .await?
        .into_iter()
        .find(|w| *w != app)
        .ok_or("the about:blank tab is not among the windows")?;
    client.switch_to_window(blank).await?;
    enable_metrics(page).await?;
    let blank_busy = phase_on(page).await?;
    client.close_window().await?;
    client.switch_to_window(app).await?;
    println!(
        "bench-row page hidden tab (11 members at 10x): {busy}; about:blank over as many \
         seconds: {blank_busy}"
    );
    Ok(())
}

async fn phase_on(page: &Page) -> Result<Busy> {
    let before = metrics(page).await?;
    tokio::time::sleep(Duration::from_secs_f64(phase_seconds())).await;
    Ok(metrics(page).await?.busy_since(&before))
}

/// Records when the page's clock first shows `target` virtual ms or more.
const CLOCK_REACHES: &str = "const target = arguments[0]; window.__reached = null;
    window.__ffStart = performance.now();
    const check = () => {
      const e = document.querySelector('[data-sim-time]');
      if (window.__reached === null && e && Number(e.getAttribute('data-sim-time')) >= target)
        window.__reached = performance.now();
    };
    if (window.__ffObserver) window.__ffObserver.disconnect();
    window.__ffObserver = new MutationObserver(check);
    window.__ffObserver.observe(document.body,
        {subtree: true, attributes: true, attributeFilter: ['data-sim-time']});";

/// The fast-forward control: 5 members, paused, "skip ahead" 1 h (1 min quick) three times,
/// each timed in the page from the click to the clock showing it; the first with its
/// main-thread time and the wasm heap after it. A page's first skip runs code V8 has not
/// compiled or tiered up yet (with `--no-wasm-lazy-compilation --no-wasm-dynamic-tiering`
/// it takes as long as the later ones), so the later ones are what a class sees after.
async fn fast_forward_phase(page: &Page) -> Result {
    let (skip_s, label) = if full() {
        (3_600, "1 h")
    } else {
        (60, "1 min")
    };
    set_members(page, 5).await?;
    page.pause().await?;
    let before = metrics(page).await?;
    let first = skip_ahead(page, skip_s).await?;
    let after = metrics(page).await?;
    let wasm = page
        .execute("return window.raftlabMemory.buffer.byteLength;", vec![])
        .await?;
    let (second, third) = (
        skip_ahead(page, skip_s).await?,
        skip_ahead(page, skip_s).await?,
    );
    println!(
        "bench-row page fast-forward {label} (5 members, idle): {first:.0} ms wall from the click \
         ({:.0}x real time), main thread {:.0} ms (CPU {:.0} ms); wasm heap then {:.1} MB; \
         the same page's next skips {second:.0} and {third:.0} ms",
        skip_s as f64 * 1000.0 / first,
        (after.task_s - before.task_s) * 1000.0,
        (after.thread_s - before.thread_s) * 1000.0,
        wasm.as_f64().unwrap_or(0.0) / 1e6
    );
    Ok(())
}

/// One "skip ahead": real ms from the click to the clock showing `skip_s` more.
async fn skip_ahead(page: &Page, skip_s: u64) -> Result<f64> {
    let start = page.sim_time().await?.unwrap_or(0);
    page.execute(CLOCK_REACHES, vec![(start + skip_s * 1000).into()])
        .await?;
    page.click(r#"[data-action="fast-forward"]"#).await?;
    page.click(&format!(r#"[data-skip-ahead="{skip_s}"]"#))
        .await?;
    wait_for_within(Duration::from_secs(600), "the skip to end", async || {
        let v = page
            .execute(
                "return window.__reached === null ? null : window.__reached - window.__ffStart;",
                vec![],
            )
            .await?;
        Ok(v.as_f64())
    })
    .await
}

/// The page's phases, each through CDP `Performance.getMetrics`.
#[test]
#[ignore = "a benchmark: ./x bench and ./x bench-quick run it"]
fn page_phases() {
    story("page_phases", async |h: Harness| {
        let page = first_member(&h).await?;
        enable_metrics(&page).await?;
        steady_phases(&page).await?;
        hidden_phase(&page).await?;
        // Last: its `wait` enters the run's history, after which a member count asks first.
        fast_forward_phase(&page).await?;
        page.screenshot("bench-page-phases-1280x720").await?;
        Ok(())
    });
}
