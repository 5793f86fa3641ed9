//! On wasm32 this starts the page; natively it is the `raftlab` command-line tool.

#[cfg(target_arch = "wasm32")]
fn main() {
    raftlab::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(raftlab::cli::main());
}
