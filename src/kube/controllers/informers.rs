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

/// A cached object and its typed reading.
pub type Listed<T> = (Arc<Value>, Arc<T>);

/// The typed readings of one resource, per listing scope (a namespace, or all): each listing
/// keeps what it listed and drops the rest, so nothing outlives the cache for long.
#[derive(Clone, Debug)]
pub struct Typed<T> {
    resource: Resource,
    /// Per scope, by the cached object's address (held, so the address is not reused).
    scopes: BTreeMap<Option<String>, BTreeMap<usize, Listed<T>>>,
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
        let mut known = self.scopes.remove(&scope).unwrap_or_default();
        let mut fresh = BTreeMap::new();
        let mut listed = Vec::new();
        for value in api.list_cached(&self.resource, ns) {
            let address = Arc::as_ptr(&value) as usize;
            let typed = match known.remove(&address) {
                Some((_, typed)) => typed,
                None => match objects::from_value::<T>(&value) {
                    Some(typed) => Arc::new(typed),
                    None => continue,
                },
            };
            fresh.insert(address, (Arc::clone(&value), Arc::clone(&typed)));
            listed.push((value, typed));
        }
        self.scopes.insert(scope, fresh);
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
