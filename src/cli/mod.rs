//! The native command-line tool: `raftlab run [--members N] [--seed S] [--echo]
//! [--trace out.json] [FILE|-]` (a script's `# raftlab run …` first line sets what the flags
//! do not), `raftlab lesson list|check` ([`lesson`]) and `raftlab fuzz` ([`fuzz`]).

pub mod fuzz;
pub mod lesson;
pub mod memory;

use crate::console::trace_file::trace_json;
use crate::console::{run_script, script, Session};
use crate::etcd::{ClusterConfig, Preset, Switch};
use std::io::{Read, Write};
use std::path::PathBuf;

/// The usage text; the settings flags are spelled as the engine's switch table spells them.
fn usage() -> String {
    let switches: String = Switch::ALL
        .into_iter()
        .filter_map(Switch::off_flag)
        .map(|flag| format!(" [{flag}]"))
        .collect();
    let teach = Switch::teaching_names().collect::<Vec<_>>().join(",");
    let worlds: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
    let worlds = worlds.join("|");
    format!(
        "usage: raftlab run [--members N] [--world {worlds}] [--seed S]{switches}
                   [--teach {teach}] [--max-entries-per-msg N]
                   [--echo] [--trace OUT.json] [FILE|-]

Runs a script against a fresh simulated cluster (members m1..mN, default 3; seed default 1).
A first line `# raftlab run FLAGS` (as the page exports it) sets what the flags here do not.
--world kubeadm is the articles' lab instead: a kubeadm cluster with Kubernetes up, its
control-plane machine master (etcd member master, TLS), workers node01 and node02.
One command per line (`leader` names the current leader wherever a MEMBER goes):
{verbs}
With --echo every command is shown as `$ line`, then its output, then `[exit N]` if N != 0.

{lesson}

{fuzz}",
        verbs = crate::console::verbs::help(),
        lesson = lesson::USAGE,
        fuzz = fuzz::USAGE
    )
}

#[derive(Default)]
struct RunArgs {
    /// The settings flags, as the words of a script header, for [`ClusterConfig::with_flags`].
    settings: Vec<String>,
    echo: bool,
    trace: Option<PathBuf>,
    input: Option<PathBuf>,
}

/// Reads `raftlab run`'s flags: the settings, and the flags only the CLI has.
fn parse_run(mut parser: lexopt::Parser) -> Result<RunArgs, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = RunArgs::default();
    while let Some(arg) = parser.next()? {
        match arg {
            Long("members") | Short('n') => {
                let n = parser.value()?.string()?;
                args.settings.extend(["--members".into(), n]);
            }
            Long(
                name @ ("seed" | "teach" | "max-entries-per-msg" | "quota-backend-bytes" | "world"),
            ) => {
                let flag = format!("--{name}");
                args.settings.extend([flag, parser.value()?.string()?]);
            }
            Long(name) if Switch::by_off_flag(&format!("--{name}")).is_some() => {
                args.settings.push(format!("--{name}"));
            }
            Long("echo") => args.echo = true,
            Long("trace") => args.trace = Some(parser.value()?.into()),
            Value(v) if args.input.is_none() => args.input = Some(v.into()),
            _ => return Err(arg.unexpected()),
        }
    }
    let words: Vec<&str> = args.settings.iter().map(String::as_str).collect();
    ClusterConfig::default().with_flags(&words)?;
    Ok(args)
}

/// The run's settings: the script's `# raftlab run …` line (as the page's import reads it,
/// and `--echo`), then the command line's flags over it. Returns the config and `--echo`.
fn settings(args: &RunArgs, text: &str) -> Result<(ClusterConfig, bool), String> {
    let header = match script::header_words(text) {
        None => RunArgs::default(),
        Some(words) => {
            let header =
                parse_run(lexopt::Parser::from_args(words)).map_err(|e| format!("line 1: {e}"))?;
            if header.trace.is_some() || header.input.is_some() {
                return Err("line 1: a header holds settings and --echo only".into());
            }
            header
        }
    };
    let words: Vec<&str> = header
        .settings
        .iter()
        .chain(&args.settings)
        .map(String::as_str)
        .collect();
    let config = ClusterConfig::default().with_flags(&words)?;
    Ok((config, header.echo || args.echo))
}

/// Runs the tool; returns the process exit code.
pub fn main() -> i32 {
    let mut parser = lexopt::Parser::from_env();
    match parser.next() {
        Ok(Some(lexopt::Arg::Value(cmd))) if cmd == "run" => {}
        Ok(Some(lexopt::Arg::Value(cmd))) if cmd == "lesson" || cmd == "fuzz" => {
            let rest: Vec<String> = std::env::args().skip(2).collect();
            let (stdout, stderr, code) = if cmd == "lesson" {
                lesson::main(&rest)
            } else {
                fuzz::main(&rest)
            };
            print!("{stdout}");
            eprint!("{stderr}");
            return code;
        }
        Ok(Some(lexopt::Arg::Long("help") | lexopt::Arg::Short('h'))) => {
            println!("{}", usage());
            return 0;
        }
        Ok(Some(lexopt::Arg::Long("version"))) => {
            println!("raftlab {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        _ => {
            eprintln!("{}", usage());
            return 2;
        }
    }
    let args = match parse_run(parser) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("raftlab run: {e}\n{}", usage());
            return 2;
        }
    };
    let read = read_input(args.input.as_deref());
    let (text, (config, echo)) = match read.and_then(|t| settings(&args, &t).map(|s| (t, s))) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("raftlab run: {e}");
            return 2;
        }
    };
    let mut session = Session::new(config.clone());
    // As the page does: `expect violations == 0` means something in every run.
    session.watch_invariants();
    session.world.record_trace(args.trace.is_some());
    let run = run_script(&mut session, &text, echo);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(run.stdout.as_bytes());
    let _ = stdout.flush();
    let _ = std::io::stderr().write_all(run.stderr.as_bytes());
    if let Some(path) = args.trace {
        let written = trace_json(&config, &session.world)
            .map_err(|e| e.to_string())
            .and_then(|json| std::fs::write(&path, json).map_err(|e| e.to_string()));
        if let Err(e) = written {
            eprintln!("raftlab run: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    run.code
}

fn read_input(path: Option<&std::path::Path>) -> Result<String, String> {
    let mut bytes = Vec::new();
    match path {
        None => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) if p.as_os_str() == "-" => std::io::stdin().read_to_end(&mut bytes).map(|_| ()),
        Some(p) => std::fs::read(p).map(|b| bytes = b),
    }
    .map_err(|e| {
        format!(
            "cannot read {}: {e}",
            path.map_or("stdin".into(), |p| p.display().to_string())
        )
    })?;
    // Junk bytes become U+FFFD and then, at worst, unknown commands: never a panic.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
