//! kubeadm's `addon/coredns` phase, as kubeadm 1.31 writes it (`cmd/kubeadm/app/phases/
//! addons/dns/manifests.go`): the `coredns` ConfigMap and Deployment in `kube-system`, whose
//! two pods the controllers then run like any others. kube-proxy's DaemonSet and the
//! `kube-dns` Service are not written: this API server serves neither kind.

use super::static_pods::CONTROL_PLANE_TAINT;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{ApiError, CONFIGMAPS, DEPLOYMENTS};
use serde_json::{json, Value};

/// The CoreDNS image kubeadm 1.31 deploys.
const COREDNS_IMAGE: &str = "registry.k8s.io/coredns/coredns:v1.11.3";

/// kubeadm's Corefile, with its default cluster domain and no upstream but `/etc/resolv.conf`.
const COREFILE: &str = ".:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30 {
       disable success cluster.local
       disable denial cluster.local
    }
    loop
    reload
    loadbalance
}
";

/// Writes the addon's objects, as `kubeadm init` does once the control plane answers.
pub fn coredns(api: &mut ApiServer, world: &mut Cluster) -> Result<(), ApiError> {
    let kubeadm = Caller::component("kubeadm");
    let config = json!({
        "metadata": {"name": "coredns", "namespace": "kube-system"},
        "data": {"Corefile": COREFILE},
    });
    api.create(&kubeadm, world, &CONFIGMAPS, config)?;
    api.create(&kubeadm, world, &DEPLOYMENTS, deployment())?;
    Ok(())
}

fn deployment() -> Value {
    let labels = json!({"k8s-app": "kube-dns"});
    let port = |name: &str, port: u16, protocol: &str| json!({"name": name, "containerPort": port, "protocol": protocol});
    json!({
        "metadata": {"name": "coredns", "namespace": "kube-system", "labels": labels},
        "spec": {
            "replicas": 2,
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1}},
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "priorityClassName": "system-cluster-critical",
                    "serviceAccountName": "coredns",
                    "tolerations": [
                        {"key": "CriticalAddonsOnly", "operator": "Exists"},
                        {"key": CONTROL_PLANE_TAINT, "effect": "NoSchedule"},
                    ],
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "containers": [{
                        "name": "coredns",
                        "image": COREDNS_IMAGE,
                        "imagePullPolicy": "IfNotPresent",
                        "resources": {
                            "limits": {"memory": "170Mi"},
                            "requests": {"cpu": "100m", "memory": "70Mi"},
                        },
                        "args": ["-conf", "/etc/coredns/Corefile"],
                        "volumeMounts": [
                            {"name": "config-volume", "mountPath": "/etc/coredns", "readOnly": true},
                        ],
                        "ports": [
                            port("dns", 53, "UDP"),
                            port("dns-tcp", 53, "TCP"),
                            port("metrics", 9153, "TCP"),
                        ],
                    }],
                    "dnsPolicy": "Default",
                    "volumes": [{
                        "name": "config-volume",
                        "configMap": {"name": "coredns", "items": [{"key": "Corefile", "path": "Corefile"}]},
                    }],
                },
            },
        },
    })
}
