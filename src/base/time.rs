//! The calendar: Unix time to UTC dates and back (proleptic Gregorian), and the date formats
//! the tools print (RFC 3339 at three precisions, RFC 1123, `date`'s names), so every layer
//! shows a wall-clock time the same way.

use std::fmt;

const DAY_S: i64 = 86_400;

/// English day abbreviations, from Thursday: 1970-01-01 was a Thursday.
const WEEKDAYS_FROM_THURSDAY: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The inverse of [`civil_from_days`] (`days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = y - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// A UTC date and time of day, to the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Civil {
    pub year: i64,
    /// 1..=12.
    pub month: i64,
    /// 1..=31.
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    /// Days since 1970-01-01 (for the weekday).
    days: i64,
}

impl Civil {
    pub fn from_unix_s(unix_s: i64) -> Civil {
        let (days, second_of_day) = (unix_s.div_euclid(DAY_S), unix_s.rem_euclid(DAY_S));
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: second_of_day / 3600,
            minute: second_of_day % 3600 / 60,
            second: second_of_day % 60,
            days,
        }
    }

    /// `Thu`, `Fri`, ...
    pub fn weekday_abbrev(&self) -> &'static str {
        WEEKDAYS_FROM_THURSDAY[self.days.rem_euclid(7) as usize]
    }

    /// `Jan`, `Feb`, ...
    pub fn month_abbrev(&self) -> &'static str {
        MONTHS[(self.month - 1).clamp(0, 11) as usize]
    }

    /// `2026-01-01` (Go writes years before 1 AD as `-0001`).
    pub fn date(&self) -> impl fmt::Display + '_ {
        fmt::from_fn(|f| {
            let (y, m, d) = (self.year, self.month, self.day);
            let sign = if y < 0 { "-" } else { "" };
            write!(f, "{sign}{:04}-{m:02}-{d:02}", y.abs())
        })
    }

    /// `00:00:05`.
    pub fn time_of_day(&self) -> impl fmt::Display + '_ {
        fmt::from_fn(|f| {
            let (h, m, s) = (self.hour, self.minute, self.second);
            write!(f, "{h:02}:{m:02}:{s:02}")
        })
    }
}

/// `2026-01-01T00:00:05Z` (Go's `time.RFC3339` in UTC) of a Unix time in seconds, with
/// `fraction` (`.123`, or empty) before the `Z`.
pub fn rfc3339_unix_s(unix_s: i64, fraction: &str) -> String {
    let civil = Civil::from_unix_s(unix_s);
    format!("{}T{}{fraction}Z", civil.date(), civil.time_of_day())
}

/// `2026-01-01T00:00:05Z` of Unix milliseconds (the sub-second part dropped).
pub fn rfc3339_seconds(unix_ms: u64) -> String {
    rfc3339_unix_s((unix_ms / 1000) as i64, "")
}

/// `2026-01-01T00:00:05.250Z` of Unix milliseconds (zap's ISO 8601 time encoder).
pub fn rfc3339_millis(unix_ms: u64) -> String {
    rfc3339_unix_s((unix_ms / 1000) as i64, &format!(".{:03}", unix_ms % 1000))
}

/// `2026-01-01T00:00:05.250000Z` of Unix milliseconds (Kubernetes' `MicroTime`).
pub fn rfc3339_micros(unix_ms: u64) -> String {
    rfc3339_unix_s(
        (unix_ms / 1000) as i64,
        &format!(".{:03}000", unix_ms % 1000),
    )
}

/// `Thu, 01 Jan 2026 00:00:05 +0000` (Go's `time.RFC1123Z` in UTC) of Unix seconds.
pub fn rfc1123z(unix_s: i64) -> String {
    let c = Civil::from_unix_s(unix_s);
    format!(
        "{}, {:02} {} {} {} +0000",
        c.weekday_abbrev(),
        c.day,
        c.month_abbrev(),
        c.year,
        c.time_of_day()
    )
}

/// Unix seconds of the first 19 characters of an RFC 3339 time (`2026-01-01T00:00:05`),
/// whatever separates the numbers and follows them; None if a number is missing or the date
/// is before 1970.
pub fn unix_s_of_rfc3339_prefix(text: &str) -> Option<u64> {
    let num = |r: std::ops::Range<usize>| text.get(r).and_then(|s| s.parse::<u64>().ok());
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, s) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let days = u64::try_from(days_from_civil(y as i64, mo as i64, d as i64)).ok()?;
    Some(days * 86_400 + h * 3600 + mi * 60 + s)
}

/// Go's `time.RFC3339` and `time.RFC3339Micro` layouts, as `time.Parse` names them in errors.
const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
const RFC3339_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

/// Go's `time.Parse(RFC3339 or RFC3339Micro, value)` to (Unix seconds, nanoseconds), with its
/// error texts: the layout is walked element by element as Go's `time.parse` does, because
/// the apiserver's errors quote them.
pub fn parse_rfc3339_go(value: &str, micro: bool) -> Result<(i64, i64), String> {
    let parse = GoParse {
        value,
        layout: if micro { RFC3339_MICRO } else { RFC3339 },
    };
    let mut rest = value;
    let [year, month, day, hour, minute, second] = parse.date_and_time(&mut rest)?;
    let nanos = parse.fraction_ns(&mut rest, micro)?;
    let offset_s = parse.zone_offset_s(&mut rest)?;
    if !rest.is_empty() {
        let (v, r) = (go_quote(value), go_quote(rest));
        return Err(format!("parsing time {v}: extra text: {r}"));
    }
    let days = days_from_civil(year, month, day);
    if civil_from_days(days) != (year, month, day) {
        return Err(parse.out_of_range("day"));
    }
    let unix_s = days * DAY_S + hour * 3600 + minute * 60 + second - offset_s;
    Ok((unix_s, nanos))
}

/// One `time.Parse` of `value` against `layout`: the pieces and their error texts.
struct GoParse<'a> {
    value: &'a str,
    layout: &'static str,
}

impl GoParse<'_> {
    fn bad(&self, rest: &str, element: &str) -> String {
        let (v, l) = (go_quote(self.value), go_quote(self.layout));
        let (r, e) = (go_quote(rest), go_quote(element));
        format!("parsing time {v} as {l}: cannot parse {r} as {e}")
    }

    fn out_of_range(&self, what: &str) -> String {
        format!("parsing time {}: {what} out of range", go_quote(self.value))
    }

    /// `2006-01-02T15:04:05`: year, month, day, hour, minute, second.
    fn date_and_time(&self, rest: &mut &str) -> Result<[i64; 6], String> {
        // (literal before, element, fewest digits, valid range, its name in errors)
        let elements = [
            ("", "2006", 4, 0..=9999, ""),
            ("-", "01", 2, 1..=12, "month"),
            ("-", "02", 2, 0..=99, ""),
            ("T", "15", 1, 0..=23, "hour"),
            (":", "04", 2, 0..=59, "minute"),
            (":", "05", 2, 0..=59, "second"),
        ];
        let mut numbers = [0; 6];
        for (i, (literal, element, min, valid, name)) in elements.into_iter().enumerate() {
            *rest = rest
                .strip_prefix(literal)
                .ok_or_else(|| self.bad(rest, literal))?;
            numbers[i] = digits(rest, min, element.len()).ok_or_else(|| self.bad(rest, element))?;
            if !valid.contains(&numbers[i]) {
                return Err(self.out_of_range(name));
            }
        }
        Ok(numbers)
    }

    /// `.000000` in the micro layout; elsewhere a fraction the layout does not name is
    /// accepted (and dropped, as metav1.Time drops it).
    fn fraction_ns(&self, rest: &mut &str, micro: bool) -> Result<i64, String> {
        if micro {
            let mut after = rest.get(1..).unwrap_or_default();
            return match digits(&mut after, 6, 6) {
                Some(micros) if rest.starts_with(['.', ',']) => {
                    *rest = after;
                    Ok(micros * 1000)
                }
                _ => Err(self.bad(rest, ".000000")),
            };
        }
        if rest.starts_with(['.', ',']) && rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
            *rest = rest[1..].trim_start_matches(|c: char| c.is_ascii_digit());
        }
        Ok(0)
    }

    /// `Z07:00`: `Z`, or `+hh:mm` / `-hh:mm`, in seconds east of UTC.
    fn zone_offset_s(&self, rest: &mut &str) -> Result<i64, String> {
        if let Some(after) = rest.strip_prefix('Z') {
            *rest = after;
            return Ok(0);
        }
        let (mut h, mut m) = (
            rest.get(1..3).unwrap_or_default(),
            rest.get(4..6).unwrap_or_default(),
        );
        let (Some(hh), Some(mm), Some(":")) =
            (digits(&mut h, 2, 2), digits(&mut m, 2, 2), rest.get(3..4))
        else {
            return Err(self.bad(rest, "Z07:00"));
        };
        // Go checks the hour, then the minute; the last failure names the error.
        match (hh > 24, mm > 60) {
            (_, true) => return Err(self.out_of_range("time zone offset minute")),
            (true, _) => return Err(self.out_of_range("time zone offset hour")),
            _ => {}
        }
        let sign = match rest.as_bytes()[0] {
            b'+' => 1,
            b'-' => -1,
            _ => return Err(self.bad(rest, "Z07:00")),
        };
        *rest = &rest[6..];
        Ok(sign * (hh * 60 + mm) * 60)
    }
}

/// Between `min` and `max` ASCII digits at the start of `rest`, as Go's getnum and atoi read
/// them; `rest` moves past them.
fn digits(rest: &mut &str, min: usize, max: usize) -> Option<i64> {
    let n = rest
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    let v = (n >= min)
        .then(|| rest[..n].parse::<i64>().ok())
        .flatten()?;
    *rest = &rest[n..];
    Some(v)
}

/// Go's `time.quote`: double quotes, `\"` and `\\` escaped, other bytes outside printable
/// ASCII as `\xNN`.
fn go_quote(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_dates_convert_both_ways() {
        // (days since 1970-01-01, date)
        let table = [
            (0, (1970, 1, 1)),
            (-1, (1969, 12, 31)),
            (59, (1970, 3, 1)),
            (11_016, (2000, 2, 29)),
            (11_017, (2000, 3, 1)),
            (19_782, (2024, 2, 29)),
            (20_454, (2026, 1, 1)),
            (20_512, (2026, 2, 28)),
            (20_513, (2026, 3, 1)),
            (-719_162, (1, 1, 1)),
        ];
        for (days, (y, m, d)) in table {
            assert_eq!(civil_from_days(days), (y, m, d), "{days}");
            assert_eq!(days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
        // 1900 and 2100 are not leap years: February 29 rolls over to March 1.
        for y in [1900, 2100] {
            assert_eq!(civil_from_days(days_from_civil(y, 2, 29)), (y, 3, 1), "{y}");
        }
    }

    #[test]
    fn formats_are_the_tools() {
        let t_ms = 1_767_225_605_250; // 2026-01-01T00:00:05.250Z, a Thursday
        assert_eq!(rfc3339_seconds(t_ms), "2026-01-01T00:00:05Z");
        assert_eq!(rfc3339_millis(t_ms), "2026-01-01T00:00:05.250Z");
        assert_eq!(rfc3339_micros(t_ms), "2026-01-01T00:00:05.250000Z");
        assert_eq!(rfc1123z(1_767_225_605), "Thu, 01 Jan 2026 00:00:05 +0000");
        assert_eq!(rfc3339_seconds(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_unix_s(951_782_400, ""), "2000-02-29T00:00:00Z");
        assert_eq!(
            rfc3339_unix_s(-62_198_755_200, ".000001"),
            "-0001-01-01T00:00:00.000001Z"
        );
        let leap = Civil::from_unix_s(1_709_164_800); // 2024-02-29, a Thursday
        assert_eq!((leap.weekday_abbrev(), leap.month_abbrev()), ("Thu", "Feb"));
        assert_eq!(Civil::from_unix_s(-1).weekday_abbrev(), "Wed");
    }

    #[test]
    fn rfc3339_prefixes_read_back() {
        assert_eq!(
            unix_s_of_rfc3339_prefix("2026-01-01T00:00:05Z"),
            Some(1_767_225_605)
        );
        assert_eq!(
            unix_s_of_rfc3339_prefix("2024-02-29T12:00:00.5+01:00"),
            Some(1_709_208_000)
        );
        assert_eq!(unix_s_of_rfc3339_prefix("1970-01-01T00:00:00"), Some(0));
        for bad in [
            "",
            "2026-01-01",
            "2026-01-01T00:00:xxZ",
            "soon",
            "1969-12-31T23:59:59Z",
        ] {
            assert_eq!(unix_s_of_rfc3339_prefix(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn go_parse_errors_are_gos() {
        assert_eq!(
            parse_rfc3339_go("2026-01-01T00:00:05Z", false),
            Ok((1_767_225_605, 0))
        );
        assert_eq!(
            parse_rfc3339_go("2026-01-01T01:00:05.250000+01:00", true),
            Ok((1_767_225_605, 250_000_000))
        );
        assert_eq!(
            parse_rfc3339_go("2025-02-29T00:00:00Z", false),
            Err(r#"parsing time "2025-02-29T00:00:00Z": day out of range"#.into())
        );
        assert_eq!(
            parse_rfc3339_go("2026-01-01", false),
            Err(r#"parsing time "2026-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#.into())
        );
        assert_eq!(
            parse_rfc3339_go("2026-01-01T00:00:05Zz", false),
            Err(r#"parsing time "2026-01-01T00:00:05Zz": extra text: "z""#.into())
        );
    }

    proptest::proptest! {
        #[test]
        fn times_round_trip(secs in -62_135_596_800i64..253_402_300_800, micros in 0i64..1_000_000) {
            let text = rfc3339_unix_s(secs, &format!(".{micros:06}"));
            proptest::prop_assert_eq!(parse_rfc3339_go(&text, true), Ok((secs, micros * 1000)));
            proptest::prop_assert_eq!(parse_rfc3339_go(&rfc3339_unix_s(secs, ""), false), Ok((secs, 0)));
        }
    }
}
