//! The garbage collector: dependents whose every owner is gone are deleted (background
//! propagation); the owner is confirmed absent with a quorum GET first, as the real GC does.
//! Like the real one's dependency graph, it follows the watch cache's changes: after a first
//! round over every dependent, a round looks only at the dependents that changed, those with
//! an owner that changed and no longer holds, and those it asked the API server about last
//! round (a dependent it found an owner of in the cache sends nothing while neither changes).

use super::informers::{IndexName, Indexed, Informers, Listed, Listing};
use super::{soft, Tick};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, ApiError, Resource, PODS, REPLICASETS};
use crate::kube::objects::{ObjectMeta, OwnerReference, Pod, ReplicaSet};
use std::collections::BTreeSet;

/// An owner as a reference names it: its uid, namespace, name, kind and apiVersion.
type OwnerKey<'a> = [&'a str; 5];

/// What the collector knows between rounds.
#[derive(Clone, Debug, Default)]
pub struct Collector {
    /// The cache state its last round read to the end (None: look at every dependent).
    seen: Option<u64>,
    /// The dependents (cache keys) that round sent a request about.
    asked: BTreeSet<String>,
}

/// A dependent: its kind, its cache key and its metadata.
type Dependent<'a> = (Resource, &'a str, &'a ObjectMeta);

impl Collector {
    pub fn sync(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        informers: &mut Informers,
    ) -> Tick {
        let seen = self.seen.take();
        let stamp = api.cache_stamp();
        let replica_sets = informers.replica_sets.all(api);
        let pods = informers.pods.all(api);
        let owned = (
            informers.replica_sets.indexed(api, IndexName::Owner),
            informers.pods.indexed(api, IndexName::Owner),
        );
        let only = seen.and_then(|seen| self.to_look_at(api, seen, &owned));
        let dependents = dependents(&replica_sets, &pods, only.as_ref());
        self.asked = collect(api, world, &dependents)?;
        self.seen = Some(stamp);
        Ok(())
    }

    /// The dependents' keys a round since cache state `seen` must look at; None when the
    /// cache's history no longer reaches back to it (every dependent then).
    fn to_look_at(
        &self,
        api: &ApiServer,
        seen: u64,
        (replica_sets, pods): &(Indexed<ReplicaSet>, Indexed<Pod>),
    ) -> Option<BTreeSet<String>> {
        let mut keys = self.asked.clone();
        for changed in api.changes_since(seen)? {
            keys.insert(changed.to_string());
            let uid_now = api.cached_at(changed).map(|v| meta::uid(v));
            let holds = |uid: &str| uid_now == Some(uid);
            keys.extend(no_longer_owned(replica_sets, changed, holds));
            keys.extend(no_longer_owned(pods, changed, holds));
        }
        Some(keys)
    }
}

/// The keys of the objects filed under owner `key` by a uid for which `holds` is false.
fn no_longer_owned<'a, T>(
    owned: &'a Indexed<T>,
    key: &'a str,
    holds: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = String> + 'a {
    (owned.range((key.to_string(), String::new())..))
        .take_while(move |((owner, _), _)| owner == key)
        .filter(move |((_, uid), _)| !holds(uid))
        .flat_map(|(_, objects)| objects.keys().cloned())
}

/// The dependents in the order a round looks at them: ReplicaSets, then pods, each in the
/// cache's order; `only` those keys, when given.
fn dependents<'a>(
    replica_sets: &'a Listing<ReplicaSet>,
    pods: &'a Listing<Pod>,
    only: Option<&'a BTreeSet<String>>,
) -> Vec<Dependent<'a>> {
    let rs = |(k, (_, rs)): (&'a String, &'a Listed<ReplicaSet>)| {
        (REPLICASETS, k.as_str(), &rs.metadata)
    };
    let pod = |(k, (_, p)): (&'a String, &'a Listed<Pod>)| (PODS, k.as_str(), &p.metadata);
    let Some(only) = only else {
        return replica_sets
            .iter()
            .map(rs)
            .chain(pods.iter().map(pod))
            .collect();
    };
    let in_rs = only
        .iter()
        .filter_map(|k| replica_sets.get_key_value(k))
        .map(rs);
    let in_pods = only.iter().filter_map(|k| pods.get_key_value(k)).map(pod);
    in_rs.chain(in_pods).collect()
}

/// Deletes the dependents whose every owner is gone; the keys of those it sent a request
/// about.
fn collect(
    api: &mut ApiServer,
    world: &mut Cluster,
    dependents: &[Dependent],
) -> Result<BTreeSet<String>, ApiError> {
    let caller = Caller::component("garbage-collector");
    let mut asked = BTreeSet::new();
    // The cache cannot change within a round, so an owner it holds is looked up once, not
    // once per dependent (thousands of pods share one ReplicaSet).
    let mut cached: BTreeSet<OwnerKey> = BTreeSet::new();
    for (r, key, metadata) in dependents {
        let owners = match &metadata.owner_references {
            Some(owners) if !owners.is_empty() && !metadata.is_deleting() => owners,
            _ => continue,
        };
        let ns = metadata.namespace();
        let requests = api.requests();
        if all_gone(api, world, ns, owners, &mut cached)? {
            soft(api.delete(&caller, world, r, ns, metadata.name(), false))?;
        }
        if api.requests() != requests {
            asked.insert(key.to_string());
        }
    }
    Ok(asked)
}

/// Whether none of `owners` exists any more (an owner of a kind it does not know counts as
/// present): the cache first (`cached`: the owners found there this round), then a quorum read.
fn all_gone<'a>(
    api: &mut ApiServer,
    world: &mut Cluster,
    ns: &'a str,
    owners: &'a [OwnerReference],
    cached: &mut BTreeSet<OwnerKey<'a>>,
) -> Result<bool, ApiError> {
    for o in owners {
        let key = [o.uid.as_str(), ns, &o.name, &o.kind, &o.api_version];
        if cached.contains(&key) {
            return Ok(false);
        }
        let Some(owner_res) = meta::resource_by_kind(&o.api_version, &o.kind) else {
            return Ok(false);
        };
        if api
            .get_cached(&owner_res, ns, &o.name)
            .is_some_and(|v| meta::uid(&v) == o.uid)
        {
            cached.insert(key);
            return Ok(false);
        }
        match api.get(world, &owner_res, ns, &o.name) {
            Ok(v) if meta::uid(&v) == o.uid => return Ok(false),
            Ok(_) => {}
            Err(e) if e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Rng;
    use crate::etcd::ClusterConfig;
    use crate::kube::meta::{DEPLOYMENTS, NAMESPACES};
    use serde_json::{json, Value};

    fn owned(name: &str, owners: &[(&str, &str, &Value)]) -> Value {
        let refs: Vec<Value> = (owners.iter())
            .map(|(kind, version, owner)| {
                json!({"apiVersion": version, "kind": kind, "name": meta::name(owner),
                       "uid": meta::uid(owner), "controller": true})
            })
            .collect();
        json!({"metadata": {"name": name, "namespace": "default", "ownerReferences": refs},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }

    /// Every key the cache holds of pods and ReplicaSets.
    fn dependents_left(api: &ApiServer) -> Vec<String> {
        let keyed = |r| -> Vec<String> {
            api.list_cached_keyed(r, None)
                .map(|(k, _)| k.clone())
                .collect()
        };
        [keyed(&REPLICASETS), keyed(&PODS)].concat()
    }

    /// The writes the API server made, in order.
    fn writes(api: &ApiServer) -> Vec<(&'static str, String)> {
        let journal = api.journal().iter();
        journal.map(|w| (w.verb, w.key.clone())).collect()
    }

    /// Issue 15: the collector that follows the cache's changes deletes what one looking at
    /// every dependent deletes, with the same requests and writes: owners deleted one by one,
    /// an owner replaced under its name (a new uid), a dependent of two owners, an owner never
    /// there, a first owner of a kind the API does not know.
    #[test]
    fn a_collector_following_changes_does_what_one_reading_everything_does() {
        let mut w = ClusterConfig::new(3, 1).build();
        assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
        let mut api = ApiServer::new(&w, Rng::new(3));
        let test = Caller::component("test");
        let create = |api: &mut ApiServer, w: &mut Cluster, r: &Resource, v: Value| {
            let created = api.create(&test, w, r, v).unwrap();
            api.sync(w);
            created
        };
        create(
            &mut api,
            &mut w,
            &NAMESPACES,
            json!({"metadata": {"name": "default"}}),
        );
        let deployment = |name: &str| {
            json!({"metadata": {"name": name, "namespace": "default"},
                   "spec": {"selector": {"matchLabels": {"app": name}},
                            "template": {"metadata": {"labels": {"app": name}},
                                         "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}})
        };
        let d1 = create(&mut api, &mut w, &DEPLOYMENTS, deployment("d1"));
        let d2 = create(&mut api, &mut w, &DEPLOYMENTS, deployment("d2"));
        let rs = |name, owner: &Value| {
            let mut rs = owned(name, &[("Deployment", "apps/v1", owner)]);
            rs["spec"] = json!({"selector": {"matchLabels": {"app": name}},
                                "template": {"metadata": {"labels": {"app": name}},
                                             "spec": {"containers": [{"name": "c", "image": "nginx"}]}}});
            rs
        };
        let rs1 = create(&mut api, &mut w, &REPLICASETS, rs("rs1", &d1));
        let rs2 = create(&mut api, &mut w, &REPLICASETS, rs("rs2", &d2));
        for i in 0..3 {
            create(
                &mut api,
                &mut w,
                &PODS,
                owned(&format!("a{i}"), &[("ReplicaSet", "apps/v1", &rs1)]),
            );
            create(
                &mut api,
                &mut w,
                &PODS,
                owned(&format!("b{i}"), &[("ReplicaSet", "apps/v1", &rs2)]),
            );
        }
        let both = [
            ("ReplicaSet", "apps/v1", &rs1),
            ("ReplicaSet", "apps/v1", &rs2),
        ];
        create(&mut api, &mut w, &PODS, owned("both", &both));
        let widget = json!({"metadata": {"name": "w", "uid": "1111"}});
        let unknown_first = [("Widget", "example.com/v1", &widget), both[0]];
        create(&mut api, &mut w, &PODS, owned("widget", &unknown_first));
        let ghost = json!({"metadata": {"name": "ghost", "uid": "0000"}});
        create(
            &mut api,
            &mut w,
            &PODS,
            owned("orphan", &[("ReplicaSet", "apps/v1", &ghost)]),
        );

        let (mut kept, mut informers) = (Collector::default(), Informers::default());
        let mut round = |api: &mut ApiServer, w: &mut Cluster| {
            let (mut fresh_api, mut fresh_w) = (api.clone(), w.clone());
            let fresh =
                Collector::default().sync(&mut fresh_api, &mut fresh_w, &mut Informers::default());
            kept.sync(api, w, &mut informers).unwrap();
            fresh.unwrap();
            assert_eq!(api.requests(), fresh_api.requests());
            assert_eq!(writes(api), writes(&fresh_api));
            api.sync(w);
            fresh_api.sync(&mut fresh_w);
            assert_eq!(dependents_left(api), dependents_left(&fresh_api));
        };
        round(&mut api, &mut w);
        assert!(!dependents_left(&api).contains(&"/registry/pods/default/orphan".to_string()));
        for _ in 0..3 {
            round(&mut api, &mut w);
        }
        // d1 replaced by another of its name: rs1's owner is gone, so are rs1's own pods.
        api.delete(&test, &mut w, &DEPLOYMENTS, "default", "d1", false)
            .unwrap();
        create(&mut api, &mut w, &DEPLOYMENTS, deployment("d1"));
        for _ in 0..4 {
            round(&mut api, &mut w);
        }
        let left = dependents_left(&api);
        assert!(!left
            .iter()
            .any(|k| k.ends_with("/rs1") || k.ends_with("/a0")));
        assert!(left.contains(&"/registry/pods/default/both".to_string()));
        assert!(left.contains(&"/registry/pods/default/widget".to_string()));
        api.delete(&test, &mut w, &DEPLOYMENTS, "default", "d2", false)
            .unwrap();
        api.sync(&mut w);
        for _ in 0..4 {
            round(&mut api, &mut w);
        }
        // An owner of a kind the API does not know counts as present.
        assert_eq!(dependents_left(&api), ["/registry/pods/default/widget"]);
    }
}
