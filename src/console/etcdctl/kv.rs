//! `get`, `put`, `del` and `txn` (etcdctl/ctlv3/command/{get,put,del,txn}_command.go).

use super::args::{self, go_quote, parse_go_hex, Parsed};
use super::{
    init_display, spec, CmdResult, Ctx, Exit, EXIT_BAD_ARGS, EXIT_BAD_CONNECTION, EXIT_BAD_FEATURE,
    EXIT_ERROR, EXIT_INVALID_INPUT,
};
use crate::etcd::{
    prefix_range_end, Compare, CompareResult, CompareTarget, DeleteRangeRequest, PutRequest,
    RangeRequest, Request, RequestOp, Response, SortOrder, SortTarget, TxnRequest,
};

/// clientv3 `WithPrefix`: an empty prefix means every key.
fn with_prefix(key: &mut Vec<u8>, end: &mut Vec<u8>) {
    if key.is_empty() {
        *key = vec![0];
        *end = vec![0];
    } else {
        *end = prefix_range_end(key);
    }
}

/// `getGetOp`: the range request of a get command line.
fn get_op(p: &Parsed) -> Result<(RangeRequest, bool), Exit> {
    let Some(first) = p.args.first() else {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "get command needs one argument as key and an optional argument as range_end",
        ));
    };
    let (prefix, from_key) = (p.bool("prefix"), p.bool("from-key"));
    if prefix && from_key {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "`--prefix` and `--from-key` cannot be set at the same time, choose one",
        ));
    }
    let serializable = serializable(p)?;
    let mut r = RangeRequest {
        key: first.as_bytes().to_vec(),
        ..RangeRequest::default()
    };
    if let Some(end) = p.args.get(1) {
        if prefix || from_key {
            return Err(Exit::new(
                EXIT_BAD_ARGS,
                "too many arguments, only accept one argument when `--prefix` or `--from-key` is set",
            ));
        }
        r.range_end = end.as_bytes().to_vec();
    }
    r.limit = p.int("limit");
    let rev = p.int("rev");
    if rev > 0 {
        r.revision = rev;
    }
    let (order, target) = sort(p)?;
    // clientv3 `WithSort`: key order ascending is the natural order.
    r.sort_order = if target == SortTarget::Key && order == SortOrder::Ascend {
        SortOrder::None
    } else {
        order
    };
    r.sort_target = target;
    if prefix {
        with_prefix(&mut r.key, &mut r.range_end);
    }
    if from_key {
        if r.key.is_empty() {
            r.key = vec![0];
        }
        r.range_end = vec![0];
    }
    r.keys_only = p.bool("keys-only");
    Ok((r, serializable))
}

/// `--consistency`: whether the read is serializable.
fn serializable(p: &Parsed) -> Result<bool, Exit> {
    match p.str("consistency").unwrap_or("l") {
        "s" => Ok(true),
        "l" => Ok(false),
        other => Err(Exit::new(
            EXIT_BAD_FEATURE,
            format!("unknown consistency flag {}", go_quote(other)),
        )),
    }
}

/// `--order` and `--sort-by`.
fn sort(p: &Parsed) -> Result<(SortOrder, SortTarget), Exit> {
    let order_flag = p.str("order").unwrap_or("");
    let order = match order_flag.to_uppercase().as_str() {
        "ASCEND" => SortOrder::Ascend,
        "DESCEND" => SortOrder::Descend,
        "" => SortOrder::None,
        _ => {
            return Err(Exit::new(
                EXIT_BAD_FEATURE,
                format!("bad sort order {order_flag}"),
            ))
        }
    };
    let target_flag = p.str("sort-by").unwrap_or("");
    let target = match target_flag.to_uppercase().as_str() {
        "CREATE" => SortTarget::Create,
        "KEY" | "" => SortTarget::Key,
        "MODIFY" => SortTarget::Mod,
        "VALUE" => SortTarget::Value,
        "VERSION" => SortTarget::Version,
        _ => {
            return Err(Exit::new(
                EXIT_BAD_FEATURE,
                format!("bad sort target {target_flag}"),
            ))
        }
    };
    Ok((order, target))
}

pub fn get(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let (req, serializable) = get_op(p)?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.kv(ep, Request::Range(req), serializable, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let Response::Range(r) = &reply.body else {
        return Ok(());
    };
    if p.bool("print-value-only") {
        if ctx.printer.format != super::Format::Simple {
            return Err(Exit::new(
                EXIT_BAD_ARGS,
                "print-value-only is only for `--write-out=simple`",
            ));
        }
        ctx.printer.value_only = true;
    }
    let h = super::to_header(reply.header);
    let printed = ctx.printer.get(&h, r);
    ctx.show(printed)
}

const PUT_USAGE: &str = "put command needs 1 argument and input from stdin or 2 arguments";

/// `getPutOp`. `stdin` is what is left of the command's standard input.
fn put_op(p: &Parsed, stdin: &str) -> Result<PutRequest, Exit> {
    let Some(key) = p.args.first() else {
        return Err(Exit::new(EXIT_BAD_ARGS, PUT_USAGE));
    };
    let ignore_value = p.bool("ignore-value");
    if ignore_value && p.args.len() > 1 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "put command needs only 1 argument when 'ignore-value' is set",
        ));
    }
    let mut value = Vec::new();
    if !ignore_value {
        value = match p.args.get(1) {
            Some(v) => v.as_bytes().to_vec(),
            None if !stdin.is_empty() => stdin.as_bytes().to_vec(),
            None => return Err(Exit::new(EXIT_BAD_ARGS, PUT_USAGE)),
        };
    }
    let lease = parse_go_hex(p.str("lease").unwrap_or("0")).map_err(|e| {
        Exit::new(
            EXIT_BAD_ARGS,
            format!("bad lease ID ({e}), expecting ID in Hex"),
        )
    })?;
    Ok(PutRequest {
        key: key.as_bytes().to_vec(),
        value,
        lease,
        prev_kv: p.bool("prev-kv"),
        ignore_value,
        ignore_lease: p.bool("ignore-lease"),
    })
}

pub fn put(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let req = put_op(p, ctx.stdin)?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.kv(ep, Request::Put(req), false, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let Response::Put(r) = &reply.body else {
        return Ok(());
    };
    let h = super::to_header(reply.header);
    let printed = ctx.printer.put(&h, r);
    ctx.show(printed)
}

fn del_op(p: &Parsed) -> Result<DeleteRangeRequest, Exit> {
    if p.args.is_empty() || p.args.len() > 2 {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "del command needs one argument as key and an optional argument as range_end",
        ));
    }
    let (prefix, from_key) = (p.bool("prefix"), p.bool("from-key"));
    if prefix && from_key {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "`--prefix` and `--from-key` cannot be set at the same time, choose one",
        ));
    }
    let mut d = DeleteRangeRequest {
        key: p.args[0].as_bytes().to_vec(),
        ..DeleteRangeRequest::default()
    };
    if let Some(end) = p.args.get(1) {
        if prefix || from_key {
            return Err(Exit::new(
                EXIT_BAD_ARGS,
                "too many arguments, only accept one argument when `--prefix` or `--from-key` is set",
            ));
        }
        d.range_end = end.as_bytes().to_vec();
    }
    if prefix {
        with_prefix(&mut d.key, &mut d.range_end);
    }
    d.prev_kv = p.bool("prev-kv");
    if from_key {
        if d.key.is_empty() {
            d.key = vec![0];
        }
        d.range_end = vec![0];
    }
    Ok(d)
}

pub fn del(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    let req = del_op(p)?;
    init_display(ctx, p)?;
    let reply = ctx
        .call(|w, ep, t| w.kv(ep, Request::DeleteRange(req), false, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let Response::DeleteRange(r) = &reply.body else {
        return Ok(());
    };
    let h = super::to_header(reply.header);
    let printed = ctx.printer.del(&h, r);
    ctx.show(printed)
}

// ------------------------------------------------------------------ txn

/// Why reading a txn from stdin stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum TxnInputError {
    /// `Error: <text>`, exit 3 (or 128 for a put/get/del argument error).
    Exit(Exit),
    /// A Go panic inside clientv3.Compare: the message (`Unknown result op`, `bad value`).
    Panic(&'static str),
}

impl From<Exit> for TxnInputError {
    fn from(e: Exit) -> Self {
        TxnInputError::Exit(e)
    }
}

fn invalid_input(msg: String) -> TxnInputError {
    TxnInputError::Exit(Exit::new(EXIT_INVALID_INPUT, msg))
}

/// A `bufio.Reader` over stdin: `ReadString('\n')` fails with EOF on a last line that has
/// no newline, as Go's does.
struct Lines<'a> {
    rest: &'a str,
}

impl<'a> Lines<'a> {
    fn read_line(&mut self) -> Result<&'a str, TxnInputError> {
        match self.rest.find('\n') {
            Some(i) => {
                let line = &self.rest[..i];
                self.rest = &self.rest[i + 1..];
                Ok(line)
            }
            None => Err(invalid_input("EOF".into())),
        }
    }
}

/// Go's `%q` scan: a double-quoted (with escapes) or back-quoted string after optional
/// spaces. Returns the string and the rest.
fn scan_quoted(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start_matches([' ', '\t']);
    let mut chars = s.char_indices();
    let (_, q) = chars.next()?;
    if q == '`' {
        let end = s[1..].find('`')? + 1;
        return Some((s[1..end].to_string(), &s[end + 1..]));
    }
    if q != '"' {
        return None;
    }
    let mut out = String::new();
    let mut escaped = false;
    for (i, c) in chars {
        if escaped {
            out.push(match c {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                other => other,
            });
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            return Some((out, &s[i + 1..]));
        } else if c == '\n' {
            return None;
        } else {
            out.push(c);
        }
    }
    None
}

/// `parseCompare` (txn_command.go), with `fmt.Sscanf(rest, "%q) %s %q", &key, &op, &val)`.
fn parse_compare(line: &str) -> Result<Compare, TxnInputError> {
    let Some((target, rest)) = line.split_once('(') else {
        return Err(invalid_input(format!("malformed comparison: {line}")));
    };
    let (mut key, mut op, mut val) = (String::new(), String::new(), String::new());
    let mut n = 0;
    if let Some((k, after)) = scan_quoted(rest) {
        key = k;
        n = 1;
        if let Some(after) = after.strip_prefix(')') {
            let after = after.trim_start_matches([' ', '\t']);
            let tok_end = after.find([' ', '\t']).unwrap_or(after.len());
            if tok_end > 0 {
                op = after[..tok_end].to_string();
                n = 2;
                if let Some((v, _)) = scan_quoted(&after[tok_end..]) {
                    val = v;
                    n = 3;
                }
            }
        }
    }
    if n != 3 {
        return Err(invalid_input(format!(
            "malformed comparison: {line}; got {target}({}) {op} {}",
            go_quote(&key),
            go_quote(&val)
        )));
    }
    let result = |op: &str| match op {
        "=" => Ok(CompareResult::Equal),
        "!=" => Ok(CompareResult::NotEqual),
        ">" => Ok(CompareResult::Greater),
        "<" => Ok(CompareResult::Less),
        _ => Err(TxnInputError::Panic("Unknown result op")),
    };
    let number = |val: &str| {
        args::parse_go_int(val)
            .map_err(|_| invalid_input(format!("invalid txn compare request: {line}")))
    };
    let target = match target {
        "ver" | "version" => {
            let v = number(&val)?;
            CompareTarget::Version(v)
        }
        "c" | "create" => CompareTarget::Create(number(&val)?),
        "m" | "mod" => CompareTarget::Mod(number(&val)?),
        "val" | "value" => CompareTarget::Value(val.into_bytes()),
        "lease" => {
            result(&op)?;
            return Err(TxnInputError::Panic("bad value"));
        }
        other => {
            return Err(invalid_input(format!(
                "malformed comparison: {line} (unknown target {other})"
            )))
        }
    };
    Ok(Compare::new(key.into_bytes(), result(&op)?, target))
}

/// etcdctl's `argify`: words, `"double quoted"` (with escapes) or `'single quoted'`.
fn argify(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        if rest.starts_with('"') {
            if let Some((word, after)) = scan_quoted(rest) {
                out.push(word);
                rest = after;
                continue;
            }
        }
        if let Some(body) = rest.strip_prefix('\'') {
            if let Some(end) = body.find('\'') {
                out.push(body[..end].to_string());
                rest = &body[end + 1..];
                continue;
            }
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        out.push(rest[..end].to_string());
        rest = &rest[end..];
    }
}

/// `parseRequestUnion`: one `get`/`put`/`del` line of a txn branch.
fn parse_op(line: &str) -> Result<RequestOp, TxnInputError> {
    let words = argify(line);
    if words.len() < 2 {
        return Err(invalid_input(format!(
            "invalid txn compare request: {line}"
        )));
    }
    let invalid = || invalid_input(format!("invalid txn request: {line}"));
    let path = words[0].as_str();
    if !matches!(path, "get" | "put" | "del") {
        return Err(invalid());
    }
    let spec = spec(path);
    // Only the command's own flags (and --help) are known inside a txn.
    let local = args::Spec {
        flags: spec.flags,
        ..*spec
    };
    let parsed = args::parse_local(&local, &words[1..]).map_err(|_| invalid())?;
    Ok(match path {
        "get" => RequestOp::Range(get_op(&parsed)?.0),
        "put" => RequestOp::Put(put_op(&parsed, "")?),
        _ => RequestOp::DeleteRange(del_op(&parsed)?),
    })
}

/// Reads compares, success ops and failure ops from stdin, printing the `-i` prompts.
pub fn read_txn(
    stdin: &str,
    interactive: bool,
    prompts: &mut String,
) -> Result<TxnRequest, TxnInputError> {
    let mut lines = Lines { rest: stdin };
    let mut txn = TxnRequest::default();
    let mut prompt = |s: &str| {
        if interactive {
            prompts.push_str(s);
            prompts.push('\n');
        }
    };
    prompt("compares:");
    loop {
        let line = lines.read_line()?.trim();
        if line.is_empty() {
            break;
        }
        txn.compare.push(parse_compare(line)?);
    }
    for (k, name) in ["success", "failure"].into_iter().enumerate() {
        prompt(&format!("{name} requests (get, put, del):"));
        loop {
            let line = lines.read_line()?.trim();
            if line.is_empty() {
                break;
            }
            let op = parse_op(line)?;
            if k == 0 {
                txn.success.push(op);
            } else {
                txn.failure.push(op);
            }
        }
    }
    Ok(txn)
}

pub fn txn(ctx: &mut Ctx, p: &Parsed) -> CmdResult {
    if !p.args.is_empty() {
        return Err(Exit::new(
            EXIT_BAD_ARGS,
            "txn command does not accept argument",
        ));
    }
    init_display(ctx, p)?;
    let mut prompts = String::new();
    let parsed = read_txn(ctx.stdin, p.bool("interactive"), &mut prompts);
    ctx.print(&prompts);
    let req = match parsed {
        Ok(t) => t,
        Err(TxnInputError::Exit(e)) => return Err(e),
        Err(TxnInputError::Panic(msg)) => {
            let trace = go_panic_trace(msg, ctx.nargs);
            ctx.eprint(&trace);
            return Err(Exit::quiet(EXIT_BAD_CONNECTION));
        }
    };
    let reply = ctx
        .call(|w, ep, t| w.kv(ep, Request::Txn(req), false, t))
        .map_err(|e| ctx.fail(EXIT_ERROR, &e, |s| s))?;
    let Response::Txn(r) = &reply.body else {
        return Ok(());
    };
    let h = super::to_header(reply.header);
    let printed = ctx.printer.txn(&h, r);
    ctx.show(printed)
}

/// The Go runtime's trace for a panic in `clientv3.Compare` called by `parseCompare`
/// (exit 2). Pointers vary between runs; the argument count is the command line's.
fn go_panic_trace(msg: &str, nargs: usize) -> String {
    let (head, frames) = if msg == "bad value" {
        (
            "go.etcd.io/etcd/clientv3.mustInt64(...)\n\tgo.etcd.io/etcd/clientv3/compare.go:130\ngo.etcd.io/etcd/clientv3.mustInt64orLeaseID(...)\n\tgo.etcd.io/etcd/clientv3/compare.go:139\ngo.etcd.io/etcd/clientv3.Compare({0x0, 0x4, {0x0, 0x0, 0x0}, {0x0, 0x0}, {0x0, 0x0, 0x0}}, ...)\n\tgo.etcd.io/etcd/clientv3/compare.go:64 +0x385\n",
            "go.etcd.io/etcd/etcdctl/ctlv3/command.parseCompare({0xc0001a0720, 0x12})\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/txn_command.go:197 +0x585\n",
        )
    } else {
        (
            "go.etcd.io/etcd/clientv3.Compare({0x0, 0x3, {0xc000262720, 0x3, 0x8}, {0x0, 0x0}, {0x0, 0x0, 0x0}}, ...)\n\tgo.etcd.io/etcd/clientv3/compare.go:46 +0x3f1\n",
            "go.etcd.io/etcd/etcdctl/ctlv3/command.parseCompare({0xc0001a0b88, 0x13})\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/txn_command.go:195 +0x738\n",
        )
    };
    format!(
        "panic: {msg}\n\ngoroutine 1 [running]:\n{head}{frames}go.etcd.io/etcd/etcdctl/ctlv3/command.readCompares(0xc000261920?)\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/txn_command.go:87 +0xa5\ngo.etcd.io/etcd/etcdctl/ctlv3/command.txnCommandFunc(0xc0000c4900?, {{0xc00025cef0?, 0x{n:x}?, 0x{n:x}?}})\n\tgo.etcd.io/etcd/etcdctl/ctlv3/command/txn_command.go:54 +0x1f2\ngithub.com/spf13/cobra.(*Command).execute(0xc0000c4900, {{0xc00025ced0, 0x{n:x}, 0x{n:x}}})\n\tgithub.com/spf13/cobra/command.go:920 +0x847\ngithub.com/spf13/cobra.(*Command).ExecuteC(0x13b9920)\n\tgithub.com/spf13/cobra/command.go:1044 +0x3bd\ngithub.com/spf13/cobra.(*Command).Execute(...)\n\tgithub.com/spf13/cobra/command.go:968\ngo.etcd.io/etcd/etcdctl/ctlv3.Start()\n\tgo.etcd.io/etcd/etcdctl/ctlv3/ctl_nocov.go:26 +0x97\nmain.main()\n\tgo.etcd.io/etcd/etcdctl/main.go:35 +0x65\n",
        n = nargs
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(stdin: &str) -> String {
        match read_txn(stdin, false, &mut String::new()) {
            Err(TxnInputError::Exit(e)) => format!("{} {}", e.code, e.message),
            Err(TxnInputError::Panic(m)) => format!("panic {m}"),
            Ok(t) => format!("ok {t:?}"),
        }
    }

    #[test]
    fn txn_input_errors_are_etcdctls() {
        assert_eq!(
            err("bogus line\n\n\n"),
            "3 malformed comparison: bogus line"
        );
        assert_eq!(
            err("nope(\"foo\") = \"x\"\n\n\n"),
            "3 malformed comparison: nope(\"foo\") = \"x\" (unknown target nope)"
        );
        assert_eq!(
            err("version(\"foo\") = \"abc\"\n\n\n"),
            "3 invalid txn compare request: version(\"foo\") = \"abc\""
        );
        assert_eq!(
            err("value(\"foo\") == \"x\"\n\n\n"),
            "panic Unknown result op"
        );
        assert_eq!(err("lease(\"foo\") = \"0\"\n\n\n"), "panic bad value");
        assert_eq!(err("\nfrob k v\n\n\n"), "3 invalid txn request: frob k v");
        assert_eq!(
            err("\nput k\n\n\n"),
            "128 put command needs 1 argument and input from stdin or 2 arguments"
        );
        assert_eq!(err("value(\"foo\") = \"x\""), "3 EOF");
        assert_eq!(err(""), "3 EOF");
        assert_eq!(
            err("value(\"foo\") = reborn\n\n\n"),
            "3 malformed comparison: value(\"foo\") = reborn; got value(\"foo\") = \"\""
        );
        assert_eq!(
            err("value(foo) = \"reborn\"\n\n\n"),
            "3 malformed comparison: value(foo) = \"reborn\"; got value(\"\")  \"\""
        );
        assert_eq!(err("\nput\n\n\n"), "3 invalid txn compare request: put");
    }

    #[test]
    fn txn_input_parses() {
        let t = read_txn(
            "value(\"k with space\") = \"v with space\"\n\nget \"k with space\"\nput t5 z --prev-kv\n\ndel t --prefix\n\n",
            false,
            &mut String::new(),
        )
        .unwrap();
        assert_eq!(t.compare.len(), 1);
        assert_eq!(t.compare[0].key, b"k with space");
        assert_eq!(t.success.len(), 2);
        let RequestOp::Put(p) = &t.success[1] else {
            panic!()
        };
        assert!(p.prev_kv);
        let RequestOp::DeleteRange(d) = &t.failure[0] else {
            panic!()
        };
        assert_eq!(d.range_end, b"u");
    }
}
