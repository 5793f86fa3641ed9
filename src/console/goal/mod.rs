//! Goals: one-line predicates over the engine's views, the same text as an `expect` line of a
//! script and a lesson step's `goal:`.
//!
//! ```text
//! GOAL    := PRED [and PRED]...
//! PRED    := OPERAND OP OPERAND | OPERAND exists | OPERAND absent | ever PRED
//! OP      := == != > >= < <= contains starts
//! OPERAND := number | "quoted string" | 'quoted string' | bare-word | QUERY | start.QUERY
//! ```
//! A bare word that names no query is a value (`m2`, `Running`); one that looks like a query
//! (a `.` or `(`) but is none is an error, and so is a predicate with no query at all, so a
//! misspelt query never passes quietly. `ever` takes one predicate: `ever A and B` is
//! `(ever A) and B`. The queries are [`Query`]'s variants; `start.QUERY` reads the
//! [`Baseline`] instead of the world now.
//!
//! Values are numbers, texts or absent. `==`/`!=` compare numbers as numbers (a text that is
//! a whole number counts as one: `last.stdout == 3` after `… | wc -l`) and anything else as
//! text; absent equals only absent. `>`, `>=`, `<`, `<=` order numbers; an absent side makes
//! them false, a text side is an error (a goal that can never be met). `contains`/`starts`
//! look at text (a number as its digits); absent makes them false. Command outputs
//! (`last.stdout`, `last.stderr`) lose their trailing newlines, as `$(…)` does.

mod eval;
mod parse;
mod watch;

pub use eval::Baseline;
pub use watch::Watch;

use crate::base::MemberId;
use crate::check::Property;
use crate::console::error::ConsoleError;
use std::fmt;

/// A parsed goal: its predicates, all of which must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    text: String,
    preds: Vec<Pred>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pred {
    Compare {
        left: Operand,
        op: Op,
        right: Operand,
    },
    Exists(Operand),
    Absent(Operand),
    /// Held after some engine event (or command) since the baseline.
    Ever(Box<Pred>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
    Contains,
    Starts,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Contains => "contains",
            Op::Starts => "starts",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Literal(Value),
    /// A query of the world now.
    Now(Query),
    /// The same query of the baseline (`start.QUERY`).
    Start(Query),
}

/// What a query answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Absent,
    Num(i64),
    Text(String),
}

/// A member's fields (`status -w json` names them so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    State,
    Term,
    Vote,
    Commit,
    Applied,
    LastIndex,
    LastTerm,
    Revision,
    /// `endpoint status`'s `dbSize` (the file) and `dbSizeInUse` (pages not on the
    /// freelist): compaction frees pages, only defrag shrinks the file.
    DbSize,
    DbSizeInUse,
}

impl Field {
    pub const ALL: [Field; 10] = [
        Field::State,
        Field::Term,
        Field::Vote,
        Field::Commit,
        Field::Applied,
        Field::LastIndex,
        Field::LastTerm,
        Field::Revision,
        Field::DbSize,
        Field::DbSizeInUse,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::State => "state",
            Field::Term => "term",
            Field::Vote => "vote",
            Field::Commit => "commit",
            Field::Applied => "applied",
            Field::LastIndex => "last_index",
            Field::LastTerm => "last_term",
            Field::Revision => "revision",
            Field::DbSize => "db_size",
            Field::DbSizeInUse => "db_size_in_use",
        }
    }
}

/// The last command's parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastField {
    Exit,
    Line,
    Stdout,
    Stderr,
}

/// Everything a goal can ask. Counts "since" are since the baseline (0 at `start.`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// The leader's name (`Cluster::leader`: followed by a quorum), absent if none.
    Leader,
    LeaderField(Field),
    Member(MemberId, Field),
    /// How many running members say they lead (two, in different terms, after a partition
    /// with check-quorum off).
    Leaders,
    /// The highest term any member holds.
    Term,
    /// The last command run (absent before the first).
    Last(LastField),
    /// Commands since the baseline whose line starts with the prefix.
    Ran(String),
    /// The key in the leader's store (no leader: the running member that applied most).
    Key(String),
    KeyValue(String),
    KeyModRevision(String),
    KeyCreateRevision(String),
    KeyVersion(String),
    /// Live keys under the prefix, in that same store.
    Keys(String),
    /// A session file's size in bytes (a restored data dir counts as its stored form).
    File(String),
    /// Messages of that kind delivered since the baseline.
    Delivered(&'static str),
    /// Elections won since the baseline.
    Elections,
    /// Candidacies (real votes) started since the baseline.
    Campaigns,
    PreCampaigns,
    /// Vote answers candidates received since the baseline.
    VotesGranted,
    VotesRefused,
    /// Commit-index advances (summed over members) since the baseline.
    Commits,
    /// Members in the world.
    Members,
    /// The quorum view: votes a decision needs, voters a leader could reach, failures the
    /// configuration tolerates.
    Quorum,
    Reachable,
    Tolerated,
    /// Invariant violations the monitor saw (absent when nothing watches the invariants).
    Violations,
    /// Those of one property: `violations(state-machine-safety)`.
    ViolationsOf(Property),
    /// Virtual time, in milliseconds.
    Time,
    /// kube: writes the API server made for that actor since the baseline (`kubectl`,
    /// `deployment-controller`, `scheduler`, …; `*` for all), read from its journal.
    Writes(String),
    /// kube: pods whose `status.phase` is the argument: `pods(Running)` in `default` (as
    /// `kubectl get pods`), `pods(kube-system/Running)` in another, `pods(*/Running)` in all.
    Pods(String),
    /// Those of them whose name the baseline did not have.
    NewPods(String),
    /// `pod(NAME)` / `pod(NS/NAME)`: exists or absent; `.phase`.
    Pod(String),
    PodPhase(String),
    Deployment(String),
    /// `status.readyReplicas` (0 when unset), `spec.replicas`.
    DeploymentReady(String),
    DeploymentReplicas(String),
}

impl Goal {
    /// Parses a goal; a bad one is a usage error of `expect` that says what was wrong.
    pub fn parse(text: &str) -> Result<Goal, ConsoleError> {
        parse::parse(text).map_err(|note| {
            let usage = crate::console::verbs::find("expect").map_or("expect PRED", |v| v.usage);
            ConsoleError::usage(format!("{usage} ({note})"))
        })
    }

    /// The goal as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn preds(&self) -> &[Pred] {
        &self.preds
    }

    /// Whether any predicate needs watching after every event.
    pub fn has_ever(&self) -> bool {
        self.preds.iter().any(|p| matches!(p, Pred::Ever(_)))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Absent => f.write_str("absent"),
            Value::Num(n) => write!(f, "{n}"),
            Value::Text(s) => write!(f, "{}", quote(s)),
        }
    }
}

/// A text as a goal writes it: a bare word when it reads back as the same text, else quoted
/// (long ones shortened, for one-line explanations).
fn quote(s: &str) -> String {
    const SHOWN: usize = 60;
    let bare = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_/".contains(c))
        && !s.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    if bare {
        return s.to_string();
    }
    let mut shown: String = s.chars().take(SHOWN).collect();
    if shown.len() < s.len() {
        shown.push('…');
    }
    format!("{shown:?}")
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let arg = |a: &str| {
            if a.is_empty() || a.contains([' ', '(', ')', '"', '\'']) {
                format!("{a:?}")
            } else {
                a.to_string()
            }
        };
        match self {
            Query::Leader => f.write_str("leader"),
            Query::LeaderField(field) => write!(f, "leader.{}", field.as_str()),
            Query::Member(id, field) => write!(f, "{id}.{}", field.as_str()),
            Query::Last(l) => write!(f, "last.{}", last_name(*l)),
            Query::Ran(p) => write!(f, "ran({})", arg(p)),
            Query::Key(k) => write!(f, "key({})", arg(k)),
            Query::KeyValue(k) => write!(f, "key({}).value", arg(k)),
            Query::KeyModRevision(k) => write!(f, "key({}).mod_revision", arg(k)),
            Query::KeyCreateRevision(k) => write!(f, "key({}).create_revision", arg(k)),
            Query::KeyVersion(k) => write!(f, "key({}).version", arg(k)),
            Query::Keys(k) => write!(f, "keys({})", arg(k)),
            Query::File(n) => write!(f, "file({})", arg(n)),
            Query::Delivered(k) => write!(f, "delivered({k})"),
            Query::ViolationsOf(p) => write!(f, "violations({})", property_word(*p)),
            Query::Writes(a) => write!(f, "writes({})", arg(a)),
            Query::Pods(p) => write!(f, "pods({})", arg(p)),
            Query::NewPods(p) => write!(f, "new_pods({})", arg(p)),
            Query::Pod(n) => write!(f, "pod({})", arg(n)),
            Query::PodPhase(n) => write!(f, "pod({}).phase", arg(n)),
            Query::Deployment(n) => write!(f, "deployment({})", arg(n)),
            Query::DeploymentReady(n) => write!(f, "deployment({}).ready", arg(n)),
            Query::DeploymentReplicas(n) => write!(f, "deployment({}).replicas", arg(n)),
            plain => f.write_str(plain_name(plain)),
        }
    }
}

/// A property as a goal writes it: its name in one word (`state-machine-safety`).
pub(super) fn property_word(p: Property) -> String {
    p.name().replace(' ', "-")
}

fn last_name(l: LastField) -> &'static str {
    match l {
        LastField::Exit => "exit",
        LastField::Line => "line",
        LastField::Stdout => "stdout",
        LastField::Stderr => "stderr",
    }
}

fn plain_name(q: &Query) -> &'static str {
    match q {
        Query::Leaders => "leaders",
        Query::Term => "term",
        Query::Elections => "elections",
        Query::Campaigns => "campaigns",
        Query::PreCampaigns => "pre_campaigns",
        Query::VotesGranted => "votes_granted",
        Query::VotesRefused => "votes_refused",
        Query::Commits => "commits",
        Query::Members => "members",
        Query::Quorum => "quorum",
        Query::Reachable => "reachable",
        Query::Tolerated => "tolerated",
        Query::Violations => "violations",
        Query::Time => "time",
        _ => "",
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Literal(v) => v.fmt(f),
            Operand::Now(q) => q.fmt(f),
            Operand::Start(q) => write!(f, "start.{q}"),
        }
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pred::Compare { left, op, right } => write!(f, "{left} {} {right}", op.as_str()),
            Pred::Exists(o) => write!(f, "{o} exists"),
            Pred::Absent(o) => write!(f, "{o} absent"),
            Pred::Ever(p) => write!(f, "ever {p}"),
        }
    }
}

#[cfg(test)]
mod tests;
