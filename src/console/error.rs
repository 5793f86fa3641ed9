//! Why a console line failed. The real tools (`etcdctl`, `etcdutl`, `kubectl`, the small
//! filters) print their own error texts; this is for the console itself and the simulator's
//! verbs, printed as `Error: <text>` (with `line N: ` in front when a script runs it).

use crate::sim::SimError;
use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum ConsoleError {
    /// The line starts with a word no verb answers to.
    UnknownVerb(String),
    /// A verb's arguments do not fit it: `usage: <text>`.
    Usage(String),
    /// The world refused (no such member, already stopped, no leader, ...).
    Sim(SimError),
    /// A word that should have been a duration; `example` shows the verb's usual form.
    BadDuration {
        text: String,
        example: Option<&'static str>,
    },
    BadProbability(String),
    BadMessageId(String),
    /// A `kube ...` verb that needs the control plane before `kube up`.
    KubeNotUp,
    /// What bash would refuse before running anything (quotes, `|`, `$(`).
    Syntax(String),
    /// A failure particular to one verb, worded by it.
    Failed(String),
}

impl ConsoleError {
    pub fn usage(text: impl Into<String>) -> ConsoleError {
        ConsoleError::Usage(text.into())
    }

    pub fn failed(text: impl Into<String>) -> ConsoleError {
        ConsoleError::Failed(text.into())
    }

    pub fn duration(text: &str, example: &'static str) -> ConsoleError {
        ConsoleError::BadDuration {
            text: text.to_string(),
            example: Some(example),
        }
    }
}

impl fmt::Display for ConsoleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConsoleError::UnknownVerb(verb) => write!(
                f,
                "unknown command {verb:?} (try: {})",
                super::verbs::names().collect::<Vec<_>>().join(", ")
            ),
            ConsoleError::Usage(text) => write!(f, "usage: {text}"),
            ConsoleError::Sim(e) => e.fmt(f),
            ConsoleError::BadDuration {
                text,
                example: Some(example),
            } => write!(f, "bad duration {text:?} (e.g. {example})"),
            ConsoleError::BadDuration {
                text,
                example: None,
            } => write!(f, "bad duration {text:?}"),
            ConsoleError::BadProbability(text) => write!(
                f,
                "bad probability {text:?} (0 to 1, or a percentage like 20%)"
            ),
            ConsoleError::BadMessageId(text) => write!(f, "bad message id {text:?}"),
            ConsoleError::KubeNotUp => f.write_str("kube: the control plane is not up (kube up)"),
            ConsoleError::Syntax(text) | ConsoleError::Failed(text) => f.write_str(text),
        }
    }
}

impl From<SimError> for ConsoleError {
    fn from(e: SimError) -> ConsoleError {
        ConsoleError::Sim(e)
    }
}

/// Errors of the engine's own parsers and checks that already speak the console's language.
impl From<String> for ConsoleError {
    fn from(text: String) -> ConsoleError {
        ConsoleError::Failed(text)
    }
}

impl From<&str> for ConsoleError {
    fn from(text: &str) -> ConsoleError {
        ConsoleError::Failed(text.to_string())
    }
}
