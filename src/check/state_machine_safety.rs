//! State machine safety (§5.4.3, Figure 3): if a server has applied a log entry at a given
//! index to its state machine, no other server will ever apply a different log entry for the
//! same index.

use super::Scope;
use super::{Checker, Ledger, Property, Seen, Violation};
use crate::base::{Index, MemberId, Term};
use std::collections::{BTreeMap, BTreeSet};

/// No two members, and no two incarnations of one member, ever apply different entries
/// (different term or different data) at the same index.
///
/// The first entry applied at each index is remembered for the whole run; each member's
/// applied list is read from a cursor, so every applied entry is compared once.
#[derive(Clone, Debug, PartialEq)]
struct First {
    term: Term,
    by: MemberId,
}

#[derive(Clone, Debug, Default)]
pub struct StateMachineSafety {
    /// index → the first entry applied there (kept: by the time a conflict shows, the
    /// member that applied it may have crashed).
    first: Ledger<First>,
    /// member → (incarnation, entries of its applied list already read).
    cursors: BTreeMap<MemberId, (u64, usize)>,
    reported: BTreeSet<Index>,
}

impl Checker for StateMachineSafety {
    fn property(&self) -> Property {
        Property::StateMachineSafety
    }

    fn records(&self) -> usize {
        self.first.len()
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        (self.first).forget_through(super::compacted_everywhere(cluster));
        let mut out = Vec::new();
        for (id, member) in cluster.processes() {
            let applied_total = member.applied_total();
            let incarnation = cluster.incarnation(id);
            let cursor = self.cursors.entry(id).or_insert((incarnation, 0));
            if cursor.0 != incarnation || cursor.1 > applied_total {
                *cursor = (incarnation, 0);
            }
            for a in member.applied_since(cursor.1) {
                let Some((first, entry)) = self.first.get(a.index) else {
                    let first = First {
                        term: a.term,
                        by: id,
                    };
                    let entry = Seen::find(cluster, id, a.index, a.term, a.digest);
                    self.first.insert(a.index, first, entry);
                    continue;
                };
                if (first.term, entry.digest()) == (a.term, a.digest)
                    || !self.reported.insert(a.index)
                {
                    continue;
                }
                let (theirs, first) = (entry.text(a.index, first.term), first.by);
                let ours = Seen::find(cluster, id, a.index, a.term, a.digest);
                let ours = ours.text(a.index, a.term);
                let (ours, theirs) = if ours == theirs {
                    (format!("{ours} [data differs]"), theirs)
                } else {
                    (ours, theirs)
                };
                out.push(Violation {
                    property: Property::StateMachineSafety,
                    time_ms: cluster.now(),
                    members: vec![first, id],
                    detail: format!(
                        "at index {}, {first} applied {theirs} but {id} applied {ours}",
                        a.index
                    ),
                });
            }
            cursor.1 = applied_total;
        }
        out
    }
}
