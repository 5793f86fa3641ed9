//! The real inputs the fuzzer starts from: every script under the transcripts folder
//! (`tests/testdata/**/*.script`, etcd's own recorded sessions among them), split into the
//! command lines, manifests and encryption configurations they hold.

use crate::console::script;
use std::path::Path;

#[derive(Default)]
pub struct Corpus {
    pub scripts: Vec<String>,
    /// Each command line, a heredoc with its body and marker.
    pub lines: Vec<String>,
    /// Manifests fed to kubectl, in YAML as written and as JSON.
    pub manifests: Vec<String>,
    pub encryption: Vec<String>,
}

impl Corpus {
    /// Reads every `*.script` under `dir`, recursively.
    pub fn read(dir: &Path) -> Result<Corpus, String> {
        let mut paths = Vec::new();
        scripts_under(dir, &mut paths).map_err(|e| format!("{}: {e}", dir.display()))?;
        paths.sort();
        let mut corpus = Corpus::default();
        for path in &paths {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            corpus.add(text);
        }
        if corpus.scripts.is_empty() {
            return Err(format!("no *.script files under {}", dir.display()));
        }
        Ok(corpus)
    }

    fn add(&mut self, text: String) {
        for line in script::parse(&text) {
            match &line.stdin {
                None => self.lines.push(line.text.clone()),
                Some(body) => {
                    self.lines.push(format!("{} <<EOF\n{body}EOF\n", line.text));
                    self.add_file(body);
                }
            }
        }
        self.scripts.push(text);
    }

    fn add_file(&mut self, body: &str) {
        if body.contains("kind: EncryptionConfiguration") {
            self.encryption.push(body.to_string());
        } else if body.contains("kind:") {
            self.manifests.push(body.to_string());
            if let Ok(docs) = crate::kube::yaml::parse_documents(body) {
                for doc in docs {
                    self.manifests
                        .push(serde_json::to_string_pretty(&doc).unwrap_or_default());
                }
            }
        }
    }

    /// The lines whose first word passes `keep`.
    pub fn lines_where(&self, keep: impl Fn(&str) -> bool) -> Vec<Vec<u8>> {
        self.lines
            .iter()
            .filter(|l| keep(l.split_whitespace().next().unwrap_or_default()))
            .map(|l| l.clone().into_bytes())
            .collect()
    }

    /// Lines the shell does more than split: pipes, substitutions, variables, quotes.
    pub fn shell_lines(&self) -> Vec<Vec<u8>> {
        let mut lines = self.lines_where(|_| true);
        lines.retain(|l| l.iter().any(|b| b"|$'\"=\\".contains(b)));
        lines
    }

    /// Lines of the simulator's own verbs (not the real tools').
    pub fn verb_lines(&self) -> Vec<Vec<u8>> {
        self.lines_where(|w| crate::console::verbs::find(w).is_some_and(|v| !v.tool))
    }
}

fn scripts_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            scripts_under(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "script") {
            out.push(path);
        }
    }
    Ok(())
}
