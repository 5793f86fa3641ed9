//! kube-scheduler: each unbound pod goes to the least loaded node that fits it (ties broken
//! at random); a pod no node fits stays Pending and is tried again after a backoff. Each
//! attempt is a request to the API server, within the scheduler's client rate limit.

use super::informers::Informers;
use super::rate_limit::{self, RateLimiter};
use super::{edit, event, soft, Tick, Waiting};
use crate::base::{Millis, Rng};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, ApiError, PODS};
use crate::kube::objects::{self, Condition, Node, Pod};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const NAME: &str = "default-scheduler";

#[derive(Clone, Debug)]
pub struct Scheduler {
    /// The backoff for pods no node fits, per pod key: (next attempt, current backoff).
    unschedulable: BTreeMap<String, (Millis, Millis)>,
    client: RateLimiter,
}

impl Default for Scheduler {
    fn default() -> Scheduler {
        Scheduler {
            unschedulable: BTreeMap::new(),
            client: RateLimiter::new(rate_limit::SCHEDULER, 0),
        }
    }
}

/// Why a node does not fit a pod, and whether preempting pods there could help (a full node)
/// or not (a taint, a cordon: `UnschedulableAndUnresolvable`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Unfit {
    why: String,
    preemption_may_help: bool,
}

/// Per node, why it does not fit a pod (None: it fits).
type Verdicts = Vec<(String, Option<Unfit>)>;

/// A kubelet's `maxPods` (110), as its Node's `status.allocatable.pods` says it.
fn max_pods(node: &Node) -> usize {
    node.status
        .rest
        .get("allocatable")
        .and_then(|a| a.get("pods"))
        .and_then(Value::as_str)
        .and_then(|n| n.parse().ok())
        .unwrap_or(110)
}

impl Scheduler {
    /// One round: each pending pod bound to the least loaded node that fits it, or told why
    /// none does; whether a pod still waits for a node (its next try follows the clock).
    pub fn sync(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        rng: &mut Rng,
        informers: &mut Informers,
    ) -> Result<Waiting, ApiError> {
        let caller = Caller::component(NAME);
        let pods = informers.pods.list(api, None);
        let nodes = informers.nodes.objects(api, None);
        let mut load: BTreeMap<String, usize> = nodes
            .iter()
            .map(|n| (n.metadata.name().to_string(), 0))
            .collect();
        for (_, p) in &pods {
            if let Some(n) = load.get_mut(p.node_name()) {
                *n += usize::from(p.is_active());
            }
        }
        let pending: Vec<String> = pods.iter().map(|(_, p)| p.key()).collect();
        self.unschedulable.retain(|k, _| pending.contains(k));
        let mut waiting = false;
        for (value, pod) in pods {
            if !pod.node_name().is_empty() || !pod.is_active() {
                continue;
            }
            waiting = true;
            let key = pod.key();
            if self
                .unschedulable
                .get(&key)
                .is_some_and(|(next, _)| world.now() < *next)
            {
                continue;
            }
            if !self.client.take(world.now()) {
                return Ok(true);
            }
            // The filters: NodeUnschedulable, TaintToleration, then NodeResourcesFit's pod
            // count; a node that fails says why.
            let verdicts: Verdicts = nodes
                .iter()
                .map(|n| {
                    let name = n.metadata.name().to_string();
                    let on_it = load.get(&name).copied().unwrap_or(0);
                    (name, unfit_reason(n, &pod, on_it))
                })
                .collect();
            let fits = |node: &str| verdicts.iter().any(|(n, why)| n == node && why.is_none());
            let Some(least) = load.iter().filter(|(k, _)| fits(k)).map(|(_, n)| *n).min() else {
                self.failed_scheduling(api, &caller, world, (&value, &pod), &verdicts)?;
                continue;
            };
            self.unschedulable.remove(&key);
            let best: Vec<String> = load
                .iter()
                .filter(|(k, n)| **n == least && fits(k))
                .map(|(k, _)| k.clone())
                .collect();
            let Some(node) = rng.pick(&best).cloned() else {
                return Ok(true);
            };
            if bind(api, &caller, world, (&value, &pod), &node)? {
                *load.entry(node).or_default() += 1;
            }
        }
        Ok(waiting)
    }

    /// No node fits: the pod stays Pending with PodScheduled=False/Unschedulable and a
    /// FailedScheduling event saying why each node did not fit, tried again after a backoff
    /// (1 s doubling to 10 s, the scheduler's podInitialBackoff and podMaxBackoff).
    fn failed_scheduling(
        &mut self,
        api: &mut ApiServer,
        caller: &Caller,
        world: &mut Cluster,
        (involved, pod): (&Value, &Pod),
        verdicts: &Verdicts,
    ) -> Tick {
        let now = world.now();
        let key = pod.key();
        let backoff = self
            .unschedulable
            .get(&key)
            .map_or(1_000, |(_, b)| (b * 2).min(10_000));
        self.unschedulable.insert(key, (now + backoff, backoff));
        let unfit: Vec<&Unfit> = verdicts.iter().filter_map(|(_, u)| u.as_ref()).collect();
        let total = verdicts.len();
        let reasons = histogram(unfit.iter().map(|u| u.why.as_str()));
        let preemption = histogram(unfit.iter().map(|u| {
            if u.preemption_may_help {
                "No preemption victims found for incoming pod"
            } else {
                "Preemption is not helpful for scheduling"
            }
        }));
        let message = format!(
            "0/{total} nodes are available: {reasons}. preemption: 0/{total} nodes are available: {preemption}."
        );
        let (ns, name) = (pod.metadata.namespace(), pod.metadata.name());
        let unschedulable = json!([{"type": "PodScheduled", "status": "False", "lastProbeTime": null,
            "lastTransitionTime": meta::timestamp(now), "reason": "Unschedulable", "message": message}]);
        let unschedulable: Option<Vec<Condition>> = objects::from_value(&unschedulable);
        soft(
            api.guaranteed_update(caller, world, &PODS, ns, name, |cur| {
                Ok(edit(cur, |p: &mut Pod| {
                    let first = p.status.conditions.as_ref().and_then(|c| c.first());
                    if first.and_then(|c| c.message.as_deref()) != Some(message.as_str()) {
                        p.status.conditions = unschedulable.clone();
                    }
                }))
            }),
        )?;
        let reason = ("Warning", "FailedScheduling");
        soft(event(api, caller, world, involved, reason, &message, NAME))
    }
}

/// Binds `pod` to `node` (a Conflict when another scheduler bound it first) and records the
/// Scheduled event; whether it was bound.
fn bind(
    api: &mut ApiServer,
    caller: &Caller,
    world: &mut Cluster,
    (involved, pod): (&Value, &Pod),
    node: &str,
) -> Result<bool, ApiError> {
    let (ns, name) = (pod.metadata.namespace(), pod.metadata.name());
    let now = world.now();
    let bound = api.guaranteed_update(caller, world, &PODS, ns, name, |cur| {
        let assigned = meta::str_at(cur, &["spec", "nodeName"]);
        if !assigned.is_empty() {
            return Err(ApiError {
                code: 409,
                reason: "Conflict",
                message: format!("pod {name} is already assigned to node {assigned}"),
            });
        }
        let scheduled = json!([{"type": "PodScheduled", "status": "True", "lastProbeTime": null,
            "lastTransitionTime": meta::timestamp(now)}]);
        Ok(edit(cur, |p: &mut Pod| {
            p.spec.node_name = Some(node.to_string());
            p.status.conditions = objects::from_value(&scheduled);
        }))
    });
    let ok = bound.is_ok();
    soft(bound)?;
    if ok {
        let msg = format!("Successfully assigned {ns}/{name} to {node}");
        soft(event(
            api,
            caller,
            world,
            involved,
            ("Normal", "Scheduled"),
            &msg,
            NAME,
        ))?;
    }
    Ok(ok)
}

/// `FitError`'s histogram: `N reason` per reason, sorted as strings (`sort.Strings`).
fn histogram<'a>(reasons: impl Iterator<Item = &'a str>) -> String {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for why in reasons {
        *counts.entry(why).or_default() += 1;
    }
    let mut listed: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    listed.sort();
    listed.join(", ")
}

/// Why the scheduler's filters reject `node` for `pod` (as its FailedScheduling message words
/// it), or None when the pod fits: a cordoned node, a NoSchedule/NoExecute taint the pod does
/// not tolerate, then a node that already holds `on_it` pods, its most.
fn unfit_reason(node: &Node, pod: &Pod, on_it: usize) -> Option<Unfit> {
    let unresolvable = |why: String| {
        Some(Unfit {
            why,
            preemption_may_help: false,
        })
    };
    if node.spec.unschedulable == Some(true) {
        return unresolvable("node(s) were unschedulable".into());
    }
    let tolerations = pod.spec.tolerations.as_deref().unwrap_or_default();
    let untolerated = node.spec.taints.iter().flatten().find(|t| {
        matches!(t.effect.as_str(), "NoSchedule" | "NoExecute")
            && !tolerations.iter().any(|tol| tol.tolerates(t))
    });
    if let Some(t) = untolerated {
        return unresolvable(format!(
            "node(s) had untolerated taint {{{}: {}}}",
            t.key,
            t.value()
        ));
    }
    (on_it >= max_pods(node)).then(|| Unfit {
        why: "Too many pods".into(),
        preemption_may_help: true,
    })
}

#[cfg(test)]
mod tests {
    use crate::etcd::{Cluster, ClusterConfig};
    use crate::kube::meta::{DEPLOYMENTS, PODS};
    use crate::kube::{Caller, ControlPlane, TICK_MS};
    use serde_json::json;

    /// The newest revision any member has applied: one per etcd write.
    fn revision(w: &Cluster) -> i64 {
        let members = w.member_ids();
        let revisions = members.iter().filter_map(|m| w.process(*m));
        revisions.map(|m| m.store.revision()).max().unwrap_or(0)
    }

    /// A Deployment of `replicas` run for `seconds`: per control-plane tick, the most etcd
    /// writes and the most simulator events, from `warm_s` seconds on; and the pods there are
    /// at the end.
    fn cost(replicas: u64, seconds: u64, warm_s: u64) -> (i64, u64, usize) {
        let mut w = ClusterConfig::new(3, 1).build();
        assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
        let mut cp = ControlPlane::up(&mut w, 1, crate::etcd::Preset::Members).expect("kube up");
        let web = json!({"metadata": {"name": "web"}, "spec": {"replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
        let caller = Caller::component("kube-apiserver");
        cp.api
            .create(&caller, &mut w, &DEPLOYMENTS, web)
            .expect("created");
        let start = w.now();
        let (mut writes, mut events) = (0, 0);
        while w.now() < start + seconds * 1000 {
            let (rev, steps, now) = (revision(&w), w.steps(), w.now());
            cp.run_until(&mut w, now + TICK_MS);
            if now >= start + warm_s * 1000 {
                writes = writes.max(revision(&w) - rev);
                events = events.max(w.steps() - steps);
            }
        }
        (writes, events, cp.api.list_cached(&PODS, None).len())
    }

    /// Issue 15: a replica count the nodes cannot hold does not make a tick's work grow. The
    /// ReplicaSet controller creates a burst of 30 pods, then 20 a second, and the scheduler
    /// binds at most a burst of 100, then 50 a second, so 100,000 replicas cost a tick exactly
    /// what 1,000 do, and the worst tick is the kubelets starting one burst of bound pods.
    #[test]
    fn a_huge_replica_count_costs_a_bounded_amount_per_tick() {
        let huge = cost(100_000, 7, 0);
        let thousand = cost(1_000, 7, 0);
        println!("100000 replicas: (writes, events) per tick at most, pods: {huge:?}");
        println!("1000 replicas: {thousand:?}");
        assert_eq!(huge, thousand);
        let (writes, _, pods) = huge;
        // 7 s and the last tick: at most 8 s of tokens after the burst.
        assert!(pods <= 30 + 20 * 8, "{pods} pods in 7 s");
        assert!(pods > 100, "{pods} pods: the controller kept creating");
        assert!(writes <= 500, "{writes} writes in one tick");
    }
}
