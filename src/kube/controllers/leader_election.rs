//! client-go leader election with kube's defaults: a Lease in `kube-system` held for 15 s,
//! renewed every 2 s, given up when it could not be renewed for 10 s (the renew deadline).
//! There is one replica of each component, so the Lease only ever changes hands with itself,
//! but losing etcd's quorum makes it lose the Lease and stop, as the real ones do.

use super::{edit, event, micro_time};
use crate::base::Millis;
use crate::etcd::Cluster;
use crate::kube::apiserver::{ApiServer, Caller};
use crate::kube::meta::{ApiError, LEASES};
use crate::kube::objects::{self, Lease};
use serde_json::{json, Value};

const LEASE_DURATION_S: i64 = 15;
const RENEW_DEADLINE_MS: Millis = 10_000;
const RETRY_PERIOD_MS: Millis = 2_000;

#[derive(Clone, Debug)]
pub struct Elector {
    /// The component, and so its Lease's name.
    name: &'static str,
    identity: String,
    leading: bool,
    last_renew_ms: Option<Millis>,
    next_try_ms: Millis,
}

impl Elector {
    pub fn new(name: &'static str) -> Elector {
        Elector {
            name,
            identity: format!("{name}-0_raftlab"),
            leading: false,
            last_renew_ms: None,
            next_try_ms: 0,
        }
    }

    pub fn leading(&self) -> bool {
        self.leading
    }

    /// Whether the renew deadline has passed since the last renewal (or there was none).
    fn deadline_passed(&self, now: Millis) -> bool {
        self.last_renew_ms
            .is_none_or(|t| now >= t + RENEW_DEADLINE_MS)
    }

    /// Tries to acquire or renew the Lease when due; returns whether it leads now.
    pub fn elect(&mut self, api: &mut ApiServer, world: &mut Cluster) -> bool {
        let now = world.now();
        if self.leading && self.deadline_passed(now) {
            // client-go: "failed to renew lease ...: timed out waiting for the condition".
            self.leading = false;
        }
        if now < self.next_try_ms {
            return self.leading;
        }
        self.next_try_ms = now + RETRY_PERIOD_MS;
        let caller = Caller::component(self.name);
        if let Some(lease) = self.try_renew(api, &caller, world) {
            if !self.leading {
                self.leading = true;
                let message = format!("{} became leader", self.identity);
                let reason = ("Normal", "LeaderElection");
                let _ = event(api, &caller, world, &lease, reason, &message, self.name);
            }
            self.last_renew_ms = Some(world.now());
        } else if self.leading && self.deadline_passed(world.now()) {
            self.leading = false;
        }
        self.leading
    }

    /// Renews the Lease, or creates it where there is none; the Lease, when that worked.
    fn try_renew(
        &self,
        api: &mut ApiServer,
        caller: &Caller,
        world: &mut Cluster,
    ) -> Option<Value> {
        let now = world.now();
        let identity = self.identity.as_str();
        match api.get(world, &LEASES, "kube-system", self.name) {
            Ok(_) => api
                .guaranteed_update(caller, world, &LEASES, "kube-system", self.name, |cur| {
                    let holder = objects::from_value::<Lease>(cur)
                        .and_then(|l| l.spec.holder_identity)
                        .unwrap_or_default();
                    if holder != identity && !holder.is_empty() {
                        return Err(ApiError::internal(format!("lease held by {holder}")));
                    }
                    Ok(edit(cur, |lease: &mut Lease| {
                        lease.spec.holder_identity = Some(identity.to_string());
                        lease.spec.lease_duration_seconds = Some(LEASE_DURATION_S);
                        lease.spec.renew_time = Some(micro_time(now));
                    }))
                })
                .ok(),
            Err(e) if e.reason == "NotFound" => {
                let lease = json!({
                    "metadata": {"name": self.name, "namespace": "kube-system"},
                    "spec": {"holderIdentity": identity, "leaseDurationSeconds": LEASE_DURATION_S,
                        "acquireTime": micro_time(now), "renewTime": micro_time(now),
                        "leaseTransitions": 0}
                });
                api.create(caller, world, &LEASES, lease).ok()
            }
            Err(_) => None,
        }
    }
}
