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
#[derive(Clone, Debug)]
struct First {
    term: Term,
    by: MemberId,
    /// Kept: by the time a conflict shows, `by` may have crashed.
    entry: Seen,
}

#[derive(Clone, Debug, Default)]
pub struct StateMachineSafety {
    /// index → the first entry applied there.
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
                let Some(first) = self.first.get(a.index) else {
                    let first = First {
                        term: a.term,
                        by: id,
                        entry: Seen::find(cluster, id, a.index, a.term, a.digest),
                    };
                    self.first.insert(a.index, first);
                    continue;
                };
                if (first.term, first.entry.digest()) == (a.term, a.digest)
                    || !self.reported.insert(a.index)
                {
                    continue;
                }
                let (theirs, first) = (first.entry.text(a.index, first.term), first.by);
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
