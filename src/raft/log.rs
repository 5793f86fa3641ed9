//! The replicated log: a compacted prefix (the snapshot point) followed by entries, and the
//! bookkeeping of what is persisted, committed and applied.

use super::entries::Entries;
use super::message::EntryBatch;
use crate::base::{Index, Term};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An entry's payload, shared and never copied: the leader's log, every follower's, each
/// member's disk and every time-travel checkpoint hold the same bytes.
pub type EntryData = Arc<[u8]>;

/// Up to this many entries, [`RaftLog::entries_from`] looks each up instead of walking a focus.
const FEW_ENTRIES: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A client command (or the empty entry a new leader appends).
    Normal,
    /// A membership change; its data is an encoded `ConfChange`.
    Config,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub index: Index,
    pub term: Term,
    pub kind: EntryKind,
    pub data: EntryData,
}

impl Entry {
    pub fn normal(index: Index, term: Term, data: impl Into<EntryData>) -> Entry {
        Entry {
            index,
            term,
            kind: EntryKind::Normal,
            data: data.into(),
        }
    }

    /// How the entry is shown in transcripts, traces and the UI: `3@2` plus a data summary.
    pub fn describe(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}@{} ", self.index, self.term)?;
        match self.kind {
            EntryKind::Config => match super::confchange::ConfChange::decode(&self.data) {
                Ok(cc) => write!(f, "conf {}", cc.describe()),
                Err(_) => f.write_str("conf ?"),
            },
            EntryKind::Normal if self.data.is_empty() => f.write_str("noop"),
            EntryKind::Normal => write!(f, "{}", Summary(&self.data)),
        }
    }
}

/// A short printable summary of entry data.
pub fn summarize(data: &[u8]) -> String {
    Summary(data).to_string()
}

/// The summary, written where it is wanted (every message and entry of a run is summarized
/// into its trace).
pub struct Summary<'a>(pub &'a [u8]);

impl std::fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        use std::fmt::Write;
        const MAX: usize = 24;
        // What `from_utf8_lossy` gives, read lazily: only the first characters are looked at
        // (a Kubernetes object is kilobytes).
        let lossy = self.0.utf8_chunks().flat_map(|chunk| {
            let bad = (!chunk.invalid().is_empty()).then_some(char::REPLACEMENT_CHARACTER);
            chunk.valid().chars().chain(bad)
        });
        let mut first = ['\0'; MAX + 1];
        let mut len = 0;
        for (slot, c) in first.iter_mut().zip(lossy) {
            *slot = if c.is_control() { '.' } else { c };
            len += 1;
        }
        let shown = if len > MAX { MAX - 1 } else { len };
        for c in &first[..shown] {
            f.write_char(*c)?;
        }
        if len > MAX {
            f.write_char('…')?;
        }
        Ok(())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RaftLog {
    /// Everything up to here is compacted into the snapshot.
    pub snapshot_index: Index,
    pub snapshot_term: Term,
    /// `entries[0].index == snapshot_index + 1`.
    pub entries: Entries,
    /// Entries up to here are on disk.
    pub stable_index: Index,
    pub committed: Index,
    pub applied: Index,
    /// The term runs of `entries`: (first index, term) wherever the term changes, in order.
    /// A term is asked for several times per message, and a lookup in `entries` walks a tree.
    terms: Vec<(Index, Term)>,
}

impl RaftLog {
    /// A log rebuilt from durable state: everything in it is stable, nothing is known to be
    /// committed beyond the snapshot.
    pub fn restore(snapshot_index: Index, snapshot_term: Term, entries: Entries) -> RaftLog {
        let stable_index = entries.last().map_or(snapshot_index, |e| e.index);
        let mut log = RaftLog {
            snapshot_index,
            snapshot_term,
            entries: Entries::new(),
            stable_index,
            committed: snapshot_index,
            applied: snapshot_index,
            terms: Vec::new(),
        };
        for e in entries.iter() {
            log.note_term(e);
        }
        log.entries = entries;
        log
    }

    /// Records `e`, just placed at the end of the log, in the term runs.
    fn note_term(&mut self, e: &Entry) {
        if self.terms.last().is_none_or(|(_, t)| *t != e.term) {
            self.terms.push((e.index, e.term));
        }
    }

    /// The term runs once the entries before `first` left the front of the log.
    fn drop_terms_before(&mut self, first: Index) {
        let keep_from = self.terms.partition_point(|(start, _)| *start <= first);
        self.terms.drain(..keep_from.saturating_sub(1));
        if let Some(run) = self.terms.first_mut() {
            run.0 = run.0.max(first);
        }
        if self.entries.is_empty() {
            self.terms.clear();
        }
    }

    pub fn first_index(&self) -> Index {
        self.snapshot_index + 1
    }

    pub fn last_index(&self) -> Index {
        self.snapshot_index + self.entries.len() as Index
    }

    pub fn last_term(&self) -> Term {
        self.terms.last().map_or(self.snapshot_term, |(_, t)| *t)
    }

    /// The term of entry `index`; None if compacted away or not yet in the log.
    pub fn term(&self, index: Index) -> Option<Term> {
        if index == self.snapshot_index {
            return Some(self.snapshot_term);
        }
        if index < self.snapshot_index || index > self.last_index() {
            return None;
        }
        // Almost always the last run or the one before: search from the back.
        let run = self.terms.iter().rev().find(|(start, _)| *start <= index);
        run.map(|(_, t)| *t)
    }

    pub fn entry(&self, index: Index) -> Option<&Entry> {
        if index <= self.snapshot_index {
            return None;
        }
        self.entries.get((index - self.snapshot_index - 1) as usize)
    }

    pub fn match_term(&self, index: Index, term: Term) -> bool {
        self.term(index) == Some(term)
    }

    /// §5.4.1: a candidate's log is at least as up to date as ours.
    pub fn is_up_to_date(&self, last_index: Index, last_term: Term) -> bool {
        last_term > self.last_term()
            || (last_term == self.last_term() && last_index >= self.last_index())
    }

    /// Entries from `from` on, at most `max` of them.
    pub fn entries_from(&self, from: Index, max: usize) -> Vec<Entry> {
        let mut out = Vec::new();
        self.entries_from_into(from, max, &mut out);
        out
    }

    /// As [`RaftLog::entries_from`], for an append: one list its followers share.
    pub fn batch_from(&self, from: Index, max: usize) -> EntryBatch {
        let span = self.span(from, max);
        if span.is_empty() {
            return EntryBatch::default();
        }
        if span.len() <= FEW_ENTRIES {
            // An exact-length map: collected straight into one allocation.
            let shared: Arc<[Entry]> = span.map(|i| self.entries[i].clone()).collect();
            return shared.into();
        }
        self.entries_from(from, max).into()
    }

    /// As [`RaftLog::entries_from`], after what `out` holds (a buffer kept from the last
    /// time: a node hands its driver entries at nearly every Ready).
    pub fn entries_from_into(&self, from: Index, max: usize, out: &mut Vec<Entry>) {
        self.clone_span(self.span(from, max), out);
    }

    /// Where entries from `from` on, at most `max` of them, sit in `entries`.
    fn span(&self, from: Index, max: usize) -> std::ops::Range<usize> {
        if from <= self.snapshot_index || from > self.last_index() {
            return 0..0;
        }
        let start = (from - self.snapshot_index - 1) as usize;
        start..start.saturating_add(max).min(self.entries.len())
    }

    fn clone_span(&self, span: std::ops::Range<usize>, out: &mut Vec<Entry>) {
        // A few entries (one proposal's, most often) are looked up one by one: a focus over
        // the tree costs more to build than it saves.
        if span.len() <= FEW_ENTRIES {
            out.extend(span.map(|i| self.entries[i].clone()));
        } else {
            out.extend(self.entries.iter_from(span.start).take(span.len()).cloned());
        }
    }

    /// Entries not yet on disk, into `out`.
    pub fn unstable_entries_into(&self, out: &mut Vec<Entry>) {
        self.entries_from_into(self.stable_index + 1, usize::MAX, out)
    }

    /// Committed entries not yet handed to the state machine, into `out`.
    pub fn next_committed_into(&self, out: &mut Vec<Entry>) {
        let from = self.applied.max(self.snapshot_index) + 1;
        let to = self.committed.min(self.last_index());
        if to >= from {
            self.entries_from_into(from, (to - from + 1) as usize, out)
        }
    }

    /// Appends one entry right after the last (a leader's own: nothing to truncate).
    pub fn push(&mut self, entry: Entry) {
        debug_assert_eq!(entry.index, self.last_index() + 1);
        self.note_term(&entry);
        self.entries.push_back(entry);
    }

    /// Appends after truncating anything at or after the first new entry's index.
    pub fn append(&mut self, new: &[Entry]) {
        let Some(first) = new.first() else { return };
        let keep = first.index.saturating_sub(self.snapshot_index + 1) as usize;
        self.entries.truncate(keep);
        let cut = self.snapshot_index + 1 + keep as Index;
        while self.terms.last().is_some_and(|(start, _)| *start >= cut) {
            self.terms.pop();
        }
        for e in new {
            self.note_term(e);
        }
        self.entries.extend(new.iter().cloned());
        self.stable_index = self.stable_index.min(first.index - 1);
    }

    /// The first entry of `new` whose term disagrees with ours, or that we lack.
    pub fn find_conflict(&self, new: &[Entry]) -> Option<Index> {
        new.iter()
            .find(|e| !self.match_term(e.index, e.term))
            .map(|e| e.index)
    }

    /// Whether an entry of `new` differs in term from the one we hold at its index at or below
    /// the commit index: impossible in correct Raft, possible under a teaching switch.
    pub fn contradicts_committed(&self, new: &[Entry]) -> bool {
        new.iter()
            .take_while(|e| e.index <= self.committed)
            .any(|e| self.term(e.index).is_some_and(|t| t != e.term))
    }

    /// The largest index ≤ `index` whose term is ≤ `term` (fast backtracking, etcd's
    /// `findConflictByTerm`): the leader can skip a whole term of conflicting entries.
    pub fn find_conflict_by_term(&self, index: Index, term: Term) -> Index {
        let mut i = index.min(self.last_index());
        while i > self.snapshot_index {
            match self.term(i) {
                Some(t) if t > term => i -= 1,
                _ => break,
            }
        }
        i
    }

    /// Follower side of AppendEntries (§5.3): None when the consistency check fails, else the
    /// index of the last entry the leader's message vouches for.
    /// `overwrote_committed` is set when a conflicting entry at or below the commit index was
    /// replaced: impossible in correct Raft, possible under a rule-breaking teaching switch.
    pub fn maybe_append(
        &mut self,
        prev_index: Index,
        prev_term: Term,
        commit: Index,
        new: &[Entry],
        overwrote_committed: &mut bool,
    ) -> Option<Index> {
        if !self.match_term(prev_index, prev_term) {
            return None;
        }
        let last_new = prev_index + new.len() as Index;
        if let Some(conflict) = self.find_conflict(new) {
            if conflict <= self.committed {
                *overwrote_committed = true;
            }
            let offset = (conflict - prev_index - 1) as usize;
            self.append(&new[offset..]);
        }
        self.commit_to(commit.min(last_new));
        Some(last_new)
    }

    pub fn commit_to(&mut self, index: Index) {
        if index > self.committed {
            self.committed = index.min(self.last_index());
        }
    }

    /// Drops entries up to `index` (which must be applied) into the snapshot point.
    pub fn compact_to(&mut self, index: Index) -> bool {
        if index <= self.snapshot_index || index > self.applied {
            return false;
        }
        let Some(term) = self.term(index) else {
            return false;
        };
        let drop = (index - self.snapshot_index) as usize;
        self.entries = self.entries.skip(drop);
        self.snapshot_index = index;
        self.snapshot_term = term;
        self.drop_terms_before(index + 1);
        true
    }

    /// Replaces the whole log by a snapshot's point (InstallSnapshot, §7).
    pub fn restore_snapshot(&mut self, index: Index, term: Term) {
        if self.match_term(index, term) {
            // We have the entry: keep the suffix, as the paper says.
            let drop = (index - self.snapshot_index) as usize;
            self.entries = self.entries.skip(drop);
        } else {
            self.entries.clear();
        }
        self.snapshot_index = index;
        self.snapshot_term = term;
        self.drop_terms_before(index + 1);
        self.committed = self.committed.max(index);
        // Not `applied`: the state machine has the snapshot only once the driver restored it
        // (`Raft::advance`), and a read served in between would see the old state.
        self.stable_index = self.stable_index.max(index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_of(terms: &[Term]) -> RaftLog {
        let entries = terms
            .iter()
            .enumerate()
            .map(|(i, t)| Entry::normal(i as Index + 1, *t, vec![]))
            .collect();
        RaftLog::restore(0, 0, entries)
    }

    fn ents(first: Index, terms: &[Term]) -> Vec<Entry> {
        terms
            .iter()
            .enumerate()
            .map(|(i, t)| Entry::normal(first + i as Index, *t, vec![]))
            .collect()
    }

    #[test]
    fn summarize_reads_bytes_as_from_utf8_lossy_would() {
        let long = "abcdefghijklmnopqrstuvwxyz".as_bytes();
        assert_eq!(summarize(long), "abcdefghijklmnopqrstuvw…");
        assert_eq!(summarize(&long[..24]), "abcdefghijklmnopqrstuvwx");
        assert_eq!(
            summarize(b"k8s\0\n\x01\xff\xfeok"),
            "k8s...\u{fffd}\u{fffd}ok"
        );
        assert_eq!(summarize("é\u{80}".as_bytes()), "é.");
        assert_eq!(summarize(b""), "");
        // The eager version it replaced, on seeded random bytes (mostly ASCII, some not).
        let eager = |data: &[u8]| {
            let text: String = String::from_utf8_lossy(data)
                .chars()
                .map(|c| if c.is_control() { '.' } else { c })
                .collect();
            if text.chars().count() > 24 {
                format!("{}…", text.chars().take(23).collect::<String>())
            } else {
                text
            }
        };
        let mut rng = crate::base::Rng::new(7);
        for _ in 0..2_000 {
            let len = rng.range(0, 40) as usize;
            let data: Vec<u8> = (0..len).map(|_| rng.range(0, 256) as u8).collect();
            assert_eq!(summarize(&data), eager(&data), "{data:?}");
        }
    }

    #[test]
    fn up_to_date_compares_last_term_then_length() {
        let log = log_of(&[1, 2, 2]);
        assert!(log.is_up_to_date(3, 2));
        assert!(log.is_up_to_date(1, 3));
        assert!(!log.is_up_to_date(2, 2));
        assert!(!log.is_up_to_date(9, 1));
    }

    #[test]
    fn maybe_append_table() {
        // §5.3: (prev_index, prev_term, new terms) on log [1,2,3] -> result and resulting terms
        type Case = (Index, Term, &'static [Term], Option<Index>, &'static [Term]);
        let cases: &[Case] = &[
            (3, 3, &[], Some(3), &[1, 2, 3]),
            (3, 2, &[4], None, &[1, 2, 3]),
            (4, 3, &[4], None, &[1, 2, 3]),
            (3, 3, &[4], Some(4), &[1, 2, 3, 4]),
            (1, 1, &[2], Some(2), &[1, 2, 3]), // already have it: no truncation
            (1, 1, &[4, 4], Some(3), &[1, 4, 4]), // conflict at 2: truncate and replace
            (0, 0, &[1, 2, 3, 5], Some(4), &[1, 2, 3, 5]),
        ];
        for (prev_index, prev_term, new, want, want_terms) in cases {
            let mut log = log_of(&[1, 2, 3]);
            let mut overwrote = false;
            let got = log.maybe_append(
                *prev_index,
                *prev_term,
                0,
                &ents(prev_index + 1, new),
                &mut overwrote,
            );
            assert_eq!(got, *want, "prev {prev_index}@{prev_term} new {new:?}");
            let terms: Vec<Term> = log.entries.iter().map(|e| e.term).collect();
            assert_eq!(terms, *want_terms);
            assert!(!overwrote);
        }
    }

    #[test]
    fn commit_never_passes_last_new_entry() {
        let mut log = log_of(&[1, 1, 1, 1]);
        let mut overwrote = false;
        log.maybe_append(1, 1, 100, &ents(2, &[1]), &mut overwrote);
        assert_eq!(log.committed, 2);
    }

    #[test]
    fn find_conflict_by_term_skips_whole_terms() {
        let log = log_of(&[1, 1, 2, 2, 3, 3]);
        assert_eq!(log.find_conflict_by_term(6, 2), 4);
        assert_eq!(log.find_conflict_by_term(6, 1), 2);
        assert_eq!(log.find_conflict_by_term(6, 0), 0);
        assert_eq!(log.find_conflict_by_term(9, 3), 6);
    }

    #[test]
    fn append_moves_stable_back_on_truncation() {
        let mut log = log_of(&[1, 1, 1]);
        assert_eq!(log.stable_index, 3);
        log.append(&ents(2, &[2]));
        assert_eq!(log.stable_index, 1);
        assert_eq!(log.last_index(), 2);
        let mut unstable = Vec::new();
        log.unstable_entries_into(&mut unstable);
        assert_eq!(unstable.len(), 1);
    }

    /// The term runs answer as the entries themselves do, through seeded random appends
    /// (with truncations), compactions and snapshots.
    #[test]
    fn term_runs_agree_with_the_entries() {
        let mut rng = crate::base::Rng::new(11);
        let mut log = log_of(&[1, 1, 2]);
        for step in 0..3_000 {
            let last = log.last_index();
            match rng.range(0, 10) {
                0 => {
                    log.applied = last;
                    log.compact_to(log.snapshot_index + rng.range(0, 3));
                }
                1 => {
                    let at = log.snapshot_index + rng.range(0, 3);
                    log.restore_snapshot(at, log.term(at).unwrap_or(log.last_term() + 1));
                }
                2..=4 => {
                    let term = log.last_term() + rng.range(0, 2);
                    log.push(Entry::normal(last + 1, term, vec![]));
                }
                _ => {
                    let from = last.saturating_sub(rng.range(0, 4)).max(log.snapshot_index) + 1;
                    let term = log.last_term() + rng.range(0, 2);
                    log.append(&ents(from, &vec![term; rng.range(1, 4) as usize]));
                }
            }
            let brute = |i: Index| {
                (i == log.snapshot_index)
                    .then_some(log.snapshot_term)
                    .or_else(|| log.entry(i).map(|e| e.term))
            };
            for i in log.snapshot_index.saturating_sub(1)..=log.last_index() + 1 {
                assert_eq!(log.term(i), brute(i), "step {step}, index {i}");
            }
            assert_eq!(
                log.last_term(),
                brute(log.last_index()).unwrap(),
                "step {step}"
            );
        }
    }

    #[test]
    fn compaction_keeps_terms_answerable() {
        let mut log = log_of(&[1, 1, 2, 2]);
        log.committed = 3;
        log.applied = 3;
        assert!(!log.compact_to(4), "cannot compact past applied");
        assert!(log.compact_to(3));
        assert_eq!(log.term(3), Some(2));
        assert_eq!(log.term(2), None);
        assert_eq!(log.first_index(), 4);
        assert_eq!(log.entries_from(4, 10).len(), 1);
        assert!(log.entries_from(2, 10).is_empty());
    }
}
