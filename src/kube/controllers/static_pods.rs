//! The control plane as kubeadm lays it out: each etcd member's machine is a control-plane
//! Node (named like the member, `m1`, tainted `node-role.kubernetes.io/control-plane:NoSchedule`)
//! whose kubelet runs static pods from manifests: `etcd-m1` on every one, kube-apiserver,
//! kube-controller-manager and kube-scheduler on the first. The kubelet publishes them as
//! mirror pods (annotation `kubernetes.io/config.mirror`, owned by the Node) and reports the
//! etcd container as the member is: killed, it is `CrashLoopBackOff` and not ready; restarted,
//! it runs again with one more restart. A deleted mirror pod is recreated (the manifest stays).

use super::informers::Informers;
use super::kubelet::Kubelets;
use super::{event, soft, Tick};
use crate::base::MemberId;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller, Subresource};
use crate::kube::meta::{self, NODES, PODS};
use crate::kube::objects::Pod;
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

/// Each running control-plane kubelet: publish its static pods as mirror pods (again, when
/// one was deleted) and report their containers as the processes are.
pub(super) fn sync(
    api: &mut ApiServer,
    world: &mut Cluster,
    control_plane: &[(String, MemberId)],
    kubelets: &Kubelets,
    informers: &mut Informers,
) -> Tick {
    let system_pods = informers.pods.list(api, Some("kube-system"));
    let caller = Caller::component("kubelet");
    let etcd_urls = control_plane
        .iter()
        .map(|(_, m)| crate::etcd::client_url(*m))
        .collect::<Vec<_>>()
        .join(",");
    for (index, (node, member)) in control_plane.iter().enumerate() {
        if kubelets.is_stopped(node) {
            continue;
        }
        let ip = control_plane_ip(index);
        for (component, image, command) in manifests(node, *member, index == 0, &etcd_urls, &ip) {
            let name = format!("{component}-{node}");
            // Only etcd's process can fail here: the other components are not simulated
            // as processes that crash.
            let running = component != "etcd" || world.is_running(*member);
            match system_pods.iter().find(|(_, p)| p.metadata.name() == name) {
                None => {
                    let owner = api.get_cached(&NODES, "", node);
                    let manifest = Manifest {
                        name: &name,
                        component,
                        node,
                        ip: &ip,
                        image: &image,
                    };
                    let pod = mirror_pod(&manifest, command, owner.as_deref());
                    soft(api.create(&caller, world, &PODS, pod))?;
                }
                Some((value, pod)) if !pod.metadata.is_deleting() => {
                    sync_static_status(api, &caller, world, (value, pod), running, &ip)?;
                }
                // A deleted mirror pod: the kubelet finishes the delete; the manifest is
                // still there, so the next round publishes the pod again.
                Some(_) => soft(api.delete(&caller, world, &PODS, "kube-system", &name, true))?,
            }
        }
    }
    Ok(())
}

/// The container's status: running and ready, or (its process gone) waiting in
/// CrashLoopBackOff with the last run terminated; each comeback is one more restart.
fn sync_static_status(
    api: &mut ApiServer,
    caller: &Caller,
    world: &mut Cluster,
    (involved, pod): (&Value, &Pod),
    running: bool,
    ip: &str,
) -> Tick {
    let status = pod
        .status
        .container_statuses
        .as_ref()
        .and_then(|s| s.first());
    let was_running =
        status.is_some_and(|s| s.state.as_ref().is_some_and(|st| st.running.is_some()));
    if status.is_some() && was_running == running {
        return Ok(());
    }
    let now = meta::timestamp(world.now());
    let restarts = status.and_then(|s| s.restart_count).unwrap_or(0);
    let container = pod.containers().first().cloned().unwrap_or_default();
    let (name, image) = (container.name.as_str(), container.image());
    let (pod_name, uid) = (pod.metadata.name(), pod.metadata.uid());
    let cid = crate::base::digest(format!("{uid}{restarts}").as_bytes());
    let mut cs = json!({"name": name, "image": image, "imageID": format!("{image}@sha256:{cid:016x}{cid:016x}"),
        "containerID": format!("containerd://{cid:016x}{cid:016x}{cid:016x}{cid:016x}"),
        "ready": running, "started": running, "restartCount": restarts, "lastState": {}});
    let terminated = json!({"terminated": {"exitCode": 137, "reason": "Error", "startedAt": now, "finishedAt": now}});
    if running {
        if status.is_some() {
            cs["restartCount"] = json!(restarts + 1);
            cs["lastState"] = terminated;
        }
        cs["state"] = json!({"running": {"startedAt": now}});
    } else {
        let message = format!(
            "back-off 10s restarting failed container={name} pod={pod_name}_kube-system({uid})"
        );
        cs["state"] = json!({"waiting": {"reason": "CrashLoopBackOff", "message": message}});
        cs["lastState"] = terminated;
    }
    let ready = if running { "True" } else { "False" };
    let mut new = involved.clone();
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
    soft(api.update(caller, world, &PODS, new, Subresource::Status))?;
    if !running {
        let msg = format!(
            "Back-off restarting failed container {name} in pod {pod_name}_kube-system({uid})"
        );
        soft(event(
            api,
            caller,
            world,
            involved,
            ("Warning", "BackOff"),
            &msg,
            "kubelet",
        ))?;
    }
    Ok(())
}

/// What a static pod is: its mirror pod's name, the component it runs, where, and from what.
struct Manifest<'a> {
    name: &'a str,
    component: &'a str,
    node: &'a str,
    ip: &'a str,
    image: &'a str,
}

/// A mirror pod as the kubelet creates it for a static manifest (its status follows).
fn mirror_pod(manifest: &Manifest, command: Vec<String>, owner: Option<&Value>) -> Value {
    let Manifest {
        name,
        component,
        node,
        ip,
        image,
    } = *manifest;
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
