//! Every teaching switch breaks one rule of Raft; for each, a scenario built by hand
//! (partitions, crashes, forced timeouts, lost messages: no luck involved) in which the switch
//! ON makes the matching checker report its violation, while the very same scenario with the
//! switch OFF reports nothing at all. A switch that no checker can catch would be a bug in the
//! checkers. Where a broken rule loses a write a client was told was done (Figure 8, the
//! vote's log check), the scenario's clients also record a history that the linearizability
//! checker rejects with the switch on and accepts with it off.
//!
//! A trick used throughout: a member that just restarted knows no leader, so it answers a
//! (pre-)vote at once instead of ignoring it for an election timeout (the check-quorum lease);
//! kill and restart make an election happen exactly when the scenario wants it.

use raftlab::base::{Index, MemberId, Millis, Term};
use raftlab::check::linearizability::{self, History, Input, Output, Verdict};
use raftlab::check::watch::Watchers;
use raftlab::check::{Monitor, Property};
use raftlab::etcd::{
    ClientError, Cluster, ClusterConfig, InFlightKv, PutRequest, RangeRequest, Request,
};
use raftlab::sim::InFlight;

const M1: MemberId = MemberId(1);
const M2: MemberId = MemberId(2);
const M3: MemberId = MemberId(3);
const M4: MemberId = MemberId(4);
const M5: MemberId = MemberId(5);

/// A cluster with its monitor fed after every single event, and the history of the clients
/// the scenario sends requests for.
struct World {
    c: Cluster,
    monitor: Monitor,
    history: History,
    /// Requests in flight and their operations in the history.
    waiting: Vec<(InFlightKv, usize)>,
    /// A client's watch of the scenarios' key on every member.
    watchers: Watchers,
}

impl World {
    fn new(config: ClusterConfig) -> World {
        let mut c = config.build();
        c.record_trace(true);
        let mut w = World {
            c,
            monitor: Monitor::new(),
            history: History::default(),
            waiting: Vec::new(),
            watchers: Watchers::new(b"x", b"y"),
        };
        w.observe();
        w
    }

    /// After every event: the checkers' turn, and the answers that came to the clients.
    fn observe(&mut self) {
        self.monitor.observe(&self.c);
        self.watchers.serve(&mut self.c);
        let (done, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.waiting)
            .into_iter()
            .partition(|(sent, _)| self.c.kv_answered(sent));
        self.waiting = waiting;
        for (sent, op) in done {
            self.finish(sent, op);
        }
    }

    fn finish(&mut self, sent: InFlightKv, op: usize) {
        let input = Input::of(&sent.request).expect("single-key requests");
        match self.c.finish_kv(sent) {
            Ok((reply, _)) => {
                let output = Output::of(&input, &reply.body).expect("an answer of its kind");
                self.history.answered(op, output);
            }
            Err(ClientError::DeadlineExceeded) => {}
            Err(_) => self.history.failed(op),
        }
    }

    /// A client sends a put of `key` through `ep`; its answer is taken when it comes.
    fn client_put(&mut self, ep: MemberId, key: &str, value: &str) {
        let input = Input::Put {
            key: key.into(),
            value: value.into(),
        };
        let req = Request::Put(PutRequest::new(key, value));
        self.send(ep, input, req);
    }

    /// A client reads `key` through `ep` (linearizable) and waits up to 3 s for the answer.
    fn client_get(&mut self, ep: MemberId, key: &str) {
        let req = Request::Range(RangeRequest::key(key));
        self.send(ep, Input::Get { key: key.into() }, req);
        self.wait_answers(3_000);
    }

    /// Runs (observing) until every client request has its answer, for at most `limit_ms`.
    fn wait_answers(&mut self, limit_ms: Millis) {
        let deadline = self.c.now() + limit_ms;
        while !self.waiting.is_empty() && self.c.next_event_time().is_some_and(|t| t <= deadline) {
            self.c.step();
            self.observe();
        }
    }

    fn send(&mut self, ep: MemberId, input: Input, req: Request) {
        let op = self.history.call(0, input);
        match self.c.send_kv(ep, req, false) {
            Ok(sent) => self.waiting.push((sent, op)),
            Err(_) => self.history.failed(op),
        }
    }

    /// Gives up on every request still waiting, then checks the clients' history: rejected
    /// with the switch on, linearizable with it off.
    fn history_verdict(&mut self, switch_on: bool) {
        for (sent, op) in std::mem::take(&mut self.waiting) {
            self.finish(sent, op);
        }
        let verdict = linearizability::check(&self.history, linearizability::STEP_BUDGET);
        let ops: Vec<String> = self
            .history
            .operations()
            .map(linearizability::describe)
            .collect();
        println!("switch {}: {verdict}", if switch_on { "on" } else { "off" });
        if switch_on {
            assert!(
                matches!(verdict, Verdict::Violation(_)),
                "switch on: expected a non-linearizable history, got {verdict:?}: {ops:#?}\n{}",
                self.trace_tail()
            );
        } else {
            assert_eq!(verdict, Verdict::Linearizable, "switch off: {ops:#?}");
        }
    }

    /// Checks what every member's watcher of `x` received against the store's history: a
    /// broken guarantee with the switch on (a member applied a write the others never did, or
    /// another one at the same revision), none with it off.
    fn watch_verdict(&mut self, switch_on: bool) {
        let verdict = self.watchers.check(&mut self.c);
        println!(
            "switch {}: watches {verdict:?}",
            if switch_on { "on" } else { "off" }
        );
        if switch_on {
            assert!(verdict.is_err(), "switch on: the watches saw nothing wrong");
        } else {
            assert!(verdict.is_ok(), "switch off: {verdict:?}");
        }
    }

    /// Steps (observing after each event) until `done` holds; panics after `limit_ms`.
    fn step_until(&mut self, limit_ms: Millis, what: &str, done: impl Fn(&Cluster) -> bool) {
        let deadline = self.c.now() + limit_ms;
        while !done(&self.c) {
            match self.c.next_event_time() {
                Some(t) if t <= deadline => {
                    self.c.step();
                    self.observe();
                }
                _ => panic!("{what}: not within {limit_ms} ms\n{}", self.trace_tail()),
            }
        }
    }

    /// Runs for `ms`, observing after each event; the network loses every message `lose`
    /// picks before it arrives.
    fn run_losing(&mut self, ms: Millis, lose: impl Fn(&Cluster, &InFlight) -> bool) {
        let deadline = self.c.now() + ms;
        while self.c.next_event_time().is_some_and(|t| t <= deadline) {
            self.c.step();
            let lost: Vec<InFlight> = self
                .c
                .in_flight()
                .into_iter()
                .filter(|m| lose(&self.c, m))
                .collect();
            for msg in lost {
                self.c.drop_message(msg.id).expect("in flight");
            }
            self.observe();
        }
        self.c.run_until(deadline);
    }

    /// Runs for `ms`, losing every message of `from` that tells a commit index of `index`
    /// or more: nobody but `from` learns that it committed there.
    fn run_hiding_commit(&mut self, ms: Millis, from: MemberId, index: Index) {
        self.run_losing(ms, |_, m| m.from == from && tells_commit(m, index));
    }

    fn run(&mut self, ms: Millis) {
        self.run_losing(ms, |_, _| false);
    }

    /// Elects `id` and lets the cluster settle: the members' own start-up entries (etcd's
    /// member publish and cluster version) committed everywhere.
    fn elect_and_settle(&mut self, id: MemberId) {
        self.campaign(id);
        self.run(1_000);
        self.step_until(2_000, "settled", |c| {
            let last = c.node(id).map_or(0, |n| n.log().last_index());
            c.member_ids()
                .into_iter()
                .all(|m| c.node(m).is_some_and(|n| n.log().committed == last))
        });
    }

    fn node_leads(&self, id: MemberId) -> bool {
        self.c.node(id).is_some_and(|n| n.is_leader())
    }

    fn term(&self, id: MemberId) -> Term {
        self.c.node(id).map_or(0, |n| n.term())
    }

    fn last_index(&self, id: MemberId) -> Index {
        self.c.node(id).map_or(0, |n| n.log().last_index())
    }

    /// Forces `id`'s election timer until it leads (a first round may only teach it the
    /// current term).
    fn campaign(&mut self, id: MemberId) {
        for _ in 0..3 {
            self.c.timeout(id).expect("running");
            self.observe();
            let deadline = self.c.now() + 200;
            while !self.node_leads(id) && self.c.next_event_time().is_some_and(|t| t <= deadline) {
                self.c.step();
                self.observe();
            }
            if self.node_leads(id) {
                return;
            }
        }
        panic!("{id} could not win an election\n{}", self.trace_tail());
    }

    /// Kills and restarts `ids`: durable state only, no leader known, no lease.
    fn bounce(&mut self, ids: &[MemberId]) {
        for id in ids {
            self.c.kill(*id).expect("running");
            self.c.restart(*id).expect("stopped");
            self.observe();
        }
    }

    fn isolate(&mut self, id: MemberId) {
        let all = self.c.member_ids();
        self.c.net.isolate(id, &all);
    }

    fn trace_tail(&self) -> String {
        let lines = self.c.trace_lines();
        let keep = std::env::var("TRACE_LINES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(40);
        lines[lines.len().saturating_sub(keep)..].join("\n")
    }

    /// Asserts that the monitor saw `property` (switch on) or nothing at all (switch off).
    fn verdict(&self, switch_on: bool, property: Property) {
        for v in self.monitor.violations() {
            println!("switch {}: {v}", if switch_on { "on" } else { "off" });
        }
        let seen: Vec<String> = self
            .monitor
            .violations()
            .iter()
            .map(|v| v.to_string())
            .collect();
        if switch_on {
            assert!(
                self.monitor.saw(property),
                "switch on: expected a {property} violation, saw {seen:#?}\n{}",
                self.trace_tail()
            );
        } else {
            assert!(
                seen.is_empty(),
                "switch off: expected no violation, saw {seen:#?}\n{}",
                self.trace_tail()
            );
        }
    }
}

/// §5.4.2, Figure 8: a leader that commits an entry of an earlier term by counting replicas
/// lets a later leader overwrite it, so two members apply different entries at one index.
///
/// A client puts x=X through m1 (term a); X lands at index i on m1 and m2 only, and both
/// crash. m5 wins term b with
/// m3 and m4 but is cut off at once: its own entry at i (term b) stays on m5 alone. m1
/// restarts and wins term c; the network loses every copy of its new term-c entry, so only X
/// reaches m3 and m4. Counting replicas, m1 commits and applies X. m1 crashes; m5 restarts and
/// wins term d (its last term b beats their a), overwrites X and applies its own entry at i.
/// m1 had answered the client's put: a read of x through m5 now misses it.
fn figure_8(switch_on: bool) -> World {
    let mut config = ClusterConfig::new(5, 8);
    config.teaching.commit_old_terms_by_counting = switch_on;
    let mut w = World::new(config);
    w.elect_and_settle(M1);

    // (a) X reaches m2 only.
    w.c.net.partition(&[vec![M1, M2], vec![M3, M4, M5]]);
    let (i, a) = (w.last_index(M1) + 1, w.term(M1));
    w.client_put(M1, "x", "X");
    w.step_until(1_000, "X on m2", |c| {
        c.node(M2).is_some_and(|n| n.log().last_index() >= i)
    });

    // (b) m5 leads term b with m3 and m4, and is cut off as it wins.
    w.c.kill(M1).unwrap();
    w.c.kill(M2).unwrap();
    w.run(50); // what m1 sent before the partition arrives first
    w.c.net.heal();
    w.bounce(&[M3, M4]);
    w.campaign(M5);
    w.isolate(M5);
    w.run(50);
    assert_eq!(
        w.last_index(M5),
        i,
        "m5's own entry sits at index i\n{}",
        w.trace_tail()
    );
    w.c.kill(M5).unwrap();
    w.c.net.heal();

    // (c) m1 leads term c; every copy of its new entry is lost, X reaches m3 and m4.
    // m1's next incarnation sends one entry per append.
    w.c.with_process(M1, |m, _| m.config.max_entries_per_msg = 1);
    w.c.restart(M1).unwrap();
    w.c.restart(M2).unwrap();
    w.observe();
    w.campaign(M1);
    // The network loses every copy of m1's term-c entry that its receiver would accept, and
    // (a member keeps the commit index it heard of across a crash) every word of its commit.
    let own = format!("[{}@", i + 1);
    w.run_losing(500, |c, m| {
        let has_x = c.node(m.to).is_some_and(|n| n.log().term(i) == Some(a));
        let own_entry = m.describe.to_string().contains(&own) && has_x;
        m.from == M1 && (own_entry || tells_commit(m, i))
    });
    assert_eq!(
        w.c.node(M1).map(|n| n.log().committed >= i),
        Some(switch_on),
        "m1 commits X exactly when it counts replicas of old terms\n{}",
        w.trace_tail()
    );

    // (d) m1 crashes; m5 wins term d and overwrites X everywhere.
    w.c.kill(M1).unwrap();
    w.run(50);
    w.c.restart(M5).unwrap();
    w.bounce(&[M2, M3, M4]);
    w.campaign(M5);
    w.run(1_000);
    w.client_get(M5, "x");
    w
}

#[test]
fn figure_8_commit_by_counting_breaks_state_machine_safety_5_4_2() {
    let mut on = figure_8(true);
    on.verdict(true, Property::StateMachineSafety);
    assert!(on.monitor.saw(Property::LeaderCompleteness));
    on.history_verdict(true);
    on.watch_verdict(true);
    let mut off = figure_8(false);
    off.verdict(false, Property::StateMachineSafety);
    off.history_verdict(false);
    off.watch_verdict(false);
}

/// §5.4.1: a voter that skips the up-to-date check elects a leader that lacks a committed
/// entry.
///
/// A client puts x=X through m1, which commits it with m2 (and answers) while m3 is
/// partitioned away; m1 crashes before m2 hears that X is committed; m2, just restarted, is
/// asked by m3 (whose log lacks X) for its vote. A read of x through m3 then misses an
/// answered put.
fn vote_without_log_check(switch_on: bool) -> World {
    let mut config = ClusterConfig::new(3, 541);
    config.teaching.vote_without_log_check = switch_on;
    let mut w = World::new(config);
    w.elect_and_settle(M1);
    w.c.net.partition(&[vec![M1, M2], vec![M3]]);
    let i = w.last_index(M1) + 1;
    w.client_put(M1, "x", "X");
    w.step_until(1_000, "X committed", |c| {
        c.node(M1).is_some_and(|n| n.log().committed >= i)
    });
    // m1 answers, and crashes before m2 hears that X is committed (what a member heard is
    // committed survives its restart).
    w.run_hiding_commit(100, M1, i);
    w.c.kill(M1).unwrap();
    w.run(50);
    w.c.net.heal();
    w.bounce(&[M2]);
    w.c.timeout(M3).unwrap();
    w.observe();
    w.run(3_000);
    assert_eq!(
        w.node_leads(M3),
        switch_on,
        "m3 wins only without the log check"
    );
    w.client_get(M3, "x");
    w
}

#[test]
fn voting_without_the_log_check_breaks_leader_completeness_5_4_1() {
    let mut on = vote_without_log_check(true);
    on.verdict(true, Property::LeaderCompleteness);
    on.history_verdict(true);
    on.watch_verdict(true);
    let mut off = vote_without_log_check(false);
    off.verdict(false, Property::LeaderCompleteness);
    off.history_verdict(false);
    off.watch_verdict(false);
}

/// §5.2: each server votes for at most one candidate per term, which needs `votedFor` on
/// disk. A voter that forgets it on restart votes twice in one term.
///
/// m1's messages to m3 are lost; m1 wins term t with m2's vote and is cut off as it wins (so
/// m2's log stays as short as m3's). m2 crashes and restarts; m3 asks it for a vote in the
/// same term t.
fn forget_vote(switch_on: bool) -> World {
    let mut config = ClusterConfig::new(3, 52);
    config.teaching.forget_vote_on_restart = switch_on;
    let mut w = World::new(config);
    w.c.net.cut.insert((M1, M3));
    w.campaign(M1);
    let t = w.term(M1);
    w.isolate(M1);
    w.run(50);
    w.bounce(&[M2]);
    w.c.timeout(M3).unwrap();
    w.observe();
    w.run(500);
    assert_eq!(
        w.node_leads(M3) && w.term(M3) == t,
        switch_on,
        "m3 leads m1's term only if m2 forgot its vote"
    );
    w.run(3_000);
    w
}

/// The same two leaders of one term, each with a client: m1 (cut off) takes a put x=A, m3
/// commits a put x=B with m2 and answers it. The network heals while m1 still leads; its
/// append of A matches m2's log by (index, term) at the entry before, and m2, which holds B
/// at A's index with the same term, takes the entry as one it has: it acknowledges, m1
/// counts a quorum and applies A where m2 and m3 applied B. Reads through m1 and m3 disagree.
fn forget_vote_with_clients(switch_on: bool) -> World {
    let mut config = ClusterConfig::new(3, 52);
    config.teaching.forget_vote_on_restart = switch_on;
    let mut w = World::new(config);
    w.c.net.cut.insert((M1, M3));
    w.campaign(M1);
    w.isolate(M1);
    w.run(50);
    w.client_put(M1, "x", "A");
    w.bounce(&[M2]);
    w.c.timeout(M3).unwrap();
    w.observe();
    w.run(300);
    let leader = if switch_on { M3 } else { M2 };
    w.client_put(leader, "x", "B");
    w.run(200);
    w.c.net.heal();
    w.run(300);
    w.client_get(M3, "x");
    w.client_get(M1, "x");
    w
}

#[test]
fn forgetting_the_vote_loses_an_answered_put() {
    let mut on = forget_vote_with_clients(true);
    on.verdict(true, Property::ElectionSafety);
    on.history_verdict(true);
    on.watch_verdict(true);
    let mut off = forget_vote_with_clients(false);
    off.verdict(false, Property::ElectionSafety);
    assert_eq!(off.history.counts(), (4, 0), "every request answered");
    off.history_verdict(false);
    off.watch_verdict(false);
}

#[test]
fn forgetting_the_vote_on_restart_breaks_election_safety_5_2() {
    forget_vote(true).verdict(true, Property::ElectionSafety);
    forget_vote(false).verdict(false, Property::ElectionSafety);
}

/// Thesis §9.6: without pre-vote, a member cut off from the others raises its term at every
/// election timeout, and when it rejoins that term deposes a leader a quorum still followed.
fn rejoin(pre_vote: bool) -> World {
    let mut config = ClusterConfig::new(3, 96);
    config.pre_vote = pre_vote;
    let mut w = World::new(config);
    w.elect_and_settle(M1);
    let term = w.term(M1);
    w.c.net.partition(&[vec![M1, M2], vec![M3]]);
    w.run(5_000);
    assert_eq!(
        w.term(M3) > term,
        !pre_vote,
        "m3's term grows only without pre-vote"
    );
    w.c.net.heal();
    w.run(3_000);
    w
}

#[test]
fn without_pre_vote_a_rejoining_member_disrupts_the_leader_thesis_9_6() {
    rejoin(false).verdict(true, Property::Disruption);
    rejoin(true).verdict(false, Property::Disruption);
}

/// Thesis §6.2 (check-quorum): a leader that hears from no quorum for an election timeout
/// steps down; without that rule a leader cut off in a minority keeps leading.
fn cut_off_leader(check_quorum: bool) -> World {
    let mut config = ClusterConfig::new(3, 62);
    config.check_quorum = check_quorum;
    let mut w = World::new(config);
    w.elect_and_settle(M1);
    w.c.net.partition(&[vec![M1], vec![M2, M3]]);
    w.run(6_000);
    assert_eq!(
        w.node_leads(M1),
        !check_quorum,
        "m1 steps down only with check-quorum"
    );
    w.c.net.heal();
    w.run(2_000);
    w
}

#[test]
fn without_check_quorum_a_cut_off_leader_stays_stale_thesis_6_2() {
    cut_off_leader(false).verdict(true, Property::StaleLeader);
    cut_off_leader(true).verdict(false, Property::StaleLeader);
}

#[test]
fn the_violations_read_as_sentences() {
    let w = forget_vote(true);
    let text = w.monitor.violations()[0].to_string();
    assert!(
        text.starts_with("election safety: m1 and m3 both led term "),
        "{text}"
    );
    let w = figure_8(true);
    let text = w
        .monitor
        .violations()
        .iter()
        .find(|v| v.property == Property::StateMachineSafety)
        .map(|v| v.to_string())
        .unwrap_or_default();
    assert!(
        text.contains("m1 applied") && text.contains("but m5 applied"),
        "{text}"
    );
}

/// Regression (found by `sim_random`, seeds 1208 and 1907): `Raft::force_timeout` on a leader
/// used to reset its `election_elapsed`, which is also the leader's check-quorum clock, so
/// pressing "time out" on a cut-off leader every election timeout kept it leading forever.
/// etcd ignores MsgHup on a leader, and so does the engine now.
#[test]
fn a_forced_timeout_does_not_postpone_check_quorum() {
    let mut w = World::new(ClusterConfig::new(3, 62));
    w.elect_and_settle(M1);
    w.c.net.partition(&[vec![M1], vec![M2, M3]]);
    for _ in 0..8 {
        w.run(900);
        w.c.timeout(M1).unwrap();
        w.observe();
    }
    w.verdict(false, Property::StaleLeader);
}

/// Regression (found by `sim_random`, seed 90617): a member used to start with its bootstrap
/// configuration only in memory; killed before its first fsync completed, it restarted with
/// no voters and term 0 and never campaigned. Like etcd's WAL, the bootstrap is now on disk
/// before the member starts.
#[test]
fn a_crash_during_the_first_fsync_keeps_the_bootstrap_configuration() {
    let mut w = World::new(ClusterConfig::new(3, 7));
    for id in [M1, M2, M3] {
        w.c.set_fsync(id, 100).unwrap();
    }
    w.run(30);
    w.bounce(&[M1, M2, M3]);
    w.step_until(20_000, "a leader after the crash", |c| c.leader().is_some());
}

/// Whether `m` tells its receiver that entries up to `index` or beyond are committed.
fn tells_commit(m: &InFlight, index: Index) -> bool {
    let describe = m.describe.to_string();
    let commit = describe.split(' ').find_map(|w| w.strip_prefix("commit="));
    commit
        .and_then(|c| c.parse::<Index>().ok())
        .is_some_and(|c| c >= index)
}
