//! Scripts: one command per line, `#` comments, `<<EOF` heredocs as standard input.

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

/// `cmd args <<EOF` → (`cmd args`, `EOF`).
fn heredoc_marker(line: &str) -> Option<(&str, &str)> {
    let pos = line.rfind("<<")?;
    let word = line[pos + 2..]
        .trim()
        .trim_matches(|c| c == '\'' || c == '"');
    let valid = !word.is_empty() && word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    valid.then(|| (line[..pos].trim_end(), word))
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
    fn quoted_marker_and_unterminated_heredoc() {
        let lines = parse("kubectl apply -f - <<'EOF'\nkind: Pod\n");
        assert_eq!(lines[0].text, "kubectl apply -f -");
        assert_eq!(lines[0].stdin.as_deref(), Some("kind: Pod\n"));
        // `<<` inside an argument that is no marker stays part of the command.
        assert_eq!(parse("put k <<>>")[0].text, "put k <<>>");
    }
}
