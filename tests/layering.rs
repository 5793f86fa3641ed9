//! The layering rule of DESIGN.md that the compiler cannot see: `kube` reaches etcd only
//! through the etcd client API (`crate::etcd`), never the store beneath it (`crate::mvcc`).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, in a stable order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next).unwrap_or_else(|e| panic!("{next:?}: {e}"));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `file:line: text` for each line of `files` naming the `mvcc` module.
fn mvcc_paths(files: &[PathBuf]) -> Vec<String> {
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        for (i, line) in text.lines().enumerate() {
            if line.contains("mvcc::") || line.contains("crate::mvcc") {
                found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn kube_reaches_etcd_only_through_the_client_api() {
    let kube = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/kube");
    let files = rust_files(&kube);
    assert!(
        files.len() > 5,
        "src/kube should hold the kube module: {files:?}"
    );
    let found = mvcc_paths(&files);
    assert!(
        found.is_empty(),
        "kube must import the etcd client API (crate::etcd::...), not mvcc:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_an_mvcc_path() {
    let dir = std::env::temp_dir().join(format!("raftlab-layering-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let file = dir.join("bad.rs");
    std::fs::write(
        &file,
        "use crate::etcd::Cluster;\nuse crate::mvcc::Request;\n",
    )
    .expect("a temporary file");
    let found = mvcc_paths(&rust_files(&dir));
    std::fs::remove_dir_all(&dir).expect("removing the temporary directory");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].ends_with(":2: use crate::mvcc::Request;"),
        "{found:?}"
    );
}
