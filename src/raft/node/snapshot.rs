//! Snapshots (§7): compacting the log into the driver's state machine image, asking the
//! driver to send it to followers that fell behind it, and installing one from a leader.

use super::Raft;
use crate::base::Index;
use crate::raft::confchange::ConfState;
use crate::raft::message::{Body, Message};
use crate::raft::ready::{Snapshot, SnapshotRequest};
use crate::raft::Role;

impl Raft {
    /// Discards the log up to `index` (applied) into a snapshot whose state machine data the
    /// driver keeps; returns the configuration at that point, which the driver persists with it.
    pub fn compact(&mut self, index: Index) -> Option<ConfState> {
        let conf = self.conf_at(index);
        if !self.log.compact_to(index) {
            return None;
        }
        self.snapshot_conf = conf.clone();
        Some(conf)
    }

    /// Followers that need the snapshot, marked as sent (the driver sends it with this
    /// Ready's messages).
    pub(super) fn take_snapshot_requests(&mut self) -> Vec<SnapshotRequest> {
        let (index, snapshot_term) = (self.log.snapshot_index, self.log.snapshot_term);
        let Role::Leader(state) = &mut self.role else {
            return Vec::new();
        };
        let wanted = state.snapshot_wanted();
        for to in &wanted {
            state.snapshot_sent(*to, index);
        }
        let request = |to| SnapshotRequest {
            from: self.id,
            to,
            term: self.term,
            index,
            snapshot_term,
            conf: self.snapshot_conf.clone(),
        };
        wanted.into_iter().map(request).collect()
    }

    /// InstallSnapshot (§7): a snapshot we already cover only advances commit; otherwise it
    /// replaces the log and the state machine (through the Ready).
    pub(super) fn handle_snapshot(&mut self, m: Message) {
        let Body::Snapshot {
            index,
            term,
            conf,
            data,
        } = m.body
        else {
            return;
        };
        let accepted_to = if index <= self.log.committed {
            self.log.committed
        } else if self.log.match_term(index, term) {
            self.log.commit_to(index);
            index
        } else {
            self.log.restore_snapshot(index, term);
            self.snapshot_conf = (*conf).clone();
            self.conf = ConfState::default();
            self.reload_conf();
            self.pending_snapshot = Some(Snapshot {
                index,
                term,
                conf: *conf,
                data,
            });
            index
        };
        let body = Body::AppendResp {
            index: accepted_to,
            reject: false,
            hint_index: 0,
            hint_term: 0,
            heartbeat: false,
            read_ctx: 0,
        };
        self.send(Message {
            from: self.id,
            to: m.from,
            term: self.term,
            body,
        });
    }
}
