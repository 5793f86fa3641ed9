//! `benches/support/workload.rs` (our engine on #14's workload) and the memory run of
//! `benches/support/writes.rs`, built as a bare wasm32 module (no wasm-bindgen: nothing of the
//! page, only the engine) that `tests/browser_bench.rs` times in headless Chromium beside the
//! native figures. Build: `cargo build --profile bench --target wasm32-unknown-unknown
//! --example engine_wasm` (`./x bench` does it).

#[path = "../support/workload.rs"]
#[allow(dead_code)] // raft.rs uses all of it; this module only our engine and the limit
mod workload;

#[path = "../support/writes.rs"]
#[allow(dead_code)] // benches/memory.rs reads the session's checkpoints; here the page reads memory
mod writes;

use std::cell::RefCell;
use workload::Workload;

thread_local! {
    // Built before the clock starts, as benches/raft.rs builds it outside its timed runs.
    static PREPARED: RefCell<Option<Workload>> = const { RefCell::new(None) };
}

/// Builds the workload of `n` proposals, `batch` per round, for [`run_engine`].
#[no_mangle]
pub extern "C" fn prepare(n: u32, batch: u32) {
    let w = Workload::new(n as usize, batch.max(1) as usize);
    PREPARED.with(|p| *p.borrow_mut() = Some(w));
}

/// Runs the prepared workload on our engine (`limit != 0`: the state-machine limit instead);
/// the messages it delivered, or u64::MAX if nothing was prepared.
#[no_mangle]
pub extern "C" fn run_engine(limit: u32) -> u64 {
    PREPARED.with(|p| match p.borrow().as_ref() {
        Some(w) if limit != 0 => workload::limit(w).messages,
        Some(w) => workload::ours(w).messages,
        None => u64::MAX,
    })
}

/// The memory run (`writes::run`): `seconds` of virtual time at `per_s` writes a second on
/// `members` members, as the page runs them; the puts answered. The page reads the module's
/// memory size afterwards (wasm memory only grows, so it is the peak).
#[no_mangle]
pub extern "C" fn run_writes(members: u32, seconds: u32, per_s: u32) -> u64 {
    writes::run(members as usize, u64::from(seconds), u64::from(per_s)).answered
}
