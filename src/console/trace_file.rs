//! The trace file `raftlab run --trace` writes and the page downloads: the settings, the trace
//! hash and every trace line of a run, so two runs can be compared line by line.

use super::{run_script, Session};
use crate::etcd::{Cluster, ClusterConfig};
use serde::Serialize;

#[derive(Serialize)]
struct TraceFile<'a> {
    seed: u64,
    members: usize,
    trace_hash: String,
    events: Vec<&'a str>,
}

/// The file's text for `world`, run from `config` with its trace recorded.
pub fn trace_json(config: &ClusterConfig, world: &Cluster) -> serde_json::Result<String> {
    let file = TraceFile {
        seed: config.seed,
        members: config.members,
        trace_hash: format!("{:016x}", world.trace_hash()),
        events: world.trace_lines(),
    };
    Ok(serde_json::to_string_pretty(&file)? + "\n")
}

/// Replays `script` on a fresh world with the trace on (a live world may keep none, since its
/// checkpoints would copy it) and gives the file's text for it.
pub fn replay_trace_json(config: &ClusterConfig, script: &str) -> serde_json::Result<String> {
    let mut session = Session::new(config.clone());
    session.world.record_trace(true);
    run_script(&mut session, script, false);
    trace_json(config, &session.world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_writes_the_file_the_run_itself_writes() {
        let config = ClusterConfig::new(3, 7);
        let script = "wait leader\netcdctl put a 1\n";
        let mut session = Session::new(config.clone());
        session.world.record_trace(true);
        run_script(&mut session, script, true);
        let direct = trace_json(&config, &session.world).unwrap();
        assert_eq!(replay_trace_json(&config, script).unwrap(), direct);
        let file: serde_json::Value = serde_json::from_str(&direct).unwrap();
        assert_eq!(file["seed"], 7);
        assert_eq!(file["members"], 3);
        assert!(direct.starts_with("{\n  \"seed\": 7,\n  \"members\": 3,\n  \"trace_hash\": \""));
        assert!(direct.ends_with("]\n}\n"));
    }
}
