//! The fuzzer's generators: a real input (a command, a script, a manifest, a snapshot) taken
//! from the repository's transcripts and changed a few times, in the ways a student, a pasted
//! text or a damaged file changes it: flags swapped or repeated, numbers at their extremes,
//! quotes cut, Unicode tricks, huge values, random bytes.

use crate::base::Rng;
use std::borrow::Cow;

/// Numbers at the edges of every integer and float parser (Go's and Rust's alike).
const EXTREME_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "255",
    "256",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999999",
    "1e308",
    "1e309",
    "-1e308",
    "5e-324",
    "NaN",
    "inf",
    "-inf",
    "0x10",
    "1.5",
    "1_000",
    "+1",
    "00000000000000000000000001",
];

/// Durations and sizes with their units, the other numbers commands read.
const EXTREME_UNITS: &[&str] = &[
    "0s",
    "-1s",
    "1ns",
    "0.000001ms",
    "2562047h",
    "9223372036854775807ns",
    "18446744073709551615ms",
    "1e308s",
    "3h",
    "7199s",
    "1.5m",
    "1Ki",
    "1Ei",
    "9999999Gi",
    "-1Mi",
    "1.5Gi",
];

/// Text that breaks naive string handling: bidirectional overrides, combining marks, NUL,
/// emoji and characters whose case changes their length.
const UNICODE: &[&str] = &[
    "\u{202e}",
    "\u{200f}",
    "\u{0301}",
    "e\u{0301}\u{0301}\u{0301}",
    "\0",
    "🦀",
    "👩‍👩‍👧",
    "\u{200b}",
    "\u{feff}",
    "\u{fffd}",
    "\u{ffff}",
    "İ",
    "ß",
    "ﬁ",
    "Ⅻ",
    "叢集",
    "\u{1f1f9}\u{1f1fc}",
    "\t",
    "\r",
    "\r\n",
    "\x1b[31m",
    "\u{85}",
    "\u{2028}",
];

/// Characters the shell, the flag parsers and YAML give meaning to.
const SPECIALS: &[&str] = &[
    "'", "\"", "\\", "|", "||", "&&", ";", "$(", ")", "`", "$", "${", "}", "$x", "=", "==", "--",
    "-", "-w", "--=", "<<EOF", "<<", ">", ">>", "<", "*", "?", "[", "]", "{", "#", "~", "%", "%zz",
    "%00", ":", ": ", "- ", "&", "!", "@", "^", ",", "/", "//", ".", "..", "\n", "  ",
];

/// Bounds: a value this big is past every limit the engine has (etcd's 1.5 MiB request), and
/// rare enough that a run of millions stays fast.
const HUGE_BYTES: usize = 1_600_000;
const BIG_BYTES: usize = 4_096;

/// Changes `text` one to four times. `donors` are other real inputs: their words and lines
/// are spliced in (a flag of another command, a line of another script).
pub fn text(rng: &mut Rng, text: &str, donors: &[String]) -> String {
    let mut out = text.to_string();
    for _ in 0..rng.range(1, 5) {
        out = once(rng, &out, donors);
    }
    out
}

fn once(rng: &mut Rng, text: &str, donors: &[String]) -> String {
    let mut words = split_words(text);
    match rng.range(0, 14) {
        0 => swap(rng, &mut words),
        1 => duplicate(rng, &mut words),
        2 => remove(rng, &mut words),
        3 => replace_number(rng, &mut words),
        4 => {
            let word = donor_word(rng, donors);
            insert_word(rng, &mut words, word);
        }
        5 => {
            let piece = pick(rng, SPECIALS);
            insert_char(rng, &mut words, piece);
        }
        6 => {
            let piece = pick(rng, UNICODE);
            insert_char(rng, &mut words, piece);
        }
        7 => cut_quote(rng, &mut words),
        8 => grow(rng, &mut words),
        9 => {
            let piece = random_chars(rng);
            insert_char(rng, &mut words, &piece);
        }
        10 => replace_value(rng, &mut words),
        11 => return lines(rng, text, donors),
        12 => return truncate(rng, text),
        _ => {
            let word = donor_word(rng, donors);
            replace_word(rng, &mut words, word);
        }
    }
    words.concat()
}

/// A word of the text being changed: borrowed until a change makes it its own (lesson
/// files have thousands of words and a change touches one or two).
type Word<'a> = Cow<'a, str>;

/// Words with the separators that follow them kept, so joining gives the text back.
fn split_words(text: &str) -> Vec<Word<'_>> {
    text.split_inclusive([' ', '\n', '='])
        .map(Cow::Borrowed)
        .collect()
}

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    rng.pick(items).copied().unwrap_or_default()
}

fn index(rng: &mut Rng, len: usize) -> usize {
    rng.range(0, len as u64) as usize
}

fn swap(rng: &mut Rng, words: &mut [Word]) {
    if words.len() >= 2 {
        let (a, b) = (index(rng, words.len()), index(rng, words.len()));
        words.swap(a, b);
    }
}

fn duplicate(rng: &mut Rng, words: &mut Vec<Word>) {
    if !words.is_empty() {
        let i = index(rng, words.len());
        let word = spaced(&words[i]);
        words.insert(i, word.into());
    }
}

fn remove(rng: &mut Rng, words: &mut Vec<Word>) {
    if !words.is_empty() {
        let i = index(rng, words.len());
        words.remove(i);
    }
}

/// A word that still ends in a separator, so it does not glue onto its neighbour.
fn spaced(word: &str) -> String {
    if word.ends_with([' ', '\n', '=']) {
        word.to_string()
    } else {
        format!("{word} ")
    }
}

/// Every run of digits in a chosen word becomes an extreme number (or a duration or size).
fn replace_number(rng: &mut Rng, words: &mut Vec<Word>) {
    let with_digits: Vec<usize> = (0..words.len())
        .filter(|i| words[*i].bytes().any(|b| b.is_ascii_digit()))
        .collect();
    let extreme = if rng.chance(0.3) {
        pick(rng, EXTREME_UNITS)
    } else {
        pick(rng, EXTREME_NUMBERS)
    };
    let Some(&i) = rng.pick(&with_digits) else {
        insert_word(rng, words, extreme.to_string());
        return;
    };
    let word = &words[i];
    let start = word.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
    let end = word[start..]
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .map_or(word.len(), |n| start + n);
    words[i] = format!("{}{extreme}{}", &word[..start], &word[end..]).into();
}

/// The value after a `--flag=` or a key: becomes empty, extreme, or another flag.
fn replace_value(rng: &mut Rng, words: &mut [Word]) {
    let values: Vec<usize> = (1..words.len())
        .filter(|i| words[i - 1].ends_with('='))
        .collect();
    if let Some(&i) = rng.pick(&values) {
        let tail = if words[i].ends_with(' ') { " " } else { "" };
        let value = match rng.range(0, 4) {
            0 => String::new(),
            1 => pick(rng, EXTREME_NUMBERS).to_string(),
            2 => pick(rng, UNICODE).to_string(),
            _ => "--".to_string(),
        };
        words[i] = (value + tail).into();
    }
}

fn insert_word(rng: &mut Rng, words: &mut Vec<Word>, word: String) {
    let i = index(rng, words.len() + 1);
    words.insert(i, spaced(&word).into());
}

fn replace_word(rng: &mut Rng, words: &mut [Word], word: String) {
    if !words.is_empty() {
        let i = index(rng, words.len());
        let tail: String = words[i]
            .chars()
            .last()
            .filter(|c| " \n=".contains(*c))
            .into_iter()
            .collect();
        words[i] = (word.trim_end().to_string() + &tail).into();
    }
}

/// Inserts `piece` at a character boundary of a chosen word.
fn insert_char(rng: &mut Rng, words: &mut Vec<Word>, piece: &str) {
    if words.is_empty() {
        words.push(piece.to_string().into());
        return;
    }
    let i = index(rng, words.len());
    let at = char_boundary(rng, &words[i]);
    words[i].to_mut().insert_str(at, piece);
}

fn char_boundary(rng: &mut Rng, word: &str) -> usize {
    let bounds: Vec<usize> = (0..=word.len())
        .filter(|b| word.is_char_boundary(*b))
        .collect();
    rng.pick(&bounds).copied().unwrap_or(0)
}

/// Removes one quote character, leaving its pair open.
fn cut_quote(rng: &mut Rng, words: &mut Vec<Word>) {
    let quoted: Vec<usize> = (0..words.len())
        .filter(|i| words[*i].contains(['\'', '"']))
        .collect();
    match rng.pick(&quoted) {
        Some(&i) => {
            let at = words[i].find(['\'', '"']).unwrap_or(0);
            words[i].to_mut().remove(at);
        }
        None => {
            let quote = if rng.chance(0.5) { "'" } else { "\"" };
            insert_char(rng, words, quote);
        }
    }
}

/// A word repeated to a few KiB, or rarely past etcd's request limit.
fn grow(rng: &mut Rng, words: &mut [Word]) {
    if words.is_empty() {
        return;
    }
    let i = index(rng, words.len());
    let target = if rng.chance(0.02) {
        HUGE_BYTES
    } else {
        BIG_BYTES
    };
    let (unit, tail) = words[i].split_at(words[i].trim_end().len());
    // A word of whitespace alone (U+0085 is some) grows from an `x` before it.
    let unit = if unit.is_empty() { "x" } else { unit };
    let copies = target / unit.len() + 1;
    words[i] = (unit.repeat(copies.min(target)) + tail).into();
}

/// Up to 16 random characters: ASCII controls, Latin-1, any scalar value.
fn random_chars(rng: &mut Rng) -> String {
    (0..rng.range(1, 17))
        .filter_map(|_| match rng.range(0, 3) {
            0 => char::from_u32(rng.range(0, 0x80) as u32),
            1 => char::from_u32(rng.range(0x80, 0x800) as u32),
            _ => char::from_u32(rng.range(0, 0x11_0000) as u32),
        })
        .collect()
}

fn donor_word(rng: &mut Rng, donors: &[String]) -> String {
    let Some(donor) = rng.pick(donors) else {
        return pick(rng, SPECIALS).to_string();
    };
    let words = split_words(donor);
    rng.pick(&words).map(|w| w.to_string()).unwrap_or_default()
}

/// Line-level changes, for scripts and files: a line dropped, repeated, moved, or one from
/// another input put in.
fn lines(rng: &mut Rng, text: &str, donors: &[String]) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return text.to_string();
    }
    let i = index(rng, lines.len());
    match rng.range(0, 4) {
        0 => {
            lines.remove(i);
        }
        1 => {
            lines.insert(i, lines[i]);
        }
        2 => {
            let j = index(rng, lines.len());
            lines.swap(i, j);
        }
        _ => {
            let donor = rng.pick(donors).map_or("", String::as_str);
            let donor_lines: Vec<&str> = donor.split_inclusive('\n').collect();
            let line = rng.pick(&donor_lines).copied().unwrap_or("\n");
            lines.insert(i, line);
        }
    }
    lines.concat()
}

fn truncate(rng: &mut Rng, text: &str) -> String {
    let at = char_boundary(rng, text);
    text[..at].to_string()
}

/// Changes bytes one to eight times: bits flipped, bytes set to their extremes, integers
/// written over in both byte orders, pieces cut, repeated or inserted.
pub fn bytes(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..rng.range(1, 9) {
        bytes_once(rng, &mut out);
    }
    out
}

fn bytes_once(rng: &mut Rng, out: &mut Vec<u8>) {
    let at = index(rng, out.len() + 1);
    match rng.range(0, 7) {
        0 if at < out.len() => out[at] ^= 1 << rng.range(0, 8),
        1 if at < out.len() => out[at] = *rng.pick(&[0, 1, 0x7f, 0x80, 0xff]).unwrap_or(&0),
        2 => {
            let value = *rng
                .pick(&[
                    0,
                    1,
                    u64::MAX,
                    u64::from(u32::MAX),
                    i64::MAX as u64,
                    1 << 31,
                ])
                .unwrap_or(&0);
            let width = *rng.pick(&[1usize, 2, 4, 8]).unwrap_or(&8);
            let raw = if rng.chance(0.5) {
                value.to_le_bytes()
            } else {
                value.to_be_bytes()
            };
            let end = (at + width).min(out.len());
            out.splice(at..end, raw[..width].iter().copied());
        }
        3 => out.truncate(at),
        4 => {
            let end = (at + index(rng, 64)).min(out.len());
            out.drain(at..end);
        }
        5 => {
            let end = (at + index(rng, 64)).min(out.len());
            let piece: Vec<u8> = out[at..end].to_vec();
            out.splice(at..at, piece);
        }
        _ => {
            let piece: Vec<u8> = (0..rng.range(1, 16))
                .map(|_| rng.range(0, 256) as u8)
                .collect();
            out.splice(at..at, piece);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_makes_the_same_input() {
        let donors = vec!["etcdctl get a --prefix".to_string()];
        let a = text(&mut Rng::new(5), "etcdctl put k v --lease=1", &donors);
        let b = text(&mut Rng::new(5), "etcdctl put k v --lease=1", &donors);
        assert_eq!(a, b);
        let snapshot = b"\x00\x01\x02raftlab".to_vec();
        assert_eq!(
            bytes(&mut Rng::new(9), &snapshot),
            bytes(&mut Rng::new(9), &snapshot)
        );
    }

    #[test]
    fn mutations_change_inputs_and_keep_them_bounded() {
        let donors = vec!["kubectl scale deployment web --replicas=3".to_string()];
        let mut rng = Rng::new(1);
        let seed = "etcdctl put k v --lease=1";
        let changed = (0..500)
            .map(|_| text(&mut rng, seed, &donors))
            .inspect(|t| assert!(t.len() < 8 * HUGE_BYTES, "an input grew unbounded"))
            .filter(|t| t != seed)
            .count();
        assert!(
            changed > 400,
            "only {changed} of 500 inputs differ from the seed"
        );
    }

    /// `raftlab fuzz --target shell --seed 1 --from 12224 --iterations 1` made the fuzzer
    /// itself panic here: a word of one U+0085 (whitespace, two bytes) was cut after a byte.
    #[test]
    fn a_word_of_whitespace_grows_without_being_cut() {
        let mut words = split_words("\u{85}");
        grow(&mut Rng::new(1), &mut words);
        assert!(words[0].starts_with("xxx") && words[0].ends_with('\u{85}'));
    }

    #[test]
    fn numbers_become_extremes() {
        let mut words = split_words("wait 10s");
        replace_number(&mut Rng::new(3), &mut words);
        let word = &words[1];
        assert!(word != "10s", "{word}");
        assert!(
            EXTREME_NUMBERS
                .iter()
                .chain(EXTREME_UNITS)
                .any(|e| word.starts_with(e)),
            "{word}"
        );
    }
}
