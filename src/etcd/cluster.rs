use super::member::{Applied, LogEvent, Member};
use super::preset::Preset;
use super::switches::Switch;
use crate::base::{Index, MemberId, Millis, Revision, Rng, Term};
use crate::raft::{ConfChange, ConfChangeOp, Config, Durable, Raft, RaftView, TeachingSwitches};
use crate::sim::{NetConfig, Sim, SimError};
use serde::Serialize;

/// The most members a simulated cluster may have (the page draws up to 11).
pub const MAX_MEMBERS: usize = 11;

/// A member count as `--members` takes it: 1 to [`MAX_MEMBERS`].
pub fn parse_members(text: &str) -> Result<usize, String> {
    text.parse()
        .ok()
        .filter(|n| (1..=MAX_MEMBERS).contains(n))
        .ok_or_else(|| format!("--members must be between 1 and {MAX_MEMBERS}, not {text:?}"))
}

/// How long a request may take before the client gives up (etcdctl's command timeout).
pub const REQUEST_TIMEOUT_MS: Millis = 5_000;

/// A simulated etcd cluster.
pub type Cluster = Sim<Member>;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterConfig {
    pub members: usize,
    pub seed: u64,
    /// One Raft tick in virtual milliseconds (etcd: heartbeat interval 100 ms = 1 tick).
    pub tick_ms: Millis,
    pub election_tick: u32,
    pub heartbeat_tick: u32,
    pub pre_vote: bool,
    pub check_quorum: bool,
    pub teaching: TeachingSwitches,
    pub net: NetConfig,
    /// Entries per AppendEntries message; `None` keeps raft's own default. Figure 8 needs 1:
    /// a new leader must be able to send its old-term entry without its new-term one.
    pub max_entries_per_msg: Option<usize>,
    /// etcd's `--quota-backend-bytes` (0: its 2 GiB default), so that a script can fill a
    /// member's backend and meet the NOSPACE alarm in a few puts.
    pub quota_backend_bytes: i64,
    /// The world's machines: the ring of `m1..mN`, or the articles' kubeadm cluster.
    pub preset: Preset,
}

/// What `raftlab run` and the page start from: three members, seed 1, etcd's defaults.
impl Default for ClusterConfig {
    fn default() -> ClusterConfig {
        ClusterConfig::new(3, 1)
    }
}

impl ClusterConfig {
    /// etcd's defaults: heartbeat 100 ms, election timeout 1000 ms, pre-vote, check-quorum.
    pub fn new(members: usize, seed: u64) -> ClusterConfig {
        ClusterConfig {
            members,
            seed,
            tick_ms: 100,
            election_tick: 10,
            heartbeat_tick: 1,
            pre_vote: true,
            check_quorum: true,
            teaching: TeachingSwitches::default(),
            net: NetConfig::default(),
            max_entries_per_msg: None,
            quota_backend_bytes: 0,
            preset: Preset::Members,
        }
    }

    /// The articles' kubeadm cluster (`--world kubeadm`): one member, `master`.
    pub fn kubeadm(seed: u64) -> ClusterConfig {
        ClusterConfig {
            preset: Preset::Kubeadm,
            ..ClusterConfig::new(1, seed)
        }
    }

    /// Turns on a teaching switch by name.
    pub fn teach(&mut self, name: &str) -> Result<(), String> {
        match Switch::by_name(name).filter(|s| s.is_teaching()) {
            Some(switch) => {
                switch.set(self, true);
                Ok(())
            }
            None => Err(format!(
                "unknown teaching switch {name:?} (one of: {})",
                Switch::teaching_names().collect::<Vec<_>>().join(", ")
            )),
        }
    }

    /// The `raftlab run` flags that rebuild this configuration, as a script header shows them:
    /// `--members 3 --seed 7 --no-pre-vote --teach commit-old-terms`.
    pub fn flags(&self) -> String {
        let mut out = match self.preset.fixed_members() {
            Some(_) => format!("--world {} --seed {}", self.preset.name(), self.seed),
            None => format!("--members {} --seed {}", self.members, self.seed),
        };
        let differs = Switch::ALL
            .into_iter()
            .filter(|s| s.get(self) != s.on_by_default());
        let (taught, off): (Vec<Switch>, Vec<Switch>) = differs.partition(|s| s.is_teaching());
        for flag in off.iter().filter_map(|s| s.off_flag()) {
            out.push_str(&format!(" {flag}"));
        }
        let taught: Vec<&str> = taught.iter().map(|s| s.name()).collect();
        if !taught.is_empty() {
            out.push_str(&format!(" --teach {}", taught.join(",")));
        }
        if let Some(n) = self.max_entries_per_msg {
            out.push_str(&format!(" --max-entries-per-msg {n}"));
        }
        if self.quota_backend_bytes != 0 {
            out.push_str(&format!(
                " --quota-backend-bytes {}",
                self.quota_backend_bytes
            ));
        }
        out
    }

    /// The inverse of [`ClusterConfig::flags`]: this configuration with a script header's
    /// flags applied (`--members 3 --seed 7 --no-pre-vote --teach forget-vote`).
    pub fn with_flags(mut self, words: &[&str]) -> Result<ClusterConfig, String> {
        let mut words = words.iter().copied();
        let mut members_given = None;
        while let Some(flag) = words.next() {
            let mut value = || words.next().ok_or_else(|| format!("{flag} needs a value"));
            match flag {
                "--members" => {
                    self.members = parse_members(value()?)?;
                    members_given = Some(self.members);
                }
                "--world" => self.preset = Preset::parse(value()?)?,
                "--seed" => {
                    let seed = value()?;
                    self.seed = seed.parse().map_err(|_| format!("bad --seed {seed:?}"))?;
                }
                "--max-entries-per-msg" => {
                    let n = value()?;
                    self.max_entries_per_msg = Some(
                        n.parse()
                            .ok()
                            .filter(|n| *n >= 1)
                            .ok_or_else(|| format!("bad --max-entries-per-msg {n:?}"))?,
                    );
                }
                "--quota-backend-bytes" => {
                    let n = value()?;
                    self.quota_backend_bytes = n
                        .parse()
                        .map_err(|_| format!("bad --quota-backend-bytes {n:?}"))?;
                }
                "--teach" => {
                    for name in value()?.split(',').filter(|n| !n.is_empty()) {
                        self.teach(name)?;
                    }
                }
                other => match Switch::by_off_flag(other) {
                    Some(switch) => switch.set(&mut self, false),
                    None => return Err(format!("unknown flag {other:?}")),
                },
            }
        }
        if let Some(fixed) = self.preset.fixed_members() {
            if members_given.is_some_and(|n| n != fixed) {
                return Err(format!(
                    "--world {} has {fixed} member; --members cannot change it",
                    self.preset.name()
                ));
            }
            self.members = fixed;
        }
        Ok(self)
    }

    pub fn raft_config(&self, id: MemberId, voters: &[MemberId]) -> Config {
        let mut config = Config::new(id, voters.to_vec());
        config.election_tick = self.election_tick;
        config.heartbeat_tick = self.heartbeat_tick;
        config.pre_vote = self.pre_vote;
        config.check_quorum = self.check_quorum;
        config.teaching = self.teaching;
        if let Some(n) = self.max_entries_per_msg {
            config.max_entries_per_msg = n;
        }
        config
    }

    /// A fresh cluster of members `m1..mN`. Each subsystem draws from its own sub-seed.
    pub fn build(&self) -> Cluster {
        let mut root = Rng::new(self.seed);
        let ids: Vec<MemberId> = (1..=self.members as u64).map(MemberId).collect();
        let sim_rng = root.split();
        let members = ids
            .iter()
            .map(|id| {
                let mut member = Member::new(self.raft_config(*id, &ids), root.split());
                member.identity = self.preset.identity(*id, &ids);
                member.store_config.quota_backend_bytes = self.quota_backend_bytes;
                member.store = crate::mvcc::Store::new(member.store_config.clone());
                (*id, member)
            })
            .collect();
        Sim::new(members, self.net.clone(), self.tick_ms, sim_rng)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MemberStatus {
    pub name: MemberId,
    pub state: &'static str,
    pub term: Term,
    pub vote: Option<MemberId>,
    pub commit: Index,
    pub applied: Index,
    pub last_index: Index,
    pub last_term: Term,
    pub revision: i64,
}

/// `status -w json`, field for field as DESIGN.md gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StatusView {
    pub time_ms: Millis,
    pub leader: Option<MemberId>,
    pub members: Vec<MemberStatus>,
}

impl Sim<Member> {
    pub fn node(&self, id: MemberId) -> Option<&Raft> {
        self.process(id)?.node()
    }

    /// A member's Raft view, with entries described the etcd way (`put foo=bar`).
    pub fn raft_view(&self, id: MemberId) -> Option<RaftView> {
        self.raft_view_of(id, 0..=Index::MAX)
    }

    /// A member's Raft state without its log entries: what a page draws every frame.
    pub fn raft_state(&self, id: MemberId) -> Option<RaftView> {
        self.raft_view_of(id, std::ops::RangeInclusive::new(1, 0))
    }

    /// [`Self::raft_view`] with only the entries in `shown`.
    pub fn raft_view_of(
        &self,
        id: MemberId,
        shown: std::ops::RangeInclusive<Index>,
    ) -> Option<RaftView> {
        let node = self.node(id)?;
        let mut view = node.view_of(shown);
        for shown in view.log.iter_mut() {
            let entry = node.log().entry(shown.index);
            if let Some(entry) = entry.filter(|e| e.kind == crate::raft::EntryKind::Normal) {
                shown.summary = super::describe_entry(&entry.data);
            }
        }
        Some(view)
    }

    /// Indexes of member `id`'s entries that the current leader will overwrite (§5.3): from
    /// the first index where its log disagrees with the leader's (another term there, or an
    /// entry past the leader's last index, necessarily of an older term) to its end, since a
    /// follower truncates its whole suffix at the first conflict. Empty for the leader.
    pub fn entries_to_be_overwritten(&self, id: MemberId) -> std::collections::BTreeSet<Index> {
        let (Some(leader), Some(node)) = (self.leader().and_then(|l| self.node(l)), self.node(id))
        else {
            return Default::default();
        };
        if leader.id() == id {
            return Default::default();
        }
        let disagrees = |e: &&crate::raft::Entry| match leader.log().term(e.index) {
            Some(term) => term != e.term,
            None => e.index > leader.log().last_index(),
        };
        let Some(first) = node.log().entries.iter().find(disagrees).map(|e| e.index) else {
            return Default::default();
        };
        node.log()
            .entries
            .iter()
            .map(|e| e.index)
            .filter(|i| *i >= first)
            .collect()
    }

    /// A member's key-value store as the UI shows it (keys, values, revisions).
    pub fn kv_view(&self, id: MemberId) -> Option<crate::mvcc::StoreView> {
        self.process(id).map(|m| m.store.view())
    }

    /// [`Cluster::kv_view`] with only the first `limit` keys read.
    pub fn kv_view_first(&self, id: MemberId, limit: usize) -> Option<crate::mvcc::StoreView> {
        self.process(id).map(|m| m.store.view_first(limit))
    }

    /// The first `limit` live keys starting with `prefix` and their mod revisions, and how
    /// many there are, as the leader's store (or else the first member's) holds them.
    pub fn keys_under(&self, prefix: &[u8], limit: usize) -> (Vec<(String, Revision)>, usize) {
        let seer = self.leader().or_else(|| self.member_ids().first().copied());
        let Some(m) = seer.and_then(|m| self.process(m)) else {
            return (Vec::new(), 0);
        };
        let end = crate::mvcc::prefix_range_end(prefix);
        let (keys, count) = m.store.live_keys(prefix, &end, limit);
        let keys = keys.into_iter();
        let keys = keys.map(|(key, rev)| (String::from_utf8_lossy(&key).into_owned(), rev));
        (keys.collect(), count)
    }

    pub fn durable(&self, id: MemberId) -> Option<&Durable> {
        self.process(id).map(|m| &m.durable)
    }

    pub fn applied(&self, id: MemberId) -> impl Iterator<Item = &Applied> {
        self.process(id)
            .into_iter()
            .flat_map(|m| m.applied().iter())
    }

    /// The leader a quorum of running members currently follows in its term. A deposed
    /// leader cut off in a minority still believes it leads; it is not this.
    pub fn leader(&self) -> Option<MemberId> {
        // Goals ask this after every event: no collecting, and the quorum counted only for a
        // member that says it leads.
        let nodes = || self.processes().filter_map(|(_, m)| m.node());
        nodes().find_map(|node| {
            if !node.is_leader() {
                return None;
            }
            let (incoming, outgoing) = (
                &node.voters().incoming.voters,
                &node.voters().outgoing.voters,
            );
            let only_outgoing = outgoing.iter().filter(|v| !incoming.contains(v)).count();
            let quorum = (incoming.len() + only_outgoing) / 2 + 1;
            let followers = nodes()
                .filter(|o| {
                    o.term() == node.term()
                        && o.leader() == Some(node.id())
                        && node.voters().contains(o.id())
                })
                .count();
            (followers >= quorum).then_some(node.id())
        })
    }

    /// A leader that has committed an entry of its own term, and so can serve (thesis §6.4).
    pub fn ready_leader(&self) -> Option<MemberId> {
        self.leader().filter(|l| {
            self.node(*l)
                .is_some_and(|n| n.log().term(n.log().committed) == Some(n.term()))
        })
    }

    /// Narration events of every member, oldest first; at most `last` of them.
    pub fn recent_events(&self, last: usize) -> Vec<LogEvent> {
        let mut all: Vec<LogEvent> = self
            .processes()
            .flat_map(|(_, m)| m.events().iter().rev().take(last).cloned())
            .collect();
        all.sort_by_key(|e| e.time_ms);
        let skip = all.len().saturating_sub(last);
        all.split_off(skip)
    }

    fn running_node(&mut self, id: MemberId) -> Result<(), SimError> {
        self.member_ids()
            .contains(&id)
            .then_some(())
            .ok_or_else(|| SimError::NoSuchMember(id.to_string()))?;
        if !self.is_running(id) {
            return Err(SimError::Stopped(id));
        }
        Ok(())
    }

    /// Fires a member's election timer now.
    pub fn timeout(&mut self, id: MemberId) -> Result<(), SimError> {
        self.running_node(id)?;
        self.trace(format!("{id} forced timeout"));
        self.with_process(id, |m, ctx| {
            if let Some(node) = m.node_mut() {
                node.force_timeout();
            }
            m.drive(ctx);
        });
        Ok(())
    }

    /// Asks the current leader to hand leadership to `to`.
    pub fn transfer_leader(&mut self, to: MemberId) -> Result<(), SimError> {
        self.member(&to.to_string())?;
        let from = self.leader().ok_or(SimError::NoLeader)?;
        self.trace(format!("{from} transfer leadership to {to}"));
        self.with_process(from, |m, ctx| {
            if let Some(node) = m.node_mut() {
                node.transfer_leader(to);
            }
            m.drive(ctx);
        });
        Ok(())
    }

    /// Proposes `data` through member `id` (forwarded to the leader by a follower).
    pub fn propose(&mut self, id: MemberId, data: Vec<u8>) -> Result<(), SimError> {
        self.running_node(id)?;
        let accepted = self.with_process(id, |m, ctx| {
            let ok = m.node_mut().is_some_and(|n| n.propose(data).is_ok());
            m.drive(ctx);
            ok
        });
        if accepted == Some(true) {
            Ok(())
        } else {
            Err(SimError::NoLeader)
        }
    }

    /// Sets a member's fsync latency (a slow disk delays votes, acks and commits).
    pub fn set_fsync(&mut self, id: MemberId, fsync_ms: Millis) -> Result<(), SimError> {
        self.member(&id.to_string())?;
        self.trace(format!("{id} fsync {fsync_ms}ms"));
        self.with_process(id, |m, _| m.fsync_ms = fsync_ms);
        Ok(())
    }

    /// Proposes a membership change through the leader.
    fn propose_conf(&mut self, cc: ConfChange) -> Result<(), SimError> {
        let leader = self.leader().ok_or(SimError::NoLeader)?;
        self.trace(format!("{leader} propose conf {}", cc.describe()));
        let result = self.with_process(leader, |m, ctx| {
            let result = m.node_mut().map(|n| n.propose_conf_change(cc));
            m.drive(ctx);
            result
        });
        match result.flatten() {
            Some(Ok(())) => Ok(()),
            Some(Err(e)) => Err(SimError::Refused(e.to_string())),
            None => Err(SimError::NoLeader),
        }
    }

    /// Starts a new, empty member and proposes adding it (as a voter, or a learner that
    /// receives the log but does not vote). Returns its name.
    pub fn add_member(&mut self, learner: bool) -> Result<MemberId, SimError> {
        let active = self
            .member_ids()
            .into_iter()
            .filter(|m| !self.is_removed(*m))
            .count();
        if active >= MAX_MEMBERS {
            return Err(SimError::Refused(format!(
                "a cluster here has at most {MAX_MEMBERS} members"
            )));
        }
        let leader = self.leader().ok_or(SimError::NoLeader)?;
        let id = MemberId(self.member_ids().last().map_or(1, |m| m.0 + 1));
        let op = if learner {
            ConfChangeOp::AddLearner
        } else {
            ConfChangeOp::AddVoter
        };
        self.propose_conf(ConfChange::single(op, id))?;
        let mut config = self
            .process(leader)
            .map(|m| m.config.clone())
            .ok_or(SimError::NoLeader)?;
        config.id = id;
        config.voters.clear();
        config.learners.clear();
        // Derived from the run so far, so the same history gives the same new member.
        let mut rng = Rng::new(self.trace_hash() ^ id.0);
        let mut member = Member::new(config, rng.split());
        if let Some(store_config) = self.process(leader).map(|m| m.store_config.clone()) {
            member.store = crate::mvcc::Store::new(store_config.clone());
            member.store_config = store_config;
        }
        let cluster = self.process(leader).map_or(0, |m| m.identity.cluster_id);
        member.identity = super::member::Identity::simulated(id, cluster);
        self.add(id, member, rng);
        self.trace(format!("{id} started (joining)"));
        Ok(id)
    }

    /// Removes a member, as `etcdctl member remove` does: proposes the change, waits (up to
    /// the request timeout) until the leader has applied it, and the removed member shuts down
    /// for good (etcd's peers answer a removed member "the member has been permanently
    /// removed from the cluster", and it stops).
    pub fn remove_member(&mut self, id: MemberId) -> Result<(), SimError> {
        self.propose_remove(id)?;
        let applied = self.run_until_cond(REQUEST_TIMEOUT_MS, |c| {
            c.processes().any(|(_, m)| {
                m.node()
                    .is_some_and(|n| n.is_leader() || n.leader().is_some())
                    && m.node()
                        .is_some_and(|n| !n.conf_at(n.log().applied).contains(id))
                    && m.id != id
            })
        });
        if !applied {
            return Err(SimError::Refused(format!("removing {id} timed out")));
        }
        self.with_process(id, |m, _| m.shut_down_removed());
        self.trace(format!("{id} removed from the cluster"));
        Ok(())
    }

    /// Proposes removing a member and returns at once, without advancing the world: the
    /// removed member shuts itself down when it applies its removal (see `Member::finish`).
    /// `remove_member` is this plus the wait `etcdctl member remove` does.
    pub fn propose_remove(&mut self, id: MemberId) -> Result<(), SimError> {
        self.member(&id.to_string())?;
        if self.is_removed(id) {
            return Err(SimError::Refused(format!("{id} was already removed")));
        }
        self.propose_conf(ConfChange::single(ConfChangeOp::Remove, id))
    }

    /// Proposes turning a learner into a voter.
    pub fn promote(&mut self, id: MemberId) -> Result<(), SimError> {
        let leader = self.leader().ok_or(SimError::NoLeader)?;
        let is_learner = self
            .node(leader)
            .is_some_and(|n| n.conf().learners.contains(&id));
        if !is_learner {
            return Err(SimError::Refused(format!("{id} is not a learner")));
        }
        self.propose_conf(ConfChange::single(ConfChangeOp::AddVoter, id))
    }

    /// Snapshots a member's state machine now and discards its log up to the applied index.
    pub fn snapshot(&mut self, id: MemberId) -> Result<(), SimError> {
        self.running_node(id)?;
        self.trace(format!("{id} snapshot"));
        let done = self.with_process(id, |m, _| m.snapshot_now());
        if done == Some(true) {
            Ok(())
        } else {
            Err(SimError::Refused(format!(
                "{id} has nothing new to snapshot"
            )))
        }
    }

    /// Sets the number of applied entries between automatic snapshots on every member.
    pub fn set_snapshot_count(&mut self, count: u64) {
        for id in self.member_ids() {
            self.with_process(id, |m, _| m.snapshot_count = count.max(1));
        }
    }

    pub fn is_removed(&self, id: MemberId) -> bool {
        self.process(id).is_some_and(|m| m.removed)
    }

    pub fn status(&self) -> StatusView {
        let members = self
            .processes()
            .map(|(id, m)| member_status(id, m))
            .collect();
        StatusView {
            time_ms: self.now(),
            leader: self.leader(),
            members,
        }
    }

    /// One member's line of [`Cluster::status`], without building the others.
    pub fn member_status(&self, id: MemberId) -> Option<MemberStatus> {
        self.process(id).map(|m| member_status(id, m))
    }

    /// The highest term any member knows (running or from its disk); `None` with no member.
    pub fn highest_term(&self) -> Option<u64> {
        let ids = self.member_ids();
        let statuses = ids.iter().filter_map(|id| self.member_status(*id));
        statuses.map(|s| s.term).max()
    }
}

/// A running member reports its node; a stopped one what its disk holds.
fn member_status(id: MemberId, m: &Member) -> MemberStatus {
    match m.node() {
        Some(node) => MemberStatus {
            name: id,
            state: node.role_name().as_str(),
            term: node.term(),
            vote: node.vote(),
            commit: node.log().committed,
            applied: node.log().applied,
            last_index: node.log().last_index(),
            last_term: node.log().last_term(),
            revision: m.store.revision(),
        },
        None => MemberStatus {
            name: id,
            state: "stopped",
            term: m.durable.hard.term,
            vote: m.durable.hard.vote,
            commit: m.durable.hard.commit,
            applied: 0,
            last_index: m
                .durable
                .entries
                .last()
                .map_or(m.durable.snapshot_index, |e| e.index),
            last_term: m
                .durable
                .entries
                .last()
                .map_or(m.durable.snapshot_term, |e| e.term),
            revision: m.store.revision(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_header_reads_back_every_switch_it_writes() {
        for bits in 0..32u32 {
            let mut c = ClusterConfig::new(1 + bits as usize % MAX_MEMBERS, u64::from(bits) * 7);
            c.pre_vote = bits & 1 == 0;
            c.check_quorum = bits & 2 == 0;
            c.teaching.commit_old_terms_by_counting = bits & 4 != 0;
            c.teaching.vote_without_log_check = bits & 8 != 0;
            c.teaching.forget_vote_on_restart = bits & 16 != 0;
            c.quota_backend_bytes = i64::from(bits % 3) * 1_048_576;
            let flags = c.flags();
            let words: Vec<&str> = flags.split_whitespace().collect();
            let back = ClusterConfig::new(3, 1).with_flags(&words).unwrap();
            assert_eq!(back.flags(), flags);
            assert_eq!(back.teaching, c.teaching);
            assert_eq!(back, c);
        }
        let bad = |words: &[&str]| ClusterConfig::new(3, 1).with_flags(words).unwrap_err();
        assert_eq!(
            bad(&["--members", "12"]),
            "--members must be between 1 and 11, not \"12\""
        );
        assert_eq!(bad(&["--seed"]), "--seed needs a value");
        assert_eq!(
            bad(&["--quota-backend-bytes", "1MiB"]),
            "bad --quota-backend-bytes \"1MiB\""
        );
        assert!(bad(&["--teach", "nope"]).starts_with("unknown teaching switch"));
        assert_eq!(bad(&["--fast"]), "unknown flag \"--fast\"");
    }

    #[test]
    fn the_kubeadm_world_is_one_member_named_master_and_its_header_reads_back() {
        let c = ClusterConfig::default()
            .with_flags(&["--world", "kubeadm", "--seed", "4"])
            .unwrap();
        assert_eq!(c, ClusterConfig::kubeadm(4));
        assert_eq!(c.flags(), "--world kubeadm --seed 4");
        let back = ClusterConfig::default()
            .with_flags(&c.flags().split_whitespace().collect::<Vec<_>>())
            .unwrap();
        assert_eq!(back, c);
        let world = c.build();
        let member = world.process(MemberId(1)).unwrap();
        assert_eq!(world.member_ids(), [MemberId(1)]);
        assert_eq!(member.identity.name, "master");
        assert_eq!(member.identity.peer_urls, ["https://10.140.0.33:2380"]);
        assert!(world.serves_tls(MemberId(1)));
        assert!(!ClusterConfig::default().build().serves_tls(MemberId(1)));
        let bad = |words: &[&str]| ClusterConfig::default().with_flags(words).unwrap_err();
        assert_eq!(
            bad(&["--world", "kubeadm", "--members", "3"]),
            "--world kubeadm has 1 member; --members cannot change it"
        );
        assert_eq!(
            bad(&["--world", "kind"]),
            "unknown world \"kind\" (one of: members, kubeadm)"
        );
        let one = ["--members", "1", "--world", "kubeadm"];
        assert_eq!(
            ClusterConfig::default().with_flags(&one).unwrap().members,
            1
        );
    }

    #[test]
    fn the_entries_per_message_limit_reaches_every_member_also_added_and_restarted_ones() {
        let words = ["--members", "3", "--max-entries-per-msg", "1"];
        let c = ClusterConfig::new(5, 9).with_flags(&words).unwrap();
        assert_eq!(c.max_entries_per_msg, Some(1));
        assert_eq!(c.flags(), "--members 3 --seed 9 --max-entries-per-msg 1");
        let flags = c.flags();
        let back = ClusterConfig::default()
            .with_flags(&flags.split_whitespace().collect::<Vec<_>>())
            .unwrap();
        assert_eq!(back.max_entries_per_msg, Some(1));
        assert_eq!(ClusterConfig::default().flags(), "--members 3 --seed 1");
        let default_limit = Config::new(MemberId(1), Vec::new()).max_entries_per_msg;
        let default_member = ClusterConfig::default().build();
        let limit =
            |c: &Cluster, id: u64| c.process(MemberId(id)).unwrap().config.max_entries_per_msg;
        assert_eq!(limit(&default_member, 1), default_limit);
        let mut cluster = back.build();
        assert!((1..=3).all(|id| limit(&cluster, id) == 1));
        assert!(cluster.run_until_cond(5_000, |c| c.leader().is_some()));
        // The new leader's own entry must commit before it accepts a configuration change.
        cluster.run_for(1_000);
        let added = cluster.add_member(false).unwrap();
        assert_eq!(limit(&cluster, added.0), 1);
        cluster.kill(MemberId(2)).unwrap();
        cluster.restart(MemberId(2)).unwrap();
        assert_eq!(limit(&cluster, 2), 1);
        let bad = |n: &str| {
            ClusterConfig::default()
                .with_flags(&["--max-entries-per-msg", n])
                .unwrap_err()
        };
        assert_eq!(bad("0"), "bad --max-entries-per-msg \"0\"");
        assert_eq!(bad("x"), "bad --max-entries-per-msg \"x\"");
    }

    fn elect(seed: u64) -> Cluster {
        let mut c = ClusterConfig::new(3, seed).build();
        assert!(
            c.run_until_cond(30_000, |c| c.ready_leader().is_some()),
            "seed {seed}: no leader"
        );
        c
    }

    #[test]
    fn a_leader_is_elected_and_heartbeats_keep_it() {
        let mut c = elect(1);
        let leader = c.leader().unwrap();
        let term = c.node(leader).unwrap().term();
        c.run_for(10_000);
        assert_eq!(c.leader(), Some(leader), "a healthy leader keeps its term");
        assert_eq!(c.node(leader).unwrap().term(), term);
    }

    #[test]
    fn killing_the_leader_elects_another_in_a_higher_term() {
        let mut c = elect(2);
        let old = c.leader().unwrap();
        let old_term = c.node(old).unwrap().term();
        c.kill(old).unwrap();
        assert!(c.run_until_cond(30_000, |c| c.leader().is_some()));
        let new = c.leader().unwrap();
        assert_ne!(new, old);
        assert!(c.node(new).unwrap().term() > old_term);
        c.restart(old).unwrap();
        c.run_for(5_000);
        assert_eq!(
            c.leader(),
            Some(new),
            "the restarted member rejoins as follower"
        );
    }

    #[test]
    fn the_disk_shares_the_entries_of_a_log_that_reached_it() {
        let mut c = elect(3);
        let leader = c.leader().unwrap();
        for i in 0..200 {
            c.propose(leader, format!("v{i}").into_bytes()).unwrap();
            c.run_for(10);
        }
        c.run_for(1_000);
        for (id, m) in c.processes() {
            let log = &m.node().unwrap().log().entries;
            assert!(log.len() > 200, "{id}: {} entries", log.len());
            assert!(
                m.durable.entries.shares(log),
                "{id}: one copy of its entries"
            );
        }
        let follower = c.member_ids().into_iter().find(|m| *m != leader).unwrap();
        let disk = c
            .processes()
            .find(|(id, _)| *id == follower)
            .unwrap()
            .1
            .durable
            .clone();
        c.kill(follower).unwrap();
        c.restart(follower).unwrap();
        c.run_for(2_000);
        let log = c.node(follower).unwrap().log();
        assert!(log
            .entries
            .iter()
            .take(disk.entries.len())
            .eq(disk.entries.iter()));
    }

    #[test]
    fn kill_loses_volatile_state_but_pause_keeps_it() {
        let mut c = elect(3);
        let leader = c.leader().unwrap();
        for i in 0..5 {
            c.propose(leader, format!("v{i}").into_bytes()).unwrap();
        }
        c.run_for(1_000);
        let follower = c.member_ids().into_iter().find(|m| *m != leader).unwrap();
        let before = c.raft_view(follower).unwrap();
        assert!(before.commit >= 6);

        c.pause(follower).unwrap();
        c.run_for(3_000);
        let paused = c.raft_view(follower).unwrap();
        assert_eq!(
            (paused.commit, paused.applied, paused.term),
            (before.commit, before.applied, before.term)
        );
        assert_eq!(
            paused.election_elapsed, before.election_elapsed,
            "a paused process does not tick"
        );

        c.resume(follower).unwrap();
        c.kill(follower).unwrap();
        c.restart(follower).unwrap();
        let restarted = c.raft_view(follower).unwrap();
        assert_eq!(
            restarted.commit, before.commit,
            "the commit index is in the hard state (etcd-io/raft)"
        );
        assert_eq!(
            restarted.applied, before.commit,
            "the applied index is volatile: what was committed is replayed at once"
        );
        assert_eq!(restarted.term, before.term, "term is durable");
        assert_eq!(
            restarted.last_index, before.last_index,
            "the log is durable"
        );
        assert_eq!(restarted.role.as_str(), "follower");
        c.run_for(1_000);
        assert!(
            c.node(follower).unwrap().log().committed >= 6,
            "the leader teaches commit from there on"
        );
    }

    #[test]
    fn a_slow_disk_delays_commits_and_a_crash_loses_the_unsynced_write() {
        let mut c = elect(4);
        let leader = c.leader().unwrap();
        let followers: Vec<MemberId> = c
            .member_ids()
            .into_iter()
            .filter(|m| *m != leader)
            .collect();
        for f in &followers {
            c.set_fsync(*f, 400).unwrap();
        }
        let commit_before = c.node(leader).unwrap().log().committed;
        c.propose(leader, b"slow".to_vec()).unwrap();
        c.run_for(200);
        assert_eq!(
            c.node(leader).unwrap().log().committed,
            commit_before,
            "no quorum on disk yet"
        );
        // One follower crashes mid-fsync: its copy never reached the disk.
        c.kill(followers[0]).unwrap();
        let lost = c
            .durable(followers[0])
            .unwrap()
            .entries
            .iter()
            .any(|e| &*e.data == b"slow");
        assert!(!lost, "an unsynced append must not survive a crash");
        c.run_for(600);
        assert!(
            c.node(leader).unwrap().log().committed > commit_before,
            "committed once the other fsync ends"
        );
    }

    #[test]
    fn members_join_as_learners_get_promoted_and_leave() {
        let mut c = elect(5);
        let m4 = c.add_member(true).unwrap();
        assert_eq!(m4, MemberId(4));
        c.run_for(2_000);
        let leader = c.leader().unwrap();
        let node = c.node(leader).unwrap();
        assert!(node.conf().learners.contains(&m4), "{:?}", node.conf());
        assert_eq!(
            c.node(m4).unwrap().log().last_index(),
            node.log().last_index(),
            "the learner caught up"
        );
        assert_eq!(c.node(m4).unwrap().role_name().as_str(), "follower");
        c.promote(m4).unwrap();
        c.run_for(1_000);
        assert!(c.node(leader).unwrap().conf().voters.contains(&m4));
        // Removing a follower: it shuts down and the others carry on with 3 voters.
        let victim = c
            .member_ids()
            .into_iter()
            .find(|m| *m != leader && *m != m4)
            .unwrap();
        c.remove_member(victim).unwrap();
        assert!(c.is_removed(victim) && !c.is_running(victim));
        assert!(
            c.restart(victim).is_ok(),
            "a restart is accepted but the member stays down"
        );
        assert!(!c.is_running(victim));
        c.run_for(3_000);
        assert_eq!(c.node(leader).unwrap().conf().voters.len(), 3);
        assert_eq!(c.leader(), Some(leader));
        // Removing the leader: someone else takes over.
        c.remove_member(leader).unwrap();
        assert!(c.run_until_cond(10_000, |c| c.leader().is_some_and(|l| l != leader)));
        assert!(!c.is_running(leader));
    }

    #[test]
    fn a_follower_far_behind_is_caught_up_by_snapshot() {
        let mut c = elect(6);
        let leader = c.leader().unwrap();
        let lagging = c.member_ids().into_iter().find(|m| *m != leader).unwrap();
        c.kill(lagging).unwrap();
        for i in 0..20 {
            c.propose(leader, format!("v{i}").into_bytes()).unwrap();
        }
        c.run_for(1_000);
        c.snapshot(leader).unwrap();
        assert!(c.node(leader).unwrap().log().snapshot_index > 0);
        c.restart(lagging).unwrap();
        c.run_for(2_000);
        let (lead, lag) = (c.node(leader).unwrap(), c.node(lagging).unwrap());
        assert_eq!(
            lag.log().snapshot_index,
            lead.log().snapshot_index,
            "installed the leader's snapshot"
        );
        assert_eq!(lag.log().committed, lead.log().committed);
        assert_eq!(
            c.status().members.iter().map(|m| m.revision).max(),
            c.status().members.iter().map(|m| m.revision).min()
        );
    }

    #[test]
    fn a_diverged_follower_shows_what_the_leader_will_overwrite() {
        let mut c = elect(8);
        let old = c.leader().unwrap();
        let others: Vec<MemberId> = c.member_ids().into_iter().filter(|m| *m != old).collect();
        c.net.isolate(old, &others);
        c.propose(old, b"lost".to_vec()).unwrap();
        c.run_for(300);
        assert!(c.run_until_cond(10_000, |c| c.leader().is_some_and(|l| l != old)));
        let put =
            crate::mvcc::Request::Put(crate::mvcc::PutRequest::new(b"k".to_vec(), b"v".to_vec()));
        c.kv(c.leader().unwrap(), put, false, REQUEST_TIMEOUT_MS)
            .unwrap();
        let doomed = c.entries_to_be_overwritten(old);
        let lost_index = c
            .node(old)
            .unwrap()
            .log()
            .entries
            .iter()
            .find(|e| &*e.data == b"lost")
            .unwrap()
            .index;
        assert!(doomed.contains(&lost_index), "{doomed:?}");
        assert!(c.entries_to_be_overwritten(c.leader().unwrap()).is_empty());
        c.net.heal();
        c.run_for(2_000);
        assert!(c.entries_to_be_overwritten(old).is_empty(), "repaired");
    }

    #[test]
    fn views_describe_entries_the_etcd_way() {
        let mut c = elect(7);
        let leader = c.leader().unwrap();
        let put = crate::mvcc::Request::Put(crate::mvcc::PutRequest::new(
            b"foo".to_vec(),
            b"bar".to_vec(),
        ));
        c.kv(leader, put, false, REQUEST_TIMEOUT_MS).unwrap();
        let view = c.raft_view(leader).unwrap();
        let summaries: Vec<&str> = view.log.iter().map(|e| e.summary.as_str()).collect();
        assert!(summaries.contains(&"put foo=bar"), "{summaries:?}");
        assert!(summaries.contains(&"noop"));
        assert!(summaries.iter().any(|s| s.starts_with("publish m")));
        assert!(summaries.contains(&"conf +m1"));
    }

    #[test]
    fn same_seed_same_trace_hash() {
        let run = |seed| {
            let mut c = ClusterConfig::new(5, seed).build();
            c.run_for(5_000);
            let leader = c.leader().unwrap();
            c.kill(leader).unwrap();
            c.run_for(5_000);
            (c.trace_hash(), c.trace_len())
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42).0, run(43).0);
    }

    /// A window of a member's log is the full view's entries in it, before and after a
    /// compaction, at either end and past them.
    #[test]
    fn a_window_of_the_log_is_the_full_views_entries_in_it() {
        let mut c = ClusterConfig::new(3, 4).build();
        c.set_snapshot_count(10);
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        let window = |c: &Cluster, id: MemberId, shown: std::ops::RangeInclusive<Index>| {
            let full = c.raft_view(id).expect("a member").log;
            let part = c.raft_view_of(id, shown.clone()).expect("a member").log;
            let expected: Vec<_> = full
                .into_iter()
                .filter(|e| shown.contains(&e.index))
                .collect();
            assert_eq!(part, expected, "{id} {shown:?}");
        };
        for round in 0..3u32 {
            for i in 0..30u32 {
                let leader = c.leader().expect("a leader");
                c.propose(leader, (round * 100 + i).to_be_bytes().to_vec())
                    .unwrap();
                c.run_for(20);
            }
            c.run_for(500);
            for id in c.member_ids() {
                let last = c.node(id).map_or(0, |n| n.log().last_index());
                for shown in [
                    std::ops::RangeInclusive::new(1, 0),
                    0..=Index::MAX,
                    1..=5,
                    last - 12..=last,
                    last - 3..=last + 9,
                ] {
                    window(&c, id, shown);
                }
                assert!(c.raft_state(id).unwrap().log.is_empty());
            }
        }
        let first = (c.node(MemberId(1)).unwrap().log().first_index()).max(1);
        assert!(first > 10, "compacted to {first}");
    }
}
