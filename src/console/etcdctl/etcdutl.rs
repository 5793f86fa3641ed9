//! `etcdutl snapshot restore|status` (etcd 3.5's offline tool; it restores as 3.4's
//! `etcdctl snapshot restore` does, so that command is here too): flags, output and error
//! texts. The data directory and the snapshot file themselves are `crate::etcd`'s.

use super::args::{self, flag, short, Flag, Kind, Parsed, Spec};
use super::printer::{json_str, DbStatus, Format, Printer};
use super::{init_display, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_BAD_FEATURE, EXIT_ERROR};
use crate::console::shell::fs;
use crate::console::Output;
use crate::etcd::{self, RestoreError, RestoreRequest};
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub const RESTORE_FLAGS: [Flag; 9] = [
    flag(
        "bump-revision",
        Kind::Str,
        "0",
        "How much to increase the latest revision after restore",
    ),
    flag("data-dir", Kind::Str, "", "Path to the data directory"),
    flag(
        "initial-advertise-peer-urls",
        Kind::Str,
        "http://localhost:2380",
        "List of this member's peer URLs to advertise to the rest of the cluster",
    ),
    flag(
        "initial-cluster",
        Kind::Str,
        "default=http://localhost:2380",
        "Initial cluster configuration for restore bootstrap",
    ),
    flag(
        "initial-cluster-token",
        Kind::Str,
        "etcd-cluster",
        "Initial cluster token for the etcd cluster during restore bootstrap",
    ),
    flag(
        "mark-compacted",
        Kind::Bool,
        "false",
        "Mark the latest revision after restore as the point of scheduled compaction (required if --bump-revision > 0, disallowed otherwise)",
    ),
    flag(
        "name",
        Kind::Str,
        "default",
        "Human-readable name for this member",
    ),
    flag(
        "skip-hash-check",
        Kind::Bool,
        "false",
        "Ignore snapshot integrity hash value (required if copied from data directory)",
    ),
    flag(
        "wal-dir",
        Kind::Str,
        "",
        "Path to the WAL directory (use --data-dir if none given)",
    ),
];

/// etcdctl 3.4's `snapshot restore` has no `--bump-revision` or `--mark-compacted` (etcdutl
/// 3.5 added them).
pub const ETCDCTL_RESTORE_FLAGS: [Flag; 7] = [
    RESTORE_FLAGS[1],
    RESTORE_FLAGS[2],
    RESTORE_FLAGS[3],
    RESTORE_FLAGS[4],
    RESTORE_FLAGS[6],
    RESTORE_FLAGS[7],
    RESTORE_FLAGS[8],
];

const RESTORE: Spec = Spec {
    path: "snapshot restore",
    use_line: "snapshot restore <filename> [options]",
    short: "Restores an etcd member snapshot to an etcd directory",
    flags: &RESTORE_FLAGS,
};

const STATUS: Spec = Spec {
    path: "snapshot status",
    use_line: "snapshot status <filename>",
    short: "Gets backend snapshot status of a given file",
    flags: &[short(
        "write-out",
        'w',
        Kind::Str,
        "simple",
        "set the output format (fields, json, protobuf, simple, table)",
    )],
};

/// `etcdutl ARGS`.
pub fn run(files: &mut BTreeMap<String, Vec<u8>>, words: &[String]) -> Output {
    let mut out = Output::default();
    let mut path: Vec<&String> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = &words[i];
        if (w == "-w" || w == "--write-out") && i + 1 < words.len() {
            rest.push(w.clone());
            rest.push(words[i + 1].clone());
            i += 2;
            continue;
        }
        if w.starts_with('-') || path.len() == 2 {
            rest.push(w.clone());
        } else {
            path.push(w);
        }
        i += 1;
    }
    let joined: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
    let (spec, status) = match joined.as_slice() {
        ["snapshot", "restore"] => (&RESTORE, false),
        ["snapshot", "status"] => (&STATUS, true),
        [] => {
            out.stdout
                .push_str("NAME:\n\tetcdutl - An administrative command line tool for etcd3.\n");
            return out;
        }
        [word, ..] => {
            let msg = format!("unknown command {} for \"etcdutl\"", args::go_quote(word));
            let _ = write!(
                out.stderr,
                "Error: {msg}\nRun 'etcdutl --help' for usage.\nError: {msg}\n"
            );
            out.code = EXIT_ERROR;
            return out;
        }
    };
    let global = Spec {
        flags: if status { spec.flags } else { &RESTORE_WITH_W },
        ..*spec
    };
    let parsed = match args::parse_local(&global, &rest) {
        Ok(p) => p,
        Err(e) => {
            out.stdout.push_str(&args::usage(spec));
            let _ = write!(out.stderr, "Error: {}\n\nError: {}\n", e.0, e.0);
            out.code = EXIT_ERROR;
            return out;
        }
    };
    if status {
        return status_command(files, &parsed);
    }
    restore(files, &parsed)
}

const RESTORE_WITH_W: [Flag; 8] = [
    RESTORE_FLAGS[0],
    RESTORE_FLAGS[1],
    RESTORE_FLAGS[2],
    RESTORE_FLAGS[3],
    RESTORE_FLAGS[4],
    RESTORE_FLAGS[5],
    RESTORE_FLAGS[6],
    short(
        "write-out",
        'w',
        Kind::Str,
        "simple",
        "set the output format (fields, json, protobuf, simple, table)",
    ),
];

fn fail(code: i32, msg: &str) -> Output {
    Output {
        stderr: format!("Error: {msg}\n"),
        code,
        ..Output::default()
    }
}

fn status_command(files: &BTreeMap<String, Vec<u8>>, p: &Parsed) -> Output {
    if p.args.len() != 1 {
        return fail(
            EXIT_BAD_ARGS,
            "snapshot status requires exactly one argument",
        );
    }
    let Some(format) = Format::parse(p.str("write-out").unwrap_or("simple")) else {
        return fail(EXIT_BAD_FEATURE, "unsupported output format");
    };
    match etcd::snapshot_file_status(files, &fs::key(&p.args[0])) {
        Ok(s) => match Printer::new(format, false).db_status(&DbStatus::from(s)) {
            Ok(text) => Output {
                stdout: text,
                ..Output::default()
            },
            Err(u) => fail(EXIT_BAD_FEATURE, &u.0),
        },
        Err(e) => fail(EXIT_ERROR, &e.to_string()),
    }
}

/// etcdctl 3.4's `snapshot restore`: the same command as etcdutl's.
pub fn snapshot_restore(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    init_display(ctx, p)?;
    let out = restore(ctx.files, p);
    ctx.eprint(&out.stderr);
    ctx.print(&out.stdout);
    if out.code != 0 {
        return Err(Exit::quiet(out.code));
    }
    Ok(())
}

/// `snapshot restore FILE --data-dir DIR --name N --initial-cluster ... `.
fn restore(files: &mut BTreeMap<String, Vec<u8>>, p: &Parsed) -> Output {
    if p.args.len() != 1 {
        return fail(
            EXIT_BAD_ARGS,
            "snapshot restore requires exactly one argument",
        );
    }
    let snapshot_path = fs::key(&p.args[0]);
    let data_dir = p.str("data-dir").map(fs::key).unwrap_or_default();
    let request = RestoreRequest {
        snapshot_path: &snapshot_path,
        name: p.str("name").unwrap_or("default"),
        data_dir: &data_dir,
        initial_cluster: p
            .str("initial-cluster")
            .unwrap_or("default=http://localhost:2380"),
        initial_cluster_token: p.str("initial-cluster-token").unwrap_or("etcd-cluster"),
        initial_advertise_peer_urls: p
            .str("initial-advertise-peer-urls")
            .unwrap_or("http://localhost:2380"),
        bump_revision: p.str("bump-revision").unwrap_or("0"),
        mark_compacted: p.bool("mark-compacted"),
    };
    // A directory made any other way than by a restore (`mkdir`, a tree) is there too.
    if !data_dir.is_empty() && fs::node(files, &data_dir).is_some() {
        let exists = etcd::RestoreError::DataDirExists(data_dir.clone());
        return fail(EXIT_ERROR, &restore_error_text(&exists));
    }
    match etcd::restore(files, &request) {
        Ok(data_dir) => Output {
            stderr: restore_log(request.snapshot_path, &data_dir),
            ..Output::default()
        },
        Err(e) => fail(EXIT_ERROR, &restore_error_text(&e)),
    }
}

/// etcdutl's zap lines around a restore.
fn restore_log(snapshot_path: &str, data_dir: &str) -> String {
    let dirs = format!(
        ",\"wal-dir\":{},\"data-dir\":{},\"snap-dir\":{}",
        json_str(&format!("{data_dir}/member/wal")),
        json_str(data_dir),
        json_str(&format!("{data_dir}/member/snap"))
    );
    ["restoring snapshot", "restored snapshot"]
        .map(|msg| {
            format!(
                "{{\"level\":\"info\",\"ts\":1767225600.0,\"caller\":\"snapshot/v3_snapshot.go:296\",\"msg\":\"{msg}\",\"path\":{}{dirs}}}\n",
                json_str(snapshot_path)
            )
        })
        .concat()
}

/// What etcdutl prints after `Error: ` for a failed restore.
fn restore_error_text(e: &RestoreError) -> String {
    let q = args::go_quote;
    match e {
        RestoreError::BadInitialCluster(part) => {
            format!("{} is not a valid initial cluster", q(part))
        }
        RestoreError::NameNotInCluster(name) => format!(
            "couldn't find local name {} in the initial cluster configuration",
            q(name)
        ),
        RestoreError::AdvertiseMismatch {
            name,
            in_cluster,
            advertised,
        } => advertise_mismatch_text(name, in_cluster, advertised),
        RestoreError::DataDirExists(dir) => format!("data-dir {} exists", q(dir)),
        RestoreError::Snapshot(e) => e.to_string(),
        RestoreError::BadBumpRevision(v) => format!(
            "invalid argument {} for \"--bump-revision\" flag: strconv.ParseUint: parsing {}: invalid syntax",
            q(v),
            q(v)
        ),
        RestoreError::MarkCompactedRequired => {
            "--mark-compacted required if --bump-revision > 0".into()
        }
        RestoreError::MarkCompactedDisallowed => {
            "--mark-compacted is only allowed with --bump-revision > 0".into()
        }
        RestoreError::Store(e) => e.clone(),
    }
}

fn advertise_mismatch_text(name: &str, in_cluster: &[String], advertised: &[String]) -> String {
    let sorted = |urls: &[String]| {
        let mut urls = urls.to_vec();
        urls.sort();
        urls.join(",")
    };
    let (sorted_cluster, sorted_advertised) = (sorted(in_cluster), sorted(advertised));
    format!(
        "--initial-cluster has {name}={} but missing from --initial-advertise-peer-urls={} (\"{sorted_advertised}\"(resolved from {sorted_advertised}) != \"{sorted_cluster}\"(resolved from {sorted_cluster}))",
        in_cluster.join(","),
        advertised.join(","),
    )
}
