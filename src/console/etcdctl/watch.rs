//! `watch` (etcdctl/ctlv3/command/watch_command.go): history and live events for the
//! stream's duration, exec mode (`watch k -- cmd`) and interactive mode (`-i`).

use super::args::{self, flag, go_quote, go_quote_bytes, short, Flag, Kind, Parsed};
use super::printer::Header;
use super::{
    init_display, spec, CmdResult, Ctx, Exit, Stop, DEFAULT_STREAM_MS, EXIT_BAD_ARGS, EXIT_ERROR,
    EXIT_INTERRUPTED, EXIT_INVALID_INPUT, EXIT_TIMEOUT,
};
use crate::base::{MemberId, Millis};
use crate::etcd::{prefix_range_end, EventType, WatchRequest, WatchResponse, WatchStream};
use crate::etcd::{ClientError, Clock, Cluster};

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
    /// A watch on `member` (None: an address nothing answers at) for `duration_ms`, or why
    /// it could not start.
    fn open(
        world: &mut Cluster,
        member: Option<MemberId>,
        req: WatchRequest,
        duration_ms: Millis,
        exec: Vec<String>,
    ) -> Result<Streaming, (MemberId, ClientError)> {
        let end_ms = world.now() + duration_ms;
        let stream = match member {
            None => None,
            Some(member) => match world.start_watch(member, req, duration_ms) {
                Ok(stream) => Some((member, stream)),
                Err(e) => return Err((member, e)),
            },
        };
        Ok(Streaming {
            stream,
            end_ms,
            exec,
        })
    }

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
        let watched = self.print(ctx)?;
        watched_exit(ctx, watched)
    }

    fn print(self, ctx: &mut Ctx) -> Result<Watched, Exit> {
        match self.stream {
            Some((member, stream)) => {
                let responses = stream.finish(ctx.world);
                print_responses(ctx, member, Ok(responses), &self.exec)
            }
            None => Ok(Watched::Stopped),
        }
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
    if let Some(member) = member {
        if let Some(responses) = first_responses(ctx, member, &req) {
            let watched = print_responses(ctx, member, Ok(responses), &exec)?;
            return watched_exit(ctx, watched);
        }
    }
    let duration = end_ms - ctx.world.now();
    match Streaming::open(ctx.world, member, req, duration, exec) {
        Ok(streaming) => ctx.later = Some(super::Work::Watch(Box::new(streaming))),
        Err((member, e)) => {
            let watched = print_responses(ctx, member, Err(e), &[])?;
            return watched_exit(ctx, watched);
        }
    }
    Ok(())
}

/// `watch -i`: one `watch ...` request per stdin line, read as time passes (in the page's
/// slices too, as a watch's stream is).
fn interactive(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let now = ctx.world.now();
    let deadline = match ctx.stop {
        Stop::Timeout(limit) => Some(now + limit),
        Stop::Default(_) => None,
    };
    let lines = ctx.stdin.matches('\n').count() as Millis;
    let planned = now + lines * DEFAULT_STREAM_MS;
    ctx.later = Some(super::Work::WatchLines(Box::new(Interactive {
        stdin: ctx.stdin.to_string(),
        read_to: 0,
        current: None,
        read: Vec::new(),
        deadline,
        planned_end_ms: deadline.map_or(planned, |d| d.min(planned)),
        ended: None,
    })));
    Ok(())
}

/// `watch -i`'s lines. Each line's watch streams for the default stream duration (the lines
/// are taken as typed a while apart), but under a timeout the last one streams until it, and
/// the timeout stops the command wherever it is, as it stops the process.
#[derive(Clone, Debug)]
pub struct Interactive {
    stdin: String,
    /// How much of `stdin` was read.
    read_to: usize,
    /// The watch of the line read last, while it streams.
    current: Option<Streaming>,
    /// What each line read before came to, in order.
    read: Vec<Line>,
    deadline: Option<Millis>,
    planned_end_ms: Millis,
    /// How the command ends, once no line is left to read.
    ended: Option<Exit>,
}

/// One line of `watch -i`'s input, once read.
#[derive(Clone, Debug)]
enum Line {
    /// What etcdctl says on standard error of a line it does not take.
    Refused(String),
    Watched(Streaming),
    NotStarted(MemberId, ClientError),
}

impl Interactive {
    pub fn end_ms(&self) -> Millis {
        self.planned_end_ms
    }

    /// Lets time pass up to `slice_end` at most, reading lines as their turn comes; whether
    /// the command is over. `endpoint` is the member a line's watch goes to now.
    pub fn run(
        &mut self,
        clock: &mut dyn Clock,
        slice_end: Millis,
        endpoint: &dyn Fn(&Cluster) -> Option<MemberId>,
    ) -> bool {
        let slice_end = self.deadline.map_or(slice_end, |d| d.min(slice_end));
        loop {
            if let Some(watch) = &mut self.current {
                let over = watch.run(clock, slice_end);
                let timed_out = self.deadline.is_some_and(|d| clock.world().now() >= d);
                if !over && !timed_out {
                    return false;
                }
                self.read.extend(self.current.take().map(Line::Watched));
            }
            if self.deadline.is_some_and(|d| clock.world().now() >= d) && self.ended.is_none() {
                self.ended = Some(Exit::quiet(EXIT_TIMEOUT));
            }
            if self.ended.is_some() {
                return true;
            }
            self.read_line(clock.world(), endpoint);
        }
    }

    fn read_line(&mut self, world: &mut Cluster, endpoint: &dyn Fn(&Cluster) -> Option<MemberId>) {
        let Some(n) = self.stdin[self.read_to..].find('\n') else {
            self.ended = Some(eof());
            return;
        };
        let line = &self.stdin[self.read_to..self.read_to + n];
        self.read_to += n + 1;
        let (req, exec) = match parse_line(line) {
            Ok(parsed) => parsed,
            Err(Ok(refused)) => {
                self.read.push(Line::Refused(refused));
                return;
            }
            Err(Err(exit)) => {
                self.ended = Some(exit);
                return;
            }
        };
        let last = !self.stdin[self.read_to..].contains('\n');
        let duration = match self.deadline {
            Some(d) if last => d.saturating_sub(world.now()),
            _ => DEFAULT_STREAM_MS,
        };
        match Streaming::open(world, endpoint(world), req, duration, exec) {
            Ok(watch) => self.current = Some(watch),
            Err((member, e)) => self.read.push(Line::NotStarted(member, e)),
        }
    }

    /// Prints what every line came to, in order, and ends as the lines ended.
    pub fn finish(self, ctx: &mut Ctx) -> CmdResult {
        for line in self.read.into_iter().chain(self.current.map(Line::Watched)) {
            match line {
                Line::Refused(text) => ctx.eprint(&text),
                Line::Watched(watch) => _ = watch.print(ctx)?,
                Line::NotStarted(member, e) => _ = print_responses(ctx, member, Err(e), &[])?,
            }
        }
        Err(self.ended.unwrap_or_else(eof))
    }
}

/// A line of `watch -i`'s input as a watch request and its exec command, or what etcdctl
/// says of it (`Ok`: on standard error, and it reads on; `Err`: it exits).
fn parse_line(line: &str) -> Result<(WatchRequest, Vec<String>), Result<String, Exit>> {
    let words: Vec<String> = shlex::split(line).unwrap_or_default();
    if words.first().map(String::as_str) != Some("watch") {
        return Err(Ok(format!("Invalid command {line} (only support watch)\n")));
    }
    let local = args::Spec {
        flags: &FLAGS,
        ..*spec("watch")
    };
    let parsed =
        args::parse_local(&local, &words[1..]).map_err(|e| Err(Exit::new(EXIT_BAD_ARGS, e.0)))?;
    let (watch_args, exec) = match parsed.dash_at {
        Some(at) => (parsed.args[..at].to_vec(), parsed.args[at..].to_vec()),
        None => (parsed.args.clone(), Vec::new()),
    };
    let req = watch_request(&parsed, &watch_args)
        .map_err(|e| Ok(format!("Invalid command {line} ({e})\n")))?;
    Ok((req, exec))
}

/// How `watch -i` ends when its input does.
fn eof() -> Exit {
    Exit::new(EXIT_INVALID_INPUT, "Error reading watch request line: EOF")
}
