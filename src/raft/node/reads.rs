//! Linearizable reads (§8, thesis §6.4): a leader serves a read at its commit index once a
//! quorum of heartbeats sent after the read confirms it still leads.

use super::Raft;
use crate::base::{Index, MemberId};
use crate::raft::message::{Body, Message};
use crate::raft::read_only::ReadState;
use crate::raft::Role;

impl Raft {
    pub(super) fn committed_in_term(&self) -> bool {
        self.log.term(self.log.committed) == Some(self.term)
    }

    pub(super) fn leader_read_index(&mut self, from: MemberId, ctx: u64) {
        if !self.committed_in_term() {
            if let Role::Leader(state) = &mut self.role {
                state.reads.wait(from, ctx);
            }
            return;
        }
        let index = self.log.committed;
        if self.voters.voters().len() == 1 {
            self.serve_read(from, ctx, index);
            return;
        }
        if let Role::Leader(state) = &mut self.role {
            state.reads.add(self.id, from, ctx, index);
        }
        self.bcast_heartbeat(ctx);
    }

    pub(super) fn release_waiting_reads(&mut self) {
        if !self.committed_in_term() {
            return;
        }
        let waiting = match &mut self.role {
            Role::Leader(state) => state.reads.take_waiting(),
            _ => return,
        };
        for (from, ctx) in waiting {
            self.leader_read_index(from, ctx);
        }
    }

    pub(super) fn ack_read(&mut self, from: MemberId, ctx: u64) {
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        let voters = &self.voters;
        let done = state
            .reads
            .ack(from, ctx, |acks| voters.is_active(|v| acks.contains(&v)));
        for read in done {
            self.serve_read(read.from, read.ctx, read.index);
        }
    }

    fn serve_read(&mut self, from: MemberId, ctx: u64, index: Index) {
        if from == self.id {
            self.read_states.push(ReadState { ctx, index });
        } else {
            let body = Body::ReadIndexResp { ctx, index };
            self.send(Message {
                from: self.id,
                to: from,
                term: self.term,
                body,
            });
        }
    }
}
