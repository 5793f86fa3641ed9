//! The chromedriver process: started on a free loopback port, killed when dropped (also when
//! a story panics), and the Chromium capabilities every session uses.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use super::{deadline, Result};

pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const DEFAULT_CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The only Chromium flags the tests use, besides a fresh `--user-data-dir` and the
/// window size of each session.
pub const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

pub struct ChromeDriver {
    child: Child,
    port: u16,
    log_path: PathBuf,
}

impl ChromeDriver {
    /// Starts chromedriver (`$CHROMEDRIVER`, else /usr/bin/chromedriver) and waits until
    /// its `/status` says ready. Its output goes to `log_path`.
    pub async fn start(log_path: &Path) -> Result<ChromeDriver> {
        let binary = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| DEFAULT_CHROMEDRIVER.into());
        if !Path::new(&binary).is_file() {
            return Err(format!(
                "chromedriver not found at {binary} (`./x setup` installs Debian's \
                 chromium and chromium-driver)"
            )
            .into());
        }
        if !Path::new(CHROMIUM).is_file() {
            return Err(
                format!("chromium not found at {CHROMIUM} (`./x setup` installs it)").into(),
            );
        }
        let mut last_error = String::new();
        // A port picked free can be taken before chromedriver binds it: try a few.
        for _attempt in 0..3 {
            let port = free_port()?;
            let log = std::fs::File::create(log_path)?;
            let child = Command::new(&binary)
                .arg(format!("--port={port}"))
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log)
                .spawn()
                .map_err(|e| format!("cannot start {binary}: {e}"))?;
            let mut driver = ChromeDriver {
                child,
                port,
                log_path: log_path.to_path_buf(),
            };
            match driver.wait_ready().await {
                Ok(()) => return Ok(driver),
                Err(e) => last_error = e.to_string(),
            }
        }
        Err(format!("chromedriver did not start: {last_error}").into())
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    async fn wait_ready(&mut self) -> Result<()> {
        let end = deadline(Duration::from_secs(20));
        loop {
            if let Some(status) = self.child.try_wait()? {
                return Err(format!(
                    "chromedriver exited with {status}; its log ({}):\n{}",
                    self.log_path.display(),
                    std::fs::read_to_string(&self.log_path).unwrap_or_default()
                )
                .into());
            }
            if let Some(body) = http_get(self.port, "/status") {
                if body.contains("\"ready\":true") {
                    return Ok(());
                }
            }
            if tokio::time::Instant::now() >= end {
                return Err(format!(
                    "chromedriver on port {} not ready after 20 s (log: {})",
                    self.port,
                    self.log_path.display()
                )
                .into());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The capabilities of one browser session: Debian's Chromium with exactly the flags
/// above, a fresh profile directory, a window of `width`x`height`, and the browser's
/// console log kept (see `Page::browser_log`).
pub fn capabilities(profile_dir: &Path, width: u32, height: u32) -> serde_json::Map<String, Value> {
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile_dir.display()));
    args.push(format!("--window-size={width},{height}"));
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": CHROMIUM, "args": args },
        "goog:loggingPrefs": { "browser": "ALL" },
    });
    match caps {
        Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}

fn free_port() -> Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    Ok(listener.local_addr()?.port())
}

/// A plain blocking GET on loopback (only used before a WebDriver session exists).
/// chromedriver keeps the connection open despite `Connection: close`, so the body is
/// read by its `Content-Length`.
fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut response = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).ok()?;
        response.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&response).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end].lines().find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.trim()
                    .eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse::<usize>().ok())?
            });
            if length.is_some_and(|len| response.len() >= end + 4 + len) {
                return Some(text);
            }
        }
        if n == 0 {
            return Some(text);
        }
    }
}
