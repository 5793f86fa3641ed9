//! Elections (§5.2): timeouts, pre-vote (thesis §9.6), votes and the role changes they
//! cause, and leadership transfer (thesis §3.10), which ends in an election.

use super::{Raft, Role, RoleName};
use crate::base::{Index, MemberId, Term};
use crate::raft::log::EntryKind;
use crate::raft::message::{Body, Message};
use crate::raft::quorum::VoteResult;
use crate::raft::ready::{NodeEvent, StepDown, VoteRefusal};
use crate::raft::tracker::LeaderState;
use std::collections::BTreeMap;

impl Raft {
    pub(super) fn reset(&mut self, term: Term) {
        if term != self.term {
            self.term = term;
            self.vote = None;
        }
        self.leader = None;
        self.election_elapsed = 0;
        self.heartbeat_elapsed = 0;
        self.reset_randomized_election_timeout();
    }

    pub(super) fn reset_randomized_election_timeout(&mut self) {
        let base = u64::from(self.config.election_tick);
        self.randomized_election_timeout = self.rng.range(base, 2 * base) as u32;
    }

    pub(super) fn become_follower(&mut self, term: Term, leader: Option<MemberId>) {
        let was = self.role.name();
        self.reset(term);
        self.role = Role::Follower;
        self.leader = leader;
        if was != RoleName::Follower {
            self.events.push(NodeEvent::BecameRole {
                role: RoleName::Follower,
                term,
            });
        }
    }

    pub(super) fn step_down(&mut self, term: Term, reason: StepDown) {
        self.events.push(NodeEvent::SteppedDown { term, reason });
        self.become_follower(term, None);
    }

    pub(super) fn become_pre_candidate(&mut self) {
        // Pre-vote changes neither term nor vote (thesis §9.6).
        self.role = Role::PreCandidate {
            votes: BTreeMap::new(),
        };
        self.leader = None;
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::PreCandidate,
            term: self.term,
        });
    }

    pub(super) fn become_candidate(&mut self) {
        self.reset(self.term + 1);
        self.vote = Some(self.id);
        self.role = Role::Candidate {
            votes: BTreeMap::new(),
        };
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::Candidate,
            term: self.term,
        });
    }

    pub(super) fn become_leader(&mut self) {
        self.reset(self.term);
        self.leader = Some(self.id);
        let state = LeaderState::new(
            self.id,
            self.voters.voters(),
            &self.learners,
            self.log.last_index() + 1,
            self.log.stable_index,
            self.config.max_inflight,
        );
        self.role = Role::Leader(Box::new(state));
        self.events.push(NodeEvent::BecameRole {
            role: RoleName::Leader,
            term: self.term,
        });
        // An empty entry of the new term: committing it commits everything before (§5.4.2),
        // and lets reads be served (§8).
        self.append_entry(EntryKind::Normal, Vec::new());
    }

    /// Starts an election: a pre-vote round first when enabled, unless this is a transfer.
    pub(super) fn hup(&mut self, transfer: bool) {
        if self.is_leader() || !self.promotable() {
            return;
        }
        if self.config.pre_vote && !transfer {
            self.campaign(true, false);
        } else {
            self.campaign(false, transfer);
        }
    }

    /// Forces this member's election timer to fire now (the UI's "time out" button).
    /// A leader ignores it (as etcd does): resetting its election clock would also postpone
    /// its check-quorum.
    pub fn force_timeout(&mut self) {
        if self.is_leader() {
            return;
        }
        self.election_elapsed = 0;
        self.hup(false);
    }

    pub(super) fn campaign(&mut self, pre: bool, transfer: bool) {
        let term = if pre {
            self.become_pre_candidate();
            self.term + 1
        } else {
            self.become_candidate();
            self.term
        };
        self.record_vote(self.id, true);
        if self.poll() {
            return;
        }
        let (last_index, last_term) = (self.log.last_index(), self.log.last_term());
        for peer in self.voters.voters() {
            if peer == self.id {
                continue;
            }
            let body = if pre {
                Body::PreVote {
                    last_index,
                    last_term,
                }
            } else {
                Body::RequestVote {
                    last_index,
                    last_term,
                    transfer,
                }
            };
            self.send(Message {
                from: self.id,
                to: peer,
                term,
                body,
            });
        }
    }

    pub(super) fn record_vote(&mut self, from: MemberId, granted: bool) {
        if let Role::PreCandidate { votes } | Role::Candidate { votes } = &mut self.role {
            votes.entry(from).or_insert(granted);
        }
    }

    /// Acts on the votes so far; true if the campaign ended (won or lost).
    pub(super) fn poll(&mut self) -> bool {
        let (pre, result) = match &self.role {
            Role::PreCandidate { votes } => (true, self.voters.vote_result(votes)),
            Role::Candidate { votes } => (false, self.voters.vote_result(votes)),
            _ => return true,
        };
        match result {
            VoteResult::Won if pre => {
                self.campaign(false, false);
                true
            }
            // Our own vote counts once it is on disk (etcd-io/raft delivers the self-vote
            // after the append); with other voters their grants come later anyway, but a
            // lone voter would otherwise lead a term it could forget in a crash and lead again
            // with other entries. `advance` polls again once the hard state is persisted.
            VoteResult::Won if self.hard_state().must_sync(&self.persisted_hard_state) => false,
            VoteResult::Won => {
                self.become_leader();
                self.bcast_append();
                true
            }
            VoteResult::Lost => {
                self.become_follower(self.term, None);
                true
            }
            VoteResult::Pending => false,
        }
    }

    pub(super) fn handle_vote_request(
        &mut self,
        m: &Message,
        last_index: Index,
        last_term: Term,
        pre: bool,
    ) {
        // We can vote for the one we already voted for, for anyone if we have neither voted
        // nor a leader this term, and in any pre-vote for a later term.
        let can_vote = self.vote == Some(m.from)
            || (self.vote.is_none() && self.leader.is_none())
            || (pre && m.term > self.term);
        let log_ok = self.config.teaching.vote_without_log_check
            || self.log.is_up_to_date(last_index, last_term);
        let grant = can_vote && log_ok;
        if !grant {
            let reason = match (log_ok, self.vote, self.leader) {
                (false, _, _) => VoteRefusal::LogBehind,
                (true, Some(vote), _) => VoteRefusal::AlreadyVoted { vote },
                (true, None, Some(leader)) => VoteRefusal::HasLeader { leader },
                // can_vote holds without a vote and a leader, so log_ok must have failed.
                (true, None, None) => VoteRefusal::LogBehind,
            };
            self.refuse_vote(m, pre, reason);
        }
        let resp_term = if grant { m.term } else { self.term };
        let body = if pre {
            Body::PreVoteResp { reject: !grant }
        } else {
            Body::RequestVoteResp { reject: !grant }
        };
        if grant && !pre {
            self.election_elapsed = 0;
            self.vote = Some(m.from);
            self.events.push(NodeEvent::Voted {
                candidate: m.from,
                term: self.term,
            });
        }
        self.send(Message {
            from: self.id,
            to: m.from,
            term: resp_term,
            body,
        });
    }

    /// Records why a (pre-)vote for `m.from` was not granted, for the narration.
    pub(super) fn refuse_vote(&mut self, m: &Message, pre: bool, reason: VoteRefusal) {
        self.events.push(NodeEvent::RefusedVote {
            candidate: m.from,
            term: m.term,
            pre,
            reason,
        });
    }

    pub(super) fn step_candidate(&mut self, m: Message) {
        let pre = matches!(self.role, Role::PreCandidate { .. });
        match m.body {
            Body::Append { .. } => {
                self.become_follower(m.term, Some(m.from));
                self.handle_append(m);
            }
            Body::Snapshot { .. } => {
                self.become_follower(m.term, Some(m.from));
                self.handle_snapshot(m);
            }
            Body::PreVoteResp { reject } if pre => {
                self.record_vote(m.from, !reject);
                self.poll();
            }
            Body::RequestVoteResp { reject } if !pre => {
                self.record_vote(m.from, !reject);
                self.poll();
            }
            _ => {}
        }
    }

    /// Asks this member (if leader) to hand leadership to `target`.
    pub fn transfer_leader(&mut self, target: MemberId) {
        if !self.is_leader() {
            self.forward_to_leader(self.id, Body::TransferLeader { target });
            return;
        }
        if target == self.id || !self.voters.contains(target) {
            return;
        }
        let last_index = self.log.last_index();
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        state.transferee = Some(target);
        state.transfer_elapsed = 0;
        let caught_up = state
            .progress
            .get(&target)
            .is_some_and(|pr| pr.match_index == last_index);
        if caught_up {
            self.send(Message {
                from: self.id,
                to: target,
                term: self.term,
                body: Body::TimeoutNow,
            });
        } else {
            self.send_append(target, true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Rng;
    use crate::raft::Config;

    fn persist(node: &mut Raft) -> Vec<NodeEvent> {
        let mut events = Vec::new();
        while node.has_ready() {
            let rd = node.ready();
            events.extend(rd.events.iter().cloned());
            node.advance(&rd);
        }
        events
    }

    fn member(id: u64) -> Raft {
        let voters = vec![MemberId(1), MemberId(2), MemberId(3)];
        let mut node = Raft::new(Config::new(MemberId(id), voters), Rng::new(id));
        persist(&mut node);
        node
    }

    fn pre_vote(from: u64, term: Term, last_index: Index, last_term: Term) -> Message {
        Message {
            from: MemberId(from),
            to: MemberId(2),
            term,
            body: Body::PreVote {
                last_index,
                last_term,
            },
        }
    }

    fn refusals(events: &[NodeEvent]) -> Vec<VoteRefusal> {
        events
            .iter()
            .filter_map(|e| match e {
                NodeEvent::RefusedVote { reason, .. } => Some(*reason),
                _ => None,
            })
            .collect()
    }

    /// Thesis §4.2.3: within its leader's lease a follower ignores a pre-vote, and says why.
    #[test]
    fn a_follower_in_its_leaders_lease_ignores_a_pre_vote_and_says_why() {
        let mut node = member(2);
        node.become_follower(2, Some(MemberId(1)));
        persist(&mut node);
        let (last_index, last_term) = (node.log.last_index(), node.log.last_term());
        node.step(pre_vote(3, 3, last_index, last_term));
        let events = persist(&mut node);
        let leader = MemberId(1);
        assert_eq!(refusals(&events), [VoteRefusal::LeaderLease { leader }]);
        assert!(
            node.msgs.is_empty(),
            "no answer is sent in the lease: {:?}",
            node.msgs
        );
        let line = events.last().map(ToString::to_string).unwrap_or_default();
        assert_eq!(
            line,
            "refused the pre-vote of m3 for term 3: it heard from leader m1 within the election timeout (check-quorum)"
        );
    }

    #[test]
    fn a_candidate_with_a_shorter_log_is_refused_for_its_log() {
        let mut node = member(2);
        node.step(pre_vote(3, 2, 0, 0));
        let events = persist(&mut node);
        assert_eq!(refusals(&events), [VoteRefusal::LogBehind]);
    }

    #[test]
    fn a_second_candidate_of_the_same_term_is_refused_for_the_vote_already_given() {
        let mut node = member(2);
        let (last_index, last_term) = (node.log.last_index(), node.log.last_term());
        let ask = |from: u64| Message {
            from: MemberId(from),
            to: MemberId(2),
            term: 2,
            body: Body::RequestVote {
                last_index,
                last_term,
                transfer: false,
            },
        };
        node.step(ask(1));
        node.step(ask(3));
        let events = persist(&mut node);
        let vote = MemberId(1);
        assert_eq!(refusals(&events), [VoteRefusal::AlreadyVoted { vote }]);
        node.step(pre_vote(3, 1, last_index, last_term));
        let events = persist(&mut node);
        assert_eq!(refusals(&events), [VoteRefusal::StaleTerm { term: 2 }]);
    }

    #[test]
    fn a_campaign_shows_who_granted_and_who_refused() {
        let mut node = member(1);
        assert!(node.view().votes.is_empty(), "a follower has no tally");
        node.force_timeout();
        persist(&mut node);
        assert_eq!(node.role_name(), RoleName::PreCandidate);
        node.step(Message {
            from: MemberId(3),
            to: MemberId(1),
            term: 1,
            body: Body::PreVoteResp { reject: true },
        });
        let votes = node.view().votes;
        assert_eq!(votes, [(MemberId(1), true), (MemberId(3), false)]);
    }
}
