//! What the UI shows of Kubernetes: Deployments → ReplicaSets → Pods by owner reference,
//! and the nodes. Read from the API server's watch cache, as `kubectl get` would.

use super::controllers::informers::{Listed, Typed};
use super::meta::{self, DEPLOYMENTS, EVENTS, NODES, PODS, REPLICASETS};
use super::ControlPlane;
use crate::base::{Millis, Revision};
use crate::etcd::Cluster;
use serde_json::Value;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub name: String,
    /// Pending, Running, Terminating... as `kubectl get pods` says it.
    pub status: String,
    pub node: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaSetView {
    pub name: String,
    pub desired: i64,
    pub ready: i64,
    /// The first pods, as many as the view was asked for.
    pub pods: Vec<PodView>,
    /// How many of the other pods are in each status (a cut list must not hide that some
    /// are stuck), by status.
    pub rest: Vec<(String, usize)>,
}

impl ReplicaSetView {
    /// How many pods it owns, shown or not.
    pub fn pod_count(&self) -> usize {
        self.pods.len() + self.rest.iter().map(|(_, n)| n).sum::<usize>()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeploymentView {
    pub name: String,
    pub namespace: String,
    pub desired: i64,
    pub ready: i64,
    pub replica_sets: Vec<ReplicaSetView>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub name: String,
    pub ready: bool,
    /// A control-plane node (an etcd member's machine), where workloads do not run.
    pub control_plane: bool,
}

/// One Event, as `kubectl get events` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventView {
    pub last_seen_ms: Millis,
    pub event_type: String,
    pub reason: String,
    /// `deployment/web`.
    pub object: String,
    pub message: String,
    pub count: i64,
}

/// How many Events the view keeps (the most recent).
const EVENTS_SHOWN: usize = 12;

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KubeView {
    pub deployments: Vec<DeploymentView>,
    pub nodes: Vec<NodeView>,
    /// The most recent Events in every namespace, newest first.
    pub events: Vec<EventView>,
    /// (leads?) of kube-controller-manager and kube-scheduler.
    pub controller_manager_leads: bool,
    pub scheduler_leads: bool,
}

fn uid(v: &Value) -> &str {
    meta::str_at(v, &["metadata", "uid"])
}

/// The uids of `v`'s owners.
fn owner_uids(v: &Value) -> impl Iterator<Item = &str> {
    (meta::at(v, &["metadata", "ownerReferences"]).and_then(Value::as_array))
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("uid").and_then(Value::as_str))
}

/// `objects` by the uid of each of their owners, in the cache's order: each owner's
/// dependents found without walking every object once per owner (thousands of pods).
fn by_owner<'a, T>(
    objects: impl Iterator<Item = &'a T>,
    owners: impl Fn(&'a T) -> Vec<&'a str>,
) -> BTreeMap<&'a str, Vec<&'a T>> {
    let mut by_owner: BTreeMap<&str, Vec<&T>> = BTreeMap::new();
    for object in objects {
        for owner in owners(object) {
            let dependents = by_owner.entry(owner).or_default();
            // An owner named twice by one object still owns it once.
            if !dependents.last().is_some_and(|d| std::ptr::eq(*d, object)) {
                dependents.push(object);
            }
        }
    }
    by_owner
}

/// What `owner` owns, in the cache's order.
fn owned<'a, T>(by: &BTreeMap<&str, Vec<&'a T>>, owner: &Value) -> Vec<&'a T> {
    by.get(uid(owner)).cloned().unwrap_or_default()
}

/// What the view reads of a pod, once per version of it.
#[derive(Clone, Debug)]
pub(crate) struct PodRow {
    owners: Vec<String>,
    view: PodView,
}

fn pod_row(p: &Value) -> Option<PodRow> {
    Some(PodRow {
        owners: owner_uids(p).map(str::to_string).collect(),
        view: PodView {
            name: meta::name(p).to_string(),
            status: pod_status(p),
            node: meta::str_at(p, &["spec", "nodeName"]).to_string(),
        },
    })
}

fn event_last_seen(e: &Value) -> Option<Millis> {
    Some(last_seen_ms(e))
}

/// The view's own informers: the pods and Events read once per version, so a view of
/// thousands of them reads only what changed since the last one.
#[derive(Clone, Debug)]
pub(crate) struct ViewInformers {
    pods: Typed<PodRow>,
    events: Typed<Millis>,
}

/// [`ViewInformers`] behind a lock: a cache the view fills through `&ControlPlane` (a view
/// changes nothing the control plane does), shared as the control plane is.
#[derive(Debug, Default)]
pub(crate) struct ViewCache(Mutex<ViewInformers>);

impl Clone for ViewCache {
    fn clone(&self) -> ViewCache {
        ViewCache(Mutex::new(self.lock().clone()))
    }
}

impl ViewCache {
    fn lock(&self) -> MutexGuard<'_, ViewInformers> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for ViewInformers {
    fn default() -> ViewInformers {
        ViewInformers {
            pods: Typed::reading(PODS, pod_row),
            events: Typed::reading(EVENTS, event_last_seen),
        }
    }
}

/// The first `rows` of a ReplicaSet's pods and how many of the rest are in each status.
fn pod_rows(pods: &[&PodRow], rows: usize) -> (Vec<PodView>, Vec<(String, usize)>) {
    let (shown, rest) = pods.split_at(rows.min(pods.len()));
    let shown = shown.iter().map(|p| p.view.clone()).collect();
    let mut by_status = BTreeMap::<&str, usize>::new();
    for p in rest {
        *by_status.entry(&p.view.status).or_default() += 1;
    }
    let by_status = by_status.into_iter().map(|(s, n)| (s.to_string(), n));
    (shown, by_status.collect())
}

fn int(v: &Value, path: &[&str]) -> i64 {
    meta::at(v, path).and_then(Value::as_i64).unwrap_or(0)
}

fn pod_status(p: &Value) -> String {
    if meta::at(p, &["metadata", "deletionTimestamp"]).is_some() {
        return "Terminating".into();
    }
    let waiting = meta::at(p, &["status", "containerStatuses"])
        .and_then(Value::as_array)
        .and_then(|cs| cs.first())
        .and_then(|c| meta::at(c, &["state", "waiting", "reason"]))
        .and_then(Value::as_str);
    waiting.map_or_else(
        || meta::str_at(p, &["status", "phase"]).to_string(),
        str::to_string,
    )
}

/// Where the API server keeps every object in etcd.
const REGISTRY_PREFIX: &[u8] = b"/registry/";

/// The first `limit` `/registry` keys in etcd with their mod revisions, in key order, and
/// how many there are.
pub fn registry_keys(world: &Cluster, limit: usize) -> (Vec<(String, Revision)>, usize) {
    world.keys_under(REGISTRY_PREFIX, limit)
}

fn last_seen_ms(e: &Value) -> Millis {
    meta::parse_timestamp(meta::str_at(e, &["lastTimestamp"]))
}

/// The `count` most recent Events, newest first; same-moment Events keep their key order.
/// Chosen before any is read further: a namespace may hold thousands.
fn newest<'a>(events: impl Iterator<Item = &'a Listed<Millis>>, count: usize) -> Vec<&'a Value> {
    let events: Vec<&Listed<Millis>> = events.collect();
    let mut order: Vec<(Reverse<Millis>, usize)> = (events.iter().enumerate())
        .map(|(i, (_, last_seen))| (Reverse(**last_seen), i))
        .collect();
    if order.len() > count {
        order.select_nth_unstable(count);
        order.truncate(count);
    }
    order.sort_unstable();
    order.into_iter().map(|(_, i)| &*events[i].0).collect()
}

fn event_view(e: &Value) -> EventView {
    EventView {
        last_seen_ms: last_seen_ms(e),
        event_type: meta::str_at(e, &["type"]).to_string(),
        reason: meta::str_at(e, &["reason"]).to_string(),
        object: format!(
            "{}/{}",
            meta::str_at(e, &["involvedObject", "kind"]).to_ascii_lowercase(),
            meta::str_at(e, &["involvedObject", "name"])
        ),
        message: meta::str_at(e, &["message"]).to_string(),
        count: int(e, &["count"]).max(1),
    }
}

impl ControlPlane {
    /// What the UI shows, with at most `rows` pods of each ReplicaSet listed.
    pub fn view(&self, rows: usize) -> KubeView {
        let api = &self.api;
        let mut informers = self.view_cache.lock();
        let pods = informers.pods.all(api);
        let pods = by_owner(pods.values().map(|(_, p)| &**p), |p| {
            p.owners.iter().map(String::as_str).collect()
        });
        let sets = api.list_cached(&REPLICASETS, None);
        let sets = by_owner(sets.iter().map(|rs| &**rs), |rs| owner_uids(rs).collect());
        let deployments = api
            .list_cached(&DEPLOYMENTS, None)
            .iter()
            .map(|d| DeploymentView {
                name: meta::name(d).to_string(),
                namespace: meta::namespace(d).to_string(),
                desired: int(d, &["spec", "replicas"]),
                ready: int(d, &["status", "readyReplicas"]),
                replica_sets: (owned(&sets, d).into_iter())
                    .map(|rs| {
                        let (pods, rest) = pod_rows(&owned(&pods, rs), rows);
                        ReplicaSetView {
                            name: meta::name(rs).to_string(),
                            desired: int(rs, &["spec", "replicas"]),
                            ready: int(rs, &["status", "readyReplicas"]),
                            pods,
                            rest,
                        }
                    })
                    .collect(),
            })
            .collect();
        let nodes = api
            .list_cached(&NODES, None)
            .iter()
            .map(|n| NodeView {
                name: meta::name(n).to_string(),
                control_plane: meta::labels(n)
                    .iter()
                    .any(|(k, _)| k == "node-role.kubernetes.io/control-plane"),
                ready: meta::at(n, &["status", "conditions"])
                    .and_then(Value::as_array)
                    .is_some_and(|cs| {
                        cs.iter().any(|c| {
                            c.get("type").and_then(Value::as_str) == Some("Ready")
                                && c.get("status").and_then(Value::as_str) == Some("True")
                        })
                    }),
            })
            .collect();
        let events = informers.events.all(api);
        let events = newest(events.values(), EVENTS_SHOWN);
        let events = events.into_iter().map(event_view).collect();
        let (controller_manager_leads, scheduler_leads) = self.leading();
        KubeView {
            deployments,
            nodes,
            events,
            controller_manager_leads,
            scheduler_leads,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::console::{run_script, Session};
    use crate::etcd::ClusterConfig;

    #[test]
    fn the_registry_list_holds_only_what_the_api_server_stored_with_its_revisions() {
        let mut s = Session::new(ClusterConfig::new(3, 1));
        run_script(&mut s, "wait leader\netcdctl put /other x\nkube up\nkubectl create deployment web --image=nginx:1.25\nwait 5s\n", false);
        let (keys, count) = super::registry_keys(&s.world, usize::MAX);
        assert_eq!(keys.len(), count);
        assert_eq!(
            super::registry_keys(&s.world, 2),
            (keys[..2].to_vec(), count)
        );
        assert!(keys.iter().all(|(k, _)| k.starts_with("/registry/")));
        let (_, revision) = keys
            .iter()
            .find(|(k, _)| k == "/registry/deployments/default/web")
            .expect("the Deployment is stored");
        assert!(*revision > 1, "written after /other");
        assert!(keys.windows(2).all(|w| w[0].0 < w[1].0), "in key order");
    }

    #[test]
    fn the_view_follows_owner_references() {
        let mut s = Session::new(ClusterConfig::new(3, 1));
        run_script(&mut s, "wait leader\nkube up\nkubectl create deployment web --image=nginx:1.25 --replicas=3\nwait 10s\n", false);
        let view = s.kube.as_ref().unwrap().view(usize::MAX);
        assert_eq!(view.deployments.len(), 1);
        let d = &view.deployments[0];
        assert_eq!((d.name.as_str(), d.desired, d.ready), ("web", 3, 3));
        assert_eq!(d.replica_sets.len(), 1);
        assert_eq!(d.replica_sets[0].pods.len(), 3);
        assert_eq!(d.replica_sets[0].rest, []);
        let cut = s.kube.as_ref().unwrap().view(1);
        let rs = &cut.deployments[0].replica_sets[0];
        assert_eq!(rs.pods, d.replica_sets[0].pods[..1]);
        assert_eq!(
            (rs.rest.clone(), rs.pod_count()),
            (vec![("Running".into(), 2)], 3)
        );
        assert_eq!(cut.events, view.events);
        // The view's informers follow what changed since the last view.
        let scale = "kubectl scale deployment web --replicas=1\nwait 10s\n";
        run_script(&mut s, scale, false);
        let after = s.kube.as_ref().unwrap().view(usize::MAX);
        let rs = &after.deployments[0].replica_sets[0];
        assert_eq!((rs.pods.len(), rs.desired), (1, 1));
        assert_eq!(after.events[0].reason, "Killing");
        assert!(d.replica_sets[0]
            .pods
            .iter()
            .all(|p| p.status == "Running" && !p.node.is_empty()));
        // A control-plane node per etcd member, then the three workers.
        let roles: Vec<(&str, bool)> = view
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.control_plane))
            .collect();
        assert_eq!(
            roles,
            [
                ("m1", true),
                ("m2", true),
                ("m3", true),
                ("node-1", false),
                ("node-2", false),
                ("node-3", false)
            ]
        );
        assert!(view.nodes.iter().all(|n| n.ready));
        assert!(view.controller_manager_leads && view.scheduler_leads);
        assert!(view
            .events
            .iter()
            .any(|e| e.reason == "Started" && e.object.starts_with("pod/web-")));
        assert!(view.events.len() <= super::EVENTS_SHOWN);
        assert!(view
            .events
            .windows(2)
            .all(|w| w[0].last_seen_ms >= w[1].last_seen_ms));
    }

    #[test]
    fn the_newest_events_are_chosen_as_a_stable_sort_would() {
        use serde_json::json;
        use std::sync::Arc;
        let at: [u64; 7] = [5, 9, 5, 1, 9, 7, 5];
        let events: Vec<super::Listed<u64>> = (at.iter().enumerate())
            .map(|(i, s)| {
                (
                    Arc::new(json!({"message": i.to_string()})),
                    Arc::new(s * 1000),
                )
            })
            .collect();
        let messages = |n| -> Vec<String> {
            let newest = super::newest(events.iter(), n);
            newest
                .iter()
                .map(|e| e["message"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(messages(4), ["1", "4", "5", "0"]);
        assert_eq!(messages(99), ["1", "4", "5", "0", "2", "6", "3"]);
        assert_eq!(messages(0), Vec::<String>::new());
    }
}
