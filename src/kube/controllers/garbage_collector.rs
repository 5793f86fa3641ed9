//! The garbage collector: dependents whose every owner is gone are deleted (background
//! propagation); the owner is confirmed absent with a quorum GET first, as the real GC does.

use super::informers::Informers;
use super::{soft, Tick};
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{self, ApiError, PODS, REPLICASETS};
use crate::kube::objects::OwnerReference;

pub fn sync(api: &mut ApiServer, world: &mut Cluster, informers: &mut Informers) -> Tick {
    let caller = Caller::component("garbage-collector");
    let replica_sets = informers.replica_sets.objects(api, None);
    let pods = informers.pods.objects(api, None);
    let dependents = (replica_sets.iter().map(|rs| (REPLICASETS, &rs.metadata)))
        .chain(pods.iter().map(|p| (PODS, &p.metadata)));
    for (r, metadata) in dependents {
        let owners = match &metadata.owner_references {
            Some(owners) if !owners.is_empty() && !metadata.is_deleting() => owners,
            _ => continue,
        };
        let ns = metadata.namespace();
        if all_gone(api, world, ns, owners)? {
            soft(api.delete(&caller, world, &r, ns, metadata.name(), false))?;
        }
    }
    Ok(())
}

/// Whether none of `owners` exists any more (an owner of a kind it does not know counts as
/// present): the cache first, then a quorum read.
fn all_gone(
    api: &mut ApiServer,
    world: &mut Cluster,
    ns: &str,
    owners: &[OwnerReference],
) -> Result<bool, ApiError> {
    for o in owners {
        let Some(owner_res) = meta::resource_by_kind(&o.api_version, &o.kind) else {
            return Ok(false);
        };
        if api
            .get_cached(&owner_res, ns, &o.name)
            .is_some_and(|v| meta::uid(&v) == o.uid)
        {
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
