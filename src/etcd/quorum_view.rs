//! What the page's quorum meter shows, computed with Raft's own majority rules over the
//! configuration in force, joint or not.

use super::cluster::Cluster;
use crate::base::MemberId;
use crate::raft::{JointConfig, Majority};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuorumView {
    /// Every voter of the configuration in force (both halves while it is joint), in order.
    pub voters: Vec<MemberId>,
    /// Whether a membership change is under way, so both halves must agree.
    pub joint: bool,
    /// The fewest voters that together make a quorum (of each half, while joint).
    pub quorum: usize,
    /// The voters in the largest group of running members that can all talk to each other.
    pub reachable: usize,
    /// The failures of voters the configuration survives whichever voters fail.
    pub tolerated_failures: usize,
    /// Of those, the failures still survivable now: how many more reachable voters may fail
    /// before no quorum is left (0 when there is none already).
    pub more_failures_tolerated: usize,
    /// A leader leads, and the voters it can reach make a quorum: a write would commit.
    pub writes_commit: bool,
}

impl QuorumView {
    /// The meter for `config` when the members in `group` can reach each other.
    pub fn of(config: &JointConfig, group: &[MemberId], has_leader: bool) -> QuorumView {
        let voters: Vec<MemberId> = config.voters().into_iter().collect();
        let reachable = voters.iter().filter(|v| group.contains(v)).count();
        let halves = halves(config);
        QuorumView {
            joint: config.is_joint(),
            quorum: fewest_for_quorum(config),
            reachable,
            tolerated_failures: halves
                .iter()
                .map(|h| h.voters.len().saturating_sub(h.quorum()))
                .min()
                .unwrap_or(0),
            more_failures_tolerated: halves
                .iter()
                .map(|h| {
                    let up = h.voters.iter().filter(|v| group.contains(v)).count();
                    up.saturating_sub(h.quorum())
                })
                .min()
                .unwrap_or(0),
            writes_commit: has_leader && config.is_active(|m| group.contains(&m)),
            voters,
        }
    }
}

/// The halves that vote: the incoming one, and the outgoing one while joint.
fn halves(config: &JointConfig) -> Vec<&Majority> {
    std::iter::once(&config.incoming)
        .chain(config.is_joint().then_some(&config.outgoing))
        .collect()
}

/// The size of the smallest set of voters that is a quorum of every half: voters in both
/// halves count twice, so they are taken first.
fn fewest_for_quorum(config: &JointConfig) -> usize {
    let halves = halves(config);
    let shared = config
        .incoming
        .voters
        .intersection(&config.outgoing.voters)
        .count();
    let largest_quorum = halves.iter().map(|h| h.quorum()).max().unwrap_or(0);
    let from_shared = shared.min(largest_quorum);
    from_shared
        + halves
            .iter()
            .map(|h| h.quorum().saturating_sub(from_shared))
            .sum::<usize>()
}

impl Cluster {
    /// The quorum meter as the leader (or else any running member) sees the configuration;
    /// with no member running, every member counts as a voter.
    pub fn quorum_view(&self) -> QuorumView {
        let seer = self.leader().or_else(|| {
            self.member_ids()
                .into_iter()
                .find(|m| self.node(*m).is_some())
        });
        let config = seer.and_then(|m| self.node(m)).map_or_else(
            || JointConfig::simple(self.member_ids()),
            |n| n.voters().clone(),
        );
        let group = self.largest_connected_group();
        QuorumView::of(&config, &group, self.leader().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[u64]) -> Vec<MemberId> {
        xs.iter().map(|x| MemberId(*x)).collect()
    }

    fn joint(incoming: &[u64], outgoing: &[u64]) -> JointConfig {
        JointConfig {
            incoming: Majority::new(ids(incoming)),
            outgoing: Majority::new(ids(outgoing)),
        }
    }

    #[test]
    fn a_simple_configuration_needs_a_majority() {
        // (voters, reachable, quorum, tolerated, commits)
        for (n, up, quorum, tolerated, commits) in [
            (1, 1, 1, 0, true),
            (3, 2, 2, 1, true),
            (3, 1, 2, 1, false),
            (4, 2, 3, 1, false),
            (5, 3, 3, 2, true),
            (11, 6, 6, 5, true),
        ] {
            let all: Vec<u64> = (1..=n).collect();
            let up: Vec<u64> = (1..=up).collect();
            let view = QuorumView::of(&JointConfig::simple(ids(&all)), &ids(&up), true);
            assert_eq!(view.voters.len(), n as usize);
            assert!(!view.joint);
            assert_eq!(view.quorum, quorum, "n={n}");
            assert_eq!(view.reachable, up.len());
            assert_eq!(view.tolerated_failures, tolerated, "n={n}");
            assert_eq!(view.writes_commit, commits, "n={n} up={up:?}");
        }
    }

    #[test]
    fn failures_already_suffered_leave_fewer_to_tolerate() {
        // (voters, reachable, more failures tolerated)
        for (n, up, more) in [
            (3, 3, 1),
            (3, 2, 0),
            (3, 1, 0),
            (5, 5, 2),
            (5, 4, 1),
            (5, 2, 0),
        ] {
            let all: Vec<u64> = (1..=n).collect();
            let up: Vec<u64> = (1..=up).collect();
            let view = QuorumView::of(&JointConfig::simple(ids(&all)), &ids(&up), true);
            assert_eq!(view.more_failures_tolerated, more, "n={n} up={up:?}");
        }
        // Joint: the half closest to losing its majority decides.
        let config = joint(&[3, 4, 5], &[1, 2, 3]);
        let view = QuorumView::of(&config, &ids(&[1, 2, 3, 4]), true);
        assert_eq!(view.more_failures_tolerated, 0, "the new half has 2 of 3");
    }

    #[test]
    fn without_a_leader_nothing_commits() {
        let view = QuorumView::of(
            &JointConfig::simple(ids(&[1, 2, 3])),
            &ids(&[1, 2, 3]),
            false,
        );
        assert!(!view.writes_commit);
    }

    #[test]
    fn a_joint_configuration_needs_a_majority_of_each_half() {
        // 1,2,3 -> 3,4,5: member 3 is in both halves; 3 with one of each side is the least.
        let config = joint(&[3, 4, 5], &[1, 2, 3]);
        let view = QuorumView::of(&config, &ids(&[1, 2, 3, 4, 5]), true);
        assert!(view.joint);
        assert_eq!(view.voters, ids(&[1, 2, 3, 4, 5]));
        assert_eq!(view.quorum, 3);
        assert_eq!(view.tolerated_failures, 1);
        // Three of five are reachable, a majority of the union, but only one of the new half.
        let view = QuorumView::of(&config, &ids(&[1, 2, 4]), true);
        assert_eq!(view.reachable, 3);
        assert!(!view.writes_commit);
        assert!(QuorumView::of(&config, &ids(&[1, 3, 4]), true).writes_commit);
        // Disjoint halves: a majority of each, nothing shared.
        let view = QuorumView::of(&joint(&[4, 5, 6], &[1, 2, 3]), &[], true);
        assert_eq!(view.quorum, 4);
        assert!(!view.writes_commit);
        // Adding a fourth voter: 1,2,3 -> 1,2,3,4 needs 3 of the new four, 2 of them old.
        assert_eq!(
            QuorumView::of(&joint(&[1, 2, 3, 4], &[1, 2, 3]), &[], true).quorum,
            3
        );
    }
}
