//! `kubectl` (1.3x) against the mock API server: the same verbs, columns, messages and errors
//! (KC `pkg/cmd/*`, KK `pkg/printers/internalversion/printers.go`). Each command parses its own
//! flags from the table in [`flags`]; commands that wait (`delete` of a pod, `rollout status`)
//! let the control plane run in virtual time meanwhile.

mod apply;
mod create;
mod delete;
mod describe;
mod flags;
mod get;
mod rollout;
mod scale;
mod table;
mod targets;

use crate::base::Millis;
use crate::etcd::Cluster;
use crate::kube::{ApiError, Caller, ControlPlane};
use flags::{Args, Command};
use std::collections::BTreeMap;

/// What kubectl printed and its exit code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KubectlOutput {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

impl KubectlOutput {
    fn failure(stderr: String) -> KubectlOutput {
        KubectlOutput {
            stderr,
            code: 1,
            ..KubectlOutput::default()
        }
    }
}

/// What kubectl says when nothing listens at `server` (`localhost:8080` without a
/// kubeconfig; kubeadm's admin.conf names the control-plane machine's port 6443).
pub fn refused(server: &str) -> String {
    format!("The connection to the server {server} was refused - did you specify the right host or port?\n")
}

/// How long `rollout status` and `delete` wait at most (virtual time).
const WAIT_LIMIT_MS: Millis = 300_000;
/// How long a streaming command runs in a script: the next 2 s of virtual time, as if
/// stopped by `timeout 2` (DESIGN.md).
const STREAM_MS: Millis = 2_000;

/// What every command works with: the control plane it talks to, the script's files, its
/// standard input and what it has printed so far.
struct Ctx<'a> {
    /// Who is asking: `kubectl` with this command line (the API server journals it).
    caller: Caller,
    cp: &'a mut ControlPlane,
    world: &'a mut Cluster,
    files: &'a BTreeMap<String, Vec<u8>>,
    stdin: Option<&'a str>,
    out: KubectlOutput,
    /// What the command still waits for when it returns.
    waiting: Option<Wait>,
}

/// What a command waits for: a rollout, or deleted objects to be gone.
#[derive(Clone, Debug)]
enum Wait {
    Rollout(rollout::Waiting),
    Gone(delete::Gone),
}

impl Wait {
    fn deadline_ms(&self) -> Millis {
        match self {
            Wait::Rollout(w) => w.deadline_ms,
            Wait::Gone(g) => g.deadline_ms,
        }
    }

    /// How often kubectl looks again (virtual time).
    fn every_ms(&self) -> Millis {
        match self {
            Wait::Rollout(_) => rollout::LOOK_EVERY_MS,
            Wait::Gone(_) => delete::LOOK_EVERY_MS,
        }
    }

    /// Looks once; whether the wait is over.
    fn look(&mut self, ctx: &mut Ctx) -> bool {
        match self {
            Wait::Rollout(w) => w.look(ctx),
            Wait::Gone(g) => g.look(ctx),
        }
    }
}

impl Ctx<'_> {
    fn print(&mut self, text: &str) {
        self.out.stdout.push_str(text);
    }

    fn fail(&mut self, text: &str) {
        self.out.stderr.push_str(text);
        if !text.ends_with('\n') {
            self.out.stderr.push('\n');
        }
        self.out.code = 1;
    }

    /// kubectl's `CheckErr`: `Error from server (Reason): message`, except that an Invalid
    /// object is `The <Kind> "<name>" is invalid: <causes>` (from the status details).
    fn api_error(&mut self, e: &ApiError) {
        if e.reason == "Invalid" {
            if let Some((subject, causes)) = e.message.split_once(" is invalid: ") {
                if let Some((kind, name)) = subject.split_once(' ') {
                    let kind = kind.split('.').next().unwrap_or(kind);
                    return self.fail(&format!("The {kind} {name} is invalid: {causes}"));
                }
            }
        }
        self.fail(&e.to_string());
    }

    /// An error creating an object read from `source` (`AddSourceToErr`): the server's
    /// message gets `error when creating "<source>": ` in front.
    fn create_error(&mut self, e: &ApiError, source: &str) {
        let mut e = e.clone();
        if e.reason != "Invalid" {
            e.message = format!("error when creating \"{source}\": {}", e.message);
        }
        self.api_error(&e)
    }
}

/// Every kubectl command this console knows: its path, flags and what runs it. A verb with
/// subcommands (`rollout`, `set`, `create`) is listed too: it runs when no subcommand matches.
const COMMANDS: &[Command] = &[
    Command::new(flags::APPLY, |ctx, a| apply::apply(ctx, a, false)),
    Command::new(flags::CREATE, create::create),
    Command::aliased(flags::CREATE_DEPLOYMENT, "deploy", create::deployment),
    Command::aliased(flags::CREATE_NAMESPACE, "ns", create::namespace),
    Command::new(flags::CREATE_SECRET, create::secret_generic),
    Command::aliased(flags::CREATE_CONFIGMAP, "cm", create::configmap),
    Command::new(flags::GET, get::get),
    Command::new(flags::DELETE, delete::delete),
    Command::new(flags::DESCRIBE, describe::describe),
    Command::new(flags::SCALE, scale::scale),
    Command::new(flags::SET, scale::set),
    Command::new(flags::SET_IMAGE, scale::set_image),
    Command::new(flags::ROLLOUT, rollout::rollout),
    Command::new(flags::ROLLOUT_STATUS, rollout::status),
    Command::new(flags::ROLLOUT_HISTORY, rollout::history),
    Command::new(flags::ROLLOUT_UNDO, rollout::undo),
    Command::new(flags::VERSION, version),
];

/// Every command's words (`get`, `rollout status`), for completion.
pub fn command_paths() -> impl Iterator<Item = &'static str> {
    COMMANDS.iter().map(Command::path)
}

/// A command still waiting when it returned (`rollout status`, `delete` until its objects
/// are gone): the session lets the control plane run meanwhile, in the page's slices, and
/// has it look again every moment ([`Continued::look`]); what it printed while waiting comes
/// at its end ([`Continued::finish`]), as when run at once.
#[derive(Clone, Debug)]
pub struct Continued {
    caller: Caller,
    waiting: Wait,
    out: KubectlOutput,
}

impl Continued {
    /// When it gives up (virtual time).
    pub fn deadline_ms(&self) -> Millis {
        self.waiting.deadline_ms()
    }

    /// When it looks again, after a look at `now`.
    pub fn next_look_ms(&self, now: Millis) -> Millis {
        now + self.waiting.every_ms()
    }

    /// Looks again; whether the wait is over.
    pub fn look(
        &mut self,
        cp: Option<&mut ControlPlane>,
        world: &mut Cluster,
        files: &BTreeMap<String, Vec<u8>>,
    ) -> bool {
        let Some(cp) = cp else {
            self.out = not_up();
            return true;
        };
        let mut ctx = Ctx {
            caller: self.caller.clone(),
            cp,
            world,
            files,
            stdin: None,
            out: std::mem::take(&mut self.out),
            waiting: None,
        };
        let over = self.waiting.look(&mut ctx);
        self.out = ctx.out;
        over
    }

    /// What it printed while waiting, and how it exited.
    pub fn finish(self) -> KubectlOutput {
        self.out
    }
}

/// `kubectl ARGS`; `cp` is the control plane (`None` before `kube up`: nothing listens).
/// With what it printed, what it still waits for, if anything.
pub fn kubectl(
    cp: Option<&mut ControlPlane>,
    world: &mut Cluster,
    files: &BTreeMap<String, Vec<u8>>,
    args: &[String],
    stdin: Option<&str>,
) -> (KubectlOutput, Option<Continued>) {
    let Some(verb) = args.first() else {
        let usage = KubectlOutput {
            stdout: "kubectl controls the Kubernetes cluster manager.\n".into(),
            ..KubectlOutput::default()
        };
        return (usage, None);
    };
    let Some((command, parsed)) = flags::command_for(COMMANDS, args) else {
        let unknown = format!("error: unknown command \"{verb}\" for \"kubectl\"\n");
        return (KubectlOutput::failure(unknown), None);
    };
    let parsed = match parsed {
        Ok(parsed) => parsed,
        Err(usage_error) => return (KubectlOutput::failure(usage_error), None),
    };
    if parsed.help {
        let help = KubectlOutput {
            stdout: command.help(),
            ..KubectlOutput::default()
        };
        return (help, None);
    }
    let Some(cp) = cp else {
        return (not_up(), None);
    };
    if !cp.serving() {
        return (KubectlOutput::failure(refused(cp.address())), None);
    }
    let mut ctx = Ctx {
        caller: Caller::kubectl(command_line(args)),
        cp,
        world,
        files,
        stdin,
        out: KubectlOutput::default(),
        waiting: None,
    };
    (command.run)(&mut ctx, &parsed);
    let continued = ctx.waiting.map(|waiting| Continued {
        caller: ctx.caller,
        waiting,
        out: KubectlOutput::default(),
    });
    (ctx.out, continued)
}

impl From<KubectlOutput> for super::Output {
    fn from(out: KubectlOutput) -> super::Output {
        super::Output {
            stdout: out.stdout,
            stderr: out.stderr,
            code: out.code,
            aside: None,
        }
    }
}

/// kubectl before `kube up`: nothing listens at the API server's address.
fn not_up() -> KubectlOutput {
    KubectlOutput::failure(refused(crate::etcd::Preset::Members.api_server()))
}

/// `kubectl ARGS` as a shell would need it written, for the change trace.
fn command_line(args: &[String]) -> String {
    std::iter::once("kubectl".to_string())
        .chain(args.iter().map(|a| shell_word(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// An argument quoted only when it must be. Hand-written rather than `shlex::try_quote`,
/// which also quotes `=` and `,` (`'--replicas=3'`) and so would change the traced lines.
fn shell_word(a: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:,@%+-".contains(c);
    if !a.is_empty() && a.chars().all(plain) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn version(ctx: &mut Ctx, _: &Args) {
    ctx.print("Client Version: v1.31.0\nKustomize Version: v5.4.2\nServer Version: v1.31.0\n");
}

#[cfg(test)]
mod tests;
