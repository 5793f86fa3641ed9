//! The bit of a shell the course material types around the tools: variables (`rev=…`,
//! `"$rev"`), command substitution (`$(etcdctl endpoint status -w json | jq …)`), `echo`, and
//! `date` on the virtual clock (`snapshot-$(date +%Y%m%d).db`).

pub mod env;
pub mod fs;
pub mod pipe;

use super::error::ConsoleError;
use crate::base::time::Civil;
use crate::base::Millis;
use crate::etcd::EPOCH_UNIX_MS;

/// A line split into words as a POSIX shell splits them (quotes, escapes).
pub fn words(line: &str) -> Result<Vec<String>, ConsoleError> {
    shlex::split(line)
        .ok_or_else(|| ConsoleError::Syntax("unterminated quote or trailing backslash".into()))
}

/// What the articles print for installing etcd or reading JSON, which this machine cannot run,
/// and why: (command, message). The simulated machine has no internet and no Python; what
/// they would install is installed.
const ABSENT: &[(&str, &str)] = &[
    ("curl", "Raft Lab's machine has no internet, so nothing can be downloaded. etcdctl 3.4.23 and etcdutl are already installed: skip the download steps (curl, tar, mv, rm) and go on with `etcdctl version`."),
    ("wget", "Raft Lab's machine has no internet, so nothing can be downloaded. etcdctl 3.4.23 and etcdutl are already installed: go on with `etcdctl version`."),
    ("tar", "there is no release tarball to unpack (Raft Lab's machine has no internet to download one). etcdctl 3.4.23 and etcdutl are already installed: go on with `etcdctl version`."),
    ("apt", "Raft Lab's machine has no internet to reach a package archive. etcd-client is already installed (etcdctl 3.4.23, and etcdutl): go on with `etcdctl version`."),
    ("apt-get", "Raft Lab's machine has no internet to reach a package archive. etcd-client is already installed (etcdctl 3.4.23, and etcdutl): go on with `etcdctl version`."),
    ("python3", "there is no Python on Raft Lab's machine. To read a field of etcdctl's JSON, use jq, which is here: rev=$(etcdctl endpoint status -w json | jq '.[0].Status.header.revision')"),
];

/// Why `command` cannot run here, as its stderr line, if it is one the articles print
/// that this machine lacks. Its exit status is bash's for a missing command, 127.
pub fn absent(command: &str) -> Option<String> {
    ABSENT
        .iter()
        .find(|(name, _)| *name == command)
        .map(|(name, why)| format!("{name}: {why}\n"))
}

/// The names of [`absent`] commands (the verbs that print it).
#[cfg(test)]
pub fn absent_names() -> impl Iterator<Item = &'static str> {
    ABSENT.iter().map(|(name, _)| *name)
}

/// The command a pipeline segment runs: its first word after `NAME=value` prefixes and
/// `sudo` (`sudo ETCDCTL_API=3 etcdctl …` is etcdctl). Empty for an empty segment.
pub fn command_name(segment: &str) -> &str {
    command_name_and_rest(segment).next().unwrap_or("")
}

/// The words of a segment from its command on (see [`command_name`]).
pub fn command_name_and_rest(segment: &str) -> impl Iterator<Item = &str> {
    segment
        .split_whitespace()
        .skip_while(|w| env::assignment_word(w).is_some() || *w == "sudo" || *w == "-E")
}

/// Expands `$NAME`, `${NAME}` and `$(command)` outside single quotes, as bash does before it
/// splits words; `substitute` runs a command and returns its standard output. What an
/// expansion yields is kept literal (quotes and backslashes in it are escaped for the word
/// splitter). Errors: an unterminated `$(` or `${`.
pub fn expand(
    line: &str,
    var: &dyn Fn(&str) -> String,
    substitute: &mut dyn FnMut(&str) -> String,
) -> Result<String, String> {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let (mut i, mut single, mut double) = (0, false, false);
    let literal = |text: &str| {
        text.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\'', "\\'")
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if !single => {
                out.push(c);
                if let Some(n) = chars.get(i + 1) {
                    out.push(*n);
                }
                i += 2;
                continue;
            }
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '$' if !single => match chars.get(i + 1) {
                Some('(') => {
                    let (end, depth) = closing(&chars, i + 1)
                        .ok_or("unexpected EOF while looking for matching `)'")?;
                    if depth > MAX_NESTING {
                        return Err(format!(
                            "$(…) nested {depth} deep: Raft Lab runs at most {MAX_NESTING} levels"
                        ));
                    }
                    let inner: String = chars[i + 2..end].iter().collect();
                    let output = substitute(&inner);
                    push_expansion(&mut out, &literal(output.trim_end_matches('\n')))?;
                    i = end + 1;
                    continue;
                }
                Some('{') => {
                    let end = chars[i..]
                        .iter()
                        .position(|c| *c == '}')
                        .ok_or("unexpected EOF while looking for matching `}'")?;
                    let expr: String = chars[i + 2..i + end].iter().collect();
                    push_expansion(&mut out, &literal(&parameter(&expr, var)?))?;
                    i += end + 1;
                    continue;
                }
                Some(n) if n.is_ascii_alphabetic() || *n == '_' => {
                    let len = chars[i + 1..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                        .count();
                    let name: String = chars[i + 1..i + 1 + len].iter().collect();
                    push_expansion(&mut out, &literal(&var(&name)))?;
                    i += 1 + len;
                    continue;
                }
                _ => {}
            },
            _ => {}
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// bash's `${…}` forms the articles' kind of script uses: `NAME`, `#NAME` (its length in
/// characters) and `NAME:-WORD` (WORD when NAME is empty or unset); anything else is bash's
/// "bad substitution".
fn parameter(expr: &str, var: &dyn Fn(&str) -> String) -> Result<String, String> {
    let is_name = |n: &str| {
        n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && n.chars().next().is_some_and(|c| !c.is_ascii_digit())
    };
    if let Some(name) = expr.strip_prefix('#').filter(|n| is_name(n)) {
        return Ok(var(name).chars().count().to_string());
    }
    if let Some((name, word)) = expr.split_once(":-").filter(|(n, _)| is_name(n)) {
        let value = var(name);
        return Ok(if value.is_empty() {
            word.to_string()
        } else {
            value
        });
    }
    if is_name(expr) {
        Ok(var(expr))
    } else {
        Err(format!("${{{expr}}}: bad substitution"))
    }
}

/// The words of `line` before any expansion, split at blanks outside quotes, `$(…)` and
/// `${…}` (where bash finds the assignments of a line). None: an unterminated one.
pub fn raw_words(line: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = line.chars().collect();
    let (mut words, mut word) = (Vec::new(), String::new());
    let (mut i, mut single, mut double) = (0, false, false);
    while i < chars.len() {
        let c = chars[i];
        let mut end = i;
        match c {
            '\\' if !single => end = (i + 1).min(chars.len() - 1),
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '$' if !single && chars.get(i + 1) == Some(&'(') => end = closing(&chars, i + 1)?.0,
            '$' if !single && chars.get(i + 1) == Some(&'{') => {
                end = i + chars[i..].iter().position(|c| *c == '}')?;
            }
            c if c.is_whitespace() && !single && !double => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                i += 1;
                continue;
            }
            _ => {}
        }
        if end == i {
            word.push(c);
        } else {
            word.extend(&chars[i..=end]);
        }
        i = end + 1;
    }
    if single || double {
        return None;
    }
    if !word.is_empty() {
        words.push(word);
    }
    Some(words)
}

/// How deep `$(…)` and parentheses may nest in one line: each level is a command run inside
/// the one around it, and thousands of them (a fuzzed paste) would overflow the page's stack.
const MAX_NESTING: usize = 32;

/// How long a line may grow as its variables and substitutions expand: bash has no limit,
/// but a variable doubled in a loop reaches hundreds of megabytes in a few lines, and the
/// page would freeze copying it (the API server's 3 MiB request body still fits, thrice).
const MAX_EXPANDED_BYTES: usize = 8 << 20;

/// `out` with `text` after it, unless that makes it longer than [`MAX_EXPANDED_BYTES`].
fn push_expansion(out: &mut String, text: &str) -> Result<(), String> {
    if out.len() + text.len() > MAX_EXPANDED_BYTES {
        return Err(format!(
            "expansion longer than {} MiB: Raft Lab runs lines of at most {} MiB",
            MAX_EXPANDED_BYTES >> 20,
            MAX_EXPANDED_BYTES >> 20
        ));
    }
    out.push_str(text);
    Ok(())
}

/// The `)` closing the `(` at `open`, and how deep parentheses nest up to it.
fn closing(chars: &[char], open: usize) -> Option<(usize, usize)> {
    let (mut depth, mut deepest, mut single, mut double) = (0, 0, false, false);
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' if !single => i += 1,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '(' if !single && !double => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            ')' if !single && !double => {
                depth -= 1;
                if depth == 0 {
                    return Some((i, deepest));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// `date [+FORMAT]` at virtual time `now` (UTC): `%Y %m %d %H %M %S %s %F %T %%`; without a
/// format, coreutils' `Thu Jan  1 00:00:05 UTC 2026`.
pub fn date(args: &[&str], now: Millis) -> Result<String, String> {
    let unix_s = (EPOCH_UNIX_MS + now) / 1000;
    let civil = Civil::from_unix_s(unix_s as i64);
    let format = match args {
        [] => "%a %b %e %H:%M:%S UTC %Y",
        [f] if f.starts_with('+') => &f[1..],
        [other, ..] => return Err(format!("date: invalid date '{other}'")),
    };
    let mut out = String::new();
    let mut it = format.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('Y') => out.push_str(&format!("{:04}", civil.year)),
            Some('m') => out.push_str(&format!("{:02}", civil.month)),
            Some('d') => out.push_str(&format!("{:02}", civil.day)),
            Some('e') => out.push_str(&format!("{:>2}", civil.day)),
            Some('H') => out.push_str(&format!("{:02}", civil.hour)),
            Some('M') => out.push_str(&format!("{:02}", civil.minute)),
            Some('S') => out.push_str(&format!("{:02}", civil.second)),
            Some('s') => out.push_str(&unix_s.to_string()),
            Some('F') => out.push_str(&civil.date().to_string()),
            Some('T') => out.push_str(&civil.time_of_day().to_string()),
            Some('a') => out.push_str(civil.weekday_abbrev()),
            Some('b') => out.push_str(civil.month_abbrev()),
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                out.push(other);
            }
            None => out.push('%'),
        }
    }
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> String {
        match name {
            "rev" => "42".into(),
            "path" => "a b".into(),
            _ => String::new(),
        }
    }

    #[test]
    fn raw_words_keep_substitutions_whole() {
        assert_eq!(
            raw_words("rev=$(etcdctl endpoint status -w json | jq '.[0]') x=\"a b\"").unwrap(),
            [
                "rev=$(etcdctl endpoint status -w json | jq '.[0]')",
                "x=\"a b\""
            ]
        );
        assert_eq!(raw_words("a=${b c} d").unwrap(), ["a=${b c}", "d"]);
        assert_eq!(raw_words(r"a\ b").unwrap(), [r"a\ b"]);
        assert!(raw_words("x=$(oops").is_none());
        assert!(raw_words("x='oops").is_none());
    }

    #[test]
    fn the_command_of_a_segment_skips_prefixes_and_sudo() {
        assert_eq!(command_name("sudo ETCDCTL_API=3 etcdctl get k"), "etcdctl");
        assert_eq!(command_name("A=1 B=2 kubectl get pods"), "kubectl");
        assert_eq!(command_name("sudo -E crictl ps"), "crictl");
        assert_eq!(command_name("etcdctl put k=v x"), "etcdctl");
        assert_eq!(command_name("  "), "");
    }

    #[test]
    fn variables_and_substitutions_expand_outside_single_quotes() {
        let mut ran = Vec::new();
        let mut e = |line: &str| {
            expand(line, &vars, &mut |cmd: &str| {
                ran.push(cmd.to_string());
                "7\n\n".to_string()
            })
            .unwrap()
        };
        assert_eq!(e("etcdctl compact \"$rev\""), "etcdctl compact \"42\"");
        assert_eq!(e("echo ${rev}x '$rev'"), "echo 42x '$rev'");
        assert_eq!(
            e("echo ${#rev} ${#none} ${none:-v3.6.4} ${rev:-0}"),
            "echo 2 0 v3.6.4 42"
        );
        assert_eq!(e("echo $unset."), "echo .");
        assert_eq!(e("save s-$(date +%Y).db"), "save s-7.db");
        assert_eq!(e("x $(a | jq '.[0]' \"(\") y"), "x 7 y");
        assert_eq!(e(r"echo \$rev"), r"echo \$rev");
        assert_eq!(ran, ["date +%Y", "a | jq '.[0]' \"(\""]);
        // What an expansion yields stays one literal piece for the word splitter.
        let quoted = expand("echo $(x)", &vars, &mut |_| "it's \"q\"".into()).unwrap();
        assert_eq!(shlex::split(&quoted).unwrap(), ["echo", "it's", "\"q\""]);
        assert!(expand("echo $(oops", &vars, &mut |_| String::new()).is_err());
        assert_eq!(
            expand("echo ${rev x}", &vars, &mut |_| String::new()),
            Err("${rev x}: bad substitution".to_string())
        );
    }

    #[test]
    fn date_reads_the_virtual_clock() {
        assert_eq!(date(&["+%Y%m%d"], 0).unwrap(), "20260101\n");
        assert_eq!(
            date(&["+%F %T"], 3_725_000).unwrap(),
            "2026-01-01 01:02:05\n"
        );
        assert_eq!(date(&[], 5_000).unwrap(), "Thu Jan  1 00:00:05 UTC 2026\n");
        assert!(date(&["tomorrow"], 0).is_err());
    }
}
