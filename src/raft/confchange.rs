//! Membership changes (Raft §6, thesis §4): the configuration as data, and how a change turns
//! one configuration into the next. A change of one voter is applied directly; a change of more
//! than one voter goes through joint consensus (C_old,new, then C_new).

use crate::base::MemberId;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fmt;

/// Who votes and who only listens. While `voters_outgoing` is non-empty the cluster is in a
/// joint configuration: every decision needs a majority of both voter sets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfState {
    pub voters: BTreeSet<MemberId>,
    pub voters_outgoing: BTreeSet<MemberId>,
    pub learners: BTreeSet<MemberId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfChangeOp {
    AddVoter,
    AddLearner,
    Remove,
}

/// The payload of a configuration entry. No changes at all means "leave the joint state".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfChange {
    pub changes: Vec<(ConfChangeOp, MemberId)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfError {
    /// A new change while a joint configuration is still in force.
    InJoint,
    NotJoint,
    /// The change would leave no voter at all.
    NoVoters,
    /// A voter can only become a learner after being removed (no demotion in one step here).
    Demotion(MemberId),
    Undecodable,
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfError::InJoint => f.write_str("a joint configuration is still in progress"),
            ConfError::NotJoint => f.write_str("not in a joint configuration"),
            ConfError::NoVoters => f.write_str("the change would remove every voter"),
            ConfError::Demotion(m) => {
                write!(f, "{m} is a voter: remove it before adding it as a learner")
            }
            ConfError::Undecodable => f.write_str("undecodable configuration change"),
        }
    }
}

impl ConfChange {
    pub fn single(op: ConfChangeOp, member: MemberId) -> ConfChange {
        ConfChange {
            changes: vec![(op, member)],
        }
    }

    pub fn leave_joint() -> ConfChange {
        ConfChange::default()
    }

    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub fn decode(data: &[u8]) -> Result<ConfChange, ConfError> {
        serde_json::from_slice(data).map_err(|_| ConfError::Undecodable)
    }

    /// `+m4 ~m5 -m2`, or `leave-joint`.
    pub fn describe(&self) -> String {
        if self.changes.is_empty() {
            return "leave-joint".into();
        }
        let parts: Vec<String> = self
            .changes
            .iter()
            .map(|(op, m)| match op {
                ConfChangeOp::AddVoter => format!("+{m}"),
                ConfChangeOp::AddLearner => format!("~{m}"),
                ConfChangeOp::Remove => format!("-{m}"),
            })
            .collect();
        parts.join(" ")
    }
}

impl ConfState {
    pub fn is_joint(&self) -> bool {
        !self.voters_outgoing.is_empty()
    }

    pub fn contains(&self, id: MemberId) -> bool {
        self.voters.contains(&id)
            || self.voters_outgoing.contains(&id)
            || self.learners.contains(&id)
    }

    /// Every member of the configuration, voters of either half and learners, in order.
    pub fn members(&self) -> BTreeSet<MemberId> {
        self.voters
            .iter()
            .chain(&self.voters_outgoing)
            .chain(&self.learners)
            .copied()
            .collect()
    }

    /// The configuration after `cc`.
    pub fn apply(&self, cc: &ConfChange) -> Result<ConfState, ConfError> {
        if cc.changes.is_empty() {
            if !self.is_joint() {
                return Err(ConfError::NotJoint);
            }
            return Ok(ConfState {
                voters: self.voters.clone(),
                voters_outgoing: BTreeSet::new(),
                learners: self.learners.clone(),
            });
        }
        if self.is_joint() {
            return Err(ConfError::InJoint);
        }
        let mut voters = self.voters.clone();
        let mut learners = self.learners.clone();
        for (op, member) in &cc.changes {
            match op {
                ConfChangeOp::AddVoter => {
                    learners.remove(member);
                    voters.insert(*member);
                }
                ConfChangeOp::AddLearner => {
                    if voters.contains(member) {
                        return Err(ConfError::Demotion(*member));
                    }
                    learners.insert(*member);
                }
                ConfChangeOp::Remove => {
                    voters.remove(member);
                    learners.remove(member);
                }
            }
        }
        if voters.is_empty() {
            return Err(ConfError::NoVoters);
        }
        let changed_voters = voters.symmetric_difference(&self.voters).count();
        let voters_outgoing = if changed_voters > 1 {
            self.voters.clone()
        } else {
            BTreeSet::new()
        };
        Ok(ConfState {
            voters,
            voters_outgoing,
            learners,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(xs: &[u64]) -> BTreeSet<MemberId> {
        xs.iter().map(|x| MemberId(*x)).collect()
    }

    fn conf(voters: &[u64]) -> ConfState {
        ConfState {
            voters: ids(voters),
            ..ConfState::default()
        }
    }

    #[test]
    fn one_voter_changes_directly() {
        let c = conf(&[1, 2, 3])
            .apply(&ConfChange::single(ConfChangeOp::AddVoter, MemberId(4)))
            .unwrap();
        assert_eq!(c.voters, ids(&[1, 2, 3, 4]));
        assert!(!c.is_joint());
        let c = c
            .apply(&ConfChange::single(ConfChangeOp::Remove, MemberId(1)))
            .unwrap();
        assert_eq!(c.voters, ids(&[2, 3, 4]));
    }

    #[test]
    fn two_voters_go_through_joint_consensus() {
        let cc = ConfChange {
            changes: vec![
                (ConfChangeOp::AddVoter, MemberId(4)),
                (ConfChangeOp::Remove, MemberId(1)),
            ],
        };
        let joint = conf(&[1, 2, 3]).apply(&cc).unwrap();
        assert!(joint.is_joint());
        assert_eq!(joint.voters, ids(&[2, 3, 4]));
        assert_eq!(joint.voters_outgoing, ids(&[1, 2, 3]));
        assert_eq!(joint.apply(&cc), Err(ConfError::InJoint));
        let done = joint.apply(&ConfChange::leave_joint()).unwrap();
        assert_eq!(done, conf(&[2, 3, 4]));
        assert_eq!(
            done.apply(&ConfChange::leave_joint()),
            Err(ConfError::NotJoint)
        );
    }

    #[test]
    fn learners_are_added_and_promoted_and_never_counted_as_voters() {
        let c = conf(&[1])
            .apply(&ConfChange::single(ConfChangeOp::AddLearner, MemberId(2)))
            .unwrap();
        assert_eq!(c.learners, ids(&[2]));
        assert!(c.contains(MemberId(2)) && !c.voters.contains(&MemberId(2)));
        let c = c
            .apply(&ConfChange::single(ConfChangeOp::AddVoter, MemberId(2)))
            .unwrap();
        assert_eq!(c.voters, ids(&[1, 2]));
        assert!(c.learners.is_empty());
        assert_eq!(
            c.apply(&ConfChange::single(ConfChangeOp::AddLearner, MemberId(1))),
            Err(ConfError::Demotion(MemberId(1)))
        );
    }

    #[test]
    fn never_zero_voters_and_round_trip() {
        assert_eq!(
            conf(&[1]).apply(&ConfChange::single(ConfChangeOp::Remove, MemberId(1))),
            Err(ConfError::NoVoters)
        );
        let cc = ConfChange::single(ConfChangeOp::AddLearner, MemberId(7));
        assert_eq!(ConfChange::decode(&cc.encode()), Ok(cc.clone()));
        assert_eq!(cc.describe(), "~m7");
        assert_eq!(ConfChange::decode(b"junk"), Err(ConfError::Undecodable));
    }
}
