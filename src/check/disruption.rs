//! Disruption: a member that comes back from isolation with a higher term deposes a healthy
//! leader. Pre-vote (thesis §9.6) is what prevents it: an isolated member cannot win a
//! pre-vote, so its term does not grow while it is away.

use super::Scope;
use super::{hears_quorum, in_contact_with_quorum, Checker, Property, Violation};
use crate::base::{MemberId, Millis, Term};
use crate::raft::{Raft, RoleName};
use std::collections::{BTreeMap, BTreeSet};

/// A *disruption* is a leader deposed by a term raised in isolation:
/// - leader L of term T was, at the previous observation, running, in two-way contact with a
///   quorum of its voters that are up (see [`super::StaleLeader`]), and not transferring
///   leadership;
/// - L is now (same incarnation) in a higher term T';
/// - every member seen campaigning in T' (a candidate, or a leader that voted for itself, in
///   T') started that campaign after it had been *deaf* for at least an election timeout:
///   unable to hear from a quorum of its voters (the links to it from a quorum cut, or lossy
///   with probability 1), so it could not have won a pre-vote, only raise its term — and not
///   as the target of a leadership transfer (a transfer skips pre-vote by design: a leader of
///   T'−1 was seen handing over to it).
///
/// Requiring a whole election timeout of deafness leaves out a campaign that won its
/// pre-vote just before the member was cut off (or paused, then resumed with the grants in
/// its inbox): pre-vote cannot prevent that one either.
///
/// Without pre-vote, a member cut off from the others raises its term at every election
/// timeout; when it rejoins, the first message carrying that term (a vote request, or its
/// reply to the leader's heartbeat) makes the leader step down, although a quorum still
/// followed it. Each (leader, term) is reported once.
#[derive(Clone, Debug, Default)]
pub struct Disruption {
    /// term → every member seen campaigning in it, and whether its campaign could have won.
    campaigns: BTreeMap<Term, Vec<(MemberId, bool)>>,
    /// member → since when it has been unable to hear from a quorum.
    deaf_since: BTreeMap<MemberId, Millis>,
    /// (term, member): a leader of `term - 1` asked `member` to take over.
    transfers: BTreeSet<(Term, MemberId)>,
    /// member → how it was at the previous observation.
    previous: BTreeMap<MemberId, Previous>,
    reported: BTreeSet<(MemberId, Term)>,
}

#[derive(Clone, Copy, Debug)]
struct Previous {
    incarnation: u64,
    term: Term,
    /// Leading, in contact with a quorum and not transferring leadership.
    healthy_leader: bool,
}

impl Disruption {
    fn note_campaign(&mut self, cluster: &Scope, node: &Raft) {
        if hears_quorum(cluster, node) {
            self.deaf_since.remove(&node.id());
        } else {
            self.deaf_since.entry(node.id()).or_insert(cluster.now());
        }
        let campaigning = matches!(node.role_name(), RoleName::Candidate | RoleName::Leader)
            && node.vote() == Some(node.id());
        if !campaigning {
            return;
        }
        let seen = self.campaigns.entry(node.term()).or_default();
        if seen.iter().all(|(m, _)| *m != node.id()) {
            let transfer = self.transfers.contains(&(node.term(), node.id()));
            let window = Millis::from(node.config().election_tick) * cluster.tick_ms();
            let deaf = self
                .deaf_since
                .get(&node.id())
                .is_some_and(|since| cluster.now().saturating_sub(*since) >= window);
            seen.push((node.id(), transfer || !deaf));
        }
    }

    fn deposed_by(&self, term: Term) -> Option<MemberId> {
        let campaigns = self.campaigns.get(&term)?;
        let isolated = campaigns.iter().all(|(_, heard)| !heard);
        campaigns.first().filter(|_| isolated).map(|(m, _)| *m)
    }
}

impl Checker for Disruption {
    fn property(&self) -> Property {
        Property::Disruption
    }

    fn observe(&mut self, cluster: &Scope) -> Vec<Violation> {
        let mut out = Vec::new();
        for (id, member) in cluster.processes() {
            let Some(node) = member.node() else {
                self.previous.remove(&id);
                continue;
            };
            if let Some(to) = node.leader_state().and_then(|s| s.transferee()) {
                self.transfers.insert((node.term() + 1, to));
            }
            self.note_campaign(cluster, node);
            let incarnation = cluster.incarnation(id);
            if let Some(prev) = self.previous.get(&id) {
                let deposed = prev.healthy_leader
                    && prev.incarnation == incarnation
                    && node.term() > prev.term;
                let by = deposed.then(|| self.deposed_by(node.term())).flatten();
                if let Some(by) = by.filter(|by| *by != id) {
                    if self.reported.insert((id, prev.term)) {
                        out.push(Violation {
                            property: Property::Disruption,
                            time_ms: cluster.now(),
                            members: vec![by, id],
                            detail: format!(
                                "{by} raised its term to {} while it could not hear from a quorum, \
                                 and on rejoining deposed {id}, leader of term {}, which a quorum \
                                 could still reach",
                                node.term(), prev.term
                            ),
                        });
                    }
                }
            }
            let healthy_leader = node.is_leader()
                && node
                    .leader_state()
                    .is_some_and(|s| s.transferee().is_none())
                && in_contact_with_quorum(cluster, node);
            self.previous.insert(
                id,
                Previous {
                    incarnation,
                    term: node.term(),
                    healthy_leader,
                },
            );
        }
        out
    }
}
