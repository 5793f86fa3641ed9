//! The simulated kubelets: each registers its Node and node Lease, renews the Lease, and runs
//! the pods bound to its node (sandbox, image pull, start; stop after a graceful delete).

use super::informers::{Informers, Listed};
use super::rate_limit;
use super::static_pods::CONTROL_PLANE_TAINT;
use super::{edit, event, micro_time, soft, Tick};
use crate::base::{Millis, Rng};
use crate::etcd::{Cluster, Preset};
use crate::kube::apiserver::{ApiServer, Caller, Subresource};
use crate::kube::meta::{self, LEASES, NODES, PODS};
use crate::kube::objects::{self, ContainerStatus, Pod};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

/// Node leases: renewed every 10 s, valid for 40 s (kubelet defaults).
const NODE_LEASE_RENEW_MS: Millis = 10_000;
const NODE_LEASE_DURATION_S: i64 = 40;
/// The annotation that marks a mirror pod (run from a static manifest, not from the API).
pub const MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

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

#[derive(Clone, Debug, Default)]
pub struct Kubelets {
    /// Nodes whose kubelet is stopped (`kube stop-kubelet`): no lease renewals, no pod work.
    stopped: BTreeSet<String>,
    /// Per pod key: the kubelet's next step and its due time.
    pod_timers: BTreeMap<String, (PodStep, Millis)>,
    next_lease_renew_ms: Millis,
    /// Pod IPs handed out per node.
    next_ip: BTreeMap<String, u32>,
    /// Each registered node's address (its pods' hostIP).
    node_ips: BTreeMap<String, String>,
    /// Each registered node's pod range, `10.244.X.0/24`, by its X.
    pod_subnets: BTreeMap<String, u32>,
}

fn caller() -> Caller {
    Caller::component("kubelet")
}

impl Kubelets {
    pub fn is_stopped(&self, node: &str) -> bool {
        self.stopped.contains(node)
    }

    pub fn set_running(&mut self, node: &str, running: bool) {
        if running {
            self.stopped.remove(node);
        } else {
            self.stopped.insert(node.to_string());
        }
    }

    /// Registers the Node objects and node Leases: the control-plane nodes (tainted), then
    /// the preset's workers.
    pub fn register(
        &mut self,
        api: &mut ApiServer,
        caller: &Caller,
        world: &mut Cluster,
        (preset, control_plane): (Preset, &[String]),
    ) -> Tick {
        let control = control_plane
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), true, preset.control_plane_ip(i), 100 + i as u32));
        let workers = preset
            .workers()
            .iter()
            .enumerate()
            .map(|(i, (n, ip))| (n.to_string(), false, ip.to_string(), i as u32 + 1));
        let nodes: Vec<(String, bool, String, u32)> = control.chain(workers).collect();
        for (node, control_plane, ip, subnet) in nodes {
            let cidr = format!("10.244.{subnet}.0/24");
            self.node_ips.insert(node.clone(), ip.clone());
            self.pod_subnets.insert(node.clone(), subnet);
            let now = world.now();
            let obj = node_object(&node, control_plane, &ip, &cidr, now);
            soft(api.create(caller, world, &NODES, obj))?;
            let lease = json!({
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": NODE_LEASE_DURATION_S,
                    "renewTime": micro_time(now)}
            });
            soft(api.create(caller, world, &LEASES, lease))?;
        }
        self.next_lease_renew_ms = world.now() + NODE_LEASE_RENEW_MS;
        Ok(())
    }

    /// Every running kubelet renews its node Lease when due.
    pub fn renew_leases(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        nodes: &[String],
    ) -> Tick {
        if world.now() < self.next_lease_renew_ms {
            return Ok(());
        }
        self.next_lease_renew_ms = world.now() + NODE_LEASE_RENEW_MS;
        for node in nodes.iter().filter(|n| !self.is_stopped(n)) {
            let now = world.now();
            soft(api.guaranteed_update(
                &caller(),
                world,
                &LEASES,
                "kube-node-lease",
                node,
                |cur| {
                    Ok(edit(cur, |lease: &mut objects::Lease| {
                        lease.spec.renew_time = Some(micro_time(now));
                    }))
                },
            ))?;
        }
        Ok(())
    }

    /// Each pod bound to a running kubelet's node takes its next step once that step is due
    /// (a random delay drawn when the step is first seen).
    pub fn sync_pods(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        rng: &mut Rng,
        informers: &mut Informers,
    ) -> Tick {
        let now = world.now();
        let pods: Vec<(String, Listed<Pod>)> = informers
            .pods
            .list(api, None)
            .into_iter()
            .filter(|(_, p)| !p.node_name().is_empty())
            // Mirror pods are the static pods' (`static_pods`), not run from the API.
            .filter(|(_, p)| p.metadata.annotation(MIRROR_ANNOTATION).is_none())
            .map(|listed| (listed.1.key(), listed))
            .collect();
        let keys: BTreeSet<&str> = pods.iter().map(|(k, _)| k.as_str()).collect();
        self.pod_timers.retain(|k, _| keys.contains(k.as_str()));
        // A kubelet's pod workers run at once; here one after the other, so the round stops
        // after its share of virtual time and the rest go on at the next tick.
        let round_end = now + rate_limit::ROUND_MS;
        for (key, (value, pod)) in pods {
            if world.now() >= round_end {
                break;
            }
            if self.is_stopped(pod.node_name()) {
                continue; // a stopped kubelet does nothing, not even remove its pods
            }
            let Some(step) = next_step(&pod) else {
                self.pod_timers.remove(&key);
                continue;
            };
            if !self.is_due(key, step, now, rng) {
                continue;
            }
            match step {
                PodStep::Create => {
                    let host_ip = self.node_ips.get(pod.node_name()).cloned();
                    pod_create(api, world, (&value, &pod), &host_ip.unwrap_or_default())?
                }
                PodStep::Start => self.pod_start(api, world, (&value, &pod), rng)?,
                PodStep::Remove => pod_remove(api, world, &value, &pod)?,
            }
        }
        Ok(())
    }

    /// Whether `step` of the pod at `key` is due now; a step seen for the first time is
    /// scheduled after its delay instead.
    fn is_due(&mut self, key: String, step: PodStep, now: Millis, rng: &mut Rng) -> bool {
        match self.pod_timers.get(&key) {
            Some((s, due)) if *s == step => {
                if now < *due {
                    return false;
                }
                self.pod_timers.remove(&key);
                true
            }
            _ => {
                let delay = match step {
                    PodStep::Create => rng.range(200, 600),
                    PodStep::Start => rng.range(1_000, 3_000),
                    PodStep::Remove => rng.range(500, 1_500),
                };
                self.pod_timers.insert(key, (step, now + delay));
                false
            }
        }
    }

    /// The containers run: `Running`, every condition True, a pod IP from the node's range.
    fn pod_start(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        (involved, pod): (&Value, &Pod),
        rng: &mut Rng,
    ) -> Tick {
        let t = meta::timestamp(world.now());
        let node = pod.node_name().to_string();
        // From the node's own podCIDR, as the CNI plugin hands them out.
        let subnet = self.pod_subnets.get(&node).copied().unwrap_or(1);
        let n = self.next_ip.entry(node).or_insert(1);
        *n += 1;
        let pod_ip = format!("10.244.{subnet}.{n}");
        let mut new = Pod::clone(pod);
        let status = &mut new.status;
        status.phase = Some("Running".into());
        status.rest.insert("podIP".into(), json!(pod_ip));
        status.rest.insert("podIPs".into(), json!([{"ip": pod_ip}]));
        status.container_statuses = Some(
            pod.containers()
                .iter()
                .map(|c| running_status(c, pod.metadata.uid(), &t))
                .collect(),
        );
        for c in status.conditions.iter_mut().flatten() {
            if c.status != "True" {
                c.status = "True".into();
                c.last_transition_time = Some(Some(t.clone()));
                c.reason = None;
                c.message = None;
            }
        }
        let caller = caller();
        soft(api.update(
            &caller,
            world,
            &PODS,
            objects::to_value(&new),
            Subresource::Status,
        ))?;
        for c in pod.containers() {
            let (name, image) = (&c.name, c.image());
            let pull_ms = rng.range(800, 2_500);
            let secs = pull_ms as f64 / 1000.0;
            for (reason, msg) in [
                ("Pulled", format!("Successfully pulled image \"{image}\" in {secs:.3}s ({secs:.3}s including waiting)")),
                ("Created", format!("Created container {name}")),
                ("Started", format!("Started container {name}")),
            ] {
                soft(event(api, &caller, world, involved, ("Normal", reason), &msg, "kubelet"))?;
            }
        }
        Ok(())
    }
}

/// What the kubelet does next to `pod`, if anything.
fn next_step(pod: &Pod) -> Option<PodStep> {
    if pod.metadata.is_deleting() {
        Some(PodStep::Remove)
    } else if pod.status.container_statuses.is_none() {
        Some(PodStep::Create)
    } else if pod.phase() == "Pending" {
        Some(PodStep::Start)
    } else {
        None
    }
}

/// A Node as its kubelet registers it (a control-plane one labelled and tainted).
fn node_object(node: &str, control_plane: bool, ip: &str, cidr: &str, now: Millis) -> Value {
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
        obj["spec"]["taints"] = json!([{"key": CONTROL_PLANE_TAINT, "effect": "NoSchedule"}]);
    }
    obj
}

/// Sandbox created, images being pulled: `Pending`, containers `ContainerCreating`.
fn pod_create(
    api: &mut ApiServer,
    world: &mut Cluster,
    (involved, pod): (&Value, &Pod),
    host_ip: &str,
) -> Tick {
    let t = meta::timestamp(world.now());
    let names: Vec<&str> = pod.containers().iter().map(|c| c.name.as_str()).collect();
    let waiting: Vec<Value> = pod
        .containers()
        .iter()
        .map(|c| {
            json!({"name": c.name, "image": c.image, "imageID": "",
            "ready": false, "restartCount": 0, "started": false, "lastState": {},
            "state": {"waiting": {"reason": "ContainerCreating"}}})
        })
        .collect();
    let not_ready = format!("containers with unready status: [{}]", names.join(" "));
    let scheduled = pod
        .status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.kind == "PodScheduled")
        .and_then(|c| c.last_transition_time.clone())
        .map_or_else(|| json!(t), |time| json!(time));
    let status = json!({
        "phase": "Pending",
        "conditions": [
            {"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": null, "lastTransitionTime": t},
            {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": t},
            {"type": "Ready", "status": "False", "reason": "ContainersNotReady", "message": not_ready, "lastProbeTime": null, "lastTransitionTime": t},
            {"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady", "message": not_ready, "lastProbeTime": null, "lastTransitionTime": t},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": scheduled},
        ],
        "hostIP": host_ip, "hostIPs": [{"ip": host_ip}],
        "startTime": t, "containerStatuses": waiting, "qosClass": "BestEffort",
    });
    let mut new = involved.clone();
    new["status"] = status;
    let caller = caller();
    soft(api.update(&caller, world, &PODS, new, Subresource::Status))?;
    for c in pod.containers() {
        let msg = format!("Pulling image \"{}\"", c.image());
        soft(event(
            api,
            &caller,
            world,
            involved,
            ("Normal", "Pulling"),
            &msg,
            "kubelet",
        ))?;
    }
    Ok(())
}

/// The containers are stopped after a graceful delete, then the pod is removed for good.
fn pod_remove(api: &mut ApiServer, world: &mut Cluster, involved: &Value, pod: &Pod) -> Tick {
    let caller = caller();
    for c in pod.containers() {
        let msg = format!("Stopping container {}", c.name);
        soft(event(
            api,
            &caller,
            world,
            involved,
            ("Normal", "Killing"),
            &msg,
            "kubelet",
        ))?;
    }
    let (ns, name) = (pod.metadata.namespace(), pod.metadata.name());
    soft(api.delete(&caller, world, &PODS, ns, name, true))
}

/// A started container's status (image names as containerd resolves them).
fn running_status(c: &objects::Container, uid: &str, t: &str) -> ContainerStatus {
    let image = c.image();
    let digest = crate::base::digest(image.as_bytes());
    let cid = crate::base::digest(format!("{uid}{image}").as_bytes());
    let repo = image.split(':').next().unwrap_or("");
    let full = if repo.contains('/') {
        repo.to_string()
    } else {
        format!("docker.io/library/{repo}")
    };
    let shown_image = if repo.contains('/') {
        image.to_string()
    } else if image.contains(':') {
        format!("docker.io/library/{image}")
    } else {
        format!("docker.io/library/{image}:latest")
    };
    let status = json!({"name": c.name, "image": shown_image,
        "imageID": format!("{full}@sha256:{digest:016x}{digest:016x}{digest:016x}{digest:016x}"),
        "containerID": format!("containerd://{cid:016x}{cid:016x}{cid:016x}{cid:016x}"),
        "ready": true, "restartCount": 0, "started": true, "lastState": {},
        "state": {"running": {"startedAt": t}}});
    objects::from_value(&status).unwrap_or_default()
}
