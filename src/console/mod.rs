//! Command lines, typed in the browser console or read from scripts. A [`Session`] holds the
//! world and what was done to it; its [`timeline`] travels back in time; the [`shell`] splits,
//! expands and pipes a line; the [`verbs`] table names every command a line can start with
//! (the real tools `etcdctl`, `etcdutl`, `kubectl`, and the simulator's own verbs). Every
//! command answers with stdout, stderr and an exit code, as a real process would.

pub mod complete;
pub mod error;
pub mod etcdctl;
pub mod goal;
mod history;
pub mod kubectl;
mod later;
pub mod script;
mod session;
mod shell;
mod timeline;
pub mod trace_file;
pub mod transcript;
pub mod verbs;

pub use error::ConsoleError;
pub use goal::{Baseline, Goal};
pub use history::{History, HistoryEntry};
pub use script::{run_script, RunOutput};
pub use session::{Running, Session};
pub use timeline::CHECKPOINT_WIRE_MS;
pub use transcript::{Transcript, TranscriptEntry};

use crate::base::Millis;

/// What a command printed and how it exited.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
    /// What the page shows beside the output. Never part of stdout or stderr: those stay
    /// the real tool's, byte for byte, and `raftlab run` prints only them.
    pub aside: Option<Aside>,
}

/// The page's own word after a command, apart from what the command printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Aside {
    /// Why the request failed, where the error cannot say (a "Raft Lab:" line).
    Hint(Hint),
    /// `clear`: the page empties its console.
    ClearScreen,
}

/// What a student cannot see from a failed request's error alone. Language-free: the page
/// words it (`ui::i18n::console_hint`). Serializable: the page keeps its console, hints
/// and all, across a reload.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Hint {
    /// No member listens at the endpoint (a typo, a port no member has).
    NoSuchEndpoint { endpoint: String },
    /// `https://`: the members serve plain http, so the TLS handshake never succeeds.
    NoTls { endpoint: String },
    /// `http://` (or no scheme without TLS flags) to a member that serves only TLS.
    NeedsTls { endpoint: String },
    /// `--cacert` (or its absence) trusts no CA that signed the member's certificate.
    UnknownCa { endpoint: String },
    /// The member asks for a client certificate its CA signed (`--client-cert-auth`).
    NoClientCert { endpoint: String },
    /// The endpoint's member is stopped or paused; `up` are the members that accept
    /// connections.
    EndpointDown { member: String, up: Vec<String> },
    /// Too few voters reach each other for anything to commit, whichever member answers.
    NoQuorum { reachable: usize, quorum: usize },
    /// The member runs, but is cut off from the majority that can commit.
    CutOff { member: String },
    /// A quorum can form but has no leader yet: an election is under way.
    Electing,
    /// kubectl before `kube up`: no API server listens yet.
    KubeNotUp,
}

impl Output {
    fn ok(stdout: String) -> Output {
        Output {
            stdout,
            ..Output::default()
        }
    }

    fn error(message: impl std::fmt::Display) -> Output {
        Output {
            stderr: format!("Error: {message}\n"),
            code: 1,
            ..Output::default()
        }
    }
}

/// How long `wait leader` and `wait until` wait before giving up (virtual time).
pub const WAIT_LEADER_LIMIT_MS: Millis = 60_000;
/// The longest `wait`: past an hour and a bit (the API server's event TTL plus its lease's
/// slack), a wait is a typo, and it would hold the page for as long as it runs.
pub const WAIT_LIMIT_MS: Millis = 2 * 3_600_000;

/// The error for a wait past [`WAIT_LIMIT_MS`] (`wait 5h`, `timeout 99999 etcdctl watch`,
/// `--command-timeout=1000000h`): it would hold the page for as long as it runs.
fn longer_than_the_longest_wait(what: &str) -> String {
    too_long_to_wait(what, "wait again to go on")
}

/// [`longer_than_the_longest_wait`] where waiting again is not the way on: `remedy` is.
fn too_long_to_wait(what: &str, remedy: &str) -> String {
    format!(
        "{what}: longer than the longest wait, {}h ({remedy})",
        WAIT_LIMIT_MS / 3_600_000
    )
}

#[cfg(test)]
mod tests;
