//! What the controllers' informers hold: the watch cache's objects, read as typed objects once
//! per version. The cache replaces an object's `Arc` whenever the object changes, so the same
//! `Arc` is the same object; reading every object again on every tick would cost more than
//! all the rest of the tick.

use crate::kube::apiserver::ApiServer;
use crate::kube::meta;
use crate::kube::meta::{Resource, DEPLOYMENTS, LEASES, NODES, PODS, REPLICASETS};
use crate::kube::objects::{self, Deployment, Lease, Node, ObjectMeta, Pod, ReplicaSet};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::sync::Arc;

/// A cached object and its typed reading.
pub type Listed<T> = (Arc<Value>, Arc<T>);

/// The cache's objects of one resource, by key, each with its typed reading. A persistent
/// map: a checkpoint of the controllers copies none of it.
pub type Listing<T> = imbl::OrdMap<String, Listed<T>>;

/// A value an index files an object under (client-go's `Indexers`): a pair, so that an index
/// by two parts can be read by its first part alone (a range).
pub type IndexKey = (String, String);

/// The indexes a listing keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexName {
    /// Each owner of a kind the API knows: (its cache key, the uid the reference names).
    Owner,
    /// The controller's uid and the object's namespace (the ReplicaSet controller's
    /// `controllerUIDIndex`, read in one namespace): (uid, namespace).
    Controller,
    /// A pod's node: (node name, ""), an unbound pod's name being "".
    Node,
}

/// Per index value, the objects filed under it.
pub type Indexed<T> = imbl::OrdMap<IndexKey, Listing<T>>;

#[derive(Clone, Debug)]
struct Index<T> {
    name: IndexName,
    values: fn(&T) -> Vec<IndexKey>,
    by: Indexed<T>,
}

impl<T> Index<T> {
    fn file(&mut self, key: &str, listed: &Listed<T>) {
        for value in (self.values)(&listed.1) {
            let objects = self.by.entry(value).or_default();
            objects.insert(key.to_string(), listed.clone());
        }
    }

    fn unfile(&mut self, key: &str, listed: &Listed<T>) {
        for value in (self.values)(&listed.1) {
            if let Some(objects) = self.by.get_mut(&value) {
                objects.remove(key);
                if objects.is_empty() {
                    self.by.remove(&value);
                }
            }
        }
    }
}

/// The typed readings of one resource's objects, kept up with the watch cache by the keys it
/// changed (an informer's watch): a round of thousands of pods reads again only the few that
/// changed since the last round, and finds an owner's objects through an index.
#[derive(Clone, Debug)]
pub struct Typed<T> {
    resource: Resource,
    /// `resource.list_prefix(None)`.
    prefix: String,
    listing: Listing<T>,
    indexes: Vec<Index<T>>,
    /// The cache state `listing` was made from (None: never made).
    stamp: Option<u64>,
    /// How an object is read (None: it is left out).
    read: fn(&Value) -> Option<T>,
}

impl<T: DeserializeOwned> Typed<T> {
    fn new(resource: Resource) -> Typed<T> {
        Typed::reading(resource, objects::from_value::<T>)
    }
}

impl<T> Typed<T> {
    /// The objects of `resource` as `read` reads them.
    pub fn reading(resource: Resource, read: fn(&Value) -> Option<T>) -> Typed<T> {
        Typed {
            prefix: resource.list_prefix(None),
            resource,
            listing: Listing::new(),
            indexes: Vec::new(),
            stamp: None,
            read,
        }
    }

    /// Kept with index `name`, which files an object under `values`.
    fn with_index(mut self, name: IndexName, values: fn(&T) -> Vec<IndexKey>) -> Typed<T> {
        let by = Indexed::new();
        self.indexes.push(Index { name, values, by });
        self
    }

    /// The objects filed under each value of index `name` (empty for an index not kept).
    pub fn indexed(&mut self, api: &ApiServer, name: IndexName) -> Indexed<T> {
        self.catch_up(api);
        let index = self.indexes.iter().find(|i| i.name == name);
        index.map(|i| i.by.clone()).unwrap_or_default()
    }

    /// Every cached object of the resource, in the cache's order; one that does not read as
    /// `T` is left out.
    pub fn all(&mut self, api: &ApiServer) -> Listing<T> {
        self.catch_up(api);
        self.listing.clone()
    }

    /// Reads what the cache changed since the last call.
    fn catch_up(&mut self, api: &ApiServer) {
        let stamp = api.cache_stamp();
        if self.stamp != Some(stamp) {
            match self.stamp.and_then(|s| api.changes_since(s)) {
                // In any order: each key is read as the cache holds it now.
                Some(keys) => {
                    for key in keys {
                        self.refresh(api, key);
                    }
                }
                None => self.relist(api),
            }
            self.stamp = Some(stamp);
        }
    }

    /// The cached objects in `ns` (or everywhere), in the cache's order.
    pub fn list(&mut self, api: &ApiServer, ns: Option<&str>) -> Vec<Listed<T>> {
        let all = self.all(api);
        let Some(ns) = ns.filter(|_| self.resource.namespaced) else {
            return all.values().cloned().collect();
        };
        let prefix = self.resource.list_prefix(Some(ns));
        (all.range(prefix.clone()..))
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(_, listed)| listed.clone())
            .collect()
    }

    /// Only the typed objects.
    pub fn objects(&mut self, api: &ApiServer, ns: Option<&str>) -> Vec<Arc<T>> {
        self.list(api, ns).into_iter().map(|(_, t)| t).collect()
    }

    /// The object at `key` as the cache now holds it (read again only if it changed).
    fn refresh(&mut self, api: &ApiServer, key: &str) {
        let listed = key
            .strip_prefix(&self.prefix)
            .is_some_and(|rest| self.resource.names_object(rest));
        if !listed {
            return;
        }
        let Some(value) = api.cached_at(key) else {
            self.forget(key);
            return;
        };
        if (self.listing.get(key)).is_some_and(|(held, _)| Arc::ptr_eq(held, value)) {
            return;
        }
        self.forget(key);
        if let Some(typed) = (self.read)(value) {
            let listed = (value.clone(), Arc::new(typed));
            for index in &mut self.indexes {
                index.file(key, &listed);
            }
            self.listing.insert(key.to_string(), listed);
        }
    }

    fn forget(&mut self, key: &str) {
        if let Some(listed) = self.listing.remove(key) {
            for index in &mut self.indexes {
                index.unfile(key, &listed);
            }
        }
    }

    /// Made again from the whole cache; an object the cache still shares keeps its reading.
    fn relist(&mut self, api: &ApiServer) {
        let mut listing = Listing::new();
        for (key, value) in api.list_cached_keyed(&self.resource, None) {
            let typed = match self.listing.get(key) {
                Some((held, typed)) if Arc::ptr_eq(held, value) => typed.clone(),
                _ => match (self.read)(value) {
                    Some(typed) => Arc::new(typed),
                    None => continue,
                },
            };
            listing.insert(key.clone(), (value.clone(), typed));
        }
        for index in &mut self.indexes {
            index.by = Indexed::new();
            for (key, listed) in &listing {
                index.file(key, listed);
            }
        }
        self.listing = listing;
    }
}

/// Index [`IndexName::Owner`]'s values of an object: its owners of kinds the API knows.
fn owners(metadata: &ObjectMeta) -> Vec<IndexKey> {
    let owners = metadata.owner_references.iter().flatten();
    let known = owners.filter_map(|o| {
        let resource = meta::resource_by_kind(&o.api_version, &o.kind)?;
        let key = resource.key(metadata.namespace(), &o.name);
        Some((key, o.uid.clone()))
    });
    known.collect()
}

/// Index [`IndexName::Node`]'s value of a pod: the node it is bound to ("" for none, which
/// a Node written without a name is called too).
fn node(pod: &Pod) -> Vec<IndexKey> {
    vec![(pod.node_name().to_string(), String::new())]
}

/// Index [`IndexName::Controller`]'s value of an object: its controller's uid, its namespace.
fn controller(metadata: &ObjectMeta) -> Vec<IndexKey> {
    let uid = metadata.controller_uid();
    let ns = metadata.namespace().to_string();
    uid.map(|uid| (uid.to_string(), ns)).into_iter().collect()
}

/// One informer per kind the controllers read.
#[derive(Clone, Debug)]
pub struct Informers {
    pub pods: Typed<Pod>,
    pub nodes: Typed<Node>,
    pub leases: Typed<Lease>,
    pub replica_sets: Typed<ReplicaSet>,
    pub deployments: Typed<Deployment>,
}

impl Default for Informers {
    fn default() -> Informers {
        Informers {
            pods: Typed::new(PODS)
                .with_index(IndexName::Owner, |p: &Pod| owners(&p.metadata))
                .with_index(IndexName::Controller, |p: &Pod| controller(&p.metadata))
                .with_index(IndexName::Node, node),
            nodes: Typed::new(NODES),
            leases: Typed::new(LEASES),
            replica_sets: Typed::new(REPLICASETS)
                .with_index(IndexName::Owner, |rs: &ReplicaSet| owners(&rs.metadata)),
            deployments: Typed::new(DEPLOYMENTS),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Rng;
    use crate::etcd::{Cluster, ClusterConfig};
    use crate::kube::apiserver::{Caller, Subresource};
    use crate::kube::meta::{self, CONFIGMAPS, NAMESPACES};
    use serde_json::json;

    fn create(api: &mut ApiServer, w: &mut Cluster, r: &Resource, object: Value) -> Value {
        let value = api
            .create(&Caller::component("test"), w, r, object)
            .unwrap();
        api.sync(w);
        value
    }

    fn pod(ns: &str, name: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": ns},
               "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
    }

    /// Keys and cached objects (by address) of a listing.
    fn shape(listing: &Listing<Pod>) -> Vec<(String, usize)> {
        let listed = listing.iter();
        listed
            .map(|(k, (v, _))| (k.clone(), Arc::as_ptr(v) as usize))
            .collect()
    }

    #[test]
    fn an_informer_kept_up_by_the_caches_changes_lists_what_a_new_one_lists() {
        let mut w = ClusterConfig::new(3, 1).build();
        assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
        let mut api = ApiServer::new(&w, Rng::new(3));
        for ns in ["default", "other"] {
            create(
                &mut api,
                &mut w,
                &NAMESPACES,
                json!({"metadata": {"name": ns}}),
            );
        }
        let mut kept = Informers::default().pods;
        let check = |kept: &mut Typed<Pod>, api: &ApiServer, pods: usize| {
            let listing = kept.all(api);
            let mut fresh = Informers::default().pods;
            assert_eq!(shape(&listing), shape(&fresh.all(api)));
            assert_eq!(listing.len(), pods);
            for name in [IndexName::Owner, IndexName::Controller, IndexName::Node] {
                let index = |typed: &mut Typed<Pod>| -> Vec<_> {
                    let indexed = typed.indexed(api, name);
                    indexed.iter().map(|(k, l)| (k.clone(), shape(l))).collect()
                };
                assert_eq!(index(kept), index(&mut fresh), "index {name:?}");
            }
        };
        check(&mut kept, &api, 0);
        for i in 0..4 {
            let mut p = pod("default", &format!("p{i}"));
            if i % 2 == 1 {
                p["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1",
                    "kind": "ReplicaSet", "name": "rs", "uid": "u1", "controller": true}]);
            }
            create(&mut api, &mut w, &PODS, p);
        }
        create(&mut api, &mut w, &PODS, pod("other", "p0"));
        check(&mut kept, &api, 5);
        let first = kept.all(&api).values().next().unwrap().1.clone();

        let mut changed = api.get(&mut w, &PODS, "default", "p1").unwrap();
        changed["metadata"]["labels"] = json!({"app": "web"});
        changed["metadata"]["ownerReferences"] = json!([]);
        changed["spec"]["nodeName"] = json!("node-1");
        let test = Caller::component("test");
        api.update(&test, &mut w, &PODS, changed, Subresource::Main)
            .unwrap();
        api.delete(&test, &mut w, &PODS, "default", "p2", false)
            .unwrap();
        create(
            &mut api,
            &mut w,
            &CONFIGMAPS,
            json!({"metadata": {"name": "c"}}),
        );
        check(&mut kept, &api, 4);
        let listing = kept.all(&api);
        let p1 = &listing.get("/registry/pods/default/p1").unwrap().1;
        assert_eq!(
            p1.metadata.labels,
            Some([("app".into(), "web".into())].into())
        );
        let unchanged = &listing.values().next().unwrap().1;
        assert!(
            Arc::ptr_eq(unchanged, &first),
            "an unchanged pod is not read again"
        );

        // A server whose history does not hold the informer's state: listed again.
        assert!(api.changes_since(u64::MAX).is_none());
        let mut other = ApiServer::new(&w, Rng::new(4));
        other.sync(&mut w);
        check(&mut kept, &other, 4);
        assert_eq!(
            meta::name(&kept.all(&other).values().next().unwrap().0),
            "p0"
        );
    }
}
