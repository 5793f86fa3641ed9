//! kube-scheduler: each unbound pod goes to the least loaded node that fits it (ties broken
//! at random). A pod no node fits stays Pending, parked (the scheduling queue's
//! unschedulablePods) until the cluster changes in a way that lets it fit (a node added,
//! uncordoned or untainted, a pod leaving a full node) or five minutes pass, then tried again
//! after its backoff. Each attempt is a request to the API server, within the scheduler's
//! client rate limit.

use super::informers::{IndexName, Informers, Listing};
use super::rate_limit::{self, RateLimiter};
use super::{edit, event, soft, Tick, Waiting};
use crate::base::{Millis, Rng};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, ApiError, PODS};
use crate::kube::objects::{self, Condition, Node, Pod, Taint};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::Arc;

const NAME: &str = "default-scheduler";
/// The scheduling queue's podInitialBackoff and podMaxBackoff: 1 s doubling to 10 s.
const BACKOFF_MS: (Millis, Millis) = (1_000, 10_000);
/// `podMaxInUnschedulablePodsDuration`: a parked pod is tried again after this long even when
/// nothing that could help it changed.
const PARKED_MAX_MS: Millis = 5 * 60_000;
/// How often the queue looks for pods parked that long (`flushUnschedulablePodsLeftover`).
const FLUSH_EVERY_MS: Millis = 30_000;

#[derive(Clone, Debug)]
pub struct Scheduler {
    /// The pending pods to try at the next round (the scheduling queue's activeQ: new pods,
    /// and those a round had no tokens left for), by their key in the watch cache.
    queued: BTreeSet<String>,
    /// The pods no node fitted at their last attempt, by their key in the watch cache. Every
    /// pending pod is in one of the two, and only pending pods are.
    unplaced: BTreeMap<String, Unplaced>,
    /// The cache state the two follow (None: sorted out again from every pod).
    seen: Option<u64>,
    /// Each node as the last round saw it, to tell a change that may let a parked pod fit.
    nodes_seen: BTreeMap<String, NodeFacts>,
    last_flush: Millis,
    client: RateLimiter,
}

impl Default for Scheduler {
    fn default() -> Scheduler {
        Scheduler {
            queued: BTreeSet::new(),
            unplaced: BTreeMap::new(),
            seen: None,
            nodes_seen: BTreeMap::new(),
            last_flush: 0,
            client: RateLimiter::new(rate_limit::SCHEDULER, 0),
        }
    }
}

/// A pod no node fitted: its failed attempts, the last one's time, and since when it has been
/// parked (None once a change in the cluster or the flush moved it to the backoff queue).
#[derive(Clone, Debug, PartialEq)]
struct Unplaced {
    attempts: u32,
    last_try: Millis,
    parked_since: Option<Millis>,
}

impl Unplaced {
    /// Out of the park and past its backoff (1 s after the first failure, doubling).
    fn due(&self, now: Millis) -> bool {
        let doublings = self.attempts.saturating_sub(1).min(16);
        let backoff = (BACKOFF_MS.0 << doublings).min(BACKOFF_MS.1);
        self.parked_since.is_none() && now >= self.last_try + backoff
    }
}

/// What the filters read of a node: its cordon, its taints, its room and the pods on it.
#[derive(Clone, Debug, PartialEq)]
struct NodeFacts {
    unschedulable: Option<bool>,
    taints: Option<Vec<Taint>>,
    max_pods: usize,
    load: usize,
}

impl NodeFacts {
    /// Whether going from `before` to `self` may let a pod fit that did not (the scheduler's
    /// queueing hints: a node added, uncordoned, a taint gone, room made on it).
    fn may_help(&self, before: Option<&NodeFacts>) -> bool {
        let Some(b) = before else {
            return true;
        };
        let taints = |f: &NodeFacts| f.taints.clone().unwrap_or_default();
        let (was, is) = (taints(b), taints(self));
        (b.unschedulable == Some(true) && self.unschedulable != Some(true))
            || was.iter().any(|t| !is.contains(t))
            || self.max_pods > b.max_pods
            || self.load < b.load
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
        self.client.begin_round(world.now());
        let pods = informers.pods.all(api);
        let on_nodes = informers.pods.indexed(api, IndexName::Node);
        let nodes = informers.nodes.objects(api, None);
        let mut load: BTreeMap<String, usize> = (nodes.iter())
            .map(|n| {
                let name = n.metadata.name().to_string();
                let on_it = on_nodes.get(&(name.clone(), String::new()));
                let active = on_it.iter().flat_map(|pods| pods.values());
                (name, active.filter(|(_, p)| p.is_active()).count())
            })
            .collect();
        let now = world.now();
        self.follow(api, &pods);
        let waiting = !self.queued.is_empty() || !self.unplaced.is_empty();
        self.unpark(&pods, &nodes, &load, now);
        let mut cursor = Cursor::start(self, now);
        while let Some(key) = cursor.next(self, now) {
            let Some((value, pod)) = pods.get(&key) else {
                continue;
            };
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
                    (name, unfit_reason(n, pod, on_it))
                })
                .collect();
            let fits = |node: &str| verdicts.iter().any(|(n, why)| n == node && why.is_none());
            let Some(least) = load.iter().filter(|(k, _)| fits(k)).map(|(_, n)| *n).min() else {
                self.queued.remove(&key);
                self.failed_scheduling(api, &caller, world, (&key, value, pod), &verdicts)?;
                continue;
            };
            // Queued until the cache shows it bound (a bind refused tries again next round).
            self.unplaced.remove(&key);
            self.queued.insert(key.clone());
            let best: Vec<String> = load
                .iter()
                .filter(|(k, n)| **n == least && fits(k))
                .map(|(k, _)| k.clone())
                .collect();
            let Some(node) = rng.pick(&best).cloned() else {
                return Ok(true);
            };
            if bind(api, &caller, world, (value, pod), &node)? {
                *load.entry(node).or_default() += 1;
            }
        }
        Ok(waiting)
    }

    /// Sorts the pods the cache changed since the last round into the queue, the unplaced, or
    /// neither (bound, gone, finished); from every pod when the cache's history does not reach
    /// back to that round.
    fn follow(&mut self, api: &ApiServer, pods: &Listing<Pod>) {
        let changed = self.seen.and_then(|seen| api.changes_since(seen));
        match changed {
            Some(keys) => {
                for key in keys {
                    let pending = pods.get(key).is_some_and(|(_, p)| is_pending(p));
                    if !pending {
                        self.queued.remove(key);
                        self.unplaced.remove(key);
                    } else if !self.unplaced.contains_key(key) {
                        self.queued.insert(key.to_string());
                    }
                }
            }
            None => self.sort_out(pods),
        }
        self.seen = Some(api.cache_stamp());
    }

    /// Every pending pod queued but those still unplaced, walking the pods and the unplaced
    /// in their common order.
    fn sort_out(&mut self, pods: &Listing<Pod>) {
        let pending = (pods.iter())
            .filter(|(_, (_, p))| is_pending(p))
            .map(|(k, _)| k);
        let mut unplaced = std::mem::take(&mut self.unplaced).into_iter().peekable();
        self.queued.clear();
        for key in pending {
            while unplaced.next_if(|(u, _)| u < key).is_some() {}
            match unplaced.next_if(|(u, _)| u == key) {
                Some((key, u)) => {
                    self.unplaced.insert(key, u);
                }
                None => {
                    self.queued.insert(key.clone());
                }
            }
        }
    }

    /// The next pod to try after `after` in the cache's order (the first when None): the
    /// next queued one, or `due`, the next unplaced one past its backoff, if it comes first.
    fn next_to_try(&self, after: Option<&str>, due: Option<&str>) -> Option<String> {
        let queued = self.queued.range::<str, _>(from(after)).next();
        match (queued.map(String::as_str), due) {
            (Some(q), Some(d)) => Some(q.min(d)),
            (q, d) => q.or(d),
        }
        .map(str::to_string)
    }

    /// The first unplaced pod after `after` past its backoff at `now`.
    fn next_due(&self, after: Option<&str>, now: Millis) -> Option<String> {
        let unplaced = self.unplaced.range::<str, _>(from(after));
        let due = unplaced.filter(|(_, u)| u.due(now)).map(|(k, _)| k).next();
        due.cloned()
    }

    /// Moves parked pods to the backoff queue: those a change in the nodes since the last
    /// round lets fit, and at each flush those parked for longer than the longest park.
    fn unpark(
        &mut self,
        pods: &Listing<Pod>,
        nodes: &[Arc<Node>],
        load: &BTreeMap<String, usize>,
        now: Millis,
    ) {
        let facts: BTreeMap<String, NodeFacts> = nodes
            .iter()
            .map(|n| {
                let name = n.metadata.name().to_string();
                let facts = NodeFacts {
                    unschedulable: n.spec.unschedulable,
                    taints: n.spec.taints.clone(),
                    max_pods: max_pods(n),
                    load: load.get(&name).copied().unwrap_or(0),
                };
                (name, facts)
            })
            .collect();
        let helped = facts
            .iter()
            .any(|(name, f)| f.may_help(self.nodes_seen.get(name)));
        self.nodes_seen = facts;
        let flush = now >= self.last_flush + FLUSH_EVERY_MS;
        if flush {
            self.last_flush = now - now % FLUSH_EVERY_MS;
        }
        if !helped && !flush {
            return;
        }
        for (key, u) in &mut self.unplaced {
            let Some(since) = u.parked_since else {
                continue;
            };
            let fits_now = || {
                pods.get(key).is_some_and(|(_, pod)| {
                    nodes.iter().any(|n| {
                        let on_it = load.get(n.metadata.name()).copied().unwrap_or(0);
                        unfit_reason(n, pod, on_it).is_none()
                    })
                })
            };
            if (flush && now > since + PARKED_MAX_MS) || (helped && fits_now()) {
                u.parked_since = None;
            }
        }
    }

    /// No node fits: the pod stays Pending with PodScheduled=False/Unschedulable and a
    /// FailedScheduling event saying why each node did not fit, and is parked.
    fn failed_scheduling(
        &mut self,
        api: &mut ApiServer,
        caller: &Caller,
        world: &mut Cluster,
        (key, involved, pod): (&str, &Value, &Pod),
        verdicts: &Verdicts,
    ) -> Tick {
        let now = world.now();
        let fresh = Unplaced {
            attempts: 0,
            last_try: now,
            parked_since: None,
        };
        let unplaced = self.unplaced.entry(key.to_string()).or_insert(fresh);
        unplaced.attempts += 1;
        unplaced.last_try = now;
        unplaced.parked_since = Some(now);
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

/// Where a round is in the pods it tries: each queued pod and each unplaced one past its
/// backoff, in the cache's order. A round changes the two only at the pod it is on, so the
/// next one due is found once for each stretch of queued pods before it.
struct Cursor {
    after: Option<String>,
    due: Option<String>,
}

impl Cursor {
    fn start(scheduler: &Scheduler, now: Millis) -> Cursor {
        let due = scheduler.next_due(None, now);
        Cursor { after: None, due }
    }

    fn next(&mut self, scheduler: &Scheduler, now: Millis) -> Option<String> {
        let key = scheduler.next_to_try(self.after.as_deref(), self.due.as_deref())?;
        if self.due.as_ref() == Some(&key) {
            self.due = scheduler.next_due(Some(&key), now);
        }
        self.after = Some(key.clone());
        Some(key)
    }
}

/// The keys after `after` (all when None).
fn from(after: Option<&str>) -> (Bound<&str>, Bound<&str>) {
    (
        after.map_or(Bound::Unbounded, Bound::Excluded),
        Bound::Unbounded,
    )
}

/// Waiting for a node: not bound, not finished, not being deleted.
fn is_pending(pod: &Pod) -> bool {
    pod.node_name().is_empty() && pod.is_active()
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
    /// writes, the most simulator events and the longest virtual time, from `warm_s` seconds
    /// on; and the pods there are at the end.
    fn cost(replicas: u64, seconds: u64, warm_s: u64) -> (i64, u64, u64, usize) {
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
        let (mut writes, mut events, mut span) = (0, 0, 0);
        while w.now() < start + seconds * 1000 {
            let (rev, steps, now) = (revision(&w), w.steps(), w.now());
            cp.run_until(&mut w, now + TICK_MS);
            if now >= start + warm_s * 1000 {
                writes = writes.max(revision(&w) - rev);
                events = events.max(w.steps() - steps);
                span = span.max(w.now() - now);
            }
        }
        let pods = cp.api.list_cached(&PODS, None).len();
        (writes, events, span, pods)
    }

    /// Issue 15: a replica count the nodes cannot hold does not make a tick's work grow. The
    /// ReplicaSet controller creates a burst of 30 pods, then 20 a second, and the scheduler
    /// binds at most a burst of 100, then 50 a second, so 100,000 replicas cost a tick exactly
    /// what 1,000 do, and the worst tick is the kubelets starting one burst of bound pods.
    #[test]
    fn a_huge_replica_count_costs_a_bounded_amount_per_tick() {
        let huge = cost(100_000, 7, 0);
        let thousand = cost(1_000, 7, 0);
        println!("100000 replicas: (writes, events, ms) per tick at most, pods: {huge:?}");
        println!("1000 replicas: {thousand:?}");
        assert_eq!(huge, thousand);
        let (writes, _, _, pods) = huge;
        // 7 s and the last tick: at most 8 s of tokens after the burst.
        assert!(pods <= 30 + 20 * 8, "{pods} pods in 7 s");
        assert!(pods > 100, "{pods} pods: the controller kept creating");
        assert!(writes <= 500, "{writes} writes in one tick");
    }

    /// Issue 15: the page runs the world in slices of virtual time and cannot cut a tick, so
    /// a burst of pods must not make one tick long. Each loop's round stops after its share
    /// (`rate_limit::ROUND_MS`); before that, 500 replicas made ticks of up to 5 s (the
    /// scheduler's burst of 100 binds, one after the other).
    #[test]
    fn a_burst_of_pods_keeps_every_tick_short_in_virtual_time() {
        let (_, _, longest, pods) = cost(500, 60, 0);
        println!("500 replicas: the longest tick {longest} ms, {pods} pods");
        assert!(pods >= 500, "{pods} pods: all 500 created");
        assert!(longest <= 10 * TICK_MS, "a tick of {longest} ms");
    }

    /// Issue 15: the scheduler that follows the cache's changes tries, binds and parks what
    /// one sorting out every pod at each round does: more replicas than the nodes hold, then
    /// a scale-down that makes room, a cordon and an uncordon.
    #[test]
    fn a_scheduler_following_changes_does_what_one_reading_everything_does() {
        use crate::kube::apiserver::Subresource;
        use crate::kube::meta::NODES;
        let mut w = ClusterConfig::new(3, 1).build();
        assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
        let mut cp = ControlPlane::up(&mut w, 1, crate::etcd::Preset::Members).expect("kube up");
        let web = json!({"metadata": {"name": "web"}, "spec": {"replicas": 400,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}});
        let caller = Caller::component("test");
        cp.api.create(&caller, &mut w, &DEPLOYMENTS, web).unwrap();
        let (mut other_cp, mut other_w) = (cp.clone(), w.clone());
        let bound = |cp: &ControlPlane| {
            let pods = cp.api.list_cached(&PODS, None);
            let on = pods
                .iter()
                .map(|p| crate::kube::meta::str_at(p, &["spec", "nodeName"]));
            on.filter(|n| !n.is_empty()).count()
        };
        let change = |cp: &mut ControlPlane, w: &mut Cluster, second: u64| {
            let (r, name, path, value) = match second {
                40 => (&DEPLOYMENTS, "web", ["spec", "replicas"], json!(300)),
                60 => (&NODES, "node-1", ["spec", "unschedulable"], json!(true)),
                70 => (&NODES, "node-1", ["spec", "unschedulable"], json!(false)),
                _ => return,
            };
            let ns = if r.namespaced { "default" } else { "" };
            let mut obj = cp.api.get(w, r, ns, name).unwrap();
            obj[path[0]][path[1]] = value;
            cp.api
                .update(&caller, w, r, obj, Subresource::Main)
                .unwrap();
        };
        let tick = |cp: &mut ControlPlane, w: &mut Cluster| {
            w.run_until(cp.next_tick_ms);
            cp.tick_once(w);
        };
        let mut most_pending = 0;
        for second in 0..90 {
            change(&mut cp, &mut w, second);
            change(&mut other_cp, &mut other_w, second);
            for _ in 0..1000 / TICK_MS {
                tick(&mut cp, &mut w);
                other_cp.controllers.scheduler.seen = None;
                tick(&mut other_cp, &mut other_w);
            }
            assert_eq!(cp.api.requests(), other_cp.api.requests(), "at {second} s");
            assert_eq!(bound(&cp), bound(&other_cp), "at {second} s");
            let scheduler = &cp.controllers.scheduler;
            let other = &other_cp.controllers.scheduler;
            assert_eq!(scheduler.queued, other.queued, "at {second} s");
            assert_eq!(scheduler.unplaced, other.unplaced, "at {second} s");
            let pending = scheduler.unplaced.len() + scheduler.queued.len();
            most_pending = most_pending.max(pending);
        }
        println!(
            "bound at the end: {}, most pending: {most_pending}",
            bound(&cp)
        );
        assert!(most_pending >= 70, "{most_pending} pending at most");
        let scheduler = &cp.controllers.scheduler;
        assert_eq!(scheduler.unplaced.len() + scheduler.queued.len(), 0);
        assert!(bound(&cp) >= 300);
    }

    /// A round tries, in the cache's order, every queued pod and every unplaced one past its
    /// backoff: the order a walk over every pending pod would take them in.
    #[test]
    fn a_round_tries_the_queued_and_the_due_in_the_caches_order() {
        use super::{Cursor, Scheduler, Unplaced};
        for seed in 0..50 {
            let mut rng = crate::base::Rng::new(seed);
            let mut s = Scheduler::default();
            for i in 0..rng.range(0, 40) {
                let key = format!("/registry/pods/default/p{:03}", rng.range(0, 1000) + i);
                if rng.range(0, 2) == 0 {
                    s.queued.insert(key);
                } else {
                    let parked = rng.range(0, 2) == 0;
                    let unplaced = Unplaced {
                        attempts: rng.range(1, 5) as u32,
                        last_try: rng.range(0, 20_000),
                        parked_since: parked.then_some(0),
                    };
                    s.unplaced.insert(key, unplaced);
                }
            }
            s.queued.retain(|k| !s.unplaced.contains_key(k));
            let now = 10_000;
            let due = s.unplaced.iter().filter(|(_, u)| u.due(now));
            let mut walk: Vec<String> = due.map(|(k, _)| k.clone()).collect();
            walk.extend(s.queued.iter().cloned());
            walk.sort();
            let (mut tried, mut cursor) = (Vec::new(), Cursor::start(&s, now));
            while let Some(key) = cursor.next(&s, now) {
                tried.push(key);
            }
            assert_eq!(tried, walk, "seed {seed}");
        }
    }

    /// What may let a parked pod fit: a node new, uncordoned, untainted or with room made;
    /// a node filling up, tainted or cordoned cannot.
    #[test]
    fn only_a_change_that_may_make_room_unparks() {
        use super::NodeFacts;
        use crate::kube::objects::Taint;
        let before = NodeFacts {
            unschedulable: None,
            taints: None,
            max_pods: 110,
            load: 110,
        };
        let with = |change: fn(&mut NodeFacts)| {
            let mut after = before.clone();
            change(&mut after);
            after.may_help(Some(&before))
        };
        assert!(before.may_help(None));
        assert!(!with(|_| ()));
        assert!(with(|f| f.load = 109));
        assert!(!with(|f| f.load = 111));
        assert!(with(|f| f.max_pods = 120));
        assert!(!with(|f| f.unschedulable = Some(true)));
        let cordoned = NodeFacts {
            unschedulable: Some(true),
            ..before.clone()
        };
        assert!(before.may_help(Some(&cordoned)));
        let taint = Taint {
            key: "node.kubernetes.io/unreachable".into(),
            effect: "NoSchedule".into(),
            ..Taint::default()
        };
        let tainted = NodeFacts {
            taints: Some(vec![taint]),
            ..before.clone()
        };
        assert!(before.may_help(Some(&tainted)));
        assert!(!tainted.may_help(Some(&before)));
    }
}
