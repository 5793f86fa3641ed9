//! The codec against the apiserver's own encodings and Go's JSON behaviour.

use super::*;
use proptest::prelude::*;
use serde_json::json;

const UID: &str = "6a1c9a0e-5b3f-4b9e-9d2a-2f4c1e7b8a90";

fn round_trip(x: &Value) -> Value {
    decode(&encode(x).unwrap()).unwrap()
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "nginx-7c5ddbdf54-x8k2p",
            "generateName": "nginx-7c5ddbdf54-",
            "namespace": "default",
            "uid": UID,
            "resourceVersion": "1234",
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "labels": {"app": "nginx", "pod-template-hash": "7c5ddbdf54"},
            "ownerReferences": [{
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "name": "nginx-7c5ddbdf54",
                "uid": UID,
                "controller": true,
                "blockOwnerDeletion": true
            }]
        },
        "spec": {
            "volumes": [{"name": "config", "configMap": {"name": "nginx-conf", "defaultMode": 420}}],
            "containers": [{
                "name": "nginx",
                "image": "nginx:1.25",
                "ports": [{"containerPort": 80, "protocol": "TCP"}],
                "env": [{"name": "MODE", "value": "production"}],
                "resources": {
                    "limits": {"cpu": "500m", "memory": "128Mi"},
                    "requests": {"cpu": "250m", "memory": "64Mi"}
                },
                "volumeMounts": [{"name": "config", "readOnly": true, "mountPath": "/etc/nginx/conf.d"}],
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent"
            }],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "default",
            "serviceAccount": "default",
            "nodeName": "node-1",
            "securityContext": {},
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
            ],
            "priority": 0,
            "enableServiceLinks": true,
            "preemptionPolicy": "PreemptLowerPriority"
        },
        "status": {
            "phase": "Running",
            "conditions": [
                {"type": "Ready", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:05Z"},
                {"type": "PodScheduled", "status": "True", "lastProbeTime": null, "lastTransitionTime": "2024-05-01T10:00:00Z"}
            ],
            "hostIP": "10.0.0.1",
            "hostIPs": [{"ip": "10.0.0.1"}],
            "podIP": "10.244.1.5",
            "podIPs": [{"ip": "10.244.1.5"}],
            "startTime": "2024-05-01T10:00:01Z",
            "containerStatuses": [{
                "name": "nginx",
                "state": {"running": {"startedAt": "2024-05-01T10:00:04Z"}},
                "lastState": {"terminated": {
                    "exitCode": 0,
                    "reason": "Completed",
                    "startedAt": "2024-05-01T09:00:00Z",
                    "finishedAt": "2024-05-01T09:59:59Z",
                    "containerID": "containerd://0f1e2d"
                }},
                "ready": true,
                "restartCount": 1,
                "image": "docker.io/library/nginx:1.25",
                "imageID": "docker.io/library/nginx@sha256:0123abcd",
                "containerID": "containerd://a1b2c3",
                "started": true
            }],
            "qosClass": "Burstable"
        }
    })
}

fn pod_template() -> Value {
    json!({
        "metadata": {"labels": {"app": "nginx"}},
        "spec": {
            "containers": [{
                "name": "nginx",
                "image": "nginx:1.25",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent"
            }],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "securityContext": {},
            "schedulerName": "default-scheduler"
        }
    })
}

fn deployment() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "nginx",
            "namespace": "default",
            "uid": UID,
            "generation": 2,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "labels": {"app": "nginx"},
            "annotations": {"deployment.kubernetes.io/revision": "1"}
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": "nginx"}},
            "template": pod_template(),
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600
        },
        "status": {
            "observedGeneration": 2,
            "replicas": 3,
            "updatedReplicas": 3,
            "readyReplicas": 3,
            "availableReplicas": 3,
            "conditions": [{
                "type": "Available",
                "status": "True",
                "lastUpdateTime": "2024-05-01T10:00:10Z",
                "lastTransitionTime": "2024-05-01T10:00:10Z",
                "reason": "MinimumReplicasAvailable",
                "message": "Deployment has minimum availability."
            }]
        }
    })
}

fn replica_set() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": "nginx-7c5ddbdf54",
            "namespace": "default",
            "uid": UID,
            "generation": 3,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "labels": {"app": "nginx", "pod-template-hash": "7c5ddbdf54"},
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "ownerReferences": [{
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "name": "nginx",
                "uid": UID,
                "controller": true,
                "blockOwnerDeletion": true
            }]
        },
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "nginx", "pod-template-hash": "7c5ddbdf54"}},
            "template": pod_template()
        },
        // Scaled down: replicas is not omitempty, so Go prints its 0.
        "status": {"replicas": 0, "observedGeneration": 3}
    })
}

fn node() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "node-1",
            "uid": UID,
            "creationTimestamp": "2024-05-01T09:00:00Z",
            "labels": {"kubernetes.io/hostname": "node-1", "kubernetes.io/os": "linux"}
        },
        "spec": {
            "podCIDR": "10.244.1.0/24",
            "podCIDRs": ["10.244.1.0/24"],
            "taints": [
                {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2024-05-01T10:05:00Z"},
                {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2024-05-01T10:05:05Z"}
            ]
        },
        "status": {
            "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "allocatable": {"cpu": "3800m", "memory": "7820Mi", "pods": "110"},
            "conditions": [{
                "type": "Ready",
                "status": "Unknown",
                "lastHeartbeatTime": "2024-05-01T10:04:00Z",
                "lastTransitionTime": "2024-05-01T10:05:00Z",
                "reason": "NodeStatusUnknown",
                "message": "Kubelet stopped posting node status."
            }],
            "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": "node-1"}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": "",
                "systemUUID": "",
                "bootID": "",
                "kernelVersion": "6.1.0",
                "osImage": "Debian GNU/Linux 12 (bookworm)",
                "containerRuntimeVersion": "containerd://1.7.0",
                "kubeletVersion": "v1.31.0",
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64"
            }
        }
    })
}

fn namespace() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "default",
            "uid": UID,
            "creationTimestamp": "2024-05-01T09:00:00Z",
            "labels": {"kubernetes.io/metadata.name": "default"},
            "managedFields": [{
                "manager": "kube-apiserver",
                "operation": "Update",
                "apiVersion": "v1",
                "time": "2024-05-01T09:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:kubernetes.io/metadata.name": {}}}}
            }]
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}
    })
}

fn others() -> Vec<Value> {
    vec![
        json!({
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "db", "namespace": "default", "uid": UID, "creationTimestamp": "2024-05-01T10:00:00Z"},
            "data": {"password": "czNjcjN0", "username": "YWRtaW4=", "empty": ""},
            "type": "Opaque"
        }),
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "nginx-conf", "namespace": "default", "uid": UID, "creationTimestamp": "2024-05-01T10:00:00Z"},
            "data": {"default.conf": "server {\n  listen 80;\n}\n", "empty": ""}
        }),
        json!({
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": "nginx-7c5ddbdf54-x8k2p.17cb5c3e1a2b3c4d", "namespace": "default", "uid": UID, "creationTimestamp": "2024-05-01T10:00:03Z"},
            "involvedObject": {
                "kind": "Pod",
                "namespace": "default",
                "name": "nginx-7c5ddbdf54-x8k2p",
                "uid": UID,
                "apiVersion": "v1",
                "resourceVersion": "1234",
                "fieldPath": "spec.containers{nginx}"
            },
            "reason": "Pulled",
            "message": "Container image \"nginx:1.25\" already present on machine",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2024-05-01T10:00:03Z",
            "lastTimestamp": "2024-05-01T10:07:03Z",
            "count": 3,
            "type": "Normal",
            "eventTime": null,
            "reportingComponent": "kubelet",
            "reportingInstance": "node-1"
        }),
        json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": "node-1",
                "namespace": "kube-node-lease",
                "uid": UID,
                "creationTimestamp": "2024-05-01T09:00:00Z",
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "node-1", "uid": UID}]
            },
            "spec": {"holderIdentity": "node-1", "leaseDurationSeconds": 40, "renewTime": "2024-05-01T10:00:10.123456Z"}
        }),
        json!({
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "namespace": "default", "uid": UID, "creationTimestamp": "2024-05-01T10:00:00Z"},
            "spec": {
                "ports": [
                    {"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080},
                    {"name": "metrics", "protocol": "TCP", "port": 9090, "targetPort": "metrics"}
                ],
                "selector": {"app": "web"},
                "clusterIP": "10.96.0.10",
                "clusterIPs": ["10.96.0.10"],
                "type": "ClusterIP",
                "sessionAffinity": "None",
                "ipFamilies": ["IPv4"],
                "ipFamilyPolicy": "SingleStack",
                "internalTrafficPolicy": "Cluster"
            },
            "status": {"loadBalancer": {}}
        }),
    ]
}

fn realistic() -> Vec<Value> {
    let mut all = vec![pod(), deployment(), replica_set(), node(), namespace()];
    all.extend(others());
    all
}

#[test]
fn realistic_objects_round_trip_as_go_prints_them() {
    for x in realistic() {
        assert_eq!(round_trip(&x), x, "{}", x["kind"]);
    }
}

/// `etcdctl get /registry/namespaces/default -w json` on a Kubernetes 1.6 cluster (2017),
/// quoted in rootsongjc/kubernetes-handbook, guide/using-etcdctl-to-access-kubernetes-data.md.
const RECORDED_DEFAULT_NAMESPACE: &str = "azhzAAoPCgJ2MRIJTmFtZXNwYWNlEmIKSAoHZGVmYXVsdBIAGgAiACokZTU2YzMzMDgtMWVhOC0xMWU3LThjZDctZjRlOWQ0OWY4ZWQwMgA4AEILCIn4sscFEKOg9xd6ABIMCgprdWJlcm5ldGVzGggKBkFjdGl2ZRoAIgA=";

#[test]
fn default_namespace_bytes_match_a_recorded_etcd_value() {
    let recorded = GO_BASE64.decode(RECORDED_DEFAULT_NAMESPACE).unwrap();
    let obj = decode(&recorded).unwrap();
    let want = json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": "default",
            "uid": "e56c3308-1ea8-11e7-8cd7-f4e9d49f8ed0",
            "creationTimestamp": "2017-04-11T11:20:41Z"
        },
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"}
    });
    assert_eq!(obj, want);
    // Today's apiserver writes the same bytes but for two fields: ObjectMeta.clusterName
    // (15, `z\0`, removed in 1.25) and the creationTimestamp's nanos (written as 0 since
    // apimachinery aef3fd60, 2017), so three lengths shrink: raw, metadata, timestamp.
    let mut today = recorded.clone();
    today.splice(90..95, [0x10, 0x00]); // nanos
    today.drain(92..94); // clusterName
    (today[22], today[24], today[83]) = (0x5d, 0x43, 0x08);
    assert_eq!(encode(&want).unwrap(), today);
}

#[test]
fn namespace_bytes_start_like_etcdctl_shows_them() {
    let bytes = encode(&namespace()).unwrap();
    assert!(bytes.starts_with(b"k8s\0\n\x0f\n\x02v1\x12\tNamespace\x12"));
    let has = |s: &str| bytes.windows(s.len()).any(|w| w == s.as_bytes());
    assert!(has("default") && has("kubernetes") && has("Active"));
    assert!(
        bytes.ends_with(b"\x1a\x00\x22\x00"),
        "empty contentEncoding, contentType"
    );
}

#[test]
fn decode_prints_what_go_prints() {
    let sparse = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "creationTimestamp": null, "generation": 0, "labels": {}},
        "spec": {"template": {"spec": {"containers": [{
            "name": "web",
            "resources": {"requests": {"cpu": "0.5", "memory": "1.5Gi"}, "limits": {"cpu": 2}}
        }]}}}
    });
    let printed = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "selector": null,
            "template": {"metadata": {}, "spec": {"containers": [{
                "name": "web",
                "resources": {"requests": {"cpu": "500m", "memory": "1536Mi"}, "limits": {"cpu": "2"}}
            }]}},
            "strategy": {}
        },
        "status": {}
    });
    assert_eq!(round_trip(&sparse), printed);
    let mut pod = pod();
    pod["status"]["containerStatuses"][0]["restartCount"] = json!(null);
    pod["status"]["startTime"] = json!("2024-05-01T12:00:01.75+02:00");
    let printed = round_trip(&pod);
    assert_eq!(
        printed["status"]["containerStatuses"][0]["restartCount"],
        json!(0)
    );
    assert_eq!(
        printed["status"]["startTime"],
        json!("2024-05-01T10:00:01Z")
    );
}

#[test]
fn quantities_take_go_canonical_form() {
    for (input, printed) in [
        ("100m", "100m"),
        ("1000m", "1"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("1000", "1k"),
        ("1000M", "1G"),
        ("128Mi", "128Mi"),
        ("1024Mi", "1Gi"),
        ("8Gi", "8Gi"),
        ("1.5Gi", "1536Mi"),
        ("0.5Mi", "512Ki"),
        (".001Ki", "1024m"),
        (".000000000001Ki", "2n"),
        ("3.001n", "4n"),
        ("1e3", "1e3"),
        ("1.2e3", "1200"),
        ("12E", "12E"),
        ("9Ei", "9223372036854775807"),
        ("-0.5", "-500m"),
        ("+1", "+1"),
        ("0Gi", "0"),
        ("1.", "1."),
    ] {
        assert_eq!(quantity(input).as_deref(), Ok(printed), "{input}");
    }
    for bad in ["", "1.1.M", "0.1mi", "aoeu", "1i", "-3.01e-", " 1", "1 "] {
        assert!(quantity(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn wire_details_follow_gogo() {
    let mut pod = pod();
    pod["spec"]["priority"] = json!(-1);
    let bytes = encode(&pod).unwrap();
    // priority (PodSpec field 25, varint): -1 is ten bytes of two's complement.
    let minus_one = [
        0xc8, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ];
    assert!(bytes.windows(minus_one.len()).any(|w| w == minus_one));
    assert_eq!(round_trip(&pod)["spec"]["priority"], json!(-1));
    // A MicroTime keeps its microseconds; a Time its seconds only.
    let lease = &others()[3];
    assert_eq!(
        round_trip(lease)["spec"]["renewTime"],
        json!("2024-05-01T10:00:10.123456Z")
    );
}

#[test]
fn type_errors_read_like_the_apiservers() {
    let err = |path: &[&str], v: Value, base: Value| {
        let mut obj = base;
        let mut slot = &mut obj;
        for key in path {
            slot = match key.parse::<usize>() {
                Ok(i) => &mut slot[i],
                Err(_) => &mut slot[*key],
            };
        }
        *slot = v;
        encode(&obj).unwrap_err()
    };
    let cases = [
        (err(&["spec", "replicas"], json!("3"), deployment()),
         "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
        (err(&["spec", "replicas"], json!(1.5), deployment()),
         "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
        (err(&["spec", "template", "spec", "containers", "0", "image"], json!(7), deployment()),
         "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.image of type string"),
        (err(&["spec", "template", "spec", "containers"], json!({}), deployment()),
         "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container"),
        (err(&["metadata", "labels", "app"], json!(1), deployment()),
         "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"),
        (err(&["spec"], json!("x"), deployment()),
         "json: cannot unmarshal string into Go struct field Deployment.spec of type v1.DeploymentSpec"),
        (err(&["status", "phase"], json!(true), pod()),
         "json: cannot unmarshal bool into Go struct field PodStatus.status.phase of type v1.PodPhase"),
        (err(&["spec", "volumes", "0", "configMap"], json!("x"), pod()),
         "json: cannot unmarshal string into Go struct field Volume.spec.volumes.configMap of type v1.ConfigMapVolumeSource"),
        (err(&["spec", "ports", "0", "targetPort"], json!(false), others()[4].clone()),
         "json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32"),
        (err(&["metadata", "creationTimestamp"], json!(5), pod()),
         "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"),
        (err(&["metadata", "creationTimestamp"], json!("2024-13-01T00:00:00Z"), pod()),
         "parsing time \"2024-13-01T00:00:00Z\": month out of range"),
        (err(&["metadata", "creationTimestamp"], json!("2024-05-01 10:00:00Z"), pod()),
         "parsing time \"2024-05-01 10:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \" 10:00:00Z\" as \"T\""),
        (err(&["metadata", "creationTimestamp"], json!("2024-02-30T00:00:00Z"), pod()),
         "parsing time \"2024-02-30T00:00:00Z\": day out of range"),
        (err(&["spec", "renewTime"], json!("2024-05-01T10:00:10Z"), others()[3].clone()),
         "parsing time \"2024-05-01T10:00:10Z\" as \"2006-01-02T15:04:05.000000Z07:00\": cannot parse \"Z\" as \".000000\""),
        (err(&["spec", "containers", "0", "resources", "limits", "cpu"], json!("1 core"), pod()),
         QUANTITY_FORMAT),
        (err(&["data", "password"], json!("not base64!"), others()[0].clone()),
         "illegal base64 data at input byte 3"),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
    let unknown = json!({"apiVersion": "v1", "kind": "Panda", "metadata": {}});
    assert_eq!(
        encode(&unknown).unwrap_err(),
        "no kind \"Panda\" is registered for version \"v1\""
    );
    assert_eq!(
        encode(&json!({"metadata": {}})).unwrap_err(),
        "Object 'Kind' is missing"
    );
}

#[test]
fn unknown_fields_names_typos_by_path() {
    for x in realistic() {
        assert_eq!(unknown_fields(&x), Vec::<String>::new(), "{}", x["kind"]);
    }
    let mut d = deployment();
    d["spec"]["replica"] = json!(3);
    d["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = json!("Always");
    d["spec"]["template"]["spec"]["volumes"] =
        json!([{"name": "v", "configMap": {"name": "c", "itemz": []}}]);
    d["status"]["conditions"][0]["lastProbeTime"] = json!(null);
    d["spec"]["Replicas"] = json!(5); // strict decoding is case-sensitive
    assert_eq!(
        unknown_fields(&d),
        [
            "spec.Replicas",
            "spec.replica",
            "spec.template.spec.containers[0].imagePullPolicyy",
            "spec.template.spec.volumes[0].configMap.itemz",
            "status.conditions[0].lastProbeTime",
        ]
    );
    // Encoding drops what the schema does not know.
    d["spec"]["template"]["spec"]
        .as_object_mut()
        .unwrap()
        .remove("volumes");
    assert_eq!(round_trip(&d), deployment());
}

#[test]
fn bad_bytes_are_errors() {
    let good = encode(&pod()).unwrap();
    assert_eq!(decode(b"").unwrap_err(), "empty data");
    assert_eq!(decode(b"k8s\0").unwrap_err(), "empty body");
    assert!(decode(b"{\"kind\":\"Pod\"}")
        .unwrap_err()
        .contains("expected prefix [107 56 115 0]"));
    // Cut between the raw field's tag and the empty contentEncoding, raw is short.
    let raw_tag = 4 + 2 + usize::from(good[5]);
    for n in raw_tag + 1..good.len() - 4 {
        assert!(decode(&good[..n]).is_err(), "truncated to {n}");
    }
    // The raw object's first field (metadata) as a varint: a wrong wire type.
    let mut wrong = good.clone();
    let raw_len_bytes = good[raw_tag + 1..]
        .iter()
        .position(|b| b & 0x80 == 0)
        .unwrap()
        + 1;
    wrong[raw_tag + 1 + raw_len_bytes] = 0x08;
    assert_eq!(
        decode(&wrong).unwrap_err(),
        "proto: wrong wireType = 0 for field metadata"
    );
}

/// Any byte string decodes to a value or an error, never a panic, and what decodes
/// encodes (or fails to, as a year beyond 9999 does in Go too) without a panic.
fn decodes_without_panic(bytes: &[u8]) {
    if let Ok(v) = decode(bytes) {
        let _ = encode(&v);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        decodes_without_panic(&tail);
        decodes_without_panic(&[b"k8s\0".as_slice(), &tail].concat());
    }

    #[test]
    fn mangled_encodings_never_panic(
        which in 0..10usize,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = encode(&realistic()[which]).unwrap();
        for (at, b) in edits {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        decodes_without_panic(&bytes);
        decodes_without_panic(&bytes[..cut.index(bytes.len())]);
    }

    #[test]
    fn strings_never_panic_as_times_or_quantities(s in "\\PC{0,40}") {
        let _ = time::parse_rfc3339_go(&s, false);
        let _ = time::parse_rfc3339_go(&s, true);
        let _ = quantity(&s);
    }
}
