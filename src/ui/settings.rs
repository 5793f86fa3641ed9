//! The settings a run starts from (members, seed, the Raft switches): what the header, the
//! rules panel, share links and imported scripts agree on. Changing one starts a new run.

use crate::etcd::ClusterConfig;
use crate::raft::TeachingSwitches;

/// A teaching or safety switch of the engine's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    PreVote,
    CheckQuorum,
    CommitOldTerms,
    VoteWithoutLogCheck,
    ForgetVote,
}

/// The settings a run starts from (changing one starts a new run).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub members: usize,
    pub seed: u64,
    pub pre_vote: bool,
    pub check_quorum: bool,
    pub teaching: TeachingSwitches,
}

impl Default for Settings {
    fn default() -> Settings {
        let c = ClusterConfig::new(3, 1);
        Settings {
            members: c.members,
            seed: c.seed,
            pre_vote: c.pre_vote,
            check_quorum: c.check_quorum,
            teaching: c.teaching,
        }
    }
}

impl Settings {
    pub fn config(&self) -> ClusterConfig {
        let mut c = ClusterConfig::new(self.members, self.seed);
        c.pre_vote = self.pre_vote;
        c.check_quorum = self.check_quorum;
        c.teaching = self.teaching;
        c
    }

    pub fn get(&self, switch: Switch) -> bool {
        match switch {
            Switch::PreVote => self.pre_vote,
            Switch::CheckQuorum => self.check_quorum,
            Switch::CommitOldTerms => self.teaching.commit_old_terms_by_counting,
            Switch::VoteWithoutLogCheck => self.teaching.vote_without_log_check,
            Switch::ForgetVote => self.teaching.forget_vote_on_restart,
        }
    }

    pub fn set(&mut self, switch: Switch, on: bool) {
        match switch {
            Switch::PreVote => self.pre_vote = on,
            Switch::CheckQuorum => self.check_quorum = on,
            Switch::CommitOldTerms => self.teaching.commit_old_terms_by_counting = on,
            Switch::VoteWithoutLogCheck => self.teaching.vote_without_log_check = on,
            Switch::ForgetVote => self.teaching.forget_vote_on_restart = on,
        }
    }
}
