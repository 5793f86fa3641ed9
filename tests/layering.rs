//! The layers of ARCHITECTURE.md, enforced: each folder of `src/` may name only the modules
//! below it (`crate::<module>`), so the engine never reaches up into the console or the page,
//! and Kubernetes reaches etcd only through its client API. Test code may use anything.

use std::path::{Path, PathBuf};

/// Each layer and the layers its non-test code may use (besides itself).
const ALLOWED: &[(&str, &[&str])] = &[
    ("base", &[]),
    ("raft", &["base"]),
    ("mvcc", &["base"]),
    ("sim", &["base"]),
    ("etcd", &["base", "raft", "mvcc", "sim"]),
    ("check", &["base", "raft", "etcd", "sim"]),
    ("kube", &["base", "etcd"]),
    ("console", &["base", "etcd", "kube", "sim", "check"]),
    (
        "lesson",
        &["base", "etcd", "kube", "sim", "check", "console"],
    ),
    (
        "cli",
        &[
            "base", "etcd", "kube", "sim", "check", "console", "raft", "mvcc", "lesson", "ui",
        ],
    ),
    (
        "ui",
        &[
            "base", "etcd", "kube", "sim", "check", "console", "raft", "mvcc", "lesson",
        ],
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The file's text up to its test module; files that are tests entirely count for nothing.
fn non_test_code(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).expect("read file");
    match text.find("#[cfg(test)]\nmod tests") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

/// Every `crate::<module>` the code names, with its line.
fn uses(code: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let code_part = line.split("//").next().unwrap_or("");
        let mut rest = code_part;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            let module: String = after
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            found.push((n + 1, module));
            rest = after;
        }
    }
    found
}

#[test]
fn every_layer_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    for (layer, allowed) in ALLOWED {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "no files in src/{layer}");
        for file in files {
            for (line, module) in uses(&non_test_code(&file)) {
                if module != *layer && !allowed.contains(&module.as_str()) {
                    // `crate::{a, b}` hides its modules from this check: name each path.
                    let module = if module.is_empty() {
                        "crate::{…}"
                    } else {
                        &module
                    };
                    violations.push(format!("{}:{line}: {layer} uses {module}", file.display()));
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
}

#[test]
fn every_folder_of_src_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(&src).expect("read src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .to_string();
            assert!(
                ALLOWED.iter().any(|(l, _)| *l == name),
                "src/{name} has no layer in ALLOWED"
            );
        }
    }
}

#[test]
fn the_check_sees_a_path_and_skips_comments_and_tests() {
    let code = "use crate::mvcc::Store; // crate::ui\nfn f() { crate::base::digest(b\"\"); }\n";
    assert_eq!(
        uses(code),
        [(1, "mvcc".to_string()), (2, "base".to_string())]
    );
    let dir = std::env::temp_dir().join(format!("raftlab-layers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("x.rs");
    std::fs::write(&file, "use crate::base::Millis;\n#[cfg(test)]\nmod tests {\n    use crate::console::Session;\n}\n")
        .expect("write");
    assert_eq!(uses(&non_test_code(&file)), [(1, "base".to_string())]);
    let _ = std::fs::remove_dir_all(&dir);
}
