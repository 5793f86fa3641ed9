//! The page. Its pure part (the run it drives, the view state and its reducer, settings,
//! share links, the message recorder, the texts) builds on every target, so that
//! `cargo test --lib` checks it; the Yew components and the browser services only on wasm32.

pub mod a11y;
pub mod fast_forward;
pub mod i18n;
pub mod lab;
pub mod lessons;
pub mod long_run;
pub mod recorder;
pub mod ring;
pub mod share;
pub mod share_saved;
pub mod view;

#[cfg(target_arch = "wasm32")]
mod app;
#[cfg(target_arch = "wasm32")]
mod cluster;
#[cfg(target_arch = "wasm32")]
mod console;
#[cfg(target_arch = "wasm32")]
mod crash;
#[cfg(target_arch = "wasm32")]
mod dom;
#[cfg(target_arch = "wasm32")]
mod field;
#[cfg(target_arch = "wasm32")]
mod frames;
#[cfg(target_arch = "wasm32")]
mod header;
#[cfg(target_arch = "wasm32")]
mod kube_panel;
#[cfg(target_arch = "wasm32")]
mod lamport;
#[cfg(target_arch = "wasm32")]
mod legend;
#[cfg(target_arch = "wasm32")]
mod lessons_panel;
#[cfg(target_arch = "wasm32")]
mod logs;
#[cfg(target_arch = "wasm32")]
mod members;
#[cfg(target_arch = "wasm32")]
mod network;
#[cfg(target_arch = "wasm32")]
mod onboarding;
#[cfg(target_arch = "wasm32")]
mod page;
#[cfg(target_arch = "wasm32")]
mod panels;
#[cfg(target_arch = "wasm32")]
mod rules;
#[cfg(target_arch = "wasm32")]
mod share_panel;
#[cfg(target_arch = "wasm32")]
mod status;
#[cfg(target_arch = "wasm32")]
mod tabs;

#[cfg(target_arch = "wasm32")]
pub use app::start;
