//! Helpers for Raft Lab's page contract (the data hooks the UI promises):
//! - each cluster member: `data-member="m1"`, `data-state="leader|follower|candidate|
//!   pre-candidate|stopped"`, `data-term="N"`, with `[data-action="kill"]` (while running)
//!   and `[data-action="restart"]` (while stopped) inside;
//! - global `[data-action="play"]` / `[data-action="pause"]` (one shown at a time) and
//!   `[data-action="step"]`;
//! - `<input type="range" data-control="speed">`, value = log10 of the speed multiplier;
//! - `[data-sim-time="<virtual ms>"]`, the virtual clock;
//! - `[data-console="etcdctl"]` input and `[data-console-output]`.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use super::{wait_for, wait_for_within, Page, Result};

pub const MEMBERS: &str = "[data-member]";
pub const SPEED: &str = r#"[data-control="speed"]"#;
pub const SIM_TIME: &str = "[data-sim-time]";
pub const PLAY: &str = r#"[data-action="play"]"#;
pub const PAUSE: &str = r#"[data-action="pause"]"#;
pub const STEP: &str = r#"[data-action="step"]"#;

/// One cluster member as the page shows it at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub state: String,
    pub term: Option<u64>,
}

impl Member {
    pub fn is_leader(&self) -> bool {
        self.state == "leader"
    }
    pub fn is_stopped(&self) -> bool {
        self.state == "stopped"
    }
}

impl fmt::Display for Member {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.term {
            Some(t) => write!(f, "{} {} term {t}", self.name, self.state),
            None => write!(f, "{} {} (no term)", self.name, self.state),
        }
    }
}

/// `m1 leader term 2, m2 follower term 2, ...`
pub fn describe(members: &[Member]) -> String {
    if members.is_empty() {
        return "no members".into();
    }
    members
        .iter()
        .map(Member::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The selector of a button `data-action="<action>"` inside member `name`.
pub fn member_action(name: &str, action: &str) -> String {
    format!(r#"[data-member="{name}"] [data-action="{action}"]"#)
}

impl Page {
    /// Every member, in document order, read in one consistent snapshot.
    pub async fn members(&self) -> Result<Vec<Member>> {
        let v = self
            .execute(
                "return Array.from(document.querySelectorAll('[data-member]'), e => ({
                   name: e.getAttribute('data-member'),
                   state: e.getAttribute('data-state'),
                   term: e.getAttribute('data-term'),
                 }));",
                vec![],
            )
            .await?;
        let text = |m: &Value, k: &str| m[k].as_str().unwrap_or("").to_string();
        Ok(v.as_array()
            .map(|a| {
                a.iter()
                    .map(|m| Member {
                        name: text(m, "name"),
                        state: text(m, "state"),
                        term: m["term"].as_str().and_then(|t| t.trim().parse().ok()),
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Member `name` now (an error if the page has no such member).
    pub async fn member(&self, name: &str) -> Result<Member> {
        self.members()
            .await?
            .into_iter()
            .find(|m| m.name == name)
            .ok_or_else(|| format!("no member {name} on the page").into())
    }

    /// Polls the members until `pred` returns `Some`; on timeout the error shows the
    /// members as last seen.
    pub async fn wait_members<T>(
        &self,
        what: &str,
        mut pred: impl FnMut(&[Member]) -> Option<T>,
    ) -> Result<T> {
        let mut last = Vec::new();
        wait_for(what, async || {
            let members = self.members().await?;
            let found = pred(&members);
            last = members;
            Ok(found)
        })
        .await
        .map_err(|e| format!("{e}; members last seen: {}", describe(&last)).into())
    }

    /// Waits until exactly one member is leader; returns it.
    pub async fn wait_single_leader(&self) -> Result<Member> {
        self.wait_members("exactly one leader", |ms| {
            let leaders: Vec<&Member> = ms.iter().filter(|m| m.is_leader()).collect();
            (leaders.len() == 1).then(|| leaders[0].clone())
        })
        .await
    }

    /// Waits until member `name` has `data-state="<state>"`.
    pub async fn wait_member_state(&self, name: &str, state: &str) -> Result<Member> {
        self.wait_members(&format!("{name} to be {state}"), |ms| {
            ms.iter()
                .find(|m| m.name == name && m.state == state)
                .cloned()
        })
        .await
    }

    /// Clicks `[data-action="<action>"]` inside member `name`.
    pub async fn member_click(&self, name: &str, action: &str) -> Result {
        self.click(&member_action(name, action)).await
    }

    /// Sets the speed control to `multiplier` (1 = real time, 10 = ten times faster):
    /// the range input holds log10 of it. Returns the multiplier the control settled on.
    pub async fn set_speed(&self, multiplier: f64) -> Result<f64> {
        if !(multiplier > 0.0 && multiplier.is_finite()) {
            return Err(format!("speed must be a positive number, not {multiplier}").into());
        }
        self.wait_exists(SPEED).await?;
        let log = multiplier.log10();
        let value = if (log - log.round()).abs() < 1e-9 {
            format!("{}", log.round() as i64)
        } else {
            format!("{log}")
        };
        let held = self.set_value(SPEED, &value).await?;
        let held: f64 = held
            .parse()
            .map_err(|_| format!("speed control holds {held:?}, not a number"))?;
        Ok(10f64.powf(held))
    }

    /// The virtual clock (`data-sim-time`, in virtual ms), if the page shows one.
    pub async fn sim_time(&self) -> Result<Option<u64>> {
        let v = self.attrs(SIM_TIME, "data-sim-time").await?;
        Ok(v.into_iter()
            .flatten()
            .next()
            .and_then(|t| t.trim().parse().ok()))
    }

    /// Waits until the virtual clock shows at least `ms`.
    pub async fn wait_sim_time(&self, ms: u64) -> Result<u64> {
        wait_for(&format!("virtual time to reach {ms} ms"), async || {
            Ok(self.sim_time().await?.filter(|t| *t >= ms))
        })
        .await
    }

    /// Types `command` into the etcdctl console and presses Enter.
    pub async fn etcdctl(&self, command: &str) -> Result {
        self.type_text(r#"[data-console="etcdctl"]"#, &format!("{command}\n"))
            .await
    }

    /// The console output's text now.
    pub async fn console_output(&self) -> Result<String> {
        self.text("[data-console-output]").await
    }

    /// Waits until the console output contains `needle`; returns the whole output.
    pub async fn wait_console_output(&self, needle: &str) -> Result<String> {
        let mut last = String::new();
        wait_for(
            &format!("console output containing {needle:?}"),
            async || {
                let out = self.console_output().await.unwrap_or_default();
                let found = out.contains(needle).then(|| out.clone());
                last = out;
                Ok(found)
            },
        )
        .await
        .map_err(|e| format!("{e}; output last seen: {last:?}").into())
    }
}

pub const TIME: &str = r#"[data-control="time"]"#;
pub const CONSOLE: &str = r#"[data-console="etcdctl"]"#;
pub const NOTICE: &str = "[data-notice]";

impl Page {
    /// Opens the side panel tab `name` (`logs`, `space-time`, `network`, `rules`, `share`).
    pub async fn open_tab(&self, name: &str) -> Result {
        let tab = format!(r#"[data-tab="{name}"]"#);
        self.click(&tab).await?;
        // A loaded machine once lost such a click with no error (the panels above the tabs
        // moved under the pointer): one more click, after a while, then the usual wait. A
        // page that ignores tab clicks still fails here.
        let selected = wait_for_within(Duration::from_secs(5), "the tab", async || {
            Ok((self.attr(&tab, "aria-selected").await? == Some("true".into())).then_some(()))
        })
        .await;
        if selected.is_err() {
            eprintln!("a click on {tab} did not select it within 5 s: clicking again");
            self.click(&tab).await?;
        }
        self.wait_attr(&tab, "aria-selected", "true").await
    }

    /// Three members at 10× with a leader, then the Kubernetes tab's "kube up" button, until
    /// the control plane is up.
    pub async fn kube_up(&self) -> Result {
        self.wait_count("[data-member]", 3).await?;
        self.set_speed(10.0).await?;
        self.wait_single_leader().await?;
        self.open_tab("kube").await?;
        self.click(r#"[data-action="kube-up"]"#).await?;
        self.wait_exists(r#"[data-kube="up"]"#).await
    }

    /// Pauses the simulation (if playing) and waits until the play button shows.
    pub async fn pause(&self) -> Result {
        if self.count(PAUSE).await? > 0 {
            self.click(PAUSE).await?;
        }
        self.wait_exists(PLAY).await
    }

    /// Moves the time slider to `ms` (as a person's drag ending there would).
    pub async fn scrub_to(&self, ms: u64) -> Result {
        self.set_value(TIME, &ms.to_string()).await?;
        Ok(())
    }

    /// Types `line` into the console (the same box `etcdctl` uses) and presses Enter, then
    /// waits until the transcript shows it.
    pub async fn console(&self, line: &str) -> Result<String> {
        self.type_text(CONSOLE, &format!("{line}\n")).await?;
        self.wait_console_output(&format!("$ {line}")).await
    }

    /// The share link the Share tab shows.
    pub async fn share_url(&self) -> Result<String> {
        self.open_tab("share").await?;
        self.wait_exists("[data-share-url]").await?;
        let v = self
            .execute(
                "return document.querySelector('[data-share-url]').value;",
                vec![],
            )
            .await?;
        v.as_str()
            .map(str::to_string)
            .ok_or_else(|| "the share link field has no value".into())
    }

    /// Pastes `text` into the console (a clipboard paste event, as a browser sends one).
    pub async fn paste(&self, text: &str) -> Result {
        self.click(CONSOLE).await?;
        self.execute(
            "const input = document.querySelector(arguments[0]);
             const data = new DataTransfer();
             data.setData('text', arguments[1]);
             input.dispatchEvent(new ClipboardEvent('paste',
                 {clipboardData: data, bubbles: true, cancelable: true}));",
            vec![CONSOLE.into(), text.into()],
        )
        .await?;
        Ok(())
    }

    /// Makes the page die as a wasm trap does. The trap is raised by a script of the page's
    /// own origin (as the wasm module is; an error from WebDriver's script would reach the
    /// page muted, as "Script error.").
    pub async fn trap_wasm(&self) -> Result {
        self.execute(
            "const s = document.createElement('script');
             s.textContent = 'setTimeout(() => { throw new WebAssembly.RuntimeError(\"unreachable\"); });';
             document.head.appendChild(s);",
            vec![],
        )
        .await?;
        Ok(())
    }

    /// The text of the notice bar, if one is shown.
    pub async fn notice(&self) -> Result<Option<String>> {
        if self.count(NOTICE).await? == 0 {
            return Ok(None);
        }
        Ok(Some(self.text(NOTICE).await?))
    }

    /// Frame timing over `seconds` of wall time, measured in the page with
    /// `requestAnimationFrame` timestamps: the interval between frames, and the time already
    /// spent in the frame when a later rAF callback runs (the page's own callback, which runs
    /// the simulation and renders, was registered first). Each as (p50, p95) in ms, and the
    /// number of frames.
    pub async fn frame_times(&self, seconds: f64) -> Result<FrameTimes> {
        let v = self
            .client()
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const until = performance.now() + arguments[0] * 1000;
                 const stamps = [], busy = [];
                 function frame(t) {
                   stamps.push(t);
                   busy.push(performance.now() - t);
                   if (t < until) { requestAnimationFrame(frame); return; }
                   const d = [];
                   for (let i = 1; i < stamps.length; i++) d.push(stamps[i] - stamps[i - 1]);
                   const q = (xs, p) => { const s = xs.slice().sort((a, b) => a - b);
                                          return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
                   done([q(d, 0.5), q(d, 0.95), q(busy, 0.5), q(busy, 0.95), d.length]);
                 }
                 requestAnimationFrame(frame);",
                vec![seconds.into()],
            )
            .await?;
        let f = |i: usize| {
            v[i].as_f64()
                .ok_or_else(|| format!("frame times: unexpected {v}"))
        };
        Ok(FrameTimes {
            interval_p50: f(0)?,
            interval_p95: f(1)?,
            busy_p50: f(2)?,
            busy_p95: f(3)?,
            frames: f(4)? as usize,
        })
    }
}

/// What `Page::frame_times` measured (milliseconds).
#[derive(Clone, Copy, Debug)]
pub struct FrameTimes {
    pub interval_p50: f64,
    pub interval_p95: f64,
    pub busy_p50: f64,
    pub busy_p95: f64,
    pub frames: usize,
}
