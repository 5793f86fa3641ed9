//! The node lifecycle controller: NotReady (Unknown) and the unreachable taint when a node's
//! lease stops moving for the grace period, eviction of its pods after the taint's default
//! toleration, and Ready again when the lease moves.

use super::informers::{Informers, Listed};
use super::{edit, event, soft, Tick};
use crate::base::Millis;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, NODES, PODS};
use crate::kube::objects::{Condition, Node, Pod, Taint};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

/// kube-controller-manager `--node-monitor-grace-period`: a node whose lease has not moved
/// for this long is NotReady (Unknown).
const NODE_MONITOR_GRACE_MS: Millis = 40_000;
/// The default toleration of `node.kubernetes.io/unreachable:NoExecute`: pods are evicted
/// this long after the taint.
const UNREACHABLE_TOLERATION_MS: Millis = 300_000;
const UNREACHABLE_TAINT: &str = "node.kubernetes.io/unreachable";

#[derive(Clone, Debug, Default)]
pub struct NodeLifecycle {
    /// Per node, the lease renewTime last seen and when it was seen to change (the
    /// controller's probe timestamp).
    probes: BTreeMap<String, (String, Millis)>,
    /// When the unreachable taint was added, per node.
    tainted_at: BTreeMap<String, Millis>,
}

fn caller() -> Caller {
    Caller::component("node-lifecycle-controller")
}

impl NodeLifecycle {
    pub fn sync(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        nodes: &[String],
        informers: &mut Informers,
    ) -> Tick {
        let now = world.now();
        let leases = informers.leases.objects(api, Some("kube-node-lease"));
        for node in nodes {
            let renew = leases
                .iter()
                .find(|l| l.metadata.name() == node)
                .and_then(|l| l.spec.renew_time.clone())
                .unwrap_or_default();
            let probe = self
                .probes
                .entry(node.clone())
                .or_insert((renew.clone(), now));
            if probe.0 != renew {
                *probe = (renew, now);
            }
            let silent = now.saturating_sub(probe.1) >= NODE_MONITOR_GRACE_MS;
            let tainted = self.tainted_at.contains_key(node);
            if silent && !tainted {
                self.tainted_at.insert(node.clone(), now);
                mark_unreachable(api, world, node)?;
            } else if !silent && tainted {
                self.tainted_at.remove(node);
                mark_ready(api, world, node)?;
            }
            let evict = self
                .tainted_at
                .get(node)
                .is_some_and(|t| now >= t + UNREACHABLE_TOLERATION_MS);
            if evict {
                evict_pods(api, world, node, informers)?;
            }
        }
        Ok(())
    }
}

/// Replaces a node's Ready condition.
fn set_ready(node: &mut Node, status: &str, reason: &str, message: &str, now: Millis) {
    let conditions = node.status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.kind != "Ready");
    conditions.push(Condition {
        kind: "Ready".into(),
        status: status.into(),
        reason: Some(reason.into()),
        message: Some(message.into()),
        last_transition_time: Some(Some(meta::timestamp(now))),
        rest: [("lastHeartbeatTime".to_string(), json!(meta::timestamp(now)))]
            .into_iter()
            .collect(),
        ..Condition::default()
    });
}

/// NotReady (Unknown) and tainted unreachable, with a NodeNotReady event.
fn mark_unreachable(api: &mut ApiServer, world: &mut Cluster, node: &str) -> Tick {
    let now = world.now();
    let caller = caller();
    soft(
        api.guaranteed_update(&caller, world, &NODES, "", node, |cur| {
            Ok(edit(cur, |n: &mut Node| {
                set_ready(
                    n,
                    "Unknown",
                    "NodeStatusUnknown",
                    "Kubelet stopped posting node status.",
                    now,
                );
                let taints = n.spec.taints.get_or_insert_with(Vec::new);
                // TaintNodesByCondition keeps new pods off; the NoExecute taint evicts.
                for effect in ["NoSchedule", "NoExecute"] {
                    taints.push(Taint {
                        key: UNREACHABLE_TAINT.into(),
                        effect: effect.into(),
                        time_added: Some(meta::timestamp(now)),
                        ..Taint::default()
                    });
                }
            }))
        }),
    )?;
    let node_obj = api
        .get_cached(&NODES, "", node)
        .map(Arc::unwrap_or_clone)
        .unwrap_or_else(|| json!({"kind": "Node", "metadata": {"name": node}}));
    let msg = format!("Node {node} status is now: NodeNotReady");
    let reason = ("Normal", "NodeNotReady");
    soft(event(
        api,
        &caller,
        world,
        &node_obj,
        reason,
        &msg,
        "node-controller",
    ))
}

/// Ready again, the unreachable taints gone.
fn mark_ready(api: &mut ApiServer, world: &mut Cluster, node: &str) -> Tick {
    let now = world.now();
    soft(
        api.guaranteed_update(&caller(), world, &NODES, "", node, |cur| {
            Ok(edit(cur, |n: &mut Node| {
                set_ready(
                    n,
                    "True",
                    "KubeletReady",
                    "kubelet is posting ready status",
                    now,
                );
                if let Some(taints) = &mut n.spec.taints {
                    taints.retain(|t| t.key != UNREACHABLE_TAINT);
                }
            }))
        }),
    )
}

/// The node's active pods that do not tolerate being unreachable forever are deleted.
fn evict_pods(
    api: &mut ApiServer,
    world: &mut Cluster,
    node: &str,
    informers: &mut Informers,
) -> Tick {
    let caller = caller();
    let doomed: Vec<Listed<Pod>> = informers
        .pods
        .list(api, None)
        .into_iter()
        .filter(|(_, p)| p.node_name() == node && p.is_active())
        .filter(|(_, p)| !tolerates_forever(p, UNREACHABLE_TAINT))
        .collect();
    for (involved, pod) in doomed {
        let msg = format!("Marking for deletion Pod {}", pod.key());
        let reason = ("Normal", "TaintManagerEviction");
        soft(event(
            api,
            &caller,
            world,
            &involved,
            reason,
            &msg,
            "taint-eviction-controller",
        ))?;
        let (ns, name) = (pod.metadata.namespace(), pod.metadata.name());
        soft(api.delete(&caller, world, &PODS, ns, name, false))?;
    }
    Ok(())
}

/// Whether the pod tolerates a NoExecute taint `key` with no time limit (it is not evicted).
fn tolerates_forever(pod: &Pod, key: &str) -> bool {
    let taint = Taint {
        key: key.into(),
        effect: "NoExecute".into(),
        ..Taint::default()
    };
    pod.spec
        .tolerations
        .iter()
        .flatten()
        .any(|t| t.tolerates(&taint) && t.toleration_seconds.is_none())
}
