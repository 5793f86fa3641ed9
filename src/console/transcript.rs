//! The transcript: every command line a session ran (typed, sent by a button, or read from a
//! script), with what it printed, how it exited and when. Goals read it (`last.exit`,
//! `ran("…")`) and the page's console can show it. Bounded, because the page runs for hours:
//! the newest [`TRANSCRIPT_KEEP`] entries, each stream cut at [`OUTPUT_KEEP_BYTES`].

use crate::base::Millis;
use std::collections::VecDeque;

/// Entries kept (older ones are forgotten, as a terminal's scrollback forgets).
pub const TRANSCRIPT_KEEP: usize = 200;
/// Bytes of stdout and of stderr kept per entry; the rest is replaced by a note. 200 entries
/// of two streams stay under 7 MB however much a command prints.
pub const OUTPUT_KEEP_BYTES: usize = 16 * 1024;

/// One command line and what came of it. A `$(…)` inside it is part of it; a pipeline is one
/// entry, its last filter's exit code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TranscriptEntry {
    /// Position in the run: 0 for the first command, one more for each (forgotten ones too).
    pub seq: u64,
    /// Virtual time when the line started, and when it was done (later, for waits and
    /// requests).
    pub time_ms: Millis,
    pub end_ms: Millis,
    pub line: String,
    pub stdin: Option<String>,
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Transcript {
    entries: VecDeque<TranscriptEntry>,
    next_seq: u64,
}

/// `text` cut at `OUTPUT_KEEP_BYTES` (on a character boundary), with a note of what was cut.
fn capped(mut text: String) -> String {
    if text.len() <= OUTPUT_KEEP_BYTES {
        return text;
    }
    let mut cut = OUTPUT_KEEP_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = text.len() - cut;
    text.truncate(cut);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("[… {dropped} more bytes not kept]\n"));
    text
}

/// What a finished command hands the transcript.
pub struct Finished<'a> {
    pub time_ms: Millis,
    pub end_ms: Millis,
    pub line: &'a str,
    pub stdin: Option<&'a str>,
    pub stdout: &'a str,
    pub stderr: &'a str,
    pub code: i32,
}

impl Transcript {
    pub fn push(&mut self, done: Finished) {
        if self.entries.len() == TRANSCRIPT_KEEP {
            self.entries.pop_front();
        }
        self.entries.push_back(TranscriptEntry {
            seq: self.next_seq,
            time_ms: done.time_ms,
            end_ms: done.end_ms,
            line: done.line.to_string(),
            stdin: done.stdin.map(str::to_string),
            stdout: capped(done.stdout.to_string()),
            stderr: capped(done.stderr.to_string()),
            code: done.code,
        });
        self.next_seq += 1;
    }

    /// The entries kept, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &TranscriptEntry> + ExactSizeIterator {
        self.entries.iter()
    }

    pub fn last(&self) -> Option<&TranscriptEntry> {
        self.entries.back()
    }

    /// The `seq` the next command gets: how many commands ran so far.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Entries from position `seq` on (those still kept). A console's `clear` shows
    /// `since(next_seq at the clear)`: goals still read what it hid.
    pub fn since(&self, seq: u64) -> impl Iterator<Item = &TranscriptEntry> {
        let skip = self.entries.partition_point(|e| e.seq < seq);
        self.entries.range(skip..)
    }

    /// A rewind to `t`: commands given at `t` or later never happened (as the history the
    /// rewind replays keeps only those before `t`).
    pub fn rewind(&mut self, t: Millis) {
        let keep = self.entries.partition_point(|e| e.time_ms < t);
        if let Some(first_gone) = self.entries.get(keep) {
            self.next_seq = first_gone.seq;
        }
        self.entries.truncate(keep);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(time_ms: Millis, line: &str) -> Finished<'_> {
        Finished {
            time_ms,
            end_ms: time_ms + 1,
            line,
            stdin: None,
            stdout: "out\n",
            stderr: "",
            code: 0,
        }
    }

    #[test]
    fn keeps_the_newest_and_counts_every_one() {
        let mut t = Transcript::default();
        for i in 0..(TRANSCRIPT_KEEP as u64 + 5) {
            t.push(done(i, "status"));
        }
        assert_eq!(t.entries().len(), TRANSCRIPT_KEEP);
        assert_eq!(t.entries().next().map(|e| e.seq), Some(5));
        assert_eq!(t.next_seq(), TRANSCRIPT_KEEP as u64 + 5);
        assert_eq!(t.since(TRANSCRIPT_KEEP as u64 + 3).count(), 2);
        assert_eq!(t.since(0).count(), TRANSCRIPT_KEEP);
    }

    #[test]
    fn long_output_is_cut_on_a_character_boundary_with_a_note() {
        let mut t = Transcript::default();
        let long = "é".repeat(OUTPUT_KEEP_BYTES);
        t.push(Finished {
            stdout: &long,
            ..done(0, "etcdctl get / --prefix")
        });
        let kept = &t.last().unwrap().stdout;
        assert!(kept.len() < OUTPUT_KEEP_BYTES + 64, "{}", kept.len());
        assert!(kept.ends_with(&format!("[… {} more bytes not kept]\n", OUTPUT_KEEP_BYTES)));
    }

    #[test]
    fn a_rewind_forgets_commands_given_at_or_after_its_time() {
        let mut t = Transcript::default();
        for (time, line) in [(0, "a"), (100, "b"), (200, "c"), (200, "d"), (300, "e")] {
            t.push(done(time, line));
        }
        t.rewind(200);
        let lines: Vec<&str> = t.entries().map(|e| e.line.as_str()).collect();
        assert_eq!(lines, ["a", "b"]);
        t.push(done(250, "f"));
        assert_eq!(t.last().map(|e| e.seq), Some(2));
        t.rewind(0);
        assert_eq!(t.entries().len(), 0);
        assert_eq!(t.next_seq(), 0);
    }
}
