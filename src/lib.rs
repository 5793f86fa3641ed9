//! Raft Lab: etcd and the Kubernetes control plane as a deterministic simulation.
//!
//! Layers (see DESIGN.md): `base` → `raft`, `mvcc`, `sim` → `etcd` → `kube` → `console`,
//! with `check` reading views. Only `ui` (wasm32) and `cli` (native) touch the outside world.

// Functions short enough to read at once (`too-many-lines-threshold` in clippy.toml); test
// code (tables of cases, long stories) is exempt.
#![cfg_attr(not(test), warn(clippy::too_many_lines))]

pub mod base;
pub mod check;
pub mod console;
pub mod etcd;
pub mod kube;
pub mod lesson;
pub mod mvcc;
pub mod raft;
pub mod sim;
/// The page: its pure part on every target, its DOM part on wasm32 only.
pub mod ui;

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;
