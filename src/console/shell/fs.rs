//! The simulated machine's files as the coreutils the articles type see them: `mkdir -p`,
//! `mv`, `cp`, `rm -rf`, `cat`, and the directory tree `ls` lists. The session keeps its files
//! as one map (path to bytes, checkpointed with the world): a relative key is in the working
//! directory (root's home, `/root`), an absolute one anywhere; a directory is a `dir/` marker
//! (what `mkdir` made), the parent of a file, one of the machine's own directories, or a
//! restored etcd data dir (one entry that `etcdutl snapshot restore` wrote). Error texts are
//! GNU coreutils 9.1's (measured).

use std::collections::BTreeMap;

pub type Files = BTreeMap<String, Vec<u8>>;

/// The working directory (bash's `~`): `/root/x` and `x` are the same file.
pub const HOME: &str = "/root";

/// Directories every machine has, which stay whatever is done to them.
const SYSTEM_DIRS: &[&str] = &[
    "/",
    "/bin",
    "/etc",
    "/home",
    "/opt",
    "/root",
    "/tmp",
    "/usr",
    "/usr/bin",
    "/usr/local",
    "/usr/local/bin",
    "/var",
    "/var/lib",
];

/// What etcd keeps inside a data dir (`ls /var/lib/etcd/member`).
const DATA_DIR_TREE: &[&str] = &["member", "member/snap", "member/wal"];

/// Linux's PATH_MAX (with its NUL) and NAME_MAX: a longer path or name is "File name too
/// long" (ENAMETOOLONG).
const PATH_MAX: usize = 4096;
const NAME_MAX: usize = 255;

/// Whether Linux refuses `path` as too long.
fn name_too_long(path: &str) -> bool {
    path.len() >= PATH_MAX || path.split('/').any(|name| name.len() > NAME_MAX)
}

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    File,
    Dir,
    /// An etcd data dir restored from a snapshot (a directory to the tools).
    DataDir,
}

/// The key of `path`: `.`/`..` resolved, `~` and `/root` made relative, no trailing `/`.
/// `""` is the working directory.
pub fn key(path: &str) -> String {
    let path = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
        _ => path.to_string(),
    };
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = if absolute {
        Vec::new()
    } else {
        HOME[1..].split('/').collect()
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let full = format!("/{}", parts.join("/"));
    match full.strip_prefix(HOME) {
        Some("") => String::new(),
        Some(rest) if rest.starts_with('/') => rest[1..].to_string(),
        _ => full,
    }
}

/// The directory that holds `key` (`""` for a name in the working directory).
fn parent(key: &str) -> String {
    match key.rsplit_once('/') {
        Some(("", _)) => "/".to_string(),
        Some((dir, _)) => dir.to_string(),
        None if key.starts_with('/') || key.is_empty() => "/".to_string(),
        None => String::new(),
    }
}

/// `dir/name` as a key.
fn join(dir: &str, name: &str) -> String {
    match dir {
        "" => name.to_string(),
        "/" => format!("/{name}"),
        d => format!("{d}/{name}"),
    }
}

fn last_part(key: &str) -> &str {
    key.rsplit('/').next().unwrap_or(key)
}

/// The prefix every key inside directory `dir` starts with.
fn inside(dir: &str) -> String {
    match dir {
        "" => String::new(),
        "/" => "/".to_string(),
        d => format!("{d}/"),
    }
}

/// Keys strictly inside directory `dir` (its marker and everything under it).
fn keys_under(files: &Files, dir: &str) -> Vec<String> {
    let prefix = inside(dir);
    files
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .filter(|(k, _)| !(dir.is_empty() && k.starts_with('/')))
        .map(|(k, _)| k.clone())
        .collect()
}

/// What `key` names, if anything.
pub fn node(files: &Files, key: &str) -> Option<Node> {
    if files.contains_key(key) {
        let data_dir = crate::etcd::read_data_dir(files, key).is_some();
        return Some(if data_dir { Node::DataDir } else { Node::File });
    }
    let system = key.is_empty() || SYSTEM_DIRS.contains(&key) || key == HOME;
    if system || !keys_under(files, key).is_empty() {
        return Some(Node::Dir);
    }
    // Inside a data dir: etcd's own layout.
    let within = data_dir_part(files, key)?;
    DATA_DIR_TREE.contains(&within).then_some(Node::Dir)
}

/// Where `key` is inside a restored data dir (`member/snap`), if it is inside one.
pub fn data_dir_part<'a>(files: &Files, key: &'a str) -> Option<&'a str> {
    let mut dir = key;
    while let Some((up, _)) = dir.rsplit_once('/') {
        if crate::etcd::read_data_dir(files, up).is_some() {
            return Some(&key[up.len() + 1..]);
        }
        dir = up;
    }
    None
}

/// Why a file cannot be created at `key`, as Go's errors say it (`no such file or
/// directory`), if it cannot: its directory is missing or is a file.
pub fn cannot_create(files: &Files, key: &str) -> Option<&'static str> {
    match node(files, &parent(key)) {
        Some(Node::Dir | Node::DataDir) => None,
        Some(Node::File) => Some("not a directory"),
        None => Some("no such file or directory"),
    }
}

fn is_dir(files: &Files, key: &str) -> bool {
    matches!(node(files, key), Some(Node::Dir | Node::DataDir))
}

/// The names directly inside directory `dir`, sorted (what `ls DIR` prints).
pub fn children(files: &Files, dir: &str) -> Vec<String> {
    let mut names: Vec<String> = keys_under(files, dir)
        .iter()
        .filter_map(|k| k[inside(dir).len()..].split('/').next())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    for system in SYSTEM_DIRS {
        if parent(system) == dir && *system != "/" && key(system) == *system {
            names.push(last_part(system).to_string());
        }
    }
    if files.get(dir).is_some() && node(files, dir) == Some(Node::DataDir) {
        names.push("member".to_string());
    }
    if let Some((up, within)) = dir.rsplit_once('/') {
        if within == "member" && node(files, up) == Some(Node::DataDir) {
            names.extend(["snap".to_string(), "wal".to_string()]);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// A tool's failure: its stderr lines (exit status 1, as these coreutils all exit).
pub type Failure = String;

fn usage_error(tool: &str, what: &str) -> Failure {
    format!("{tool}: {what}\nTry '{tool} --help' for more information.\n")
}

/// Options (letters among `allowed`) and operands; `--` ends the options.
fn options<'a>(
    tool: &str,
    args: &[&'a str],
    allowed: &str,
) -> Result<(String, Vec<&'a str>), Failure> {
    let (mut flags, mut operands, mut ended) = (String::new(), Vec::new(), false);
    for arg in args {
        match arg.strip_prefix('-') {
            Some(letters) if !ended && !letters.is_empty() => {
                if letters == "-" {
                    ended = true;
                    continue;
                }
                if let Some(bad) = letters.chars().find(|c| !allowed.contains(*c)) {
                    return Err(usage_error(tool, &format!("invalid option -- '{bad}'")));
                }
                flags.push_str(letters);
            }
            _ => operands.push(*arg),
        }
    }
    Ok((flags, operands))
}

/// `mkdir [-p] DIR...`.
pub fn mkdir(files: &mut Files, args: &[&str]) -> Result<(), Failure> {
    let (flags, dirs) = options("mkdir", args, "pv")?;
    if dirs.is_empty() {
        return Err(usage_error("mkdir", "missing operand"));
    }
    let parents = flags.contains('p');
    let mut failed = String::new();
    for dir in dirs {
        let k = key(dir);
        // GNU's `mkdir -p` walks a path past PATH_MAX one directory at a time; here every
        // directory is kept under its whole path, which would cost the square of its depth.
        let why = match node(files, &k) {
            _ if name_too_long(dir) => Some("File name too long"),
            Some(Node::Dir | Node::DataDir) if parents => continue,
            Some(_) => Some("File exists"),
            None if parents => make_parents(files, &k),
            None => match node(files, &parent(&k)) {
                None => Some("No such file or directory"),
                Some(Node::File) => Some("Not a directory"),
                Some(_) => None,
            },
        };
        match why {
            Some(why) => {
                failed.push_str(&format!("mkdir: cannot create directory ‘{dir}’: {why}\n"))
            }
            None => {
                files.insert(format!("{}/", k.trim_end_matches('/')), Vec::new());
            }
        }
    }
    done(failed)
}

/// Makes the missing ancestors of `k` (`mkdir -p`); a file on the way stops it.
fn make_parents(files: &mut Files, k: &str) -> Option<&'static str> {
    let up = parent(k);
    match node(files, &up) {
        Some(Node::File) => Some("Not a directory"),
        Some(_) => None,
        None => {
            let why = make_parents(files, &up);
            if why.is_none() {
                files.insert(format!("{up}/"), Vec::new());
            }
            why
        }
    }
}

fn done(failed: String) -> Result<(), Failure> {
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed)
    }
}

/// Where `mv`/`cp` put `source` given `target`: into it if it is a directory.
fn destination(files: &Files, source: &str, target: &str) -> String {
    let t = key(target);
    if is_dir(files, &t) {
        join(&t, last_part(&key(source)))
    } else {
        t
    }
}

/// The operands of `mv`/`cp`: sources and a target (a directory when there are several).
fn sources_and_target<'a>(
    tool: &str,
    operands: &[&'a str],
) -> Result<(Vec<&'a str>, &'a str), Failure> {
    match operands {
        [] => Err(usage_error(tool, "missing file operand")),
        [one] => Err(usage_error(
            tool,
            &format!("missing destination file operand after '{one}'"),
        )),
        [sources @ .., target] => Ok((sources.to_vec(), target)),
    }
}

/// Why `source` cannot go to `dest` (`mv`/`cp`), if it cannot.
fn refusal(files: &Files, tool: &str, source: &str, target: &str, dest: &str) -> Option<String> {
    let s = key(source);
    let Some(kind) = node(files, &s) else {
        return Some(format!(
            "{tool}: cannot stat '{source}': No such file or directory\n"
        ));
    };
    if kind == Node::Dir && (dest == s || dest.starts_with(&inside(&s))) && !s.is_empty() {
        let verb = if tool == "mv" { "move" } else { "copy" };
        return Some(format!(
            "{tool}: cannot {verb} '{source}' to a subdirectory of itself, '{target}'\n"
        ));
    }
    if kind != Node::File && node(files, dest) == Some(Node::File) {
        return Some(format!(
            "{tool}: cannot overwrite non-directory '{target}' with directory '{source}'\n"
        ));
    }
    match node(files, &parent(dest)) {
        Some(Node::Dir | Node::DataDir) => None,
        other => {
            let why = if other.is_some() {
                "Not a directory"
            } else {
                "No such file or directory"
            };
            let verb = if tool == "mv" {
                "cannot move"
            } else {
                "cannot create regular file"
            };
            Some(if tool == "mv" {
                format!("mv: {verb} '{source}' to '{target}': {why}\n")
            } else {
                format!("cp: {verb} '{target}': {why}\n")
            })
        }
    }
}

/// Every key of the tree at `s` (itself, its marker, what is under it) and its new key at `d`.
fn tree_moves(files: &Files, s: &str, d: &str) -> Vec<(String, String)> {
    let mut moves: Vec<(String, String)> = keys_under(files, s)
        .into_iter()
        .map(|k| {
            let rest = k[inside(s).len()..].to_string();
            (k, format!("{}{rest}", inside(d)))
        })
        .collect();
    if files.contains_key(s) {
        moves.push((s.to_string(), d.to_string()));
    }
    moves
}

/// `mv SOURCE... TARGET`.
pub fn mv(files: &mut Files, args: &[&str]) -> Result<(), Failure> {
    let (_, operands) = options("mv", args, "fiv")?;
    let (sources, target) = sources_and_target("mv", &operands)?;
    let mut failed = String::new();
    for source in sources {
        let dest = destination(files, source, target);
        if let Some(why) = refusal(files, "mv", source, target, &dest) {
            failed.push_str(&why);
            continue;
        }
        let s = key(source);
        let moves = tree_moves(files, &s, &dest);
        let taken: Vec<(String, Vec<u8>)> = moves
            .iter()
            .filter_map(|(from, to)| Some((to.clone(), files.remove(from)?)))
            .collect();
        files.extend(taken);
        if node(files, &s).is_none() && node(files, &dest).is_none() {
            // An empty directory made by the machine itself: its marker goes along.
            files.insert(format!("{dest}/"), Vec::new());
        }
    }
    done(failed)
}

/// `cp [-r] SOURCE... TARGET`.
pub fn cp(files: &mut Files, args: &[&str]) -> Result<(), Failure> {
    let (flags, operands) = options("cp", args, "rRafpv")?;
    let (sources, target) = sources_and_target("cp", &operands)?;
    let recursive = flags.contains(['r', 'R', 'a']);
    let mut failed = String::new();
    for source in sources {
        let s = key(source);
        if is_dir(files, &s) && !recursive {
            failed.push_str(&format!(
                "cp: -r not specified; omitting directory '{source}'\n"
            ));
            continue;
        }
        let dest = destination(files, source, target);
        if let Some(why) = refusal(files, "cp", source, target, &dest) {
            failed.push_str(&why);
            continue;
        }
        let copies: Vec<(String, Vec<u8>)> = tree_moves(files, &s, &dest)
            .into_iter()
            .filter_map(|(from, to)| Some((to, files.get(&from)?.clone())))
            .collect();
        files.extend(copies);
        if node(files, &dest).is_none() {
            files.insert(format!("{dest}/"), Vec::new());
        }
    }
    done(failed)
}

/// `rm [-r] [-f] FILE...`.
pub fn rm(files: &mut Files, args: &[&str]) -> Result<(), Failure> {
    let (flags, operands) = options("rm", args, "rRfdv")?;
    let force = flags.contains('f');
    if operands.is_empty() && !force {
        return Err(usage_error("rm", "missing operand"));
    }
    let recursive = flags.contains(['r', 'R']);
    let mut failed = String::new();
    for name in operands {
        let k = key(name);
        match node(files, &k) {
            None if force => {}
            None => failed.push_str(&format!(
                "rm: cannot remove '{name}': No such file or directory\n"
            )),
            Some(Node::Dir | Node::DataDir) if !recursive => {
                failed.push_str(&format!("rm: cannot remove '{name}': Is a directory\n"));
            }
            Some(_) if k.is_empty() || SYSTEM_DIRS.contains(&k.as_str()) => {
                // The machine's own directories stay (a slip here would leave no /tmp).
                failed.push_str(&format!("rm: refusing to remove '{name}': Raft Lab keeps the machine's own directories\n"));
            }
            Some(_) => {
                for (from, _) in tree_moves(files, &k, &k) {
                    files.remove(&from);
                }
            }
        }
    }
    done(failed)
}

/// `cat FILE...`: the files' bytes, one after another (with `stdin` for `-`).
pub fn cat(files: &Files, args: &[&str], stdin: &str) -> (Vec<u8>, Result<(), Failure>) {
    let (mut out, mut failed) = (Vec::new(), String::new());
    let (_, names) = match options("cat", args, "") {
        Ok(parsed) => parsed,
        Err(e) => return (out, Err(e)),
    };
    if names.is_empty() {
        return (stdin.as_bytes().to_vec(), Ok(()));
    }
    for name in names {
        if name == "-" {
            out.extend_from_slice(stdin.as_bytes());
            continue;
        }
        let k = key(name);
        match node(files, &k) {
            Some(Node::File) => out.extend_from_slice(&files[&k]),
            Some(_) => failed.push_str(&format!("cat: {name}: Is a directory\n")),
            None => failed.push_str(&format!("cat: {name}: No such file or directory\n")),
        }
    }
    (out, done(failed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Files {
        names
            .iter()
            .map(|n| ((*n).to_string(), b"x".to_vec()))
            .collect()
    }

    #[test]
    fn keys_resolve_dots_home_and_slashes() {
        assert_eq!(key("./backup.db"), "backup.db");
        assert_eq!(key("/root/backup.db"), "backup.db");
        assert_eq!(key("~/a/../b/"), "b");
        assert_eq!(key("/opt//etcd-backup/"), "/opt/etcd-backup");
        assert_eq!(key("/root"), "");
        assert_eq!(key(".."), "/");
        assert_eq!(parent("/opt"), "/");
        assert_eq!(parent("/opt/x"), "/opt");
        assert_eq!(parent("a"), "");
    }

    /// Fuzz input 950,443 of the script target (seed 1): a 1.6 MB `mkdir -p` path of
    /// 100,000 directories grew the process past 4 GiB, every ancestor kept under its path.
    #[test]
    fn a_path_or_name_past_linux_limits_is_too_long() {
        let mut f = Files::new();
        let deep = "/opt/etcd-backup".repeat(100_000);
        let long_name = format!("/tmp/{}", "b".repeat(256));
        for dir in [deep.as_str(), long_name.as_str()] {
            for args in [vec!["-p", dir], vec![dir]] {
                assert_eq!(
                    mkdir(&mut f, &args).unwrap_err(),
                    format!("mkdir: cannot create directory ‘{dir}’: File name too long\n")
                );
            }
        }
        assert!(f.is_empty(), "nothing made");
        let (longest, name) = ("/a".repeat(2047), "c".repeat(255));
        mkdir(&mut f, &["-p", &longest, &format!("/tmp/{name}")]).unwrap();
        assert_eq!(node(&f, &longest), Some(Node::Dir));
        assert_eq!(children(&f, "/tmp"), [name]);
    }

    #[test]
    fn mkdir_p_then_files_in_it() {
        let mut f = Files::new();
        mkdir(&mut f, &["-p", "/opt/etcd-backup"]).unwrap();
        assert_eq!(node(&f, "/opt/etcd-backup"), Some(Node::Dir));
        assert_eq!(children(&f, "/opt"), ["etcd-backup"]);
        mkdir(&mut f, &["-p", "/opt/etcd-backup"]).unwrap();
        assert_eq!(
            mkdir(&mut f, &["/opt/etcd-backup"]).unwrap_err(),
            "mkdir: cannot create directory ‘/opt/etcd-backup’: File exists\n"
        );
        assert_eq!(
            mkdir(&mut f, &["a/b"]).unwrap_err(),
            "mkdir: cannot create directory ‘a/b’: No such file or directory\n"
        );
        mkdir(&mut f, &["-p", "a/b/c"]).unwrap();
        assert_eq!(children(&f, ""), ["a"]);
        assert_eq!(children(&f, "a/b"), ["c"]);
        assert_eq!(
            mkdir(&mut f, &[]).unwrap_err(),
            "mkdir: missing operand\nTry 'mkdir --help' for more information.\n"
        );
        assert_eq!(
            mkdir(&mut f, &["-x", "d"]).unwrap_err(),
            "mkdir: invalid option -- 'x'\nTry 'mkdir --help' for more information.\n"
        );
        f.insert("plain".into(), b"x".to_vec());
        assert_eq!(
            mkdir(&mut f, &["plain/x"]).unwrap_err(),
            "mkdir: cannot create directory ‘plain/x’: Not a directory\n"
        );
    }

    #[test]
    fn mv_into_a_directory_and_a_directory_tree() {
        let mut f = files(&[
            "/etc/kubernetes/manifests/etcd.yaml",
            "/etc/kubernetes/manifests/kube-apiserver.yaml",
            "/var/lib/etcd/member/snap/db",
        ]);
        mv(&mut f, &["/etc/kubernetes/manifests/etcd.yaml", "/tmp/"]).unwrap();
        assert!(f.contains_key("/tmp/etcd.yaml"));
        assert_eq!(
            children(&f, "/etc/kubernetes/manifests"),
            ["kube-apiserver.yaml"]
        );
        mv(&mut f, &["/var/lib/etcd", "/var/lib/etcd.bak"]).unwrap();
        assert!(f.contains_key("/var/lib/etcd.bak/member/snap/db"));
        assert_eq!(node(&f, "/var/lib/etcd"), None);
        assert_eq!(
            mv(
                &mut f,
                &["/tmp/etcd-v3.6.4-linux-amd64/etcdctl", "/usr/local/bin/"]
            )
            .unwrap_err(),
            "mv: cannot stat '/tmp/etcd-v3.6.4-linux-amd64/etcdctl': No such file or directory\n"
        );
        assert_eq!(
            mv(&mut f, &["/tmp/etcd.yaml", "nodir/x"]).unwrap_err(),
            "mv: cannot move '/tmp/etcd.yaml' to 'nodir/x': No such file or directory\n"
        );
        assert_eq!(
            mv(&mut f, &["/var/lib/etcd.bak", "/var/lib/etcd.bak/member"]).unwrap_err(),
            "mv: cannot move '/var/lib/etcd.bak' to a subdirectory of itself, '/var/lib/etcd.bak/member'\n"
        );
        assert_eq!(
            mv(&mut f, &["x"]).unwrap_err(),
            "mv: missing destination file operand after 'x'\nTry 'mv --help' for more information.\n"
        );
        assert_eq!(
            mv(&mut f, &["/var/lib/etcd.bak", "/tmp/etcd.yaml"]).unwrap_err(),
            "mv: cannot overwrite non-directory '/tmp/etcd.yaml' with directory '/var/lib/etcd.bak'\n"
        );
    }

    #[test]
    fn cp_rm_and_cat() {
        let mut f = files(&["a.txt", "d/x"]);
        cp(&mut f, &["a.txt", "b.txt"]).unwrap();
        assert_eq!(
            cp(&mut f, &["d", "e"]).unwrap_err(),
            "cp: -r not specified; omitting directory 'd'\n"
        );
        cp(&mut f, &["-r", "d", "e"]).unwrap();
        assert!(f.contains_key("e/x") && f.contains_key("b.txt"));
        assert_eq!(
            cp(&mut f, &["nothere", "x"]).unwrap_err(),
            "cp: cannot stat 'nothere': No such file or directory\n"
        );
        assert_eq!(
            rm(&mut f, &["d"]).unwrap_err(),
            "rm: cannot remove 'd': Is a directory\n"
        );
        assert_eq!(
            rm(&mut f, &["nothere"]).unwrap_err(),
            "rm: cannot remove 'nothere': No such file or directory\n"
        );
        rm(&mut f, &["-rf", "d", "nothere", "b.txt"]).unwrap();
        assert_eq!(children(&f, ""), ["a.txt", "e"]);
        assert!(rm(&mut f, &["-rf", "/tmp"]).is_err());
        assert_eq!(node(&f, "/tmp"), Some(Node::Dir));
        assert_eq!(
            rm(&mut f, &["-x"]).unwrap_err(),
            "rm: invalid option -- 'x'\nTry 'rm --help' for more information.\n"
        );
        let (out, ok) = cat(&f, &["a.txt", "-", "e", "none"], "in\n");
        assert_eq!(out, b"xin\n");
        assert_eq!(
            ok.unwrap_err(),
            "cat: e: Is a directory\ncat: none: No such file or directory\n"
        );
    }

    #[test]
    fn the_machine_has_its_own_directories() {
        let f = Files::new();
        assert_eq!(node(&f, "/tmp"), Some(Node::Dir));
        assert_eq!(node(&f, ""), Some(Node::Dir));
        assert!(children(&f, "/").contains(&"tmp".to_string()));
        assert!(
            children(&f, "").is_empty(),
            "/root is the working directory"
        );
        assert_eq!(children(&f, "/usr"), ["bin", "local"]);
    }
}
