//! The console's verbs: one table, read by dispatch, the usage errors, the unknown-command
//! text, the page's completion and the CLI's usage. Each verb parses its own words into
//! typed values, then acts on the session.

mod cluster;
mod crictl;
mod expect;
mod kube;
mod network;
mod shell;
mod tools;

pub(super) use cluster::Awaited;

use super::error::ConsoleError;
use super::shell::env::Env;
use super::{Output, Session};
use crate::base::MemberId;
use crate::sim::SimError;

type Run = fn(&mut Session, &Call) -> Result<Output, ConsoleError>;

/// One word a console line can start with.
pub struct Verb {
    pub name: &'static str,
    /// The usage line, as `usage: …` errors and help print it.
    pub usage: &'static str,
    /// What it does, in a few words (help, the CLI's usage).
    pub about: &'static str,
    /// Its output can be piped into the small tools (`| wc -l`); the simulator's own verbs
    /// use the bar otherwise (`partition m1,m2 | m3`).
    pub pipes: bool,
    /// A real tool: it prints its own error texts (a script adds no line number to them).
    pub tool: bool,
    /// A bash builtin (`export`): part of the shell, so `sudo` cannot run it.
    pub builtin: bool,
    run: Run,
}

/// What a verb is given: its words after the verb, the whole line (recorded for export when
/// the verb changes the world) and its standard input.
pub struct Call<'a> {
    pub verb: &'static Verb,
    pub words: &'a [String],
    pub args: Vec<&'a str>,
    pub line: &'a str,
    pub stdin: Option<&'a str>,
    /// The environment the command starts with (exports and its `NAME=value` prefixes).
    pub env: &'a Env,
}

impl Call<'_> {
    /// This verb's usage, as the error for words that do not fit it.
    pub fn usage(&self) -> ConsoleError {
        ConsoleError::usage(self.verb.usage)
    }

    /// The usage with a note on what was wrong.
    pub fn usage_because(&self, note: &str) -> ConsoleError {
        ConsoleError::usage(format!("{} ({note})", self.verb.usage))
    }
}

const fn sim(name: &'static str, usage: &'static str, about: &'static str, run: Run) -> Verb {
    Verb {
        name,
        usage,
        about,
        pipes: false,
        tool: false,
        builtin: false,
        run,
    }
}

const fn printer(name: &'static str, usage: &'static str, about: &'static str, run: Run) -> Verb {
    Verb {
        pipes: true,
        ..sim(name, usage, about, run)
    }
}

const fn tool(name: &'static str, usage: &'static str, about: &'static str, run: Run) -> Verb {
    Verb {
        tool: true,
        ..printer(name, usage, about, run)
    }
}

const fn builtin(name: &'static str, usage: &'static str, about: &'static str, run: Run) -> Verb {
    Verb {
        builtin: true,
        ..tool(name, usage, about, run)
    }
}

/// What the commands this machine lacks say of themselves in help.
const ABSENT_ABOUT: &str =
    "not on this machine (no internet, no Python): says what to type instead";

/// Every verb, in the order the unknown-command text lists them: the real tools, then the
/// simulator's verbs.
pub static VERBS: &[Verb] = &[
    tool("etcdctl", "etcdctl [flags] COMMAND", "etcd's client (3.4)", tools::etcdctl),
    tool("etcdutl", "etcdutl COMMAND", "etcd's offline tool: snapshot status, restore", tools::etcdutl),
    tool("kubectl", "kubectl COMMAND [flags]", "the Kubernetes client (after kube up)", tools::kubectl),
    tool("crictl", "crictl ps [-a] [-q] [--name REGEX]", "the containers on this machine (the kubeadm world's master)", crictl::crictl),
    sim("kube", "kube up | kube down | kube apiserver [--encryption-provider-config FILE] [--event-ttl DURATION] | kube stop-kubelet|start-kubelet NODE | kube trace", "the mock Kubernetes control plane", kube::kube),
    sim("wait", "wait leader | wait DURATION | wait until GOAL", "let virtual time pass (until: until an expect goal holds)", cluster::wait),
    printer("status", "status [-w json]", "every member's role, term, vote, commit and log", cluster::status),
    sim("kill", "kill MEMBER", "stop a member (its disk survives)", cluster::member_action),
    sim("restart", "restart MEMBER", "start a stopped member again (--data-dir DIR: from a restore)", cluster::member_action),
    sim("pause", "pause MEMBER", "freeze a member (a long GC pause)", cluster::member_action),
    sim("resume", "resume MEMBER", "unfreeze a paused member", cluster::member_action),
    printer("timeout", "timeout MEMBER", "make a member's election timer fire now (timeout N etcdctl …: coreutils' timeout)", tools::timeout),
    sim("transfer", "transfer MEMBER", "hand leadership to a member", cluster::transfer),
    sim("partition", "partition m1,m2 | m3[,...]", "cut the links between groups", network::partition),
    sim("isolate", "isolate MEMBER", "cut a member off from all others", network::isolate),
    sim("heal", "heal", "restore every link", network::heal),
    sim("latency", "latency DURATION [jitter DURATION]", "set the network's delay", network::latency),
    sim("loss", "loss PROBABILITY", "lose messages at random", network::loss),
    sim("drop", "drop FROM TO [PROBABILITY]", "lose the messages of one link", network::drop_link),
    sim("add-member", "add-member", "add a voting member", cluster::add_member),
    sim("add-learner", "add-learner", "add a learner (non-voting)", cluster::add_member),
    sim("remove-member", "remove-member MEMBER", "remove a member from the configuration", cluster::membership),
    sim("promote", "promote MEMBER", "make a learner a voter", cluster::membership),
    sim("snapshot", "snapshot MEMBER", "take a snapshot and compact the log", cluster::membership),
    sim("snapshot-count", "snapshot-count N", "applied entries between automatic snapshots", cluster::snapshot_count),
    sim("fsync", "fsync MEMBER DURATION", "make a member's disk slow", cluster::fsync),
    sim("drop-message", "drop-message ID", "lose one message in flight", network::message),
    sim("delay-message", "delay-message ID DURATION", "hold one message in flight longer", network::message),
    sim("write", "write FILE <<EOF ... EOF", "put a file in the working directory", tools::write_file),
    printer("echo", "echo [WORD...]", "print the words", tools::echo),
    printer("date", "date [+FORMAT]", "the virtual clock's date", tools::date),
    sim("expect", "expect PRED [and PRED]... | expect --mark [PRED...]", "check a goal (a false one fails the run); --mark: compare start.… with now, watch ever …", expect::expect),
    tool("ls", "ls [-l] [FILE...]", "the working directory: snapshots, restored data dirs, written files", expect::ls),
    builtin("export", "export [-n] [NAME[=VALUE]...]", "give a variable to the commands run after (ETCDCTL_ENDPOINTS…)", shell::export),
    builtin("unset", "unset NAME...", "forget a variable", shell::unset),
    tool("sudo", "sudo [-E] [-u USER] COMMAND", "run a command as root (the console is root already); exports do not reach it", shell::sudo),
    tool("sleep", "sleep SECONDS", "let virtual time pass, as wait does", shell::sleep),
    tool("mkdir", "mkdir [-p] DIR...", "make a directory", shell::files),
    tool("mv", "mv SOURCE... TARGET", "move or rename files and directories", shell::files),
    tool("cp", "cp [-r] SOURCE... TARGET", "copy files and directories", shell::files),
    tool("rm", "rm [-rf] FILE...", "remove files and directories", shell::files),
    tool("cat", "cat FILE...", "print files", shell::cat),
    tool("head", "head [-n N|-c N] [FILE...]", "the first lines (or bytes) of files", shell::text_filter),
    tool("tail", "tail [-n N|-c N] [FILE...]", "the last lines (or bytes) of files", shell::text_filter),
    tool("grep", "grep [-ivcnEFG] PATTERN [FILE...]", "the lines of files that match", shell::text_filter),
    tool("curl", "curl URL", ABSENT_ABOUT, shell::absent),
    tool("wget", "wget URL", ABSENT_ABOUT, shell::absent),
    tool("tar", "tar ARCHIVE", ABSENT_ABOUT, shell::absent),
    tool("apt", "apt install PACKAGE", ABSENT_ABOUT, shell::absent),
    tool("apt-get", "apt-get install PACKAGE", ABSENT_ABOUT, shell::absent),
    tool("python3", "python3 -c PROGRAM", ABSENT_ABOUT, shell::absent),
    printer("help", "help [COMMAND]", "this list, or one command's usage", help_verb),
    sim("clear", "clear", "empty the page's console (a script prints nothing)", tools::clear),
];

/// The verbs' names, in the table's order.
pub fn names() -> impl Iterator<Item = &'static str> {
    VERBS.iter().map(|v| v.name)
}

pub fn find(name: &str) -> Option<&'static Verb> {
    VERBS.iter().find(|v| v.name == name)
}

/// A line for each verb: its usage and what it does (the CLI's usage, the console's help).
pub fn help() -> String {
    let usages: Vec<String> = VERBS.iter().map(short_usage).collect();
    let width = usages.iter().map(|u| u.chars().count()).max().unwrap_or(0);
    VERBS
        .iter()
        .zip(&usages)
        .map(|(v, usage)| format!("  {usage:<width$}  {}\n", v.about))
        .collect()
}

/// `kube`'s usage lists five forms; a help line shows the first two.
fn short_usage(verb: &Verb) -> String {
    let forms: Vec<&str> = verb.usage.split(" | ").collect();
    if forms.len() > 2 && verb.name == "kube" {
        return format!("{} | {} | …", forms[0], forms[1]);
    }
    verb.usage.to_string()
}

/// `help`: every verb; `help VERB`: its usage (the real tools point to their own `--help`).
fn help_verb(_: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    match call.args[..] {
        [] => Ok(Output::ok(format!(
            "Commands (wherever a MEMBER goes, `leader` names the current leader):\n{}",
            help()
        ))),
        [name] => {
            let verb = find(name).ok_or_else(|| ConsoleError::UnknownVerb(name.to_string()))?;
            let more = if verb.tool {
                format!("\n(`{} --help` tells the rest)", verb.name)
            } else {
                String::new()
            };
            Ok(Output::ok(format!(
                "usage: {}\n{}{more}\n",
                verb.usage, verb.about
            )))
        }
        _ => Err(call.usage()),
    }
}

impl Session {
    /// Runs one command (no pipes, already expanded) through the verb its first word names.
    pub(super) fn run_verb(
        &mut self,
        words: &[String],
        line: &str,
        stdin: Option<&str>,
        env: &Env,
    ) -> Output {
        let Some((name, rest)) = words.split_first() else {
            return Output::default();
        };
        let Some(verb) = find(name) else {
            return Output::error(ConsoleError::UnknownVerb(name.clone()));
        };
        let call = Call {
            verb,
            words: rest,
            args: rest.iter().map(String::as_str).collect(),
            line,
            stdin,
            env,
        };
        (verb.run)(self, &call).unwrap_or_else(|e| match e {
            ConsoleError::Sim(e) => Output::error(e.naming(|m| self.world.display_name(m))),
            e => Output::error(e),
        })
    }

    /// A member name, or `leader` for the current leader.
    pub(super) fn member(&self, name: &str) -> Result<MemberId, ConsoleError> {
        if name == "leader" {
            return self
                .world
                .leader()
                .ok_or(ConsoleError::Sim(SimError::NoLeader));
        }
        Ok(self.world.member(name)?)
    }

    /// Records a command that changed the world, for export.
    pub(super) fn done(
        &mut self,
        result: Result<(), SimError>,
        line: &str,
    ) -> Result<Output, ConsoleError> {
        result?;
        self.record(line);
        Ok(Output::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_usage_starts_with_its_name() {
        let mut seen = std::collections::BTreeSet::new();
        for verb in VERBS {
            assert!(seen.insert(verb.name), "{} twice", verb.name);
            assert!(
                verb.usage.starts_with(verb.name),
                "{}: {}",
                verb.name,
                verb.usage
            );
            assert!(!verb.about.is_empty(), "{} says nothing", verb.name);
        }
    }

    #[test]
    fn help_lists_every_verb_and_explains_one() {
        let mut s = Session::new(crate::etcd::ClusterConfig::new(3, 1));
        let all = s.execute("help", None);
        assert_eq!(all.code, 0);
        for verb in VERBS {
            assert!(all.stdout.contains(verb.about), "help lacks {}", verb.name);
        }
        let one = s.execute("help partition", None);
        assert_eq!(
            one.stdout,
            "usage: partition m1,m2 | m3[,...]\ncut the links between groups\n"
        );
        let tool = s.execute("help kubectl", None);
        assert!(
            tool.stdout.ends_with("(`kubectl --help` tells the rest)\n"),
            "{:?}",
            tool.stdout
        );
        let unknown = s.execute("help frob", None);
        assert!(
            unknown
                .stderr
                .starts_with("Error: unknown command \"frob\""),
            "{:?}",
            unknown.stderr
        );
        assert_eq!(
            s.execute("help a b", None).stderr,
            "Error: usage: help [COMMAND]\n"
        );
        assert!(
            s.history().is_empty(),
            "help changes nothing, so it is not recorded"
        );
    }

    #[test]
    fn help_has_a_line_per_verb() {
        let help = help();
        assert_eq!(help.lines().count(), VERBS.len());
        assert!(help.contains("  partition m1,m2 | m3[,...]"));
        assert!(help.contains("  kube up | kube down | …  "));
    }
}
