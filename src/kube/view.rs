//! What the UI shows of Kubernetes: Deployments → ReplicaSets → Pods by owner reference,
//! and the nodes. Read from the API server's watch cache, as `kubectl get` would.

use super::meta::{self, DEPLOYMENTS, EVENTS, NODES, PODS, REPLICASETS};
use super::ControlPlane;
use crate::base::{Millis, Revision};
use crate::etcd::Cluster;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub name: String,
    /// Pending, Running, Terminating... as `kubectl get pods` says it.
    pub status: String,
    pub node: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSetView {
    pub name: String,
    pub desired: i64,
    pub ready: i64,
    pub pods: Vec<PodView>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentView {
    pub name: String,
    pub namespace: String,
    pub desired: i64,
    pub ready: i64,
    pub replica_sets: Vec<ReplicaSetView>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub name: String,
    pub ready: bool,
    /// A control-plane node (an etcd member's machine), where workloads do not run.
    pub control_plane: bool,
}

/// One Event, as `kubectl get events` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventView {
    pub last_seen_ms: Millis,
    pub event_type: String,
    pub reason: String,
    /// `deployment/web`.
    pub object: String,
    pub message: String,
    pub count: i64,
}

/// How many Events the view keeps (the most recent).
const EVENTS_SHOWN: usize = 12;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KubeView {
    pub deployments: Vec<DeploymentView>,
    pub nodes: Vec<NodeView>,
    /// The most recent Events in every namespace, newest first.
    pub events: Vec<EventView>,
    /// (leads?) of kube-controller-manager and kube-scheduler.
    pub controller_manager_leads: bool,
    pub scheduler_leads: bool,
}

fn uid(v: &Value) -> &str {
    meta::str_at(v, &["metadata", "uid"])
}

fn owned_by(v: &Value, owner: &str) -> bool {
    meta::at(v, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)
        .is_some_and(|refs| {
            refs.iter()
                .any(|r| r.get("uid").and_then(Value::as_str) == Some(owner))
        })
}

fn int(v: &Value, path: &[&str]) -> i64 {
    meta::at(v, path).and_then(Value::as_i64).unwrap_or(0)
}

fn pod_status(p: &Value) -> String {
    if meta::at(p, &["metadata", "deletionTimestamp"]).is_some() {
        return "Terminating".into();
    }
    let waiting = meta::at(p, &["status", "containerStatuses"])
        .and_then(Value::as_array)
        .and_then(|cs| cs.first())
        .and_then(|c| meta::at(c, &["state", "waiting", "reason"]))
        .and_then(Value::as_str);
    waiting.map_or_else(
        || meta::str_at(p, &["status", "phase"]).to_string(),
        str::to_string,
    )
}

/// Where the API server keeps every object in etcd.
const REGISTRY_PREFIX: &[u8] = b"/registry/";

/// The first `limit` `/registry` keys in etcd with their mod revisions, in key order, and
/// how many there are.
pub fn registry_keys(world: &Cluster, limit: usize) -> (Vec<(String, Revision)>, usize) {
    world.keys_under(REGISTRY_PREFIX, limit)
}

impl ControlPlane {
    pub fn view(&self) -> KubeView {
        let api = &self.api;
        let pods = api.list_cached(&PODS, None);
        let sets = api.list_cached(&REPLICASETS, None);
        let deployments = api
            .list_cached(&DEPLOYMENTS, None)
            .iter()
            .map(|d| DeploymentView {
                name: meta::name(d).to_string(),
                namespace: meta::namespace(d).to_string(),
                desired: int(d, &["spec", "replicas"]),
                ready: int(d, &["status", "readyReplicas"]),
                replica_sets: sets
                    .iter()
                    .filter(|rs| owned_by(rs, uid(d)))
                    .map(|rs| ReplicaSetView {
                        name: meta::name(rs).to_string(),
                        desired: int(rs, &["spec", "replicas"]),
                        ready: int(rs, &["status", "readyReplicas"]),
                        pods: pods
                            .iter()
                            .filter(|p| owned_by(p, uid(rs)))
                            .map(|p| PodView {
                                name: meta::name(p).to_string(),
                                status: pod_status(p),
                                node: meta::str_at(p, &["spec", "nodeName"]).to_string(),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        let nodes = api
            .list_cached(&NODES, None)
            .iter()
            .map(|n| NodeView {
                name: meta::name(n).to_string(),
                control_plane: meta::labels(n)
                    .iter()
                    .any(|(k, _)| k == "node-role.kubernetes.io/control-plane"),
                ready: meta::at(n, &["status", "conditions"])
                    .and_then(Value::as_array)
                    .is_some_and(|cs| {
                        cs.iter().any(|c| {
                            c.get("type").and_then(Value::as_str) == Some("Ready")
                                && c.get("status").and_then(Value::as_str) == Some("True")
                        })
                    }),
            })
            .collect();
        let mut events: Vec<EventView> = api
            .list_cached(&EVENTS, None)
            .iter()
            .map(|e| EventView {
                last_seen_ms: meta::parse_timestamp(meta::str_at(e, &["lastTimestamp"])),
                event_type: meta::str_at(e, &["type"]).to_string(),
                reason: meta::str_at(e, &["reason"]).to_string(),
                object: format!(
                    "{}/{}",
                    meta::str_at(e, &["involvedObject", "kind"]).to_ascii_lowercase(),
                    meta::str_at(e, &["involvedObject", "name"])
                ),
                message: meta::str_at(e, &["message"]).to_string(),
                count: int(e, &["count"]).max(1),
            })
            .collect();
        // Newest first; the sort is stable, so same-moment Events keep their key order.
        events.sort_by_key(|e| std::cmp::Reverse(e.last_seen_ms));
        events.truncate(EVENTS_SHOWN);
        let (controller_manager_leads, scheduler_leads) = self.leading();
        KubeView {
            deployments,
            nodes,
            events,
            controller_manager_leads,
            scheduler_leads,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::console::{run_script, Session};
    use crate::etcd::ClusterConfig;

    #[test]
    fn the_registry_list_holds_only_what_the_api_server_stored_with_its_revisions() {
        let mut s = Session::new(ClusterConfig::new(3, 1));
        run_script(&mut s, "wait leader\netcdctl put /other x\nkube up\nkubectl create deployment web --image=nginx:1.25\nwait 5s\n", false);
        let (keys, count) = super::registry_keys(&s.world, usize::MAX);
        assert_eq!(keys.len(), count);
        assert_eq!(
            super::registry_keys(&s.world, 2),
            (keys[..2].to_vec(), count)
        );
        assert!(keys.iter().all(|(k, _)| k.starts_with("/registry/")));
        let (_, revision) = keys
            .iter()
            .find(|(k, _)| k == "/registry/deployments/default/web")
            .expect("the Deployment is stored");
        assert!(*revision > 1, "written after /other");
        assert!(keys.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
    }

    #[test]
    fn the_view_follows_owner_references() {
        let mut s = Session::new(ClusterConfig::new(3, 1));
        run_script(&mut s, "wait leader\nkube up\nkubectl create deployment web --image=nginx:1.25 --replicas=3\nwait 10s\n", false);
        let view = s.kube.as_ref().unwrap().view();
        assert_eq!(view.deployments.len(), 1);
        let d = &view.deployments[0];
        assert_eq!((d.name.as_str(), d.desired, d.ready), ("web", 3, 3));
        assert_eq!(d.replica_sets.len(), 1);
        assert_eq!(d.replica_sets[0].pods.len(), 3);
        assert!(d.replica_sets[0]
            .pods
            .iter()
            .all(|p| p.status == "Running" && !p.node.is_empty()));
        // A control-plane node per etcd member, then the three workers.
        let roles: Vec<(&str, bool)> = view
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.control_plane))
            .collect();
        assert_eq!(
            roles,
            [
                ("m1", true),
                ("m2", true),
                ("m3", true),
                ("node-1", false),
                ("node-2", false),
                ("node-3", false)
            ]
        );
        assert!(view.nodes.iter().all(|n| n.ready));
        assert!(view.controller_manager_leads && view.scheduler_leads);
        assert!(view
            .events
            .iter()
            .any(|e| e.reason == "Started" && e.object.starts_with("pod/web-")));
        assert!(view.events.len() <= super::EVENTS_SHOWN);
        assert!(view
            .events
            .windows(2)
            .all(|w| w[0].last_seen_ms >= w[1].last_seen_ms));
    }
}
