//! Membership (thesis §4): the configuration in force, read from the log; one change at a
//! time through the leader, joint consensus left automatically once committed.

use super::{ProposeError, Raft};
use crate::base::Index;
use crate::raft::confchange::{ConfChange, ConfState};
use crate::raft::log::EntryKind;
use crate::raft::quorum::{JointConfig, Majority};
use crate::raft::ready::{NodeEvent, StepDown};
use crate::raft::Role;

impl Raft {
    /// The configuration after the log's entries up to `upto`, starting from the snapshot's.
    pub fn conf_at(&self, upto: Index) -> ConfState {
        let mut conf = self.snapshot_conf.clone();
        for entry in self.log.entries.iter().take_while(|e| e.index <= upto) {
            if entry.kind == EntryKind::Config {
                if let Ok(next) = ConfChange::decode(&entry.data).and_then(|cc| conf.apply(&cc)) {
                    conf = next;
                }
            }
        }
        conf
    }

    /// The index of the last configuration entry in the log (0 if none).
    pub(super) fn last_conf_index(&self) -> Index {
        self.conf_index
    }
    /// Recomputes the configuration from the log; a leader starts or stops tracking members.
    pub(super) fn reload_conf(&mut self) {
        self.conf_index = self
            .log
            .entries
            .iter()
            .rev()
            .find(|e| e.kind == EntryKind::Config)
            .map_or(0, |e| e.index);
        let conf = self.conf_at(Index::MAX);
        if conf == self.conf {
            return;
        }
        self.voters = JointConfig {
            incoming: Majority::new(conf.voters.iter().copied()),
            outgoing: Majority::new(conf.voters_outgoing.iter().copied()),
        };
        self.learners = conf.learners.clone();
        let (next, max_inflight) = (self.log.last_index() + 1, self.config.max_inflight);
        if let Role::Leader(state) = &mut self.role {
            state.track(self.id, &conf, next, max_inflight);
        }
        self.conf = conf;
    }

    /// A voter of the current configuration (learners and removed members never campaign),
    /// or a voter that the latest configuration entry removes while that entry is not known
    /// to be committed. Such a member must still be able to campaign (counting votes in the
    /// new configuration, itself excluded): when a leader loses its quorum right after
    /// appending its own removal, the others still have the old configuration and may need
    /// its vote, which it refuses them if its log is longer (§5.4.1); without its candidacy
    /// no one could ever win. LogCabin's `startNewElection` has the same rule.
    pub fn promotable(&self) -> bool {
        if self.voters.contains(self.id) {
            return true;
        }
        let pending = self.conf_index > self.log.committed;
        pending && {
            let before = self.conf_at(self.conf_index - 1);
            before.voters.contains(&self.id) || before.voters_outgoing.contains(&self.id)
        }
    }

    /// Proposes a membership change (leader only). One at a time: refused while an earlier
    /// configuration entry is uncommitted, and until this leader has committed an entry of
    /// its own term. A new leader's log may lack a change another member appended in an
    /// earlier term; only once its own entry is on a quorum can no such member win an
    /// election any more (Ongaro's single-server change bug, 2015; etcd-io/raft's
    /// `pendingConfIndex` starts at the new leader's last index for the same reason).
    pub fn propose_conf_change(&mut self, cc: ConfChange) -> Result<(), ProposeError> {
        let Role::Leader(state) = &self.role else {
            return Err(ProposeError::ProposalDropped);
        };
        if state.transferee.is_some() {
            return Err(ProposeError::ProposalDropped);
        }
        if self.last_conf_index() > self.log.committed || !self.committed_in_term() {
            return Err(ProposeError::ConfChangePending);
        }
        self.conf.apply(&cc).map_err(ProposeError::BadConfChange)?;
        self.events.push(NodeEvent::Configuration {
            index: self.log.last_index() + 1,
            change: cc.describe(),
        });
        self.append_entry(EntryKind::Config, cc.encode());
        self.bcast_append();
        Ok(())
    }

    /// After the commit index moved: leave a committed joint configuration (etcd's automatic
    /// transition), and step down if this leader is no longer a voter (thesis §4.2.2).
    pub(super) fn after_commit(&mut self) {
        if !self.is_leader() || self.last_conf_index() > self.log.committed {
            return;
        }
        if self.conf.is_joint() {
            let cc = ConfChange::leave_joint();
            self.events.push(NodeEvent::Configuration {
                index: self.log.last_index() + 1,
                change: cc.describe(),
            });
            self.append_entry(EntryKind::Config, cc.encode());
            self.bcast_append();
        } else if !self.conf.voters.contains(&self.id) {
            self.step_down(self.term, StepDown::Removed);
        }
    }
}
