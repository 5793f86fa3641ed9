//! `lease grant|revoke|timetolive|list|keep-alive` (etcdctl/ctlv3/command/lease_command.go).

use super::args::{parse_go_hex, parse_go_int, Parsed};
use super::printer::{Format, TimeToLive};
use super::{
    init_display, to_header, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_BAD_CONNECTION, EXIT_ERROR,
};
use crate::etcd::Response;

/// `leaseFromArgs`: a lease ID in hex.
fn lease_id(arg: &str) -> Result<i64, Exit> {
    parse_go_hex(arg).map_err(|e| {
        Exit::new(
            EXIT_BAD_ARGS,
            format!("bad lease ID arg ({e}), expecting ID in Hex"),
        )
    })
}

pub fn grant(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "lease grant command needs TTL argument",
        ));
    }
    let ttl =
        parse_go_int(&p.args[0]).map_err(|e| Exit::new(EXIT_BAD_ARGS, format!("bad TTL ({e})")))?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.lease_grant(ep, ttl, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| format!("failed to grant lease ({s})")))?;
    let Response::LeaseGrant(g) = &reply.body else {
        return Ok(());
    };
    let printed = ctx.printer.grant(&to_header(reply.header), g.id, g.ttl_s);
    ctx.show(printed)
}

pub fn revoke(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "lease revoke command needs 1 argument",
        ));
    }
    let id = lease_id(&p.args[0])?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.lease_revoke(ep, id, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| format!("failed to revoke lease ({s})")))?;
    let printed = ctx.printer.revoke(&to_header(reply.header), id);
    ctx.show(printed)
}

pub fn time_to_live(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "lease timetolive command needs lease ID as argument",
        ));
    }
    let id = lease_id(&p.args[0])?;
    let keys = p.bool("keys");
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.lease_time_to_live(ep, id, keys, t))
        .map_err(|e| Exit::new(EXIT_BAD_CONNECTION, e.to_string()))?;
    let t = TimeToLive {
        id,
        ttl: reply.body.ttl_s,
        granted_ttl: reply.body.granted_ttl_s,
        keys: reply.body.keys.clone(),
    };
    let printed = ctx.printer.time_to_live(&to_header(reply.header), &t, keys);
    ctx.show(printed)
}

pub fn list(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.lease_list(ep, t))
        .map_err(|e| Exit::new(EXIT_BAD_CONNECTION, e.to_string()))?;
    let printed = ctx.printer.leases(&to_header(reply.header), &reply.body);
    ctx.show(printed)
}

pub fn keep_alive(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.args.len() != 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "lease keep-alive command needs lease ID as argument",
        ));
    }
    let id = lease_id(&p.args[0])?;
    init_display(ctx, p)?;
    if p.bool("once") {
        let reply = ctx
            .call(|w, ep, t| w.lease_keep_alive_once(ep, id, t))
            .map_err(|e| Exit::new(EXIT_BAD_CONNECTION, e.to_string()))?;
        let printed = ctx
            .printer
            .keep_alive(&to_header(reply.header), id, reply.body);
        return ctx.show(printed);
    }
    let (_, member) = ctx.client_endpoint();
    let duration = ctx.stop.ms();
    let Some(member) = member else {
        // Nothing answers: the stream just waits until it is stopped.
        ctx.world.run_for(duration);
        return Err(Exit::quiet(ctx.stop.stopped_code()));
    };
    if ctx.printer.format == Format::Table {
        // The first renewal already cannot be printed: etcdctl exits there, at once. A lease
        // that is gone closes the stream before anything is printed.
        let timeout = ctx.command_timeout_ms;
        return match ctx.world.lease_keep_alive_once(member, id, timeout) {
            Ok(reply) => {
                let printed = ctx
                    .printer
                    .keep_alive(&to_header(reply.header), id, reply.body);
                ctx.show(printed)
            }
            Err(_) => Ok(()),
        };
    }
    let (renewals, ended) = ctx.world.lease_keep_alive_stream(member, id, duration);
    for (_, reply) in &renewals {
        let printed = ctx
            .printer
            .keep_alive(&to_header(reply.header), id, reply.body);
        ctx.show(printed)?;
    }
    if ended.is_none() {
        return Err(Exit::quiet(ctx.stop.stopped_code()));
    }
    // The lease is gone: the keep-alive channel closes.
    if ctx.printer.format == Format::Simple {
        ctx.print(&format!("lease {id:016x} expired or revoked.\n"));
    }
    Ok(())
}
