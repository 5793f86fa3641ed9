//! Log matching (§5.3, Figure 3): if two logs contain an entry with the same index and term,
//! then the logs are identical in all entries up through the given index.

use super::Scope;
use super::{entry_text, Checker, Ledger, Property, Seen, Violation};
use crate::base::{Index, MemberId, Term};
use crate::raft::Raft;
use std::collections::{BTreeMap, BTreeSet};

/// Every (index, term) pair names one entry, in every log it ever appears in: the same data,
/// and the same term at the index before it.
///
/// This is the paper's Log Matching property in a form that can be checked incrementally:
/// if every log that holds `i@t` agrees on its data and on the term of entry `i-1`, then by
/// induction on `i` any two logs holding `i@t` are identical up to `i`. The first version of
/// each `i@t` seen is remembered for the whole run (in correct Raft only the leader of term
/// `t` creates entries of term `t`, once per index, so an `i@t` never changes meaning).
///
/// Each member's log is compared with a mirror of the terms it held at the previous
/// observation, from its end backwards down to the first index where they agree; only the
/// entries after that point are new and checked. (Entries are only ever created at the end
/// of a leader's log and copied verbatim, so every entry is checked when it is created and
/// again wherever it lands.)
#[derive(Clone, Debug, Default)]
pub struct LogMatching {
    /// index → the first version seen there...
    registry: Ledger<Version>,
    /// ...and (rarely: a log cut back and written again) the first of each other term there.
    others: imbl::OrdMap<(Index, Term), (Version, Seen)>,
    /// member → the term of each index 1..=last it held at the last observation.
    mirrors: BTreeMap<MemberId, TermRuns>,
    reported: BTreeSet<(Index, Term)>,
}

#[derive(Clone, Debug, PartialEq)]
struct Version {
    term: Term,
    prev_term: Term,
    holder: MemberId,
}

/// The terms of indexes `1..=len` as runs of (first index, term): terms change rarely, so
/// the mirror of an hour's log is a few runs (a term per index was 8 bytes per entry, kept
/// for the whole run).
#[derive(Clone, Debug, Default)]
struct TermRuns {
    len: Index,
    runs: Vec<(Index, Term)>,
}

impl TermRuns {
    fn term(&self, index: Index) -> Option<Term> {
        if index == 0 || index > self.len {
            return None;
        }
        let after = self.runs.partition_point(|(first, _)| *first <= index);
        Some(self.runs[after - 1].1)
    }

    fn truncate(&mut self, len: Index) {
        self.len = self.len.min(len);
        let kept = self.runs.partition_point(|(first, _)| *first <= self.len);
        self.runs.truncate(kept);
    }

    fn push(&mut self, term: Term) {
        self.len += 1;
        if self.runs.last().is_none_or(|(_, t)| *t != term) {
            self.runs.push((self.len, term));
        }
    }
}

impl LogMatching {
    fn first_version(&self, (index, term): (Index, Term)) -> Option<(&Version, &Seen)> {
        match self.registry.get(index) {
            Some((v, seen)) if v.term == term => Some((v, seen)),
            Some(_) => self.others.get(&(index, term)).map(|(v, seen)| (v, seen)),
            None => None,
        }
    }

    /// The first index (1-based) of `node`'s log that differs from `mirror`.
    fn first_change(node: &Raft, mirror: Option<&TermRuns>) -> Index {
        let Some(mirror) = mirror else {
            return 1;
        };
        let log = node.log();
        let mut k = mirror.len.min(log.last_index());
        while k > log.snapshot_index {
            if log.term(k) == mirror.term(k) {
                break;
            }
            k -= 1;
        }
        k + 1
    }

    fn check_entry(
        &mut self,
        cluster: &Scope,
        id: MemberId,
        node: &Raft,
        index: Index,
        out: &mut Vec<Violation>,
    ) {
        let Some(entry) = node.log().entry(index) else {
            return;
        };
        let prev_term = node.log().term(index - 1).unwrap_or(0);
        let key = (index, entry.term);
        let Some((first, seen)) = self.first_version(key) else {
            let version = Version {
                term: entry.term,
                prev_term,
                holder: id,
            };
            match self.registry.get(index) {
                None => self.registry.insert(index, version, Seen::of(entry)),
                Some(_) => {
                    self.others.insert(key, (version, Seen::of(entry)));
                }
            }
            return;
        };
        let why = if !seen.holds(&entry.data) {
            format!(
                "different data: {} vs {}",
                seen.text(index, entry.term),
                entry_text(entry)
            )
        } else if first.prev_term != prev_term && index > node.log().snapshot_index + 1 {
            format!(
                "different entries before it: {} has term {} at index {}, {id} has term {}",
                first.holder,
                first.prev_term,
                index - 1,
                prev_term
            )
        } else {
            return;
        };
        let holder = first.holder;
        if !self.reported.insert(key) {
            return;
        }
        out.push(Violation {
            property: Property::LogMatching,
            time_ms: cluster.now(),
            members: vec![holder, id],
            detail: format!(
                "{holder} and {id} both hold entry {}@{} with {why}",
                index, entry.term
            ),
        });
    }
}

impl Checker for LogMatching {
    fn property(&self) -> Property {
        Property::LogMatching
    }

    fn records(&self) -> usize {
        self.registry.len() + self.others.len()
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        let through = super::compacted_everywhere(cluster);
        self.registry.forget_through(through);
        super::forget_through(&mut self.others, &(through, Term::MAX));
        let mut out = Vec::new();
        for (id, member) in cluster.processes() {
            let Some(node) = member.node() else {
                continue;
            };
            let from = Self::first_change(node, self.mirrors.get(&id));
            let last = node.log().last_index();
            for index in from.max(node.log().snapshot_index + 1)..=last {
                self.check_entry(cluster, id, node, index, &mut out);
            }
            let mirror = self.mirrors.entry(id).or_default();
            mirror.truncate(from - 1);
            for index in from..=last {
                mirror.push(node.log().term(index).unwrap_or(0));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::TermRuns;
    use crate::base::{Index, Rng, Term};

    #[test]
    fn term_runs_read_as_the_list_of_terms_they_stand_for() {
        for seed in 0..50 {
            let mut rng = Rng::new(seed);
            let (mut runs, mut list) = (TermRuns::default(), Vec::<Term>::new());
            for _ in 0..200 {
                if rng.chance(0.2) {
                    let len = rng.range(0, list.len() as u64 + 2);
                    runs.truncate(len);
                    list.truncate(len as usize);
                } else {
                    let term = list.last().copied().unwrap_or(1) + rng.range(0, 2);
                    runs.push(term);
                    list.push(term);
                }
                assert_eq!(runs.len, list.len() as Index, "seed {seed}");
                for k in 0..=list.len() as Index + 1 {
                    let want = k.checked_sub(1).and_then(|i| list.get(i as usize)).copied();
                    assert_eq!(runs.term(k), want, "seed {seed}, index {k}");
                }
            }
        }
    }
}
