//! Scripts: one command per line, `#` comments, `<<EOF` heredocs as standard input.

use super::Session;
use std::fmt::Write as _;

/// How an exported script's first line starts: the rest are `raftlab run`'s flags.
pub const HEADER: &str = "# raftlab run";

/// The header's one flag that is not a setting of the run: how `raftlab run` prints.
pub const ECHO_FLAG: &str = "--echo";

/// The flags of a script's `# raftlab run …` first line, if it has one.
pub fn header_words(text: &str) -> Option<Vec<&str>> {
    let header = text.lines().next().unwrap_or_default().trim();
    let rest = header.strip_prefix(HEADER)?;
    Some(rest.split_whitespace().collect())
}

/// The header's settings of the run: its flags but [`ECHO_FLAG`], which a page that shows
/// every command anyway reads past (so a script written for `raftlab run --echo` imports).
pub fn header_settings(text: &str) -> Option<Vec<&str>> {
    let mut words = header_words(text)?;
    words.retain(|w| *w != ECHO_FLAG);
    Some(words)
}

/// One command of a script, with the line it started on (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptLine {
    pub line_no: usize,
    pub text: String,
    pub stdin: Option<String>,
}

/// Splits a script into commands. A line ending in `<<WORD` (or `<<'WORD'`) takes the lines up
/// to a line `WORD` as its standard input, each followed by `\n` (POSIX here-documents). An
/// unterminated heredoc takes the rest of the script, as a shell would (with a warning there).
pub fn parse(text: &str) -> Vec<ScriptLine> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, raw)) = lines.next() {
        let mut joined = raw.trim().to_string();
        // A line ending in a backslash goes on on the next one (the shell's continuation).
        while joined.ends_with('\\') && !joined.ends_with("\\\\") && !joined.starts_with('#') {
            joined.pop();
            match lines.next() {
                Some((_, next)) => joined.push_str(next.trim()),
                None => break,
            }
        }
        let line = joined.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (command, stdin) = match heredoc_marker(line) {
            Some((command, word)) => {
                let mut body = String::new();
                for (_, body_line) in lines.by_ref() {
                    if body_line == word {
                        break;
                    }
                    body.push_str(body_line);
                    body.push('\n');
                }
                (command.to_string(), Some(body))
            }
            None => (line.to_string(), None),
        };
        out.push(ScriptLine {
            line_no: i + 1,
            text: command,
            stdin,
        });
    }
    out
}

/// The marker a console still waits for: `text` (the lines typed so far) opens a heredoc on
/// its last command line and no line closes it yet. The page then asks for more lines (`> `).
pub fn awaiting_heredoc(text: &str) -> Option<String> {
    let mut awaiting: Option<&str> = None;
    for line in text.lines() {
        match awaiting {
            Some(word) if line == word => awaiting = None,
            Some(_) => {}
            None => awaiting = heredoc_marker(line.trim()).map(|(_, word)| word),
        }
    }
    awaiting.map(str::to_string)
}

/// `cmd args <<EOF` → (`cmd args`, `EOF`).
fn heredoc_marker(line: &str) -> Option<(&str, &str)> {
    let pos = line.rfind("<<")?;
    let word = line[pos + 2..]
        .trim()
        .trim_matches(|c| c == '\'' || c == '"');
    let valid = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    valid.then(|| (line[..pos].trim_end(), word))
}

/// The result of running a whole script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
    /// 0 if every command exited 0, else 1.
    pub code: i32,
}

/// Runs `text` as a script. With `echo`, each command's output is preceded by `$ <line>` and
/// followed by `[exit N]` when N ≠ 0, all on stdout; otherwise stdout and stderr stay apart.
/// A failing line does not stop the run; errors of the script itself name their line.
pub fn run_script(session: &mut Session, text: &str, echo: bool) -> RunOutput {
    run_script_with(session, text, echo, &mut |_, _, _| {})
}

/// [`run_script`], handing `each` every command, the virtual time it started at and what it
/// printed (the page's console shows a replayed run that way).
pub fn run_script_with(
    session: &mut Session,
    text: &str,
    echo: bool,
    each: &mut dyn FnMut(&ScriptLine, crate::base::Millis, &super::Output),
) -> RunOutput {
    let mut run = RunOutput::default();
    for line in parse(text) {
        let started = session.world.now();
        let mut out = session.execute(&line.text, line.stdin.as_deref());
        if out.code != 0 {
            run.code = 1;
            if out.stderr.starts_with("Error: ") && !is_tool_command(&line.text) {
                out.stderr = format!("Error: line {}: {}", line.line_no, &out.stderr[7..]);
            }
        }
        each(&line, started, &out);
        if echo {
            let first = line.text.clone() + line.stdin.as_ref().map_or("", |_| " <<EOF");
            let _ = writeln!(run.stdout, "$ {first}");
            run.stdout.push_str(&out.stdout);
            run.stdout.push_str(&out.stderr);
            if out.code != 0 {
                let _ = writeln!(run.stdout, "[exit {}]", out.code);
            }
        } else {
            run.stdout.push_str(&out.stdout);
            run.stderr.push_str(&out.stderr);
        }
    }
    run
}

/// Lines for the real tools keep the tools' own error text, without line numbers; so do
/// assignments (what they print comes from the commands they substitute) and lines behind
/// `sudo` or `NAME=value` prefixes.
fn is_tool_command(line: &str) -> bool {
    let assignment = super::shell::raw_words(line).is_some_and(|words| {
        !words.is_empty()
            && words
                .iter()
                .all(|w| super::shell::env::assignment_word(w).is_some())
    });
    let mut words = super::shell::command_name_and_rest(line);
    let first = match words.next() {
        // `timeout N etcdctl ...` is still the tool talking.
        Some("timeout") => words.nth(1).unwrap_or(""),
        Some(word) => word,
        None => "",
    };
    assignment || super::verbs::find(first).is_some_and(|v| v.tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_heredocs() {
        let lines =
            parse("# setup\n\nwait leader\netcdctl txn <<EOF\nput a 1\n\nEOF\nstatus -w json\n");
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines[0],
            ScriptLine {
                line_no: 3,
                text: "wait leader".into(),
                stdin: None
            }
        );
        assert_eq!(lines[1].text, "etcdctl txn");
        assert_eq!(lines[1].stdin.as_deref(), Some("put a 1\n\n"));
        assert_eq!(lines[2].line_no, 8);
    }

    #[test]
    fn a_console_waits_for_the_heredoc_marker() {
        assert_eq!(awaiting_heredoc("status"), None);
        assert_eq!(
            awaiting_heredoc("kubectl apply -f - <<EOF").as_deref(),
            Some("EOF")
        );
        assert_eq!(
            awaiting_heredoc("kubectl apply -f - <<'END'\nkind: Pod\n  EOF").as_deref(),
            Some("END"),
            "only a line that is exactly the marker closes it"
        );
        assert_eq!(awaiting_heredoc("etcdctl txn <<EOF\nput a 1\n\nEOF"), None);
        assert_eq!(
            awaiting_heredoc("write a <<EOF\nx\nEOF\nwrite b <<X").as_deref(),
            Some("X")
        );
    }

    #[test]
    fn quoted_marker_and_unterminated_heredoc() {
        let lines = parse("kubectl apply -f - <<'EOF'\nkind: Pod\n");
        assert_eq!(lines[0].text, "kubectl apply -f -");
        assert_eq!(lines[0].stdin.as_deref(), Some("kind: Pod\n"));
        // `<<` inside an argument that is no marker stays part of the command.
        assert_eq!(parse("put k <<>>")[0].text, "put k <<>>");
    }
}
