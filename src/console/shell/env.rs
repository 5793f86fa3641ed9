//! Shell variables and the environment the tools see: `rev=…` sets a variable, `export NAME=…`
//! also hands it to every command run after it, `NAME=value command` to that command only,
//! `unset NAME` forgets it (bash's builtins, with bash's error texts).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What a command is started with: the exported variables and its own `NAME=value` prefixes.
pub type Env = BTreeMap<String, String>;

/// The session's shell variables; the exported ones are the environment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vars {
    values: BTreeMap<String, String>,
    exported: BTreeSet<String>,
}

/// A word a shell takes for a variable name: a letter or `_`, then letters, digits or `_`.
pub fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `NAME=value` as one (already expanded) word: the name and the value.
pub fn assignment_word(word: &str) -> Option<(&str, &str)> {
    word.split_once('=').filter(|(name, _)| is_name(name))
}

/// A builtin's failure as bash reports it (`bash: export: …`), with its exit status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinError {
    pub message: String,
    pub code: i32,
}

impl Vars {
    pub fn get(&self, name: &str) -> Option<&String> {
        self.values.get(name)
    }

    #[cfg(test)]
    pub fn contains_key(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// `NAME=value`: an exported variable stays exported with its new value, as in bash.
    pub fn set(&mut self, name: &str, value: &str) {
        self.values.insert(name.to_string(), value.to_string());
    }

    /// The environment a command starts with.
    pub fn environment(&self) -> Env {
        self.exported
            .iter()
            .filter_map(|name| Some((name.clone(), self.values.get(name)?.clone())))
            .collect()
    }

    /// `export [-n] [-p] [NAME[=value]]...`; alone (or `-p`), the exported variables as bash
    /// lists them (`declare -x NAME="value"`).
    pub fn export(&mut self, args: &[&str]) -> Result<String, BuiltinError> {
        let mut unexport = false;
        let mut names = Vec::new();
        for arg in args {
            match *arg {
                "-n" => unexport = true,
                "-p" => {}
                flag if flag.starts_with('-') && flag.len() > 1 => {
                    return Err(BuiltinError {
                        message: format!("bash: export: {flag}: invalid option\nexport: usage: export [-fn] [name[=value] ...] or export -p\n"),
                        code: 2,
                    })
                }
                word => names.push(word),
            }
        }
        if names.is_empty() {
            return Ok(self.declarations());
        }
        let mut bad = String::new();
        for word in names {
            let (name, value) = match word.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (word, None),
            };
            if !is_name(name) {
                let _ = writeln!(bad, "bash: export: `{word}': not a valid identifier");
                continue;
            }
            if let Some(v) = value {
                self.set(name, v);
            }
            if unexport {
                self.exported.remove(name);
            } else {
                self.exported.insert(name.to_string());
            }
        }
        if bad.is_empty() {
            Ok(String::new())
        } else {
            Err(BuiltinError {
                message: bad,
                code: 1,
            })
        }
    }

    /// `unset [-v] NAME...`.
    pub fn unset(&mut self, args: &[&str]) -> Result<(), BuiltinError> {
        let mut bad = String::new();
        for arg in args {
            match *arg {
                "-v" => {}
                flag if flag.starts_with('-') && flag.len() > 1 => {
                    return Err(BuiltinError {
                        message: format!("bash: unset: {flag}: invalid option\nunset: usage: unset [-f] [-v] [-n] [name ...]\n"),
                        code: 2,
                    })
                }
                name if is_name(name) => {
                    self.values.remove(name);
                    self.exported.remove(name);
                }
                other => {
                    let _ = writeln!(bad, "bash: unset: `{other}': not a valid identifier");
                }
            }
        }
        if bad.is_empty() {
            Ok(())
        } else {
            Err(BuiltinError {
                message: bad,
                code: 1,
            })
        }
    }

    /// bash's `export -p` listing (values double-quoted, `"`, `\`, `$` and `` ` `` escaped).
    fn declarations(&self) -> String {
        let mut out = String::new();
        for (name, value) in self.environment() {
            let mut quoted = String::new();
            for c in value.chars() {
                if matches!(c, '"' | '\\' | '$' | '`') {
                    quoted.push('\\');
                }
                quoted.push(c);
            }
            let _ = writeln!(out, "declare -x {name}=\"{quoted}\"");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_assignment_words() {
        assert!(is_name("ETCDCTL_API") && is_name("_x1"));
        assert!(!is_name("1x") && !is_name("") && !is_name("a-b"));
        assert_eq!(assignment_word("ETCDCTL_API=3"), Some(("ETCDCTL_API", "3")));
        assert_eq!(assignment_word("A=b=c"), Some(("A", "b=c")));
        assert_eq!(assignment_word("--rev=3"), None);
        assert_eq!(assignment_word("etcdctl"), None);
    }

    #[test]
    fn export_hands_variables_to_the_environment() {
        let mut v = Vars::default();
        v.set("rev", "7");
        assert!(
            v.environment().is_empty(),
            "a plain variable is not exported"
        );
        v.export(&["ETCDCTL_ENDPOINTS=https://127.0.0.1:2379", "rev"])
            .unwrap();
        assert_eq!(v.environment().len(), 2);
        v.set("rev", "8");
        assert_eq!(
            v.environment()["rev"],
            "8",
            "stays exported with its new value"
        );
        assert_eq!(
            v.export(&[]).unwrap(),
            "declare -x ETCDCTL_ENDPOINTS=\"https://127.0.0.1:2379\"\ndeclare -x rev=\"8\"\n"
        );
        v.export(&["-n", "rev"]).unwrap();
        assert_eq!(v.environment().len(), 1);
        assert_eq!(v.get("rev").map(String::as_str), Some("8"));
        v.unset(&["ETCDCTL_ENDPOINTS", "rev", "never_set"]).unwrap();
        assert!(v.environment().is_empty() && !v.contains_key("rev"));
    }

    #[test]
    fn bad_names_and_options_get_bash_errors() {
        let mut v = Vars::default();
        let e = v.export(&["1X=2", "OK=1"]).unwrap_err();
        assert_eq!(e.message, "bash: export: `1X=2': not a valid identifier\n");
        assert_eq!(e.code, 1);
        assert_eq!(
            v.environment()["OK"],
            "1",
            "the valid ones are still exported"
        );
        let e = v.export(&["-z"]).unwrap_err();
        assert_eq!(e.code, 2);
        assert!(e.message.starts_with("bash: export: -z: invalid option\n"));
        let e = v.unset(&["a-b"]).unwrap_err();
        assert_eq!(e.message, "bash: unset: `a-b': not a valid identifier\n");
        assert_eq!(v.unset(&["-q"]).unwrap_err().code, 2);
        assert_eq!(
            Vars::default().export(&["Q=a\"$b"]).map(|_| ()),
            Ok(()),
            "quotes are kept in the value"
        );
    }
}
