//! Invariant checkers over read-only views of the world, one file per property.
//!
//! Each checker is a small struct fed the whole cluster after every event
//! ([`Checker::observe`]); it keeps what it needs incrementally (cursors into each member's
//! applied list, a registry of the entries it has seen, the first leader of each term), so
//! running all of them after every step stays cheap for 3 to 11 members. [`Monitor`] runs them
//! all and keeps the history of what they reported; tests, the CLI and the UI use it alike.
//!
//! Five safety properties (Raft paper, Figure 3) hold in every run of correct Raft, whatever
//! the faults: [`ElectionSafety`], [`LogMatching`], [`LeaderCompleteness`],
//! [`StateMachineSafety`], [`MonotonicCommit`]. Two more show what the liveness-oriented
//! options buy: [`StaleLeader`] (what check-quorum prevents) and [`Disruption`] (what
//! pre-vote prevents). Each violation is reported once, when it is first seen.
//!
//! What clients see is checked apart, over a whole recorded history rather than after every
//! event: [`linearizability`] (Porcupine's algorithm over a key-value model).

mod disruption;
mod election_safety;
mod leader_completeness;
mod ledger;
pub mod linearizability;
mod log_matching;
mod monotonic_commit;
mod stale_leader;
mod state_machine_safety;
pub mod watch;

pub use disruption::Disruption;
pub use election_safety::ElectionSafety;
pub use leader_completeness::LeaderCompleteness;
pub use log_matching::LogMatching;
pub use monotonic_commit::MonotonicCommit;
pub use stale_leader::StaleLeader;
pub use state_machine_safety::StateMachineSafety;

use crate::base::{Index, MemberId, Millis, Term};
use crate::etcd::{Cluster, Member};
use crate::raft::Raft;
use ledger::Ledger;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The properties the checkers watch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Property {
    ElectionSafety,
    LogMatching,
    LeaderCompleteness,
    StateMachineSafety,
    MonotonicCommit,
    StaleLeader,
    Disruption,
}

impl Property {
    pub const ALL: [Property; 7] = [
        Property::ElectionSafety,
        Property::LogMatching,
        Property::LeaderCompleteness,
        Property::StateMachineSafety,
        Property::MonotonicCommit,
        Property::StaleLeader,
        Property::Disruption,
    ];

    /// The name a student reads ("election safety").
    pub fn name(self) -> &'static str {
        match self {
            Property::ElectionSafety => "election safety",
            Property::LogMatching => "log matching",
            Property::LeaderCompleteness => "leader completeness",
            Property::StateMachineSafety => "state machine safety",
            Property::MonotonicCommit => "monotonic commit",
            Property::StaleLeader => "stale leader",
            Property::Disruption => "disruption",
        }
    }

    /// True for the five properties correct Raft guarantees under any faults; false for the
    /// two that only check-quorum and pre-vote provide.
    pub fn is_safety(self) -> bool {
        !matches!(self, Property::StaleLeader | Property::Disruption)
    }
}

impl fmt::Display for Property {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One broken property, as a student reads it: `election safety: m1 and m3 both led term 4`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub property: Property,
    /// Virtual time at which the checker saw it.
    pub time_ms: Millis,
    /// The members involved, for highlighting.
    pub members: Vec<MemberId>,
    /// The sentence after `property: `.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.property, self.detail)
    }
}

/// A property checker, fed the cluster after every event (or every command): it returns the
/// violations it has not reported before.
pub trait Checker {
    fn property(&self) -> Property;
    fn observe(&mut self, cluster: &Scope) -> Vec<Violation>;
    /// How many per-entry records it keeps (forgotten once compacted everywhere).
    fn records(&self) -> usize {
        0
    }
}

#[derive(Clone, Debug)]
enum AnyChecker {
    ElectionSafety(ElectionSafety),
    LogMatching(LogMatching),
    LeaderCompleteness(LeaderCompleteness),
    StateMachineSafety(StateMachineSafety),
    MonotonicCommit(MonotonicCommit),
    StaleLeader(StaleLeader),
    Disruption(Disruption),
}

/// The same expression for whichever checker `$value` holds.
macro_rules! each_checker {
    ($value:expr, $c:ident => $body:expr) => {
        match $value {
            AnyChecker::ElectionSafety($c) => $body,
            AnyChecker::LogMatching($c) => $body,
            AnyChecker::LeaderCompleteness($c) => $body,
            AnyChecker::StateMachineSafety($c) => $body,
            AnyChecker::MonotonicCommit($c) => $body,
            AnyChecker::StaleLeader($c) => $body,
            AnyChecker::Disruption($c) => $body,
        }
    };
}

impl AnyChecker {
    fn new(property: Property) -> AnyChecker {
        match property {
            Property::ElectionSafety => AnyChecker::ElectionSafety(ElectionSafety::default()),
            Property::LogMatching => AnyChecker::LogMatching(LogMatching::default()),
            Property::LeaderCompleteness => {
                AnyChecker::LeaderCompleteness(LeaderCompleteness::default())
            }
            Property::StateMachineSafety => {
                AnyChecker::StateMachineSafety(StateMachineSafety::default())
            }
            Property::MonotonicCommit => AnyChecker::MonotonicCommit(MonotonicCommit::default()),
            Property::StaleLeader => AnyChecker::StaleLeader(StaleLeader::default()),
            Property::Disruption => AnyChecker::Disruption(Disruption::default()),
        }
    }

    fn get_ref(&self) -> &dyn Checker {
        each_checker!(self, c => c)
    }

    fn get(&mut self) -> &mut dyn Checker {
        each_checker!(self, c => c)
    }
}

/// Runs a set of checkers on every cluster of the world (see [`Scope`]) and keeps every
/// violation they reported, oldest first. `Clone`, so it can be checkpointed together with the
/// world it watches.
#[derive(Clone, Debug)]
pub struct Monitor {
    properties: Vec<Property>,
    /// The checkers of each cluster ID that members hold.
    scopes: BTreeMap<u64, Vec<AnyChecker>>,
    violations: Vec<Violation>,
}

impl Default for Monitor {
    fn default() -> Monitor {
        Monitor::new()
    }
}

impl Monitor {
    /// All seven checkers.
    pub fn new() -> Monitor {
        Monitor::with(&Property::ALL)
    }

    /// Only the checkers of `properties`.
    pub fn with(properties: &[Property]) -> Monitor {
        Monitor {
            properties: properties.to_vec(),
            scopes: BTreeMap::new(),
            violations: Vec::new(),
        }
    }

    /// The properties watched.
    pub fn properties(&self) -> Vec<Property> {
        self.properties.clone()
    }

    /// Feeds every checker the cluster as it is now; returns what is new.
    pub fn observe(&mut self, world: &Cluster) -> Vec<Violation> {
        let clusters: BTreeSet<u64> = world
            .processes()
            .map(|(_, m)| m.identity.cluster_id)
            .collect();
        self.scopes.retain(|id, _| clusters.contains(id));
        let mut new = Vec::new();
        for cluster_id in clusters {
            let properties = &self.properties;
            let checkers = self
                .scopes
                .entry(cluster_id)
                .or_insert_with(|| properties.iter().map(|p| AnyChecker::new(*p)).collect());
            let scope = Scope::of(world, cluster_id);
            for checker in checkers {
                new.extend(checker.get().observe(&scope));
            }
        }
        self.violations.extend(new.iter().cloned());
        new
    }

    /// The checkers' per-entry records: they follow the logs' compaction.
    pub fn records(&self) -> usize {
        self.scopes
            .values()
            .flatten()
            .map(|c| c.get_ref().records())
            .sum()
    }

    /// Everything reported so far, oldest first.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
    }

    /// Whether some violation of `property` was reported.
    pub fn saw(&self, property: Property) -> bool {
        self.violations.iter().any(|v| v.property == property)
    }
}

// ----- shared views of the world --------------------------------------------------------

/// The world as one cluster's checkers see it: only the members that hold its cluster ID. A
/// restore from a snapshot starts a new cluster, a Raft history of its own beside the old one
/// (their members refuse each other's messages), so each is checked apart.
pub struct Scope<'a> {
    world: &'a Cluster,
    /// The members that hold the cluster ID, as they are at this observation, in id order:
    /// the checkers ask after each of them dozens of times an observation, and a lookup in
    /// the world's map for each answer cost more than the answer.
    members: Vec<Present<'a>>,
}

struct Present<'a> {
    id: MemberId,
    member: &'a Member,
    running: bool,
    paused: bool,
    incarnation: u64,
}

impl<'a> Scope<'a> {
    fn of(world: &'a Cluster, cluster_id: u64) -> Scope<'a> {
        let members = world
            .process_states()
            .filter(|(_, m, _, _)| m.identity.cluster_id == cluster_id)
            .map(|(id, member, paused, incarnation)| Present {
                id,
                member,
                running: crate::sim::Process::is_running(member),
                paused,
                incarnation,
            })
            .collect();
        Scope { world, members }
    }

    fn present(&self, id: MemberId) -> Option<&Present<'a>> {
        self.members.iter().find(|p| p.id == id)
    }

    fn holds(&self, id: MemberId) -> bool {
        self.present(id).is_some()
    }

    pub fn processes(&self) -> impl Iterator<Item = (MemberId, &'a Member)> + '_ {
        self.members.iter().map(|p| (p.id, p.member))
    }

    pub fn node(&self, id: MemberId) -> Option<&'a Raft> {
        self.present(id)?.member.node()
    }

    pub fn is_running(&self, id: MemberId) -> bool {
        self.present(id).is_some_and(|p| p.running)
    }

    pub fn is_paused(&self, id: MemberId) -> bool {
        match self.present(id) {
            Some(p) => p.paused,
            None => self.world.is_paused(id),
        }
    }

    pub fn incarnation(&self, id: MemberId) -> u64 {
        match self.present(id) {
            Some(p) => p.incarnation,
            None => self.world.incarnation(id),
        }
    }

    pub fn now(&self) -> Millis {
        self.world.now()
    }

    pub fn tick_ms(&self) -> Millis {
        self.world.tick_ms
    }

    /// The messages on the wire between members of this cluster.
    pub fn in_flight(&self) -> Vec<crate::sim::InFlight> {
        let mut messages = self.world.in_flight();
        messages.retain(|m| self.holds(m.from) && self.holds(m.to));
        messages
    }
}

/// Every member's log and disk are compacted through this index: no log holds those entries
/// again and no member applies them again, so what the checkers recorded about them can go
/// (their records are then bounded as etcd's log is, by its snapshot count).
fn compacted_everywhere(cluster: &Scope) -> Index {
    cluster
        .processes()
        .map(|(_, m)| m.durable.snapshot_index)
        .min()
        .unwrap_or(0)
}

/// Drops the records whose key is at or below `through`.
fn forget_through<K: Ord + Clone, V: Clone>(records: &mut imbl::OrdMap<K, V>, through: &K) {
    if records.get_min().is_some_and(|(k, _)| k <= through) {
        *records = records.split(through).1;
    }
}

/// Running and not paused: a member that can act and answer.
fn up(cluster: &Scope, id: MemberId) -> bool {
    cluster.is_running(id) && !cluster.is_paused(id)
}

/// Whether the network would carry a message from `from` to `to` now (not cut, not certainly
/// lost).
fn link_open(cluster: &Scope, from: MemberId, to: MemberId) -> bool {
    if !cluster.holds(from) || !cluster.holds(to) || cluster.world.net.is_cut(from, to) {
        return false;
    }
    let loss = cluster
        .world
        .net
        .link_loss
        .get(&(from, to))
        .copied()
        .unwrap_or(cluster.world.net.config.loss);
    loss < 1.0
}

/// Whether `node` can exchange messages with `v` both ways (itself included), if it is up.
fn two_way(cluster: &Scope, node: &Raft, v: MemberId) -> bool {
    v == node.id()
        || (up(cluster, v) && link_open(cluster, node.id(), v) && link_open(cluster, v, node.id()))
}

/// The voters `node` can exchange messages with both ways (itself included), if they are up.
fn two_way_peers(cluster: &Scope, node: &Raft) -> Vec<MemberId> {
    node.voters()
        .voters()
        .into_iter()
        .filter(|v| two_way(cluster, node, *v))
        .collect()
}

/// Whether `node` can exchange messages both ways with a quorum of its voters that are up.
fn in_contact_with_quorum(cluster: &Scope, node: &Raft) -> bool {
    // Asked of every leader at every observation: no list of its peers made first.
    node.voters().is_active(|v| two_way(cluster, node, v))
}

/// Whether a quorum of `node`'s voters (itself included) can send to it, up or not: a message
/// already on the wire arrives even if its sender crashed since.
fn hears_quorum(cluster: &Scope, node: &Raft) -> bool {
    node.voters()
        .is_active(|v| v == node.id() || link_open(cluster, v, node.id()))
}

/// An entry as a checker keeps it to compare it and to name it in a violation (the record it
/// sits in knows its index and term): its data, which the logs share, formatted only when a
/// violation is reported (a formatted string per index per checker was kept for the whole
/// run), and compared whole with a log's entry or digested to compare with an applied one (a
/// digest beside the data was 8 bytes a record); or only its digest, when no log held it any
/// more.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seen {
    Entry(crate::raft::EntryKind, crate::raft::EntryData),
    Digest(u64),
}

impl Seen {
    /// The entry whose data digests to `digest` at `index` in `term`, from `member`'s log if
    /// it still holds it.
    fn find(cluster: &Scope, member: MemberId, index: Index, term: Term, digest: u64) -> Seen {
        let entry = cluster
            .node(member)
            .and_then(|n| n.log().entry(index))
            .filter(|e| e.term == term && crate::base::digest(&e.data) == digest);
        entry.map_or(Seen::Digest(digest), Seen::of)
    }

    fn of(entry: &crate::raft::Entry) -> Seen {
        Seen::Entry(entry.kind, entry.data.clone())
    }

    fn digest(&self) -> u64 {
        match self {
            Seen::Entry(_, data) => crate::base::digest(data),
            Seen::Digest(digest) => *digest,
        }
    }

    /// Whether `data` is what was seen (compared whole where it was kept: the same entry on
    /// every member is usually one buffer).
    fn holds(&self, data: &crate::raft::EntryData) -> bool {
        match self {
            Seen::Entry(_, seen) => seen == data,
            Seen::Digest(digest) => crate::base::digest(data) == *digest,
        }
    }

    /// `5@3 (put x=1)`, or `5@3` if the entry was gone when it was seen.
    fn text(&self, index: Index, term: Term) -> String {
        match self {
            Seen::Entry(kind, data) => entry_text(&crate::raft::Entry {
                index,
                term,
                kind: *kind,
                data: data.clone(),
            }),
            Seen::Digest(_) => format!("{index}@{term}"),
        }
    }
}

/// `5@3 (put x=1)`: a normal entry as etcd's request (what the log cells show), not its bytes.
fn entry_text(e: &crate::raft::Entry) -> String {
    if e.kind == crate::raft::EntryKind::Normal {
        let summary = crate::etcd::describe_entry(&e.data);
        return format!("{}@{} ({summary})", e.index, e.term);
    }
    let text = e.describe();
    match text.split_once(' ') {
        Some((at, summary)) => format!("{at} ({summary})"),
        None => text,
    }
}

fn names(members: &[MemberId]) -> String {
    let names: Vec<String> = members.iter().map(|m| m.to_string()).collect();
    names.join(", ")
}

#[cfg(test)]
mod tests;
