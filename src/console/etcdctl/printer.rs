//! etcdctl's four output formats (`etcdctl/ctlv3/command/printer_*.go`): `simple`, `json`
//! (Go `encoding/json` of the protobuf structs: zero values omitted, bytes in base64, 64-bit
//! integers as plain numbers), `table` (olekukonko/tablewriter, only for member and endpoint
//! listings and snapshot status) and `fields` (`"Key" : value` lines).

use super::args::{go_quote, go_quote_bytes};
use crate::etcd::{
    AlarmMember, DeleteRangeResponse, Event, EventType, KeyValue, PutResponse, RangeResponse,
    ResponseOp, TxnResponse, WatchResponse,
};
use base64::Engine as _;
use std::fmt::Write as _;

/// A response header (`etcdserverpb.ResponseHeader`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub cluster_id: u64,
    pub member_id: u64,
    pub revision: i64,
    pub raft_term: u64,
}

/// One member as `member list` shows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberInfo {
    pub id: u64,
    /// Empty while the member has not started (`unstarted`).
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

/// `endpoint status` of one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EpStatus {
    pub ep: String,
    pub header: Header,
    pub version: String,
    pub db_size: i64,
    pub db_size_in_use: i64,
    pub leader: u64,
    pub raft_index: u64,
    pub raft_term: u64,
    pub raft_applied_index: u64,
    pub errors: Vec<String>,
    pub is_learner: bool,
}

/// `endpoint health` of one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EpHealth {
    pub ep: String,
    pub health: bool,
    /// A Go duration string (`1.2ms`).
    pub took: String,
    pub error: String,
}

/// `endpoint hashkv` of one endpoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EpHash {
    pub ep: String,
    pub header: Header,
    pub hash: u32,
    pub compact_revision: i64,
}

/// `snapshot status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DbStatus {
    pub hash: u32,
    pub revision: i64,
    pub total_key: i64,
    pub total_size: i64,
}

impl From<crate::etcd::SnapshotStatus> for DbStatus {
    fn from(s: crate::etcd::SnapshotStatus) -> DbStatus {
        DbStatus {
            hash: s.hash,
            revision: s.revision,
            total_key: s.total_keys as i64,
            total_size: s.total_size as i64,
        }
    }
}

/// A lease's time to live as the server answers it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeToLive {
    pub id: i64,
    pub ttl: i64,
    pub granted_ttl: i64,
    pub keys: Vec<Vec<u8>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Simple,
    Json,
    Table,
    Fields,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "simple" => Some(Format::Simple),
            "json" => Some(Format::Json),
            "table" => Some(Format::Table),
            "fields" => Some(Format::Fields),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Simple => "simple",
            Format::Json => "json",
            Format::Table => "table",
            Format::Fields => "fields",
        }
    }
}

/// The printer has no way to show this response (`table not supported as output format`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

pub type Printed = Result<String, Unsupported>;

/// A printer: the format, `--hex`, and `--print-value-only` for simple gets.
#[derive(Clone, Copy, Debug)]
pub struct Printer {
    pub format: Format,
    pub hex: bool,
    pub value_only: bool,
}

// ------------------------------------------------------------------ small Go-isms

/// Standard base64 with padding (Go's `[]byte` in JSON).
pub fn base64(data: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// A JSON string as Go's `encoding/json` writes it (HTML-safe escapes, invalid UTF-8 as U+FFFD).
pub fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// go-humanize `Bytes`: SI units, one decimal below 10.
pub fn humanize_bytes(s: u64) -> String {
    const SIZES: [&str; 7] = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    if s < 10 {
        return format!("{s} B");
    }
    let e = ((s as f64).ln() / 1000f64.ln()).floor();
    let suffix = SIZES[e as usize];
    let val = ((s as f64) / 1000f64.powf(e) * 10.0 + 0.5).floor() / 10.0;
    if val < 10.0 {
        format!("{val:.1} {suffix}")
    } else {
        format!("{} {suffix}", round_half_even(val))
    }
}

/// Go's `%.0f` rounds a tie to even.
fn round_half_even(v: f64) -> i64 {
    let r = v.round();
    if (v - v.trunc()).abs() == 0.5 && (r as i64) % 2 != 0 {
        (r - v.signum()) as i64
    } else {
        r as i64
    }
}

/// Go's `time.Duration.String` for a duration in microseconds.
pub fn go_duration_us(us: u64) -> String {
    if us == 0 {
        return "0s".to_string();
    }
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if us < 1_000 {
        format!("{us}µs")
    } else if us < 1_000_000 {
        format!("{}ms", trim(format!("{}.{:03}", us / 1000, us % 1000)))
    } else {
        format!(
            "{}s",
            trim(format!("{}.{:06}", us / 1_000_000, us % 1_000_000))
        )
    }
}

/// `\x66\x6f\x6f` for `--hex`.
fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 4);
    for x in b {
        let _ = write!(s, "\\x{x:02x}");
    }
    s
}

// ------------------------------------------------------------------ JSON building

struct Obj(String);

impl Obj {
    fn new() -> Obj {
        Obj(String::from("{"))
    }

    fn raw(mut self, key: &str, value: &str) -> Obj {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        let _ = write!(self.0, "\"{key}\":{value}");
        self
    }

    fn int_nz(self, key: &str, v: i128) -> Obj {
        if v == 0 {
            self
        } else {
            self.raw(key, &v.to_string())
        }
    }

    fn bytes_nz(self, key: &str, v: &[u8]) -> Obj {
        if v.is_empty() {
            self
        } else {
            self.raw(key, &format!("\"{}\"", base64(v)))
        }
    }

    fn bool_nz(self, key: &str, v: bool) -> Obj {
        if v {
            self.raw(key, "true")
        } else {
            self
        }
    }

    fn str_nz(self, key: &str, v: &str) -> Obj {
        if v.is_empty() {
            self
        } else {
            self.raw(key, &json_str(v))
        }
    }

    fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn json_header_fields(o: Obj, h: &Header) -> Obj {
    o.int_nz("cluster_id", h.cluster_id.into())
        .int_nz("member_id", h.member_id.into())
        .int_nz("revision", h.revision.into())
        .int_nz("raft_term", h.raft_term.into())
}

/// One member as `-w json` prints it, empty fields left out; `id` as the command prints ids.
fn json_member(m: &MemberInfo, id: &str) -> String {
    let urls = |u: &[String]| json_list(u, |x| json_str(x));
    let mut o = Obj::new().raw("ID", id).str_nz("name", &m.name);
    if !m.peer_urls.is_empty() {
        o = o.raw("peerURLs", &urls(&m.peer_urls));
    }
    if !m.client_urls.is_empty() {
        o = o.raw("clientURLs", &urls(&m.client_urls));
    }
    o.bool_nz("isLearner", m.is_learner).done()
}

fn json_header(h: &Header) -> String {
    json_header_fields(Obj::new(), h).done()
}

fn json_kv(kv: &KeyValue) -> String {
    Obj::new()
        .bytes_nz("key", &kv.key)
        .int_nz("create_revision", kv.create_revision.into())
        .int_nz("mod_revision", kv.mod_revision.into())
        .int_nz("version", kv.version.into())
        .bytes_nz("value", &kv.value)
        .int_nz("lease", kv.lease.into())
        .done()
}

fn json_list<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    let parts: Vec<String> = items.iter().map(f).collect();
    format!("[{}]", parts.join(","))
}

fn json_range(h: &Header, r: &RangeResponse) -> String {
    let mut o = Obj::new().raw("header", &json_header(h));
    if !r.kvs.is_empty() {
        o = o.raw("kvs", &json_list(&r.kvs, json_kv));
    }
    o.bool_nz("more", r.more)
        .int_nz("count", r.count.into())
        .done()
}

fn json_put(h: &Header, r: &PutResponse) -> String {
    let mut o = Obj::new().raw("header", &json_header(h));
    if let Some(kv) = &r.prev_kv {
        o = o.raw("prev_kv", &json_kv(kv));
    }
    o.done()
}

fn json_del(h: &Header, r: &DeleteRangeResponse) -> String {
    let mut o = Obj::new()
        .raw("header", &json_header(h))
        .int_nz("deleted", r.deleted.into());
    if !r.prev_kvs.is_empty() {
        o = o.raw("prev_kvs", &json_list(&r.prev_kvs, json_kv));
    }
    o.done()
}

fn op_header(revision: i64) -> Header {
    Header {
        revision,
        ..Header::default()
    }
}

fn json_txn(h: &Header, r: &TxnResponse) -> String {
    let mut o = Obj::new()
        .raw("header", &json_header(h))
        .bool_nz("succeeded", r.succeeded);
    if !r.responses.is_empty() {
        let ops = json_list(&r.responses, |op| {
            let (name, body) = match op {
                ResponseOp::Range(x) => ("ResponseRange", json_range(&op_header(x.revision), x)),
                ResponseOp::Put(x) => ("ResponsePut", json_put(&op_header(x.revision), x)),
                ResponseOp::DeleteRange(x) => {
                    ("ResponseDeleteRange", json_del(&op_header(x.revision), x))
                }
                ResponseOp::Txn(x) => ("ResponseTxn", json_txn(&op_header(x.revision), x)),
            };
            format!("{{\"Response\":{{\"{name}\":{body}}}}}")
        });
        o = o.raw("responses", &ops);
    }
    o.done()
}

fn json_event(e: &Event) -> String {
    let mut o = Obj::new();
    if e.kind == EventType::Delete {
        o = o.raw("type", "1");
    }
    o = o.raw("kv", &json_kv(&e.kv));
    if let Some(p) = &e.prev_kv {
        o = o.raw("prev_kv", &json_kv(p));
    }
    o.done()
}

// ------------------------------------------------------------------ simple / fields pieces

fn simple_kv(out: &mut String, p: &Printer, kv: &KeyValue) {
    let (k, v) = if p.hex {
        (hex_bytes(&kv.key), hex_bytes(&kv.value))
    } else {
        (
            String::from_utf8_lossy(&kv.key).into_owned(),
            String::from_utf8_lossy(&kv.value).into_owned(),
        )
    };
    if !p.value_only {
        out.push_str(&k);
        out.push('\n');
    }
    out.push_str(&v);
    out.push('\n');
}

fn fields_hdr(out: &mut String, h: &Header) {
    let _ = writeln!(out, "\"ClusterID\" : {}", h.cluster_id);
    let _ = writeln!(out, "\"MemberID\" : {}", h.member_id);
    let _ = writeln!(out, "\"Revision\" : {}", h.revision);
    let _ = writeln!(out, "\"RaftTerm\" : {}", h.raft_term);
}

fn fields_kv(out: &mut String, pfx: &str, kv: &KeyValue) {
    let _ = writeln!(out, "\"{pfx}Key\" : {}", go_quote_bytes(&kv.key));
    let _ = writeln!(out, "\"{pfx}CreateRevision\" : {}", kv.create_revision);
    let _ = writeln!(out, "\"{pfx}ModRevision\" : {}", kv.mod_revision);
    let _ = writeln!(out, "\"{pfx}Version\" : {}", kv.version);
    let _ = writeln!(out, "\"{pfx}Value\" : {}", go_quote_bytes(&kv.value));
    let _ = writeln!(out, "\"{pfx}Lease\" : {}", kv.lease);
}

fn event_type(e: &Event) -> &'static str {
    match e.kind {
        EventType::Put => "PUT",
        EventType::Delete => "DELETE",
    }
}

/// olekukonko/tablewriter as etcdctl configures it: upper-case centered headers, cells
/// aligned right, borders everywhere.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let titles: Vec<String> = header
        .iter()
        .map(|h| h.to_uppercase().replace('_', " "))
        .collect();
    let mut widths: Vec<usize> = titles.iter().map(|t| t.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let border: String = {
        let mut s = String::from("+");
        for w in &widths {
            s.push_str(&"-".repeat(w + 2));
            s.push('+');
        }
        s + "\n"
    };
    let mut out = border.clone();
    out.push('|');
    for (t, w) in titles.iter().zip(&widths) {
        let gap = w - t.chars().count();
        let left = gap / 2;
        let _ = write!(
            out,
            " {}{}{} |",
            " ".repeat(left),
            t,
            " ".repeat(gap - left)
        );
    }
    out.push('\n');
    out.push_str(&border);
    for row in rows {
        out.push('|');
        for (cell, w) in row.iter().zip(&widths) {
            out.push(' ');
            crate::base::pad(&mut out, cell, *w, true);
            out.push_str(" |");
        }
        out.push('\n');
    }
    out.push_str(&border);
    out
}

fn member_rows(members: &[MemberInfo]) -> Vec<Vec<String>> {
    members
        .iter()
        .map(|m| {
            vec![
                format!("{:x}", m.id),
                if m.name.is_empty() {
                    "unstarted"
                } else {
                    "started"
                }
                .to_string(),
                m.name.clone(),
                m.peer_urls.join(","),
                m.client_urls.join(","),
                m.is_learner.to_string(),
            ]
        })
        .collect()
}

const MEMBER_HDR: [&str; 6] = [
    "ID",
    "Status",
    "Name",
    "Peer Addrs",
    "Client Addrs",
    "Is Learner",
];

fn status_rows(list: &[EpStatus]) -> Vec<Vec<String>> {
    list.iter()
        .map(|s| {
            vec![
                s.ep.clone(),
                format!("{:x}", s.header.member_id),
                s.version.clone(),
                humanize_bytes(s.db_size.max(0) as u64),
                (s.leader == s.header.member_id).to_string(),
                s.is_learner.to_string(),
                s.raft_term.to_string(),
                s.raft_index.to_string(),
                s.raft_applied_index.to_string(),
                s.errors.join(", "),
            ]
        })
        .collect()
}

const STATUS_HDR: [&str; 10] = [
    "endpoint",
    "ID",
    "version",
    "db size",
    "is leader",
    "is learner",
    "raft term",
    "raft index",
    "raft applied index",
    "errors",
];

fn lines(rows: &[Vec<String>]) -> String {
    rows.iter().map(|r| r.join(", ") + "\n").collect()
}

// ------------------------------------------------------------------ the printer

impl Printer {
    pub fn new(format: Format, hex: bool) -> Printer {
        Printer {
            format,
            hex,
            value_only: false,
        }
    }

    fn unsupported(&self) -> Printed {
        Err(Unsupported(format!(
            "{} not supported as output format",
            self.format.name()
        )))
    }

    pub fn get(&self, h: &Header, r: &RangeResponse) -> Printed {
        let mut out = String::new();
        match self.format {
            Format::Simple => r.kvs.iter().for_each(|kv| simple_kv(&mut out, self, kv)),
            Format::Json => out = json_range(h, r) + "\n",
            Format::Table => return self.unsupported(),
            Format::Fields => {
                fields_hdr(&mut out, h);
                r.kvs.iter().for_each(|kv| fields_kv(&mut out, "", kv));
                let _ = writeln!(out, "\"More\" : {}", r.more);
                let _ = writeln!(out, "\"Count\" : {}", r.count);
            }
        }
        Ok(out)
    }

    pub fn put(&self, h: &Header, r: &PutResponse) -> Printed {
        let mut out = String::new();
        match self.format {
            Format::Simple => {
                out.push_str("OK\n");
                if let Some(kv) = &r.prev_kv {
                    simple_kv(&mut out, self, kv);
                }
            }
            Format::Json => out = json_put(h, r) + "\n",
            Format::Table => return self.unsupported(),
            Format::Fields => {
                fields_hdr(&mut out, h);
                if let Some(kv) = &r.prev_kv {
                    fields_kv(&mut out, "Prev", kv);
                }
            }
        }
        Ok(out)
    }

    pub fn del(&self, h: &Header, r: &DeleteRangeResponse) -> Printed {
        let mut out = String::new();
        match self.format {
            Format::Simple => {
                let _ = writeln!(out, "{}", r.deleted);
                r.prev_kvs
                    .iter()
                    .for_each(|kv| simple_kv(&mut out, self, kv));
            }
            Format::Json => out = json_del(h, r) + "\n",
            Format::Table => return self.unsupported(),
            Format::Fields => {
                fields_hdr(&mut out, h);
                let _ = writeln!(out, "\"Deleted\" : {}", r.deleted);
                r.prev_kvs
                    .iter()
                    .for_each(|kv| fields_kv(&mut out, "Prev", kv));
            }
        }
        Ok(out)
    }

    pub fn txn(&self, h: &Header, r: &TxnResponse) -> Printed {
        let mut out = String::new();
        match self.format {
            Format::Simple => {
                out.push_str(if r.succeeded {
                    "SUCCESS\n"
                } else {
                    "FAILURE\n"
                });
                for op in &r.responses {
                    out.push('\n');
                    let part = match op {
                        ResponseOp::Range(x) => self.get(&op_header(x.revision), x)?,
                        ResponseOp::Put(x) => self.put(&op_header(x.revision), x)?,
                        ResponseOp::DeleteRange(x) => self.del(&op_header(x.revision), x)?,
                        ResponseOp::Txn(x) => format!("unexpected response {x:?}\n"),
                    };
                    out.push_str(&part);
                }
            }
            Format::Json => out = json_txn(h, r) + "\n",
            Format::Table => return self.unsupported(),
            Format::Fields => {
                fields_hdr(&mut out, h);
                let _ = writeln!(out, "\"Succeeded\" : {}", r.succeeded);
                for op in &r.responses {
                    let part = match op {
                        ResponseOp::Range(x) => self.get(&op_header(x.revision), x)?,
                        ResponseOp::Put(x) => self.put(&op_header(x.revision), x)?,
                        ResponseOp::DeleteRange(x) => self.del(&op_header(x.revision), x)?,
                        ResponseOp::Txn(x) => {
                            format!("\"Unknown\" : {}\n", go_quote(&format!("{x:?}")))
                        }
                    };
                    out.push_str(&part);
                }
            }
        }
        Ok(out)
    }

    pub fn watch(&self, h: &Header, r: &WatchResponse) -> Printed {
        let mut out = String::new();
        match self.format {
            Format::Simple => {
                for e in &r.events {
                    out.push_str(event_type(e));
                    out.push('\n');
                    if let Some(p) = &e.prev_kv {
                        simple_kv(&mut out, self, p);
                    }
                    simple_kv(&mut out, self, &e.kv);
                }
            }
            Format::Json => {
                let _ = writeln!(
                    out,
                    "{{\"Header\":{},\"Events\":{},\"CompactRevision\":{},\"Canceled\":{},\"Created\":false}}",
                    json_header(h),
                    json_list(&r.events, json_event),
                    r.compact_revision,
                    r.canceled
                );
            }
            Format::Table => return self.unsupported(),
            Format::Fields => {
                fields_hdr(&mut out, h);
                for e in &r.events {
                    let _ = writeln!(out, "\"Type\" : {}", event_type(e));
                    if let Some(p) = &e.prev_kv {
                        fields_kv(&mut out, "Prev", p);
                    }
                    fields_kv(&mut out, "", &e.kv);
                }
            }
        }
        Ok(out)
    }

    pub fn grant(&self, h: &Header, id: i64, ttl: i64) -> Printed {
        match self.format {
            Format::Simple => Ok(format!("lease {id:016x} granted with TTL({ttl}s)\n")),
            Format::Json => Ok(json_header_fields(Obj::new(), h)
                .raw("ID", &id.to_string())
                .raw("TTL", &ttl.to_string())
                .raw("Error", "\"\"")
                .done()
                + "\n"),
            Format::Table => self.unsupported(),
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                let _ = writeln!(out, "\"ID\" : {id}");
                let _ = writeln!(out, "\"TTL\" : {ttl}");
                Ok(out)
            }
        }
    }

    pub fn revoke(&self, h: &Header, id: i64) -> Printed {
        match self.format {
            Format::Simple => Ok(format!("lease {id:016x} revoked\n")),
            Format::Json => Ok(Obj::new().raw("header", &json_header(h)).done() + "\n"),
            Format::Table => self.unsupported(),
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                Ok(out)
            }
        }
    }

    pub fn keep_alive(&self, h: &Header, id: i64, ttl: i64) -> Printed {
        match self.format {
            Format::Simple => Ok(format!("lease {id:016x} keepalived with TTL({ttl})\n")),
            Format::Json => Ok(json_header_fields(Obj::new(), h)
                .raw("ID", &id.to_string())
                .raw("TTL", &ttl.to_string())
                .done()
                + "\n"),
            Format::Table => self.unsupported(),
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                let _ = writeln!(out, "\"ID\" : {id}");
                let _ = writeln!(out, "\"TTL\" : {ttl}");
                Ok(out)
            }
        }
    }

    pub fn time_to_live(&self, h: &Header, t: &TimeToLive, keys: bool) -> Printed {
        match self.format {
            Format::Simple => {
                if t.granted_ttl == 0 && t.ttl == -1 {
                    return Ok(format!("lease {:016x} already expired\n", t.id));
                }
                let mut txt = format!(
                    "lease {:016x} granted with TTL({}s), remaining({}s)",
                    t.id, t.granted_ttl, t.ttl
                );
                if keys {
                    let ks: Vec<String> = t
                        .keys
                        .iter()
                        .map(|k| String::from_utf8_lossy(k).into_owned())
                        .collect();
                    let _ = write!(txt, ", attached keys([{}])", ks.join(" "));
                }
                Ok(txt + "\n")
            }
            Format::Json => {
                let keys = if t.keys.is_empty() {
                    "null".to_string()
                } else {
                    json_list(&t.keys, |k| format!("\"{}\"", base64(k)))
                };
                Ok(json_header_fields(Obj::new(), h)
                    .raw("id", &t.id.to_string())
                    .raw("ttl", &t.ttl.to_string())
                    .raw("granted-ttl", &t.granted_ttl.to_string())
                    .raw("keys", &keys)
                    .done()
                    + "\n")
            }
            Format::Table => self.unsupported(),
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                let _ = writeln!(out, "\"ID\" : {}", t.id);
                let _ = writeln!(out, "\"TTL\" : {}", t.ttl);
                let _ = writeln!(out, "\"GrantedTTL\" : {}", t.granted_ttl);
                for k in &t.keys {
                    let _ = writeln!(out, "\"Key\" : {}", go_quote_bytes(k));
                }
                Ok(out)
            }
        }
    }

    pub fn leases(&self, h: &Header, ids: &[i64]) -> Printed {
        match self.format {
            Format::Simple => {
                let mut out = format!("found {} leases\n", ids.len());
                for id in ids {
                    let _ = writeln!(out, "{id:016x}");
                }
                Ok(out)
            }
            Format::Json => Ok(json_header_fields(Obj::new(), h)
                .raw("leases", &json_list(ids, |id| format!("{{\"id\":{id}}}")))
                .done()
                + "\n"),
            Format::Table => self.unsupported(),
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                for id in ids {
                    let _ = writeln!(out, "\"ID\" : {id}");
                }
                Ok(out)
            }
        }
    }

    /// Alarm responses have no header; the fields printer dereferences it anyway (a Go
    /// panic, which the caller prints).
    pub fn alarm(&self, alarms: &[AlarmMember]) -> Printed {
        match self.format {
            Format::Simple => Ok(alarms
                .iter()
                .map(|a| format!("memberID:{} alarm:{} \n", a.member_id, a.alarm.name()))
                .collect()),
            Format::Json => {
                let mut o = Obj::new();
                if !alarms.is_empty() {
                    o = o.raw(
                        "alarms",
                        &json_list(alarms, |a| {
                            Obj::new()
                                .int_nz("memberID", a.member_id.into())
                                .int_nz("alarm", a.alarm as i128)
                                .done()
                        }),
                    );
                }
                Ok(o.done() + "\n")
            }
            Format::Table | Format::Fields => self.unsupported(),
        }
    }

    pub fn member_list(&self, h: &Header, members: &[MemberInfo]) -> Printed {
        match self.format {
            Format::Simple => Ok(lines(&member_rows(members))),
            Format::Table => Ok(table(&MEMBER_HDR, &member_rows(members))),
            Format::Json => {
                let list = json_list(members, |m| {
                    let id = if self.hex {
                        format!("\"{:x}\"", m.id)
                    } else {
                        m.id.to_string()
                    };
                    json_member(m, &id)
                });
                let hdr = if self.hex {
                    Obj::new()
                        .raw("cluster_id", &format!("\"{:x}\"", h.cluster_id))
                        .raw("member_id", &format!("\"{:x}\"", h.member_id))
                        .raw("raft_term", &h.raft_term.to_string())
                        .done()
                } else {
                    json_header(h)
                };
                Ok(Obj::new().raw("header", &hdr).raw("members", &list).done() + "\n")
            }
            Format::Fields => {
                let mut out = String::new();
                fields_hdr(&mut out, h);
                for m in members {
                    let _ = writeln!(out, "\"ID\" : {}", m.id);
                    let _ = writeln!(out, "\"Name\" : {}", go_quote(&m.name));
                    for u in &m.peer_urls {
                        let _ = writeln!(out, "\"PeerURL\" : {}", go_quote(u));
                    }
                    for u in &m.client_urls {
                        let _ = writeln!(out, "\"ClientURL\" : {}", go_quote(u));
                    }
                    let _ = writeln!(out, "\"IsLearner\" : {}", m.is_learner);
                    out.push('\n');
                }
                Ok(out)
            }
        }
    }

    pub fn member_add(&self, h: &Header, m: &MemberInfo, members: &[MemberInfo]) -> Printed {
        match self.format {
            Format::Simple => Ok(format!(
                "Member {:16x} added{}to cluster {:16x}\n",
                m.id,
                if m.is_learner { " as learner " } else { " " },
                h.cluster_id
            )),
            Format::Json => {
                let member = |m: &MemberInfo| json_member(m, &m.id.to_string());
                Ok(Obj::new()
                    .raw("header", &json_header(h))
                    .raw("member", &member(m))
                    .raw("members", &json_list(members, member))
                    .done()
                    + "\n")
            }
            Format::Table | Format::Fields => self.unsupported(),
        }
    }

    /// `member remove` / `member promote`: `verb` is `removed from` or `promoted in`.
    pub fn member_changed(
        &self,
        h: &Header,
        id: u64,
        verb: &str,
        members: &[MemberInfo],
    ) -> Printed {
        match self.format {
            Format::Simple => Ok(format!(
                "Member {id:16x} {verb} cluster {:16x}\n",
                h.cluster_id
            )),
            Format::Json => {
                let member = |m: &MemberInfo| json_member(m, &m.id.to_string());
                Ok(Obj::new()
                    .raw("header", &json_header(h))
                    .raw("members", &json_list(members, member))
                    .done()
                    + "\n")
            }
            Format::Table | Format::Fields => self.unsupported(),
        }
    }

    /// Health goes to stderr in the simple format: returns (stdout, stderr).
    pub fn endpoint_health(&self, list: &[EpHealth]) -> Result<(String, String), Unsupported> {
        match self.format {
            Format::Simple => {
                let mut err = String::new();
                for h in list {
                    if h.error.is_empty() {
                        let _ = writeln!(
                            err,
                            "{} is healthy: successfully committed proposal: took = {}",
                            h.ep, h.took
                        );
                    } else {
                        let _ = writeln!(
                            err,
                            "{} is unhealthy: failed to commit proposal: {}",
                            h.ep, h.error
                        );
                    }
                }
                Ok((String::new(), err))
            }
            Format::Json => Ok((
                json_list(list, |h| {
                    Obj::new()
                        .raw("endpoint", &json_str(&h.ep))
                        .raw("health", &h.health.to_string())
                        .raw("took", &json_str(&h.took))
                        .str_nz("error", &h.error)
                        .done()
                }) + "\n",
                String::new(),
            )),
            Format::Table => {
                let rows: Vec<Vec<String>> = list
                    .iter()
                    .map(|h| {
                        vec![
                            h.ep.clone(),
                            h.health.to_string(),
                            h.took.clone(),
                            h.error.clone(),
                        ]
                    })
                    .collect();
                Ok((
                    table(&["endpoint", "health", "took", "error"], &rows),
                    String::new(),
                ))
            }
            Format::Fields => {
                let mut out = String::new();
                for h in list {
                    let _ = writeln!(out, "\"Endpoint\" : {}", go_quote(&h.ep));
                    let _ = writeln!(out, "\"Health\" : {}", h.health);
                    let _ = writeln!(out, "\"Took\" : {}", h.took);
                    let _ = writeln!(out, "\"Error\" : {}", h.error);
                    out.push('\n');
                }
                Ok((out, String::new()))
            }
        }
    }

    pub fn endpoint_status(&self, list: &[EpStatus]) -> Printed {
        match self.format {
            Format::Simple => Ok(lines(&status_rows(list))),
            Format::Table => Ok(table(&STATUS_HDR, &status_rows(list))),
            Format::Json => Ok(json_list(list, |s| {
                let mut o = Obj::new()
                    .raw("header", &json_header(&s.header))
                    .str_nz("version", &s.version)
                    .int_nz("dbSize", s.db_size.into())
                    .int_nz("leader", s.leader.into())
                    .int_nz("raftIndex", s.raft_index.into())
                    .int_nz("raftTerm", s.raft_term.into())
                    .int_nz("raftAppliedIndex", s.raft_applied_index.into());
                if !s.errors.is_empty() {
                    o = o.raw("errors", &json_list(&s.errors, |e| json_str(e)));
                }
                let status = o
                    .int_nz("dbSizeInUse", s.db_size_in_use.into())
                    .bool_nz("isLearner", s.is_learner)
                    .done();
                Obj::new()
                    .raw("Endpoint", &json_str(&s.ep))
                    .raw("Status", &status)
                    .done()
            }) + "\n"),
            Format::Fields => {
                let mut out = String::new();
                for s in list {
                    fields_hdr(&mut out, &s.header);
                    let _ = writeln!(out, "\"Version\" : {}", go_quote(&s.version));
                    let _ = writeln!(out, "\"DBSize\" : {}", s.db_size);
                    let _ = writeln!(out, "\"Leader\" : {}", s.leader);
                    let _ = writeln!(out, "\"IsLearner\" : {}", s.is_learner);
                    let _ = writeln!(out, "\"RaftIndex\" : {}", s.raft_index);
                    let _ = writeln!(out, "\"RaftTerm\" : {}", s.raft_term);
                    let _ = writeln!(out, "\"RaftAppliedIndex\" : {}", s.raft_applied_index);
                    let _ = writeln!(out, "\"Errors\" : [{}]", s.errors.join(" "));
                    let _ = writeln!(out, "\"Endpoint\" : {}", go_quote(&s.ep));
                    out.push('\n');
                }
                Ok(out)
            }
        }
    }

    pub fn endpoint_hashkv(&self, list: &[EpHash]) -> Printed {
        let rows: Vec<Vec<String>> = list
            .iter()
            .map(|h| vec![h.ep.clone(), h.hash.to_string()])
            .collect();
        match self.format {
            Format::Simple => Ok(lines(&rows)),
            Format::Table => Ok(table(&["endpoint", "hash"], &rows)),
            Format::Json => Ok(json_list(list, |h| {
                let hk = Obj::new()
                    .raw("header", &json_header(&h.header))
                    .int_nz("hash", h.hash.into())
                    .int_nz("compact_revision", h.compact_revision.into())
                    .done();
                Obj::new()
                    .raw("Endpoint", &json_str(&h.ep))
                    .raw("HashKV", &hk)
                    .done()
            }) + "\n"),
            Format::Fields => {
                let mut out = String::new();
                for h in list {
                    fields_hdr(&mut out, &h.header);
                    let _ = writeln!(out, "\"Endpoint\" : {}", go_quote(&h.ep));
                    let _ = writeln!(out, "\"Hash\" : {}", h.hash);
                    out.push('\n');
                }
                Ok(out)
            }
        }
    }

    pub fn db_status(&self, s: &DbStatus) -> Printed {
        let row = vec![
            format!("{:x}", s.hash),
            s.revision.to_string(),
            s.total_key.to_string(),
            humanize_bytes(s.total_size.max(0) as u64),
        ];
        match self.format {
            Format::Simple => Ok(lines(&[row])),
            Format::Table => Ok(table(
                &["hash", "revision", "total keys", "total size"],
                &[row],
            )),
            Format::Json => Ok(format!(
                "{{\"hash\":{},\"revision\":{},\"totalKey\":{},\"totalSize\":{}}}\n",
                s.hash, s.revision, s.total_key, s.total_size
            )),
            Format::Fields => Ok(format!(
                "\"Hash\" : {}\n\"Revision\" : {}\n\"Keys\" : {}\n\"Size\" : {}\n",
                s.hash, s.revision, s.total_key, s.total_size
            )),
        }
    }

    pub fn move_leader(&self, h: &Header, leader: u64, target: u64) -> Printed {
        match self.format {
            Format::Simple => Ok(format!(
                "Leadership transferred from {leader:x} to {target:x}\n"
            )),
            Format::Json => Ok(Obj::new().raw("header", &json_header(h)).done() + "\n"),
            Format::Table | Format::Fields => self.unsupported(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: Header = Header {
        cluster_id: 5309295613060013864,
        member_id: 16248736461173127023,
        revision: 2,
        raft_term: 2,
    };

    fn kv(k: &str, v: &str, c: i64, m: i64, ver: i64) -> KeyValue {
        KeyValue {
            key: k.into(),
            value: v.into(),
            create_revision: c,
            mod_revision: m,
            version: ver,
            lease: 0,
        }
    }

    #[test]
    fn json_get_matches_fixture_a03() {
        let p = Printer::new(Format::Json, false);
        let r = RangeResponse {
            revision: 2,
            kvs: vec![kv("foo", "bar", 2, 2, 1)],
            more: false,
            count: 1,
        };
        assert_eq!(
            p.get(&H, &r).unwrap(),
            "{\"header\":{\"cluster_id\":5309295613060013864,\"member_id\":16248736461173127023,\"revision\":2,\"raft_term\":2},\"kvs\":[{\"key\":\"Zm9v\",\"create_revision\":2,\"mod_revision\":2,\"version\":1,\"value\":\"YmFy\"}],\"count\":1}\n"
        );
    }

    #[test]
    fn simple_and_fields_kv() {
        let r = RangeResponse {
            revision: 2,
            kvs: vec![kv("multi", "line1\nline2\n", 17, 17, 1)],
            more: false,
            count: 1,
        };
        let hex = Printer::new(Format::Simple, true);
        assert_eq!(
            hex.get(&H, &r).unwrap(),
            "\\x6d\\x75\\x6c\\x74\\x69\n\\x6c\\x69\\x6e\\x65\\x31\\x0a\\x6c\\x69\\x6e\\x65\\x32\\x0a\n"
        );
        let f = Printer::new(Format::Fields, false).get(&H, &r).unwrap();
        assert!(f.contains(
            "\"Value\" : \"line1\\nline2\\n\"\n\"Lease\" : 0\n\"More\" : false\n\"Count\" : 1\n"
        ));
    }

    #[test]
    fn table_matches_tablewriter() {
        let t = table(
            &["endpoint", "hash"],
            &[vec!["127.0.0.1:23790".into(), "2868517058".into()]],
        );
        assert_eq!(
            t,
            "+-----------------+------------+\n|    ENDPOINT     |    HASH    |\n+-----------------+------------+\n| 127.0.0.1:23790 | 2868517058 |\n+-----------------+------------+\n"
        );
        assert_eq!(
            table(&["endpoint", "hash"], &[]),
            "+----------+------+\n| ENDPOINT | HASH |\n+----------+------+\n+----------+------+\n"
        );
    }

    #[test]
    fn go_numbers() {
        assert_eq!(humanize_bytes(20480), "20 kB");
        assert_eq!(humanize_bytes(1232896), "1.2 MB");
        assert_eq!(humanize_bytes(5), "5 B");
        assert_eq!(humanize_bytes(25_000), "25 kB");
        assert_eq!(base64(b"bar3"), "YmFyMw==");
        assert_eq!(base64(b"dir/a"), "ZGlyL2E=");
        assert_eq!(go_duration_us(3765), "3.765ms");
        assert_eq!(go_duration_us(5_000_299), "5.000299s");
        assert_eq!(go_duration_us(879), "879µs");
    }
}
