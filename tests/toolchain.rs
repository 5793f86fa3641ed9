//! The pinned tool versions must agree, or Trunk (offline) refuses to build: wasm-bindgen in
//! Cargo.lock, `[tools] wasm_bindgen` in Trunk.toml and `WASM_BINDGEN_VERSION` in `x`.

fn read(name: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).unwrap()
}

#[test]
fn wasm_bindgen_versions_agree() {
    let lock = read("Cargo.lock");
    let locked = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"wasm-bindgen\"\n"))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = \"")))
        .map(|v| v.trim_end_matches('"').to_string())
        .expect("wasm-bindgen in Cargo.lock");
    let trunk = read("Trunk.toml");
    assert!(
        trunk.contains(&format!("wasm_bindgen = \"{locked}\"")),
        "Trunk.toml must pin {locked}"
    );
    let x = read("x");
    assert!(
        x.contains(&format!("WASM_BINDGEN_VERSION={locked}")),
        "x must pin {locked}"
    );
}

#[test]
fn trunk_never_downloads() {
    let trunk = read("Trunk.toml");
    assert!(trunk.contains("offline = true"));
    assert!(trunk.contains("wasm_opt = \"version_"));
}
