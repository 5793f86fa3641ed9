//! The garbage collector: dependents whose every owner is gone are deleted (background
//! propagation); the owner is confirmed absent with a quorum GET first, as the real GC does.

use super::informers::Informers;
use super::{soft, Tick};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, ApiError, PODS, REPLICASETS};
use crate::kube::objects::OwnerReference;
use std::collections::BTreeSet;

/// An owner as a reference names it: its uid, namespace, name, kind and apiVersion.
type OwnerKey<'a> = [&'a str; 5];

pub fn sync(api: &mut ApiServer, world: &mut Cluster, informers: &mut Informers) -> Tick {
    let caller = Caller::component("garbage-collector");
    let replica_sets = informers.replica_sets.all(api);
    let pods = informers.pods.all(api);
    let dependents = (replica_sets
        .values()
        .map(|(_, rs)| (REPLICASETS, &rs.metadata)))
    .chain(pods.values().map(|(_, p)| (PODS, &p.metadata)));
    // The cache cannot change within a round, so an owner it holds is looked up once, not
    // once per dependent (thousands of pods share one ReplicaSet).
    let mut cached: BTreeSet<OwnerKey> = BTreeSet::new();
    for (r, metadata) in dependents {
        let owners = match &metadata.owner_references {
            Some(owners) if !owners.is_empty() && !metadata.is_deleting() => owners,
            _ => continue,
        };
        let ns = metadata.namespace();
        if all_gone(api, world, ns, owners, &mut cached)? {
            soft(api.delete(&caller, world, &r, ns, metadata.name(), false))?;
        }
    }
    Ok(())
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
