//! Cluster and maintenance commands: `compaction`, `defrag`, `endpoint status|health|hashkv`,
//! `alarm list|disarm`, `member list|add|remove|promote`, `move-leader`,
//! `snapshot save|status` (etcdctl/ctlv3/command/*_command.go); `snapshot restore` is
//! etcdutl's, in `etcdutl.rs`.

use super::args::{parse_go_int, parse_go_uint, Parsed};
use super::printer::{go_duration_us, DbStatus, EpHash, EpHealth, EpStatus, Format, MemberInfo};
use super::{
    init_display, to_header, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_BAD_CONNECTION, EXIT_ERROR,
    EXIT_INTERRUPTED,
};
use crate::base::time::rfc3339_millis;
use crate::base::{format_duration, Millis};
use crate::console::shell::fs;
use crate::console::{too_long_to_wait, WAIT_LIMIT_MS};
use crate::etcd::MemberEntry;

pub fn compaction(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "compaction command needs 1 argument",
        ));
    }
    let rev = parse_go_int(&p.args[0]).map_err(|e| Exit::new(EXIT_ERROR, e))?;
    let physical = p.bool("physical");
    init_display(ctx, p)?;
    ctx.call(|w, ep, t| w.compact(ep, rev, physical, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    ctx.print(&format!("compacted revision {rev}\n"));
    Ok(())
}

fn member_info(m: &MemberEntry) -> MemberInfo {
    MemberInfo {
        id: m.id,
        name: m.name.clone(),
        peer_urls: m.peer_urls.clone(),
        client_urls: m.client_urls.clone(),
        is_learner: m.is_learner,
    }
}

/// `endpointsFromCluster`: the `--endpoints`, or with `--cluster` every member's client URLs.
/// Each may wait out the command timeout: a list that could outlast the longest wait is
/// refused before the first dial, as it would hold the page for as long as it ran.
fn endpoints(ctx: &mut Ctx, p: &Parsed) -> Result<Vec<String>, Exit> {
    let eps = if p.bool("cluster") {
        let reply = ctx
            .call(|w, ep, t| w.member_list(ep, t))
            .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
        let urls = reply
            .body
            .iter()
            .flat_map(|m| m.client_urls.iter().cloned());
        urls.collect()
    } else {
        ctx.endpoints.clone()
    };
    let timeout = ctx.command_timeout_ms;
    if (eps.len() as Millis).saturating_mul(timeout) > WAIT_LIMIT_MS {
        let flag = p.str("command-timeout");
        let flag = flag.map_or_else(|| format_duration(timeout), str::to_string);
        let what = format!(
            "{} endpoints, each up to --command-timeout={flag}",
            eps.len()
        );
        let remedy = "name fewer endpoints or a shorter --command-timeout";
        return Err(Exit::new(EXIT_ERROR, too_long_to_wait(&what, remedy)));
    }
    Ok(eps)
}

pub fn endpoint_status(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let mut list = Vec::new();
    let mut failed = false;
    for ep in endpoints(ctx, p)? {
        let member = ctx.member(&ep);
        match ctx.call_on(member, |w, m, t| w.endpoint_status(m, t)) {
            Ok(reply) => {
                let s = reply.body;
                list.push(EpStatus {
                    ep,
                    header: to_header(s.header),
                    version: s.version.to_string(),
                    db_size: s.db_size as i64,
                    db_size_in_use: s.db_size_in_use as i64,
                    leader: s.leader,
                    raft_index: s.raft_index,
                    raft_term: s.raft_term,
                    raft_applied_index: s.raft_applied_index,
                    errors: s.errors,
                    is_learner: s.is_learner,
                });
            }
            Err(e) => {
                failed = true;
                ctx.zap_unary(&ep, true, &e);
                ctx.eprint(&format!(
                    "Failed to get the status of endpoint {ep} ({e})\n"
                ));
            }
        }
    }
    let printed = ctx.printer.endpoint_status(&list);
    ctx.show(printed)?;
    if failed {
        return Err(Exit::quiet(EXIT_ERROR));
    }
    Ok(())
}

pub fn endpoint_health(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let mut list = Vec::new();
    for ep in endpoints(ctx, p)? {
        let member = ctx.member(&ep);
        let start = ctx.world.now();
        let result = ctx.call_on(member, |w, m, t| w.endpoint_health(m, t));
        // A real round trip takes a little time even when the simulated one is instant.
        let took_us = (ctx.world.now() - start) * 1000 + 417;
        let mut h = EpHealth {
            ep: ep.clone(),
            health: result.is_ok(),
            took: go_duration_us(took_us),
            error: String::new(),
        };
        if let Err(e) = result {
            if member.is_none() {
                ctx.zap_unary(&ep, false, &e);
            }
            h.error = e.to_string();
        }
        list.push(h);
    }
    let unhealthy = list.iter().any(|h| !h.error.is_empty());
    let (out, err) = ctx.printer.endpoint_health(&list)?;
    ctx.print(&out);
    ctx.eprint(&err);
    if unhealthy {
        return Err(Exit::new(EXIT_ERROR, "unhealthy cluster"));
    }
    Ok(())
}

pub fn endpoint_hashkv(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let rev = p.int("rev");
    let mut list = Vec::new();
    let mut last_err = None;
    for ep in endpoints(ctx, p)? {
        let member = ctx.member(&ep);
        match ctx.call_on(member, |w, m, t| w.hash_kv(m, rev, t)) {
            Ok(reply) => list.push(EpHash {
                ep,
                header: to_header(reply.header),
                hash: reply.body.hash,
                compact_revision: reply.body.compact_revision,
            }),
            Err(e) => {
                ctx.zap_unary(&ep, true, &e);
                ctx.eprint(&format!("Failed to get the hash of endpoint {ep} ({e})\n"));
                last_err = Some(e);
            }
        }
    }
    let printed = ctx.printer.endpoint_hashkv(&list);
    ctx.show(printed)?;
    match last_err {
        Some(e) => Err(Exit::new(EXIT_ERROR, e.to_string())),
        None => Ok(()),
    }
}

pub fn defrag(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let mut failures = 0;
    for ep in endpoints(ctx, p)? {
        let member = ctx.member(&ep);
        match ctx.call_on(member, |w, m, t| w.defrag(m, t)) {
            Ok(()) => ctx.print(&format!("Finished defragmenting etcd member[{ep}]\n")),
            Err(e) => {
                failures += 1;
                ctx.eprint(&format!("Failed to defragment etcd member[{ep}] ({e})\n"));
            }
        }
    }
    if failures > 0 {
        return Err(Exit::quiet(EXIT_ERROR));
    }
    Ok(())
}

/// The Go runtime's trace for the fields printer dereferencing an alarm response's nil
/// header (exit 2).
fn alarm_fields_panic(ctx: &Ctx, disarm: bool) -> String {
    let (func, line, arg) = if disarm {
        ("alarmDisarmCommandFunc", 57, "0x110")
    } else {
        ("alarmListCommandFunc", 80, "0xe7")
    };
    // cobra hands the command its words minus the subcommand path but the first word.
    let n = ctx.nargs.saturating_sub(1);
    format!(
        "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0xb9181e]\n\ngoroutine 1 [running]:\ngo.etcd.io/etcd/etcdctl/ctlv3/command.(*fieldsPrinter).hdr(0x0?, 0x0)\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/printer_fields.go:38 +0x5e\ngo.etcd.io/etcd/etcdctl/ctlv3/command.(*fieldsPrinter).Alarm(0xc000264240?, {{0x0?, {{0x0?, {}, 0x0?}}}})\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/printer_fields.go:181 +0x45\ngo.etcd.io/etcd/etcdctl/ctlv3/command.{func}(0xc0000f5500?, {{0xc000250720?, 0x{n:x}?, 0x{n:x}?}})\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/alarm_command.go:{line} +{arg}\ngithub.com/spf13/cobra.(*Command).execute(0xc0000f5500, {{0xc0002506c0, 0x{n:x}, 0x{n:x}}})\n\tgithub.com/spf13/cobra/command.go:920 +0x847\ngithub.com/spf13/cobra.(*Command).ExecuteC(0x13b9920)\n\tgithub.com/spf13/cobra/command.go:1044 +0x3bd\ngithub.com/spf13/cobra.(*Command).Execute(...)\n\tgithub.com/spf13/cobra/command.go:968\ngo.etcd.io/etcd/etcdctl/ctlv3.Start()\n\tgo.etcd.io/etcd/etcdctl/ctlv3/ctl_nocov.go:26 +0x97\nmain.main()\n\tgo.etcd.io/etcd/etcdctl/main.go:35 +0x65\n",
        if disarm { "0xc000038d70?" } else { "0x0?" }
    )
}

fn alarm(ctx: &mut Ctx, p: &Parsed, disarm: bool) -> CmdResult {
    init_display(ctx, p)?;
    let alarms = ctx
        .call(|w, ep, t| {
            if disarm {
                w.alarm_disarm(ep, t)
            } else {
                w.alarm_list(ep, t)
            }
        })
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    if ctx.printer.format == Format::Fields {
        let trace = alarm_fields_panic(ctx, disarm);
        ctx.eprint(&trace);
        return Err(Exit::quiet(EXIT_BAD_CONNECTION));
    }
    let printed = ctx.printer.alarm(&alarms);
    ctx.show(printed)
}

pub fn alarm_list(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    alarm(ctx, p, false)
}

pub fn alarm_disarm(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    alarm(ctx, p, true)
}

fn members(ctx: &mut Ctx) -> Result<(super::printer::Header, Vec<MemberInfo>), Exit> {
    let reply = ctx
        .call(|w, ep, t| w.member_list(ep, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    Ok((
        to_header(reply.header),
        reply.body.iter().map(member_info).collect(),
    ))
}

pub fn member_list(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let (h, list) = members(ctx)?;
    let printed = ctx.printer.member_list(&h, &list);
    ctx.show(printed)
}

pub fn member_add(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let Some(name) = p.args.first().cloned() else {
        return Err(Exit::new(EXIT_BAD_ARGS, "member name not provided"));
    };
    if p.args.len() > 1 {
        let mut ev = String::from("too many arguments");
        for s in &p.args {
            if s.to_lowercase().starts_with("http") {
                ev.push_str(&format!(", did you mean --peer-urls={s}"));
            }
        }
        return Err(Exit::new(EXIT_BAD_ARGS, ev));
    }
    let peer_urls = p.str("peer-urls").unwrap_or("").to_string();
    if peer_urls.is_empty() {
        return Err(Exit::new(EXIT_BAD_ARGS, "member peer urls not provided"));
    }
    init_display(ctx, p)?;
    let learner = p.bool("learner");
    let reply = ctx
        .call(|w, ep, t| w.member_add(ep, learner, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let new = member_info(&reply.body);
    let (_, mut list) = members(ctx)?;
    if !list.iter().any(|m| m.id == new.id) {
        list.push(new.clone());
    }
    let h = to_header(reply.header);
    let printed = ctx.printer.member_add(&h, &new, &list);
    ctx.show(printed)?;
    if ctx.printer.format == Format::Simple {
        let conf: Vec<String> = list
            .iter()
            .flat_map(|m| {
                let n = if m.id == new.id {
                    name.clone()
                } else {
                    m.name.clone()
                };
                m.peer_urls
                    .iter()
                    .map(move |u| format!("{n}={u}"))
                    .collect::<Vec<_>>()
            })
            .collect();
        let quote = super::args::go_quote;
        ctx.print(&format!(
            "\nETCD_NAME={}\nETCD_INITIAL_CLUSTER={}\nETCD_INITIAL_ADVERTISE_PEER_URLS={}\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n",
            quote(&name),
            quote(&conf.join(",")),
            quote(&peer_urls)
        ));
    }
    Ok(())
}

fn member_id_arg(p: &Parsed) -> Result<u64, Exit> {
    if p.args.len() != 1 {
        return Err(Exit::new(EXIT_BAD_ARGS, "member ID is not provided"));
    }
    u64::from_str_radix(&p.args[0], 16).map_err(|_| {
        Exit::new(
            EXIT_BAD_ARGS,
            format!(
                "bad member ID arg (strconv.ParseUint: parsing {}: invalid syntax), expecting ID in Hex",
                super::args::go_quote(&p.args[0])
            ),
        )
    })
}

pub fn member_remove(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let id = member_id_arg(p)?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.member_remove(ep, id, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let (_, list) = members(ctx)?;
    let printed = ctx
        .printer
        .member_changed(&to_header(reply.header), id, "removed from", &list);
    ctx.show(printed)
}

pub fn member_promote(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let id = member_id_arg(p)?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.member_promote(ep, id, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let (_, list) = members(ctx)?;
    let printed = ctx
        .printer
        .member_changed(&to_header(reply.header), id, "promoted in", &list);
    ctx.show(printed)
}

pub fn move_leader(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "move-leader command needs 1 argument",
        ));
    }
    let target = u64::from_str_radix(&p.args[0], 16).map_err(|_| {
        let e = parse_go_uint("x").err().unwrap_or_default();
        Exit::new(
            EXIT_BAD_ARGS,
            e.replace("\"x\"", &super::args::go_quote(&p.args[0])),
        )
    })?;
    init_display(ctx, p)?;
    let mut leader = None;
    for ep in ctx.endpoints.clone() {
        let member = ctx.member(&ep);
        let status = ctx
            .call_on(member, |w, m, t| w.endpoint_status(m, t))
            .map_err(|e| {
                ctx.zap_unary(&ep, true, &e);
                Exit::new(EXIT_ERROR, e.to_string())
            })?;
        if status.body.header.member_id == status.body.leader {
            leader = member.map(|m| (m, status.body.leader, ep.clone()));
            break;
        }
    }
    let Some((member, leader_id, ep)) = leader else {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            format!("no leader endpoint given at [{}]", ctx.endpoints.join(" ")),
        ));
    };
    ctx.call_on(Some(member), |w, m, t| w.move_leader(m, target, t))
        .map_err(|e| {
            ctx.zap_unary(&ep, false, &e);
            Exit::new(EXIT_ERROR, e.to_string())
        })?;
    let h = ctx.header(member, 0);
    let printed = ctx.printer.move_leader(&h, leader_id, target);
    ctx.show(printed)
}

pub fn snapshot_save(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "snapshot save expects one argument",
        ));
    }
    let path = p.args[0].clone();
    if ctx.endpoints.len() != 1 {
        return Err(Exit::new(
            EXIT_INTERRUPTED,
            format!(
                "snapshot must be requested to one selected node, not multiple [{}]",
                ctx.endpoints.join(" ")
            ),
        ));
    }
    init_display(ctx, p)?;
    let key = fs::key(&path);
    if let Some(errno) = fs::cannot_create(ctx.files, &key) {
        return Err(Exit::new(
            EXIT_INTERRUPTED,
            format!("could not open {path}.part (open {path}.part: {errno})"),
        ));
    }
    let ep = ctx.endpoints[0].clone();
    let ts = rfc3339_millis(crate::etcd::EPOCH_UNIX_MS + ctx.world.now());
    ctx.eprint(&format!(
        "{{\"level\":\"info\",\"ts\":\"{ts}\",\"caller\":\"snapshot/v3_snapshot.go:119\",\"msg\":\"created temporary db file\",\"path\":{}}}\n",
        super::printer::json_str(&format!("{path}.part"))
    ));
    let member = ctx.member(&ep);
    let db = ctx
        .call_on(member, |w, m, t| w.snapshot_save(m, t))
        .map_err(|e| Exit::new(EXIT_INTERRUPTED, e.to_string()))?;
    ctx.eprint(&format!(
        "{{\"level\":\"info\",\"ts\":\"{ts}\",\"caller\":\"snapshot/v3_snapshot.go:152\",\"msg\":\"saved\",\"path\":{}}}\n",
        super::printer::json_str(&path)
    ));
    ctx.files.insert(key, db);
    ctx.print(&format!("Snapshot saved at {path}\n"));
    Ok(())
}

pub fn snapshot_status(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "snapshot status requires exactly one argument",
        ));
    }
    init_display(ctx, p)?;
    let status = crate::etcd::snapshot_file_status(ctx.files, &fs::key(&p.args[0]))
        .map_err(|e| Exit::new(EXIT_ERROR, e.to_string()))?;
    let printed = ctx.printer.db_status(&DbStatus::from(status));
    ctx.show(printed)
}

/// `check perf`: the load test of etcdctl 3.4 (ctlv3/command/check.go), run against the
/// simulated cluster: its network latency and each member's fsync decide the result.
pub fn check_perf(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    // (writes per second, clients) for each load; every load runs 60 s.
    let load = p.str("load").unwrap_or("s");
    let rate: u64 = match load {
        "s" => 150,
        "m" => 1_000,
        "l" => 8_000,
        "xl" => 15_000,
        other => {
            return Err(Exit::new(
                EXIT_BAD_ARGS,
                format!("unknown load option {other}"),
            ))
        }
    };
    let prefix = p
        .str("prefix")
        .unwrap_or("/etcdctl-check-perf/")
        .to_string();
    // check.go's clientConfigFromCmd: the display and the TLS files, after the load's check.
    init_display(ctx, p)?;
    let existing = ctx.call(|w, ep, t| {
        let range = crate::etcd::RangeRequest {
            range_end: crate::etcd::prefix_range_end(prefix.as_bytes()),
            limit: 1,
            ..crate::etcd::RangeRequest::key(prefix.as_bytes().to_vec())
        };
        w.kv(ep, crate::etcd::Request::Range(range), false, t)
    });
    match existing {
        Ok(reply) => {
            if let crate::etcd::Response::Range(r) = reply.body {
                if !r.kvs.is_empty() {
                    let msg = format!("prefix {prefix:?} has keys. Delete with etcdctl del --prefix {prefix} first.");
                    return Err(Exit::new(super::EXIT_INVALID_INPUT, msg));
                }
            }
        }
        Err(e) => return Err(ctx.fail(EXIT_ERROR, &e, |s| s)),
    }
    let load = ctx
        .call(|w, ep, _| w.start_perf(ep, rate, PERF_DURATION_S * 1000, prefix.as_bytes()))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    ctx.later = Some(super::Work::Perf { load, rate });
    Ok(())
}

/// How long every load of `check perf` runs.
const PERF_DURATION_S: u64 = 60;

/// The end of `check perf`, once its load ran: the prefix deleted, then the verdicts.
pub fn perf_verdict(ctx: &mut Ctx, load: crate::etcd::PerfLoad, rate: u64) -> CmdResult {
    let report = ctx
        .call_on(Some(load.member()), |w, _, _| load.finish(w))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    // The progress bar's last frame (cheggaaa/pb), then the verdicts.
    ctx.print(&format!(
        " {PERF_DURATION_S} / {PERF_DURATION_S} B{}! 100.00% 1m0s\n",
        "o".repeat(56)
    ));
    let mut ok = true;
    let rps = report.throughput();
    if rps / rate as f64 <= 0.9 {
        ctx.print(&format!(
            "FAIL: Throughput too low: {} writes/s\n",
            rps as u64
        ));
        ok = false;
    } else {
        ctx.print(&format!("PASS: Throughput is {} writes/s\n", rps as u64));
    }
    let slowest = report.slowest_s();
    if slowest > 0.5 {
        ctx.print(&format!("Slowest request took too long: {slowest:.6}s\n"));
        ok = false;
    } else {
        ctx.print(&format!("PASS: Slowest request took {slowest:.6}s\n"));
    }
    let stddev = report.stddev_s();
    if stddev > 0.1 {
        ctx.print(&format!("FAIL: Stddev too high: {stddev:.6}s\n"));
        ok = false;
    } else {
        ctx.print(&format!("PASS: Stddev is {stddev:.6}s\n"));
    }
    if ok {
        ctx.print("PASS\n");
        Ok(())
    } else {
        ctx.print("FAIL\n");
        Err(Exit::quiet(EXIT_ERROR))
    }
}
