//! `watch` (etcdctl/ctlv3/command/watch_command.go): history and live events for the
//! stream's duration, exec mode (`watch k -- cmd`) and interactive mode (`-i`).

use super::args::{self, flag, go_quote, go_quote_bytes, short, Flag, Kind, Parsed};
use super::printer::Header;
use super::{
    init_display, spec, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_ERROR, EXIT_INTERRUPTED,
    EXIT_INVALID_INPUT,
};
use crate::base::{MemberId, Millis};
use crate::etcd::{prefix_range_end, EventType, WatchRequest, WatchResponse, WatchStream};
use crate::etcd::{ClientError, Clock};

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

/// Runs one watch for the stream's duration, printing every response as it arrives (`-i`'s
/// watches, one after another in the command).
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
    let responses = match first_responses(ctx, member, &req) {
        Some(responses) => Ok(responses),
        None => ctx.world.watch(member, req, duration_ms),
    };
    print_responses(ctx, member, responses, exec)
}

/// A printer that cannot show a response makes etcdctl exit at the first one, so it does not
/// wait for more when what is already there will fail: those responses, or None to stream.
fn first_responses(
    ctx: &mut Ctx,
    member: MemberId,
    req: &WatchRequest,
) -> Option<Vec<WatchResponse>> {
    if ctx.printer.format != super::printer::Format::Table {
        return None;
    }
    match ctx.world.watch(member, req.clone(), 0) {
        Ok(r) if !r.is_empty() => Some(r),
        _ => None,
    }
}

/// Prints what a watch got, as etcdctl prints each response as it arrives.
fn print_responses(
    ctx: &mut Ctx,
    member: MemberId,
    responses: Result<Vec<WatchResponse>, ClientError>,
    exec: &[String],
) -> Result<Watched, Exit> {
    let responses = match responses {
        Ok(r) => r,
        Err(ClientError::DeadlineExceeded) => return Ok(Watched::Stopped),
        Err(e) => {
            ctx.eprint(&format!("watch was canceled ({e})\n"));
            return Ok(Watched::Canceled);
        }
    };
    let mut canceled = false;
    for resp in &responses {
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

/// A watch's stream once the command returned: it goes on as the session lets time pass
/// (Kubernetes acting meanwhile, its writes streamed), in the page's slices too.
#[derive(Clone, Debug)]
pub struct Streaming {
    /// The member and its watch; None: nothing answers, the stream only waits to be stopped.
    stream: Option<(MemberId, WatchStream)>,
    end_ms: Millis,
    exec: Vec<String>,
}

impl Streaming {
    pub fn end_ms(&self) -> Millis {
        self.end_ms
    }

    /// Lets time pass up to `slice_end` at most; whether the stream is over.
    pub fn run(&mut self, clock: &mut dyn Clock, slice_end: Millis) -> bool {
        if let Some((_, stream)) = &mut self.stream {
            if stream.collect(clock.world()) {
                return true;
            }
        }
        clock.advance_until(self.end_ms.min(slice_end));
        match &mut self.stream {
            Some((_, stream)) => stream.collect(clock.world()),
            None => clock.world().now() >= self.end_ms,
        }
    }

    /// Prints every response, and ends as `watch` ends.
    pub fn finish(self, ctx: &mut Ctx) -> CmdResult {
        let watched = match self.stream {
            Some((member, stream)) => {
                let responses = stream.finish(ctx.world);
                print_responses(ctx, member, Ok(responses), &self.exec)?
            }
            None => Watched::Stopped,
        };
        watched_exit(ctx, watched)
    }
}

fn watched_exit(ctx: &Ctx, watched: Watched) -> CmdResult {
    match watched {
        Watched::Stopped => Err(Exit::quiet(ctx.stop.stopped_code())),
        Watched::Canceled => Err(Exit::new(
            EXIT_INTERRUPTED,
            "watch is canceled by the server",
        )),
    }
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
    let end_ms = ctx.world.now() + ctx.stop.ms();
    let (_, member) = ctx.client_endpoint();
    let stream = match member {
        None => None,
        Some(member) => {
            if let Some(responses) = first_responses(ctx, member, &req) {
                let watched = print_responses(ctx, member, Ok(responses), &exec)?;
                return watched_exit(ctx, watched);
            }
            let duration = end_ms - ctx.world.now();
            match ctx.world.start_watch(member, req, duration) {
                Ok(stream) => Some((member, stream)),
                Err(e) => {
                    let watched = print_responses(ctx, member, Err(e), &exec)?;
                    return watched_exit(ctx, watched);
                }
            }
        }
    };
    ctx.later = Some(super::Work::Watch(Box::new(Streaming {
        stream,
        end_ms,
        exec,
    })));
    Ok(())
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
