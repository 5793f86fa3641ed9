//! The bit of a shell the course material types around the tools: variables (`rev=…`,
//! `"$rev"`), command substitution (`$(etcdctl endpoint status -w json | jq …)`), `echo`, and
//! `date` on the virtual clock (`snapshot-$(date +%Y%m%d).db`).

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

/// `NAME=value` (a bare assignment): the name and the unexpanded value.
pub fn assignment(line: &str) -> Option<(&str, &str)> {
    let (name, value) = line.split_once('=')?;
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some((name, value))
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
                    let end = closing(&chars, i + 1)
                        .ok_or("unexpected EOF while looking for matching `)'")?;
                    let inner: String = chars[i + 2..end].iter().collect();
                    let output = substitute(&inner);
                    out.push_str(&literal(output.trim_end_matches('\n')));
                    i = end + 1;
                    continue;
                }
                Some('{') => {
                    let end = chars[i..]
                        .iter()
                        .position(|c| *c == '}')
                        .ok_or("unexpected EOF while looking for matching `}'")?;
                    let name: String = chars[i + 2..i + end].iter().collect();
                    out.push_str(&literal(&var(&name)));
                    i += end + 1;
                    continue;
                }
                Some(n) if n.is_ascii_alphabetic() || *n == '_' => {
                    let len = chars[i + 1..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                        .count();
                    let name: String = chars[i + 1..i + 1 + len].iter().collect();
                    out.push_str(&literal(&var(&name)));
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

/// The index of the `)` that closes the `(` at `open`, skipping quoted text and nesting.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let (mut depth, mut single, mut double) = (0, false, false);
    let mut i = open;
    while i < chars.len() {
        match chars[i] {
            '\\' if !single => i += 1,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '(' if !single && !double => depth += 1,
            ')' if !single && !double => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
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
            Some('F') => out.push_str(&civil.date()),
            Some('T') => out.push_str(&civil.time_of_day()),
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
    fn assignments_are_bare_names() {
        assert_eq!(assignment("rev=$(x)"), Some(("rev", "$(x)")));
        assert_eq!(assignment("_a1=b"), Some(("_a1", "b")));
        assert_eq!(assignment("etcdctl put k=v"), None);
        assert_eq!(assignment("1x=2"), None);
        assert_eq!(assignment("--rev=3"), None);
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
        assert_eq!(e("echo $unset."), "echo .");
        assert_eq!(e("save s-$(date +%Y).db"), "save s-7.db");
        assert_eq!(e("x $(a | jq '.[0]' \"(\") y"), "x 7 y");
        assert_eq!(e(r"echo \$rev"), r"echo \$rev");
        assert_eq!(ran, ["date +%Y", "a | jq '.[0]' \"(\""]);
        // What an expansion yields stays one literal piece for the word splitter.
        let quoted = expand("echo $(x)", &vars, &mut |_| "it's \"q\"".into()).unwrap();
        assert_eq!(shlex::split(&quoted).unwrap(), ["echo", "it's", "\"q\""]);
        assert!(expand("echo $(oops", &vars, &mut |_| String::new()).is_err());
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
