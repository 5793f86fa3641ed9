//! What a leader knows about each follower's log (etcd-io/raft `tracker/progress.go`).

use crate::base::Index;
use serde::Serialize;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProgressState {
    /// Unknown match: send one append at a time and wait for the answer.
    Probe,
    /// Known match: stream appends optimistically, up to the inflight window.
    Replicate,
    /// Too far behind the compacted log: a snapshot is on its way.
    Snapshot,
}

#[derive(Clone, Debug)]
pub struct Progress {
    pub match_index: Index,
    pub next_index: Index,
    pub state: ProgressState,
    /// In Probe: an append was sent and not yet answered.
    pub probe_sent: bool,
    /// In Snapshot: the index of the snapshot sent.
    pub pending_snapshot: Index,
    /// Heard from since the last check-quorum round.
    pub recent_active: bool,
    pub is_learner: bool,
    /// Last index of each append in flight (Replicate only).
    pub inflights: VecDeque<Index>,
    pub max_inflight: usize,
}

impl Progress {
    pub fn new(next_index: Index, max_inflight: usize, is_learner: bool) -> Progress {
        Progress {
            match_index: 0,
            next_index,
            state: ProgressState::Probe,
            probe_sent: false,
            pending_snapshot: 0,
            recent_active: false,
            is_learner,
            inflights: VecDeque::new(),
            max_inflight: max_inflight.max(1),
        }
    }

    fn reset_state(&mut self, state: ProgressState) {
        self.state = state;
        self.probe_sent = false;
        self.pending_snapshot = 0;
        self.inflights.clear();
    }

    pub fn become_probe(&mut self) {
        let next = if self.state == ProgressState::Snapshot {
            self.match_index.max(self.pending_snapshot) + 1
        } else {
            self.match_index + 1
        };
        self.reset_state(ProgressState::Probe);
        self.next_index = next;
    }

    pub fn become_replicate(&mut self) {
        self.reset_state(ProgressState::Replicate);
        self.next_index = self.match_index + 1;
    }

    pub fn become_snapshot(&mut self, snapshot_index: Index) {
        self.reset_state(ProgressState::Snapshot);
        self.pending_snapshot = snapshot_index;
    }

    /// An acknowledgement up to `index`: true if it taught us something new.
    pub fn maybe_update(&mut self, index: Index) -> bool {
        let updated = self.match_index < index;
        if updated {
            self.match_index = index;
            self.probe_sent = false;
        }
        self.next_index = self.next_index.max(index + 1);
        updated
    }

    /// A rejection of the append whose previous index was `rejected`; `hint` is the follower's
    /// guess of where the logs agree. False when the rejection is stale.
    pub fn maybe_decr_to(&mut self, rejected: Index, hint: Index) -> bool {
        if self.state == ProgressState::Replicate {
            if rejected <= self.match_index {
                return false;
            }
            self.next_index = self.match_index + 1;
            return true;
        }
        if self.next_index == 0 || self.next_index - 1 != rejected {
            return false;
        }
        self.next_index = rejected.min(hint + 1).max(self.match_index + 1).max(1);
        self.probe_sent = false;
        true
    }

    /// Records an append just sent whose last entry is `last` (None: no entries).
    pub fn sent_entries(&mut self, last: Option<Index>) {
        match self.state {
            ProgressState::Replicate => {
                if let Some(last) = last {
                    self.next_index = last + 1;
                    self.inflights.push_back(last);
                }
            }
            ProgressState::Probe => self.probe_sent = true,
            ProgressState::Snapshot => {}
        }
    }

    /// Entries up to `last` joined the append last sent (still unsent): the window holds the
    /// same number of messages, its last one now ending at `last`.
    pub fn batched_entries(&mut self, last: Index) {
        self.next_index = last + 1;
        if let Some(back) = self.inflights.back_mut() {
            *back = last;
        }
    }

    /// Acknowledged appends leave the window.
    pub fn free_inflights_to(&mut self, index: Index) {
        while self.inflights.front().is_some_and(|last| *last <= index) {
            self.inflights.pop_front();
        }
    }

    pub fn inflight_full(&self) -> bool {
        self.inflights.len() >= self.max_inflight
    }

    pub fn is_paused(&self) -> bool {
        match self.state {
            ProgressState::Probe => self.probe_sent,
            ProgressState::Replicate => self.inflight_full(),
            ProgressState::Snapshot => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_sends_one_at_a_time() {
        let mut pr = Progress::new(5, 4, false);
        assert!(!pr.is_paused());
        pr.sent_entries(Some(7));
        assert!(pr.is_paused());
        assert!(pr.maybe_update(7));
        assert!(!pr.is_paused());
        assert_eq!(pr.next_index, 8);
    }

    #[test]
    fn replicate_window_fills_and_frees() {
        let mut pr = Progress::new(1, 2, false);
        pr.become_replicate();
        pr.sent_entries(Some(3));
        pr.sent_entries(Some(6));
        assert!(pr.is_paused());
        assert_eq!(pr.next_index, 7);
        pr.free_inflights_to(3);
        assert!(!pr.is_paused());
    }

    #[test]
    fn decrement_rules() {
        // (state replicate?, match, next, rejected, hint) -> (changed, next after)
        let cases = [
            (true, 5, 10, 5, 0, false, 10),
            (true, 5, 10, 9, 9, true, 6),
            (false, 0, 10, 9, 3, true, 4),
            (false, 0, 10, 5, 3, false, 10), // stale: not the last probe
            (false, 2, 10, 9, 0, true, 3),   // never below match + 1
        ];
        for (replicate, m, next, rejected, hint, changed, next_after) in cases {
            let mut pr = Progress::new(next, 4, false);
            pr.match_index = m;
            if replicate {
                pr.state = ProgressState::Replicate;
            }
            assert_eq!(
                pr.maybe_decr_to(rejected, hint),
                changed,
                "{rejected} {hint}"
            );
            assert_eq!(pr.next_index, next_after);
        }
    }

    #[test]
    fn snapshot_then_probe_resumes_after_snapshot() {
        let mut pr = Progress::new(3, 4, false);
        pr.become_snapshot(20);
        assert!(pr.is_paused());
        pr.become_probe();
        assert_eq!(pr.next_index, 21);
    }
}
