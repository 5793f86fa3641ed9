//! Command lines, typed in the browser console or read from scripts. A [`Session`] holds the
//! world and what was done to it; its [`timeline`] travels back in time; the [`shell`] splits,
//! expands and pipes a line; the [`verbs`] table names every command a line can start with
//! (the real tools `etcdctl`, `etcdutl`, `kubectl`, and the simulator's own verbs). Every
//! command answers with stdout, stderr and an exit code, as a real process would.

pub mod error;
pub mod etcdctl;
pub mod goal;
pub mod kubectl;
pub mod script;
mod session;
mod shell;
mod timeline;
pub mod trace_file;
pub mod transcript;
pub mod verbs;

pub use error::ConsoleError;
pub use goal::{Baseline, Goal};
pub use script::{run_script, RunOutput};
pub use session::{HistoryEntry, Session};
pub use transcript::{Transcript, TranscriptEntry};

use crate::base::Millis;

/// What a command printed and how it exited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output {
            stdout,
            stderr: String::new(),
            code: 0,
        }
    }

    fn error(message: impl std::fmt::Display) -> Output {
        Output {
            stdout: String::new(),
            stderr: format!("Error: {message}\n"),
            code: 1,
        }
    }
}

/// How long `wait leader` waits before giving up (virtual time).
pub const WAIT_LEADER_LIMIT_MS: Millis = 60_000;
/// The longest `wait`: past an hour and a bit (the API server's event TTL plus its lease's
/// slack), a wait is a typo, and it would hold the page for as long as it runs.
pub const WAIT_LIMIT_MS: Millis = 2 * 3_600_000;

#[cfg(test)]
mod tests;
