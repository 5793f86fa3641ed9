//! Monotonic commit: what a member knows to be committed, and what it applied, only grows.

use super::Scope;
use super::{Checker, Property, Violation};
use crate::base::{Index, MemberId};
use std::collections::BTreeMap;

/// Within one incarnation of a member (from a start to the next crash), its commit index and
/// its applied index never decrease, and it applies entries in strictly increasing index
/// order. A restart may start both again from the snapshot (they are volatile, §5 Figure 2);
/// that is not a violation.
#[derive(Clone, Debug, Default)]
pub struct MonotonicCommit {
    seen: BTreeMap<MemberId, Seen>,
}

#[derive(Clone, Copy, Debug)]
struct Seen {
    incarnation: u64,
    commit: Index,
    applied: Index,
    /// How much of the member's applied list was read, and the last index in it.
    applied_len: usize,
    last_applied_index: Index,
    reported: bool,
}

impl Checker for MonotonicCommit {
    fn property(&self) -> Property {
        Property::MonotonicCommit
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        let mut out = Vec::new();
        for (id, member) in cluster.processes() {
            let Some(node) = member.node() else {
                continue;
            };
            let incarnation = cluster.incarnation(id);
            let applied_total = member.applied_total();
            let (commit, applied) = (node.log().committed, node.log().applied);
            let fresh = Seen {
                incarnation,
                commit,
                applied,
                applied_len: 0,
                last_applied_index: 0,
                reported: false,
            };
            let seen = self.seen.entry(id).or_insert(fresh);
            if seen.incarnation != incarnation || seen.applied_len > applied_total {
                *seen = fresh;
            }
            let mut problems = Vec::new();
            if commit < seen.commit {
                problems.push(format!(
                    "{id}'s commit index went back from {} to {commit}",
                    seen.commit
                ));
            }
            if applied < seen.applied {
                problems.push(format!(
                    "{id}'s applied index went back from {} to {applied}",
                    seen.applied
                ));
            }
            for a in member.applied_since(seen.applied_len) {
                if a.index <= seen.last_applied_index {
                    problems.push(format!(
                        "{id} applied index {} after index {}",
                        a.index, seen.last_applied_index
                    ));
                }
                seen.last_applied_index = a.index;
            }
            seen.applied_len = applied_total;
            seen.commit = seen.commit.max(commit);
            seen.applied = seen.applied.max(applied);
            if let Some(problem) = problems.into_iter().next() {
                if !seen.reported {
                    seen.reported = true;
                    out.push(Violation {
                        property: Property::MonotonicCommit,
                        time_ms: cluster.now(),
                        members: vec![id],
                        detail: problem,
                    });
                }
            }
        }
        out
    }
}
