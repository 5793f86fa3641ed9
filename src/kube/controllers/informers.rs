//! What the controllers' informers hold: the watch cache's objects, read as typed objects once
//! per version. The cache replaces an object's `Arc` whenever the object changes, so the same
//! `Arc` is the same object; reading every object again on every tick would cost more than
//! all the rest of the tick.

use crate::kube::apiserver::ApiServer;
use crate::kube::meta::{Resource, DEPLOYMENTS, LEASES, NODES, PODS, REPLICASETS};
use crate::kube::objects::{self, Deployment, Lease, Node, Pod, ReplicaSet};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The cached object's address: the same `Arc` is the same object.
fn address(value: &Arc<Value>) -> usize {
    Arc::as_ptr(value) as usize
}

/// A cached object and its typed reading.
pub type Listed<T> = (Arc<Value>, Arc<T>);

/// The typed readings of one resource, per listing scope (a namespace, or all): each listing
/// keeps what it listed and drops the rest, so nothing outlives the cache for long.
#[derive(Clone, Debug)]
pub struct Typed<T> {
    resource: Resource,
    scopes: BTreeMap<Option<String>, Scope<T>>,
}

/// One scope's last listing, and the cache state it was made from: every loop lists pods
/// each round, most often from an unchanged cache.
#[derive(Clone, Debug)]
struct Scope<T> {
    stamp: u64,
    /// In the cache's order; each object held, so its address is not reused.
    listed: Vec<Listed<T>>,
}

impl<T: DeserializeOwned> Typed<T> {
    fn new(resource: Resource) -> Typed<T> {
        Typed {
            resource,
            scopes: BTreeMap::new(),
        }
    }

    /// The cached objects in `ns` (or everywhere), in the cache's order; one that does not
    /// read as `T` is left out.
    pub fn list(&mut self, api: &ApiServer, ns: Option<&str>) -> Vec<Listed<T>> {
        let scope = ns.map(str::to_string);
        let stamp = api.cache_stamp();
        if let Some(last) = self.scopes.get(&scope).filter(|s| s.stamp == stamp) {
            return last.listed.clone();
        }
        // Each held with its object until the new listing is made, so no address is reused.
        let mut known: BTreeMap<usize, Listed<T>> = self
            .scopes
            .remove(&scope)
            .map(|s| s.listed.into_iter().map(|l| (address(&l.0), l)).collect())
            .unwrap_or_default();
        let mut listed = Vec::new();
        for value in api.list_cached(&self.resource, ns) {
            let typed = match known.remove(&address(&value)) {
                Some((_, typed)) => typed,
                None => match objects::from_value::<T>(&value) {
                    Some(typed) => Arc::new(typed),
                    None => continue,
                },
            };
            listed.push((value, typed));
        }
        let kept = Scope {
            stamp,
            listed: listed.clone(),
        };
        self.scopes.insert(scope, kept);
        listed
    }

    /// Only the typed objects.
    pub fn objects(&mut self, api: &ApiServer, ns: Option<&str>) -> Vec<Arc<T>> {
        self.list(api, ns).into_iter().map(|(_, t)| t).collect()
    }
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
            pods: Typed::new(PODS),
            nodes: Typed::new(NODES),
            leases: Typed::new(LEASES),
            replica_sets: Typed::new(REPLICASETS),
            deployments: Typed::new(DEPLOYMENTS),
        }
    }
}
