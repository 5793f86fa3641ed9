//! Stale leader: a leader that keeps leading long after it lost its quorum. Check-quorum
//! (thesis §6.2, etcd's `CheckQuorum`) is what makes such a leader step down.

use super::Scope;
use super::{link_open, names, two_way, two_way_peers, up, Checker, Property, Violation};
use crate::base::{format_duration, MemberId, Millis, Term};
use crate::raft::Raft;
use std::collections::{BTreeMap, BTreeSet};

/// A member is a *stale leader* when it has stayed in the leader role of one term, running
/// and not paused, for longer than a bound while it was *cut off*: during the last election
/// timeout, no quorum of its voters (itself included) was in contact with it. A voter is in
/// contact at an observation if it is up (running, not paused) and the links both ways are
/// open, or if a message from it to the leader is on the wire over an open link (a late
/// message is news from a follower too). Links are judged by the network's cuts and by a loss
/// probability of 1.
///
/// The window matches what check-quorum looks at: once per election timeout it asks whether
/// a quorum of voters was heard from since its last look (not necessarily all at once), so a
/// leader cut off in this sense steps down within about one more election timeout. The
/// bound defaults to two election timeouts (`2 × election_tick × tick_ms`, 2 s with etcd's
/// defaults), so a leader is reported about three election timeouts after its last contact
/// with a quorum. Pausing, crashing, changing term or regaining contact starts the count
/// again. Each (member, term) is reported once.
#[derive(Clone, Debug, Default)]
pub struct StaleLeader {
    /// A fixed bound instead of two election timeouts.
    pub bound_ms: Option<Millis>,
    /// (leader, voter) → the last observation at which they were in contact.
    last_contact: BTreeMap<(MemberId, MemberId), Millis>,
    /// leader → (its term, its incarnation, since when it has been cut off).
    cut_off: BTreeMap<MemberId, (Term, u64, Millis)>,
    reported: BTreeSet<(MemberId, Term)>,
}

impl StaleLeader {
    pub fn with_bound(bound_ms: Millis) -> StaleLeader {
        StaleLeader {
            bound_ms: Some(bound_ms),
            ..StaleLeader::default()
        }
    }

    fn election_timeout_ms(cluster: &Scope, node: &Raft) -> Millis {
        Millis::from(node.config().election_tick) * cluster.tick_ms()
    }

    /// Records who is in contact with leader `node` now; whether a quorum was in contact
    /// within the last election timeout.
    fn heard_from_quorum(
        &mut self,
        cluster: &Scope,
        node: &Raft,
        in_flight: &mut Option<BTreeSet<(MemberId, MemberId)>>,
    ) -> bool {
        let now = cluster.now();
        let window = Self::election_timeout_ms(cluster, node);
        for v in node.voters().each_voter() {
            if two_way(cluster, node, v) {
                self.last_contact.insert((node.id(), v), now);
            }
        }
        let recent = |last: &BTreeMap<(MemberId, MemberId), Millis>, v: MemberId| {
            v == node.id()
                || last
                    .get(&(node.id(), v))
                    .is_some_and(|t| now.saturating_sub(*t) <= window)
        };
        if node.voters().is_active(|v| recent(&self.last_contact, v)) {
            return true;
        }
        // Only read the wire (costly) for a leader that looks cut off.
        let senders = in_flight.get_or_insert_with(|| senders_in_flight(cluster));
        for (from, _) in senders.iter().filter(|(_, to)| *to == node.id()) {
            self.last_contact.insert((node.id(), *from), now);
        }
        node.voters().is_active(|v| recent(&self.last_contact, v))
    }
}

/// (from, to) of every message on the wire over a link that is open now.
fn senders_in_flight(cluster: &Scope) -> BTreeSet<(MemberId, MemberId)> {
    cluster
        .in_flight()
        .into_iter()
        .map(|m| (m.from, m.to))
        .filter(|(from, to)| link_open(cluster, *from, *to))
        .collect()
}

impl Checker for StaleLeader {
    fn property(&self) -> Property {
        Property::StaleLeader
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        let mut out = Vec::new();
        let now = cluster.now();
        let mut in_flight = None;
        for (id, member) in cluster.processes() {
            let leader = member
                .node()
                .filter(|n| n.is_leader() && up(cluster, id))
                .filter(|n| !self.heard_from_quorum(cluster, n, &mut in_flight));
            let Some(node) = leader else {
                self.cut_off.remove(&id);
                continue;
            };
            let key = (node.term(), cluster.incarnation(id));
            let since = match self.cut_off.get(&id) {
                Some((term, inc, since)) if (*term, *inc) == key => *since,
                _ => {
                    self.cut_off.insert(id, (key.0, key.1, now));
                    now
                }
            };
            let bound = self
                .bound_ms
                .unwrap_or(2 * Self::election_timeout_ms(cluster, node));
            if now.saturating_sub(since) <= bound || !self.reported.insert((id, node.term())) {
                continue;
            }
            let reach = two_way_peers(cluster, node);
            out.push(Violation {
                property: Property::StaleLeader,
                time_ms: now,
                members: vec![id],
                detail: format!(
                    "{id} still leads term {}, although no quorum has been in contact with it \
                     for {} (it reaches only {} of {} voters)",
                    node.term(),
                    format_duration(now - since + Self::election_timeout_ms(cluster, node)),
                    names(&reach),
                    node.voters().voters().len(),
                ),
            });
        }
        out
    }
}
