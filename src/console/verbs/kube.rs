// kube: `kube up` starts the mock control plane on the cluster, `kube down` stops it.
//! The `kube` verb: the mock Kubernetes control plane's life, its API server's flags, its
//! kubelets, and the trace of the last kubectl change.

use super::Call;
use crate::base::Millis;
use crate::console::error::ConsoleError;
use crate::console::{Output, Session};
use crate::kube::encryption::EncryptionConfig;
use crate::kube::ControlPlane;

pub fn kube(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    match call.args[..] {
        ["apiserver", ref flags @ ..] if !flags.is_empty() => apiserver(s, flags, call.line),
        ["up"] if s.kube.is_some() => Err("kube: the control plane is already up".into()),
        ["up"] => {
            let kube = ControlPlane::up(&mut s.world, s.config.seed, s.config.preset)
                .map_err(|e| format!("kube up: {}", e.message))?;
            s.kube = Some(kube);
            s.record(call.line);
            Ok(Output::default())
        }
        [verb @ ("stop-kubelet" | "start-kubelet"), node] => {
            let kube = s.kube.as_mut().ok_or(ConsoleError::KubeNotUp)?;
            if !kube.set_kubelet_running(node, verb == "start-kubelet") {
                return Err(ConsoleError::failed(format!(
                    "kube: no node named {node:?} ({})",
                    kube.node_names().join(", ")
                )));
            }
            s.record(call.line);
            Ok(Output::default())
        }
        ["trace"] => trace(s),
        ["down"] => {
            s.kube = None;
            s.record(call.line);
            Ok(Output::default())
        }
        _ => Err(call.usage()),
    }
}

/// kube: follow the last kubectl change through apiserver, etcd, Raft, the watch cache and
/// the controllers (what the page's "follow" button shows).
fn trace(s: &Session) -> Result<Output, ConsoleError> {
    let kube = s.kube.as_ref().ok_or(ConsoleError::KubeNotUp)?;
    let followed = crate::kube::trace::follow_last(kube.api.journal())
        .ok_or("kube trace: no kubectl command has written anything yet")?;
    Ok(Output::ok(crate::kube::trace::render(&followed)))
}

/// kube: restarting the API server with `--encryption-provider-config FILE` turns encryption
/// at rest on for what it writes from then on; `--event-ttl D` sets how long Events live.
fn apiserver(s: &mut Session, flags: &[&str], line: &str) -> Result<Output, ConsoleError> {
    let mut encryption = None;
    let mut event_ttl = None;
    let mut rest = flags.iter().flat_map(|f| match f.split_once('=') {
        Some((k, v)) if k.starts_with("--") => vec![k, v],
        _ => vec![*f],
    });
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .ok_or_else(|| format!("kube apiserver: flag needs an argument: {flag}"))?;
        match flag {
            "--encryption-provider-config" => encryption = Some(encryption_config(s, value)?),
            "--event-ttl" => event_ttl = Some(event_ttl_ms(value)?),
            _ => return Err(format!("kube apiserver: unknown flag: {flag}").into()),
        }
    }
    let kube = s.kube.as_mut().ok_or(ConsoleError::KubeNotUp)?;
    if let Some(config) = encryption {
        kube.api.encryption = Some(config);
    }
    if let Some(ttl) = event_ttl {
        kube.api.event_ttl_ms = ttl;
    }
    s.record(line);
    Ok(Output::default())
}

fn event_ttl_ms(value: &str) -> Result<Millis, ConsoleError> {
    crate::base::parse_duration(value)
        .filter(|ms| *ms >= 1000)
        .ok_or_else(|| {
            ConsoleError::failed(format!("kube apiserver: invalid argument {value:?} for \"--event-ttl\" flag: time: invalid duration {value:?}"))
        })
}

/// An `EncryptionConfiguration` from the working directory.
fn encryption_config(s: &Session, path: &str) -> Result<EncryptionConfig, ConsoleError> {
    let bytes = s
        .files
        .get(&crate::console::shell::fs::key(path))
        .ok_or_else(|| format!("open {path}: no such file or directory"))?;
    let docs = crate::kube::yaml::parse_documents(&String::from_utf8_lossy(bytes))?;
    let doc = docs.first().ok_or_else(|| format!("{path}: empty file"))?;
    EncryptionConfig::parse(doc)
        .map_err(|e| ConsoleError::failed(format!("error while parsing file: {e}")))
}
