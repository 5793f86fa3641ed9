//! The loops that converge actual state to desired state, each reading through the
//! apiserver's watch cache (what an informer holds) and writing through the apiserver:
//! kubelets (node leases, pod lifecycle), the scheduler, the ReplicaSet and Deployment
//! controllers (KK `pkg/controller/{replicaset,deployment}`) and the garbage collector.

use super::apiserver::{ApiServer, Subresource};
use super::meta::{self, ApiError, DEPLOYMENTS, LEASES, NODES, PODS, REPLICASETS};
use super::NODE_NAMES;
use crate::base::{MemberId, Millis, Rng};
use crate::etcd::Cluster;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Node leases: renewed every 10 s, valid for 40 s (kubelet defaults).
const NODE_LEASE_RENEW_MS: Millis = 10_000;
/// kube-controller-manager `--node-monitor-grace-period`: a node whose lease has not moved
/// for this long is NotReady (Unknown).
const NODE_MONITOR_GRACE_MS: Millis = 40_000;
/// The default toleration of `node.kubernetes.io/unreachable:NoExecute`: pods are evicted
/// this long after the taint.
const UNREACHABLE_TOLERATION_MS: Millis = 300_000;
const UNREACHABLE_TAINT: &str = "node.kubernetes.io/unreachable";
const REVISION: &str = "deployment.kubernetes.io/revision";
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
const NODE_LEASE_DURATION_S: i64 = 40;

/// What the simulated kubelet does next to a pod, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PodStep {
    /// Sandbox and image pull started: `ContainerCreating`.
    Create,
    /// Container started: `Running`, Ready.
    Start,
    /// Containers stopped after a graceful delete: the final DELETE.
    Remove,
}

#[derive(Clone, Debug)]
pub struct Controllers {
    rng: Rng,
    /// Nodes whose kubelet is stopped (`kube stop-kubelet`): no lease renewals, no pod work.
    stopped_kubelets: BTreeSet<String>,
    /// Node lifecycle: per node, the lease renewTime last seen and when it was seen to change
    /// (the controller's probe timestamp), and when the unreachable taint was added.
    node_probes: BTreeMap<String, (String, Millis)>,
    tainted_at: BTreeMap<String, Millis>,
    /// Leader election of kube-controller-manager and kube-scheduler through Leases.
    controller_manager: Elector,
    scheduler: Elector,
    /// Per pod key: the kubelet's next step and its due time.
    pod_timers: BTreeMap<String, (PodStep, Millis)>,
    next_lease_renew_ms: Millis,
    /// Pod IPs handed out per node.
    next_ip: BTreeMap<String, u32>,
    /// The control-plane nodes, one per etcd member at `kube up` (kubeadm's stacked etcd).
    control_plane: Vec<(String, MemberId)>,
    /// The scheduler's backoff for pods no node fits: (next attempt, current backoff).
    unschedulable: BTreeMap<String, (Millis, Millis)>,
}

mod static_pods;
pub use static_pods::CONTROL_PLANE_TAINT;

type Tick = Result<(), ApiError>;

/// An etcd failure stops the round (the next round retries); API errors such as a Conflict
/// only skip the one object.
fn soft(result: Result<Value, ApiError>) -> Tick {
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.code >= 500 => Err(e),
        Err(_) => Ok(()),
    }
}

fn is_active(pod: &Value) -> bool {
    meta::at(pod, &["metadata", "deletionTimestamp"]).is_none()
        && !matches!(
            meta::str_at(pod, &["status", "phase"]),
            "Succeeded" | "Failed"
        )
}

/// Sets a node's Ready condition.
fn set_ready(node: &mut Value, status: &str, reason: &str, message: &str, now: Millis) {
    let conditions = meta::obj_mut(node, &["status"])
        .entry("conditions")
        .or_insert(json!([]));
    if let Some(list) = conditions.as_array_mut() {
        list.retain(|c| c.get("type").and_then(Value::as_str) != Some("Ready"));
        list.push(
            json!({"type": "Ready", "status": status, "reason": reason, "message": message,
            "lastHeartbeatTime": meta::timestamp(now), "lastTransitionTime": meta::timestamp(now)}),
        );
    }
}

fn condition_true(obj: &Value, kind: &str) -> bool {
    meta::at(obj, &["status", "conditions"])
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some(kind)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

pub fn pod_ready(pod: &Value) -> bool {
    condition_true(pod, "Ready")
}

fn owner_ref(owner: &Value) -> Value {
    json!({
        "apiVersion": meta::str_at(owner, &["apiVersion"]),
        "kind": meta::str_at(owner, &["kind"]),
        "name": meta::name(owner),
        "uid": meta::uid(owner),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

fn replicas(obj: &Value) -> i64 {
    meta::i64_at(obj, &["spec", "replicas"]).unwrap_or(1)
}

fn status_i64(obj: &Value, field: &str) -> i64 {
    meta::i64_at(obj, &["status", field]).unwrap_or(0)
}

impl Controllers {
    pub fn new(rng: Rng) -> Controllers {
        Controllers {
            stopped_kubelets: BTreeSet::new(),
            node_probes: BTreeMap::new(),
            tainted_at: BTreeMap::new(),
            controller_manager: Elector::new("kube-controller-manager"),
            scheduler: Elector::new("kube-scheduler"),
            rng,
            pod_timers: BTreeMap::new(),
            next_lease_renew_ms: 0,
            next_ip: BTreeMap::new(),
            control_plane: Vec::new(),
            unschedulable: BTreeMap::new(),
        }
    }

    /// Every node: the control plane's, then the workers.
    pub fn node_names(&self) -> Vec<String> {
        self.control_plane
            .iter()
            .map(|(n, _)| n.clone())
            .chain(NODE_NAMES.iter().map(|n| n.to_string()))
            .collect()
    }

    /// The kubelets register their Node objects and node Leases: a control-plane node per
    /// etcd member (tainted so that workloads stay off it), then the three workers.
    pub fn register_nodes(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        self.control_plane = world
            .member_ids()
            .into_iter()
            .filter(|m| !world.is_removed(*m))
            .map(|m| (m.to_string(), m))
            .collect();
        let nodes: Vec<(String, bool, String, String)> = self
            .control_plane
            .iter()
            .enumerate()
            .map(|(i, (n, _))| {
                let cidr = format!("10.244.{}.0/24", 100 + i);
                (n.clone(), true, static_pods::control_plane_ip(i), cidr)
            })
            .chain(NODE_NAMES.iter().enumerate().map(|(i, n)| {
                let cidr = format!("10.244.{}.0/24", i + 1);
                (n.to_string(), false, format!("172.18.0.{}", i + 2), cidr)
            }))
            .collect();
        for (node, control_plane, ip, cidr) in nodes {
            let node = node.as_str();
            let now = world.now();
            let ready = json!({"type": "Ready", "status": "True", "reason": "KubeletReady",
                "message": "kubelet is posting ready status",
                "lastHeartbeatTime": meta::timestamp(now), "lastTransitionTime": meta::timestamp(now)});
            let mut obj = json!({
                "metadata": {"name": node, "labels": {
                    "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": node,
                    "kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64",
                    "beta.kubernetes.io/os": "linux"}},
                "spec": {"podCIDR": cidr, "podCIDRs": [cidr]},
                "status": {
                    "addresses": [{"type": "InternalIP", "address": ip},
                        {"type": "Hostname", "address": node}],
                    "capacity": {"cpu": "4", "memory": "8039920Ki", "pods": "110"},
                    "allocatable": {"cpu": "4", "memory": "8039920Ki", "pods": "110"},
                    "conditions": [ready],
                    "nodeInfo": {"kubeletVersion": "v1.31.0", "containerRuntimeVersion": "containerd://1.7.18",
                        "kernelVersion": "6.1.0-raftlab", "osImage": "Debian GNU/Linux 12 (bookworm)",
                        "operatingSystem": "linux", "architecture": "amd64"}
                }
            });
            if control_plane {
                let labels = meta::obj_mut(&mut obj, &["metadata", "labels"]);
                labels.insert(CONTROL_PLANE_TAINT.into(), json!(""));
                labels.insert(
                    "node.kubernetes.io/exclude-from-external-load-balancers".into(),
                    json!(""),
                );
                obj["spec"]["taints"] =
                    json!([{"key": CONTROL_PLANE_TAINT, "effect": "NoSchedule"}]);
            }
            soft(api.create(world, &NODES, obj))?;
            let lease = json!({
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": NODE_LEASE_DURATION_S,
                    "renewTime": micro_time(now)}
            });
            soft(api.create(world, &LEASES, lease))?;
        }
        self.next_lease_renew_ms = world.now() + NODE_LEASE_RENEW_MS;
        Ok(())
    }

    pub fn tick(&mut self, api: &mut ApiServer, world: &mut Cluster) {
        // The kubelets run on their nodes whatever happens to the control plane, and the
        // control plane's components are processes of their own: a failing kubelet round
        // does not stop them from trying.
        // Each component's writes are journaled under its name (then the caller's again).
        let caller = std::mem::replace(&mut api.actor, "kubelet".into());
        for step in [
            Controllers::node_leases,
            Controllers::kubelets,
            Controllers::static_pods,
        ] {
            if step(self, api, world).is_err() {
                break;
            }
            api.sync(world);
        }
        // The scheduler and the controller manager act only while they hold their Lease.
        api.actor = "kube-scheduler".into();
        let scheduling = self.scheduler.elect(api, world);
        api.actor = "kube-controller-manager".into();
        let managing = self.controller_manager.elect(api, world);
        type Loop = fn(&mut Controllers, &mut ApiServer, &mut Cluster) -> Tick;
        let mut loops: Vec<(&str, Loop)> = Vec::new();
        if scheduling {
            loops.push(("default-scheduler", Controllers::scheduler));
        }
        if managing {
            loops.extend([
                ("deployment-controller", Controllers::deployments as Loop),
                ("replicaset-controller", Controllers::replicasets),
                ("garbage-collector", Controllers::garbage_collector),
                ("node-lifecycle-controller", Controllers::node_lifecycle),
            ]);
        }
        for (actor, step) in loops {
            api.actor = actor.into();
            if step(self, api, world).is_err() {
                break;
            }
            api.sync(world);
        }
        api.actor = caller;
    }

    /// Stops or starts a node's kubelet (a node failure the control plane must notice).
    pub fn set_kubelet_running(&mut self, node: &str, running: bool) -> bool {
        if !self.node_names().iter().any(|n| n == node) {
            return false;
        }
        if running {
            self.stopped_kubelets.remove(node);
        } else {
            self.stopped_kubelets.insert(node.to_string());
        }
        true
    }

    /// The node lifecycle controller: NotReady (Unknown) and the unreachable taint when a
    /// node's lease stops moving for the grace period, eviction of its pods after the
    /// taint's default toleration, and Ready again when the lease moves.
    fn node_lifecycle(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        let now = world.now();
        let leases = api.list_cached(&LEASES, Some("kube-node-lease"));
        for node in self.node_names() {
            let node = node.as_str();
            let renew = leases
                .iter()
                .find(|l| meta::name(l) == node)
                .map(|l| meta::str_at(l, &["spec", "renewTime"]).to_string())
                .unwrap_or_default();
            let probe = self
                .node_probes
                .entry(node.to_string())
                .or_insert((renew.clone(), now));
            if probe.0 != renew {
                *probe = (renew, now);
            }
            let silent = now.saturating_sub(probe.1) >= NODE_MONITOR_GRACE_MS;
            let tainted = self.tainted_at.contains_key(node);
            if silent && !tainted {
                self.tainted_at.insert(node.to_string(), now);
                soft(api.guaranteed_update(world, &NODES, "", node, |cur| {
                    let mut new = cur.clone();
                    set_ready(&mut new, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.", now);
                    let taints = meta::obj_mut(&mut new, &["spec"]).entry("taints").or_insert(json!([]));
                    if let Some(list) = taints.as_array_mut() {
                        // TaintNodesByCondition keeps new pods off; the NoExecute taint evicts.
                        list.push(json!({"key": UNREACHABLE_TAINT, "effect": "NoSchedule", "timeAdded": meta::timestamp(now)}));
                        list.push(json!({"key": UNREACHABLE_TAINT, "effect": "NoExecute", "timeAdded": meta::timestamp(now)}));
                    }
                    Ok(new)
                }))?;
                let node_obj = api
                    .get_cached(&NODES, "", node)
                    .map(Arc::unwrap_or_clone)
                    .unwrap_or_else(|| json!({"kind": "Node", "metadata": {"name": node}}));
                let msg = format!("Node {node} status is now: NodeNotReady");
                soft(
                    event(
                        api,
                        world,
                        &node_obj,
                        "Normal",
                        "NodeNotReady",
                        &msg,
                        "node-controller",
                    )
                    .map(|_| Value::Null),
                )?;
            } else if !silent && tainted {
                self.tainted_at.remove(node);
                soft(api.guaranteed_update(world, &NODES, "", node, |cur| {
                    let mut new = cur.clone();
                    set_ready(
                        &mut new,
                        "True",
                        "KubeletReady",
                        "kubelet is posting ready status",
                        now,
                    );
                    if let Some(list) = meta::obj_mut(&mut new, &["spec"])
                        .get_mut("taints")
                        .and_then(Value::as_array_mut)
                    {
                        list.retain(|t| {
                            t.get("key").and_then(Value::as_str) != Some(UNREACHABLE_TAINT)
                        });
                    }
                    Ok(new)
                }))?;
            }
            let evict = self
                .tainted_at
                .get(node)
                .is_some_and(|t| now >= t + UNREACHABLE_TOLERATION_MS);
            if evict {
                let doomed: Vec<Arc<Value>> = api
                    .list_cached(&PODS, None)
                    .into_iter()
                    .filter(|p| meta::str_at(p, &["spec", "nodeName"]) == node && is_active(p))
                    .filter(|p| !tolerates_forever(p, UNREACHABLE_TAINT))
                    .collect();
                for pod in doomed {
                    let msg = format!("Marking for deletion Pod {}", pod_key(&pod));
                    soft(
                        event(
                            api,
                            world,
                            &pod,
                            "Normal",
                            "TaintManagerEviction",
                            &msg,
                            "taint-eviction-controller",
                        )
                        .map(|_| Value::Null),
                    )?;
                    soft(api.delete(world, &PODS, meta::namespace(&pod), meta::name(&pod), false))?;
                }
            }
        }
        Ok(())
    }

    /// Whether the controller manager and the scheduler currently lead (for views and tests).
    pub fn leading(&self) -> (bool, bool) {
        (self.controller_manager.leading, self.scheduler.leading)
    }

    // ----- kubelets ---------------------------------------------------------------------

    fn node_leases(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        if world.now() < self.next_lease_renew_ms {
            return Ok(());
        }
        self.next_lease_renew_ms = world.now() + NODE_LEASE_RENEW_MS;
        for node in self.node_names() {
            let node = node.as_str();
            if self.stopped_kubelets.contains(node) {
                continue;
            }
            let now = world.now();
            soft(
                api.guaranteed_update(world, &LEASES, "kube-node-lease", node, |cur| {
                    let mut new = cur.clone();
                    meta::obj_mut(&mut new, &["spec"])
                        .insert("renewTime".into(), json!(micro_time(now)));
                    Ok(new)
                }),
            )?;
        }
        Ok(())
    }

    fn kubelets(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        let now = world.now();
        let pods: Vec<Arc<Value>> = api
            .list_cached(&PODS, None)
            .into_iter()
            .filter(|p| !meta::str_at(p, &["spec", "nodeName"]).is_empty())
            // Mirror pods are the static pods' (`static_pods`), not run from the API.
            .filter(|p| {
                meta::at(
                    p,
                    &["metadata", "annotations", "kubernetes.io/config.mirror"],
                )
                .is_none()
            })
            .collect();
        let keys: Vec<String> = pods.iter().map(|p| pod_key(p)).collect();
        self.pod_timers.retain(|k, _| keys.contains(k));
        for pod in pods {
            if self
                .stopped_kubelets
                .contains(meta::str_at(&pod, &["spec", "nodeName"]))
            {
                continue; // a stopped kubelet does nothing, not even remove its pods
            }
            let key = pod_key(&pod);
            let wanted = if meta::at(&pod, &["metadata", "deletionTimestamp"]).is_some() {
                Some(PodStep::Remove)
            } else if meta::at(&pod, &["status", "containerStatuses"]).is_none() {
                Some(PodStep::Create)
            } else if meta::str_at(&pod, &["status", "phase"]) == "Pending" {
                Some(PodStep::Start)
            } else {
                None
            };
            let Some(step) = wanted else {
                self.pod_timers.remove(&key);
                continue;
            };
            match self.pod_timers.get(&key) {
                Some((s, due)) if *s == step => {
                    if now < *due {
                        continue;
                    }
                }
                _ => {
                    let delay = match step {
                        PodStep::Create => self.rng.range(200, 600),
                        PodStep::Start => self.rng.range(1_000, 3_000),
                        PodStep::Remove => self.rng.range(500, 1_500),
                    };
                    self.pod_timers.insert(key, (step, now + delay));
                    continue;
                }
            }
            self.pod_timers.remove(&key);
            match step {
                PodStep::Create => self.pod_create(api, world, &pod)?,
                PodStep::Start => self.pod_start(api, world, &pod)?,
                PodStep::Remove => {
                    let (ns, name) = (meta::namespace(&pod), meta::name(&pod));
                    for c in containers(&pod) {
                        let msg = format!("Stopping container {c}");
                        soft(
                            event(api, world, &pod, "Normal", "Killing", &msg, "kubelet")
                                .map(|_| json!(null)),
                        )?;
                    }
                    soft(api.delete(world, &PODS, ns, name, true))?;
                }
            }
        }
        Ok(())
    }

    fn pod_create(&mut self, api: &mut ApiServer, world: &mut Cluster, pod: &Value) -> Tick {
        let now = world.now();
        let node = meta::str_at(pod, &["spec", "nodeName"]).to_string();
        let host_ip = node_ip(&node);
        let names = containers(pod);
        let waiting: Vec<Value> = pod_containers(pod)
            .iter()
            .map(|c| {
                json!({"name": c.get("name"), "image": c.get("image"), "imageID": "",
                "ready": false, "restartCount": 0, "started": false, "lastState": {},
                "state": {"waiting": {"reason": "ContainerCreating"}}})
            })
            .collect();
        let not_ready = format!("containers with unready status: [{}]", names.join(" "));
        let t = meta::timestamp(now);
        let status = json!({
            "phase": "Pending",
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": null, "lastTransitionTime": t},
                {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": t},
                {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": not_ready, "lastProbeTime": null, "lastTransitionTime": t},
                {"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady", "message": not_ready, "lastProbeTime": null, "lastTransitionTime": t},
                {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": scheduled_time(pod, &t)},
            ],
            "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
            "startTime": t, "containerStatuses": waiting, "qosClass": "BestEffort",
        });
        let mut new = pod.clone();
        new["status"] = status;
        soft(api.update(world, &PODS, new, Subresource::Status))?;
        for c in pod_containers(pod) {
            let image = c.get("image").and_then(Value::as_str).unwrap_or("");
            let msg = format!("Pulling image \"{image}\"");
            soft(
                event(api, world, pod, "Normal", "Pulling", &msg, "kubelet").map(|_| json!(null)),
            )?;
        }
        Ok(())
    }

    fn pod_start(&mut self, api: &mut ApiServer, world: &mut Cluster, pod: &Value) -> Tick {
        let now = world.now();
        let node = meta::str_at(pod, &["spec", "nodeName"]).to_string();
        let index = node.trim_start_matches("node-").parse::<u32>().unwrap_or(1);
        let n = self.next_ip.entry(node.clone()).or_insert(1);
        *n += 1;
        let pod_ip = format!("10.244.{index}.{n}");
        let t = meta::timestamp(now);
        let mut statuses = Vec::new();
        for c in pod_containers(pod) {
            let image = c
                .get("image")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let digest = crate::base::digest(image.as_bytes());
            let cid = crate::base::digest(format!("{}{}", meta::uid(pod), image).as_bytes());
            let repo = image.split(':').next().unwrap_or("");
            let full = if repo.contains('/') {
                repo.to_string()
            } else {
                format!("docker.io/library/{repo}")
            };
            let full_image = if image.contains(':') {
                format!("docker.io/library/{image}")
            } else {
                format!("docker.io/library/{image}:latest")
            };
            statuses.push(json!({"name": c.get("name"), "image": if repo.contains('/') { image.clone() } else { full_image },
                "imageID": format!("{full}@sha256:{digest:016x}{digest:016x}{digest:016x}{digest:016x}"),
                "containerID": format!("containerd://{cid:016x}{cid:016x}{cid:016x}{cid:016x}"),
                "ready": true, "restartCount": 0, "started": true, "lastState": {},
                "state": {"running": {"startedAt": t}}}));
        }
        let mut new = pod.clone();
        let status = meta::obj_mut(&mut new, &["status"]);
        status.insert("phase".into(), json!("Running"));
        status.insert("podIP".into(), json!(pod_ip));
        status.insert("podIPs".into(), json!([{"ip": pod_ip}]));
        status.insert("containerStatuses".into(), json!(statuses));
        if let Some(conds) = status.get_mut("conditions").and_then(Value::as_array_mut) {
            for c in conds.iter_mut() {
                if c.get("status").and_then(Value::as_str) != Some("True") {
                    c["status"] = json!("True");
                    c["lastTransitionTime"] = json!(t);
                    if let Some(o) = c.as_object_mut() {
                        o.remove("reason");
                        o.remove("message");
                    }
                }
            }
        }
        soft(api.update(world, &PODS, new, Subresource::Status))?;
        for c in pod_containers(pod) {
            let name = c.get("name").and_then(Value::as_str).unwrap_or("");
            let image = c.get("image").and_then(Value::as_str).unwrap_or("");
            let pull_ms = self.rng.range(800, 2_500);
            let secs = pull_ms as f64 / 1000.0;
            for (reason, msg) in [
                ("Pulled", format!("Successfully pulled image \"{image}\" in {secs:.3}s ({secs:.3}s including waiting)")),
                ("Created", format!("Created container {name}")),
                ("Started", format!("Started container {name}")),
            ] {
                soft(event(api, world, pod, "Normal", reason, &msg, "kubelet").map(|_| json!(null)))?;
            }
        }
        Ok(())
    }

    // ----- scheduler --------------------------------------------------------------------

    fn scheduler(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        let pods = api.list_cached(&PODS, None);
        let nodes = api.list_cached(&NODES, None);
        let mut load: BTreeMap<String, usize> = nodes
            .iter()
            .map(|n| (meta::name(n).to_string(), 0))
            .collect();
        for p in &pods {
            if let Some(n) = load.get_mut(meta::str_at(p, &["spec", "nodeName"])) {
                *n += usize::from(is_active(p));
            }
        }
        let pending: Vec<String> = pods.iter().map(|p| pod_key(p)).collect();
        self.unschedulable.retain(|k, _| pending.contains(k));
        for pod in pods {
            if !meta::str_at(&pod, &["spec", "nodeName"]).is_empty() || !is_active(&pod) {
                continue;
            }
            let key = pod_key(&pod);
            if self
                .unschedulable
                .get(&key)
                .is_some_and(|(next, _)| world.now() < *next)
            {
                continue;
            }
            // The filters: NodeUnschedulable, then TaintToleration; a node that fails says why.
            let verdicts: Vec<(String, Option<String>)> = nodes
                .iter()
                .map(|n| (meta::name(n).to_string(), unfit_reason(n, &pod)))
                .collect();
            let fits = |node: &str| verdicts.iter().any(|(n, why)| n == node && why.is_none());
            let Some(least) = load.iter().filter(|(k, _)| fits(k)).map(|(_, n)| *n).min() else {
                self.failed_scheduling(api, world, &pod, &verdicts)?;
                continue;
            };
            self.unschedulable.remove(&key);
            let best: Vec<String> = load
                .iter()
                .filter(|(k, n)| **n == least && fits(k))
                .map(|(k, _)| k.clone())
                .collect();
            let Some(node) = self.rng.pick(&best).cloned() else {
                return Ok(());
            };
            let (ns, name) = (
                meta::namespace(&pod).to_string(),
                meta::name(&pod).to_string(),
            );
            let now = world.now();
            let bound = api.guaranteed_update(world, &PODS, &ns, &name, |cur| {
                let assigned = meta::str_at(cur, &["spec", "nodeName"]);
                if !assigned.is_empty() {
                    return Err(ApiError {
                        code: 409,
                        reason: "Conflict",
                        message: format!("pod {name} is already assigned to node {assigned}"),
                    });
                }
                let mut new = cur.clone();
                meta::obj_mut(&mut new, &["spec"]).insert("nodeName".into(), json!(node));
                meta::obj_mut(&mut new, &["status"]).insert(
                    "conditions".into(),
                    json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
                        "lastTransitionTime": meta::timestamp(now)}]),
                );
                Ok(new)
            });
            soft(bound.clone())?;
            if bound.is_ok() {
                *load.entry(node.clone()).or_default() += 1;
                let msg = format!("Successfully assigned {ns}/{name} to {node}");
                soft(
                    event(
                        api,
                        world,
                        &pod,
                        "Normal",
                        "Scheduled",
                        &msg,
                        "default-scheduler",
                    )
                    .map(|_| json!(null)),
                )?;
            }
        }
        Ok(())
    }

    /// No node fits: the pod stays Pending with PodScheduled=False/Unschedulable and a
    /// FailedScheduling event saying why each node did not fit, tried again after a backoff
    /// (1 s doubling to 10 s, the scheduler's podInitialBackoff and podMaxBackoff).
    fn failed_scheduling(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        pod: &Value,
        verdicts: &[(String, Option<String>)],
    ) -> Tick {
        let now = world.now();
        let key = pod_key(pod);
        let backoff = self
            .unschedulable
            .get(&key)
            .map_or(1_000, |(_, b)| (b * 2).min(10_000));
        self.unschedulable.insert(key, (now + backoff, backoff));
        let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
        for why in verdicts.iter().filter_map(|(_, w)| w.as_deref()) {
            *reasons.entry(why).or_default() += 1;
        }
        let total = verdicts.len();
        let listed: Vec<String> = reasons
            .iter()
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        let message = format!(
            "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {total} Preemption is not helpful for scheduling.",
            listed.join(", ")
        );
        let (ns, name) = (
            meta::namespace(pod).to_string(),
            meta::name(pod).to_string(),
        );
        let condition = json!([{"type": "PodScheduled", "status": "False", "lastProbeTime": null,
            "lastTransitionTime": meta::timestamp(now), "reason": "Unschedulable", "message": message}]);
        soft(api.guaranteed_update(world, &PODS, &ns, &name, |cur| {
            let mut new = cur.clone();
            let status = meta::obj_mut(&mut new, &["status"]);
            let same = status
                .get("conditions")
                .and_then(|c| c.get(0))
                .is_some_and(|c| c.get("message") == condition[0].get("message"));
            if !same {
                status.insert("conditions".into(), condition.clone());
            }
            Ok(new)
        }))?;
        soft(
            event(
                api,
                world,
                pod,
                "Warning",
                "FailedScheduling",
                &message,
                "default-scheduler",
            )
            .map(|_| json!(null)),
        )
    }

    // ----- ReplicaSet controller --------------------------------------------------------

    fn replicasets(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        for rs in api.list_cached(&REPLICASETS, None) {
            if meta::at(&rs, &["metadata", "deletionTimestamp"]).is_some() {
                continue;
            }
            let ns = meta::namespace(&rs).to_string();
            let owned: Vec<Arc<Value>> = api
                .list_cached(&PODS, Some(&ns))
                .into_iter()
                .filter(|p| meta::controller_uid(p) == Some(meta::uid(&rs)))
                .collect();
            let mut active: Vec<Arc<Value>> =
                owned.iter().filter(|p| is_active(p)).cloned().collect();
            let diff = replicas(&rs) - active.len() as i64;
            if diff > 0 {
                for _ in 0..diff.min(500) {
                    let template = meta::at(&rs, &["spec", "template"])
                        .cloned()
                        .unwrap_or(json!({}));
                    let mut pod = json!({
                        "metadata": {
                            "generateName": format!("{}-", meta::name(&rs)),
                            "namespace": ns,
                            "labels": meta::at(&template, &["metadata", "labels"]).cloned().unwrap_or(json!({})),
                            "ownerReferences": [owner_ref(&rs)],
                        },
                        "spec": template.get("spec").cloned().unwrap_or(json!({})),
                    });
                    if let Some(a) = meta::at(&template, &["metadata", "annotations"]) {
                        pod["metadata"]["annotations"] = a.clone();
                    }
                    match api.create(world, &PODS, pod) {
                        Ok(created) => {
                            let msg = format!("Created pod: {}", meta::name(&created));
                            soft(
                                event(
                                    api,
                                    world,
                                    &rs,
                                    "Normal",
                                    "SuccessfulCreate",
                                    &msg,
                                    "replicaset-controller",
                                )
                                .map(|_| json!(null)),
                            )?;
                        }
                        Err(e) if e.code >= 500 => return Err(e),
                        Err(e) => {
                            let msg = format!("Error creating: {}", e.message);
                            soft(
                                event(
                                    api,
                                    world,
                                    &rs,
                                    "Warning",
                                    "FailedCreate",
                                    &msg,
                                    "replicaset-controller",
                                )
                                .map(|_| json!(null)),
                            )?;
                            break;
                        }
                    }
                }
            } else if diff < 0 {
                // Worst first: unscheduled, pending, not ready, then the newest.
                active.sort_by_key(|p| {
                    (
                        !meta::str_at(p, &["spec", "nodeName"]).is_empty(),
                        meta::str_at(p, &["status", "phase"]) == "Running",
                        pod_ready(p),
                        std::cmp::Reverse(
                            meta::str_at(p, &["metadata", "creationTimestamp"]).to_string(),
                        ),
                        std::cmp::Reverse(meta::name(p).to_string()),
                    )
                });
                for pod in active.iter().take((-diff) as usize) {
                    soft(api.delete(world, &PODS, &ns, meta::name(pod), false))?;
                    let msg = format!("Deleted pod: {}", meta::name(pod));
                    soft(
                        event(
                            api,
                            world,
                            &rs,
                            "Normal",
                            "SuccessfulDelete",
                            &msg,
                            "replicaset-controller",
                        )
                        .map(|_| json!(null)),
                    )?;
                }
            }
            let ready = active.iter().filter(|p| pod_ready(p)).count();
            let mut status = json!({
                "replicas": active.len(),
                "fullyLabeledReplicas": active.len(),
                "readyReplicas": ready,
                "availableReplicas": ready,
                "observedGeneration": meta::i64_at(&rs, &["metadata", "generation"]).unwrap_or(1),
            });
            for zero in ["readyReplicas", "availableReplicas", "fullyLabeledReplicas"] {
                if status[zero] == json!(0) {
                    if let Some(o) = status.as_object_mut() {
                        o.remove(zero);
                    }
                }
            }
            if rs.get("status") != Some(&status) {
                let mut new = Value::clone(&rs);
                new["status"] = status;
                soft(api.update(world, &REPLICASETS, new, Subresource::Status))?;
            }
        }
        Ok(())
    }

    // ----- Deployment controller --------------------------------------------------------

    fn deployments(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        for d in api.list_cached(&DEPLOYMENTS, None) {
            if meta::at(&d, &["metadata", "deletionTimestamp"]).is_some() {
                continue;
            }
            self.sync_deployment(api, world, &d)?;
        }
        Ok(())
    }

    fn sync_deployment(&mut self, api: &mut ApiServer, world: &mut Cluster, d: &Value) -> Tick {
        let ns = meta::namespace(d).to_string();
        let mut all: Vec<Arc<Value>> = api
            .list_cached(&REPLICASETS, Some(&ns))
            .into_iter()
            .filter(|rs| meta::controller_uid(rs) == Some(meta::uid(d)))
            .collect();
        all.sort_by_key(|rs| {
            (
                meta::str_at(rs, &["metadata", "creationTimestamp"]).to_string(),
                meta::name(rs).to_string(),
            )
        });
        let template = meta::at(d, &["spec", "template"])
            .cloned()
            .unwrap_or(json!({}));
        let collisions = meta::i64_at(d, &["status", "collisionCount"]).unwrap_or(0);
        let hash = pod_template_hash(&template, collisions);
        let want = replicas(d);
        let (surge, unavailable) = rolling_params(d, want);
        let new_rs = all
            .iter()
            .find(|rs| meta::str_at(rs, &["metadata", "labels", "pod-template-hash"]) == hash)
            .cloned();
        let old: Vec<Arc<Value>> = all
            .iter()
            .filter(|rs| meta::str_at(rs, &["metadata", "labels", "pod-template-hash"]) != hash)
            .cloned()
            .collect();
        let spec_sum: i64 = all.iter().map(|rs| replicas(rs)).sum();
        let recreate = meta::str_at(d, &["spec", "strategy", "type"]) == "Recreate";
        let Some(new_rs) = new_rs else {
            let count = if recreate {
                0
            } else if old.is_empty() {
                want
            } else {
                (want + surge - spec_sum).clamp(0, want)
            };
            return self.create_new_rs(api, world, d, &template, &hash, &old, count, want + surge);
        };
        // A rollback (or a template changed back) makes an old ReplicaSet the new one again:
        // it takes the next revision and remembers its former one (deployment controller's
        // `SetNewReplicaSetAnnotations`), and so does the Deployment.
        let revision_of = |rs: &Value| {
            meta::str_at(rs, &["metadata", "annotations", REVISION])
                .parse::<i64>()
                .unwrap_or(0)
        };
        let max_old = old.iter().map(|rs| revision_of(rs)).max().unwrap_or(0);
        let current = revision_of(&new_rs);
        if current <= max_old {
            let next = (max_old + 1).to_string();
            let (ns, rs_name) = (
                meta::namespace(&new_rs).to_string(),
                meta::name(&new_rs).to_string(),
            );
            soft(
                api.guaranteed_update(world, &REPLICASETS, &ns, &rs_name, |cur| {
                    let mut new = cur.clone();
                    let notes = meta::obj_mut(&mut new, &["metadata", "annotations"]);
                    let history = notes
                        .get(REVISION_HISTORY)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string();
                    let history = if history.is_empty() {
                        current.to_string()
                    } else {
                        format!("{history},{current}")
                    };
                    notes.insert(REVISION_HISTORY.into(), json!(history));
                    notes.insert(REVISION.into(), json!(next));
                    Ok(new)
                }),
            )?;
            let mut new_d = d.clone();
            meta::obj_mut(&mut new_d, &["metadata", "annotations"])
                .insert(REVISION.into(), json!(next));
            return soft(api.update(world, &DEPLOYMENTS, new_d, Subresource::Main));
        }
        let name = meta::name(&new_rs).to_string();
        let new_spec = replicas(&new_rs);
        // Scale the new ReplicaSet up (within maxSurge) or down to the desired count.
        let target = if recreate {
            if old
                .iter()
                .any(|rs| replicas(rs) > 0 || status_i64(rs, "replicas") > 0)
            {
                new_spec
            } else {
                want
            }
        } else if new_spec > want {
            want
        } else if new_spec < want {
            let room = (want + surge - spec_sum).max(0);
            new_spec + room.min(want - new_spec)
        } else {
            new_spec
        };
        if target != new_spec {
            self.scale_rs(api, world, d, &new_rs, target, want + surge)?;
        } else {
            // Scale old ReplicaSets down as far as availability allows.
            let all_pods: i64 = spec_sum;
            let min_available = want - unavailable;
            let new_unavailable = new_spec - status_i64(&new_rs, "availableReplicas");
            let mut budget = if recreate {
                i64::MAX
            } else {
                all_pods - min_available - new_unavailable
            };
            if budget > 0 {
                let available: i64 = all
                    .iter()
                    .map(|rs| status_i64(rs, "availableReplicas"))
                    .sum();
                // First the unhealthy replicas of old sets, then healthy ones down to minAvailable.
                let mut healthy_budget = if recreate {
                    i64::MAX
                } else {
                    available - min_available
                };
                for rs in &old {
                    let spec = replicas(rs);
                    if spec == 0 || budget <= 0 {
                        continue;
                    }
                    let unhealthy = spec - status_i64(rs, "availableReplicas");
                    let mut down = unhealthy.clamp(0, budget);
                    let healthy_down = (spec - down).min(healthy_budget.max(0)).min(budget - down);
                    down += healthy_down.max(0);
                    healthy_budget -= healthy_down.max(0);
                    if down > 0 {
                        self.scale_rs(api, world, d, rs, spec - down, want + surge)?;
                        budget -= down;
                    }
                }
            }
        }
        self.cleanup_history(api, world, d, &old)?;
        self.deployment_status(api, world, d, &name)
    }

    #[allow(clippy::too_many_arguments)]
    fn create_new_rs(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        d: &Value,
        template: &Value,
        hash: &str,
        old: &[Arc<Value>],
        count: i64,
        max_replicas: i64,
    ) -> Tick {
        let revision = old
            .iter()
            .filter_map(|rs| {
                meta::str_at(
                    rs,
                    &[
                        "metadata",
                        "annotations",
                        "deployment.kubernetes.io/revision",
                    ],
                )
                .parse::<i64>()
                .ok()
            })
            .max()
            .unwrap_or(0)
            + 1;
        let mut template = template.clone();
        meta::obj_mut(&mut template, &["metadata", "labels"])
            .insert("pod-template-hash".into(), json!(hash));
        let mut labels = meta::at(&template, &["metadata", "labels"])
            .cloned()
            .unwrap_or(json!({}));
        labels["pod-template-hash"] = json!(hash);
        let mut selector = meta::at(d, &["spec", "selector"])
            .cloned()
            .unwrap_or(json!({}));
        meta::obj_mut(&mut selector, &["matchLabels"])
            .insert("pod-template-hash".into(), json!(hash));
        let name = format!("{}-{hash}", meta::name(d));
        let rs = json!({
            "metadata": {
                "name": name,
                "namespace": meta::namespace(d),
                "labels": labels,
                "annotations": {
                    "deployment.kubernetes.io/desired-replicas": replicas(d).to_string(),
                    "deployment.kubernetes.io/max-replicas": max_replicas.to_string(),
                    "deployment.kubernetes.io/revision": revision.to_string(),
                },
                "ownerReferences": [owner_ref(d)],
            },
            "spec": {"replicas": count, "selector": selector, "template": template,
                "minReadySeconds": meta::i64_at(d, &["spec", "minReadySeconds"]).unwrap_or(0)},
        });
        match api.create(world, &REPLICASETS, rs) {
            Ok(_) => {}
            Err(e) if e.reason == "AlreadyExists" => {
                // A hash collision: the next hash is computed with a higher collisionCount.
                let mut new = d.clone();
                meta::obj_mut(&mut new, &["status"]).insert(
                    "collisionCount".into(),
                    json!(meta::i64_at(d, &["status", "collisionCount"]).unwrap_or(0) + 1),
                );
                return soft(api.update(world, &DEPLOYMENTS, new, Subresource::Status));
            }
            Err(e) => return soft(Err(e)),
        }
        if count > 0 {
            let msg = format!("Scaled up replica set {name} to {count}");
            soft(
                event(
                    api,
                    world,
                    d,
                    "Normal",
                    "ScalingReplicaSet",
                    &msg,
                    "deployment-controller",
                )
                .map(|_| json!(null)),
            )?;
        }
        let mut new = d.clone();
        meta::obj_mut(&mut new, &["metadata", "annotations"]).insert(
            "deployment.kubernetes.io/revision".into(),
            json!(revision.to_string()),
        );
        soft(api.update(world, &DEPLOYMENTS, new, Subresource::Main))?;
        let _ = self.rng.next_u64();
        Ok(())
    }

    fn scale_rs(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        d: &Value,
        rs: &Value,
        to: i64,
        max_replicas: i64,
    ) -> Tick {
        let from = replicas(rs);
        let mut new = rs.clone();
        meta::obj_mut(&mut new, &["spec"]).insert("replicas".into(), json!(to));
        let annotations = meta::obj_mut(&mut new, &["metadata", "annotations"]);
        annotations.insert(
            "deployment.kubernetes.io/desired-replicas".into(),
            json!(replicas(d).to_string()),
        );
        annotations.insert(
            "deployment.kubernetes.io/max-replicas".into(),
            json!(max_replicas.to_string()),
        );
        let result = api.update(world, &REPLICASETS, new, Subresource::Main);
        let ok = result.is_ok();
        soft(result)?;
        if ok {
            let dir = if to > from { "up" } else { "down" };
            let msg = format!(
                "Scaled {dir} replica set {} to {to} from {from}",
                meta::name(rs)
            );
            soft(
                event(
                    api,
                    world,
                    d,
                    "Normal",
                    "ScalingReplicaSet",
                    &msg,
                    "deployment-controller",
                )
                .map(|_| json!(null)),
            )?;
        }
        Ok(())
    }

    /// Old ReplicaSets scaled to zero beyond `revisionHistoryLimit` are deleted.
    fn cleanup_history(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        d: &Value,
        old: &[Arc<Value>],
    ) -> Tick {
        let limit = meta::i64_at(d, &["spec", "revisionHistoryLimit"])
            .unwrap_or(10)
            .max(0) as usize;
        let idle: Vec<&Arc<Value>> = old
            .iter()
            .filter(|rs| replicas(rs) == 0 && status_i64(rs, "replicas") == 0)
            .collect();
        if idle.len() <= limit {
            return Ok(());
        }
        for rs in &idle[..idle.len() - limit] {
            soft(api.delete(
                world,
                &REPLICASETS,
                meta::namespace(rs),
                meta::name(rs),
                false,
            ))?;
        }
        Ok(())
    }

    fn deployment_status(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        d: &Value,
        new_rs: &str,
    ) -> Tick {
        let ns = meta::namespace(d);
        let all: Vec<Arc<Value>> = api
            .list_cached(&REPLICASETS, Some(ns))
            .into_iter()
            .filter(|rs| meta::controller_uid(rs) == Some(meta::uid(d)))
            .collect();
        let sum = |f: &str| all.iter().map(|rs| status_i64(rs, f)).sum::<i64>();
        let new = all.iter().find(|rs| meta::name(rs) == new_rs);
        let want = replicas(d);
        let (_, unavailable) = rolling_params(d, want);
        let available = sum("availableReplicas");
        let updated = new.map_or(0, |rs| status_i64(rs, "replicas"));
        let total = sum("replicas");
        let now = meta::timestamp(world.now());
        let old_conditions = meta::at(d, &["status", "conditions"])
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let condition = |kind: &str, status: &str, reason: &str, message: String| {
            let prev = old_conditions
                .iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some(kind));
            let same =
                |f: &str, v: &str| prev.and_then(|c| c.get(f)).and_then(Value::as_str) == Some(v);
            let transition = if same("status", status) {
                prev.and_then(|c| c.get("lastTransitionTime"))
                    .cloned()
                    .unwrap_or(json!(now))
            } else {
                json!(now)
            };
            let update =
                if same("status", status) && same("reason", reason) && same("message", &message) {
                    prev.and_then(|c| c.get("lastUpdateTime"))
                        .cloned()
                        .unwrap_or(json!(now))
                } else {
                    json!(now)
                };
            json!({"type": kind, "status": status, "reason": reason, "message": message,
                "lastUpdateTime": update, "lastTransitionTime": transition})
        };
        let available_cond = if available >= want - unavailable {
            condition(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
            )
        } else {
            condition(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
            )
        };
        let complete = updated == want
            && total == want
            && available == want
            && new.is_some_and(|rs| status_i64(rs, "availableReplicas") == want);
        let progressing = if complete {
            condition(
                "Progressing",
                "True",
                "NewReplicaSetAvailable",
                format!("ReplicaSet \"{new_rs}\" has successfully progressed."),
            )
        } else if old_conditions.is_empty() {
            condition(
                "Progressing",
                "True",
                "NewReplicaSetCreated",
                format!("Created new replica set \"{new_rs}\""),
            )
        } else {
            condition(
                "Progressing",
                "True",
                "ReplicaSetUpdated",
                format!("ReplicaSet \"{new_rs}\" is progressing."),
            )
        };
        let mut status = json!({
            "observedGeneration": meta::i64_at(d, &["metadata", "generation"]).unwrap_or(1),
            "replicas": total,
            "updatedReplicas": updated,
            "readyReplicas": sum("readyReplicas"),
            "availableReplicas": available,
            "unavailableReplicas": (want - available).max(0),
            "conditions": [available_cond, progressing],
        });
        if let Some(c) = meta::at(d, &["status", "collisionCount"]) {
            status["collisionCount"] = c.clone();
        }
        if let Some(o) = status.as_object_mut() {
            o.retain(|_, v| v != &json!(0));
            if !o.contains_key("observedGeneration") {
                o.insert("observedGeneration".into(), json!(0));
            }
        }
        if d.get("status") != Some(&status) {
            let mut new = d.clone();
            new["status"] = status;
            soft(api.update(world, &DEPLOYMENTS, new, Subresource::Status))?;
        }
        Ok(())
    }

    // ----- garbage collector ------------------------------------------------------------

    /// Dependents whose every owner is gone are deleted (background propagation); the owner
    /// is confirmed absent with a quorum GET first, as the real GC does.
    fn garbage_collector(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        for r in [REPLICASETS, PODS] {
            for obj in api.list_cached(&r, None) {
                let Some(owners) = meta::at(&obj, &["metadata", "ownerReferences"])
                    .and_then(Value::as_array)
                    .cloned()
                else {
                    continue;
                };
                if owners.is_empty() || meta::at(&obj, &["metadata", "deletionTimestamp"]).is_some()
                {
                    continue;
                }
                let ns = meta::namespace(&obj).to_string();
                let mut all_gone = true;
                for o in &owners {
                    let kind = o.get("kind").and_then(Value::as_str).unwrap_or("");
                    let api_version = o.get("apiVersion").and_then(Value::as_str).unwrap_or("");
                    let name = o.get("name").and_then(Value::as_str).unwrap_or("");
                    let uid = o.get("uid").and_then(Value::as_str).unwrap_or("");
                    let Some(owner_res) = meta::resource_by_kind(api_version, kind) else {
                        all_gone = false;
                        break;
                    };
                    if api
                        .get_cached(&owner_res, &ns, name)
                        .is_some_and(|v| meta::uid(&v) == uid)
                    {
                        all_gone = false;
                        break;
                    }
                    match api.get(world, &owner_res, &ns, name) {
                        Ok(v) if meta::uid(&v) == uid => {
                            all_gone = false;
                            break;
                        }
                        Ok(_) => {}
                        Err(e) if e.code == 404 => {}
                        Err(e) => return Err(e),
                    }
                }
                if all_gone {
                    soft(api.delete(world, &r, &ns, meta::name(&obj), false))?;
                }
            }
        }
        Ok(())
    }
}

/// Why the scheduler's filters reject `node` for `pod` (as its FailedScheduling message words
/// it), or None when the pod fits: a cordoned node, then a NoSchedule/NoExecute taint the pod
/// does not tolerate.
fn unfit_reason(node: &Value, pod: &Value) -> Option<String> {
    if meta::at(node, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
        return Some("node(s) were unschedulable".into());
    }
    let tolerations = meta::at(pod, &["spec", "tolerations"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    meta::at(node, &["spec", "taints"])
        .and_then(Value::as_array)?
        .iter()
        .filter(|t| matches!(meta::str_at(t, &["effect"]), "NoSchedule" | "NoExecute"))
        .find(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
        .map(|t| {
            format!(
                "node(s) had untolerated taint {{{}: {}}}",
                meta::str_at(t, &["key"]),
                meta::str_at(t, &["value"])
            )
        })
}

/// `ToleratesTaint`: same effect (or any), and the key equal (`Equal`, the default, also
/// compares the value) or any key with `Exists` and no key.
fn tolerates(tol: &Value, taint: &Value) -> bool {
    let effect = meta::str_at(tol, &["effect"]);
    if !effect.is_empty() && effect != meta::str_at(taint, &["effect"]) {
        return false;
    }
    let key = meta::str_at(tol, &["key"]);
    match meta::str_at(tol, &["operator"]) {
        "Exists" => key.is_empty() || key == meta::str_at(taint, &["key"]),
        _ => {
            key == meta::str_at(taint, &["key"])
                && meta::str_at(tol, &["value"]) == meta::str_at(taint, &["value"])
        }
    }
}

/// Whether the pod tolerates a NoExecute taint `key` with no time limit (it is not evicted).
fn tolerates_forever(pod: &Value, key: &str) -> bool {
    let taint = json!({"key": key, "effect": "NoExecute"});
    meta::at(pod, &["spec", "tolerations"])
        .and_then(Value::as_array)
        .is_some_and(|tols| {
            tols.iter()
                .any(|t| tolerates(t, &taint) && t.get("tolerationSeconds").is_none())
        })
}

fn pod_key(p: &Value) -> String {
    format!("{}/{}", meta::namespace(p), meta::name(p))
}

fn pod_containers(p: &Value) -> Vec<Value> {
    meta::at(p, &["spec", "containers"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn containers(p: &Value) -> Vec<String> {
    pod_containers(p)
        .iter()
        .map(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

fn scheduled_time(pod: &Value, default: &str) -> Value {
    meta::at(pod, &["status", "conditions"])
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("PodScheduled"))
        })
        .and_then(|c| c.get("lastTransitionTime"))
        .cloned()
        .unwrap_or(json!(default))
}

fn node_ip(node: &str) -> String {
    let index = node.trim_start_matches("node-").parse::<u32>().unwrap_or(1);
    format!("172.18.0.{}", index + 1)
}

/// `2026-01-01T00:00:05.000000Z`: Lease times are MicroTime.
pub fn micro_time(ms: Millis) -> String {
    let t = meta::timestamp(ms);
    format!("{}.{:03}000Z", t.trim_end_matches('Z'), ms % 1000)
}

fn event(
    api: &mut ApiServer,
    world: &mut Cluster,
    obj: &Value,
    event_type: &str,
    reason: &str,
    message: &str,
    component: &str,
) -> Result<(), ApiError> {
    let kind = meta::str_at(obj, &["kind"]).to_string();
    let host =
        (component == "kubelet").then(|| meta::str_at(obj, &["spec", "nodeName"]).to_string());
    api.record_event(
        world,
        obj,
        &kind,
        event_type,
        reason,
        message,
        component,
        host.as_deref(),
    )
}

/// client-go leader election with kube's defaults: a Lease in `kube-system` held for 15 s,
/// renewed every 2 s, given up when it could not be renewed for 10 s (the renew deadline).
/// There is one replica of each component, so the Lease only ever changes hands with itself,
/// but losing etcd's quorum makes it lose the Lease and stop, as the real ones do.
#[derive(Clone, Debug)]
struct Elector {
    name: &'static str,
    identity: String,
    leading: bool,
    last_renew_ms: Option<Millis>,
    next_try_ms: Millis,
}

const LEASE_DURATION_S: i64 = 15;
const RENEW_DEADLINE_MS: Millis = 10_000;
const RETRY_PERIOD_MS: Millis = 2_000;

impl Elector {
    fn new(name: &'static str) -> Elector {
        Elector {
            name,
            identity: format!("{name}-0_raftlab"),
            leading: false,
            last_renew_ms: None,
            next_try_ms: 0,
        }
    }

    /// Tries to acquire or renew the Lease when due; returns whether it leads now.
    fn elect(&mut self, api: &mut ApiServer, world: &mut Cluster) -> bool {
        let now = world.now();
        let deadline_passed = self
            .last_renew_ms
            .is_none_or(|t| now >= t + RENEW_DEADLINE_MS);
        if self.leading && deadline_passed {
            // client-go: "failed to renew lease ...: timed out waiting for the condition".
            self.leading = false;
        }
        if now < self.next_try_ms {
            return self.leading;
        }
        self.next_try_ms = now + RETRY_PERIOD_MS;
        let identity = self.identity.clone();
        let renewed = match api.get(world, &LEASES, "kube-system", self.name) {
            Ok(_) => api
                .guaranteed_update(world, &LEASES, "kube-system", self.name, |cur| {
                    let holder = meta::str_at(cur, &["spec", "holderIdentity"]);
                    if holder != identity && !holder.is_empty() {
                        return Err(ApiError::internal(format!("lease held by {holder}")));
                    }
                    let mut new = cur.clone();
                    let spec = meta::obj_mut(&mut new, &["spec"]);
                    spec.insert("holderIdentity".into(), json!(identity));
                    spec.insert("leaseDurationSeconds".into(), json!(LEASE_DURATION_S));
                    spec.insert("renewTime".into(), json!(micro_time(now)));
                    Ok(new)
                })
                .ok(),
            Err(e) if e.reason == "NotFound" => {
                let lease = json!({
                    "metadata": {"name": self.name, "namespace": "kube-system"},
                    "spec": {"holderIdentity": identity, "leaseDurationSeconds": LEASE_DURATION_S,
                        "acquireTime": micro_time(now), "renewTime": micro_time(now),
                        "leaseTransitions": 0}
                });
                api.create(world, &LEASES, lease).ok()
            }
            Err(_) => None,
        };
        if let Some(lease) = renewed {
            if !self.leading {
                self.leading = true;
                let message = format!("{} became leader", self.identity);
                let _ = event(
                    api,
                    world,
                    &lease,
                    "Normal",
                    "LeaderElection",
                    &message,
                    self.name,
                );
            }
            self.last_renew_ms = Some(world.now());
        } else if self.leading
            && self
                .last_renew_ms
                .is_none_or(|t| world.now() >= t + RENEW_DEADLINE_MS)
        {
            // client-go: "failed to renew lease ...: timed out waiting for the condition".
            self.leading = false;
        }
        self.leading
    }
}

/// maxSurge and maxUnavailable resolved against `replicas` (surge rounds up, unavailable
/// down; both zero means one unavailable).
pub fn rolling_params(d: &Value, replicas: i64) -> (i64, i64) {
    if meta::str_at(d, &["spec", "strategy", "type"]) == "Recreate" {
        return (0, replicas);
    }
    let resolve = |v: Option<&Value>, up: bool| -> i64 {
        match v {
            Some(Value::Number(n)) => n.as_i64().unwrap_or(0),
            Some(Value::String(s)) => {
                let pct = s.trim_end_matches('%').parse::<i64>().unwrap_or(25);
                if up {
                    (pct * replicas + 99) / 100
                } else {
                    pct * replicas / 100
                }
            }
            _ => {
                if up {
                    (25 * replicas + 99) / 100
                } else {
                    25 * replicas / 100
                }
            }
        }
    };
    let ru = meta::at(d, &["spec", "strategy", "rollingUpdate"]);
    let surge = resolve(ru.and_then(|r| r.get("maxSurge")), true);
    let unavailable = resolve(ru.and_then(|r| r.get("maxUnavailable")), false);
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

/// The pod-template-hash: FNV-32a of the template (with the collision count), its decimal
/// digits mapped through `SafeEncodeString`'s alphabet (KK `controller_utils.ComputeHash`).
pub fn pod_template_hash(template: &Value, collisions: i64) -> String {
    let mut h: u32 = 0x811c_9dc5;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= u32::from(*b);
            h = h.wrapping_mul(0x0100_0193);
        }
    };
    feed(
        serde_json::to_string(template)
            .unwrap_or_default()
            .as_bytes(),
    );
    if collisions > 0 {
        feed(&(collisions as u32).to_le_bytes());
    }
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    h.to_string()
        .bytes()
        .map(|c| ALPHANUMS[c as usize % ALPHANUMS.len()] as char)
        .collect()
}
