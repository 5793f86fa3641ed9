//! Defaulting, as the apiserver's scheme defaulters fill fields in (KK `pkg/apis/*/v1/defaults.go`).

use super::meta::{self, Resource};
use crate::base::Millis;
use base64::Engine as _;
use serde_json::{json, Map, Value};

fn set_default(m: &mut Map<String, Value>, key: &str, v: Value) {
    if m.get(key).is_none_or(Value::is_null) {
        m.insert(key.into(), v);
    }
}

/// The DefaultTolerationSeconds admission plugin: a pod that does not tolerate the
/// not-ready and unreachable NoExecute taints tolerates them for 300 s (then it is evicted).
fn default_toleration_seconds(spec: &mut Value) {
    let Some(m) = spec.as_object_mut() else {
        return;
    };
    let tolerations = m.entry("tolerations").or_insert(json!([]));
    let Some(list) = tolerations.as_array_mut() else {
        return;
    };
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let tolerated = list.iter().any(|t| {
            let effect = t.get("effect").and_then(Value::as_str).unwrap_or("");
            let tkey = t.get("key").and_then(Value::as_str).unwrap_or("");
            let exists = t.get("operator").and_then(Value::as_str) == Some("Exists");
            (effect.is_empty() || effect == "NoExecute")
                && (tkey == key || (tkey.is_empty() && exists))
        });
        if !tolerated {
            list.push(json!({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}));
        }
    }
}

pub fn pod_spec(spec: &mut Value) {
    let Some(m) = spec.as_object_mut() else {
        return;
    };
    set_default(m, "restartPolicy", json!("Always"));
    set_default(m, "terminationGracePeriodSeconds", json!(30));
    set_default(m, "dnsPolicy", json!("ClusterFirst"));
    set_default(m, "securityContext", json!({}));
    set_default(m, "schedulerName", json!("default-scheduler"));
    if let Some(containers) = m.get_mut("containers").and_then(Value::as_array_mut) {
        for c in containers.iter_mut().filter_map(Value::as_object_mut) {
            let image = c.get("image").and_then(Value::as_str).unwrap_or("");
            let tag = image
                .rsplit('/')
                .next()
                .and_then(|last| last.split_once(':'));
            let policy = match tag {
                Some((_, "latest")) | None => "Always",
                Some(_) => "IfNotPresent",
            };
            set_default(c, "imagePullPolicy", json!(policy));
            set_default(c, "resources", json!({}));
            set_default(c, "terminationMessagePath", json!("/dev/termination-log"));
            set_default(c, "terminationMessagePolicy", json!("File"));
        }
    }
}

pub fn apply(r: &Resource, obj: &mut Value, now: Millis) {
    match r.kind {
        "Deployment" => {
            let spec = meta::obj_mut(obj, &["spec"]);
            set_default(spec, "replicas", json!(1));
            set_default(spec, "revisionHistoryLimit", json!(10));
            set_default(spec, "progressDeadlineSeconds", json!(600));
            // SetDefaults_Deployment: an empty strategy type is RollingUpdate, whose missing
            // parameters are 25% each (`kubectl create deployment` sends `strategy: {}`).
            let strategy = spec.entry("strategy").or_insert(json!({}));
            if let Some(st) = strategy.as_object_mut() {
                set_default(st, "type", json!("RollingUpdate"));
                if st.get("type") == Some(&json!("RollingUpdate")) {
                    let ru = st.entry("rollingUpdate").or_insert(json!({}));
                    if let Some(ru) = ru.as_object_mut() {
                        set_default(ru, "maxSurge", json!("25%"));
                        set_default(ru, "maxUnavailable", json!("25%"));
                    }
                }
            }
            if let Some(t) = spec.get_mut("template").and_then(|t| t.get_mut("spec")) {
                pod_spec(t);
            }
        }
        "ReplicaSet" => {
            let spec = meta::obj_mut(obj, &["spec"]);
            set_default(spec, "replicas", json!(1));
            if let Some(t) = spec.get_mut("template").and_then(|t| t.get_mut("spec")) {
                pod_spec(t);
            }
        }
        "Pod" => {
            let mirror = meta::at(
                obj,
                &["metadata", "annotations", "kubernetes.io/config.mirror"],
            )
            .is_some();
            if let Some(spec) = obj.get_mut("spec") {
                pod_spec(spec);
                default_toleration_seconds(spec);
                // The ServiceAccount admission plugin (mirror pods may not use one).
                if let (Some(m), false) = (spec.as_object_mut(), mirror) {
                    set_default(m, "serviceAccountName", json!("default"));
                    set_default(m, "serviceAccount", json!("default"));
                }
            }
            let status = meta::obj_mut(obj, &["status"]);
            set_default(status, "phase", json!("Pending"));
            set_default(status, "qosClass", json!("BestEffort"));
        }
        "Namespace" => {
            set_default(
                meta::obj_mut(obj, &["spec"]),
                "finalizers",
                json!(["kubernetes"]),
            );
            set_default(meta::obj_mut(obj, &["status"]), "phase", json!("Active"));
        }
        "Secret" => {
            if let Some(m) = obj.as_object_mut() {
                set_default(m, "type", json!("Opaque"));
                // `stringData` is write-only: merged into `data`, base64-encoded.
                if let Some(Value::Object(string_data)) = m.remove("stringData") {
                    let data = m.entry("data").or_insert_with(|| json!({}));
                    if let Some(d) = data.as_object_mut() {
                        for (k, v) in string_data {
                            let text = v.as_str().unwrap_or("").to_string();
                            d.insert(
                                k,
                                json!(base64::engine::general_purpose::STANDARD.encode(text)),
                            );
                        }
                    }
                }
            }
        }
        _ => {}
    }
    let _ = now;
}
