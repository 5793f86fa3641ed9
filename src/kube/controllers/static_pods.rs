//! The control plane as kubeadm lays it out: each etcd member's machine is a control-plane
//! Node (named like the member, `m1`, tainted `node-role.kubernetes.io/control-plane:NoSchedule`)
//! whose kubelet runs static pods from manifests: `etcd-m1` on every one, kube-apiserver,
//! kube-controller-manager and kube-scheduler on the first. The kubelet publishes them as
//! mirror pods (annotation `kubernetes.io/config.mirror`, owned by the Node) and reports the
//! etcd container as the member is: killed, it is `CrashLoopBackOff` and not ready; restarted,
//! it runs again with one more restart. A deleted mirror pod is recreated (the manifest stays).

use super::{event, soft, Controllers, Tick};
use crate::base::MemberId;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Subresource};
use crate::kube::meta::{self, NODES, PODS};
use serde_json::{json, Value};

pub const CONTROL_PLANE_TAINT: &str = "node-role.kubernetes.io/control-plane";
const ETCD_IMAGE: &str = "registry.k8s.io/etcd:3.4.23-0";
const KUBE_VERSION: &str = "v1.31.0";

/// A control-plane node's address (workers are 172.18.0.2-4).
pub fn control_plane_ip(index: usize) -> String {
    format!("172.18.0.{}", 10 + index)
}

/// One static pod manifest: (component, container image, command).
fn manifests(
    node: &str,
    member: MemberId,
    first: bool,
    etcd_urls: &str,
    ip: &str,
) -> Vec<(&'static str, String, Vec<String>)> {
    let mut pods = vec![(
        "etcd",
        ETCD_IMAGE.to_string(),
        vec![
            "etcd".into(),
            format!(
                "--advertise-client-urls={}",
                crate::etcd::client_url(member)
            ),
            "--data-dir=/var/lib/etcd".into(),
            format!(
                "--initial-advertise-peer-urls={}",
                crate::etcd::peer_url(member)
            ),
            format!("--listen-client-urls={}", crate::etcd::client_url(member)),
            format!("--listen-peer-urls={}", crate::etcd::peer_url(member)),
            format!("--name={node}"),
            "--snapshot-count=10000".into(),
        ],
    )];
    if first {
        pods.push((
            "kube-apiserver",
            format!("registry.k8s.io/kube-apiserver:{KUBE_VERSION}"),
            vec![
                "kube-apiserver".into(),
                format!("--advertise-address={ip}"),
                format!("--etcd-servers={etcd_urls}"),
                "--event-ttl=1h0m0s".into(),
                "--secure-port=6443".into(),
            ],
        ));
        pods.push((
            "kube-controller-manager",
            format!("registry.k8s.io/kube-controller-manager:{KUBE_VERSION}"),
            vec![
                "kube-controller-manager".into(),
                "--leader-elect=true".into(),
                "--node-monitor-grace-period=40s".into(),
            ],
        ));
        pods.push((
            "kube-scheduler",
            format!("registry.k8s.io/kube-scheduler:{KUBE_VERSION}"),
            vec!["kube-scheduler".into(), "--leader-elect=true".into()],
        ));
    }
    pods
}

impl Controllers {
    /// Each control-plane kubelet: publish its static pods as mirror pods (again, when one was
    /// deleted) and report their containers as the processes are.
    pub(super) fn static_pods(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        let etcd_urls = self
            .control_plane
            .iter()
            .map(|(_, m)| crate::etcd::client_url(*m))
            .collect::<Vec<_>>()
            .join(",");
        for (index, (node, member)) in self.control_plane.clone().into_iter().enumerate() {
            if self.stopped_kubelets.contains(&node) {
                continue;
            }
            let ip = control_plane_ip(index);
            for (component, image, command) in manifests(&node, member, index == 0, &etcd_urls, &ip)
            {
                let name = format!("{component}-{node}");
                // Only etcd's process can fail here: the other components are not simulated
                // as processes that crash.
                let running = component != "etcd" || world.is_running(member);
                match api.get_cached(&PODS, "kube-system", &name) {
                    None => {
                        let owner = api.get_cached(&NODES, "", &node);
                        let pod = mirror_pod(
                            &name,
                            component,
                            &node,
                            &ip,
                            &image,
                            command,
                            owner.as_deref(),
                        );
                        let created = soft(api.create(world, &PODS, pod));
                        created?;
                    }
                    Some(pod) if meta::at(&pod, &["metadata", "deletionTimestamp"]).is_none() => {
                        self.sync_static_status(api, world, &pod, running, &ip)?;
                    }
                    // A deleted mirror pod: the kubelet finishes the delete; the manifest is
                    // still there, so the next round publishes the pod again.
                    Some(_) => soft(api.delete(world, &PODS, "kube-system", &name, true))?,
                }
            }
        }
        Ok(())
    }

    /// The container's status: running and ready, or (its process gone) waiting in
    /// CrashLoopBackOff with the last run terminated; each comeback is one more restart.
    fn sync_static_status(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        pod: &Value,
        running: bool,
        ip: &str,
    ) -> Tick {
        let status = meta::at(pod, &["status", "containerStatuses"])
            .and_then(Value::as_array)
            .and_then(|s| s.first());
        let was_running = status.is_some_and(|s| meta::at(s, &["state", "running"]).is_some());
        if status.is_some() && was_running == running {
            return Ok(());
        }
        let now = meta::timestamp(world.now());
        let restarts = status
            .and_then(|s| meta::i64_at(s, &["restartCount"]))
            .unwrap_or(0);
        let container = meta::at(pod, &["spec", "containers"])
            .and_then(Value::as_array)
            .and_then(|c| c.first())
            .cloned()
            .unwrap_or_default();
        let name = meta::str_at(&container, &["name"]);
        let image = meta::str_at(&container, &["image"]);
        let cid = crate::base::digest(format!("{}{restarts}", meta::uid(pod)).as_bytes());
        let mut cs = json!({"name": name, "image": image, "imageID": format!("{image}@sha256:{cid:016x}{cid:016x}"),
            "containerID": format!("containerd://{cid:016x}{cid:016x}{cid:016x}{cid:016x}"),
            "ready": running, "started": running, "restartCount": restarts, "lastState": {}});
        if running {
            if status.is_some() {
                cs["restartCount"] = json!(restarts + 1);
                cs["lastState"] = json!({"terminated": {"exitCode": 137, "reason": "Error", "startedAt": now, "finishedAt": now}});
            }
            cs["state"] = json!({"running": {"startedAt": now}});
        } else {
            let message = format!(
                "back-off 10s restarting failed container={name} pod={}_kube-system({})",
                meta::name(pod),
                meta::uid(pod)
            );
            cs["state"] = json!({"waiting": {"reason": "CrashLoopBackOff", "message": message}});
            cs["lastState"] = json!({"terminated": {"exitCode": 137, "reason": "Error", "startedAt": now, "finishedAt": now}});
        }
        let ready = if running { "True" } else { "False" };
        let mut new = pod.clone();
        new["status"] = json!({
            "phase": "Running",
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": null, "lastTransitionTime": now},
                {"type": "Initialized", "status": "True", "lastProbeTime": null, "lastTransitionTime": now},
                {"type": "Ready", "status": ready, "lastProbeTime": null, "lastTransitionTime": now},
                {"type": "ContainersReady", "status": ready, "lastProbeTime": null, "lastTransitionTime": now},
                {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": now},
            ],
            "hostIP": ip, "hostIPs": [{"ip": ip}], "podIP": ip, "podIPs": [{"ip": ip}],
            "startTime": now, "containerStatuses": [cs], "qosClass": "Burstable",
        });
        soft(api.update(world, &PODS, new, Subresource::Status))?;
        if !running {
            let msg = format!(
                "Back-off restarting failed container {name} in pod {}_kube-system({})",
                meta::name(pod),
                meta::uid(pod)
            );
            soft(
                event(api, world, pod, "Warning", "BackOff", &msg, "kubelet").map(|_| Value::Null),
            )?;
        }
        Ok(())
    }
}

/// A mirror pod as the kubelet creates it for a static manifest (its status follows).
fn mirror_pod(
    name: &str,
    component: &str,
    node: &str,
    ip: &str,
    image: &str,
    command: Vec<String>,
    owner: Option<&Value>,
) -> Value {
    let hash = format!(
        "{:032x}",
        u128::from(crate::base::digest(name.as_bytes())) << 64
            | u128::from(crate::base::digest(image.as_bytes()))
    );
    let mut pod = json!({
        "metadata": {
            "name": name, "namespace": "kube-system",
            "labels": {"component": component, "tier": "control-plane"},
            "annotations": {"kubernetes.io/config.hash": hash, "kubernetes.io/config.mirror": hash,
                "kubernetes.io/config.source": "file"},
        },
        "spec": {
            "containers": [{"name": component, "image": image, "command": command,
                "imagePullPolicy": "IfNotPresent",
                "resources": {"requests": {"cpu": if component == "etcd" { "100m" } else { "200m" }}}}],
            "hostNetwork": true, "nodeName": node, "priorityClassName": "system-node-critical",
            "priority": 2000001000,
            "tolerations": [{"effect": "NoExecute", "operator": "Exists"}],
        },
        "status": {"phase": "Pending", "hostIP": ip},
    });
    if let Some(owner) = owner {
        pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "Node",
            "name": node, "uid": meta::uid(owner), "controller": true}]);
    }
    pod
}
