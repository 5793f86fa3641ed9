//! `etcdctl` (3.4) and `etcdutl` (3.5: `snapshot restore`/`status`) as the real tools behave:
//! the same flags, the same output in the four formats, the same errors and exit codes
//! (etcd-io/etcd v3.4 `etcdctl/ctlv3/command`). Requests go through the simulated client API
//! (`crate::etcd::client`), which advances virtual time as a real client waits.
//!
//! Endpoints (`endpoint.rs`): without `--endpoints`, the whole cluster; with it, member names
//! (`m1`, or `leader` for the current leader) or their URLs; any other address (`127.0.0.1:1`)
//! is something nothing listens on, so calls to it time out. TLS (`tls.rs`): the
//! `--cacert/--cert/--key` files are read as 3.4 reads them and decide the handshake with a
//! member that serves TLS (kubeadm's, `crate::etcd::pki`). A call that goes unanswered for a
//! reason the error cannot show gets the page's hint (`Output::aside`).

pub(super) mod args;
pub mod endpoint;
mod env;
mod etcdutl;
mod kv;
mod lease;
mod maintenance;
mod printer;
mod tls;
mod tree;
mod watch;

use crate::base::time::rfc3339_millis;
use crate::base::{MemberId, Millis};
use crate::console::shell::env::Env;
use crate::console::{Aside, Output, Session};
use crate::etcd::{ClientError, Clock, Cluster, EPOCH_UNIX_MS};
use args::{flag, short, FlagError, Kind, Parsed, Spec};
use printer::{Format, Header, Printer, Unsupported};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// etcdctl's exit codes (`etcdctl/ctlv3/command/error.go`).
pub const EXIT_ERROR: i32 = 1;
pub const EXIT_BAD_CONNECTION: i32 = 2;
pub const EXIT_INVALID_INPUT: i32 = 3;
pub const EXIT_BAD_FEATURE: i32 = 4;
pub const EXIT_INTERRUPTED: i32 = 5;
pub const EXIT_BAD_ARGS: i32 = 128;
/// What coreutils `timeout` exits with when it stopped the command.
pub const EXIT_TIMEOUT: i32 = 124;

/// How long a streaming command (`watch`, `lease keep-alive`) runs when nothing stops it.
pub const DEFAULT_STREAM_MS: Millis = 2_000;

/// `etcdctl ARGS` with `stdin`: streams stop after [`DEFAULT_STREAM_MS`] and exit 0.
pub fn etcdctl(session: &mut Session, args: &[String], stdin: Option<&str>, env: &Env) -> Output {
    on_session(
        session,
        Invocation { args, stdin, env },
        Stop::Default(DEFAULT_STREAM_MS),
    )
}

/// `timeout N etcdctl ARGS`: the command is stopped after `limit_ms` (exit 124) if it is
/// still running then, as coreutils `timeout` does.
pub fn etcdctl_timeout(
    session: &mut Session,
    args: &[String],
    stdin: Option<&str>,
    env: &Env,
    limit_ms: Millis,
) -> Output {
    on_session(
        session,
        Invocation { args, stdin, env },
        Stop::Timeout(limit_ms),
    )
}

/// Runs etcdctl on the session's world and files; work it leaves running goes on once the
/// command returns ([`crate::console::Later`]), so that the page can run it in slices.
fn on_session(session: &mut Session, run: Invocation, stop: Stop) -> Output {
    let mut files = std::mem::take(&mut session.files);
    let (out, later) = start_etcdctl(&mut session.world, &mut files, run, stop);
    session.files = files;
    if let Some(work) = later {
        session.continue_later(crate::console::later::Tool::Etcdctl(Box::new(work)));
    }
    out
}

/// `etcdutl ARGS` (`snapshot restore`, `snapshot status`).
pub fn etcdutl(session: &mut Session, args: &[String], _stdin: Option<&str>) -> Output {
    etcdutl::run(&mut session.files, args)
}

/// How a streaming command ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// After this long, quietly (exit 0).
    Default(Millis),
    /// Killed by `timeout` after this long (exit 124).
    Timeout(Millis),
}

impl Stop {
    fn ms(self) -> Millis {
        match self {
            Stop::Default(ms) | Stop::Timeout(ms) => ms,
        }
    }

    fn stopped_code(self) -> i32 {
        match self {
            Stop::Default(_) => 0,
            Stop::Timeout(_) => EXIT_TIMEOUT,
        }
    }
}

/// What etcdctl is started with: its words, standard input and environment.
#[derive(Clone, Copy)]
pub struct Invocation<'a> {
    pub args: &'a [String],
    pub stdin: Option<&'a str>,
    pub env: &'a Env,
}

/// The core of `etcdctl`, on a world and a virtual filesystem, run to its end.
pub fn run_etcdctl(
    world: &mut Cluster,
    files: &mut BTreeMap<String, Vec<u8>>,
    run: Invocation,
    stop: Stop,
) -> Output {
    match start_etcdctl(world, files, run, stop) {
        (out, None) => out,
        (_, Some(mut work)) => {
            while !work.run(world, Millis::MAX) {}
            work.finish(world, files)
        }
    }
}

/// Runs `etcdctl` until it returns: what it printed, or the work it left running (then
/// [`Continued::finish`] prints everything).
pub fn start_etcdctl(
    world: &mut Cluster,
    files: &mut BTreeMap<String, Vec<u8>>,
    run: Invocation,
    stop: Stop,
) -> (Output, Option<Continued>) {
    if let Some(refusal) = env::api_refusal(run.env) {
        let out = Output {
            stderr: refusal + "\n",
            code: EXIT_ERROR,
            ..Output::default()
        };
        return (out, None);
    }
    let Invocation { args, stdin, env } = run;
    let client = Client {
        printer: Printer::new(Format::Simple, false),
        endpoints: vec![endpoint::default_endpoint(world)],
        command_timeout_ms: 5_000,
        nargs: args.len(),
        stop,
        tls: tls::ClientTls::default(),
    };
    let mut ctx = Ctx::of(
        world,
        files,
        client,
        env,
        stdin.unwrap_or(""),
        Output::default(),
    );
    let result = dispatch(&mut ctx, args);
    match (result, ctx.later.take()) {
        (Ok(()), Some(work)) => {
            let continued = Continued {
                work,
                client: ctx.client(),
                env: env.clone(),
                out: std::mem::take(&mut ctx.out),
            };
            (Output::default(), Some(continued))
        }
        (result, _) => (conclude(ctx, result), None),
    }
}

/// What the command printed, with its error and exit code, and the page's hint.
fn conclude(mut ctx: Ctx, result: CmdResult) -> Output {
    if let Err(exit) = result {
        if !exit.message.is_empty() {
            let _ = writeln!(ctx.out.stderr, "Error: {}", exit.message);
        }
        ctx.out.code = exit.code;
    }
    if let (Some(member), true) = (ctx.unanswered, ctx.out.code != 0) {
        ctx.out.aside =
            endpoint::diagnose(ctx.world, &ctx.tls, &ctx.endpoints, member).map(Aside::Hint);
    }
    ctx.out
}

/// Work a command leaves running when it returns.
#[derive(Clone, Debug)]
pub enum Work {
    /// `check perf`'s minute of load, at `rate` puts a second.
    Perf {
        load: crate::etcd::PerfLoad,
        rate: u64,
    },
    /// `watch`'s stream, until it is stopped.
    Watch(Box<watch::Streaming>),
    /// `watch -i`'s lines, one watch after another.
    WatchLines(Box<watch::Interactive>),
    /// `lease keep-alive`'s renewals, until it is stopped.
    KeepAlive(Box<lease::Renewing>),
}

/// The client a command made, kept while its work goes on.
#[derive(Clone, Debug)]
struct Client {
    printer: Printer,
    endpoints: Vec<String>,
    command_timeout_ms: Millis,
    nargs: usize,
    stop: Stop,
    tls: tls::ClientTls,
}

/// A command whose work goes on after it returned (`check perf`, `watch`, `lease keep-alive`): the session lets it run in
/// slices ([`Continued::run`]), then [`Continued::finish`] prints what the command printed,
/// all of it, as it would have run at once.
#[derive(Clone, Debug)]
pub struct Continued {
    work: Work,
    client: Client,
    env: Env,
    /// What it printed before its work began.
    out: Output,
}

impl Continued {
    /// When its work is planned to end (it may take a moment more).
    pub fn planned_end_ms(&self) -> Millis {
        match &self.work {
            Work::Perf { load, .. } => load.planned_end_ms(),
            Work::Watch(w) => w.end_ms(),
            Work::WatchLines(w) => w.end_ms(),
            Work::KeepAlive(k) => k.end_ms(),
        }
    }

    /// Runs the work up to about `slice_end` (see [`crate::etcd::PerfLoad::run`]); whether
    /// it is over.
    pub fn run(&mut self, clock: &mut dyn Clock, slice_end: Millis) -> bool {
        match &mut self.work {
            Work::Perf { load, .. } => load.run(clock, slice_end),
            Work::Watch(w) => w.run(clock, slice_end),
            Work::WatchLines(w) => {
                let pick = |world: &Cluster| {
                    pick_endpoint(world, &self.client.endpoints, &self.client.tls).1
                };
                w.run(clock, slice_end, &pick)
            }
            Work::KeepAlive(k) => k.run(clock, slice_end),
        }
    }

    /// Everything the command printed, its exit code and the page's hint.
    pub fn finish(self, world: &mut Cluster, files: &mut BTreeMap<String, Vec<u8>>) -> Output {
        let Continued {
            work,
            client,
            env,
            out,
        } = self;
        let mut ctx = Ctx::of(world, files, client, &env, "", out);
        let result = match work {
            Work::Perf { load, rate } => maintenance::perf_verdict(&mut ctx, load, rate),
            Work::Watch(w) => w.finish(&mut ctx),
            Work::WatchLines(w) => w.finish(&mut ctx),
            Work::KeepAlive(k) => k.finish(&mut ctx),
        };
        conclude(ctx, result)
    }
}

/// Why a command stopped early: `Error: message` (unless empty) and the exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exit {
    pub code: i32,
    pub message: String,
}

impl Exit {
    pub fn new(code: i32, message: impl Into<String>) -> Exit {
        Exit {
            code,
            message: message.into(),
        }
    }

    /// Exit with this code, having printed everything already.
    pub fn quiet(code: i32) -> Exit {
        Exit {
            code,
            message: String::new(),
        }
    }
}

impl From<Unsupported> for Exit {
    fn from(u: Unsupported) -> Exit {
        Exit::new(EXIT_BAD_FEATURE, u.0)
    }
}

pub type CmdResult = Result<(), Exit>;

/// Everything a command needs while it runs.
pub struct Ctx<'a> {
    pub world: &'a mut Cluster,
    pub files: &'a mut BTreeMap<String, Vec<u8>>,
    pub out: Output,
    pub printer: Printer,
    pub endpoints: Vec<String>,
    pub command_timeout_ms: Millis,
    /// How many words the command line had (Go panic traces print it).
    pub nargs: usize,
    pub stop: Stop,
    pub stdin: &'a str,
    /// The environment (`ETCDCTL_*` stand for global flags).
    env: &'a Env,
    /// The member (None: an address nothing answers at) of the last call that got no answer
    /// (a deadline, no leader): what the hint looks into.
    unanswered: Option<Option<MemberId>>,
    /// The TLS the client dials with, once the command made its client.
    tls: tls::ClientTls,
    /// Work the command leaves running when it returns.
    pub later: Option<Work>,
}

/// The member at `ep` (None: an address nothing answers at).
fn endpoint_member(world: &Cluster, ep: &str, tls: &tls::ClientTls) -> Option<MemberId> {
    match endpoint::resolve(world, ep, tls) {
        endpoint::Target::Member(m) => Some(m),
        endpoint::Target::Refused(..) | endpoint::Target::Nowhere => None,
    }
}

/// See [`Ctx::client_endpoint`].
fn pick_endpoint(
    world: &Cluster,
    endpoints: &[String],
    tls: &tls::ClientTls,
) -> (String, Option<MemberId>) {
    for ep in endpoints {
        if let Some(m) = endpoint_member(world, ep, tls) {
            if world.accepts_connections(m) {
                return (ep.clone(), Some(m));
            }
        }
    }
    let ep = endpoints.first().cloned().unwrap_or_default();
    let m = endpoint_member(world, &ep, tls);
    (ep, m)
}

impl<'a> Ctx<'a> {
    /// A command's context on `client`, which it made (or made before, for its work).
    fn of(
        world: &'a mut Cluster,
        files: &'a mut BTreeMap<String, Vec<u8>>,
        client: Client,
        env: &'a Env,
        stdin: &'a str,
        out: Output,
    ) -> Ctx<'a> {
        Ctx {
            world,
            files,
            out,
            printer: client.printer,
            endpoints: client.endpoints,
            command_timeout_ms: client.command_timeout_ms,
            nargs: client.nargs,
            stop: client.stop,
            stdin,
            env,
            unanswered: None,
            tls: client.tls,
            later: None,
        }
    }

    /// The client the command made, kept for its work.
    fn client(&mut self) -> Client {
        Client {
            printer: self.printer,
            endpoints: std::mem::take(&mut self.endpoints),
            command_timeout_ms: self.command_timeout_ms,
            nargs: self.nargs,
            stop: self.stop,
            tls: std::mem::take(&mut self.tls),
        }
    }
}

impl Ctx<'_> {
    pub fn print(&mut self, text: &str) {
        self.out.stdout.push_str(text);
    }

    pub fn eprint(&mut self, text: &str) {
        self.out.stderr.push_str(text);
    }

    /// The member an endpoint reaches, if any (anything else listens nowhere).
    pub fn member(&self, ep: &str) -> Option<MemberId> {
        endpoint_member(self.world, ep, &self.tls)
    }

    /// The endpoint a unary call goes to: the first one whose member accepts connections, as
    /// clientv3's balancer picks only READY SubConns.
    pub fn client_endpoint(&self) -> (String, Option<MemberId>) {
        pick_endpoint(self.world, &self.endpoints, &self.tls)
    }

    /// Runs `call` against the client endpoint; a dead address waits out the timeout.
    pub fn call<T>(
        &mut self,
        call: impl FnOnce(&mut Cluster, MemberId, Millis) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let (_, member) = self.client_endpoint();
        self.call_on(member, call)
    }

    pub fn call_on<T>(
        &mut self,
        member: Option<MemberId>,
        call: impl FnOnce(&mut Cluster, MemberId, Millis) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let timeout = self.command_timeout_ms;
        let result = match member {
            Some(m) => call(self.world, m, timeout),
            None => {
                self.world.run_for(timeout);
                Err(ClientError::DeadlineExceeded)
            }
        };
        if let Err(ClientError::DeadlineExceeded | ClientError::NoLeader) = &result {
            self.unanswered = Some(member);
        }
        result
    }

    pub fn header(&self, ep: MemberId, revision: i64) -> Header {
        to_header(self.world.header(ep, revision))
    }

    /// clientv3's retry interceptor logs every failed unary call (compare.py ignores it).
    pub fn zap_unary(&mut self, ep: &str, target_passthrough: bool, e: &ClientError) {
        let desc = match (e, endpoint::resolve(self.world, ep, &self.tls)) {
            (ClientError::DeadlineExceeded, endpoint::Target::Refused(_, r))
                if target_passthrough =>
            {
                format!("latest balancer error: {}", r.passthrough_desc())
            }
            (
                ClientError::DeadlineExceeded,
                endpoint::Target::Refused(..) | endpoint::Target::Nowhere,
            ) => "latest balancer error: all SubConns are in TransientFailure".to_string(),
            (other, _) => other.desc(),
        };
        // clientv3's balancer names an endpoint by its host only (recorded: `https://h:p`
        // is `endpoint://client-…/h:p`); a passthrough dial keeps it whole.
        let target = if target_passthrough {
            format!("passthrough:///{ep}")
        } else {
            let host = ep.split_once("://").map_or(ep, |(_, h)| h);
            format!("endpoint://client-{CLIENT_UUID}/{host}")
        };
        let line = format!(
            "{{\"level\":\"warn\",\"ts\":\"{}\",\"caller\":\"clientv3/retry_interceptor.go:62\",\"msg\":\"retrying of unary invoker failed\",\"target\":{},\"attempt\":0,\"error\":{}}}\n",
            rfc3339_millis(EPOCH_UNIX_MS + self.world.now()),
            printer::json_str(&target),
            printer::json_str(&format!("rpc error: code = {} desc = {desc}", e.grpc_code()))
        );
        self.eprint(&line);
    }

    /// A failed unary call: the zap line, then `Error: <err>` with `code`.
    pub fn fail(
        &mut self,
        code: i32,
        e: &ClientError,
        wrap: impl FnOnce(String) -> String,
    ) -> Exit {
        let (ep, _) = self.client_endpoint();
        self.zap_unary(&ep, false, e);
        Exit::new(code, wrap(e.to_string()))
    }

    /// The printed output of a printer, or the bad-feature exit it asks for.
    pub fn show(&mut self, printed: Result<String, Unsupported>) -> CmdResult {
        let text = printed?;
        self.print(&text);
        Ok(())
    }
}

/// A fixed client id for the zap lines (a real client draws a UUID).
const CLIENT_UUID: &str = "8e2c6a1f-0000-4000-8000-000000000001";

pub fn to_header(h: crate::etcd::Header) -> Header {
    Header {
        cluster_id: h.cluster_id,
        member_id: h.member_id,
        revision: h.revision,
        raft_term: h.raft_term,
    }
}

// ------------------------------------------------------------------ commands

type Handler = fn(&mut Ctx, &Parsed) -> CmdResult;

struct Command {
    spec: Spec,
    run: Handler,
}

const CLUSTER_FLAG: args::Flag = flag(
    "cluster",
    Kind::Bool,
    "false",
    "use all endpoints from the cluster member list",
);

const COMMANDS: &[Command] = &[
    Command {
        spec: Spec {
            path: "get",
            use_line: "get [options] <key> [range_end]",
            short: "Gets the key or a range of keys",
            flags: &[
                flag(
                    "consistency",
                    Kind::Str,
                    "l",
                    "Linearizable(l) or Serializable(s)",
                ),
                flag(
                    "from-key",
                    Kind::Bool,
                    "false",
                    "Get keys that are greater than or equal to the given key using byte compare",
                ),
                flag("keys-only", Kind::Bool, "false", "Get only the keys"),
                flag("limit", Kind::Int, "0", "Maximum number of results"),
                flag(
                    "order",
                    Kind::Str,
                    "",
                    "Order of results; ASCEND or DESCEND (ASCEND by default)",
                ),
                flag(
                    "prefix",
                    Kind::Bool,
                    "false",
                    "Get keys with matching prefix",
                ),
                flag(
                    "print-value-only",
                    Kind::Bool,
                    "false",
                    "Only write values when using the \"simple\" output format",
                ),
                flag("rev", Kind::Int, "0", "Specify the kv revision"),
                flag(
                    "sort-by",
                    Kind::Str,
                    "",
                    "Sort target; CREATE, KEY, MODIFY, VALUE, or VERSION",
                ),
            ],
        },
        run: kv::get,
    },
    Command {
        spec: Spec {
            path: "put",
            use_line: "put [options] <key> <value> (<value> can also be given from stdin)",
            short: "Puts the given key into the store",
            flags: &PUT_FLAGS,
        },
        run: kv::put,
    },
    Command {
        spec: Spec {
            path: "del",
            use_line: "del [options] <key> [range_end]",
            short: "Removes the specified key or range of keys [key, range_end)",
            flags: &DEL_FLAGS,
        },
        run: kv::del,
    },
    Command {
        spec: Spec {
            path: "txn",
            use_line: "txn [options]",
            short: "Txn processes all the requests in one transaction",
            flags: &[short(
                "interactive",
                'i',
                Kind::Bool,
                "false",
                "Input transaction in interactive mode",
            )],
        },
        run: kv::txn,
    },
    Command {
        spec: Spec {
            path: "compaction",
            use_line: "compaction [options] <revision>",
            short: "Compacts the event history in etcd",
            flags: &[flag(
                "physical",
                Kind::Bool,
                "false",
                "'true' to wait for compaction to physically remove all old revisions",
            )],
        },
        run: maintenance::compaction,
    },
    Command {
        spec: Spec {
            path: "watch",
            use_line:
                "watch [options] [key or prefix] [range_end] [--] [exec-command arg1 arg2 ...]",
            short: "Watches events stream on keys or prefixes",
            flags: &watch::FLAGS,
        },
        run: watch::watch,
    },
    Command {
        spec: Spec {
            path: "lease grant",
            use_line: "lease grant <ttl>",
            short: "Creates leases",
            flags: &[],
        },
        run: lease::grant,
    },
    Command {
        spec: Spec {
            path: "lease revoke",
            use_line: "lease revoke <leaseID>",
            short: "Revokes leases",
            flags: &[],
        },
        run: lease::revoke,
    },
    Command {
        spec: Spec {
            path: "lease timetolive",
            use_line: "lease timetolive <leaseID> [options]",
            short: "Get lease information",
            flags: &[flag(
                "keys",
                Kind::Bool,
                "false",
                "Get keys attached to this lease",
            )],
        },
        run: lease::time_to_live,
    },
    Command {
        spec: Spec {
            path: "lease list",
            use_line: "lease list",
            short: "List all active leases",
            flags: &[],
        },
        run: lease::list,
    },
    Command {
        spec: Spec {
            path: "lease keep-alive",
            use_line: "lease keep-alive [options] <leaseID>",
            short: "Keeps leases alive (renew)",
            flags: &[flag(
                "once",
                Kind::Bool,
                "false",
                "Resets the keep-alive time to its original value and exits immediately",
            )],
        },
        run: lease::keep_alive,
    },
    Command {
        spec: Spec {
            path: "member add",
            use_line: "member add <memberName> [options]",
            short: "Adds a member into the cluster",
            flags: &[
                flag(
                    "learner",
                    Kind::Bool,
                    "false",
                    "indicates if the new member is raft learner",
                ),
                flag(
                    "peer-urls",
                    Kind::Str,
                    "",
                    "comma separated peer URLs for the new member.",
                ),
            ],
        },
        run: maintenance::member_add,
    },
    Command {
        spec: Spec {
            path: "member remove",
            use_line: "member remove <memberID>",
            short: "Removes a member from the cluster",
            flags: &[],
        },
        run: maintenance::member_remove,
    },
    Command {
        spec: Spec {
            path: "member list",
            use_line: "member list",
            short: "Lists all members in the cluster",
            flags: &[],
        },
        run: maintenance::member_list,
    },
    Command {
        spec: Spec {
            path: "member promote",
            use_line: "member promote <memberID>",
            short: "Promotes a non-voting member in the cluster",
            flags: &[],
        },
        run: maintenance::member_promote,
    },
    Command {
        spec: Spec {
            path: "endpoint health",
            use_line: "endpoint health",
            short: "Checks the healthiness of endpoints specified in `--endpoints` flag",
            flags: &[CLUSTER_FLAG],
        },
        run: maintenance::endpoint_health,
    },
    Command {
        spec: Spec {
            path: "endpoint status",
            use_line: "endpoint status",
            short: "Prints out the status of endpoints specified in `--endpoints` flag",
            flags: &[CLUSTER_FLAG],
        },
        run: maintenance::endpoint_status,
    },
    Command {
        spec: Spec {
            path: "endpoint hashkv",
            use_line: "endpoint hashkv",
            short: "Prints the KV history hash for each endpoint in --endpoints",
            flags: &[
                CLUSTER_FLAG,
                flag(
                    "rev",
                    Kind::Int,
                    "0",
                    "maximum revision to hash (default: all revisions)",
                ),
            ],
        },
        run: maintenance::endpoint_hashkv,
    },
    Command {
        spec: Spec {
            path: "alarm disarm",
            use_line: "alarm disarm",
            short: "Disarms all alarms",
            flags: &[],
        },
        run: maintenance::alarm_disarm,
    },
    Command {
        spec: Spec {
            path: "alarm list",
            use_line: "alarm list",
            short: "Lists all alarms",
            flags: &[],
        },
        run: maintenance::alarm_list,
    },
    Command {
        spec: Spec {
            path: "check perf",
            use_line: "check perf [options]",
            short: "Check the performance of the etcd cluster",
            flags: &[
                flag(
                    "load",
                    Kind::Str,
                    "s",
                    "The performance check's workload model. Accepted workloads: s(small), m(medium), l(large), xl(xLarge)",
                ),
                flag(
                    "prefix",
                    Kind::Str,
                    "/etcdctl-check-perf/",
                    "The prefix for writing the performance check's keys.",
                ),
                flag(
                    "auto-compact",
                    Kind::Bool,
                    "false",
                    "Compact storage with last revision after test is finished.",
                ),
                flag(
                    "auto-defrag",
                    Kind::Bool,
                    "false",
                    "Defragment storage after test is finished.",
                ),
            ],
        },
        run: maintenance::check_perf,
    },
    Command {
        spec: Spec {
            path: "defrag",
            use_line: "defrag",
            short: "Defragments the storage of the etcd members with given endpoints",
            flags: &[
                flag(
                    "cluster",
                    Kind::Bool,
                    "false",
                    "use all endpoints from the cluster member list",
                ),
                flag(
                    "data-dir",
                    Kind::Str,
                    "",
                    "Optional. If present, defragments a data directory not in use by etcd.",
                ),
            ],
        },
        run: maintenance::defrag,
    },
    Command {
        spec: Spec {
            path: "snapshot save",
            use_line: "snapshot save <filename>",
            short: "Stores an etcd node backend snapshot to a given file",
            flags: &[],
        },
        run: maintenance::snapshot_save,
    },
    Command {
        spec: Spec {
            path: "snapshot status",
            use_line: "snapshot status <filename>",
            short: "Gets backend snapshot status of a given file",
            flags: &[],
        },
        run: maintenance::snapshot_status,
    },
    Command {
        spec: Spec {
            path: "snapshot restore",
            use_line: "snapshot restore <filename> [options]",
            short: "Restores an etcd member snapshot to an etcd directory",
            flags: &etcdutl::ETCDCTL_RESTORE_FLAGS,
        },
        run: etcdutl::snapshot_restore,
    },
    Command {
        spec: Spec {
            path: "move-leader",
            use_line: "move-leader <transferee-member-id>",
            short: "Transfers leadership to another etcd cluster member.",
            flags: &[],
        },
        run: maintenance::move_leader,
    },
    Command {
        spec: Spec {
            path: "version",
            use_line: "version",
            short: "Prints the version of etcdctl",
            flags: &[],
        },
        run: version,
    },
];

const PUT_FLAGS: [args::Flag; 4] = [
    flag(
        "ignore-lease",
        Kind::Bool,
        "false",
        "updates the key using its current lease",
    ),
    flag(
        "ignore-value",
        Kind::Bool,
        "false",
        "updates the key using its current value",
    ),
    flag(
        "lease",
        Kind::Str,
        "0",
        "lease ID (in hexadecimal) to attach to the key",
    ),
    flag(
        "prev-kv",
        Kind::Bool,
        "false",
        "return the previous key-value pair before modification",
    ),
];

const DEL_FLAGS: [args::Flag; 3] = [
    flag(
        "from-key",
        Kind::Bool,
        "false",
        "delete keys that are greater than or equal to the given key using byte compare",
    ),
    flag(
        "prefix",
        Kind::Bool,
        "false",
        "delete keys with matching prefix",
    ),
    flag(
        "prev-kv",
        Kind::Bool,
        "false",
        "return deleted key-value pairs",
    ),
];

fn version(ctx: &mut Ctx, _p: &Parsed) -> CmdResult {
    ctx.print("etcdctl version: 3.4.23\nAPI version: 3.4\n");
    Ok(())
}

/// Every command's words (`get`, `lease grant`), for completion.
pub fn command_paths() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(|c| c.spec.path)
}

/// Spec of a command by its path (txn lines parse their ops with the get/put/del specs).
fn spec(path: &str) -> &'static Spec {
    &COMMANDS
        .iter()
        .find(|c| c.spec.path == path)
        .expect("known command")
        .spec
}

/// Splits the command path (`lease grant`) from the rest, skipping global flags (and their
/// values) the way cobra's `stripFlags` does.
fn find_path(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut path: Vec<String> = Vec::new();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let takes_value = |a: &str| {
            if a.contains('=') {
                return false;
            }
            if let Some(name) = a.strip_prefix("--") {
                args::GLOBAL_FLAGS
                    .iter()
                    .any(|f| f.name == name && f.kind != Kind::Bool)
            } else if a.len() == 2 && a.starts_with('-') {
                let c = a.chars().nth(1).unwrap_or(' ');
                args::GLOBAL_FLAGS
                    .iter()
                    .any(|f| f.short == Some(c) && f.kind != Kind::Bool)
            } else {
                false
            }
        };
        let can_extend = path.is_empty() || (path.len() == 1 && tree::is_group(&path[0]));
        if a == "--" {
            rest.extend(args[i..].iter().cloned());
            break;
        }
        if a.starts_with('-') && a.len() > 1 {
            rest.push(a.clone());
            if takes_value(a) && i + 1 < args.len() {
                rest.push(args[i + 1].clone());
                i += 1;
            }
        } else if can_extend {
            // cobra's prefix matching: `compact` is `compaction`, `member li` is `member list`.
            let full = match path.first() {
                None => tree::command(a),
                Some(group) => tree::subcommand(group, a),
            };
            path.push(full.map_or_else(|| a.clone(), str::to_string));
        } else {
            rest.push(a.clone());
        }
        i += 1;
    }
    (path, rest)
}

/// cobra's flag error: the usage on stdout, `Error: ...` twice on stderr, exit 1.
fn flag_error(ctx: &mut Ctx, spec: &Spec, e: FlagError) -> CmdResult {
    ctx.print(&args::usage(spec));
    let _ = write!(ctx.out.stderr, "Error: {}\n\n", e.0);
    Err(Exit::new(EXIT_ERROR, e.0))
}

fn dispatch(ctx: &mut Ctx, args: &[String]) -> CmdResult {
    let (path, rest) = find_path(args);
    if path.is_empty() {
        ctx.print(&args::root_usage(ROOT_HEAD));
        return Ok(());
    }
    // Word by word: one word with a space in it (`'endpoint health'`) names no command.
    let words = || path.iter().map(String::as_str);
    let Some(cmd) = COMMANDS.iter().find(|c| c.spec.path.split(' ').eq(words())) else {
        return not_simulated(ctx, &path, &rest);
    };
    let mut parsed = match args::parse(&cmd.spec, &rest) {
        Ok(p) => p,
        Err(e) => return flag_error(ctx, &cmd.spec, e),
    };
    if parsed.bool("help") {
        ctx.print(&args::usage(&cmd.spec));
        return Ok(());
    }
    let offline = OFFLINE.contains(&cmd.spec.path)
        || (cmd.spec.path == "defrag" && parsed.is_set("data-dir"));
    if !offline {
        let now = ctx.world.now();
        env::apply(ctx.env, &mut parsed, now, &mut ctx.out.stderr)?;
    }
    apply_globals(ctx, &parsed)?;
    (cmd.run)(ctx, &parsed)
}

/// The commands that make no client, so never read the `ETCDCTL_*` flags (3.4's
/// `clientConfigFromCmd` is where they are read).
const OFFLINE: &[&str] = &["version", "snapshot status", "snapshot restore"];

/// A path no simulated command has: cobra's unknown command, a group's help (an unknown
/// subcommand runs the group), `help`, or a real command Raft Lab does not simulate.
fn not_simulated(ctx: &mut Ctx, path: &[String], rest: &[String]) -> CmdResult {
    let word = &path[0];
    if tree::command(word).is_none() {
        let msg = tree::unknown_command(word);
        let _ = writeln!(
            ctx.out.stderr,
            "Error: {msg}\nRun 'etcdctl --help' for usage."
        );
        return Err(Exit::new(EXIT_ERROR, msg));
    }
    if word == "help" {
        let asked = path[1..].iter().chain(rest).cloned().collect::<Vec<_>>();
        let (topic, _) = find_path(&asked);
        let spec = COMMANDS.iter().find(|c| c.spec.path == topic.join(" "));
        ctx.print(&spec.map_or_else(|| args::root_usage(ROOT_HEAD), |c| args::usage(&c.spec)));
        return Ok(());
    }
    let known_sub = path
        .get(1)
        .is_some_and(|sub| tree::subcommand(word, sub).is_some());
    if let (Some(short), false) = (tree::group_short(word), known_sub) {
        // `lease frob`: cobra runs the group, which only prints its help.
        let own: &[args::Flag] = if word == "endpoint" {
            &[CLUSTER_FLAG]
        } else {
            &[]
        };
        let subs = tree::subcommands(word, ROOT_HEAD);
        ctx.print(&args::group_usage(word, short, &subs, own));
        return Ok(());
    }
    // A real etcdctl command (`lock`, `member update`) the simulation has no model for.
    Err(Exit::new(
        EXIT_ERROR,
        format!(
            "raftlab: `etcdctl {}` is a real etcdctl 3.4 command that Raft Lab does not simulate",
            path.join(" ")
        ),
    ))
}

/// Global flags; the output format is checked when the command makes its client.
fn apply_globals(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if let Some(eps) = p.str("endpoints") {
        ctx.endpoints = eps
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
    }
    if let Some(t) = p.str("command-timeout") {
        ctx.command_timeout_ms = crate::base::parse_go_duration_ms(t).unwrap_or(5_000);
        if ctx.command_timeout_ms > super::WAIT_LIMIT_MS {
            let what = format!("--command-timeout={t}");
            return Err(Exit::new(1, super::longer_than_the_longest_wait(&what)));
        }
    }
    ctx.printer.hex = p.bool("hex");
    Ok(())
}

/// etcdctl's `clientConfigFromCmd` and `mustClient`: once the command needs a client, an
/// unknown `-w` fails (exit 4), then the TLS files are read (exit 128).
pub fn init_display(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let format = p.str("write-out").unwrap_or("simple");
    match Format::parse(format) {
        Some(f) => ctx.printer.format = f,
        None => return Err(Exit::new(EXIT_BAD_FEATURE, "unsupported output format")),
    }
    // `mustClient` right after: the TLS files are read before anything is dialed.
    ctx.tls = tls::load(ctx.files, p)?;
    Ok(())
}

/// etcdctl 3.4.23's `--help` down to its flags (Debian's binary, verbatim): every command,
/// simulated or not.
const ROOT_HEAD: &str = "NAME:\n\tetcdctl - A simple command line client for etcd3.\n\nUSAGE:\n\tetcdctl [flags]\n\nVERSION:\n\t3.4.23\n\nAPI VERSION:\n\t3.4\n\n\nCOMMANDS:\n\talarm disarm\t\tDisarms all alarms\n\talarm list\t\tLists all alarms\n\tauth disable\t\tDisables authentication\n\tauth enable\t\tEnables authentication\n\tcheck datascale\t\tCheck the memory usage of holding data for different workloads on a given server endpoint.\n\tcheck perf\t\tCheck the performance of the etcd cluster\n\tcompaction\t\tCompacts the event history in etcd\n\tcompletion bash\t\tGenerate the autocompletion script for bash\n\tcompletion fish\t\tGenerate the autocompletion script for fish\n\tcompletion powershell\tGenerate the autocompletion script for powershell\n\tcompletion zsh\t\tGenerate the autocompletion script for zsh\n\tdefrag\t\t\tDefragments the storage of the etcd members with given endpoints\n\tdel\t\t\tRemoves the specified key or range of keys [key, range_end)\n\telect\t\t\tObserves and participates in leader election\n\tendpoint hashkv\t\tPrints the KV history hash for each endpoint in --endpoints\n\tendpoint health\t\tChecks the healthiness of endpoints specified in `--endpoints` flag\n\tendpoint status\t\tPrints out the status of endpoints specified in `--endpoints` flag\n\tget\t\t\tGets the key or a range of keys\n\thelp\t\t\tHelp about any command\n\tlease grant\t\tCreates leases\n\tlease keep-alive\tKeeps leases alive (renew)\n\tlease list\t\tList all active leases\n\tlease revoke\t\tRevokes leases\n\tlease timetolive\tGet lease information\n\tlock\t\t\tAcquires a named lock\n\tmake-mirror\t\tMakes a mirror at the destination etcd cluster\n\tmember add\t\tAdds a member into the cluster\n\tmember list\t\tLists all members in the cluster\n\tmember promote\t\tPromotes a non-voting member in the cluster\n\tmember remove\t\tRemoves a member from the cluster\n\tmember update\t\tUpdates a member in the cluster\n\tmigrate\t\t\tMigrates keys in a v2 store to a mvcc store\n\tmove-leader\t\tTransfers leadership to another etcd cluster member.\n\tput\t\t\tPuts the given key into the store\n\trole add\t\tAdds a new role\n\trole delete\t\tDeletes a role\n\trole get\t\tGets detailed information of a role\n\trole grant-permission\tGrants a key to a role\n\trole list\t\tLists all roles\n\trole revoke-permission\tRevokes a key from a role\n\tsnapshot restore\tRestores an etcd member snapshot to an etcd directory\n\tsnapshot save\t\tStores an etcd node backend snapshot to a given file\n\tsnapshot status\t\tGets backend snapshot status of a given file\n\ttxn\t\t\tTxn processes all the requests in one transaction\n\tuser add\t\tAdds a new user\n\tuser delete\t\tDeletes a user\n\tuser get\t\tGets detailed information of a user\n\tuser grant-role\t\tGrants a role to a user\n\tuser list\t\tLists all users\n\tuser passwd\t\tChanges password of user\n\tuser revoke-role\tRevokes a role from a user\n\tversion\t\t\tPrints the version of etcdctl\n\twatch\t\t\tWatches events stream on keys or prefixes\n\n";

#[cfg(test)]
mod tests;
