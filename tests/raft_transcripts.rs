//! Raft transcripts (etcd-io/raft's `testdata/` style): each `tests/testdata/raft/*.txt` is a
//! protocol log. Lines starting with `> ` are commands; the lines after each command are its
//! expected output. The harness drives bare `Raft` nodes over an in-test network (no
//! simulator): every message is shown as it is delivered, so the files read like the paper.
//! `REWRITE=1 cargo test --test raft_transcripts` blesses new output.
//!
//! Commands: `nodes N [prevote=false] [checkquorum=false] [figure8] [novotecheck]
//! [forgetvote] [election=T] [batch=N]`, `campaign I`, `tick I [N]`, `tick-all [N]`, `deliver [N]`
//! (deliver up to N pending messages, FIFO), `stabilize` (persist, send and deliver until
//! quiet), `drop FROM TO|*` (drop pending messages on that link, or all from FROM), `partition 1,2 | 3`, `heal`,
//! `propose I DATA`, `conf I +4 ~5 -2` (propose a membership change via I), `add I` (a new
//! empty member I), `kill I`, `restart I`, `compact I`, `transfer I TO`, `read I CTX`,
//! `status`, `log I`.

use raftlab::base::{Index, MemberId, Rng};
use raftlab::raft::{Body, ConfChange, ConfChangeOp, Config, Durable, Message, Raft, ReadState};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

struct Node {
    raft: Option<Raft>,
    durable: Durable,
    config: Config,
    applied: Vec<String>,
    reads: Vec<ReadState>,
    restarts: u64,
}

#[derive(Default)]
struct Net {
    nodes: BTreeMap<u64, Node>,
    pending: VecDeque<Message>,
    cut: BTreeSet<(u64, u64)>,
    out: String,
}

fn id(n: u64) -> MemberId {
    MemberId(n)
}

impl Net {
    fn node(&mut self, n: u64) -> Result<&mut Raft, String> {
        self.nodes
            .get_mut(&n)
            .and_then(|node| node.raft.as_mut())
            .ok_or(format!("m{n} is not running"))
    }

    /// Persist, queue messages and apply for every node until no node has a Ready.
    fn process_readies(&mut self) {
        loop {
            let mut any = false;
            for (n, node) in self.nodes.iter_mut() {
                let Some(raft) = node.raft.as_mut() else {
                    continue;
                };
                if !raft.has_ready() {
                    continue;
                }
                any = true;
                let rd = raft.ready();
                for event in &rd.events {
                    let _ = writeln!(self.out, "  m{n} {event}");
                }
                let image = &node.durable.snapshot_data;
                let snapshots: Vec<Message> = (rd.snapshot_requests.iter())
                    .map(|r| r.message(image.clone()))
                    .collect();
                node.durable.persist(&rd);
                for entry in &rd.committed_entries {
                    node.applied.push(entry.describe());
                    let _ = writeln!(self.out, "  m{n} applies {}", entry.describe());
                }
                node.reads.extend(rd.read_states.iter().copied());
                for read in &rd.read_states {
                    let _ = writeln!(
                        self.out,
                        "  m{n} read ctx={} is safe at index {}",
                        read.ctx, read.index
                    );
                }
                if let Some(snap) = &rd.snapshot {
                    let _ = writeln!(
                        self.out,
                        "  m{n} installs snapshot {}@{}",
                        snap.index, snap.term
                    );
                }
                raft.advance(&rd);
                self.pending.extend(rd.messages);
                self.pending.extend(snapshots);
            }
            if !any {
                return;
            }
        }
    }

    fn deliver_one(&mut self) -> bool {
        self.process_readies();
        let Some(m) = self.pending.pop_front() else {
            return false;
        };
        let (from, to) = (m.from.0, m.to.0);
        let running = self.nodes.get(&to).is_some_and(|n| n.raft.is_some());
        if self.cut.contains(&(from, to)) {
            let _ = writeln!(self.out, "{} [dropped: partitioned]", m.describe());
        } else if !running {
            let _ = writeln!(self.out, "{} [dropped: m{to} is down]", m.describe());
        } else {
            let _ = writeln!(self.out, "{}", m.describe());
            if let Some(raft) = self.nodes.get_mut(&to).and_then(|n| n.raft.as_mut()) {
                raft.step(m);
            }
        }
        self.process_readies();
        true
    }

    fn status(&mut self) {
        for (n, node) in &self.nodes {
            let line = match &node.raft {
                Some(r) => {
                    let v = r.view();
                    format!(
                        "m{n}: {} term={} vote={} leader={} commit={} applied={} last={}@{} voters={}{}",
                        v.role.as_str(),
                        v.term,
                        v.vote.map_or("-".into(), |m| m.to_string()),
                        v.leader.map_or("-".into(), |m| m.to_string()),
                        v.commit,
                        v.applied,
                        v.last_index,
                        v.last_term,
                        fmt_ids(&r.conf().voters),
                        if r.conf().is_joint() { format!("&&{}", fmt_ids(&r.conf().voters_outgoing)) } else { String::new() },
                    ) + &if r.conf().learners.is_empty() { String::new() } else { format!(" learners={}", fmt_ids(&r.conf().learners)) }
                }
                None => format!("m{n}: down (term={} on disk)", node.durable.hard.term),
            };
            let _ = writeln!(self.out, "{line}");
        }
    }
}

fn fmt_ids(ids: &BTreeSet<MemberId>) -> String {
    let v: Vec<String> = ids.iter().map(|m| m.0.to_string()).collect();
    v.join(",")
}

fn parse_n(s: &str) -> Result<u64, String> {
    s.trim_start_matches('m')
        .parse()
        .map_err(|_| format!("bad number {s:?}"))
}

fn run_command(net: &mut Net, line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((cmd, args)) = words.split_first() else {
        return Ok(());
    };
    match (*cmd, args) {
        ("nodes", [n, opts @ ..]) => {
            // A new scenario: a fresh network.
            *net = Net::default();
            let n = parse_n(n)?;
            let voters: Vec<MemberId> = (1..=n).map(id).collect();
            for i in 1..=n {
                let mut c = Config::new(id(i), voters.clone());
                for opt in opts {
                    match *opt {
                        "prevote=false" => c.pre_vote = false,
                        "checkquorum=false" => c.check_quorum = false,
                        "figure8" => c.teaching.commit_old_terms_by_counting = true,
                        "novotecheck" => c.teaching.vote_without_log_check = true,
                        "forgetvote" => c.teaching.forget_vote_on_restart = true,
                        o if o.starts_with("batch=") => {
                            c.max_entries_per_msg = parse_n(&o[6..])? as usize
                        }
                        o if o.starts_with("election=") => {
                            c.election_tick = parse_n(&o[9..])? as u32
                        }
                        o => return Err(format!("unknown option {o}")),
                    }
                }
                let raft = Raft::new(c.clone(), Rng::new(i));
                net.nodes.insert(
                    i,
                    Node {
                        raft: Some(raft),
                        durable: Durable::default(),
                        config: c,
                        applied: Vec::new(),
                        reads: Vec::new(),
                        restarts: 0,
                    },
                );
            }
            net.process_readies();
        }
        ("add", [n]) => {
            let n = parse_n(n)?;
            let template = net
                .nodes
                .values()
                .next()
                .ok_or("no nodes yet")?
                .config
                .clone();
            let mut c = template;
            c.id = id(n);
            c.voters.clear();
            let raft = Raft::new(c.clone(), Rng::new(n));
            net.nodes.insert(
                n,
                Node {
                    raft: Some(raft),
                    durable: Durable::default(),
                    config: c,
                    applied: Vec::new(),
                    reads: Vec::new(),
                    restarts: 0,
                },
            );
        }
        ("campaign", [n]) => {
            net.node(parse_n(n)?)?.force_timeout();
            net.process_readies();
        }
        ("tick", [n, rest @ ..]) => {
            let times = rest.first().map_or(Ok(1), |t| parse_n(t))?;
            let n = parse_n(n)?;
            for _ in 0..times {
                net.node(n)?.tick();
                net.process_readies();
            }
        }
        ("tick-all", rest) => {
            let times = rest.first().map_or(Ok(1), |t| parse_n(t))?;
            for _ in 0..times {
                let ids: Vec<u64> = net.nodes.keys().copied().collect();
                for n in ids {
                    if let Ok(raft) = net.node(n) {
                        raft.tick();
                    }
                }
                net.process_readies();
            }
        }
        ("deliver", rest) => {
            let limit = rest.first().map_or(Ok(u64::MAX), |t| parse_n(t))?;
            let mut count = 0;
            while count < limit && net.deliver_one() {
                count += 1;
            }
        }
        ("stabilize", []) => {
            let mut guard = 0;
            while net.deliver_one() {
                guard += 1;
                if guard > 10_000 {
                    return Err("stabilize did not settle".into());
                }
            }
        }
        ("drop", [a, b]) => {
            let a = parse_n(a)?;
            let b = if *b == "*" { None } else { Some(parse_n(b)?) };
            let before = net.pending.len();
            net.pending
                .retain(|m| !(m.from.0 == a && b.is_none_or(|b| m.to.0 == b)));
            let to = b.map_or("*".to_string(), |b| format!("m{b}"));
            let _ = writeln!(
                net.out,
                "dropped {} message(s) m{a}->{to}",
                before - net.pending.len()
            );
        }
        ("partition", _) => {
            let spec = args.join(" ");
            let groups: Vec<Vec<u64>> = spec
                .split('|')
                .map(|g| {
                    g.split([',', ' '])
                        .filter(|s| !s.is_empty())
                        .map(parse_n)
                        .collect()
                })
                .collect::<Result<_, _>>()?;
            for (i, a) in groups.iter().enumerate() {
                for b in groups.iter().skip(i + 1) {
                    for x in a {
                        for y in b {
                            net.cut.insert((*x, *y));
                            net.cut.insert((*y, *x));
                        }
                    }
                }
            }
        }
        ("heal", []) => net.cut.clear(),
        ("propose", [n, data]) => {
            let result = net.node(parse_n(n)?)?.propose(data.as_bytes().to_vec());
            if let Err(e) = result {
                let _ = writeln!(net.out, "error: {e}");
            }
            net.process_readies();
        }
        ("conf", [n, changes @ ..]) => {
            let mut cc = ConfChange::default();
            for c in changes {
                let (op, rest) = match c.split_at(1) {
                    ("+", r) => (ConfChangeOp::AddVoter, r),
                    ("~", r) => (ConfChangeOp::AddLearner, r),
                    ("-", r) => (ConfChangeOp::Remove, r),
                    _ => return Err(format!("bad change {c}")),
                };
                cc.changes.push((op, id(parse_n(rest)?)));
            }
            if let Err(e) = net.node(parse_n(n)?)?.propose_conf_change(cc) {
                let _ = writeln!(net.out, "error: {e}");
            }
            net.process_readies();
        }
        ("kill", [n]) => {
            let n = parse_n(n)?;
            net.nodes.get_mut(&n).ok_or("no such node")?.raft = None;
        }
        ("restart", [n]) => {
            let n = parse_n(n)?;
            let node = net.nodes.get_mut(&n).ok_or("no such node")?;
            node.restarts += 1;
            node.applied.clear();
            node.raft = Some(
                node.durable
                    .restart(node.config.clone(), Rng::new(n * 1000 + node.restarts)),
            );
            net.process_readies();
        }
        ("compact", [n]) => {
            let n = parse_n(n)?;
            let node = net.nodes.get_mut(&n).ok_or("no such node")?;
            let raft = node.raft.as_mut().ok_or("not running")?;
            let index: Index = raft.log().applied;
            let term = raft.log().term(index).ok_or("nothing to compact")?;
            let conf = raft.compact(index).ok_or("nothing to compact")?;
            node.durable.compact(
                index,
                term,
                conf,
                format!("state@{index}").into_bytes().into(),
            );
            let _ = writeln!(net.out, "m{n} compacted its log through {index}");
        }
        ("transfer", [n, to]) => {
            let to = id(parse_n(to)?);
            net.node(parse_n(n)?)?.transfer_leader(to);
            net.process_readies();
        }
        ("read", [n, ctx]) => {
            let ctx = parse_n(ctx)?;
            if let Err(e) = net.node(parse_n(n)?)?.read_index(ctx) {
                let _ = writeln!(net.out, "error: {e}");
            }
            net.process_readies();
        }
        ("status", []) => net.status(),
        ("log", [n]) => {
            let raft = net.node(parse_n(n)?)?;
            let entries: Vec<String> = raft.log().entries.iter().map(|e| e.describe()).collect();
            let head = format!(
                "snapshot={}@{}",
                raft.log().snapshot_index,
                raft.log().snapshot_term
            );
            let _ = writeln!(net.out, "{head} [{}]", entries.join(", "));
        }
        ("applied", [n]) => {
            let n = parse_n(n)?;
            let applied = net.nodes.get(&n).ok_or("no such node")?.applied.join(", ");
            let _ = writeln!(net.out, "m{n} applied [{applied}]");
        }
        _ => return Err(format!("unknown command: {line}")),
    }
    Ok(())
}

/// Runs a transcript's commands and returns the transcript it produces.
fn produce(text: &str) -> String {
    let mut net = Net::default();
    let mut transcript = String::new();
    for line in text.lines() {
        if let Some(cmd) = line.strip_prefix("> ") {
            net.out.clear();
            if let Err(e) = run_command(&mut net, cmd) {
                let _ = writeln!(net.out, "error: {e}");
            }
            let _ = writeln!(transcript, "> {cmd}");
            transcript.push_str(&net.out);
        } else if line.starts_with('#') || (line.is_empty() && !transcript.ends_with("\n\n")) {
            // Comments and blank lines between commands are kept as written.
            let _ = writeln!(transcript, "{line}");
        }
    }
    transcript
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/testdata/raft");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    v.sort();
    v
}

#[test]
fn raft_transcripts() {
    let rewrite = std::env::var_os("REWRITE").is_some();
    let mut failures = Vec::new();
    let all = files();
    assert!(
        all.len() >= 8,
        "expected the section transcripts, found {}",
        all.len()
    );
    for path in all {
        let text = std::fs::read_to_string(&path).unwrap();
        let got = produce(&text);
        if rewrite {
            std::fs::write(&path, &got).unwrap();
        } else if got != text {
            failures.push(format!(
                "=== {} (REWRITE=1 to bless)\n{}",
                path.display(),
                diff(&text, &got)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for i in 0..w.len().max(g.len()) {
        if w.get(i) != g.get(i) {
            return format!(
                "line {}:\n- {}\n+ {}",
                i + 1,
                w.get(i).unwrap_or(&"<end>"),
                g.get(i).unwrap_or(&"<end>")
            );
        }
    }
    String::new()
}

#[test]
fn unknown_commands_are_reported_not_panics() {
    let out = produce("> nodes 3\n> frob\n> tick m9\n> nodes x\n");
    assert!(out.contains("error: unknown command: frob"));
    assert!(out.contains("error: m9 is not running"));
    let _ = Body::Beat; // the harness uses the public message type
}
