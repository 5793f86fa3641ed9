//! #14's memory run: virtual time with a steady stream of `etcdctl put`s, as the page runs it
//! (time-travel checkpoints and the invariant monitor on), with the default snapshot count.
//! Shared by `benches/memory.rs` (native peak RSS) and `benches/wasm/engine.rs` (wasm heap).

use raftlab::console::Session;
use raftlab::etcd::ClusterConfig;

/// What a run did.
pub struct Writes {
    pub answered: u64,
    pub session: Session,
}

/// `seconds` of virtual time on `members` members with `per_s` puts a second over 1,000 keys,
/// each put given at its own moment (`i / per_s` seconds after the leader is up).
pub fn run(members: usize, seconds: u64, per_s: u64) -> Writes {
    let mut session = Session::new(ClusterConfig::new(members, 1));
    session.watch_invariants();
    let ok = session.execute("wait leader", None);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let start = session.world.now();
    let mut answered = 0;
    for i in 0..seconds * per_s.max(1) {
        let at = start + i * 1000 / per_s.max(1);
        let now = session.world.now();
        if at > now {
            session.run_for(at - now);
        }
        let put = session.execute(&format!("etcdctl put key{:03} value{i:08}", i % 1000), None);
        answered += u64::from(put.code == 0);
    }
    Writes { answered, session }
}
