//! `lease grant|revoke|timetolive|list|keep-alive` (etcdctl/ctlv3/command/lease_command.go).

use super::args::{parse_go_hex, parse_go_int, Parsed};
use super::printer::{Format, TimeToLive};
use super::{
    init_display, to_header, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_BAD_CONNECTION, EXIT_ERROR,
};
use crate::base::{MemberId, Millis};
use crate::etcd::{Clock, Reply, Response, REQUEST_TIMEOUT_MS};

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
    if let (Some(member), Format::Table) = (member, ctx.printer.format) {
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
    let now = ctx.world.now();
    ctx.later = Some(super::Work::KeepAlive(Box::new(Renewing {
        member,
        id,
        end_ms: now + ctx.stop.ms(),
        next_ms: now,
        renewals: Vec::new(),
        ended: false,
    })));
    Ok(())
}

/// `lease keep-alive`'s stream once the command returned: a renewal every third of the TTL
/// as the session lets time pass (Kubernetes acting meanwhile), in the page's slices too.
#[derive(Clone, Debug)]
pub struct Renewing {
    /// None: nothing answers, the stream only waits to be stopped.
    member: Option<MemberId>,
    id: i64,
    end_ms: Millis,
    /// When the next renewal is due.
    next_ms: Millis,
    renewals: Vec<Reply<i64>>,
    /// The lease is gone (or its member): the channel closed.
    ended: bool,
}

impl Renewing {
    pub fn end_ms(&self) -> Millis {
        self.end_ms
    }

    /// Renews as due, letting time pass up to `slice_end` at most; whether the stream is over.
    pub fn run(&mut self, clock: &mut dyn Clock, slice_end: Millis) -> bool {
        loop {
            let now = clock.world().now();
            if self.ended || now >= self.end_ms {
                return true;
            }
            if let (Some(member), true) = (self.member, now >= self.next_ms) {
                match clock
                    .world()
                    .lease_keep_alive_once(member, self.id, REQUEST_TIMEOUT_MS)
                {
                    Ok(reply) => {
                        let wait = (reply.body.max(1) as u64 * 1000 / 3).max(500);
                        self.next_ms = clock.world().now() + wait;
                        self.renewals.push(reply);
                    }
                    Err(_) => self.ended = true,
                }
                continue;
            }
            if now >= slice_end {
                return false;
            }
            let due = if self.member.is_some() {
                self.next_ms
            } else {
                self.end_ms
            };
            clock.advance_until(due.min(self.end_ms).min(slice_end));
        }
    }

    /// Prints every renewal, and ends as `lease keep-alive` ends.
    pub fn finish(self, ctx: &mut Ctx) -> CmdResult {
        for reply in &self.renewals {
            let printed = ctx
                .printer
                .keep_alive(&to_header(reply.header), self.id, reply.body);
            ctx.show(printed)?;
        }
        if !self.ended {
            return Err(Exit::quiet(ctx.stop.stopped_code()));
        }
        // The lease is gone: the keep-alive channel closes.
        if ctx.printer.format == Format::Simple {
            ctx.print(&format!("lease {:016x} expired or revoked.\n", self.id));
        }
        Ok(())
    }
}
