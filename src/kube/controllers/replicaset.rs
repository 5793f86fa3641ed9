//! The ReplicaSet controller (KK `pkg/controller/replicaset`): as many active pods as
//! `spec.replicas`, created from the template or deleted worst first, and the counts in status.
//! Creates and deletes go through the controller's client rate limit: a ReplicaSet of
//! thousands grows by a burst, then `qps` pods a second, whatever its size.

use super::informers::{IndexName, Informers};
use super::rate_limit::RateLimiter;
use super::{event, owner_ref, soft, Tick};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller, Subresource};
use crate::kube::meta::{self, PODS, REPLICASETS};
use crate::kube::objects::{self, ObjectMeta, Pod, PodTemplate, ReplicaSet};
use serde_json::{json, Value};
use std::sync::Arc;

const NAME: &str = "replicaset-controller";

pub fn sync(
    api: &mut ApiServer,
    world: &mut Cluster,
    informers: &mut Informers,
    client: &mut RateLimiter,
) -> Tick {
    let caller = Caller::component(NAME);
    client.begin_round(world.now());
    let by_controller = informers.pods.indexed(api, IndexName::Controller);
    for (rs_value, rs) in informers.replica_sets.list(api, None) {
        if rs.metadata.is_deleting() {
            continue;
        }
        let ns = rs.metadata.namespace();
        let controlled = by_controller.get(&(rs.metadata.uid().to_string(), ns.to_string()));
        let mut active: Vec<&Arc<Pod>> = (controlled.into_iter().flat_map(|pods| pods.values()))
            .map(|(_, p)| p)
            .filter(|p| p.is_active())
            .collect();
        let diff = rs.replicas() - active.len() as i64;
        if diff > 0 {
            create_pods(
                api,
                (&caller, client),
                world,
                (&rs_value, &rs),
                diff.min(500),
            )?;
        } else if diff < 0 {
            // Worst first: unscheduled, pending, not ready, then the newest (each pod's key
            // read once: a scale-down of thousands sorts them every round).
            active.sort_by_cached_key(|p| {
                let p: &Pod = p;
                (
                    !p.node_name().is_empty(),
                    p.phase() == "Running",
                    p.is_ready(),
                    std::cmp::Reverse(p.metadata.creation_timestamp()),
                    std::cmp::Reverse(p.metadata.name()),
                )
            });
            for pod in active.iter().take((-diff) as usize) {
                if !client.take(world.now()) {
                    break;
                }
                let name = pod.metadata.name();
                soft(api.delete(&caller, world, &PODS, ns, name, false))?;
                let msg = format!("Deleted pod: {name}");
                let reason = ("Normal", "SuccessfulDelete");
                soft(event(api, &caller, world, &rs_value, reason, &msg, NAME))?;
            }
        }
        let generation = rs.metadata.generation.unwrap_or(1);
        update_status(api, &caller, world, &rs_value, &active, generation)?;
    }
    Ok(())
}

/// `count` pods from the template, each with a SuccessfulCreate event; the first refused
/// create (a FailedCreate event), or the client out of tokens, ends the burst.
fn create_pods(
    api: &mut ApiServer,
    (caller, client): (&Caller, &mut RateLimiter),
    world: &mut Cluster,
    (rs_value, rs): (&Value, &ReplicaSet),
    count: i64,
) -> Tick {
    for _ in 0..count {
        if !client.take(world.now()) {
            break;
        }
        match api.create(caller, world, &PODS, pod_from_template(rs_value, rs)) {
            Ok(created) => {
                let msg = format!("Created pod: {}", meta::name(&created));
                let reason = ("Normal", "SuccessfulCreate");
                soft(event(api, caller, world, rs_value, reason, &msg, NAME))?;
            }
            Err(e) if e.code >= 500 => return Err(e),
            Err(e) => {
                let msg = format!("Error creating: {}", e.message);
                let reason = ("Warning", "FailedCreate");
                soft(event(api, caller, world, rs_value, reason, &msg, NAME))?;
                break;
            }
        }
    }
    Ok(())
}

/// A new pod of the ReplicaSet: the template's labels, annotations and spec, owned by it.
fn pod_from_template(rs_value: &Value, rs: &ReplicaSet) -> Value {
    let template = rs.spec.template.clone().unwrap_or_default();
    let PodTemplate { metadata, spec, .. } = template;
    let pod = Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}-", rs.metadata.name())),
            namespace: Some(rs.metadata.namespace().to_string()),
            labels: Some(metadata.labels.unwrap_or_default()),
            annotations: metadata.annotations,
            owner_references: Some(vec![owner_ref(rs_value)]),
            ..ObjectMeta::default()
        },
        spec,
        ..Pod::default()
    };
    let mut pod = objects::to_value(&pod);
    if let Some(o) = pod.as_object_mut() {
        // A new pod has no status yet (the kubelet writes the first).
        o.remove("status");
    }
    pod
}

/// The replica counts, written only when they changed.
fn update_status(
    api: &mut ApiServer,
    caller: &Caller,
    world: &mut Cluster,
    rs_value: &Value,
    active: &[&Arc<Pod>],
    generation: i64,
) -> Tick {
    let ready = active.iter().filter(|p| p.is_ready()).count();
    let mut status = json!({
        "replicas": active.len(),
        "fullyLabeledReplicas": active.len(),
        "readyReplicas": ready,
        "availableReplicas": ready,
        "observedGeneration": generation,
    });
    if let Some(o) = status.as_object_mut() {
        for zero in ["readyReplicas", "availableReplicas", "fullyLabeledReplicas"] {
            if o.get(zero) == Some(&json!(0)) {
                o.remove(zero);
            }
        }
    }
    if rs_value.get("status") != Some(&status) {
        let mut new = rs_value.clone();
        new["status"] = status;
        soft(api.update(caller, world, &REPLICASETS, new, Subresource::Status))?;
    }
    Ok(())
}
