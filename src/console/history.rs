//! The commands that changed the world, packed: an hour of a class at 100 commands a second is
//! 360,000 of them, and a `Vec` of owned strings spent 136 bytes on each (its doubling
//! included). A fixed stamp per command, and the lines' text in large chunks.

use crate::base::Millis;

/// How much text one chunk holds (a longer line or heredoc gets a chunk of its own).
const CHUNK_BYTES: usize = 64 * 1024;

/// One command that changed the world, and exactly where in the run it was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry<'a> {
    pub time_ms: Millis,
    /// Events the world had handled when the command ran (several can share a millisecond).
    pub steps: u64,
    /// When the command was done (later than `time_ms` for commands that wait).
    pub end_ms: Millis,
    pub line: &'a str,
    pub stdin: Option<&'a str>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    time_ms: Millis,
    steps: u64,
    end_ms: Millis,
    chunk: u32,
    start: u32,
    line_len: usize,
    /// `NO_STDIN` when the command had none (a heredoc may be empty).
    stdin_len: usize,
}

const NO_STDIN: usize = usize::MAX;

impl Stamp {
    fn text_len(&self) -> usize {
        self.line_len
            + if self.stdin_len == NO_STDIN {
                0
            } else {
                self.stdin_len
            }
    }
}

/// Every command recorded, in order.
#[derive(Clone, Debug, Default)]
pub struct History {
    stamps: imbl::Vector<Stamp>,
    text: Vec<String>,
}

impl History {
    pub fn len(&self) -> usize {
        self.stamps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<HistoryEntry<'_>> {
        self.stamps.get(i).map(|s| self.entry(s))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = HistoryEntry<'_>> + '_ {
        self.stamps.iter().map(|s| self.entry(s))
    }

    pub fn push(&mut self, e: HistoryEntry<'_>) {
        let stdin = e.stdin.unwrap_or_default();
        let (chunk, start) = self.room_for(e.line.len() + stdin.len());
        let text = &mut self.text[chunk];
        text.push_str(e.line);
        text.push_str(stdin);
        self.stamps.push_back(Stamp {
            time_ms: e.time_ms,
            steps: e.steps,
            end_ms: e.end_ms,
            chunk: chunk as u32,
            start: start as u32,
            line_len: e.line.len(),
            stdin_len: e.stdin.map_or(NO_STDIN, str::len),
        });
    }

    /// Keeps the first `len` commands.
    pub fn truncate(&mut self, len: usize) {
        self.stamps.truncate(len);
        match self.stamps.last() {
            Some(s) => {
                let chunk = s.chunk as usize;
                self.text.truncate(chunk + 1);
                self.text[chunk].truncate(s.start as usize + s.text_len());
            }
            None => self.text.clear(),
        }
    }

    /// The last command was recorded as its first segment or its expansion: it is `line`, given
    /// at `start` (time, events handled) when that is known.
    pub fn rewrite_last(&mut self, line: &str, start: Option<(Millis, u64)>) {
        let Some(last) = self.stamps.last().copied() else {
            return;
        };
        let stdin = self.entry(&last).stdin.map(str::to_string);
        self.truncate(self.len() - 1);
        let (time_ms, steps) = start.unwrap_or((last.time_ms, last.steps));
        self.push(HistoryEntry {
            time_ms,
            steps,
            end_ms: last.end_ms,
            line,
            stdin: stdin.as_deref(),
        });
    }

    fn entry(&self, s: &Stamp) -> HistoryEntry<'_> {
        let text = self.text[s.chunk as usize].as_str();
        let start = s.start as usize;
        let (line, rest) = text[start..start + s.text_len()].split_at(s.line_len);
        HistoryEntry {
            time_ms: s.time_ms,
            steps: s.steps,
            end_ms: s.end_ms,
            line,
            stdin: (s.stdin_len != NO_STDIN).then_some(rest),
        }
    }

    /// The chunk and offset where `len` more bytes go, without moving any text already kept.
    fn room_for(&mut self, len: usize) -> (usize, usize) {
        match self.text.last() {
            Some(t) if t.capacity() - t.len() >= len => (self.text.len() - 1, t.len()),
            _ => {
                self.text.push(String::with_capacity(len.max(CHUNK_BYTES)));
                (self.text.len() - 1, 0)
            }
        }
    }
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
            line,
            stdin,
        }
    }

    #[test]
    fn entries_read_back_as_given_across_chunks_truncation_and_rewrites() {
        let big = "y".repeat(CHUNK_BYTES + 5);
        let lines: Vec<String> = (0..5000)
            .map(|i| format!("etcdctl put k{i} v{i}"))
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
        assert!(h.text.len() > 3, "the text spans chunks");
        let got = |h: &History| -> Vec<(u64, String, Option<String>)> {
            h.iter()
                .map(|e| (e.steps, e.line.to_string(), e.stdin.map(str::to_string)))
                .collect()
        };
        assert_eq!(got(&h), want);
        h.truncate(2005);
        want.truncate(2005);
        assert_eq!(got(&h), want);
        h.rewrite_last("etcdctl put k | wc -l", Some((1, 2)));
        want[2004] = (2, "etcdctl put k | wc -l".into(), None);
        assert_eq!(got(&h), want);
        assert_eq!(
            (h.get(2004).unwrap().time_ms, h.get(2004).unwrap().steps),
            (1, 2)
        );
        h.push(entry(9, "kill m1", None));
        assert_eq!(h.get(2005).unwrap().line, "kill m1");
        assert_eq!(h.get(2004).unwrap().line, "etcdctl put k | wc -l");
        h.truncate(0);
        assert!(h.is_empty() && h.text.is_empty() && h.get(0).is_none());
    }
}
