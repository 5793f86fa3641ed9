//! `watch` (etcdctl/ctlv3/command/watch_command.go): history and live events for the
//! stream's duration, exec mode (`watch k -- cmd`) and interactive mode (`-i`).

use super::args::{self, flag, go_quote, go_quote_bytes, short, Flag, Kind, Parsed};
use super::printer::Header;
use super::{
    init_display, spec, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_ERROR, EXIT_INTERRUPTED,
    EXIT_INVALID_INPUT,
};
use crate::etcd::ClientError;
use crate::etcd::{prefix_range_end, EventType, WatchRequest, WatchResponse};

pub const FLAGS: [Flag; 4] = [
    short("interactive", 'i', Kind::Bool, "false", "Interactive mode"),
    flag(
        "prefix",
        Kind::Bool,
        "false",
        "Watch on a prefix if prefix is set",
    ),
    flag(
        "prev-kv",
        Kind::Bool,
        "false",
        "get the previous key-value pair before the event happens",
    ),
    flag("rev", Kind::Int, "0", "Revision to start watching"),
];

/// `getWatchChan`'s request from the watch arguments.
fn watch_request(p: &Parsed, watch_args: &[String]) -> Result<WatchRequest, String> {
    let Some(key) = watch_args.first() else {
        return Err("bad number of arguments".into());
    };
    if watch_args.len() > 2 {
        return Err("bad number of arguments".into());
    }
    let mut req = WatchRequest {
        key: key.as_bytes().to_vec(),
        start_revision: p.int("rev"),
        prev_kv: p.bool("prev-kv"),
        ..WatchRequest::default()
    };
    if let Some(end) = watch_args.get(1) {
        if p.bool("prefix") {
            return Err("`range_end` and `--prefix` are mutually exclusive".into());
        }
        req.range_end = end.as_bytes().to_vec();
    }
    if p.bool("prefix") {
        if req.key.is_empty() {
            req.key = vec![0];
            req.range_end = vec![0];
        } else {
            req.range_end = prefix_range_end(&req.key);
        }
    }
    Ok(req)
}

/// What the watch printed, and whether the server canceled it.
enum Watched {
    Stopped,
    Canceled,
}

/// Runs one watch for the stream's duration, printing every response as it arrives.
fn run_watch(
    ctx: &mut Ctx,
    req: WatchRequest,
    exec: &[String],
    duration_ms: u64,
) -> Result<Watched, Exit> {
    let (_, member) = ctx.client_endpoint();
    let Some(member) = member else {
        ctx.world.run_for(duration_ms);
        return Ok(Watched::Stopped);
    };
    // A printer that cannot show a response makes etcdctl exit at the first one, so do not
    // wait for more when what is already there will fail.
    let first = if ctx.printer.format == super::printer::Format::Table {
        ctx.world.watch(member, req.clone(), 0)
    } else {
        Ok(Vec::new())
    };
    let responses = match first {
        Ok(r) if !r.is_empty() => Ok(r),
        _ => ctx.world.watch(member, req, duration_ms),
    };
    let responses = match responses {
        Ok(r) => r,
        Err(ClientError::DeadlineExceeded) => return Ok(Watched::Stopped),
        Err(e) => {
            ctx.eprint(&format!("watch was canceled ({e})\n"));
            return Ok(Watched::Canceled);
        }
    };
    let mut canceled = false;
    for (_, resp) in &responses {
        let h = ctx.header(member, resp.revision);
        if resp.canceled {
            canceled = true;
            ctx.eprint(
                "watch was canceled (etcdserver: mvcc: required revision has been compacted)\n",
            );
        }
        let printed = ctx.printer.watch(&h, resp);
        ctx.show(printed)?;
        if !exec.is_empty() {
            run_exec(ctx, exec, &h, resp)?;
        }
    }
    Ok(if canceled {
        Watched::Canceled
    } else {
        Watched::Stopped
    })
}

/// Runs the exec command once per event. Only `echo` (directly or via `sh -c 'echo ...'`)
/// can run in the simulator; its `$ETCD_WATCH_*` variables are expanded.
fn run_exec(ctx: &mut Ctx, exec: &[String], h: &Header, resp: &WatchResponse) -> Result<(), Exit> {
    for e in &resp.events {
        let kind = match e.kind {
            EventType::Put => "PUT",
            EventType::Delete => "DELETE",
        };
        let env = [
            ("ETCD_WATCH_REVISION", h.revision.to_string()),
            ("ETCD_WATCH_EVENT_TYPE", go_quote(kind)),
            ("ETCD_WATCH_KEY", go_quote_bytes(&e.kv.key)),
            ("ETCD_WATCH_VALUE", go_quote_bytes(&e.kv.value)),
        ];
        let words: Option<Vec<String>> = match exec {
            [sh, c, script] if sh == "sh" && c == "-c" => {
                script.strip_prefix("echo ").and_then(shlex::split)
            }
            [echo, rest @ ..] if echo == "echo" => Some(rest.to_vec()),
            _ => None,
        };
        let Some(words) = words else {
            let quoted: Vec<String> = exec.iter().map(|a| go_quote(a)).collect();
            ctx.eprint(&format!(
                "command [{}] error (exec: {}: executable file not found in $PATH)\n",
                quoted.join(" "),
                go_quote(&exec[0])
            ));
            return Err(Exit::quiet(EXIT_ERROR));
        };
        let expanded: Vec<String> = words
            .iter()
            .map(|w| {
                let mut w = w.clone();
                for (k, v) in &env {
                    w = w
                        .replace(&format!("${{{k}}}"), v)
                        .replace(&format!("${k}"), v);
                }
                w
            })
            .collect();
        ctx.print(&(expanded.join(" ") + "\n"));
    }
    Ok(())
}

pub fn watch(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if p.bool("interactive") {
        return interactive(ctx, p);
    }
    let (watch_args, exec): (Vec<String>, Vec<String>) = match p.dash_at {
        Some(at) => (p.args[..at].to_vec(), p.args[at..].to_vec()),
        None => (p.args.clone(), Vec::new()),
    };
    if p.dash_at.is_some() && exec.is_empty() {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "bad number of arguments (found separator --, but no commands)",
        ));
    }
    if watch_args.is_empty() {
        return Err(Exit::new(EXIT_BAD_ARGS, "bad number of arguments"));
    }
    init_display(ctx, p)?;
    let req = watch_request(p, &watch_args).map_err(|e| Exit::new(EXIT_BAD_ARGS, e))?;
    match run_watch(ctx, req, &exec, ctx.stop.ms())? {
        Watched::Stopped => Err(Exit::quiet(ctx.stop.stopped_code())),
        Watched::Canceled => Err(Exit::new(
            EXIT_INTERRUPTED,
            "watch is canceled by the server",
        )),
    }
}

/// `watch -i`: one `watch ...` request per stdin line; each runs for the stream duration
/// (the lines are taken as typed a while apart).
fn interactive(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let stdin = ctx.stdin.to_string();
    let mut rest = stdin.as_str();
    loop {
        let Some(i) = rest.find('\n') else {
            return Err(Exit::new(
                EXIT_INVALID_INPUT,
                "Error reading watch request line: EOF",
            ));
        };
        let line = &rest[..i];
        rest = &rest[i + 1..];
        let words: Vec<String> = shlex::split(line).unwrap_or_default();
        if words.first().map(String::as_str) != Some("watch") {
            ctx.eprint(&format!("Invalid command {line} (only support watch)\n"));
            continue;
        }
        let local = args::Spec {
            flags: &FLAGS,
            ..*spec("watch")
        };
        let parsed =
            args::parse_local(&local, &words[1..]).map_err(|e| Exit::new(EXIT_BAD_ARGS, e.0))?;
        let (watch_args, exec) = match parsed.dash_at {
            Some(at) => (parsed.args[..at].to_vec(), parsed.args[at..].to_vec()),
            None => (parsed.args.clone(), Vec::new()),
        };
        let req = match watch_request(&parsed, &watch_args) {
            Ok(r) => r,
            Err(e) => {
                ctx.eprint(&format!("Invalid command {line} ({e})\n"));
                continue;
            }
        };
        let duration = ctx.stop.ms();
        run_watch(ctx, req, &exec, duration)?;
    }
}
