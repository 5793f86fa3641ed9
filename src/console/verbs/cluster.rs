//! The simulator's verbs on members and time: wait, status, kill/restart/pause/resume/timeout,
//! transfer, membership changes, snapshots, slow disks.

use super::expect::goal_text;
use super::Call;
use crate::base::{format_duration, parse_duration, MemberId, Millis};
use crate::console::error::ConsoleError;
use crate::console::goal::{Baseline, Goal};
use crate::console::{Output, Session, WAIT_LEADER_LIMIT_MS, WAIT_LIMIT_MS};
use crate::sim::SimError;
use std::fmt::Write as _;

/// What `wait` waits for.
enum Wait<'a> {
    Leader,
    For(Millis, &'a str),
    /// `wait until GOAL`: the goal checked against the mark, as `expect` checks it.
    Until(Goal),
}

pub fn too_long(what: &str) -> ConsoleError {
    ConsoleError::failed(crate::console::longer_than_the_longest_wait(what))
}

fn parse_wait<'a>(call: &Call<'a>) -> Result<Wait<'a>, ConsoleError> {
    match call.args[..] {
        ["leader"] => Ok(Wait::Leader),
        ["until"] => Err(call.usage_because("until needs a goal")),
        ["until", _, ..] => Ok(Wait::Until(Goal::parse(goal_text(call, "until").1)?)),
        [duration] => {
            let ms = parse_duration(duration)
                .ok_or_else(|| ConsoleError::duration(duration, "500ms, 2s, 1h30m"))?;
            Ok(Wait::For(ms, duration))
        }
        _ => Err(call.usage()),
    }
}

/// What a `wait` that ends on a condition waits for: it runs once the command returns
/// (`Session::resume`), as a timed wait does, so that the page can run it in slices too.
#[derive(Clone, Debug)]
pub struct Awaited {
    until: Until,
    /// When the command started (its history entry's time), and its deadline.
    started: (Millis, u64),
    deadline_ms: Millis,
}

#[derive(Clone, Debug)]
enum Until {
    Leader,
    Goal {
        goal: Goal,
        base: Baseline,
        line: String,
    },
}

pub fn wait(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let until = match parse_wait(call)? {
        Wait::For(ms, duration) => {
            let_time_pass(s, ms, &format!("wait {duration}"))?;
            return Ok(Output::default());
        }
        Wait::Leader => Until::Leader,
        Wait::Until(goal) => Until::Goal {
            goal,
            base: s.mark(),
            line: call.line.to_string(),
        },
    };
    s.later = Some(crate::console::later::Later::Wait(Awaited {
        until,
        started: s.command_start,
        deadline_ms: s.world.now() + WAIT_LEADER_LIMIT_MS,
    }));
    Ok(Output::default())
}

/// A leader is ready once it committed an entry of its own term (its no-op).
fn leader_ready(w: &crate::etcd::Cluster) -> bool {
    w.leader()
        .and_then(|l| w.node(l))
        .is_some_and(|n| n.log().term(n.log().committed) == Some(n.term()))
}

impl Awaited {
    /// The virtual time it may wait at most.
    pub fn deadline_ms(&self) -> Millis {
        self.deadline_ms
    }

    /// Lets time pass until it is met, at most to its deadline, stopping after the first
    /// moment past `slice_end`; whether it is decided (met, failed, or out of time).
    pub fn run(&self, s: &mut Session, slice_end: Millis) -> bool {
        let window = (self.deadline_ms, slice_end);
        match &self.until {
            Until::Leader => s.run_world_until(window, leader_ready).is_some(),
            Until::Goal { goal, base, .. } => {
                !matches!(s.run_until_goal(window, goal, base), Ok(None))
            }
        }
    }

    /// Whether the decided wait failed, and why; recorded when it let time pass.
    pub fn finish(&self, s: &mut Session) -> Result<(), ConsoleError> {
        let limit = format_duration(WAIT_LEADER_LIMIT_MS);
        s.command_start = self.started;
        match &self.until {
            Until::Leader if leader_ready(&s.world) => s.record("wait leader"),
            Until::Leader => {
                return Err(ConsoleError::failed(format!("no leader within {limit}")));
            }
            Until::Goal { goal, base, line } => {
                s.observe();
                // A goal that turns unanswerable on the way (`leader > 1` once there is a
                // leader) still let time pass, which a replay must repeat.
                if s.world.now() > self.started.0 {
                    s.record(line);
                }
                if !s.goal_holds(goal, base)? {
                    return Err(ConsoleError::failed(format!(
                        "wait until: not within {limit}: {}",
                        goal.explain(s, base)
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Lets `ms` of virtual time pass, up to the longest wait; `asked` is the command that asked
/// (`wait 2s`, `sleep 10`). The time passes once the command returns (`Session::resume`), so
/// that the page can run it in slices.
pub fn let_time_pass(s: &mut Session, ms: Millis, asked: &str) -> Result<(), ConsoleError> {
    if ms > WAIT_LIMIT_MS {
        return Err(too_long(asked));
    }
    s.owed_ms += ms;
    Ok(())
}

pub fn status(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let json = match call.args[..] {
        [] => false,
        ["-w", "json"] | ["-w=json"] | ["--write-out=json"] | ["--write-out", "json"] => true,
        ["-w", "simple"] | ["-w=simple"] => false,
        _ => return Err(call.usage()),
    };
    let status = s.world.status();
    if json {
        let text = serde_json::to_string(&status).map_err(|e| e.to_string())?;
        return Ok(Output::ok(text + "\n"));
    }
    let leader = status.leader.map_or("none".to_string(), |l| l.to_string());
    let mut out = format!(
        "time {}  leader {leader}\n",
        format_duration(status.time_ms)
    );
    let _ = writeln!(
        out,
        "{:<5} {:<14} {:>5} {:<5} {:>7} {:>8} {:>9}",
        "NAME", "STATE", "TERM", "VOTE", "COMMIT", "APPLIED", "LAST"
    );
    for m in status.members {
        let vote = m.vote.map_or("-".to_string(), |v| v.to_string());
        let last = format!("{}@{}", m.last_index, m.last_term);
        let _ = writeln!(
            out,
            "{:<5} {:<14} {:>5} {:<5} {:>7} {:>8} {:>9}",
            m.name.to_string(),
            m.state,
            m.term,
            vote,
            m.commit,
            m.applied,
            last
        );
    }
    Ok(Output::ok(out))
}

/// `kill`, `restart`, `pause`, `resume` and `timeout` on one member.
pub fn member_action(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    if let ("restart", [name, "--data-dir", dir]) = (call.verb.name, &call.args[..]) {
        return restart_from_data_dir(s, name, dir, call.line);
    }
    let [name] = call.args[..] else {
        return Err(call.usage());
    };
    let member = s.member(name)?;
    let result = match call.verb.name {
        "kill" => s.world.kill(member),
        "restart" => s.world.restart(member),
        "pause" => s.world.pause(member),
        "resume" => s.world.resume(member),
        _ => s.world.timeout(member),
    };
    s.done(result, call.line)
}

/// `restart m1 --data-dir restored`: m1 starts from a data directory that `etcdutl
/// snapshot restore` wrote, with the identity and store the restore gave it.
fn restart_from_data_dir(
    s: &mut Session,
    name: &str,
    dir: &str,
    line: &str,
) -> Result<Output, ConsoleError> {
    let member = s.member(name)?;
    if s.world.is_running(member) {
        return Err(SimError::NotStopped(member).into());
    }
    let restored = crate::etcd::read_data_dir(&s.files, dir).ok_or_else(|| {
        format!("{dir}: no restored data directory (run etcdutl snapshot restore first)")
    })?;
    let identity = crate::etcd::Identity {
        name: restored.name,
        peer_urls: restored.peer_urls,
        client_urls: vec![crate::etcd::client_url(member)],
        etcd_id: restored.member_id,
        cluster_id: restored.cluster_id,
    };
    let voters = restored_voters(s, member, &restored.initial_cluster)?;
    let own = voters.len() == 1 || s.world.member(&identity.name).ok() == Some(member);
    if !own || !voters.contains(&member) {
        return Err(ConsoleError::failed(format!(
            "{dir} was restored for member {:?}, not {member}",
            identity.name
        )));
    }
    crate::etcd::restore_member(&mut s.world, member, identity, restored.db, voters);
    let result = s.world.restart(member);
    s.done(result, line)
}

/// The restored cluster's members: a single-member restore keeps whatever name it was given;
/// larger ones name their members after the simulated ones (m1, m2, ...).
fn restored_voters(
    s: &Session,
    member: MemberId,
    initial_cluster: &[(String, Vec<String>)],
) -> Result<Vec<MemberId>, ConsoleError> {
    if initial_cluster.len() <= 1 {
        return Ok(vec![member]);
    }
    initial_cluster
        .iter()
        .map(|(name, _)| {
            s.world.member(name).map_err(|_| {
                ConsoleError::failed(format!("cannot map member {name:?} of --initial-cluster to a simulated member (name them m1, m2, ...)"))
            })
        })
        .collect()
}

pub fn transfer(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [name] = call.args[..] else {
        return Err(call.usage_because("hand leadership to MEMBER"));
    };
    let to = s.member(name)?;
    let result = s.world.transfer_leader(to);
    s.done(result, call.line)
}

/// `add-member`, `add-learner`.
pub fn add_member(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    if !call.args.is_empty() {
        return Err(call.usage());
    }
    let id = s.world.add_member(call.verb.name == "add-learner")?;
    s.record(call.line);
    Ok(Output::ok(format!("added {id}\n")))
}

/// `remove-member`, `promote`, `snapshot` on one member.
pub fn membership(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [name] = call.args[..] else {
        return Err(call.usage());
    };
    let member = s.member(name)?;
    let result = match call.verb.name {
        "remove-member" => s.world.remove_member(member),
        "promote" => s.world.promote(member),
        _ => s.world.snapshot(member),
    };
    s.done(result, call.line)
}

/// `fsync m1 200ms`: every fsync of m1 takes that long (0ms: a fast disk again).
pub fn fsync(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [name, duration] = call.args[..] else {
        return Err(call.usage());
    };
    let member = s.member(name)?;
    let ms = parse_duration(duration).ok_or_else(|| ConsoleError::duration(duration, "200ms"))?;
    let result = s.world.set_fsync(member, ms);
    s.done(result, call.line)
}

pub fn snapshot_count(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let count = match call.args[..] {
        [n] => n.parse::<u64>().ok().filter(|n| *n > 0),
        _ => None,
    }
    .ok_or_else(|| call.usage_because("N > 0 applied entries between snapshots"))?;
    s.world.set_snapshot_count(count);
    s.done(Ok(()), call.line)
}
