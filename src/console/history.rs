//! The commands that changed the world, packed: an hour of a class at 100 commands a second is
//! 360,000 of them. A `Vec` of owned strings spent 136 bytes on each (its doubling included),
//! fixed 48-byte stamps still 17 MB of a 64 MB budget. Now each stamp is its differences from
//! the one before (postcard varints: a few bytes), in blocks of [`BLOCK`], and the lines' text
//! in large chunks, each line right after the one before it, less the start it shares with
//! the line before in its block (front coding: `etcdctl put key12` is said once).

use crate::base::Millis;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How much text one chunk holds (a longer line or heredoc gets a chunk of its own).
const CHUNK_BYTES: usize = 64 * 1024;
/// Stamps per block: reading one decodes at most this many.
const BLOCK: usize = 64;

/// One command that changed the world, and exactly where in the run it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryEntry<'a> {
    pub time_ms: Millis,
    /// Events the world had handled when the command ran (several can share a millisecond).
    pub steps: u64,
    /// When the command was done (later than `time_ms` for commands that wait).
    pub end_ms: Millis,
    pub line: Cow<'a, str>,
    pub stdin: Option<&'a str>,
}

/// A stamp as stored: what changed since the one before in its block (signed: a rewritten
/// command may start before the one it follows).
#[derive(Serialize, Deserialize)]
struct Delta {
    /// Whether its text begins a new chunk.
    new_chunk: bool,
    time_ms: i64,
    steps: i64,
    took_ms: i64,
    line_len: u64,
    /// Bytes at the start of the line that are the line before's.
    shared: u64,
    /// 0 without standard input, else its length + 1 (a heredoc may be empty).
    stdin: u64,
}

/// Where a stamp's text is: `(chunk, offset)`.
type Cursor = (u32, u32);
/// Before the first chunk: the first stamp's text begins the next one, chunk 0.
const NO_CHUNK: Cursor = (u32::MAX, 0);

#[derive(Clone, Debug, Default)]
struct Block {
    /// Where the first stamp's text goes unless it begins a new chunk.
    cursor: Cursor,
    len: usize,
    bytes: Vec<u8>,
}

/// A stamp decoded, and where the next one's text goes.
#[derive(Clone, Copy, Debug, Default)]
struct Stamp {
    time_ms: Millis,
    steps: u64,
    end_ms: Millis,
    text: Cursor,
    line_len: usize,
    shared: usize,
    stdin_len: Option<usize>,
    /// Where this stamp's bytes end in its block.
    end_byte: usize,
}

impl Stamp {
    /// What its text holds: the line after what it shares, then the standard input.
    fn text_len(&self) -> usize {
        self.line_len - self.shared + self.stdin_len.unwrap_or(0)
    }

    fn next_cursor(&self) -> Cursor {
        (self.text.0, self.text.1 + self.text_len() as u32)
    }

    /// The stamp after `self` (the one before, or the block's start) whose difference is `d`.
    fn then(&self, d: &Delta, end_byte: usize) -> Stamp {
        let add = |v: u64, by: i64| v.wrapping_add_signed(by);
        let time_ms = add(self.time_ms, d.time_ms);
        let cursor = self.next_cursor();
        Stamp {
            time_ms,
            steps: add(self.steps, d.steps),
            end_ms: add(time_ms, d.took_ms),
            text: if d.new_chunk {
                (cursor.0.wrapping_add(1), 0)
            } else {
                cursor
            },
            line_len: d.line_len as usize,
            shared: (d.shared.min(d.line_len)) as usize,
            stdin_len: d.stdin.checked_sub(1).map(|n| n as usize),
            end_byte,
        }
    }
}

impl Block {
    /// The state the first stamp is a difference from.
    fn origin(&self) -> Stamp {
        Stamp {
            text: self.cursor,
            ..Stamp::default()
        }
    }

    /// Its stamps in order, each with the text position it was given.
    fn stamps(&self) -> impl Iterator<Item = Stamp> + '_ {
        let mut prev = self.origin();
        let mut rest = &self.bytes[..];
        std::iter::from_fn(move || {
            let (d, after) = postcard::take_from_bytes::<Delta>(rest).ok()?;
            rest = after;
            prev = prev.then(&d, self.bytes.len() - rest.len());
            Some(prev)
        })
    }
}

/// Every command recorded, in order.
#[derive(Clone, Debug, Default)]
pub struct History {
    blocks: Vec<Block>,
    text: Vec<String>,
    /// The last stamp, decoded (each push is a difference from it)...
    last: Option<Stamp>,
    /// ...and its line (each line is stored less what it shares with it).
    last_line: String,
}

impl History {
    pub fn len(&self) -> usize {
        self.blocks
            .last()
            .map_or(0, |b| (self.blocks.len() - 1) * BLOCK + b.len)
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<HistoryEntry<'_>> {
        self.entries(self.blocks.get(i / BLOCK)?).nth(i % BLOCK)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = HistoryEntry<'_>> + '_ {
        self.blocks.iter().flat_map(|b| {
            let entries: Vec<_> = self.entries(b).collect();
            entries
        })
    }

    /// The entries from the `start`th on (the blocks before it are not read).
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = HistoryEntry<'_>> + '_ {
        let blocks = self.blocks.get(start / BLOCK..).unwrap_or_default();
        (blocks.iter().flat_map(|b| self.entries(b))).skip(start % BLOCK)
    }

    /// The last entry given before `t` (its stamps are read from the end; only its line is
    /// made whole).
    pub fn last_before(&self, t: Millis) -> Option<HistoryEntry<'_>> {
        let (n, at) = (self.blocks.iter().enumerate().rev()).find_map(|(n, b)| {
            let at = b
                .stamps()
                .enumerate()
                .filter(|(_, s)| s.time_ms < t)
                .last()?;
            Some((n, at.0))
        })?;
        self.get(n * BLOCK + at)
    }

    /// The entries of `block`, each line whole again.
    fn entries<'a>(&'a self, block: &'a Block) -> impl Iterator<Item = HistoryEntry<'a>> + 'a {
        let mut before = String::new();
        block.stamps().map(move |s| {
            let (rest, stdin) = self.text_of(&s);
            let line = match before.get(..s.shared) {
                Some(start) if s.shared > 0 => Cow::Owned(format!("{start}{rest}")),
                _ => Cow::Borrowed(rest),
            };
            before.clear();
            before.push_str(&line);
            HistoryEntry {
                time_ms: s.time_ms,
                steps: s.steps,
                end_ms: s.end_ms,
                line,
                stdin,
            }
        })
    }

    pub fn push(&mut self, e: HistoryEntry<'_>) {
        let stdin = e.stdin.unwrap_or_default();
        let last = self.last;
        let new_block = self.blocks.last().is_none_or(|b| b.len == BLOCK);
        let shared = if new_block {
            0
        } else {
            shared_start(&self.last_line, &e.line)
        };
        let new_chunk = self.room_for(e.line.len() - shared + stdin.len());
        let text = self.text.last_mut().expect("room_for leaves a chunk");
        text.push_str(&e.line[shared..]);
        text.push_str(stdin);
        self.last_line.clear();
        self.last_line.push_str(&e.line);
        if new_block {
            if let Some(full) = self.blocks.last_mut() {
                full.bytes.shrink_to_fit();
            }
            let cursor = last.map_or(NO_CHUNK, |s| s.next_cursor());
            self.blocks.push(Block {
                cursor,
                ..Block::default()
            });
        }
        let block = self.blocks.last_mut().expect("a block was just ensured");
        let prev = match last {
            Some(s) if block.len > 0 => s,
            _ => block.origin(),
        };
        let diff = |a: u64, b: u64| a.wrapping_sub(b) as i64;
        let delta = Delta {
            new_chunk,
            time_ms: diff(e.time_ms, prev.time_ms),
            steps: diff(e.steps, prev.steps),
            took_ms: diff(e.end_ms, e.time_ms),
            line_len: e.line.len() as u64,
            shared: shared as u64,
            stdin: e.stdin.map_or(0, |s| s.len() as u64 + 1),
        };
        block.bytes = postcard::to_extend(&delta, std::mem::take(&mut block.bytes))
            .expect("a Vec takes any number of bytes");
        block.len += 1;
        self.last = Some(prev.then(&delta, block.bytes.len()));
    }

    /// Keeps the first `len` commands.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len() {
            return;
        }
        self.last_line = match len.checked_sub(1).and_then(|i| self.get(i)) {
            Some(e) => e.line.into_owned(),
            None => String::new(),
        };
        let blocks = len.div_ceil(BLOCK);
        self.blocks.truncate(blocks);
        let Some(block) = self.blocks.last_mut() else {
            self.text.clear();
            self.last = None;
            return;
        };
        let keep = len - (blocks - 1) * BLOCK;
        let last = block
            .stamps()
            .nth(keep - 1)
            .expect("a block holds its length");
        block.bytes.truncate(last.end_byte);
        block.len = keep;
        self.last = Some(last);
        let (chunk, end) = last.next_cursor();
        self.text.truncate(chunk as usize + 1);
        self.text[chunk as usize].truncate(end as usize);
    }

    /// The last command was recorded as its first segment or its expansion: it is `line`, given
    /// at `start` (time, events handled) when that is known.
    pub fn rewrite_last(&mut self, line: &str, start: Option<(Millis, u64)>) {
        let Some(last) = self.last else {
            return;
        };
        let stdin = self.text_of(&last).1.map(str::to_string);
        self.truncate(self.len() - 1);
        let (time_ms, steps) = start.unwrap_or((last.time_ms, last.steps));
        self.push(HistoryEntry {
            time_ms,
            steps,
            end_ms: last.end_ms,
            line: line.into(),
            stdin: stdin.as_deref(),
        });
    }

    /// A stamp's text: its line after what it shares with the line before, its standard input.
    fn text_of(&self, s: &Stamp) -> (&str, Option<&str>) {
        let text = self.text[s.text.0 as usize].as_str();
        let start = s.text.1 as usize;
        let (line, rest) = text[start..start + s.text_len()].split_at(s.line_len - s.shared);
        (line, s.stdin_len.map(|_| rest))
    }

    /// Makes room for `len` more bytes at the end of the last chunk, without moving any text
    /// already kept; true when that took a new chunk.
    fn room_for(&mut self, len: usize) -> bool {
        match self.text.last() {
            Some(t) if t.capacity() - t.len() >= len => false,
            _ => {
                self.text.push(String::with_capacity(len.max(CHUNK_BYTES)));
                true
            }
        }
    }
}

/// How many bytes `line` begins with that `before` begins with too (whole characters).
fn shared_start(before: &str, line: &str) -> usize {
    let same = before.bytes().zip(line.bytes()).take_while(|(a, b)| a == b);
    let mut n = same.count();
    while !line.is_char_boundary(n) {
        n -= 1;
    }
    n
}

impl HistoryEntry<'_> {
    /// The line and standard input, to run again while the history changes.
    pub fn to_owned_parts(&self) -> (String, Option<String>) {
        (self.line.to_string(), self.stdin.map(str::to_string))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(i: u64, line: &'a str, stdin: Option<&'a str>) -> HistoryEntry<'a> {
        HistoryEntry {
            time_ms: i * 10,
            steps: i,
            end_ms: i * 10 + 3,
            line: line.into(),
            stdin,
        }
    }

    #[test]
    fn entries_read_back_as_given_across_chunks_truncation_and_rewrites() {
        let big = "y".repeat(CHUNK_BYTES + 5);
        // Lines that share their starts, some in the middle of a character (é, è).
        let lines: Vec<String> = (0..5000)
            .map(|i| match i % 5 {
                0 => format!("etcdctl put k{i} v{i}"),
                1 => format!("etcdctl put é{i}"),
                2 => format!("etcdctl put è{i}"),
                3 => String::new(),
                _ => format!("etcdctl get k{i}"),
            })
            .collect();
        let mut h = History::default();
        let mut want: Vec<(u64, String, Option<String>)> = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let stdin = match i % 7 {
                0 => Some(""),
                3 => Some("a: 1\n"),
                5 if i % 1000 == 5 => Some(big.as_str()),
                _ => None,
            };
            h.push(entry(i as u64, line, stdin));
            want.push((i as u64, line.clone(), stdin.map(str::to_string)));
        }
        assert!(h.text.len() >= 3, "the text spans chunks");
        let text: usize = h.text.iter().map(String::len).sum();
        let given: usize = (want.iter())
            .map(|(_, line, stdin)| line.len() + stdin.as_ref().map_or(0, String::len))
            .sum();
        assert!(
            text < given,
            "front coding stores less than the lines: {text} vs {given}"
        );
        let got = |h: &History| -> Vec<(u64, String, Option<String>)> {
            h.iter()
                .map(|e| {
                    let stamp = (
                        e.time_ms.abs_diff(e.steps * 10),
                        e.end_ms.abs_diff(e.time_ms),
                    );
                    assert!(stamp == (0, 3) || e.line.contains('|'), "{e:?}");
                    (e.steps, e.line.to_string(), e.stdin.map(str::to_string))
                })
                .collect()
        };
        assert_eq!(got(&h), want);
        let backwards: Vec<u64> = h.iter().rev().map(|e| e.steps).collect();
        assert!(backwards.iter().rev().eq(want.iter().map(|w| &w.0)));
        for len in [5000, 6000, 64 * 40, 64 * 40 - 1, 2005] {
            h.truncate(len);
            want.truncate(len);
            assert_eq!(got(&h), want, "kept {len}");
            assert_eq!(h.len(), want.len());
        }
        h.rewrite_last("etcdctl put k | wc -l", Some((1, 2)));
        want[2004] = (2, "etcdctl put k | wc -l".into(), None);
        assert_eq!(got(&h), want);
        assert_eq!(
            (h.get(2004).unwrap().time_ms, h.get(2004).unwrap().steps),
            (1, 2)
        );
        for start in [0, 1, 63, 64, 65, 2004, 2005, 2006] {
            let from: Vec<u64> = h.iter_from(start).map(|e| e.steps).collect();
            let want: Vec<u64> = want.iter().skip(start).map(|w| w.0).collect();
            assert_eq!(from, want, "from {start}");
        }
        for t in [0, 1, 10, 11, 640, 641, 20_035, 20_041, 99_999] {
            let last = h.iter().rev().find(|e| e.time_ms < t);
            assert_eq!(h.last_before(t), last, "before {t}");
        }
        h.push(entry(9, "kill m1", None));
        assert_eq!(h.get(2005).unwrap().line, "kill m1");
        assert_eq!(h.get(2004).unwrap().line, "etcdctl put k | wc -l");
        h.truncate(0);
        assert!(h.is_empty() && h.text.is_empty() && h.get(0).is_none());
    }
}
