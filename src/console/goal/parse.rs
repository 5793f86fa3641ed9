//! Goal text to a typed [`Goal`]: a small lexer (words, quoted strings, operators; a word's
//! `(…)` is taken whole, quotes and all) and a recursive parser. Every error names the word it
//! stopped at; nothing here panics, whatever the text.

use super::{Field, Goal, LastField, Op, Operand, Pred, Query, Value};
use crate::base::MemberId;
use crate::check::Property;

#[derive(Clone, Debug, PartialEq)]
enum Token<'a> {
    Word(&'a str),
    Number(i64),
    Quoted(String),
    Op(Op),
}

/// One token and where it lies in the text (byte offsets), for the error that names it.
struct Lexed<'a> {
    token: Token<'a>,
    start: usize,
    end: usize,
}

/// Characters that end a word (operators and quotes may follow a word without a space).
fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '=' | '!' | '<' | '>' | '"' | '\'')
}

fn lex(text: &str) -> Result<Vec<Lexed<'_>>, String> {
    let mut out = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let token = match c {
            '"' | '\'' => {
                chars.next();
                Token::Quoted(quoted(&mut chars, c)?)
            }
            '=' | '!' | '<' | '>' => Token::Op(operator(&mut chars)?),
            _ => word(text, &mut chars)?,
        };
        let end = chars.peek().map_or(text.len(), |&(i, _)| i);
        out.push(Lexed { token, start, end });
    }
    Ok(out)
}

type Chars<'a> = std::iter::Peekable<std::str::CharIndices<'a>>;

/// The rest of a string opened by `quote`; `\"` and `\\` escape in double quotes, as in a
/// shell.
fn quoted(chars: &mut Chars, quote: char) -> Result<String, String> {
    let mut s = String::new();
    while let Some((_, c)) = chars.next() {
        match c {
            c if c == quote => return Ok(s),
            '\\' if quote == '"' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => s.push(e),
                Some((_, e)) => {
                    s.push('\\');
                    s.push(e);
                }
                None => break,
            },
            c => s.push(c),
        }
    }
    Err(format!("unterminated quote {quote}{s}"))
}

fn operator(chars: &mut Chars) -> Result<Op, String> {
    let Some((_, first)) = chars.next() else {
        return Err("expected an operator".into());
    };
    let equals = chars.next_if(|&(_, c)| c == '=').is_some();
    match (first, equals) {
        ('=', true) => Ok(Op::Eq),
        ('!', true) => Ok(Op::Ne),
        ('>', true) => Ok(Op::Ge),
        ('<', true) => Ok(Op::Le),
        ('>', false) => Ok(Op::Gt),
        ('<', false) => Ok(Op::Lt),
        ('=', false) => Err("`=` is not an operator (compare with ==)".into()),
        _ => Err(format!(
            "`{first}` is not an operator (use != for not equal)"
        )),
    }
}

/// A bare word, a number, or a query with its `(argument)` taken whole.
fn word<'a>(text: &'a str, chars: &mut Chars) -> Result<Token<'a>, String> {
    let start = chars.peek().map_or(text.len(), |&(i, _)| i);
    let mut depth = 0usize;
    while let Some(&(i, c)) = chars.peek() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                return Err(format!("unexpected ) in {}", &text[start..=i]));
            }
            ')' => depth -= 1,
            '"' | '\'' if depth > 0 => {
                chars.next();
                quoted(chars, c)?;
                continue;
            }
            c if depth == 0 && ends_word(c) => break,
            _ => {}
        }
        chars.next();
    }
    let end = chars.peek().map_or(text.len(), |&(i, _)| i);
    let w = &text[start..end];
    if depth > 0 {
        return Err(format!("missing ) in {w}"));
    }
    let numeric = w.strip_prefix('-').unwrap_or(w);
    if !numeric.is_empty() && numeric.bytes().all(|b| b.is_ascii_digit()) {
        return w
            .parse()
            .map(Token::Number)
            .map_err(|_| format!("number out of range: {w}"));
    }
    Ok(Token::Word(w))
}

/// The words the grammar itself uses; none of them can be a value.
const KEYWORDS: [&str; 6] = ["and", "ever", "exists", "absent", "contains", "starts"];

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Lexed<'a>>,
    at: usize,
}

pub(super) fn parse(text: &str) -> Result<Goal, String> {
    let mut p = Parser {
        text,
        tokens: lex(text)?,
        at: 0,
    };
    let mut preds = vec![p.pred()?];
    while p.at < p.tokens.len() {
        match &p.tokens[p.at].token {
            Token::Word("and") => {
                p.at += 1;
                preds.push(p.pred()?);
            }
            _ => return Err(format!("expected `and` or the end, found {}", p.here())),
        }
    }
    Ok(Goal {
        text: text.trim().to_string(),
        preds,
    })
}

impl<'a> Parser<'a> {
    fn here(&self) -> String {
        match self.tokens.get(self.at) {
            Some(t) => format!("`{}`", &self.text[t.start..t.end]),
            None => "the end".into(),
        }
    }

    fn next(&mut self) -> Option<&Lexed<'a>> {
        let t = self.tokens.get(self.at);
        self.at += usize::from(t.is_some());
        t
    }

    fn pred(&mut self) -> Result<Pred, String> {
        if matches!(self.tokens.get(self.at), Some(t) if t.token == Token::Word("ever")) {
            self.at += 1;
            let inner = self.pred()?;
            return Ok(Pred::Ever(Box::new(inner)));
        }
        let left = self.operand()?;
        let pred = match self.next().map(|t| t.token.clone()) {
            Some(Token::Word("exists")) => Pred::Exists(self.query_side(left, "exists")?),
            Some(Token::Word("absent")) => Pred::Absent(self.query_side(left, "absent")?),
            Some(Token::Op(op)) => self.compare(left, op)?,
            Some(Token::Word("contains")) => self.compare(left, Op::Contains)?,
            Some(Token::Word("starts")) => self.compare(left, Op::Starts)?,
            Some(_) => {
                self.at -= 1;
                return Err(format!(
                    "expected an operator (== != > >= < <= contains starts) or exists/absent, found {}",
                    self.here()
                ));
            }
            None => return Err("expected an operator or exists/absent, found the end".into()),
        };
        Ok(pred)
    }

    fn query_side(&self, side: Operand, word: &str) -> Result<Operand, String> {
        match side {
            Operand::Literal(v) => Err(format!("{word} needs a query, not the value {v}")),
            q => Ok(q),
        }
    }

    fn compare(&mut self, left: Operand, op: Op) -> Result<Pred, String> {
        let right = self.operand()?;
        if let (Operand::Literal(a), Operand::Literal(b)) = (&left, &right) {
            return Err(format!(
                "{a} {} {b} compares two values and no query: a misspelt query?",
                op.as_str()
            ));
        }
        Ok(Pred::Compare { left, op, right })
    }

    fn operand(&mut self) -> Result<Operand, String> {
        let Some(t) = self.next() else {
            return Err("expected a value or a query, found the end".into());
        };
        match &t.token {
            Token::Number(n) => Ok(Operand::Literal(Value::Num(*n))),
            Token::Quoted(s) => Ok(Operand::Literal(Value::Text(s.clone()))),
            Token::Op(op) => Err(format!(
                "expected a value or a query, found `{}`",
                op.as_str()
            )),
            Token::Word(w) if KEYWORDS.contains(w) => {
                Err(format!("expected a value or a query, found `{w}`"))
            }
            Token::Word(w) => word_operand(w),
        }
    }
}

fn word_operand(w: &str) -> Result<Operand, String> {
    if let Some(rest) = w.strip_prefix("start.") {
        return match query(rest)? {
            Some(q) => Ok(Operand::Start(q)),
            None => Err(format!("unknown query {rest} after start.")),
        };
    }
    match query(w)? {
        Some(q) => Ok(Operand::Now(q)),
        None if w.contains(['.', '(', ')']) => Err(format!("unknown query {w}")),
        None => Ok(Operand::Literal(Value::Text(w.to_string()))),
    }
}

/// `w` as a query: Ok(None) when it is a plain word (a value such as `m2` or `Running`), an
/// error when it looks like a query but is none.
fn query(w: &str) -> Result<Option<Query>, String> {
    if let Some(open) = w.find('(') {
        let close = w.rfind(')').filter(|&c| c > open);
        let Some(close) = close else {
            return Err(format!("missing ) in {w}"));
        };
        let arg = argument(&w[open + 1..close]);
        return call(&w[..open], arg, &w[close + 1..], w).map(Some);
    }
    let (head, field) = match w.split_once('.') {
        Some((h, f)) => (h, Some(f)),
        None => (w, None),
    };
    let q = match (head, field) {
        ("leader", None) => Query::Leader,
        ("leader", Some(f)) => Query::LeaderField(member_field(f, w)?),
        ("last", Some(f)) => Query::Last(last_field(f)?),
        ("last", None) => {
            return Err("last needs a field: last.exit, last.line, last.stdout, last.stderr".into())
        }
        (name, None) => match plain(name) {
            Some(q) => q,
            None => return Ok(None),
        },
        (m, Some(f)) => match MemberId::parse(m) {
            Some(id) => Query::Member(id, member_field(f, w)?),
            None => return Err(format!("unknown query {w}")),
        },
    };
    Ok(Some(q))
}

/// The queries that are one word.
fn plain(name: &str) -> Option<Query> {
    Some(match name {
        "leaders" => Query::Leaders,
        "term" => Query::Term,
        "elections" => Query::Elections,
        "campaigns" => Query::Campaigns,
        "pre_campaigns" => Query::PreCampaigns,
        "votes_granted" => Query::VotesGranted,
        "votes_refused" => Query::VotesRefused,
        "commits" => Query::Commits,
        "members" => Query::Members,
        "quorum" => Query::Quorum,
        "reachable" => Query::Reachable,
        "tolerated" => Query::Tolerated,
        "violations" => Query::Violations,
        "time" => Query::Time,
        _ => return None,
    })
}

/// A call's argument: quotes (either kind) removed, else trimmed as typed.
fn argument(raw: &str) -> String {
    let t = raw.trim();
    let quoted = t.len() >= 2
        && ((t.starts_with('"') && t.ends_with('"')) || (t.starts_with('\'') && t.ends_with('\'')));
    if quoted {
        t[1..t.len() - 1].replace("\\\"", "\"")
    } else {
        t.to_string()
    }
}

fn call(name: &str, arg: String, rest: &str, w: &str) -> Result<Query, String> {
    let needs_arg = |q: Query| {
        if arg.is_empty() {
            Err(format!(
                "{name}() needs an argument, as in {}",
                example(name)
            ))
        } else {
            Ok(q)
        }
    };
    match (name, rest) {
        ("ran", "") => Ok(Query::Ran(arg)),
        ("key", "") => needs_arg(Query::Key(arg.clone())),
        ("key", ".value") => needs_arg(Query::KeyValue(arg.clone())),
        ("key", ".mod_revision") => needs_arg(Query::KeyModRevision(arg.clone())),
        ("key", ".create_revision") => needs_arg(Query::KeyCreateRevision(arg.clone())),
        ("key", ".version") => needs_arg(Query::KeyVersion(arg.clone())),
        ("keys", "") => Ok(Query::Keys(arg)),
        ("file", "") => needs_arg(Query::File(arg.clone())),
        ("delivered", "") => match crate::etcd::message_kind(&arg) {
            Some(kind) => Ok(Query::Delivered(kind)),
            None => Err(format!(
                "delivered({arg}): no such message kind (kinds: {})",
                crate::etcd::message_kind_names().join(", ")
            )),
        },
        ("violations", "") => Property::ALL
            .into_iter()
            .find(|p| super::property_word(*p) == arg)
            .map(Query::ViolationsOf)
            .ok_or_else(|| {
                let words: Vec<String> = Property::ALL.map(super::property_word).to_vec();
                format!(
                    "violations({arg}): no such property (properties: {})",
                    words.join(", ")
                )
            }),
        ("writes", "") => needs_arg(Query::Writes(arg.clone())),
        ("pods", "") => needs_arg(Query::Pods(arg.clone())),
        ("new_pods", "") => needs_arg(Query::NewPods(arg.clone())),
        ("pod", ".phase") => needs_arg(Query::PodPhase(arg.clone())),
        ("pod", "") => needs_arg(Query::Pod(arg.clone())),
        ("deployment", ".ready") => needs_arg(Query::DeploymentReady(arg.clone())),
        ("deployment", ".replicas") => needs_arg(Query::DeploymentReplicas(arg.clone())),
        ("deployment", "") => needs_arg(Query::Deployment(arg.clone())),
        ("key" | "pod" | "deployment", _) => Err(format!(
            "unknown field {} in {w} (as in {})",
            rest.trim_start_matches('.'),
            example(name)
        )),
        _ => Err(format!("unknown query {w}")),
    }
}

fn example(name: &str) -> &'static str {
    match name {
        "key" => "key(/k).value, key(/k).mod_revision, key(/k) exists",
        "pod" => "pod(web-1).phase",
        "deployment" => "deployment(web).ready, deployment(web).replicas",
        "file" => "file(snap.db) exists",
        "pods" | "new_pods" => "pods(Running)",
        "writes" => "writes(kubectl), writes(*)",
        _ => "key(/k)",
    }
}

fn member_field(f: &str, w: &str) -> Result<Field, String> {
    Field::ALL
        .iter()
        .find(|field| field.as_str() == f)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = Field::ALL.iter().map(|f| f.as_str()).collect();
            format!("unknown field {f} in {w} (fields: {})", names.join(" "))
        })
}

fn last_field(f: &str) -> Result<LastField, String> {
    Ok(match f {
        "exit" => LastField::Exit,
        "line" => LastField::Line,
        "stdout" => LastField::Stdout,
        "stderr" => LastField::Stderr,
        _ => {
            return Err(format!(
                "unknown field {f} of last (fields: exit line stdout stderr)"
            ))
        }
    })
}
