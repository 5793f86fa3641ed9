//! The deterministic world: virtual time, a seeded network, members that crash and restart.
//! Events are ordered by (virtual time, sequence number); nothing here reads a clock.

mod net;
mod world;

pub use net::{Fate, NetConfig, Network};
pub use world::{
    Action, Applied, InFlight, LogEvent, MemberStatus, SimError, StatusView, World, WorldConfig,
};
