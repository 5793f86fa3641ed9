//! Manifests in and out: YAML (or JSON) documents to `serde_json::Value`, and the YAML kubectl
//! prints (`-o yaml`: keys sorted, sequences at their parent's indent, as sigs.k8s.io/yaml
//! emits through go-yaml).
//! The emitter is hand-written: go-yaml's quoting and layout, which kubectl shows, are not
//! yaml-rust2's emitter's.

use serde_json::{Map, Number, Value};
use std::fmt::Write as _;
use yaml_rust2::{Yaml, YamlLoader};

/// Parses one or more documents (YAML with `---`, or JSON). Empty documents are skipped.
pub fn parse_documents(text: &str) -> Result<Vec<Value>, String> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
            return Ok(vec![v]);
        }
    }
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for doc in docs {
        let v = to_json(&doc)?;
        if !v.is_null() {
            out.push(v);
        }
    }
    Ok(out)
}

fn to_json(y: &Yaml) -> Result<Value, String> {
    Ok(match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or_else(|| Value::String(s.clone()), Value::Number),
        Yaml::Integer(i) => Value::Number((*i).into()),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Hash(h) => {
            let mut map = Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) | Yaml::Real(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    _ => return Err("mapping keys must be strings".into()),
                };
                map.insert(key, to_json(v)?);
            }
            Value::Object(map)
        }
        Yaml::Null => Value::Null,
        Yaml::Alias(_) | Yaml::BadValue => return Err("YAML aliases are not supported".into()),
    })
}

/// The YAML text of `v` as kubectl prints it.
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        other => {
            let _ = writeln!(out, "{}", scalar(other));
        }
    }
    out
}

fn pad(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn write_map(out: &mut String, m: &Map<String, Value>, indent: usize) {
    for (k, v) in m {
        pad(out, indent);
        out.push_str(&quote(k));
        out.push(':');
        write_value_after_key(out, v, indent);
    }
}

fn write_value_after_key(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, indent + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, indent);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], indent: usize) {
    for item in a {
        pad(out, indent);
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => {
                let mut first = true;
                for (k, v) in m {
                    if !first {
                        pad(out, indent + 2);
                    }
                    first = false;
                    out.push_str(&quote(k));
                    out.push(':');
                    write_value_after_key(out, v, indent + 2);
                }
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, indent + 2);
            }
            other => {
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// Quotes a string the way go-yaml does: double quotes when it would read as another type
/// (`"123"`, `"true"`), single quotes when its characters would break the syntax.
fn quote(s: &str) -> String {
    let ambiguous = matches!(
        s.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "~" | "y" | "n" | ""
    ) || s.parse::<f64>().is_ok()
        || looks_like_timestamp(s);
    if ambiguous || s.contains('\n') || s.contains('\t') {
        return serde_json::to_string(s).unwrap_or_default();
    }
    // go-yaml's emitter: `-`, `?` and `:` start a plain scalar unless a blank (or the end)
    // follows them (`--name=master` stays plain).
    let indicator_then_blank =
        s.starts_with(['-', '?', ':']) && s[1..].chars().next().is_none_or(|c| c == ' ');
    let special = s.starts_with([
        ' ', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`',
    ]) || indicator_then_blank
        || s.ends_with(' ')
        || s.ends_with(':')
        || s.contains(": ")
        || s.contains(" #");
    if special {
        return format!("'{}'", s.replace('\'', "''"));
    }
    s.to_string()
}

/// go-yaml resolves `2026-01-01T00:00:00Z` as a timestamp, so such strings are quoted.
fn looks_like_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_dash_is_plain_unless_a_blank_follows_it() {
        // As kubeadm's manifests and `kubectl get -o yaml` print commands.
        assert_eq!(quote("--name=master"), "--name=master");
        assert_eq!(quote("-"), "'-'");
        assert_eq!(quote("- x"), "'- x'");
        assert_eq!(quote("? x"), "'? x'");
        assert_eq!(quote(":x"), ":x");
        assert_eq!(quote("#x"), "'#x'");
    }

    #[test]
    fn yaml_and_json_manifests_parse_to_the_same_value() {
        let y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nginx\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.25\n";
        let j = r#"{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"nginx"},"spec":{"replicas":3,"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25"}]}}}}"#;
        assert_eq!(parse_documents(y).unwrap(), parse_documents(j).unwrap());
        assert_eq!(
            parse_documents("---\na: 1\n---\n---\nb: 2\n")
                .unwrap()
                .len(),
            2
        );
        assert!(parse_documents("a: [1\n").is_err());
        assert!(parse_documents("a: *x\n").is_err());
    }

    #[test]
    fn yaml_output_sorts_keys_and_keeps_sequences_at_the_parent_indent() {
        let v: Value = serde_json::from_str(
            r#"{"spec":{"containers":[{"name":"nginx","image":"nginx:1.25","ports":[{"containerPort":80}]}]},"metadata":{"name":"x","labels":{"app":"nginx"}},"data":{"k":"123"}}"#,
        )
        .unwrap();
        let text = to_yaml(&v);
        assert_eq!(
            text,
            "data:\n  k: \"123\"\nmetadata:\n  labels:\n    app: nginx\n  name: x\nspec:\n  containers:\n  - image: nginx:1.25\n    name: nginx\n    ports:\n    - containerPort: 80\n"
        );
        assert_eq!(parse_documents(&text).unwrap()[0], v);
    }
}
