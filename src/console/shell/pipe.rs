//! Shell pipelines in the console: `etcdctl get / --prefix --keys-only | head -30`, as the
//! course material types them. The first command runs in the simulation; what follows it
//! filters its standard output like the coreutils (and jq) of a real shell. As in bash
//! without `pipefail`, the pipeline's status is the last command's, and standard error is not
//! piped.

use std::fmt::Write as _;

use super::fs::{self, Files, Node};

/// Splits a line at the `|` that are outside quotes. One segment: no pipeline.
pub fn split(line: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut quote, mut escaped, mut start) = (None, false, 0);
    for (i, c) in line.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (Some('\''), '\'') => quote = None,
            (Some('\''), _) => {}
            (_, '\\') => escaped = true,
            (Some('"'), '"') => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '|') => {
                parts.push(line[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(line[start..].trim());
    parts
}

/// Runs one filter of a pipeline over `input` (or over the FILE operands it names, read from
/// `files`): (stdout, stderr, exit status).
pub fn filter(words: &[String], input: &str, files: &Files) -> (String, String, i32) {
    let Some((cmd, args)) = words.split_first() else {
        return (
            String::new(),
            "bash: syntax error near unexpected token `|'\n".into(),
            2,
        );
    };
    let result = match cmd.as_str() {
        "head" | "tail" => return head_or_tail_files(cmd, args, input, files),
        "wc" => wc(args, input),
        "grep" => return grep(args, input, files),
        "sort" => sort(args, input),
        "uniq" => uniq(args, input),
        "jq" => jq(args, input),
        "strings" => strings(args, input),
        "base64" => base64_filter(args, input),
        "cat" if args.is_empty() || args == ["-"] => Ok(input.to_string()),
        other => {
            let why =
                super::absent(other).unwrap_or_else(|| format!("{other}: command not found\n"));
            return (String::new(), why, 127);
        }
    };
    match result {
        Ok(out) => (out, String::new(), 0),
        Err(e) => (
            String::new(),
            format!("{e}\n"),
            if cmd == "jq" { 3 } else { 1 },
        ),
    }
}

fn lines(input: &str) -> impl Iterator<Item = &str> {
    input.split_inclusive('\n')
}

/// `-n N`, `-nN`, `-N` or nothing (10).
fn count_arg(cmd: &str, args: &[String]) -> Result<i64, String> {
    let text = match args {
        [] => return Ok(10),
        [n, v] if n == "-n" || n == "--lines" => v.clone(),
        [a] if a.starts_with("-n") => a[2..].to_string(),
        [a] if a.starts_with("--lines=") => a["--lines=".len()..].to_string(),
        [a] if a.starts_with('-') => a[1..].to_string(),
        _ => {
            return Err(format!(
                "{cmd}: reading files is not possible here (only a pipe)"
            ))
        }
    };
    text.trim_start_matches('+')
        .parse::<i64>()
        .map_err(|_| format!("{cmd}: invalid number of lines: ‘{text}’"))
}

/// One operand's text, or the coreutils complaint about it (`-` is standard input).
fn read_operand(files: &Files, name: &str, input: &str) -> Result<String, &'static str> {
    if name == "-" {
        return Ok(input.to_string());
    }
    let k = fs::key(name);
    match fs::node(files, &k) {
        Some(Node::File) => Ok(String::from_utf8_lossy(&files[&k]).into_owned()),
        Some(_) => Err("Is a directory"),
        None => Err("No such file or directory"),
    }
}

/// `head`/`tail` over their FILE operands as coreutils: with several, each under a
/// `==> NAME <==` header; an unreadable one is reported and the status is 1.
fn head_or_tail_files(
    cmd: &str,
    args: &[String],
    input: &str,
    files: &Files,
) -> (String, String, i32) {
    let (mut options, mut names) = (Vec::new(), Vec::new());
    let mut operands = args.iter();
    while let Some(a) = operands.next() {
        if matches!(a.as_str(), "-n" | "-c" | "--lines" | "--bytes") {
            options.push(a.clone());
            options.extend(operands.next().cloned());
        } else if a.starts_with('-') && a.len() > 1 {
            options.push(a.clone());
        } else {
            names.push(a.as_str());
        }
    }
    let several = names.len() > 1;
    if names.is_empty() {
        names.push("-");
    }
    let (mut out, mut err, mut code) = (String::new(), String::new(), 0);
    for (i, name) in names.iter().enumerate() {
        let text = match read_operand(files, name, input) {
            Ok(text) => text,
            Err(why) if why == "Is a directory" => {
                let _ = writeln!(err, "{cmd}: error reading '{name}': {why}");
                code = 1;
                continue;
            }
            Err(why) => {
                let _ = writeln!(err, "{cmd}: cannot open '{name}' for reading: {why}");
                code = 1;
                continue;
            }
        };
        if several {
            let sep = if i > 0 { "\n" } else { "" };
            let shown = if *name == "-" { "standard input" } else { name };
            let _ = writeln!(out, "{sep}==> {shown} <==");
        }
        match head_or_tail(cmd, &options, &text) {
            Ok(part) => out.push_str(&part),
            Err(e) => return (out, format!("{err}{e}\n"), 1),
        }
    }
    (out, err, code)
}

/// `head`/`tail` with `-n N` (lines) or `-c N` (bytes).
fn head_or_tail(cmd: &str, args: &[String], input: &str) -> Result<String, String> {
    if let Some(bytes) = byte_count(cmd, args)? {
        let all = input.as_bytes();
        let n = usize::try_from(bytes.unsigned_abs()).unwrap_or(usize::MAX);
        let kept = match (cmd, bytes >= 0) {
            ("head", true) => &all[..n.min(all.len())],
            ("head", false) => &all[..all.len().saturating_sub(n)],
            _ => &all[all.len().saturating_sub(n)..],
        };
        return Ok(String::from_utf8_lossy(kept).into_owned());
    }
    let n = count_arg(cmd, args)?;
    Ok(if cmd == "head" {
        head(input, n)
    } else {
        tail(input, n)
    })
}

/// `-c N`, `-cN`, `--bytes=N` (with GNU's `k`/`M` suffixes): a count of bytes, if asked.
fn byte_count(cmd: &str, args: &[String]) -> Result<Option<i64>, String> {
    let text = match args {
        [c] if c == "-c" || c == "--bytes" => {
            return Err(format!(
            "{cmd}: option requires an argument -- 'c'\nTry '{cmd} --help' for more information."
        ))
        }
        [c, v] if c == "-c" || c == "--bytes" => v.as_str(),
        [a] if a.starts_with("-c") => &a[2..],
        [a] if a.starts_with("--bytes=") => &a["--bytes=".len()..],
        _ => return Ok(None),
    };
    let (digits, scale) = match text.char_indices().last() {
        Some((i, 'k' | 'K')) => (&text[..i], 1024),
        Some((i, 'M')) => (&text[..i], 1024 * 1024),
        _ => (text, 1),
    };
    digits
        .trim_start_matches('+')
        .parse::<i64>()
        .map(|n| Some(n.saturating_mul(scale)))
        .map_err(|_| format!("{cmd}: invalid number of bytes: ‘{text}’"))
}

/// GNU head: the first n lines; a negative n, all but the last |n|.
fn head(input: &str, n: i64) -> String {
    let all: Vec<&str> = lines(input).collect();
    let keep = if n >= 0 {
        (n as usize).min(all.len())
    } else {
        all.len().saturating_sub(n.unsigned_abs() as usize)
    };
    all[..keep].concat()
}

fn tail(input: &str, n: i64) -> String {
    let all: Vec<&str> = lines(input).collect();
    let from = all.len().saturating_sub(n.max(0) as usize);
    all[from..].concat()
}

/// `wc [-l] [-w] [-c]`: one count alone is printed bare, several in 7-wide columns (what
/// GNU wc does for standard input).
fn wc(args: &[String], input: &str) -> Result<String, String> {
    let mut wanted = Vec::new();
    for a in args {
        match a.as_str() {
            "-l" | "--lines" => wanted.push('l'),
            "-w" | "--words" => wanted.push('w'),
            "-c" | "--bytes" | "-m" | "--chars" => wanted.push('c'),
            other => {
                return Err(format!(
                    "wc: invalid option -- '{}'",
                    other.trim_start_matches('-')
                ))
            }
        }
    }
    if wanted.is_empty() {
        wanted = vec!['l', 'w', 'c'];
    }
    let counts: Vec<usize> = ['l', 'w', 'c']
        .iter()
        .filter(|k| wanted.contains(k))
        .map(|k| match k {
            'l' => input.matches('\n').count(),
            'w' => input.split_whitespace().count(),
            _ => input.len(),
        })
        .collect();
    Ok(match counts.as_slice() {
        [one] => format!("{one}\n"),
        many => {
            let cells: Vec<String> = many.iter().map(|c| format!("{c:>7}")).collect();
            format!("{}\n", cells.join(" "))
        }
    })
}

/// GNU grep's usage error lines.
const GREP_USAGE: &str =
    "Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n";

/// How grep reads its pattern.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Syntax {
    #[default]
    Basic,
    Extended,
    Fixed,
}

/// grep's switches (`-i -v -c -n -o -q` and the pattern's syntax).
#[derive(Clone, Copy, Default)]
struct GrepOptions {
    ignore_case: bool,
    invert: bool,
    count: bool,
    number: bool,
    /// `-o`: each match on its own line, not the line.
    only: bool,
    /// `-q`: nothing printed; the exit status says whether a line matched.
    quiet: bool,
    syntax: Syntax,
}

impl GrepOptions {
    fn set(&mut self, flag: char) -> bool {
        match flag {
            'i' => self.ignore_case = true,
            'v' => self.invert = true,
            'c' => self.count = true,
            'n' => self.number = true,
            'o' => self.only = true,
            'q' => self.quiet = true,
            'F' => self.syntax = Syntax::Fixed,
            'E' => self.syntax = Syntax::Extended,
            'G' => self.syntax = Syntax::Basic,
            _ => return false,
        }
        true
    }
}

/// `grep [-i] [-v] [-c] [-n] [-o] [-q] [-G|-E|-F] PATTERN [FILE...]`: GNU's basic (the
/// default) or extended regular expressions, or a fixed string. Exit status 1 when nothing
/// matched, 2 on bad usage or an unreadable file.
fn grep(args: &[String], input: &str, files: &Files) -> (String, String, i32) {
    let fail = |text: String| (String::new(), text, 2);
    let mut o = GrepOptions::default();
    let (mut pattern, mut names) = (None, Vec::new());
    for a in args {
        match a.as_str() {
            flags if flags.starts_with('-') && flags.len() > 1 => {
                if let Some(other) = flags[1..].chars().find(|f| !o.set(*f)) {
                    return fail(format!("grep: invalid option -- '{other}'\n{GREP_USAGE}"));
                }
            }
            p if pattern.is_none() => pattern = Some(p.to_string()),
            name => names.push(name),
        }
    }
    let Some(pattern) = pattern else {
        return fail(GREP_USAGE.into());
    };
    let re = match compile(&pattern, o.syntax, o.ignore_case) {
        Ok(re) => re,
        Err(e) => return fail(format!("grep: {e}\n")),
    };
    let several = names.len() > 1;
    if names.is_empty() {
        names.push("-");
    }
    let (mut out, mut err, mut hits) = (String::new(), String::new(), 0);
    for name in names {
        let text = match read_operand(files, name, input) {
            Ok(text) => text,
            Err(why) => {
                let _ = writeln!(err, "grep: {name}: {why}");
                continue;
            }
        };
        let shown = if name == "-" {
            "(standard input)"
        } else {
            name
        };
        let prefix = if several {
            format!("{shown}:")
        } else {
            String::new()
        };
        let found = grep_text(&re, &text, o);
        hits += found.0;
        if o.quiet {
            continue;
        } else if o.count {
            let _ = writeln!(out, "{prefix}{}", found.0);
        } else {
            for line in found.1 {
                let _ = writeln!(out, "{prefix}{line}");
            }
        }
    }
    // GNU grep -q exits 0 at the first match, even past a file it could not read.
    let code = match () {
        _ if o.quiet && hits > 0 => 0,
        _ if !err.is_empty() => 2,
        _ if hits > 0 => 0,
        _ => 1,
    };
    (out, err, code)
}

/// The number of selected lines of `text`, and what to print of them: the lines (numbered,
/// if asked), or with `-o` each match of a selected line.
fn grep_text(re: &regex_lite::Regex, text: &str, o: GrepOptions) -> (usize, Vec<String>) {
    let (mut selected, mut printed) = (0, Vec::new());
    let number = |i: usize, s: &str| {
        if o.number && !o.count {
            format!("{}:{s}", i + 1)
        } else {
            s.to_string()
        }
    };
    for (i, line) in lines(text).enumerate() {
        let line = line.trim_end_matches('\n');
        if re.is_match(line) == o.invert {
            continue;
        }
        selected += 1;
        if !o.only {
            printed.push(number(i, line));
        } else if !o.invert {
            // GNU prints the non-empty matches; an inverted -o selects lines but prints none.
            let matches = re.find_iter(line).filter(|m| !m.is_empty());
            printed.extend(matches.map(|m| number(i, m.as_str())));
        }
    }
    (selected, printed)
}

/// The pattern as a regex-lite expression, or GNU grep's complaint about it.
fn compile(pattern: &str, syntax: Syntax, ignore_case: bool) -> Result<regex_lite::Regex, String> {
    let extended = match syntax {
        Syntax::Fixed => regex_lite::escape(pattern),
        Syntax::Extended => pattern.replace("\\<", "\\b").replace("\\>", "\\b"),
        Syntax::Basic => basic_to_extended(pattern),
    };
    regex_lite::RegexBuilder::new(&extended)
        .case_insensitive(ignore_case)
        .build()
        .map_err(|e| {
            let e = e.to_string();
            if e.contains("group") {
                "Unmatched ( or \\(".to_string()
            } else if e.contains("class") {
                "Unmatched [, [^, [:, [., or [=".to_string()
            } else {
                "Invalid regular expression".to_string()
            }
        })
}

/// GNU's basic syntax in extended terms: `\| \+ \? \( \) \{ \}` are the operators there, and
/// the bare characters are literals; `\<`/`\>` are word boundaries.
fn basic_to_extended(pattern: &str) -> String {
    let mut out = String::new();
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(op @ ('|' | '+' | '?' | '(' | ')' | '{' | '}')) => out.push(op),
                Some('<' | '>') => out.push_str("\\b"),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push_str("\\\\"),
            },
            '|' | '+' | '?' | '(' | ')' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '*' if out.is_empty() || out.ends_with('^') => out.push_str("\\*"),
            c => out.push(c),
        }
    }
    out
}

/// `strings [-n N]`: the runs of at least N (4) printable characters, one per line; what
/// shows the readable parts of a protobuf value.
fn strings(args: &[String], input: &str) -> Result<String, String> {
    let min = match args {
        [] => 4,
        [n, v] if n == "-n" => v
            .parse()
            .map_err(|_| format!("strings: invalid minimum string length {v}"))?,
        [a] if a.starts_with("-n") => a[2..]
            .parse()
            .map_err(|_| format!("strings: invalid minimum string length {}", &a[2..]))?,
        _ => return Err("strings: reading files is not possible here (only a pipe)".into()),
    };
    let mut out = String::new();
    for run in input.split(|c: char| !(c.is_ascii_graphic() || c == ' ' || c == '\t')) {
        if run.chars().count() >= min {
            out.push_str(run);
            out.push('\n');
        }
    }
    Ok(out)
}

/// `base64 [-d]` (GNU coreutils: encoded lines wrap at 76 columns). Decoded bytes that are
/// not text show as a terminal would show them, replaced.
fn base64_filter(args: &[String], input: &str) -> Result<String, String> {
    use base64::Engine as _;
    let engine = base64::engine::general_purpose::STANDARD;
    match args {
        [] => {
            let encoded = engine.encode(input.as_bytes());
            let mut out = String::new();
            for chunk in encoded.as_bytes().chunks(76) {
                out.push_str(&String::from_utf8_lossy(chunk));
                out.push('\n');
            }
            Ok(out)
        }
        [d] if d == "-d" || d == "--decode" => {
            let text: String = input.chars().filter(|c| !c.is_whitespace()).collect();
            engine
                .decode(text.as_bytes())
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|_| "base64: invalid input".to_string())
        }
        [other, ..] => Err(format!(
            "base64: invalid option -- '{}'",
            other.trim_start_matches('-')
        )),
    }
}

/// `sort [-r] [-n] [-u]`, in byte order (LC_ALL=C).
fn sort(args: &[String], input: &str) -> Result<String, String> {
    let (mut reverse, mut numeric, mut unique) = (false, false, false);
    for a in args {
        for f in a.trim_start_matches('-').chars() {
            match f {
                'r' => reverse = true,
                'n' => numeric = true,
                'u' => unique = true,
                other => return Err(format!("sort: invalid option -- '{other}'")),
            }
        }
    }
    let mut all: Vec<String> = lines(input)
        .map(|l| l.trim_end_matches('\n').to_string())
        .collect();
    let number = |s: &str| {
        let digits: String = s
            .trim_start()
            .chars()
            .enumerate()
            .take_while(|(i, c)| c.is_ascii_digit() || (*i == 0 && *c == '-') || *c == '.')
            .map(|(_, c)| c)
            .collect();
        digits.parse::<f64>().unwrap_or(0.0)
    };
    if numeric {
        all.sort_by(|a, b| number(a).total_cmp(&number(b)).then_with(|| a.cmp(b)));
    } else {
        all.sort();
    }
    if reverse {
        all.reverse();
    }
    if unique {
        all.dedup();
    }
    Ok(all.iter().map(|l| format!("{l}\n")).collect())
}

/// `uniq [-c]`: adjacent duplicate lines folded.
fn uniq(args: &[String], input: &str) -> Result<String, String> {
    let with_count = match args {
        [] => false,
        [c] if c == "-c" => true,
        [other, ..] => {
            return Err(format!(
                "uniq: invalid option -- '{}'",
                other.trim_start_matches('-')
            ))
        }
    };
    let mut out = String::new();
    let mut groups: Vec<(usize, &str)> = Vec::new();
    for line in lines(input).map(|l| l.trim_end_matches('\n')) {
        match groups.last_mut() {
            Some((n, last)) if *last == line => *n += 1,
            _ => groups.push((1, line)),
        }
    }
    for (n, line) in groups {
        if with_count {
            let _ = writeln!(out, "{n:>7} {line}");
        } else {
            let _ = writeln!(out, "{line}");
        }
    }
    Ok(out)
}

/// `jq [-r] [-c] FILTER` for path filters: `.`, `.a.b`, `.a[0]`, `.a[]`, `.["a b"]`. Output as
/// jq 1.7 prints it: keys in input order, 2-space indentation, numbers as written.
/// A hand-written subset: the course needs only path filters, and a whole jq (jaq) would be a
/// large dependency of the page for them.
fn jq(args: &[String], input: &str) -> Result<String, String> {
    let (mut raw, mut compact, mut filter) = (false, false, None);
    for a in args {
        match a.as_str() {
            "-r" | "--raw-output" => raw = true,
            "-c" | "--compact-output" => compact = true,
            f if filter.is_none() => filter = Some(f.to_string()),
            _ => return Err("jq: error: reading files is not possible here (only a pipe)".into()),
        }
    }
    let filter = filter.unwrap_or_else(|| ".".into());
    let path = parse_path(&filter)?;
    let mut out = String::new();
    let mut p = Parser {
        s: input.as_bytes(),
        i: 0,
        depth: 0,
    };
    loop {
        p.skip_ws();
        if p.i >= p.s.len() {
            break;
        }
        let doc = p.value().map_err(|e| {
            let line = input[..p.i.min(input.len())].matches('\n').count() + 1;
            format!("jq: error (at <stdin>:{line}): Cannot parse input: {e}")
        })?;
        for v in select(&doc, &path)? {
            match (&v, raw) {
                (Json::Str(s), true) => out.push_str(s),
                _ => v.print(&mut out, if compact { None } else { Some(0) }),
            }
            out.push('\n');
        }
    }
    Ok(out)
}

/// A JSON value that keeps its object keys in order and its numbers as written.
// Hand-written: jq prints keys in input order and numbers as given, which serde_json's Value
// (sorted maps here: the crate is built without preserve_order) cannot.
#[derive(Clone, Debug, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Num(_) => "number",
            Json::Str(_) => "string",
            Json::Arr(_) => "array",
            Json::Obj(_) => "object",
        }
    }

    /// `indent`: None for compact output, else the current depth.
    fn print(&self, out: &mut String, indent: Option<usize>) {
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let (open, close, items): (char, char, Vec<(Option<&str>, &Json)>) = match self {
            Json::Null => return out.push_str("null"),
            Json::Bool(b) => return out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => return out.push_str(n),
            Json::Str(s) => return out.push_str(&quote(s)),
            Json::Arr(a) => ('[', ']', a.iter().map(|v| (None, v)).collect()),
            Json::Obj(o) => (
                '{',
                '}',
                o.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(),
            ),
        };
        out.push(open);
        if items.is_empty() {
            out.push(close);
            return;
        }
        let pad = |out: &mut String, depth: usize| {
            out.push('\n');
            out.extend(std::iter::repeat_n(' ', depth * 2));
        };
        for (n, (key, v)) in items.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            if let Some(d) = indent {
                pad(out, d + 1);
            }
            if let Some(k) = key {
                out.push_str(&quote(k));
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
            }
            v.print(out, indent.map(|d| d + 1));
        }
        if let Some(d) = indent {
            pad(out, d);
        }
        out.push(close);
    }
}

/// How deep arrays and objects may nest, as in jq 1.6 (jq 1.7 allows 10,000): the parser,
/// the printer and the value's drop each recurse once a level, and the page's wasm stack is
/// 1 MiB (a pasted `[[[…` 200,000 deep overflowed it).
const MAX_PARSING_DEPTH: usize = 256;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Json, String> {
        self.skip_ws();
        let open = matches!(self.s.get(self.i), Some(b'{' | b'['));
        if open && self.depth >= MAX_PARSING_DEPTH {
            return Err("Exceeds depth limit for parsing".into());
        }
        self.depth += usize::from(open);
        let value = match self.s.get(self.i) {
            None => Err("Unfinished JSON term".into()),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string(),
            Some(_) => self.literal(),
        };
        self.depth -= usize::from(open);
        value
    }

    fn object(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut fields = Vec::new();
        loop {
            self.skip_ws();
            if self.s.get(self.i) == Some(&b'}') && fields.is_empty() {
                self.i += 1;
                return Ok(Json::Obj(fields));
            }
            let Json::Str(key) = self.value()? else {
                return Err("Object keys must be strings".into());
            };
            self.skip_ws();
            self.expect(b':')?;
            fields.push((key, self.value()?));
            if self.separator(b'}')? {
                return Ok(Json::Obj(fields));
            }
        }
    }

    fn array(&mut self) -> Result<Json, String> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            if self.s.get(self.i) == Some(&b']') && items.is_empty() {
                self.i += 1;
                return Ok(Json::Arr(items));
            }
            items.push(self.value()?);
            if self.separator(b']')? {
                return Ok(Json::Arr(items));
            }
        }
    }

    /// After a member: a comma (false: more to come) or the closing bracket (true).
    fn separator(&mut self, close: u8) -> Result<bool, String> {
        self.skip_ws();
        match self.s.get(self.i) {
            Some(b',') => {
                self.i += 1;
                Ok(false)
            }
            Some(c) if *c == close => {
                self.i += 1;
                Ok(true)
            }
            _ => Err("Expected separator between values".into()),
        }
    }

    fn string(&mut self) -> Result<Json, String> {
        let start = self.i;
        self.i += 1;
        while let Some(c) = self.s.get(self.i) {
            self.i += if *c == b'\\' { 2 } else { 1 };
            if *c == b'"' {
                let literal = &self.s[start..self.i];
                return serde_json::from_slice::<String>(literal)
                    .map(Json::Str)
                    .map_err(|e| e.to_string());
            }
        }
        Err("Unfinished string".into())
    }

    fn literal(&mut self) -> Result<Json, String> {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || b"+-.".contains(c))
        {
            self.i += 1;
        }
        let word = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        match word {
            "null" => Ok(Json::Null),
            "true" => Ok(Json::Bool(true)),
            "false" => Ok(Json::Bool(false)),
            w if !w.is_empty() && w.parse::<f64>().is_ok() => Ok(Json::Num(w.into())),
            _ => {
                self.i = self.i.max(start + 1);
                Err("Invalid literal".into())
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("Expected '{}'", c as char))
        }
    }
}

#[derive(Debug, PartialEq)]
enum Step {
    Key(String),
    Index(i64),
    Each,
}

fn parse_path(filter: &str) -> Result<Vec<Step>, String> {
    let unsupported = || {
        format!(
            "jq: error: {filter:?}: this console's jq knows path filters only (., .a.b, .a[0], .a[])"
        )
    };
    let f = filter.trim();
    if !f.starts_with('.') {
        return Err(unsupported());
    }
    let mut steps = Vec::new();
    let mut rest = &f[1..];
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').ok_or_else(unsupported)?;
            let inner = &r[..end];
            steps.push(if inner.is_empty() {
                Step::Each
            } else if let Ok(i) = inner.parse::<i64>() {
                Step::Index(i)
            } else if inner.len() >= 2 && inner.starts_with('"') && inner.ends_with('"') {
                Step::Key(inner[1..inner.len() - 1].to_string())
            } else {
                return Err(unsupported());
            });
            rest = &r[end + 1..];
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(r.len());
            if end == 0 {
                return Err(unsupported());
            }
            steps.push(Step::Key(r[..end].to_string()));
            rest = &r[end..];
        }
    }
    Ok(steps)
}

fn select(v: &Json, path: &[Step]) -> Result<Vec<Json>, String> {
    // Depth first as jq walks a path, with a stack of its own: recursing once a step
    // overflowed the stack on a pasted path of 100,000 steps (fuzz etcdctl seed 1, input
    // 5217877).
    let mut out = Vec::new();
    let mut todo = vec![(v.clone(), 0)];
    while let Some((v, depth)) = todo.pop() {
        let Some(step) = path.get(depth) else {
            out.push(v);
            continue;
        };
        let next = select_step(&v, step)?;
        todo.extend(next.into_iter().rev().map(|n| (n, depth + 1)));
    }
    Ok(out)
}

/// What one step of a path selects from `v`.
fn select_step(v: &Json, step: &Step) -> Result<Vec<Json>, String> {
    Ok(match (step, v) {
        (Step::Key(k), Json::Obj(m)) => vec![m
            .iter()
            .find(|(key, _)| key == k)
            .map_or(Json::Null, |(_, v)| v.clone())],
        (Step::Key(_) | Step::Index(_), Json::Null) => vec![Json::Null],
        (Step::Index(i), Json::Arr(a)) => {
            let at = if *i < 0 { a.len() as i64 + i } else { *i };
            vec![usize::try_from(at)
                .ok()
                .and_then(|i| a.get(i))
                .cloned()
                .unwrap_or(Json::Null)]
        }
        (Step::Each, Json::Arr(a)) => a.clone(),
        (Step::Each, Json::Obj(m)) => m.iter().map(|(_, v)| v.clone()).collect(),
        (Step::Key(k), other) => {
            return Err(format!(
                "jq: error (at <stdin>:0): Cannot index {} with \"{k}\"",
                other.kind()
            ))
        }
        (Step::Index(_), other) => {
            return Err(format!(
                "jq: error (at <stdin>:0): Cannot index {} with number",
                other.kind()
            ))
        }
        (Step::Each, other) => {
            return Err(format!(
                "jq: error (at <stdin>:0): Cannot iterate over {}",
                other.kind()
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(filter_line: &str, input: &str) -> (String, String, i32) {
        let words = shlex::split(filter_line).unwrap();
        filter(&words, input, &Files::new())
    }

    #[test]
    fn splits_at_unquoted_bars_only() {
        assert_eq!(split("a | b |c"), ["a", "b", "c"]);
        assert_eq!(split("put k 'a|b' | wc -l"), ["put k 'a|b'", "wc -l"]);
        assert_eq!(split(r#"put k "x|y""#), [r#"put k "x|y""#]);
        assert_eq!(split(r"put k a\|b"), [r"put k a\|b"]);
    }

    #[test]
    fn head_tail_wc_as_coreutils() {
        let text: String = (1..=15).map(|i| format!("/registry/k{i}\n")).collect();
        assert_eq!(
            run("head -3", &text).0,
            "/registry/k1\n/registry/k2\n/registry/k3\n"
        );
        assert_eq!(run("head -n 2", &text).0, "/registry/k1\n/registry/k2\n");
        assert_eq!(run("head", &text).0.lines().count(), 10);
        assert_eq!(run("head -n -14", &text).0, "/registry/k1\n");
        assert_eq!(run("tail -n 1", &text).0, "/registry/k15\n");
        assert_eq!(run("wc -l", &text).0, "15\n");
        assert_eq!(run("wc", "a b\nc\n").0, "      2       3       6\n");
        assert_eq!(run("head -x", &text).2, 1);
        assert_eq!(
            run("less", &text),
            (String::new(), "less: command not found\n".into(), 127)
        );
    }

    #[test]
    fn grep_matches_basic_regular_expressions() {
        let text = "etcd-m1   Running\nkube-apiserver   Running\nEtcd-x   Pending\n";
        assert_eq!(run("grep etcd", text).0, "etcd-m1   Running\n");
        assert_eq!(run("grep -i etcd", text).0.lines().count(), 2);
        assert_eq!(run("grep -v Running", text).0, "Etcd-x   Pending\n");
        assert_eq!(run("grep -c Running", text).0, "2\n");
        assert_eq!(
            run("grep '^kube.*Running$'", text).0,
            "kube-apiserver   Running\n"
        );
        assert_eq!(run("grep -n Pending", text).0, "3:Etcd-x   Pending\n");
        assert_eq!(run(r"grep 'm\.'", "m1\nm.2\n").0, "m.2\n");
        assert_eq!(run("grep 'b+c'", "ab+c\nabbc\n").0, "ab+c\n");
        assert_eq!(run(r"grep 'b\+c'", "ab+c\nabbc\n").0, "abbc\n");
        assert_eq!(run("grep 'etcd|x'", "etcd|x\netcd\n").0, "etcd|x\n");
        assert_eq!(run(r"grep 'a\|q'", "a\nq\nz\n").0, "a\nq\n");
        assert_eq!(run("grep nothing", text).2, 1);
        assert_eq!(run("grep", text).2, 2);
    }

    /// The texts are GNU coreutils 9 and grep 3's, recorded on Debian.
    #[test]
    fn head_and_grep_read_their_file_operands() {
        let mut files = Files::new();
        files.insert(fs::key("f"), b"a1\nb2\na3\n".to_vec());
        files.insert(fs::key("g"), b"x\n".to_vec());
        files.insert(fs::key("d/inner"), b"y\n".to_vec());
        let run = |line: &str, input: &str| filter(&shlex::split(line).unwrap(), input, &files);
        assert_eq!(run("grep a f", ""), ("a1\na3\n".into(), String::new(), 0));
        assert_eq!(run("grep a f g", "").0, "f:a1\nf:a3\n");
        assert_eq!(run("grep -c a f g", "").0, "f:2\ng:0\n");
        assert_eq!(
            run("grep a - f", "a\n").0,
            "(standard input):a\nf:a1\nf:a3\n"
        );
        let missing = run("grep a f nofile", "");
        assert_eq!(missing.0, "f:a1\nf:a3\n");
        assert_eq!(missing.1, "grep: nofile: No such file or directory\n");
        assert_eq!(missing.2, 2);
        assert_eq!(run("grep a d", "").1, "grep: d: Is a directory\n");
        assert_eq!(run("head -n1 f g", "").0, "==> f <==\na1\n\n==> g <==\nx\n");
        assert_eq!(run("head -c 2 f", "").0, "a1");
        assert_eq!(run("tail -n 1 f", "").0, "a3\n");
        let absent = run("head nofile", "");
        let why = "head: cannot open 'nofile' for reading: No such file or directory\n";
        assert_eq!((absent.1.as_str(), absent.2), (why, 1));
        assert_eq!(
            run("head d", "").1,
            "head: error reading 'd': Is a directory\n"
        );
    }

    #[test]
    fn grep_only_matching_and_quiet() {
        let ps = "1 x etcd-master\n2 x kube-apiserver-master\n3 x kube-scheduler\n";
        assert_eq!(
            run("grep -oE 'kube-[a-z]+'", ps).0,
            "kube-apiserver\nkube-scheduler\n"
        );
        assert_eq!(run("grep -on master", ps).0, "1:master\n2:master\n");
        assert_eq!(run("grep -oc master", ps).0, "2\n", "-c counts lines");
        assert_eq!(
            run("grep -ov master", ps),
            (String::new(), String::new(), 0)
        );
        assert_eq!(run("grep -q etcd", ps), (String::new(), String::new(), 0));
        assert_eq!(
            run("grep -q nothing", ps),
            (String::new(), String::new(), 1)
        );
    }

    #[test]
    fn grep_extended_and_fixed() {
        let ps = "CONTAINER  IMAGE  NAME\n1 x etcd\n2 x kube-apiserver\n3 x kube-scheduler\n";
        assert_eq!(
            run(r#"grep -E "etcd|kube-apiserver""#, ps).0,
            "1 x etcd\n2 x kube-apiserver\n"
        );
        assert_eq!(run("grep -E 'kube-(a|s)[a-z]+$' -c", ps).0, "2\n");
        assert_eq!(run("grep -F 'a|b'", "a|b\nab\n").0, "a|b\n");
        assert_eq!(run("grep -Ei 'ETCD$'", ps).0, "1 x etcd\n");
        assert_eq!(
            run("grep -E '('", ps),
            (String::new(), "grep: Unmatched ( or \\(\n".into(), 2)
        );
        assert_eq!(
            run("grep '['", ps),
            (
                String::new(),
                "grep: Unmatched [, [^, [:, [., or [=\n".into(),
                2
            )
        );
        assert_eq!(
            run("grep -Q x", ps),
            (String::new(), "grep: invalid option -- 'Q'\nUsage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n".into(), 2)
        );
    }

    #[test]
    fn head_and_tail_count_bytes() {
        assert_eq!(run("head -c 4", "abcdef\nxyz\n").0, "abcd");
        assert_eq!(run("head -c4", "abcdef").0, "abcd");
        assert_eq!(run("head --bytes=2", "abc").0, "ab");
        assert_eq!(run("head -c -2", "abcdef").0, "abcd");
        assert_eq!(run("head -c 1k", "abc").0, "abc");
        assert_eq!(run("tail -c 2", "abc").0, "bc");
        assert_eq!(
            run("head -c x", "abc"),
            (
                String::new(),
                "head: invalid number of bytes: ‘x’\n".into(),
                1
            )
        );
        assert_eq!(
            run("head -c", "abc"),
            (String::new(), "head: option requires an argument -- 'c'\nTry 'head --help' for more information.\n".into(), 1)
        );
    }

    #[test]
    fn python3_in_a_pipe_says_to_use_jq() {
        let (out, err, code) = run("python3 -c 'import sys'", "{}");
        assert_eq!((out.as_str(), code), ("", 127));
        assert!(
            err.starts_with("python3: there is no Python") && err.contains("jq"),
            "{err}"
        );
    }

    #[test]
    fn strings_and_base64_show_what_is_inside_a_value() {
        let value =
            "k8s\u{0}\n\u{f}\n\u{2}v1\u{12}\tNamespace\u{12}]\n\u{7}default\u{1a}\u{0}\nkubernetes";
        // A tab is printable to GNU strings.
        assert_eq!(
            run("strings", value).0,
            "\tNamespace\ndefault\nkubernetes\n"
        );
        assert_eq!(run("strings -n 9", value).0, "\tNamespace\nkubernetes\n");
        assert_eq!(run("base64", "hello\n").0, "aGVsbG8K\n");
        assert_eq!(run("base64 -d", "aGVsbG8K\n").0, "hello\n");
        assert_eq!(run("base64 -d", "!!").1, "base64: invalid input\n");
    }

    #[test]
    fn sort_and_uniq() {
        assert_eq!(run("sort", "b\na\nb\n").0, "a\nb\nb\n");
        assert_eq!(run("sort -nr", "2\n10\n1\n").0, "10\n2\n1\n");
        assert_eq!(run("uniq -c", "a\na\nb\n").0, "      2 a\n      1 b\n");
    }

    #[test]
    fn a_path_of_a_hundred_thousand_steps_is_walked_without_recursion() {
        // Found by `raftlab fuzz --target etcdctl --seed 1` (input 5217877): `jq
        // '.kvs[0].key''.kvs[0].key'…` over a missing key walked null 100,000 steps deep.
        let path = ".kvs[0].key".repeat(100_000);
        assert_eq!(run(&format!("jq -r '{path}'"), "{}").0, "null\n");
        let each = ".a[]".repeat(50_000);
        let (_, err, code) = run(&format!("jq '{each}'"), r#"{"a":[1,2]}"#);
        assert_ne!(code, 0);
        assert_eq!(
            err,
            "jq: error (at <stdin>:0): Cannot index number with \"a\"\n"
        );
    }

    #[test]
    fn json_nested_past_the_depth_limit_is_refused_without_recursing_into_it() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let (out, _, code) = run("jq -c .", &nested(MAX_PARSING_DEPTH));
        assert_eq!((out, code), (format!("{}\n", nested(MAX_PARSING_DEPTH)), 0));
        // Found by hand after the fuzzer's jq path: `echo '[[[…' | jq .` 200,000 deep
        // overflowed the stack.
        for n in [MAX_PARSING_DEPTH + 1, 200_000] {
            let (_, err, code) = run("jq .", &nested(n));
            assert_ne!(code, 0);
            assert_eq!(
                err,
                "jq: error (at <stdin>:1): Cannot parse input: Exceeds depth limit for parsing\n"
            );
        }
    }

    #[test]
    fn jq_paths_and_pretty_printing() {
        let json = r#"{"header":{"cluster_id":14991974125033499000,"revision":5},"kvs":[{"key":"YQ=="},{"key":"Yg=="}]}"#;
        let (out, _, code) = run("jq .", json);
        assert_eq!(code, 0);
        assert!(
            out.starts_with("{\n  \"header\": {\n    \"cluster_id\": 14991974125033499000,"),
            "{out}"
        );
        assert!(
            out.find("header") < out.find("kvs"),
            "keys stay in input order: {out}"
        );
        assert!(out.ends_with("    }\n  ]\n}\n"), "{out}");
        assert_eq!(run("jq .header.revision", json).0, "5\n");
        assert_eq!(run("jq -r '.kvs[].key'", json).0, "YQ==\nYg==\n");
        assert_eq!(run("jq -c '.kvs[1]'", json).0, "{\"key\":\"Yg==\"}\n");
        assert_eq!(run("jq .nope.deeper", json).0, "null\n");
        let (_, err, code) = run("jq '.kvs | length'", json);
        assert_eq!(code, 3);
        assert!(err.contains("path filters only"), "{err}");
        assert_eq!(
            run("jq .header.revision.x", json).1,
            "jq: error (at <stdin>:0): Cannot index number with \"x\"\n"
        );
        assert_eq!(run("jq .", "{oops").2, 3);
        assert_eq!(
            run("jq -c .", "{\"b\":1,\"a\":[true,null,\"\\u00e9\"]} {}").0,
            "{\"b\":1,\"a\":[true,null,\"é\"]}\n{}\n"
        );
    }
}
