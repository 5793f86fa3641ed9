//! The Deployment controller (KK `pkg/controller/deployment`): the ReplicaSet of the current
//! template (created, or an old one made new again by a rollback), the rolling update within
//! maxSurge and maxUnavailable (or Recreate), the revision history and the status.

use super::informers::Informers;
use super::{edit, event, owner_ref, soft, Tick};
use crate::base::Rng;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller, Subresource};
use crate::kube::meta::{self, DEPLOYMENTS, REPLICASETS};
use crate::kube::objects::{self, Condition, Deployment, ReplicaSet, REVISION};
use serde_json::{json, Value};
use std::sync::Arc;

const NAME: &str = "deployment-controller";
const REVISION_HISTORY: &str = "deployment.kubernetes.io/revision-history";
const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";

pub fn sync(
    api: &mut ApiServer,
    world: &mut Cluster,
    rng: &mut Rng,
    informers: &mut Informers,
) -> Tick {
    let caller = Caller::component(NAME);
    for (value, d) in informers.deployments.list(api, None) {
        if d.metadata.is_deleting() {
            continue;
        }
        let want = d.replicas();
        let (surge, unavailable) = rolling_params(&d, want);
        let mut rollout = Rollout {
            api: &mut *api,
            caller: &caller,
            world: &mut *world,
            informers: &mut *informers,
            value: &value,
            d: &d,
            want,
            surge,
            unavailable,
        };
        rollout.sync(rng)?;
    }
    Ok(())
}

/// One Deployment being synced: where it writes, and its desired counts.
struct Rollout<'a> {
    api: &'a mut ApiServer,
    caller: &'a Caller,
    world: &'a mut Cluster,
    informers: &'a mut Informers,
    /// The Deployment as the cache holds it (what its events are about).
    value: &'a Value,
    d: &'a Deployment,
    want: i64,
    surge: i64,
    unavailable: i64,
}

impl Rollout<'_> {
    /// Its ReplicaSets, oldest first.
    fn replica_sets(&mut self) -> Vec<Arc<ReplicaSet>> {
        let ns = Some(self.d.metadata.namespace());
        let mut all: Vec<Arc<ReplicaSet>> = self
            .informers
            .replica_sets
            .objects(self.api, ns)
            .into_iter()
            .filter(|rs| rs.metadata.controller_uid() == Some(self.d.metadata.uid()))
            .collect();
        all.sort_by_key(|rs| {
            (
                rs.metadata.creation_timestamp().to_string(),
                rs.metadata.name().to_string(),
            )
        });
        all
    }

    fn sync(&mut self, rng: &mut Rng) -> Tick {
        let d = self.d;
        let all = self.replica_sets();
        // The hash is over the template as stored.
        let template = meta::at(self.value, &["spec", "template"])
            .cloned()
            .unwrap_or(json!({}));
        let hash = pod_template_hash(&template, d.status.collision_count.unwrap_or(0));
        let (current, old): (Vec<Arc<ReplicaSet>>, Vec<Arc<ReplicaSet>>) = all
            .iter()
            .cloned()
            .partition(|rs| rs.metadata.label("pod-template-hash") == hash);
        let spec_sum: i64 = all.iter().map(|rs| rs.replicas()).sum();
        let Some(new_rs) = current.into_iter().next() else {
            let count = if d.is_recreate() {
                0
            } else if old.is_empty() {
                self.want
            } else {
                (self.want + self.surge - spec_sum).clamp(0, self.want)
            };
            return self.create_new_rs(rng, template, &hash, &old, count);
        };
        // A rollback (or a template changed back) makes an old ReplicaSet the new one again:
        // it takes the next revision and remembers its former one (deployment controller's
        // `SetNewReplicaSetAnnotations`), and so does the Deployment.
        let max_old = old
            .iter()
            .map(|rs| rs.revision().unwrap_or(0))
            .max()
            .unwrap_or(0);
        if new_rs.revision().unwrap_or(0) <= max_old {
            return self.take_next_revision(&new_rs, max_old + 1);
        }
        let new_spec = new_rs.replicas();
        let target = self.new_rs_target(&old, new_spec, spec_sum);
        if target != new_spec {
            self.scale_rs(&new_rs, target)?;
        } else {
            self.scale_old_down(&all, &old, &new_rs, spec_sum)?;
        }
        self.cleanup_history(&old)?;
        self.update_status(new_rs.metadata.name())
    }

    /// What the new ReplicaSet scales to: up within maxSurge, or down to the desired count
    /// (with Recreate, only once the old ones have no pods left).
    fn new_rs_target(&self, old: &[Arc<ReplicaSet>], new_spec: i64, spec_sum: i64) -> i64 {
        let want = self.want;
        if self.d.is_recreate() {
            if old
                .iter()
                .any(|rs| rs.replicas() > 0 || rs.status_replicas() > 0)
            {
                new_spec
            } else {
                want
            }
        } else if new_spec > want {
            want
        } else if new_spec < want {
            let room = (want + self.surge - spec_sum).max(0);
            new_spec + room.min(want - new_spec)
        } else {
            new_spec
        }
    }

    /// Old ReplicaSets scaled down as far as availability allows: first their unhealthy
    /// replicas, then healthy ones down to minAvailable.
    fn scale_old_down(
        &mut self,
        all: &[Arc<ReplicaSet>],
        old: &[Arc<ReplicaSet>],
        new_rs: &ReplicaSet,
        spec_sum: i64,
    ) -> Tick {
        let recreate = self.d.is_recreate();
        let min_available = self.want - self.unavailable;
        let new_unavailable = new_rs.replicas() - new_rs.available();
        let mut budget = if recreate {
            i64::MAX
        } else {
            spec_sum - min_available - new_unavailable
        };
        if budget <= 0 {
            return Ok(());
        }
        let available: i64 = all.iter().map(|rs| rs.available()).sum();
        let mut healthy_budget = if recreate {
            i64::MAX
        } else {
            available - min_available
        };
        for rs in old {
            let spec = rs.replicas();
            if spec == 0 || budget <= 0 {
                continue;
            }
            let unhealthy = spec - rs.available();
            let mut down = unhealthy.clamp(0, budget);
            let healthy_down = (spec - down).min(healthy_budget.max(0)).min(budget - down);
            down += healthy_down.max(0);
            healthy_budget -= healthy_down.max(0);
            if down > 0 {
                self.scale_rs(rs, spec - down)?;
                budget -= down;
            }
        }
        Ok(())
    }

    /// The ReplicaSet made new again takes revision `next` (its former one goes into its
    /// revision history), and so does the Deployment.
    fn take_next_revision(&mut self, rs: &ReplicaSet, next: i64) -> Tick {
        let current = rs.revision().unwrap_or(0);
        let next = next.to_string();
        let (ns, name) = (rs.metadata.namespace(), rs.metadata.name());
        soft(
            self.api
                .guaranteed_update(self.caller, self.world, &REPLICASETS, ns, name, |cur| {
                    Ok(edit(cur, |rs: &mut ReplicaSet| {
                        let history = match rs.metadata.annotation(REVISION_HISTORY) {
                            None | Some("") => current.to_string(),
                            Some(history) => format!("{history},{current}"),
                        };
                        rs.metadata.annotate(REVISION_HISTORY, history);
                        rs.metadata.annotate(REVISION, next.clone());
                    }))
                }),
        )?;
        let mut d = self.d.clone();
        d.metadata.annotate(REVISION, next);
        let d = objects::to_value(&d);
        soft(
            self.api
                .update(self.caller, self.world, &DEPLOYMENTS, d, Subresource::Main),
        )
    }

    /// The ReplicaSet of the current template, at the next revision (a name taken by another
    /// template raises the Deployment's collisionCount instead).
    fn create_new_rs(
        &mut self,
        rng: &mut Rng,
        template: Value,
        hash: &str,
        old: &[Arc<ReplicaSet>],
        count: i64,
    ) -> Tick {
        let revision = old.iter().filter_map(|rs| rs.revision()).max().unwrap_or(0) + 1;
        let rs = self.new_rs_object(template, hash, count, revision);
        let name = meta::name(&rs).to_string();
        match self.api.create(self.caller, self.world, &REPLICASETS, rs) {
            Ok(_) => {}
            Err(e) if e.reason == "AlreadyExists" => {
                // A hash collision: the next hash is computed with a higher collisionCount.
                let mut d = self.d.clone();
                d.status.collision_count = Some(d.status.collision_count.unwrap_or(0) + 1);
                let d = objects::to_value(&d);
                return soft(self.api.update(
                    self.caller,
                    self.world,
                    &DEPLOYMENTS,
                    d,
                    Subresource::Status,
                ));
            }
            Err(e) => return soft(Err::<(), _>(e)),
        }
        if count > 0 {
            let msg = format!("Scaled up replica set {name} to {count}");
            self.event(&msg)?;
        }
        let mut d = self.d.clone();
        d.metadata.annotate(REVISION, revision.to_string());
        let d = objects::to_value(&d);
        soft(
            self.api
                .update(self.caller, self.world, &DEPLOYMENTS, d, Subresource::Main),
        )?;
        let _ = rng.next_u64();
        Ok(())
    }

    /// The new ReplicaSet: the template and selector with the pod-template-hash label.
    fn new_rs_object(&self, mut template: Value, hash: &str, count: i64, revision: i64) -> Value {
        let d = self.d;
        meta::obj_mut(&mut template, &["metadata", "labels"])
            .insert("pod-template-hash".into(), json!(hash));
        let labels = template["metadata"]["labels"].clone();
        let mut selector = d.spec.selector.clone().unwrap_or(json!({}));
        meta::obj_mut(&mut selector, &["matchLabels"])
            .insert("pod-template-hash".into(), json!(hash));
        json!({
            "metadata": {
                "name": format!("{}-{hash}", d.metadata.name()),
                "namespace": d.metadata.namespace(),
                "labels": labels,
                "annotations": {
                    DESIRED_REPLICAS: d.replicas().to_string(),
                    MAX_REPLICAS: (self.want + self.surge).to_string(),
                    REVISION: revision.to_string(),
                },
                "ownerReferences": [owner_ref(self.value)],
            },
            "spec": {"replicas": count, "selector": selector, "template": template,
                "minReadySeconds": d.spec.min_ready_seconds.unwrap_or(0)},
        })
    }

    fn scale_rs(&mut self, rs: &ReplicaSet, to: i64) -> Tick {
        let from = rs.replicas();
        let mut new = ReplicaSet::clone(rs);
        new.spec.replicas = Some(to);
        new.metadata
            .annotate(DESIRED_REPLICAS, self.d.replicas().to_string());
        new.metadata
            .annotate(MAX_REPLICAS, (self.want + self.surge).to_string());
        let new = objects::to_value(&new);
        let result = self.api.update(
            self.caller,
            self.world,
            &REPLICASETS,
            new,
            Subresource::Main,
        );
        let ok = result.is_ok();
        soft(result)?;
        if ok {
            let dir = if to > from { "up" } else { "down" };
            let name = rs.metadata.name();
            self.event(&format!(
                "Scaled {dir} replica set {name} to {to} from {from}"
            ))?;
        }
        Ok(())
    }

    /// A ScalingReplicaSet event about the Deployment.
    fn event(&mut self, message: &str) -> Tick {
        let reason = ("Normal", "ScalingReplicaSet");
        soft(event(
            self.api,
            self.caller,
            self.world,
            self.value,
            reason,
            message,
            NAME,
        ))
    }

    /// Old ReplicaSets scaled to zero beyond `revisionHistoryLimit` are deleted.
    fn cleanup_history(&mut self, old: &[Arc<ReplicaSet>]) -> Tick {
        let limit = self.d.spec.revision_history_limit.unwrap_or(10).max(0) as usize;
        let idle: Vec<&Arc<ReplicaSet>> = old
            .iter()
            .filter(|rs| rs.replicas() == 0 && rs.status_replicas() == 0)
            .collect();
        if idle.len() <= limit {
            return Ok(());
        }
        for rs in &idle[..idle.len() - limit] {
            let (ns, name) = (rs.metadata.namespace(), rs.metadata.name());
            soft(
                self.api
                    .delete(self.caller, self.world, &REPLICASETS, ns, name, false),
            )?;
        }
        Ok(())
    }

    /// The replica counts and the Available and Progressing conditions, written only when
    /// they changed.
    fn update_status(&mut self, new_rs: &str) -> Tick {
        let d = self.d;
        let all = self.replica_sets();
        let sum = |f: fn(&ReplicaSet) -> i64| all.iter().map(|rs| f(rs)).sum::<i64>();
        let new = all.iter().find(|rs| rs.metadata.name() == new_rs);
        let want = self.want;
        let available = sum(ReplicaSet::available);
        let updated = new.map_or(0, |rs| rs.status_replicas());
        let total = sum(ReplicaSet::status_replicas);
        let conditions = Conditions {
            old: d.status.conditions.as_deref().unwrap_or_default(),
            now: meta::timestamp(self.world.now()),
        };
        let available_cond = if available >= want - self.unavailable {
            conditions.make(
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
            )
        } else {
            conditions.make(
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
            )
        };
        let complete = updated == want
            && total == want
            && available == want
            && new.is_some_and(|rs| rs.available() == want);
        let progressing = if complete {
            let message = format!("ReplicaSet \"{new_rs}\" has successfully progressed.");
            conditions.make("Progressing", "True", "NewReplicaSetAvailable", message)
        } else if conditions.old.is_empty() {
            let message = format!("Created new replica set \"{new_rs}\"");
            conditions.make("Progressing", "True", "NewReplicaSetCreated", message)
        } else {
            let message = format!("ReplicaSet \"{new_rs}\" is progressing.");
            conditions.make("Progressing", "True", "ReplicaSetUpdated", message)
        };
        let mut status = json!({
            "observedGeneration": d.metadata.generation.unwrap_or(1),
            "replicas": total,
            "updatedReplicas": updated,
            "readyReplicas": sum(|rs| rs.status.ready_replicas.unwrap_or(0)),
            "availableReplicas": available,
            "unavailableReplicas": (want - available).max(0),
            "conditions": [available_cond, progressing],
        });
        if let Some(c) = d.status.collision_count {
            status["collisionCount"] = json!(c);
        }
        if let Some(o) = status.as_object_mut() {
            o.retain(|_, v| v != &json!(0));
            if !o.contains_key("observedGeneration") {
                o.insert("observedGeneration".into(), json!(0));
            }
        }
        if self.value.get("status") != Some(&status) {
            let mut new = self.value.clone();
            new["status"] = status;
            soft(self.api.update(
                self.caller,
                self.world,
                &DEPLOYMENTS,
                new,
                Subresource::Status,
            ))?;
        }
        Ok(())
    }
}

/// A Deployment's conditions as they were, and the time now: a condition keeps its
/// lastTransitionTime while its status stays, and its lastUpdateTime while nothing changes.
struct Conditions<'a> {
    old: &'a [Condition],
    now: String,
}

impl Conditions<'_> {
    fn make(&self, kind: &str, status: &str, reason: &str, message: String) -> Value {
        let prev = self.old.iter().find(|c| c.kind == kind);
        let same_status = prev.is_some_and(|c| c.status == status);
        let unchanged = same_status
            && prev.is_some_and(|c| c.reason.as_deref() == Some(reason))
            && prev.is_some_and(|c| c.message.as_deref() == Some(message.as_str()));
        let kept = |time: Option<&Option<String>>| time.map_or(json!(self.now), |t| json!(t));
        let transition = if same_status {
            kept(prev.and_then(|c| c.last_transition_time.as_ref()))
        } else {
            json!(self.now)
        };
        let update = if unchanged {
            kept(prev.and_then(|c| c.last_update_time.as_ref()))
        } else {
            json!(self.now)
        };
        json!({"type": kind, "status": status, "reason": reason, "message": message,
            "lastUpdateTime": update, "lastTransitionTime": transition})
    }
}

/// maxSurge and maxUnavailable resolved against `replicas` (surge rounds up, unavailable
/// down; both zero means one unavailable).
pub fn rolling_params(d: &Deployment, replicas: i64) -> (i64, i64) {
    if d.is_recreate() {
        return (0, replicas);
    }
    let resolve = |v: Option<&Value>, up: bool| -> i64 {
        let pct = match v {
            Some(Value::Number(n)) => return n.as_i64().unwrap_or(0),
            Some(Value::String(s)) => s.trim_end_matches('%').parse::<i64>().unwrap_or(25),
            _ => 25,
        };
        if up {
            (pct * replicas + 99) / 100
        } else {
            pct * replicas / 100
        }
    };
    let ru = d
        .spec
        .strategy
        .as_ref()
        .and_then(|s| s.rolling_update.as_ref());
    let surge = resolve(ru.and_then(|r| r.max_surge.as_ref()), true);
    let unavailable = resolve(ru.and_then(|r| r.max_unavailable.as_ref()), false);
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
