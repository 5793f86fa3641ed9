//! Leader completeness (§5.4, Figure 3): if a log entry is committed in a given term, then
//! that entry will be present in the logs of the leaders for all higher-numbered terms.

use super::Scope;
use super::{entry_text, Checker, Ledger, Property, Seen, Violation};
use crate::base::{Index, MemberId, Term};
use crate::raft::Raft;
use std::collections::{BTreeMap, BTreeSet};

/// An entry committed in term T is in the log of every leader of a term greater than T.
///
/// "Committed in term T": the first time any member's commit index is seen to cover index
/// `i`, the entry it holds there is recorded as committed in that member's current term.
/// (A follower learns a commit index only from a leader of its own term, so this term is at
/// least the committing leader's: the check never blames a leader that legitimately lacks
/// an entry.) Every leader is checked against all recorded entries when it is first seen
/// leading its term, and the leaders of the moment against each newly recorded entry. An
/// entry already compacted into a leader's snapshot counts as present.
#[derive(Clone, Debug, Default)]
pub struct LeaderCompleteness {
    /// index → the entry first seen committed there.
    committed: Ledger<Committed>,
    /// member → (incarnation, commit index already read).
    cursors: BTreeMap<MemberId, (u64, Index)>,
    /// (term, leader) pairs already checked against every recorded entry.
    leaders: BTreeSet<(Term, MemberId)>,
    reported: BTreeSet<(Term, MemberId, Index)>,
}

#[derive(Clone, Debug, PartialEq)]
struct Committed {
    term: Term,
    /// The term in which it was seen committed.
    in_term: Term,
    by: MemberId,
}

impl LeaderCompleteness {
    fn check(&mut self, cluster: &Scope, leader: &Raft, index: Index, out: &mut Vec<Violation>) {
        let Some((c, entry)) = self.committed.get(index) else {
            return;
        };
        if leader.term() <= c.in_term || index <= leader.log().snapshot_index {
            return;
        }
        let holds = leader
            .log()
            .entry(index)
            .is_some_and(|e| e.term == c.term && entry.holds(&e.data));
        if holds || !self.reported.insert((leader.term(), leader.id(), index)) {
            return;
        }
        let instead = match leader.log().entry(index) {
            Some(e) => format!("; it holds {} there", entry_text(e)),
            None => format!("; its log ends at {}", leader.log().last_index()),
        };
        out.push(Violation {
            property: Property::LeaderCompleteness,
            time_ms: cluster.now(),
            members: vec![leader.id(), c.by],
            detail: format!(
                "{} leads term {} without entry {}, committed in term {} (seen at {}){instead}",
                leader.id(),
                leader.term(),
                entry.text(index, c.term),
                c.in_term,
                c.by
            ),
        });
    }
}

impl Checker for LeaderCompleteness {
    fn property(&self) -> Property {
        Property::LeaderCompleteness
    }

    fn records(&self) -> usize {
        self.committed.len()
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        (self.committed).forget_through(super::compacted_everywhere(cluster));
        let mut out = Vec::new();
        let mut fresh: Vec<Index> = Vec::new();
        for (id, member) in cluster.processes() {
            let Some(node) = member.node() else {
                continue;
            };
            let incarnation = cluster.incarnation(id);
            let cursor = self.cursors.entry(id).or_insert((incarnation, 0));
            if cursor.0 != incarnation || cursor.1 > node.log().committed {
                *cursor = (incarnation, node.log().snapshot_index);
            }
            let recorded = self.committed.last_index().unwrap_or(0);
            for index in (cursor.1.max(recorded) + 1)..=node.log().committed {
                let Some(e) = node.log().entry(index) else {
                    continue;
                };
                let c = Committed {
                    term: e.term,
                    in_term: node.term(),
                    by: id,
                };
                self.committed.insert(index, c, Seen::of(e));
                fresh.push(index);
            }
            cursor.1 = node.log().committed;
        }
        for (id, member) in cluster.processes() {
            let Some(leader) = member.node().filter(|n| n.is_leader()) else {
                continue;
            };
            if self.leaders.insert((leader.term(), id)) {
                let all: Vec<Index> = self.committed.indexes().collect();
                for index in all {
                    self.check(cluster, leader, index, &mut out);
                }
            } else {
                for index in &fresh {
                    self.check(cluster, leader, *index, &mut out);
                }
            }
        }
        out
    }
}
