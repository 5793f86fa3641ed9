//! `resource.Quantity`'s canonical string (apimachinery `pkg/api/resource/quantity.go`),
//! written by hand because the apiserver prints exactly what Go's `ParseQuantity(s).String()`
//! does, rounding and suffix choice included.

pub(super) const QUANTITY_FORMAT: &str = "quantities must match the regular expression \
    '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIX: &str = "unable to parse quantity's suffix";
const QUANTITY_NUMERIC: &str = "unable to parse quantity's numeric value";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySi,
    DecimalSi,
}

/// A quantity split as `ParseQuantity` splits it: sign, integer digits (leading zeros
/// dropped), fraction digits, and the suffix.
struct Parts<'a> {
    negative: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

/// What Go's `resource.ParseQuantity(s).String()` prints: the input itself when it is
/// already canonical, else the value rounded up to nanos, with the largest suffix that keeps
/// it an integer (binary suffixes only for integers of at least 1024). Mantissas beyond 38
/// digits are refused.
pub(super) fn quantity(s: &str) -> Result<String, String> {
    if s.is_empty() {
        return Err(QUANTITY_FORMAT.into());
    }
    if s == "0" {
        return Ok(s.into());
    }
    let parts = split(s)?;
    let (format, exponent) = suffix_exponent(parts.suffix)?;
    let binary = format == Format::BinarySi;
    let digits = format!("{}{}", parts.num, parts.denom);
    let mut mantissa = digits
        .bytes()
        .try_fold(0i128, |m, c| {
            m.checked_mul(10)?.checked_add(i128::from(c - b'0'))
        })
        .ok_or(QUANTITY_NUMERIC)?;
    if binary {
        mantissa = mantissa
            .checked_mul(1 << exponent)
            .ok_or(QUANTITY_NUMERIC)?;
    }
    let scale = if binary { 0 } else { exponent } - parts.denom.len() as i64;
    if keeps_input(&parts, &digits, binary, exponent, scale, mantissa) {
        return Ok(s.into());
    }
    if parts.negative {
        mantissa = -mantissa;
    }
    let (mantissa, scale) = round_up_to_nanos(mantissa, scale);
    if mantissa == 0 {
        return Ok("0".into());
    }
    if !binary {
        return Ok(decimal(mantissa, scale, format));
    }
    let (mantissa, scale) = cap_binary(mantissa, scale);
    Ok(binary_suffixed(mantissa, scale).unwrap_or_else(|| decimal(mantissa, scale, format)))
}

/// Sign, digits and suffix; the suffix must look like one (`[eEinumkKMGTP]*[-+]?[0-9]*`).
fn split(s: &str) -> Result<Parts<'_>, String> {
    let (negative, unsigned) = match s.as_bytes()[0] {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let unsigned = unsigned.trim_start_matches('0');
    let num_len = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    let num = if num_len == 0 {
        "0"
    } else {
        &unsigned[..num_len]
    };
    let mut suffix = &unsigned[num_len..];
    let mut denom = "";
    if let Some(after_dot) = suffix.strip_prefix('.') {
        let n = after_dot.bytes().take_while(u8::is_ascii_digit).count();
        (denom, suffix) = after_dot.split_at(n);
    }
    let exponent_digits = suffix.trim_start_matches(|c| "eEinumkKMGTP".contains(c));
    let exponent_digits = exponent_digits
        .strip_prefix(['+', '-'])
        .unwrap_or(exponent_digits);
    if !exponent_digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(QUANTITY_FORMAT.into());
    }
    Ok(Parts {
        negative,
        num,
        denom,
        suffix,
    })
}

/// The format a suffix selects and its exponent (of 10, or of 2 for binary suffixes).
fn suffix_exponent(suffix: &str) -> Result<(Format, i64), String> {
    Ok(match suffix {
        "n" => (Format::DecimalSi, -9),
        "u" => (Format::DecimalSi, -6),
        "m" => (Format::DecimalSi, -3),
        "" => (Format::DecimalSi, 0),
        "k" => (Format::DecimalSi, 3),
        "M" => (Format::DecimalSi, 6),
        "G" => (Format::DecimalSi, 9),
        "T" => (Format::DecimalSi, 12),
        "P" => (Format::DecimalSi, 15),
        "E" => (Format::DecimalSi, 18),
        "Ki" => (Format::BinarySi, 10),
        "Mi" => (Format::BinarySi, 20),
        "Gi" => (Format::BinarySi, 30),
        "Ti" => (Format::BinarySi, 40),
        "Pi" => (Format::BinarySi, 50),
        "Ei" => (Format::BinarySi, 60),
        _ if suffix.len() > 1 && suffix.starts_with(['e', 'E']) => {
            let e = suffix[1..].parse::<i64>().map_err(|_| QUANTITY_SUFFIX)?;
            (Format::DecimalExponent, i64::from(e as i32))
        }
        _ => return Err(QUANTITY_SUFFIX.into()),
    })
}

/// Go keeps the input string when it takes the int64 fast path and the input is canonical.
fn keeps_input(
    parts: &Parts,
    digits: &str,
    binary: bool,
    exponent: i64,
    scale: i64,
    mantissa: i128,
) -> bool {
    let precision = match (binary, parts.denom.is_empty()) {
        (false, _) => 18 - digits.len() as i64,
        (true, true) => 15 - parts.num.len() as i64 - exponent * 3 / 10 - 1,
        (true, false) => -1,
    };
    if precision < 0 || scale < -9 || i64::try_from(mantissa).is_err() {
        return false;
    }
    match binary {
        true => parts.num.parse::<i64>().is_ok_and(|v| v & 7 != 0),
        false => scale % 3 == 0 && !digits.ends_with("000") && !digits.starts_with('0'),
    }
}

/// Rounded up (away from zero) to nanos.
fn round_up_to_nanos(mantissa: i128, scale: i64) -> (i128, i64) {
    if scale >= -9 || mantissa == 0 {
        return (mantissa, scale);
    }
    let rounded = match pow10(-9 - scale) {
        Some(p) if mantissa % p == 0 => mantissa / p,
        Some(p) => mantissa / p + mantissa.signum(),
        None => mantissa.signum(),
    };
    (rounded, -9)
}

/// Binary quantities are capped at 2^63-1 (scale <= 0 here).
fn cap_binary(mantissa: i128, scale: i64) -> (i128, i64) {
    let max = i128::from(i64::MAX);
    let limit = pow10(-scale).and_then(|p| max.checked_mul(p));
    if limit.is_some_and(|limit| mantissa.abs() > limit) {
        (max * mantissa.signum(), 0)
    } else {
        (mantissa, scale)
    }
}

/// An integer of at least 1024 with the largest binary suffix that divides it.
fn binary_suffixed(mantissa: i128, scale: i64) -> Option<String> {
    let mut v = pow10(-scale)
        .filter(|p| mantissa % p == 0)
        .map(|p| mantissa / p)
        .filter(|v| v.abs() >= 1024)?;
    let mut k = 0;
    while v % 1024 == 0 && k < 6 {
        v /= 1024;
        k += 1;
    }
    Some(format!(
        "{v}{}",
        ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][k]
    ))
}

/// 10^n, when it fits.
fn pow10(n: i64) -> Option<i128> {
    10i128.checked_pow(u32::try_from(n).ok()?)
}

/// `mantissa × 10^scale` with an exponent that is a multiple of 3, as `CanonicalizeBytes` does.
fn decimal(mut mantissa: i128, mut scale: i64, format: Format) -> String {
    while mantissa != 0 && mantissa % 10 == 0 {
        mantissa /= 10;
        scale += 1;
    }
    let pad = scale.rem_euclid(3);
    scale -= pad;
    let suffix = match (format, scale) {
        (Format::DecimalExponent, 0) => String::new(),
        (Format::DecimalExponent, e) => format!("e{e}"),
        (_, e) => {
            let si = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"];
            // Go has no suffix beyond E and prints none (the value is then wrong, as in Go).
            let i = usize::try_from(e / 3 + 3).ok().filter(|_| e % 3 == 0);
            i.and_then(|i| si.get(i))
                .copied()
                .unwrap_or_default()
                .into()
        }
    };
    format!("{mantissa}{}{suffix}", "0".repeat(pad as usize))
}
