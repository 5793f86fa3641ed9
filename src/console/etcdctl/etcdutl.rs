//! `etcdutl snapshot restore|status` (etcd 3.5's offline tool; it restores as 3.4's
//! `etcdctl snapshot restore` does). A restored data directory is one entry of the virtual
//! filesystem holding the member's new identity and its store, for `restart m1 --data-dir`.

use super::args::{self, flag, short, Flag, Kind, Parsed, Spec};
use super::printer::{Format, Printer};
use super::{EXIT_BAD_ARGS, EXIT_BAD_FEATURE, EXIT_ERROR};
use crate::console::Output;
use serde::{Deserialize, Serialize};
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

/// What `snapshot restore` leaves in its data directory: the member's identity (from the
/// restore flags) and the restored store (`mvcc::Store::encode` bytes), with its leases and
/// compaction. The member must start from this, as etcd does from a restored data dir.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RestoredDataDir {
    pub name: String,
    pub peer_urls: Vec<String>,
    pub initial_cluster_token: String,
    /// etcd's member id: sha1(sorted peer URLs + token), first 8 bytes.
    pub member_id: u64,
    /// sha1 over the sorted member ids of `--initial-cluster`.
    pub cluster_id: u64,
    /// Every member of `--initial-cluster`: (name, peer URLs).
    pub initial_cluster: Vec<(String, Vec<String>)>,
    pub db: Vec<u8>,
}

/// The restored data directory at `path` of the virtual filesystem, if there is one.
pub fn read_data_dir(files: &BTreeMap<String, Vec<u8>>, path: &str) -> Option<RestoredDataDir> {
    serde_json::from_slice(files.get(path.trim_end_matches('/'))?).ok()
}

use crate::etcd::{cluster_id, member_id};

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
        stdout: String::new(),
        stderr: format!("Error: {msg}\n"),
        code,
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
    match super::maintenance::db_status(files, &p.args[0]) {
        Ok(s) => match Printer::new(format, false).db_status(&s) {
            Ok(text) => Output {
                stdout: text,
                ..Output::default()
            },
            Err(u) => fail(EXIT_BAD_FEATURE, &u.0),
        },
        Err(e) => fail(EXIT_ERROR, &e),
    }
}

/// `snapshot restore FILE --data-dir DIR --name N --initial-cluster ... `.
pub fn restore(files: &mut BTreeMap<String, Vec<u8>>, p: &Parsed) -> Output {
    if p.args.len() != 1 {
        return fail(
            EXIT_BAD_ARGS,
            "snapshot restore requires exactly one argument",
        );
    }
    let snap = &p.args[0];
    let name = p.str("name").unwrap_or("default").to_string();
    let data_dir = p
        .str("data-dir")
        .filter(|d| !d.is_empty())
        .map_or_else(|| format!("{name}.etcd"), str::to_string);
    let token = p
        .str("initial-cluster-token")
        .unwrap_or("etcd-cluster")
        .to_string();
    let initial = p
        .str("initial-cluster")
        .unwrap_or("default=http://localhost:2380");
    let advertise: Vec<String> = p
        .str("initial-advertise-peer-urls")
        .unwrap_or("http://localhost:2380")
        .split(',')
        .map(str::to_string)
        .collect();
    let mut cluster: Vec<(String, Vec<String>)> = Vec::new();
    for part in initial.split(',').filter(|s| !s.is_empty()) {
        let Some((n, url)) = part.split_once('=') else {
            return fail(
                EXIT_ERROR,
                &format!("{} is not a valid initial cluster", args::go_quote(part)),
            );
        };
        match cluster.iter_mut().find(|(m, _)| m == n) {
            Some((_, urls)) => urls.push(url.to_string()),
            None => cluster.push((n.to_string(), vec![url.to_string()])),
        }
    }
    let Some((_, mine)) = cluster.iter().find(|(n, _)| *n == name) else {
        return fail(
            EXIT_ERROR,
            &format!(
                "couldn't find local name {} in the initial cluster configuration",
                args::go_quote(&name)
            ),
        );
    };
    let mut sorted_mine = mine.clone();
    sorted_mine.sort();
    let mut sorted_adv = advertise.clone();
    sorted_adv.sort();
    if sorted_mine != sorted_adv {
        return fail(
            EXIT_ERROR,
            &format!(
                "--initial-cluster has {name}={} but missing from --initial-advertise-peer-urls={} (\"{}\"(resolved from {}) != \"{}\"(resolved from {}))",
                mine.join(","),
                advertise.join(","),
                sorted_adv.join(","),
                sorted_adv.join(","),
                sorted_mine.join(","),
                sorted_mine.join(",")
            ),
        );
    }
    if files.contains_key(data_dir.trim_end_matches('/')) {
        return fail(
            EXIT_ERROR,
            &format!("data-dir {} exists", args::go_quote(&data_dir)),
        );
    }
    let Some(db) = files.get(snap).cloned() else {
        return fail(
            EXIT_ERROR,
            &format!("stat {snap}: no such file or directory"),
        );
    };
    let mut store = match crate::mvcc::Store::decode(&db) {
        Ok(store) => store,
        Err(e) => return fail(EXIT_ERROR, &e.to_string()),
    };
    let bump = match p.str("bump-revision").unwrap_or("0").parse::<u64>() {
        Ok(n) => n,
        Err(_) => {
            let v = p.str("bump-revision").unwrap_or("");
            let msg = format!("invalid argument {} for \"--bump-revision\" flag: strconv.ParseUint: parsing {}: invalid syntax", args::go_quote(v), args::go_quote(v));
            return fail(EXIT_ERROR, &msg);
        }
    };
    let mark = p.bool("mark-compacted");
    if bump > 0 && !mark {
        return fail(
            EXIT_ERROR,
            "--mark-compacted required if --bump-revision > 0",
        );
    }
    if bump == 0 && mark {
        return fail(
            EXIT_ERROR,
            "--mark-compacted is only allowed with --bump-revision > 0",
        );
    }
    let db = if bump > 0 {
        if let Err(e) = store.bump_revision_and_compact(bump as i64) {
            return fail(EXIT_ERROR, &e.to_string());
        }
        store.encode()
    } else {
        db
    };
    let ids: Vec<u64> = cluster.iter().map(|(_, u)| member_id(u, &token)).collect();
    let dir = RestoredDataDir {
        member_id: member_id(mine, &token),
        cluster_id: cluster_id(&ids),
        name: name.clone(),
        peer_urls: mine.clone(),
        initial_cluster_token: token,
        initial_cluster: cluster.clone(),
        db,
    };
    let bytes = match serde_json::to_vec(&dir) {
        Ok(b) => b,
        Err(e) => return fail(EXIT_ERROR, &e.to_string()),
    };
    files.insert(data_dir.trim_end_matches('/').to_string(), bytes);
    let mut out = Output::default();
    let log = |msg: &str, extra: &str| {
        format!(
            "{{\"level\":\"info\",\"ts\":1767225600.0,\"caller\":\"snapshot/v3_snapshot.go:296\",\"msg\":\"{msg}\",\"path\":{}{extra}}}\n",
            super::printer::json_str(snap)
        )
    };
    let dirs = format!(
        ",\"wal-dir\":{},\"data-dir\":{},\"snap-dir\":{}",
        super::printer::json_str(&format!("{data_dir}/member/wal")),
        super::printer::json_str(&data_dir),
        super::printer::json_str(&format!("{data_dir}/member/snap"))
    );
    out.stderr.push_str(&log("restoring snapshot", &dirs));
    out.stderr.push_str(&log("restored snapshot", &dirs));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restored_identity_is_etcds() {
        let id = member_id(&["http://127.0.0.1:23804".to_string()], "restore-token");
        assert_eq!(format!("{id:x}"), "7bd0eeac1181ef69");
        assert_eq!(cluster_id(&[id]), 11679938116525535020);
    }
}
