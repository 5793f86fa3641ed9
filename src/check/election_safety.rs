//! Election safety (§5.2, Figure 3): at most one leader can be elected in a given term.

use super::Scope;
use super::{Checker, Property, Violation};
use crate::base::{MemberId, Term};
use crate::raft::{NodeEvent, RoleName};
use std::collections::{BTreeMap, BTreeSet};

/// At most one member is ever leader of a given term.
///
/// A member counts as leader of term T if it is seen in the leader role in term T after some
/// event, or if its narration says it became leader of T (which catches a leadership that
/// began and ended inside one command, such as a resume that delivers a backlog). The first
/// leader of each term is remembered for the whole run, across crashes; a second member
/// leading the same term, at any time, is a violation.
#[derive(Clone, Debug, Default)]
pub struct ElectionSafety {
    /// The first leader seen of each term.
    leaders: BTreeMap<Term, MemberId>,
    /// How many narration events of each member were read already.
    event_cursor: BTreeMap<MemberId, usize>,
    reported: BTreeSet<(Term, MemberId)>,
}

impl ElectionSafety {
    fn saw_leader(&mut self, cluster: &Scope, id: MemberId, term: Term, out: &mut Vec<Violation>) {
        let first = *self.leaders.entry(term).or_insert(id);
        if first != id && self.reported.insert((term, id)) {
            out.push(Violation {
                property: Property::ElectionSafety,
                time_ms: cluster.now(),
                members: vec![first, id],
                detail: format!("{first} and {id} both led term {term}"),
            });
        }
    }
}

impl Checker for ElectionSafety {
    fn property(&self) -> Property {
        Property::ElectionSafety
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        let mut out = Vec::new();
        for (id, member) in cluster.processes() {
            let events = member.events();
            let cursor = self.event_cursor.entry(id).or_insert(0);
            if *cursor > events.len() {
                *cursor = 0; // someone took the events; read what is there again
            }
            let terms: Vec<Term> = events[*cursor..]
                .iter()
                .filter_map(|e| match e.event {
                    NodeEvent::BecameRole {
                        role: RoleName::Leader,
                        term,
                    } => Some(term),
                    _ => None,
                })
                .collect();
            *cursor = events.len();
            for term in terms {
                self.saw_leader(cluster, id, term, &mut out);
            }
            if let Some(node) = member.node().filter(|n| n.is_leader()) {
                self.saw_leader(cluster, id, node.term(), &mut out);
            }
        }
        out
    }
}
