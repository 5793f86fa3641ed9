//! Shared vocabulary: ids, virtual time, the calendar, and the seeded generator.
//!
//! Nothing here reads a clock or an OS random source: time is a number the driver passes in,
//! randomness comes from a seed the driver hands over.

mod rng;
pub(crate) mod sharing;
pub mod time;

pub use rng::Rng;

use serde::{Deserialize, Serialize};
use std::fmt;

/// A Raft term.
pub type Term = u64;
/// A Raft log index (1-based; 0 means "none").
pub type Index = u64;
/// An MVCC revision.
pub type Revision = i64;
/// Virtual time in milliseconds since the world started.
pub type Millis = u64;

/// A member of the cluster: `m1`, `m2`, ... (0 is never a member).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct MemberId(pub u64);

impl MemberId {
    /// Parses `m3` into `MemberId(3)`.
    pub fn parse(name: &str) -> Option<MemberId> {
        let digits = name.strip_prefix('m')?;
        if digits.is_empty()
            || digits.starts_with('0')
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        digits.parse().ok().map(MemberId)
    }
}

impl fmt::Display for MemberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m{}", self.0)
    }
}

impl fmt::Debug for MemberId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "m{}", self.0)
    }
}

impl From<MemberId> for String {
    fn from(id: MemberId) -> String {
        id.to_string()
    }
}

impl TryFrom<String> for MemberId {
    type Error = String;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        MemberId::parse(&s).ok_or_else(|| format!("bad member name {s:?}"))
    }
}

/// Formats a virtual duration the way the scripts accept it back: `1.5s`, `250ms`.
pub fn format_duration(ms: Millis) -> String {
    if ms >= 1000 && ms.is_multiple_of(100) {
        let whole = ms / 1000;
        let tenths = (ms % 1000) / 100;
        if tenths == 0 {
            format!("{whole}s")
        } else {
            format!("{whole}.{tenths}s")
        }
    } else {
        format!("{ms}ms")
    }
}

/// A duration as scripts and the console write it: Go's form (`250ms`, `1.5s`, `1h30m`), or
/// a bare number of milliseconds.
pub fn parse_duration(text: &str) -> Option<Millis> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(text.parse().unwrap_or(Millis::MAX));
    }
    // Longer than Go allows is still a duration here (saturated): the verb says its limit.
    go_duration_ns(text).map(|ns| (ns / 1e6) as Millis)
}

/// Go's `time.ParseDuration`, in whole milliseconds: etcdctl's and kubectl's flags and the
/// simulator's verbs read durations alike. None where Go returns an error.
pub fn parse_go_duration_ms(s: &str) -> Option<Millis> {
    // Go's durations are int64 nanoseconds: longer ones are invalid.
    go_duration_ns(s)
        .filter(|ns| *ns <= i64::MAX as f64)
        .map(|ns| (ns / 1e6) as Millis)
}

/// The nanoseconds of a duration in Go's syntax, however long.
fn go_duration_ns(s: &str) -> Option<f64> {
    let body = s.strip_prefix('+').unwrap_or(s);
    if body == "0" {
        return Some(0.0);
    }
    if body.is_empty() || body.starts_with('-') {
        return None;
    }
    let mut total_ns: f64 = 0.0;
    let mut rest = body;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let number: f64 = rest[..num_len].parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total_ns += number * unit;
    }
    total_ns.is_finite().then_some(total_ns)
}

pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
pub const FNV_PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a, continuing from `hash`: the trace hash and data digests (any layer may need a
/// stable, seed-free fingerprint: container ids, the checkers' entry digests).
pub fn fnv(mut hash: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

pub fn digest(bytes: &[u8]) -> u64 {
    fnv(FNV_OFFSET, bytes)
}

/// Writes `text` into `out` padded with spaces to `width` characters: before it if
/// `right_aligned`, else after it. `format!`'s `{:>w$}` panics past a width of 65,535, and a
/// pasted value can be wider than that.
pub fn pad(out: &mut String, text: &str, width: usize, right_aligned: bool) {
    let gap = " ".repeat(width.saturating_sub(text.chars().count()));
    if right_aligned {
        out.push_str(&gap);
    }
    out.push_str(text);
    if !right_aligned {
        out.push_str(&gap);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_fills_to_the_width_in_characters_however_wide() {
        let mut out = String::new();
        pad(&mut out, "ü", 3, true);
        pad(&mut out, "x", 2, false);
        assert_eq!(out, "  üx ");
        let wide = "a".repeat(70_000);
        let mut out = String::new();
        pad(&mut out, &wide, 70_001, true);
        assert_eq!(out.len(), 70_001);
    }

    #[test]
    fn member_names_round_trip() {
        assert_eq!(MemberId::parse("m1"), Some(MemberId(1)));
        assert_eq!(
            MemberId::parse("m11").map(|m| m.to_string()),
            Some("m11".into())
        );
        for bad in ["", "m", "m0", "m01", "x1", "m1x", "m-1", "M1"] {
            assert_eq!(MemberId::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn durations_parse_and_format() {
        assert_eq!(parse_duration("250ms"), Some(250));
        assert_eq!(parse_duration("2s"), Some(2000));
        assert_eq!(parse_duration("1.5s"), Some(1500));
        assert_eq!(parse_duration("1m"), Some(60_000));
        assert_eq!(parse_duration("40"), Some(40));
        assert_eq!(parse_duration("1h"), Some(3_600_000));
        assert_eq!(parse_duration("1h30m"), Some(5_400_000));
        assert_eq!(parse_duration("1m30s"), Some(90_000));
        assert_eq!(parse_duration("1s500ms"), Some(1500));
        assert_eq!(parse_duration("+5s"), Some(5000));
        assert_eq!(parse_duration("0"), Some(0));
        assert_eq!(parse_duration("3000000h"), Some(10_800_000_000_000));
        assert_eq!(parse_go_duration_ms("3000000h"), None);
        assert_eq!(parse_duration("99999999999999999999999"), Some(Millis::MAX));
        for bad in ["", "s", "-1s", "1e9s", "nan", "1..2s", "abc", "1d", "1h-5m"] {
            assert_eq!(parse_duration(bad), None, "{bad:?}");
        }
        assert_eq!(format_duration(1500), "1.5s");
        assert_eq!(format_duration(2000), "2s");
        assert_eq!(format_duration(250), "250ms");
    }
}
