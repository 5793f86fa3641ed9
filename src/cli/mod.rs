//! The native command-line tool: `raftlab run [--members N] [--seed S] [--echo]
//! [--trace out.json] [FILE|-]`.

pub mod memory;

use crate::console::{run_script, Session};
use crate::etcd::ClusterConfig;
use serde::Serialize;
use std::io::{Read, Write};
use std::path::PathBuf;

const USAGE: &str =
    "usage: raftlab run [--members N] [--seed S] [--no-pre-vote] [--no-check-quorum]
                   [--teach commit-old-terms,no-vote-log-check,forget-vote]
                   [--echo] [--trace OUT.json] [FILE|-]

Runs a script against a fresh simulated cluster (members m1..mN, default 3; seed default 1).
One command per line: etcd/kubectl command lines and the simulator's verbs (wait leader,
wait 2s, kill m1, restart m1, pause m1, resume m1, timeout m1, transfer m2, partition m1,m2 | m3,
isolate m1, heal, latency 20ms [jitter 5ms], loss 0.1, drop m1 m2 [p], status [-w json]).
With --echo every command is shown as `$ line`, then its output, then `[exit N]` if N != 0.";

struct RunArgs {
    members: usize,
    seed: u64,
    /// Pre-vote, check-quorum and teaching switches (members and seed are applied last).
    config: ClusterConfig,
    echo: bool,
    trace: Option<PathBuf>,
    input: Option<PathBuf>,
}

fn parse_run(mut parser: lexopt::Parser) -> Result<RunArgs, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = RunArgs {
        members: 3,
        seed: 1,
        config: ClusterConfig::new(3, 1),
        echo: false,
        trace: None,
        input: None,
    };
    while let Some(arg) = parser.next()? {
        match arg {
            Long("members") | Short('n') => {
                let n: usize = parser.value()?.parse()?;
                if !(1..=11).contains(&n) {
                    return Err("--members must be between 1 and 11".into());
                }
                args.members = n;
            }
            Long("seed") => args.seed = parser.value()?.parse()?,
            Long("no-pre-vote") => args.config.pre_vote = false,
            Long("no-check-quorum") => args.config.check_quorum = false,
            Long("teach") => {
                let names: String = parser.value()?.parse()?;
                for name in names.split(',').filter(|n| !n.is_empty()) {
                    args.config.teach(name)?;
                }
            }
            Long("echo") => args.echo = true,
            Long("trace") => args.trace = Some(parser.value()?.into()),
            Value(v) if args.input.is_none() => args.input = Some(v.into()),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(args)
}

#[derive(Serialize)]
struct TraceFile<'a> {
    seed: u64,
    members: usize,
    trace_hash: String,
    events: Vec<&'a str>,
}

/// Runs the tool; returns the process exit code.
pub fn main() -> i32 {
    let mut parser = lexopt::Parser::from_env();
    match parser.next() {
        Ok(Some(lexopt::Arg::Value(cmd))) if cmd == "run" => {}
        Ok(Some(lexopt::Arg::Long("help") | lexopt::Arg::Short('h'))) => {
            println!("{USAGE}");
            return 0;
        }
        Ok(Some(lexopt::Arg::Long("version"))) => {
            println!("raftlab {}", env!("CARGO_PKG_VERSION"));
            return 0;
        }
        _ => {
            eprintln!("{USAGE}");
            return 2;
        }
    }
    let args = match parse_run(parser) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("raftlab run: {e}\n{USAGE}");
            return 2;
        }
    };
    let text = match read_input(args.input.as_deref()) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("raftlab run: {e}");
            return 2;
        }
    };
    let config = ClusterConfig {
        members: args.members,
        seed: args.seed,
        ..args.config
    };
    let mut session = Session::new(config);
    session.world.record_trace(args.trace.is_some());
    let run = run_script(&mut session, &text, args.echo);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(run.stdout.as_bytes());
    let _ = stdout.flush();
    let _ = std::io::stderr().write_all(run.stderr.as_bytes());
    if let Some(path) = args.trace {
        let file = TraceFile {
            seed: args.seed,
            members: args.members,
            trace_hash: format!("{:016x}", session.world.trace_hash()),
            events: session.world.trace_lines(),
        };
        let written = serde_json::to_string_pretty(&file)
            .map_err(|e| e.to_string())
            .and_then(|json| std::fs::write(&path, json + "\n").map_err(|e| e.to_string()));
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
