//! Command-line flags the way etcdctl's cobra/pflag parse them: `--name=value`, `--name value`,
//! `-x value`, `-xvalue`, bare booleans, `--` ending the flags, flags anywhere among the
//! arguments, and pflag's own error texts. Usage dumps follow etcd's `cobrautl/help.go`
//! template (flag lines aligned by a tab writer that pads with tabs).
//! Hand-written rather than an argument crate's: transcripts compare pflag's exact texts.

use crate::base::parse_go_duration_ms;
use std::collections::BTreeMap;

/// What a flag holds, as pflag names it (it decides quoting in usage and `[=false]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Bool,
    Str,
    Int,
    Duration,
    StrSlice,
    /// pflag's `StringArray`: every use kept as given (no comma splitting).
    StrArray,
}

/// One flag of a command.
#[derive(Clone, Copy, Debug)]
pub struct Flag {
    pub name: &'static str,
    pub short: Option<char>,
    pub kind: Kind,
    /// Default as pflag prints it (`"l"` is shown quoted for strings by the usage writer).
    pub default: &'static str,
    pub usage: &'static str,
}

pub const fn flag(
    name: &'static str,
    kind: Kind,
    default: &'static str,
    usage: &'static str,
) -> Flag {
    Flag {
        name,
        short: None,
        kind,
        default,
        usage,
    }
}

pub const fn short(
    name: &'static str,
    c: char,
    kind: Kind,
    default: &'static str,
    usage: &'static str,
) -> Flag {
    Flag {
        name,
        short: Some(c),
        kind,
        default,
        usage,
    }
}

/// etcdctl's persistent (global) flags, in the order pflag lists them (sorted by name).
pub const GLOBAL_FLAGS: &[Flag] = &[
    flag(
        "cacert",
        Kind::Str,
        "",
        "verify certificates of TLS-enabled secure servers using this CA bundle",
    ),
    flag(
        "cert",
        Kind::Str,
        "",
        "identify secure client using this TLS certificate file",
    ),
    flag(
        "command-timeout",
        Kind::Duration,
        "5s",
        "timeout for short running command (excluding dial timeout)",
    ),
    flag(
        "debug",
        Kind::Bool,
        "false",
        "enable client-side debug logging",
    ),
    flag(
        "dial-timeout",
        Kind::Duration,
        "2s",
        "dial timeout for client connections",
    ),
    short(
        "discovery-srv",
        'd',
        Kind::Str,
        "",
        "domain name to query for SRV records describing cluster endpoints",
    ),
    flag(
        "discovery-srv-name",
        Kind::Str,
        "",
        "service name to query when using DNS discovery",
    ),
    flag(
        "endpoints",
        Kind::StrSlice,
        "[127.0.0.1:2379]",
        "gRPC endpoints",
    ),
    flag(
        "hex",
        Kind::Bool,
        "false",
        "print byte strings as hex encoded strings",
    ),
    flag(
        "insecure-discovery",
        Kind::Bool,
        "true",
        "accept insecure SRV records describing cluster endpoints",
    ),
    flag(
        "insecure-skip-tls-verify",
        Kind::Bool,
        "false",
        "skip server certificate verification (CAUTION: this option should be enabled only for testing purposes)",
    ),
    flag(
        "insecure-transport",
        Kind::Bool,
        "true",
        "disable transport security for client connections",
    ),
    flag(
        "keepalive-time",
        Kind::Duration,
        "2s",
        "keepalive time for client connections",
    ),
    flag(
        "keepalive-timeout",
        Kind::Duration,
        "6s",
        "keepalive timeout for client connections",
    ),
    flag(
        "key",
        Kind::Str,
        "",
        "identify secure client using this TLS key file",
    ),
    flag(
        "password",
        Kind::Str,
        "",
        "password for authentication (if this option is used, --user option shouldn't include password)",
    ),
    flag(
        "user",
        Kind::Str,
        "",
        "username[:password] for authentication (prompt if password is not supplied)",
    ),
    short(
        "write-out",
        'w',
        Kind::Str,
        "simple",
        "set the output format (fields, json, protobuf, simple, table)",
    ),
];

/// A (sub)command: its name path, usage line, one-line description and local flags
/// (without `--help`, which every command has).
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// `get`, `lease grant`...
    pub path: &'static str,
    /// Usage line after `etcdctl ` without ` [flags]`.
    pub use_line: &'static str,
    pub short: &'static str,
    pub flags: &'static [Flag],
}

/// Parsed flags and positional arguments.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    pub values: BTreeMap<&'static str, String>,
    /// Every value of a [`Kind::StrArray`] flag, in order.
    pub arrays: BTreeMap<&'static str, Vec<String>>,
    pub args: Vec<String>,
    /// Positional arguments that came after `--` (cobra's `ArgsLenAtDash`).
    pub dash_at: Option<usize>,
}

impl Parsed {
    pub fn is_set(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    pub fn str(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    pub fn bool(&self, name: &str) -> bool {
        self.values.get(name).is_some_and(|v| v == "true")
    }

    pub fn array(&self, name: &str) -> &[String] {
        self.arrays.get(name).map_or(&[], Vec::as_slice)
    }

    pub fn int(&self, name: &str) -> i64 {
        self.values
            .get(name)
            .and_then(|v| parse_go_int(v).ok())
            .unwrap_or(0)
    }
}

/// A cobra/pflag failure: printed as usage + `Error: ...` twice, exit 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagError(pub String);

fn all_flags(spec: &Spec, globals: bool) -> impl Iterator<Item = &'static Flag> {
    let globals: &'static [Flag] = if globals { GLOBAL_FLAGS } else { &[] };
    spec.flags.iter().chain(globals.iter())
}

fn find_long(spec: &Spec, globals: bool, name: &str) -> Option<&'static Flag> {
    all_flags(spec, globals).find(|f| f.name == name)
}

fn find_short(spec: &Spec, globals: bool, c: char) -> Option<&'static Flag> {
    all_flags(spec, globals).find(|f| f.short == Some(c))
}

const HELP: Flag = Flag {
    name: "help",
    short: Some('h'),
    kind: Kind::Bool,
    default: "false",
    usage: "",
};

/// Parses `args` (the words after the command path) against the command's and global flags.
pub fn parse(spec: &Spec, args: &[String]) -> Result<Parsed, FlagError> {
    parse_with(spec, args, true)
}

/// Parses with the command's own flags only (txn op lines, where no global flag exists).
pub fn parse_local(spec: &Spec, args: &[String]) -> Result<Parsed, FlagError> {
    parse_with(spec, args, false)
}

fn parse_with(spec: &Spec, args: &[String], globals: bool) -> Result<Parsed, FlagError> {
    let mut out = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            out.dash_at = Some(out.args.len());
            out.args.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(rest) = a.strip_prefix("--") {
            let (name, inline) = match rest.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (rest, None),
            };
            let f = if name == "help" {
                &HELP
            } else {
                find_long(spec, globals, name)
                    .ok_or_else(|| FlagError(format!("unknown flag: --{name}")))?
            };
            let value = match (inline, f.kind) {
                (Some(v), _) => v,
                (None, Kind::Bool) => "true".to_string(),
                (None, _) => {
                    if i < args.len() {
                        i += 1;
                        args[i - 1].clone()
                    } else {
                        return Err(FlagError(format!("flag needs an argument: --{name}")));
                    }
                }
            };
            set(&mut out, f, value, &label(f))?;
        } else if a.len() > 1 && a.starts_with('-') {
            let shorts: Vec<char> = a[1..].chars().collect();
            let mut k = 0;
            while k < shorts.len() {
                let c = shorts[k];
                let f = if c == 'h' {
                    &HELP
                } else {
                    find_short(spec, globals, c)
                        .ok_or_else(|| FlagError(format!("unknown shorthand flag: '{c}' in {a}")))?
                };
                let rest: String = shorts[k + 1..].iter().collect();
                let label = label(f);
                if f.kind == Kind::Bool {
                    if let Some(v) = rest.strip_prefix('=') {
                        set(&mut out, f, v.to_string(), &label)?;
                        break;
                    }
                    set(&mut out, f, "true".to_string(), &label)?;
                    k += 1;
                    continue;
                }
                let value = if let Some(v) = rest.strip_prefix('=') {
                    v.to_string()
                } else if !rest.is_empty() {
                    rest
                } else if i < args.len() {
                    i += 1;
                    args[i - 1].clone()
                } else {
                    return Err(FlagError(format!("flag needs an argument: '{c}' in -{c}")));
                };
                set(&mut out, f, value, &label)?;
                break;
            }
        } else {
            out.args.push(a.clone());
        }
    }
    Ok(out)
}

/// How pflag names a flag in its errors, however it was written.
fn label(f: &Flag) -> String {
    match f.short {
        Some(c) => format!("-{c}, --{}", f.name),
        None => format!("--{}", f.name),
    }
}

/// Sets a flag from its `ETCDCTL_*` variable, as pflag's `Set` would from the line.
pub fn set_from_env(out: &mut Parsed, f: &'static Flag, value: &str) -> Result<(), FlagError> {
    set(out, f, value.to_string(), &label(f))
}

fn set(out: &mut Parsed, f: &'static Flag, value: String, label: &str) -> Result<(), FlagError> {
    let invalid = |why: String| {
        FlagError(format!(
            "invalid argument {} for \"{label}\" flag: {why}",
            go_quote(&value)
        ))
    };
    match f.kind {
        Kind::Bool => {
            let v = parse_go_bool(&value).map_err(invalid)?;
            out.values.insert(f.name, v.to_string());
        }
        Kind::Int => {
            parse_go_int(&value).map_err(invalid)?;
            out.values.insert(f.name, value);
        }
        Kind::Duration => {
            parse_go_duration_ms(&value)
                .ok_or_else(|| invalid(format!("time: invalid duration {}", go_quote(&value))))?;
            out.values.insert(f.name, value);
        }
        Kind::StrSlice => {
            // Repeated slice flags append, as pflag's StringSlice does.
            let merged = match out.values.get(f.name) {
                Some(old) => format!("{old},{value}"),
                None => value,
            };
            out.values.insert(f.name, merged);
        }
        Kind::StrArray => {
            out.arrays.entry(f.name).or_default().push(value.clone());
            out.values.insert(f.name, value);
        }
        Kind::Str => {
            out.values.insert(f.name, value);
        }
    }
    Ok(())
}

pub fn parse_go_bool(s: &str) -> Result<bool, String> {
    match s {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!(
            "strconv.ParseBool: parsing {}: invalid syntax",
            go_quote(s)
        )),
    }
}

/// `strconv.ParseInt(s, 10, 64)` with its error text.
pub fn parse_go_int(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseInt: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<i64>().map_err(|_| {
        format!(
            "strconv.ParseInt: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

pub fn parse_go_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

/// `strconv.ParseInt(s, 16, 64)` (lease IDs).
pub fn parse_go_hex(s: &str) -> Result<i64, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!(
            "strconv.ParseInt: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    i64::from_str_radix(s, 16).map_err(|_| {
        format!(
            "strconv.ParseInt: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

/// Go's `strconv.Quote` (`%q`): printable runes kept, the rest escaped.
pub fn go_quote(s: &str) -> String {
    go_quote_bytes(s.as_bytes())
}

pub fn go_quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\x0c' => out.push_str("\\f"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\x0b' => out.push_str("\\v"),
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    out.push_str(&format!("\\x{:02x}", c as u32));
                }
                c if c.is_control() || matches!(c, '\u{ad}' | '\u{2028}' | '\u{2029}') => {
                    if (c as u32) < 0x10000 {
                        out.push_str(&format!("\\u{:04x}", c as u32));
                    } else {
                        out.push_str(&format!("\\U{:08x}", c as u32));
                    }
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out.push('"');
    out
}

/// One flag line of etcd's usage (`cobrautl.etcdFlagUsages`), cells separated by `\t`.
fn flag_line(f: &Flag) -> String {
    let mut s = match f.short {
        Some(c) => format!("  -{c}, --{}", f.name),
        None => format!("      --{}", f.name),
    };
    let bool_like = f.kind == Kind::Bool;
    if bool_like {
        s.push('[');
    }
    if f.kind == Kind::Str {
        s.push_str(&format!("={}", go_quote(f.default)));
    } else {
        s.push_str(&format!("={}", f.default));
    }
    if bool_like {
        s.push(']');
    }
    s.push('\t');
    s.push_str(f.usage);
    s
}

/// Go's `text/tabwriter` with minwidth 1, tabwidth 8, padding 1, padchar `\t`, over lines
/// that have one tab-terminated cell each.
fn tab_align(lines: &[String]) -> String {
    let width = lines
        .iter()
        .map(|l| l.split('\t').next().unwrap_or("").chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let cell = width.div_ceil(8) * 8;
    let mut out = String::new();
    for l in lines {
        let (a, b) = l.split_once('\t').unwrap_or((l, ""));
        let n = cell - a.chars().count();
        out.push_str(a);
        out.push_str(&"\t".repeat(n.div_ceil(8)));
        out.push_str(b);
        out.push('\n');
    }
    out
}

/// The usage dump cobra prints on stdout for a flag error.
/// The commands' long descriptions (cobra's `Long`), which usage shows under DESCRIPTION:
/// only these five have one in etcdctl 3.4.
const LONG: &[(&str, &str)] = &[
    ("put", "Puts the given key into the store.\n\nWhen <value> begins with '-', <value> is interpreted as a flag.\nInsert '--' for workaround:\n\n$ put <key> -- <value>\n$ put -- <key> <value>\n\nIf <value> isn't given as a command line argument and '--ignore-value' is not specified,\nthis command tries to read the value from standard input.\n\nIf <lease> isn't given as a command line argument and '--ignore-lease' is not specified,\nthis command tries to read the value from standard input.\n\nFor example,\n$ cat file | put <key>\nwill store the content of the file to <key>."),
    ("member list", "When --write-out is set to simple, this command prints out comma-separated member lists for each endpoint.\nThe items in the lists are ID, Status, Name, Peer Addrs, Client Addrs, Is Learner."),
    ("member promote", "Promotes a non-voting learner member to a voting one in the cluster."),
    ("endpoint status", "When --write-out is set to simple, this command prints out comma-separated status lists for each endpoint.\nThe items in the lists are endpoint, ID, version, db size, is leader, is learner, raft term, raft index, raft applied index, errors."),
    ("snapshot status", "When --write-out is set to simple, this command prints out comma-separated status lists for each endpoint.\nThe items in the lists are hash, revision, total keys, total size."),
];

/// Flags a group gives all its subcommands (cobra's persistent flags): usage lists them with
/// the global ones.
const PERSISTENT: &[(&str, &str)] = &[("endpoint", "cluster")];

fn persistent(spec: &Spec, f: &Flag) -> bool {
    PERSISTENT
        .iter()
        .any(|(group, name)| spec.path.split(' ').next() == Some(group) && f.name == *name)
}

/// etcdctl's own usage: `head` (its commands), then the global flags as its options.
pub fn root_usage(head: &str) -> String {
    let mut flags: Vec<Flag> = GLOBAL_FLAGS.to_vec();
    flags.push(Flag {
        usage: "help for etcdctl",
        ..HELP
    });
    flags.sort_by_key(|f| f.name);
    let lines: Vec<String> = flags.iter().map(flag_line).collect();
    format!("{head}OPTIONS:\n{}\n", tab_align(&lines))
}

/// A group's usage (`etcdctl lease`, or a subcommand it does not have): its subcommands
/// (name, short), its own flags and the global ones.
pub fn group_usage(
    group: &str,
    (use_line, short): (&str, &str),
    commands: &[(&str, &str)],
    own: &[Flag],
) -> String {
    let mut commands = commands.to_vec();
    commands.sort_unstable();
    let lines: Vec<String> = commands.iter().map(|(n, s)| format!("{n}\t{s}")).collect();
    let listed: String = tab_align(&lines)
        .lines()
        .map(|l| format!("\t{l}\n"))
        .collect();
    let mut flags: Vec<Flag> = own.to_vec();
    flags.push(HELP);
    flags.sort_by_key(|f| f.name);
    let help_usage = format!("help for {group}");
    let local: Vec<String> = flags
        .iter()
        .map(|f| match f.name {
            "help" => flag_line(f) + &help_usage,
            _ => flag_line(f),
        })
        .collect();
    let globals: Vec<String> = GLOBAL_FLAGS.iter().map(flag_line).collect();
    format!(
        "NAME:\n\t{group} - {short}\n\nUSAGE:\n\tetcdctl {use_line} [flags]\n\nAPI VERSION:\n\t3.4\n\n\nCOMMANDS:\n{listed}\nOPTIONS:\n{}\nGLOBAL OPTIONS:\n{}\n",
        tab_align(&local),
        tab_align(&globals)
    )
}

/// etcd's usage template (`cobrautl/help.go`) for one command.
pub fn usage(spec: &Spec) -> String {
    let name = spec.path;
    let mut local: Vec<Flag> = spec
        .flags
        .iter()
        .filter(|f| !persistent(spec, f))
        .copied()
        .collect();
    let last = spec.path.rsplit(' ').next().unwrap_or(spec.path);
    local.push(Flag { usage: "", ..HELP });
    local.sort_by_key(|f| f.name);
    let help_usage = format!("help for {last}");
    let local_lines: Vec<String> = local
        .iter()
        .map(|f| {
            if f.name == "help" {
                flag_line(&Flag { usage: "", ..*f }) + &help_usage
            } else {
                flag_line(f)
            }
        })
        .collect();
    let mut globals: Vec<&Flag> = GLOBAL_FLAGS
        .iter()
        .chain(spec.flags.iter().filter(|f| persistent(spec, f)))
        .collect();
    globals.sort_by_key(|f| f.name);
    let global_lines: Vec<String> = globals.into_iter().map(flag_line).collect();
    let description = LONG
        .iter()
        .find(|(path, _)| *path == spec.path)
        .map(|(_, long)| {
            let lines: Vec<String> = long.lines().map(|l| format!("\t{l}\n")).collect();
            format!("DESCRIPTION:\n{}\n", lines.concat())
        })
        .unwrap_or_default();
    format!(
        "NAME:\n\t{name} - {}\n\nUSAGE:\n\tetcdctl {} [flags]\n\n{description}OPTIONS:\n{}\nGLOBAL OPTIONS:\n{}\n",
        spec.short,
        spec.use_line,
        tab_align(&local_lines),
        tab_align(&global_lines)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET: Spec = Spec {
        path: "get",
        use_line: "get [options] <key> [range_end]",
        short: "Gets the key or a range of keys",
        flags: &[
            flag("consistency", Kind::Str, "l", "x"),
            flag("prefix", Kind::Bool, "false", "x"),
            flag("limit", Kind::Int, "0", "x"),
        ],
    };

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn pflag_forms() {
        let p = parse(&GET, &words("foo --prefix --limit 2 -w json bar")).unwrap();
        assert_eq!(p.args, vec!["foo", "bar"]);
        assert!(p.bool("prefix"));
        assert_eq!(p.int("limit"), 2);
        assert_eq!(p.str("write-out"), Some("json"));
        let p = parse(&GET, &words("-wfields --limit=3 -- -x")).unwrap();
        assert_eq!(p.str("write-out"), Some("fields"));
        assert_eq!(p.args, vec!["-x"]);
        assert_eq!(p.dash_at, Some(0));
    }

    #[test]
    fn pflag_errors() {
        assert_eq!(
            parse(&GET, &words("--count-only")).unwrap_err().0,
            "unknown flag: --count-only"
        );
        assert_eq!(
            parse(&GET, &words("-5")).unwrap_err().0,
            "unknown shorthand flag: '5' in -5"
        );
        assert_eq!(
            parse(&GET, &words("--limit=x")).unwrap_err().0,
            "invalid argument \"x\" for \"--limit\" flag: strconv.ParseInt: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            parse(&GET, &words("--limit")).unwrap_err().0,
            "flag needs an argument: --limit"
        );
    }

    #[test]
    fn quoting_and_durations() {
        assert_eq!(go_quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(go_quote("ключ"), "\"ключ\"");
        assert_eq!(go_quote_bytes(&[0xff, b'a']), "\"\\xffa\"");
    }
}
