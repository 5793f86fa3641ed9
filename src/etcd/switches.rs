//! The Raft switches a run starts with: the safety features etcd turns on (pre-vote,
//! check-quorum) and the teaching switches that each break one rule of the paper. Scripts,
//! share links, the CLI and the page all read this one table.

use super::cluster::ClusterConfig;

/// One Raft switch; [`Switch::ALL`] lists them in the order the page shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Switch {
    PreVote,
    CheckQuorum,
    CommitOldTerms,
    NoVoteLogCheck,
    ForgetVote,
}

/// A switch's one spelling and its place in a [`ClusterConfig`].
struct Entry {
    switch: Switch,
    name: &'static str,
    /// Off by default and breaks a rule; in a script header as `--teach NAME`. The others are
    /// on by default (etcd's defaults) and appear as `--no-NAME` when off.
    teaching: bool,
    get: fn(&ClusterConfig) -> bool,
    set: fn(&mut ClusterConfig, bool),
}

const TABLE: [Entry; 5] = [
    Entry {
        switch: Switch::PreVote,
        name: "pre-vote",
        teaching: false,
        get: |c| c.pre_vote,
        set: |c, on| c.pre_vote = on,
    },
    Entry {
        switch: Switch::CheckQuorum,
        name: "check-quorum",
        teaching: false,
        get: |c| c.check_quorum,
        set: |c, on| c.check_quorum = on,
    },
    Entry {
        switch: Switch::CommitOldTerms,
        name: "commit-old-terms",
        teaching: true,
        get: |c| c.teaching.commit_old_terms_by_counting,
        set: |c, on| c.teaching.commit_old_terms_by_counting = on,
    },
    Entry {
        switch: Switch::NoVoteLogCheck,
        name: "no-vote-log-check",
        teaching: true,
        get: |c| c.teaching.vote_without_log_check,
        set: |c, on| c.teaching.vote_without_log_check = on,
    },
    Entry {
        switch: Switch::ForgetVote,
        name: "forget-vote",
        teaching: true,
        get: |c| c.teaching.forget_vote_on_restart,
        set: |c, on| c.teaching.forget_vote_on_restart = on,
    },
];

impl Switch {
    pub const ALL: [Switch; 5] = [
        Switch::PreVote,
        Switch::CheckQuorum,
        Switch::CommitOldTerms,
        Switch::NoVoteLogCheck,
        Switch::ForgetVote,
    ];

    fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }

    /// The spelling of scripts (`--teach no-vote-log-check`), links and the page.
    pub fn name(self) -> &'static str {
        self.entry().name
    }

    pub fn is_teaching(self) -> bool {
        self.entry().teaching
    }

    /// etcd turns its safety features on; every teaching switch starts off.
    pub fn on_by_default(self) -> bool {
        !self.is_teaching()
    }

    pub fn get(self, config: &ClusterConfig) -> bool {
        (self.entry().get)(config)
    }

    pub fn set(self, config: &mut ClusterConfig, on: bool) {
        (self.entry().set)(config, on);
    }

    pub fn by_name(name: &str) -> Option<Switch> {
        TABLE.iter().find(|e| e.name == name).map(|e| e.switch)
    }

    /// The teaching switches' names, as `--teach` takes them.
    pub fn teaching_names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().filter(|e| e.teaching).map(|e| e.name)
    }

    /// The header flag that turns off a safety switch (`--no-pre-vote`); teaching switches are
    /// turned on by name instead, with `--teach NAME`.
    pub fn off_flag(self) -> Option<String> {
        (!self.is_teaching()).then(|| format!("--no-{}", self.name()))
    }

    pub fn by_off_flag(flag: &str) -> Option<Switch> {
        Switch::ALL
            .into_iter()
            .find(|s| s.off_flag().as_deref() == Some(flag))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_the_order_of_the_enum_and_each_entry_owns_one_field() {
        for (i, switch) in Switch::ALL.iter().enumerate() {
            assert_eq!(TABLE[i].switch, *switch);
            assert_eq!(Switch::by_name(switch.name()), Some(*switch));
            let mut config = ClusterConfig::new(3, 1);
            let before = switch.get(&config);
            switch.set(&mut config, !before);
            assert_eq!(switch.get(&config), !before);
            let changed: Vec<Switch> = Switch::ALL
                .into_iter()
                .filter(|s| s.get(&config) != s.get(&ClusterConfig::new(3, 1)))
                .collect();
            assert_eq!(changed, vec![*switch]);
            assert_eq!(switch.on_by_default(), before);
        }
    }

    #[test]
    fn only_safety_switches_have_an_off_flag() {
        assert_eq!(Switch::PreVote.off_flag().as_deref(), Some("--no-pre-vote"));
        assert_eq!(Switch::NoVoteLogCheck.off_flag(), None);
        assert_eq!(
            Switch::by_off_flag("--no-check-quorum"),
            Some(Switch::CheckQuorum)
        );
        assert_eq!(Switch::by_off_flag("--no-forget-vote"), None);
        assert_eq!(Switch::by_off_flag("--no-such"), None);
    }
}
