//! The control plane as kubeadm lays it out: each etcd member's machine is a control-plane
//! Node (named like the member, `m1`, tainted `node-role.kubernetes.io/control-plane:NoSchedule`)
//! whose kubelet runs static pods from manifests: `etcd-m1` on every one, kube-apiserver,
//! kube-controller-manager and kube-scheduler on the first. The kubelet publishes them as
//! mirror pods (annotation `kubernetes.io/config.mirror`, owned by the Node) and reports the
//! etcd container as the member is: killed, it is `CrashLoopBackOff` and not ready; restarted,
//! it runs again with one more restart. A deleted mirror pod is recreated (the manifest stays).

use super::file_source::FileSource;
use super::informers::Informers;
use super::kubelet::Kubelets;
use super::{event, soft, Tick};
use crate::base::MemberId;
use crate::etcd::{Cluster, Preset};
use crate::kube::apiserver::{ApiServer, Caller, Subresource};
use crate::kube::meta::{self, NODES, PODS};
use crate::kube::objects::Pod;
use serde_json::{json, Value};

pub const CONTROL_PLANE_TAINT: &str = "node-role.kubernetes.io/control-plane";
const ETCD_IMAGE: &str = "registry.k8s.io/etcd:3.4.23-0";
const KUBE_VERSION: &str = "v1.31.0";
/// Where kubeadm puts the certificates etcd and its clients use.
const PKI: &str = "/etc/kubernetes/pki";

/// One static pod as its manifest gives it.
pub(super) struct StaticPod {
    pub component: &'static str,
    pub image: String,
    pub command: Vec<String>,
}

/// A control-plane machine: its node, its etcd member, and where it is in the list.
#[derive(Clone, Copy)]
pub(super) struct Machine<'a> {
    pub node: &'a str,
    pub member: MemberId,
    pub index: usize,
}

/// The static pods of `machine`: etcd on every one, the rest of the control plane on the
/// first; `etcd_urls` is the API server's `--etcd-servers`.
pub(super) fn static_pods(
    world: &Cluster,
    preset: Preset,
    machine: Machine,
    etcd_urls: &str,
) -> Vec<StaticPod> {
    components(machine)
        .iter()
        .map(|c| static_pod(world, preset, machine, etcd_urls, c))
        .collect()
}

/// The components `machine` runs as static pods (their manifests' names).
pub(super) fn components(machine: Machine) -> &'static [&'static str] {
    const ALL: [&str; 4] = [
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
    ];
    if machine.index == 0 {
        &ALL
    } else {
        &ALL[..1]
    }
}

/// One of `components(machine)`, with its image and command (made only when a pod is
/// written: the kubelet's sync looks at every one each round).
fn static_pod(
    world: &Cluster,
    preset: Preset,
    machine: Machine,
    etcd_urls: &str,
    component: &'static str,
) -> StaticPod {
    let image = |c: &str| format!("registry.k8s.io/{c}:{KUBE_VERSION}");
    let (image, command) = match component {
        "etcd" => (ETCD_IMAGE.to_string(), etcd_command(world, preset, machine)),
        "kube-apiserver" => {
            let ip = preset.control_plane_ip(machine.index);
            (image(component), apiserver_command(preset, &ip, etcd_urls))
        }
        "kube-controller-manager" => (
            image(component),
            vec![
                "kube-controller-manager".into(),
                "--leader-elect=true".into(),
                "--node-monitor-grace-period=40s".into(),
            ],
        ),
        _ => (
            image(component),
            vec![component.into(), "--leader-elect=true".into()],
        ),
    };
    StaticPod {
        component,
        image,
        command,
    }
}

/// etcd's flags from the member's identity; kubeadm's add its certificates and the
/// `--initial-cluster` that a restore must repeat.
fn etcd_command(world: &Cluster, preset: Preset, machine: Machine) -> Vec<String> {
    let member = machine.member;
    let identity = world.process(member).map(|m| m.identity.clone());
    let (name, peers, clients) = match identity {
        Some(i) => (i.name, i.peer_urls.join(","), i.client_urls.join(",")),
        None => (
            machine.node.to_string(),
            crate::etcd::peer_url(member),
            crate::etcd::client_url(member),
        ),
    };
    let tls = preset.tls();
    let listen_clients = if tls {
        crate::etcd::kubeadm::LISTEN_CLIENT_URLS.to_string()
    } else {
        clients.clone()
    };
    let mut flags = vec![
        ("advertise-client-urls", clients),
        ("data-dir", super::file_source::ETCD_DATA_DIR.to_string()),
        ("initial-advertise-peer-urls", peers.clone()),
        ("listen-client-urls", listen_clients),
        ("listen-peer-urls", peers.clone()),
        ("name", name.clone()),
        ("snapshot-count", "10000".to_string()),
    ];
    if tls {
        let etcd_pki = |f: &str| format!("{PKI}/etcd/{f}");
        flags.extend([
            ("cert-file", etcd_pki("server.crt")),
            ("client-cert-auth", "true".to_string()),
            ("initial-cluster", format!("{name}={peers}")),
            ("key-file", etcd_pki("server.key")),
            ("listen-metrics-urls", "http://127.0.0.1:2381".to_string()),
            ("peer-cert-file", etcd_pki("peer.crt")),
            ("peer-client-cert-auth", "true".to_string()),
            ("peer-key-file", etcd_pki("peer.key")),
            ("peer-trusted-ca-file", etcd_pki("ca.crt")),
            ("trusted-ca-file", etcd_pki("ca.crt")),
        ]);
        // kubeadm writes them sorted.
        flags.sort();
    }
    command("etcd", flags)
}

/// The API server's flags; kubeadm's talks to its local member only, over TLS.
fn apiserver_command(preset: Preset, ip: &str, etcd_urls: &str) -> Vec<String> {
    let mut flags = vec![
        ("advertise-address", ip.to_string()),
        ("etcd-servers", etcd_urls.to_string()),
        ("event-ttl", "1h0m0s".to_string()),
        ("secure-port", "6443".to_string()),
    ];
    if preset.tls() {
        flags.extend([
            ("etcd-cafile", format!("{PKI}/etcd/ca.crt")),
            ("etcd-certfile", format!("{PKI}/apiserver-etcd-client.crt")),
            ("etcd-keyfile", format!("{PKI}/apiserver-etcd-client.key")),
        ]);
        flags.sort();
    }
    command("kube-apiserver", flags)
}

fn command(program: &str, flags: Vec<(&str, String)>) -> Vec<String> {
    std::iter::once(program.to_string())
        .chain(flags.into_iter().map(|(k, v)| format!("--{k}={v}")))
        .collect()
}

/// The API server's `--etcd-servers`: kubeadm's its local member (stacked etcd), the
/// ring's every member.
pub(super) fn etcd_servers(preset: Preset, control_plane: &[(String, MemberId)]) -> String {
    if preset.tls() {
        return "https://127.0.0.1:2379".to_string();
    }
    control_plane
        .iter()
        .map(|(_, m)| crate::etcd::client_url(*m))
        .collect::<Vec<_>>()
        .join(",")
}

/// The manifest file kubeadm writes for `pod` (`/etc/kubernetes/manifests/etcd.yaml`): the
/// Pod the kubelet runs, with the host directories it mounts.
pub(super) fn manifest_yaml(pod: &StaticPod) -> String {
    let c = pod.component;
    let mounts: &[(&str, &str)] = match c {
        "etcd" => &[
            ("etcd-data", super::file_source::ETCD_DATA_DIR),
            ("etcd-certs", "/etc/kubernetes/pki/etcd"),
        ],
        "kube-apiserver" => &[("k8s-certs", PKI)],
        _ => &[],
    };
    let volume_mounts: Vec<Value> = mounts
        .iter()
        .map(|(name, path)| json!({"mountPath": path, "name": name}))
        .collect();
    let volumes: Vec<Value> = mounts
        .iter()
        .map(|(name, path)| json!({"hostPath": {"path": path, "type": "DirectoryOrCreate"}, "name": name}))
        .collect();
    let cpu = if c == "etcd" { "100m" } else { "200m" };
    let manifest = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"creationTimestamp": null, "labels": {"component": c, "tier": "control-plane"},
            "name": c, "namespace": "kube-system"},
        "spec": {
            "containers": [{"command": pod.command, "image": pod.image, "imagePullPolicy": "IfNotPresent",
                "name": c, "resources": {"requests": {"cpu": cpu}}, "volumeMounts": volume_mounts}],
            "hostNetwork": true, "priority": 2000001000, "priorityClassName": "system-node-critical",
            "volumes": volumes,
        },
        "status": {},
    });
    crate::kube::yaml::to_yaml(&manifest)
}

/// Each running control-plane kubelet: publish its static pods as mirror pods (again, when
/// one was deleted), delete those whose manifest is gone, and report their containers as the
/// processes are.
pub(super) fn sync(
    api: &mut ApiServer,
    world: &mut Cluster,
    (preset, control_plane): (Preset, &[(String, MemberId)]),
    (kubelets, source): (&Kubelets, &FileSource),
    informers: &mut Informers,
) -> Tick {
    let system_pods = informers.pods.list(api, Some("kube-system"));
    let caller = Caller::component("kubelet");
    let etcd_urls = etcd_servers(preset, control_plane);
    for (index, (node, member)) in control_plane.iter().enumerate() {
        if kubelets.is_stopped(node) {
            continue;
        }
        let ip = preset.control_plane_ip(index);
        let machine = Machine {
            node,
            member: *member,
            index,
        };
        for &component in components(machine) {
            let name = format!("{component}-{node}");
            let Some(running) = source.running(world, machine, component) else {
                // No manifest: the kubelet deletes the mirror pod of the pod it stopped.
                if system_pods.iter().any(|(_, p)| p.metadata.name() == name) {
                    soft(api.delete(&caller, world, &PODS, "kube-system", &name, true))?;
                }
                continue;
            };
            match system_pods.iter().find(|(_, p)| p.metadata.name() == name) {
                None => {
                    let owner = api.get_cached(&NODES, "", node);
                    let pod = static_pod(world, preset, machine, &etcd_urls, component);
                    let manifest = Manifest {
                        name: &name,
                        component,
                        node,
                        ip: &ip,
                        image: &pod.image,
                    };
                    let pod = mirror_pod(&manifest, pod.command, owner.as_deref());
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
