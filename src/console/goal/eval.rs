//! Evaluating queries and predicates over a view of the session (the world now) or of a
//! [`Baseline`] (the world when a step started). Reads only: the views the engine already
//! exposes (member status, the quorum view, a store's range, the API server's cache, the
//! facts counters, the transcript, the files).

use super::{Field, LastField, Op, Operand, Pred, Query, Value};
use crate::base::{MemberId, Millis};
use crate::check::Violation;
use crate::console::transcript::{Transcript, TranscriptEntry};
use crate::console::Session;
use crate::etcd::{Cluster, Counts, Member, RangeRequest};
use crate::kube::meta::{self, DEPLOYMENTS, PODS};
use crate::kube::ControlPlane;
use std::collections::BTreeMap;
use std::sync::Arc;

type Files = BTreeMap<String, Vec<u8>>;

/// The world when a step started (or a script's `expect --mark`): a copy of the cluster and the
/// control plane (persistent structures, so cheap), the files, the last command, and where the
/// counters and the transcript stood. Cloning a baseline shares it.
#[derive(Clone, Debug)]
pub struct Baseline(Arc<Taken>);

#[derive(Debug)]
struct Taken {
    world: Cluster,
    kube: Option<ControlPlane>,
    files: Files,
    last: Option<TranscriptEntry>,
    transcript_seq: u64,
    counts: Counts,
    violations: Option<Vec<Violation>>,
}

impl Baseline {
    pub(in crate::console) fn take(s: &Session) -> Baseline {
        Baseline(Arc::new(Taken {
            world: s.world.clone(),
            kube: s.kube.clone(),
            files: s.files.clone(),
            last: s.transcript().last().cloned(),
            transcript_seq: s.transcript().next_seq(),
            counts: s.world.counts(),
            violations: s.monitor().map(|m| m.violations().to_vec()),
        }))
    }

    /// Virtual time and events handled when it was taken.
    pub fn at(&self) -> (Millis, u64) {
        (self.0.world.now(), self.0.world.steps())
    }

    /// The same moment: a watch matches only the baseline it was given.
    pub fn same(&self, other: &Baseline) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    fn view(&self) -> View<'_> {
        let t = &self.0;
        View {
            world: &t.world,
            kube: t.kube.as_ref(),
            files: &t.files,
            last: t.last.as_ref(),
            transcript: None,
            violations: t.violations.as_deref(),
        }
    }
}

/// What a query reads.
pub(super) struct View<'a> {
    pub world: &'a Cluster,
    pub kube: Option<&'a ControlPlane>,
    pub files: &'a Files,
    pub last: Option<&'a TranscriptEntry>,
    /// The whole transcript (now only: `ran` counts since the baseline).
    pub transcript: Option<&'a Transcript>,
    /// What the monitor reported (None: nothing watches the invariants).
    pub violations: Option<&'a [Violation]>,
}

impl<'a> View<'a> {
    pub fn of(s: &'a Session) -> View<'a> {
        View {
            world: &s.world,
            kube: s.kube.as_ref(),
            files: &s.files,
            last: s.transcript().last(),
            transcript: Some(s.transcript()),
            violations: s.monitor().map(crate::check::Monitor::violations),
        }
    }
}

/// An operand's value: a literal, the world now (counts since `base`), or the baseline.
pub(super) fn operand(o: &Operand, now: &View, base: &Baseline) -> Value {
    match o {
        Operand::Literal(v) => v.clone(),
        Operand::Now(q) => query(q, now, Some(base)),
        Operand::Start(q) => query(q, &base.view(), None),
    }
}

fn count(n: u64) -> Value {
    Value::Num(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `q` over `v`; counts "since" are since `since` (0 when there is none: at the baseline).
fn query(q: &Query, v: &View, since: Option<&Baseline>) -> Value {
    let counted = |f: fn(&Counts) -> u64| {
        since.map_or(Value::Num(0), |b| {
            count(f(&v.world.counts()).saturating_sub(f(&b.0.counts)))
        })
    };
    match q {
        Query::Leader => v
            .world
            .leader()
            .map_or(Value::Absent, |l| Value::Text(l.to_string())),
        Query::LeaderField(f) => v
            .world
            .leader()
            .map_or(Value::Absent, |l| member_field(v.world, l, *f)),
        Query::Member(id, f) => member_field(v.world, *id, *f),
        Query::Leaders => count(leaders(v.world)),
        Query::Term => highest_term(v.world),
        Query::Last(f) => v.last.map_or(Value::Absent, |e| last(e, *f)),
        Query::Ran(prefix) => count(ran(v, since, prefix)),
        Query::Elections => counted(|c| c.elections_won),
        Query::Campaigns => counted(|c| c.campaigns),
        Query::PreCampaigns => counted(|c| c.pre_campaigns),
        Query::VotesGranted => counted(|c| c.votes_granted),
        Query::VotesRefused => counted(|c| c.votes_refused),
        Query::Commits => counted(|c| c.commits),
        Query::Delivered(kind) => since.map_or(Value::Num(0), |b| {
            count(
                v.world
                    .counts()
                    .delivered(kind)
                    .saturating_sub(b.0.counts.delivered(kind)),
            )
        }),
        Query::Members => count(v.world.member_ids().len() as u64),
        Query::Quorum => count(v.world.quorum_view().quorum as u64),
        Query::Reachable => count(v.world.quorum_view().reachable as u64),
        Query::Tolerated => count(v.world.quorum_view().tolerated_failures as u64),
        Query::Violations => v
            .violations
            .map_or(Value::Absent, |all| count(all.len() as u64)),
        Query::ViolationsOf(p) => v.violations.map_or(Value::Absent, |all| {
            count(all.iter().filter(|x| x.property == *p).count() as u64)
        }),
        Query::Time => count(v.world.now()),
        Query::File(name) => v
            .files
            .get(name.trim_start_matches("./").trim_end_matches('/'))
            .map_or(Value::Absent, |f| count(f.len() as u64)),
        kv @ (Query::Key(_)
        | Query::KeyValue(_)
        | Query::KeyModRevision(_)
        | Query::KeyCreateRevision(_)
        | Query::KeyVersion(_)
        | Query::Keys(_)) => key_query(kv, v.world),
        kube => kube_query(kube, v, since),
    }
}

fn member_field(world: &Cluster, id: MemberId, f: Field) -> Value {
    let Some(st) = world.member_status(id) else {
        return Value::Absent;
    };
    match f {
        Field::State => Value::Text(st.state.to_string()),
        Field::Vote => st
            .vote
            .map_or(Value::Absent, |m| Value::Text(m.to_string())),
        Field::Term => count(st.term),
        Field::Commit => count(st.commit),
        Field::Applied => count(st.applied),
        Field::LastIndex => count(st.last_index),
        Field::LastTerm => count(st.last_term),
        Field::Revision => Value::Num(st.revision),
        Field::DbSize | Field::DbSizeInUse => match world.process(id) {
            Some(m) if f == Field::DbSize => count(m.store.db_size().size_bytes),
            Some(m) => count(m.store.db_size().in_use_bytes),
            None => Value::Absent,
        },
    }
}

fn leaders(world: &Cluster) -> u64 {
    let leading = world
        .processes()
        .filter(|(_, m)| m.node().is_some_and(|n| n.is_leader()));
    leading.count() as u64
}

fn highest_term(world: &Cluster) -> Value {
    world.highest_term().map_or(Value::Absent, count)
}

fn last(e: &TranscriptEntry, f: LastField) -> Value {
    // As `$(…)` gives an output: trailing newlines removed.
    let output = |s: &str| Value::Text(s.trim_end_matches('\n').to_string());
    match f {
        LastField::Exit => Value::Num(i64::from(e.code)),
        LastField::Line => Value::Text(e.line.clone()),
        LastField::Stdout => output(&e.stdout),
        LastField::Stderr => output(&e.stderr),
    }
}

fn ran(v: &View, since: Option<&Baseline>, prefix: &str) -> u64 {
    let (Some(t), Some(b)) = (v.transcript, since) else {
        return 0;
    };
    let matching = t
        .since(b.0.transcript_seq)
        .filter(|e| e.line.starts_with(prefix));
    matching.count() as u64
}

/// The store keys are read from: the leader's, else the running member that applied most.
fn reader(world: &Cluster) -> Option<&Member> {
    if let Some(l) = world.leader() {
        return world.process(l);
    }
    world
        .processes()
        .filter_map(|(_, m)| m.node().map(|n| (n.log().applied, m)))
        .max_by_key(|(applied, _)| *applied)
        .map(|(_, m)| m)
}

fn key_query(q: &Query, world: &Cluster) -> Value {
    let Some(store) = reader(world).map(|m| &m.store) else {
        return Value::Absent;
    };
    if let Query::Keys(prefix) = q {
        let req = RangeRequest {
            count_only: true,
            ..RangeRequest::prefix(prefix.as_bytes())
        };
        return store
            .range(&req)
            .map_or(Value::Num(0), |r| Value::Num(r.count));
    }
    let (Query::Key(k)
    | Query::KeyValue(k)
    | Query::KeyModRevision(k)
    | Query::KeyCreateRevision(k)
    | Query::KeyVersion(k)) = q
    else {
        return Value::Absent;
    };
    let found = store.range(&RangeRequest::key(k.as_bytes())).ok();
    let Some(kv) = found.as_ref().and_then(|r| r.kvs.first()) else {
        return Value::Absent;
    };
    match q {
        Query::KeyValue(_) => Value::Text(String::from_utf8_lossy(&kv.value).into_owned()),
        Query::KeyModRevision(_) => Value::Num(kv.mod_revision),
        Query::KeyCreateRevision(_) => Value::Num(kv.create_revision),
        Query::KeyVersion(_) => Value::Num(kv.version),
        _ => Value::Text(k.clone()),
    }
}

/// `NS/NAME` or `NAME` (in `default`).
fn namespaced(name: &str) -> (&str, &str) {
    name.split_once('/').unwrap_or(("default", name))
}

fn kube_query(q: &Query, v: &View, since: Option<&Baseline>) -> Value {
    let Some(api) = v.kube.map(|k| &k.api) else {
        return match q {
            Query::Pods(_) | Query::NewPods(_) | Query::Writes(_) => Value::Num(0),
            _ => Value::Absent,
        };
    };
    let phase = |p: &serde_json::Value| meta::str_at(p, &["status", "phase"]).to_string();
    match q {
        Query::Pods(arg) | Query::NewPods(arg) => {
            let at_start = since.and_then(|b| b.0.kube.as_ref()).map(|k| &k.api);
            let new = matches!(q, Query::NewPods(_));
            let (ns, want) = namespaced(arg);
            let pods = api.list_cached(&PODS, (ns != "*").then_some(ns));
            let n = pods.iter().filter(|p| phase(p) == *want).filter(|p| {
                let was =
                    at_start.and_then(|a| a.get_cached(&PODS, meta::namespace(p), meta::name(p)));
                !new || (since.is_some() && was.is_none())
            });
            count(n.count() as u64)
        }
        Query::Writes(actor) => {
            let Some(b) = since else {
                return Value::Num(0);
            };
            // Every write has its own etcd revision: those after the baseline's newest are new.
            let base_api = b.0.kube.as_ref().map(|k| &k.api);
            let seen = base_api
                .and_then(|a| a.journal().last())
                .map_or(0, |w| w.revision);
            let new = api.journal().iter().rev().take_while(|w| w.revision > seen);
            count(new.filter(|w| actor == "*" || w.actor == *actor).count() as u64)
        }
        Query::Pod(name) | Query::PodPhase(name) => {
            let (ns, name) = namespaced(name);
            match (api.get_cached(&PODS, ns, name), q) {
                (None, _) => Value::Absent,
                (Some(p), Query::PodPhase(_)) => Value::Text(phase(&p)),
                (Some(_), _) => Value::Text(name.to_string()),
            }
        }
        Query::Deployment(name)
        | Query::DeploymentReady(name)
        | Query::DeploymentReplicas(name) => {
            let (ns, name) = namespaced(name);
            let Some(d) = api.get_cached(&DEPLOYMENTS, ns, name) else {
                return Value::Absent;
            };
            let int = |path: &[&str]| meta::at(&d, path).and_then(serde_json::Value::as_i64);
            match q {
                Query::DeploymentReady(_) => {
                    Value::Num(int(&["status", "readyReplicas"]).unwrap_or(0))
                }
                Query::DeploymentReplicas(_) => {
                    int(&["spec", "replicas"]).map_or(Value::Absent, Value::Num)
                }
                _ => Value::Text(name.to_string()),
            }
        }
        _ => Value::Absent,
    }
}

/// A value as a number: a number, or a text that is a whole number (an output such as `3`).
fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Num(n) => Some(*n),
        Value::Text(s) => s.trim().parse().ok(),
        Value::Absent => None,
    }
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::Num(n) => Some(n.to_string()),
        Value::Text(s) => Some(s.clone()),
        Value::Absent => None,
    }
}

/// `p` with its `start.` sides replaced by their values: the baseline never changes, so a
/// predicate looked at after every event need not read it again.
pub(super) fn resolve_start(p: &Pred, base: &Baseline) -> Pred {
    let side = |o: &Operand| match o {
        Operand::Start(q) => Operand::Literal(query(q, &base.view(), None)),
        other => other.clone(),
    };
    match p {
        Pred::Compare { left, op, right } => Pred::Compare {
            left: side(left),
            op: *op,
            right: side(right),
        },
        Pred::Exists(o) => Pred::Exists(side(o)),
        Pred::Absent(o) => Pred::Absent(side(o)),
        Pred::Ever(inner) => Pred::Ever(Box::new(resolve_start(inner, base))),
    }
}

/// `a op b`; an error only where no world could make it hold (ordering a text).
pub(super) fn compare(a: &Value, op: Op, b: &Value) -> Result<bool, String> {
    match op {
        Op::Eq | Op::Ne => {
            let equal = match (a, b) {
                (Value::Absent, Value::Absent) => true,
                (Value::Absent, _) | (_, Value::Absent) => false,
                _ => match (number(a), number(b)) {
                    (Some(x), Some(y)) => x == y,
                    _ => text(a) == text(b),
                },
            };
            Ok(equal == (op == Op::Eq))
        }
        Op::Gt | Op::Ge | Op::Lt | Op::Le => {
            if *a == Value::Absent || *b == Value::Absent {
                return Ok(false);
            }
            let (Some(x), Some(y)) = (number(a), number(b)) else {
                let t = if number(a).is_none() { a } else { b };
                return Err(format!(
                    "{} orders numbers, and {t} is not one",
                    op.as_str()
                ));
            };
            Ok(match op {
                Op::Gt => x > y,
                Op::Ge => x >= y,
                Op::Lt => x < y,
                _ => x <= y,
            })
        }
        Op::Contains | Op::Starts => Ok(match (text(a), text(b)) {
            (Some(x), Some(y)) if op == Op::Contains => x.contains(&y),
            (Some(x), Some(y)) => x.starts_with(&y),
            _ => false,
        }),
    }
}

/// Whether `p` holds; `ever` answers for an `ever` predicate (None: not watched). The error
/// says why it cannot be told (the caller puts the predicate in front).
pub(super) fn holds(
    p: &Pred,
    now: &View,
    base: &Baseline,
    ever: &dyn Fn(&Pred) -> Option<bool>,
) -> Result<bool, String> {
    match p {
        Pred::Compare { left, op, right } => {
            compare(&operand(left, now, base), *op, &operand(right, now, base))
        }
        Pred::Exists(o) => Ok(operand(o, now, base) != Value::Absent),
        Pred::Absent(o) => Ok(operand(o, now, base) == Value::Absent),
        Pred::Ever(_) => ever(p).ok_or_else(|| {
            format!(
                "known only when watched from a mark on (in a script, `expect --mark {p}` \
                 first: it watches after every event from then)"
            )
        }),
    }
}

/// Each query side of `p` with its value: `leader.term is 3, start.leader.term is 2`.
pub(super) fn sides(p: &Pred, now: &View, base: &Baseline) -> String {
    let described = |o: &Operand| match o {
        Operand::Literal(_) => None,
        q => Some(format!("{q} is {}", operand(q, now, base))),
    };
    let parts: Vec<String> = match p {
        Pred::Compare { left, right, .. } => {
            [left, right].into_iter().filter_map(described).collect()
        }
        Pred::Exists(o) | Pred::Absent(o) => described(o).into_iter().collect(),
        Pred::Ever(inner) => vec![format!(
            "not since the baseline; now {}",
            sides(inner, now, base)
        )],
    };
    parts.join(", ")
}
