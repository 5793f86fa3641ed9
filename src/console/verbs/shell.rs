//! The shell around the tools, as the articles type it: bash's `export`/`unset`, `sudo`,
//! coreutils' `sleep`, `mkdir`, `mv`, `cp`, `rm` and `cat` on the machine's files
//! (`shell::fs`), and the commands this machine cannot run (`shell::absent`). Whatever changes
//! the session (a variable, a file) is recorded, so an exported run replays it.

use super::Call;
use crate::console::error::ConsoleError;
use crate::console::shell::{self, env::BuiltinError, env::Env, fs};
use crate::console::{Output, Session};

fn failed(stderr: String, code: i32) -> Output {
    Output {
        stderr,
        code,
        ..Output::default()
    }
}

fn builtin(s: &mut Session, call: &Call, result: Result<String, BuiltinError>) -> Output {
    s.record(call.line);
    match result {
        Ok(stdout) => Output::ok(stdout),
        Err(e) => failed(e.message, e.code),
    }
}

pub fn export(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let result = s.vars.export(&call.args);
    Ok(builtin(s, call, result))
}

pub fn unset(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let result = s.vars.unset(&call.args).map(|()| String::new());
    Ok(builtin(s, call, result))
}

/// The first lines of sudo 1.9's usage (what it prints with no command).
const SUDO_USAGE: &str = "usage: sudo -h | -K | -k | -V\nusage: sudo -v [-ABkNnS] [-g group] [-h host] [-p prompt] [-u user]\nusage: sudo -l [-ABkNnS] [-g group] [-h host] [-p prompt] [-U user]\n            [-u user] [command [arg ...]]\nusage: sudo [-ABbEHkNnPS] [-C num] [-D directory]\n            [-g group] [-h host] [-p prompt] [-R directory] [-T timeout]\n            [-u user] [VAR=value] [-i | -s] [command [arg ...]]\nusage: sudo -e [-ABkNnS] [-C num] [-D directory]\n            [-g group] [-h host] [-p prompt] [-R directory] [-T timeout]\n            [-u user] file ...\n";

/// `sudo [-E] [-u USER] [VAR=value] COMMAND`: the console already is root, so it runs the command, with
/// the environment Debian's sudoers gives it (`env_reset`: the exported variables do not
/// reach it, unless `-E` keeps them).
pub fn sudo(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let (keep, words) = match sudo_options(call.words) {
        Ok(parsed) => parsed,
        Err(stderr) => return Ok(failed(stderr, 1)),
    };
    let command = words
        .iter()
        .find(|w| shell::env::assignment_word(w).is_none());
    let Some(command) = command else {
        return Ok(failed(SUDO_USAGE.to_string(), 1));
    };
    if super::find(command).is_none_or(|v| v.builtin) {
        return Ok(failed(format!("sudo: {command}: command not found\n"), 1));
    }
    let env = if keep { call.env.clone() } else { Env::new() };
    Ok(s.run_with_env(words, call.line, call.stdin, env))
}

/// The accounts of a fresh Debian/Ubuntu machine (base-passwd): the users `sudo -u` knows.
const USERS: &[&str] = &[
    "root", "daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news", "uucp", "proxy",
    "www-data", "backup", "list", "irc", "nobody",
];

/// sudo's leading options: `-E` (keep the environment), `-u USER` (any known user: files here
/// have no owners, so the command runs the same), then the command's words; or sudo's error.
fn sudo_options(mut words: &[String]) -> Result<(bool, &[String]), String> {
    let mut keep = false;
    loop {
        let (user, rest) = match words {
            [flag, rest @ ..] if flag == "-E" => {
                keep = true;
                words = rest;
                continue;
            }
            [flag, user, rest @ ..] if flag == "-u" => (user.as_str(), rest),
            [flag] if flag == "-u" => {
                return Err(format!(
                    "sudo: option requires an argument -- 'u'\n{SUDO_USAGE}"
                ))
            }
            [flag, rest @ ..] if flag.starts_with("-u") => (&flag[2..], rest),
            [flag, rest @ ..] if flag.starts_with("--user=") => (&flag[7..], rest),
            _ => return Ok((keep, words)),
        };
        if !USERS.contains(&user) {
            return Err(format!(
                "sudo: unknown user {user}\nsudo: error initializing audit plugin sudoers_audit\n"
            ));
        }
        words = rest;
    }
}

/// coreutils' `sleep NUMBER[SUFFIX]...` (s, m, h, d; fractions too): virtual time passes,
/// as with `wait`.
pub fn sleep(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let try_help = "Try 'sleep --help' for more information.\n";
    if call.args.is_empty() {
        return Ok(failed(format!("sleep: missing operand\n{try_help}"), 1));
    }
    let mut total = 0.0;
    for arg in &call.args {
        let (number, unit) = match arg.char_indices().last() {
            Some((i, c @ ('s' | 'm' | 'h' | 'd'))) => (&arg[..i], c),
            _ => (*arg, 's'),
        };
        let seconds = match number.parse::<f64>() {
            Ok(n) if n >= 0.0 && n.is_finite() => n,
            _ => {
                return Ok(failed(
                    format!("sleep: invalid time interval ‘{arg}’\n{try_help}"),
                    1,
                ))
            }
        };
        let scale = match unit {
            'm' => 60.0,
            'h' => 3_600.0,
            'd' => 86_400.0,
            _ => 1.0,
        };
        total += seconds * scale;
    }
    let asked = format!("sleep {}", call.args.join(" "));
    super::cluster::let_time_pass(s, (total * 1000.0).round() as u64, &asked)?;
    Ok(Output::default())
}

/// `mkdir`, `mv`, `cp`, `rm`: the files change (recorded), or coreutils' error (exit 1).
pub fn files(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let run = match call.verb.name {
        "mkdir" => fs::mkdir,
        "mv" => fs::mv,
        "cp" => fs::cp,
        _ => fs::rm,
    };
    let result = run(&mut s.files, &call.args);
    s.record(call.line);
    Ok(match result {
        Ok(()) => Output::default(),
        Err(stderr) => failed(stderr, 1),
    })
}

pub fn cat(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let (bytes, result) = fs::cat(&s.files, &call.args, call.stdin.unwrap_or(""));
    let stdout = String::from_utf8_lossy(&bytes).into_owned();
    Ok(match result {
        Ok(()) => Output::ok(stdout),
        Err(stderr) => Output {
            stdout,
            ..failed(stderr, 1)
        },
    })
}

/// `head`, `tail` and `grep` first in a line: they read their FILE operands from the
/// machine's files (or the line's standard input), as the same filters do in a pipe.
pub fn text_filter(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let words: Vec<String> = std::iter::once(call.verb.name.to_string())
        .chain(call.args.iter().map(|a| (*a).to_string()))
        .collect();
    let (stdout, stderr, code) = shell::pipe::filter(&words, call.stdin.unwrap_or(""), &s.files);
    Ok(Output {
        stdout,
        ..failed(stderr, code)
    })
}

/// A command the articles print that this machine cannot run: why, and what to do instead.
pub fn absent(_: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let why = shell::absent(call.verb.name).unwrap_or_default();
    Ok(failed(why, 127))
}

#[cfg(test)]
mod tests {
    use crate::console::script::run_script;
    use crate::console::shell;
    use crate::console::verbs::find;
    use crate::console::Session;
    use crate::etcd::ClusterConfig;

    fn session() -> Session {
        let mut s = Session::new(ClusterConfig::new(1, 1));
        assert_eq!(s.execute("wait leader", None).code, 0);
        assert_eq!(s.execute("etcdctl put k v", None).code, 0);
        s
    }

    /// `raftlab fuzz --target verbs --seed 1 --from 802` (the input: `$(kubectl` nested some
    /// thousand times) overflowed the stack; a few levels still run, too many are refused.
    #[test]
    fn deeply_nested_substitutions_are_refused_not_a_stack_overflow() {
        let mut s = session();
        let nested = |n: usize| format!("echo {}ok{}", "$(echo ".repeat(n), ")".repeat(n));
        let ok = s.execute(&nested(3), None);
        assert_eq!((ok.stdout.as_str(), ok.code), ("ok\n", 0), "{ok:?}");
        for line in [
            nested(5_000),
            format!("hashkv echo {}", "$(kubectl".repeat(5_000)),
        ] {
            let out = s.execute(&line, None);
            assert_ne!(out.code, 0);
            assert!(
                out.stderr.contains("nested") || out.stderr.contains("EOF"),
                "{out:?}"
            );
        }
    }

    #[test]
    fn prefixes_exports_and_sudo_hand_etcdctl_its_environment() {
        let mut s = session();
        let json = s.execute("ETCDCTL_WRITE_OUT=json etcdctl get k", None);
        assert!(json.stdout.starts_with("{\"header\""), "{json:?}");
        let plain = s.execute("etcdctl get k --print-value-only", None);
        assert_eq!(plain.stdout, "v\n", "a prefix is for its command only");
        assert_eq!(s.execute("export ETCDCTL_WRITE_OUT=json", None).code, 0);
        assert!(s.execute("etcdctl get k", None).stdout.starts_with('{'));
        let sudo = s.execute("sudo etcdctl get k --print-value-only", None);
        assert_eq!(sudo.stdout, "v\n", "sudo resets the environment");
        let kept = s.execute("sudo -E etcdctl get k", None);
        assert!(kept.stdout.starts_with('{'), "-E keeps it: {kept:?}");
        let other = s.execute("sudo -u nobody etcdctl get k --print-value-only", None);
        assert_eq!(other.stdout, "v\n", "{other:?}");
        let unknown = s.execute("sudo -u nosuchuser etcdctl get k", None);
        let why =
            "sudo: unknown user nosuchuser\nsudo: error initializing audit plugin sudoers_audit\n";
        assert_eq!((unknown.stderr.as_str(), unknown.code), (why, 1));
        assert!(s
            .execute("sudo -u", None)
            .stderr
            .starts_with("sudo: option requires"));
        s.files.insert(shell::fs::key("f"), b"a1\nb\n".to_vec());
        let grep = s.execute("sudo -u nobody grep a f", None);
        assert_eq!((grep.stdout.as_str(), grep.code), ("a1\n", 0), "{grep:?}");
        let head = s.execute("head -n 1 f | grep -c a", None);
        assert_eq!(head.stdout, "1\n", "{head:?}");
        // The exported run replays to the same variables.
        let script = s.export_script();
        assert!(script.contains("export ETCDCTL_WRITE_OUT=json"), "{script}");
        let mut again = Session::new(ClusterConfig::new(1, 1));
        run_script(&mut again, &script, false);
        assert_eq!(again.vars, s.vars);
        assert_eq!(s.execute("unset ETCDCTL_WRITE_OUT", None).code, 0);
        assert_eq!(s.execute("etcdctl get k", None).stdout, "k\nv\n");
    }

    #[test]
    fn substitution_errors_reach_stderr_and_the_status() {
        let mut s = session();
        let out = s.execute("bad=$(etcdctl get --nonsense k)", None);
        assert_eq!(
            out.code, 1,
            "a bare assignment has its substitution's status"
        );
        assert!(
            out.stderr.contains("Error: unknown flag: --nonsense"),
            "{out:?}"
        );
        let out = s.execute("echo [$(python3 -c 'print(1)')]", None);
        assert_eq!(out.stdout, "[]\n");
        assert!(
            out.stderr.starts_with("python3: there is no Python"),
            "{out:?}"
        );
        let out = s.execute("ok=$(etcdctl get k --print-value-only)", None);
        assert_eq!((out.code, out.stderr.as_str()), (0, ""));
        assert_eq!(s.vars.get("ok").map(String::as_str), Some("v"));
    }

    #[test]
    fn sleep_lets_virtual_time_pass_as_wait_does() {
        let mut s = session();
        let before = s.world.now();
        assert_eq!(s.execute("sleep 2.5", None).code, 0);
        assert_eq!(s.world.now(), before + 2_500);
        assert_eq!(s.execute("sleep 1m 1", None).code, 0);
        assert_eq!(s.world.now(), before + 63_500);
        let long = s.execute("sleep 3h", None);
        assert!(
            long.stderr.contains("longer than the longest wait"),
            "{long:?}"
        );
        assert_eq!(
            s.world.now(),
            before + 63_500,
            "a refused sleep takes no time"
        );
    }

    #[test]
    fn file_commands_are_recorded_and_replayed() {
        let mut s = session();
        for line in [
            "mkdir -p /opt/b",
            "etcdctl snapshot save /opt/b/s.db",
            "mv /opt/b /opt/c",
        ] {
            assert_eq!(s.execute(line, None).code, 0, "{line}");
        }
        assert!(s.files.contains_key("/opt/c/s.db"));
        let mut again = Session::new(ClusterConfig::new(1, 1));
        run_script(&mut again, &s.export_script(), false);
        assert_eq!(
            again.files.keys().collect::<Vec<_>>(),
            s.files.keys().collect::<Vec<_>>()
        );
        let cat = s.execute("cat /opt/c", None);
        assert_eq!(
            (cat.code, cat.stderr.as_str()),
            (1, "cat: /opt/c: Is a directory\n")
        );
    }

    #[test]
    fn every_absent_command_is_a_verb_that_says_why() {
        for name in shell::absent_names() {
            let verb = find(name).unwrap_or_else(|| panic!("{name} is not a verb"));
            assert!(verb.about.contains("not on this machine"), "{name}");
        }
    }
}
