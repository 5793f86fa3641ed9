//! What a script checks and looks at: `expect GOAL` (a lesson's goal, failing the run when it
//! does not hold) and `ls`, the session's working directory as GNU ls lists it.

use super::Call;
use crate::console::error::ConsoleError;
use crate::console::goal::Goal;
use crate::console::shell::fs;
use crate::console::{Output, Session};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The goal text: the line after the verb and `flag` when it comes next (whether it did),
/// quotes kept, since a goal's strings are its own (the shell's word splitting would take
/// them away).
pub(super) fn goal_text<'a>(call: &Call<'a>, flag: &str) -> (bool, &'a str) {
    let rest = call.line.trim_start();
    let rest = rest
        .strip_prefix(call.verb.name)
        .unwrap_or(rest)
        .trim_start();
    match rest.strip_prefix(flag) {
        Some(goal) if call.args.first() == Some(&flag) => (true, goal.trim()),
        _ => (false, rest.trim()),
    }
}

/// `expect GOAL`: silent when it holds against the mark; `Error: expect: … is false (…)`
/// and exit 1 when not. `expect --mark [GOAL]`: the mark is now, and GOAL's `ever`
/// predicates are watched from it.
pub fn expect(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let (mark, text) = goal_text(call, "--mark");
    if mark {
        let baseline = s.baseline();
        s.set_mark(baseline.clone());
        if !text.is_empty() {
            s.watch_goal(Goal::parse(text)?, baseline);
        }
        return Ok(Output::default());
    }
    if text.is_empty() {
        return Err(call.usage());
    }
    let goal = Goal::parse(text)?;
    let base = s.mark();
    if s.goal_holds(&goal, &base) == Ok(true) {
        return Ok(Output::default());
    }
    // False, or no world could tell: the explanation says which.
    Err(ConsoleError::failed(format!(
        "expect: {}",
        goal.explain(s, &base)
    )))
}

/// How `ls` shows a file of the session.
struct Entry<'a> {
    name: &'a str,
    /// etcd's data dirs are directories of mode 0700; a snapshot is written 0600 (etcd's
    /// PrivateFileMode); anything else as `cat >` leaves it under umask 022.
    mode: &'static str,
    links: u32,
    size: usize,
}

/// The entry `name` lists for the file at `key`.
fn entry<'a>(files: &BTreeMap<String, Vec<u8>>, name: &'a str, key: &str) -> Entry<'a> {
    let (mode, links) = match fs::node(files, key) {
        Some(fs::Node::DataDir) => ("drwx------", 3),
        // etcd keeps its member dir private; `member` holds `snap` and `wal`.
        Some(fs::Node::Dir) if fs::data_dir_part(files, key).is_some() => {
            ("drwx------", if key.ends_with("/member") { 4 } else { 2 })
        }
        Some(fs::Node::Dir) => ("drwxr-xr-x", 2),
        _ => {
            let snapshot = crate::etcd::snapshot_file_status(files, key).is_ok();
            let size = files.get(key).map_or(0, Vec::len);
            return Entry {
                name,
                mode: if snapshot { "-rw-------" } else { "-rw-r--r--" },
                links: 1,
                size,
            };
        }
    };
    Entry {
        name,
        mode,
        links,
        size: 4096,
    }
}

/// 1K blocks as ext4 allocates them (4K at a time), which GNU's `total` adds up.
fn blocks_k(size: usize) -> usize {
    size.div_ceil(4096) * 4
}

/// `ls -l` lines. Departs from GNU: no date column (session files keep no times), owner
/// `root`, and unknown options are all "invalid" (GNU knows many this one does not).
fn long(entries: &[Entry]) -> String {
    let total: usize = entries.iter().map(|e| blocks_k(e.size)).sum();
    let width = entries
        .iter()
        .map(|e| e.size.to_string().len())
        .max()
        .unwrap_or(1);
    let mut out = format!("total {total}\n");
    for e in entries {
        let _ = writeln!(
            out,
            "{} {} root root {:>width$} {}",
            e.mode, e.links, e.size, e.name
        );
    }
    out
}

fn listing(entries: &[Entry], long_format: bool) -> String {
    if long_format {
        return long(entries);
    }
    entries.iter().map(|e| format!("{}\n", e.name)).collect()
}

/// `ls [-l] [-1] [FILE]...`, as GNU ls prints to a pipe: one name a line, in byte order.
pub fn ls(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let mut long_format = false;
    let mut names = Vec::new();
    for arg in &call.args {
        match arg.strip_prefix('-').filter(|f| !f.is_empty()) {
            Some(flags) => {
                if let Some(bad) = flags.chars().find(|c| !matches!(c, 'l' | '1')) {
                    return Ok(ls_error(format!(
                        "ls: invalid option -- '{bad}'\nTry 'ls --help' for more information.\n"
                    )));
                }
                long_format |= flags.contains('l');
            }
            None => names.push(arg.trim_end_matches('/')),
        }
    }
    let files = &s.files;
    if names.is_empty() {
        return Ok(Output::ok(dir_listing(files, "", long_format)));
    }
    names.sort_unstable();
    let mut out = Output::default();
    let (mut plain, mut dirs) = (Vec::new(), Vec::new());
    for name in names {
        let key = fs::key(name);
        match fs::node(files, &key) {
            None => {
                let _ = writeln!(
                    out.stderr,
                    "ls: cannot access '{name}': No such file or directory"
                );
                out.code = 2;
            }
            Some(fs::Node::File) => plain.push(entry(files, name, &key)),
            Some(_) => dirs.push((name, key)),
        }
    }
    if !plain.is_empty() || dirs.is_empty() {
        out.stdout = listing(&plain, long_format);
    }
    let headed = plain.len() + dirs.len() > 1;
    for (name, key) in dirs {
        if !out.stdout.is_empty() {
            out.stdout.push('\n');
        }
        if headed {
            let _ = writeln!(out.stdout, "{name}:");
        }
        out.stdout.push_str(&dir_listing(files, &key, long_format));
    }
    Ok(out)
}

/// What `ls DIR` prints for the directory at `dir`.
fn dir_listing(files: &BTreeMap<String, Vec<u8>>, dir: &str, long_format: bool) -> String {
    let names = fs::children(files, dir);
    let keys: Vec<String> = names
        .iter()
        .map(|n| fs::key(&format!("{}/{n}", if dir.is_empty() { "." } else { dir })))
        .collect();
    let entries: Vec<Entry> = names
        .iter()
        .zip(&keys)
        .map(|(n, k)| entry(files, n, k))
        .collect();
    listing(&entries, long_format)
}

fn ls_error(stderr: String) -> Output {
    Output {
        stderr,
        code: 2,
        ..Output::default()
    }
}
