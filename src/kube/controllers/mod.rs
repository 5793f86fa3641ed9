//! The loops that converge actual state to desired state, each reading through the
//! apiserver's watch cache (what an informer holds) and writing through the apiserver under its
//! own name: kubelets (node leases, pod lifecycle, static pods), the scheduler, the ReplicaSet
//! and Deployment controllers (KK `pkg/controller/{replicaset,deployment}`), the garbage
//! collector and the node lifecycle controller, the last two kinds only while their component
//! holds its leader-election Lease.

pub mod addons;
mod deployment;
mod file_source;
mod garbage_collector;
pub(crate) mod informers;
mod kubelet;
mod leader_election;
mod node_lifecycle;
mod rate_limit;
mod replicaset;
mod scheduler;
mod static_pods;

pub use deployment::pod_template_hash;
pub use file_source::{Change, Container, ContainerState, Files, ETCD_DATA_DIR, MANIFEST_DIR};

use super::apiserver::{ApiServer, Caller, EventNote};
use super::meta::{self, ApiError};
use super::objects::{self, OwnerReference};
use crate::base::{MemberId, Millis, Rng};
use crate::etcd::{Cluster, Preset};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

#[derive(Clone, Debug)]
pub struct Controllers {
    /// One generator for every loop's random draws, so a seed gives the same run only while
    /// the loops draw in the same order (the tick order below).
    rng: Rng,
    /// Whose machines these are: the ring's or the articles' kubeadm cluster.
    preset: Preset,
    /// The control-plane nodes, one per etcd member at `kube up` (kubeadm's stacked etcd).
    control_plane: Vec<(String, MemberId)>,
    /// The manifests and containers of the console's machine, when it is a node (kubeadm).
    file_source: file_source::FileSource,
    kubelets: kubelet::Kubelets,
    node_lifecycle: node_lifecycle::NodeLifecycle,
    scheduler: scheduler::Scheduler,
    garbage_collector: garbage_collector::Collector,
    /// The ReplicaSet controller's client (its own token bucket).
    replicaset_client: rate_limit::RateLimiter,
    controller_manager_lease: leader_election::Elector,
    scheduler_lease: leader_election::Elector,
    informers: informers::Informers,
    /// The loops that act on what the watch cache holds alone: the cache's revision at each
    /// one's last round that sent the API server nothing (see [`Quiet::round`]).
    quiet: Quiet,
}

type Tick = Result<(), ApiError>;

/// The loops [`Quiet`] may skip a round of.
#[derive(Clone, Copy)]
enum Loop {
    Scheduler,
    Deployment,
    ReplicaSet,
    GarbageCollector,
}

/// Per loop, the watch cache's revision at its last round that sent no request.
#[derive(Clone, Debug, Default)]
struct Quiet {
    at: [Option<i64>; 4],
    #[cfg(test)]
    skipped: u64,
}

/// Whether a round left work waiting on the clock (a backoff, a client's rate limit).
type Waiting = bool;

impl Quiet {
    /// Runs one round of a loop that reads only the watch cache until it sends a request
    /// (and the clock only for what it writes or for work it leaves waiting), and draws no
    /// random numbers before one: a round that sent nothing and left nothing waiting would do
    /// the same while the cache holds the same revision, so that round is skipped. Most
    /// rounds of an idle cluster are such rounds (the loops tick ten times a second).
    fn round(
        &mut self,
        which: Loop,
        api: &mut ApiServer,
        round: impl FnOnce(&mut ApiServer) -> Result<Waiting, ApiError>,
    ) -> Tick {
        let revision = api.cache_revision();
        let at = &mut self.at[which as usize];
        if *at == Some(revision) {
            #[cfg(test)]
            {
                self.skipped += 1;
            }
            return Ok(());
        }
        let requests = api.requests();
        let result = round(api);
        let idle = matches!(result, Ok(false)) && api.requests() == requests;
        *at = idle.then_some(revision);
        result.map(|_| ())
    }
}

/// A token bucket's use in `round`: whether it asked for one (work a refused token leaves
/// waiting).
fn asking(
    client: &mut rate_limit::RateLimiter,
    round: impl FnOnce(&mut rate_limit::RateLimiter) -> Tick,
) -> Result<Waiting, ApiError> {
    let asked = client.asked();
    round(client)?;
    Ok(client.asked() != asked)
}

/// An etcd failure stops the round (the next round retries); API errors such as a Conflict
/// only skip the one object.
fn soft<T>(result: Result<T, ApiError>) -> Tick {
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.code >= 500 => Err(e),
        Err(_) => Ok(()),
    }
}

/// `cur` read as `T` and changed by `change`; an object that does not read as `T` is left as
/// it is (so it is not written).
fn edit<T: DeserializeOwned + Serialize>(cur: &Value, change: impl FnOnce(&mut T)) -> Value {
    match objects::from_value::<T>(cur) {
        Some(mut object) => {
            change(&mut object);
            objects::to_value(&object)
        }
        None => cur.clone(),
    }
}

/// An Event about `obj` from `component`, written as `caller`; a kubelet's names its host
/// (the pod's node).
fn event(
    api: &mut ApiServer,
    caller: &Caller,
    world: &mut Cluster,
    obj: &Value,
    (event_type, reason): (&str, &str),
    message: &str,
    component: &str,
) -> Result<(), ApiError> {
    let host = (component == "kubelet").then(|| meta::str_at(obj, &["spec", "nodeName"]));
    let note = EventNote {
        involved: obj,
        kind: meta::str_at(obj, &["kind"]),
        event_type,
        reason,
        message,
        component,
        host,
    };
    api.record_event(caller, world, &note)
}

/// The owner reference a controller puts on what it creates.
fn owner_ref(owner: &Value) -> OwnerReference {
    OwnerReference {
        api_version: meta::str_at(owner, &["apiVersion"]).to_string(),
        kind: meta::str_at(owner, &["kind"]).to_string(),
        name: meta::name(owner).to_string(),
        uid: meta::uid(owner).to_string(),
        controller: Some(true),
        block_owner_deletion: Some(true),
        rest: objects::Rest::new(),
    }
}

/// `2026-01-01T00:00:05.000000Z`: Lease times are MicroTime.
fn micro_time(ms: Millis) -> String {
    crate::base::time::rfc3339_micros(crate::etcd::EPOCH_UNIX_MS + ms)
}

impl Controllers {
    pub fn new(rng: Rng, preset: Preset) -> Controllers {
        Controllers {
            rng,
            preset,
            control_plane: Vec::new(),
            file_source: file_source::FileSource::default(),
            kubelets: kubelet::Kubelets::default(),
            node_lifecycle: node_lifecycle::NodeLifecycle::default(),
            scheduler: scheduler::Scheduler::default(),
            garbage_collector: garbage_collector::Collector::default(),
            replicaset_client: rate_limit::RateLimiter::new(rate_limit::CONTROLLER_MANAGER, 0),
            controller_manager_lease: leader_election::Elector::new("kube-controller-manager"),
            scheduler_lease: leader_election::Elector::new("kube-scheduler"),
            informers: informers::Informers::default(),
            quiet: Quiet::default(),
        }
    }

    /// A new API server's cache is read afresh (what it could not decode may differ): every
    /// loop runs its next round.
    pub fn forget_quiet_rounds(&mut self) {
        self.quiet = Quiet::default();
    }

    #[cfg(test)]
    pub fn quiet_rounds_skipped(&self) -> u64 {
        self.quiet.skipped
    }

    /// Every node: the control plane's, then the workers.
    pub fn node_names(&self) -> Vec<String> {
        self.control_plane
            .iter()
            .map(|(n, _)| n.clone())
            .chain(self.preset.workers().iter().map(|(n, _)| n.to_string()))
            .collect()
    }

    /// The kubelets register their Node objects and node Leases (written as `caller`): a
    /// control-plane node per etcd member (tainted so that workloads stay off it), then the
    /// workers.
    pub fn register_nodes(
        &mut self,
        api: &mut ApiServer,
        caller: &Caller,
        world: &mut Cluster,
    ) -> Tick {
        // A machine is called as its member is (`--name`): m1, or kubeadm's master.
        self.control_plane = world
            .processes()
            .filter(|(m, _)| !world.is_removed(*m))
            .map(|(m, p)| (p.identity.name.clone(), m))
            .collect();
        let control_plane: Vec<String> =
            self.control_plane.iter().map(|(n, _)| n.clone()).collect();
        self.kubelets
            .register(api, caller, world, (self.preset, &control_plane))
    }

    /// The first control-plane machine: the console's own in the kubeadm world.
    fn first_machine(&self) -> Option<static_pods::Machine<'_>> {
        let (node, member) = self.control_plane.first()?;
        Some(static_pods::Machine {
            node,
            member: *member,
            index: 0,
        })
    }

    /// `kubeadm init` on the first machine: its manifests and etcd's data dir written into
    /// `files`, and its kubelet following them from now on.
    pub fn init_machine(&mut self, world: &mut Cluster, files: &mut Files) {
        if let Some(machine) = self.first_machine() {
            let source = file_source::FileSource::init(world, files, self.preset, machine);
            self.file_source = source;
        }
    }

    /// The kubelet of the console's machine looks at its manifests (see [`file_source`]).
    pub fn follow_manifests(&mut self, world: &mut Cluster, files: &mut Files) -> Vec<Change> {
        let Some(machine) = self.first_machine().filter(|_| self.file_source.on_files()) else {
            return Vec::new();
        };
        let (node, member) = (machine.node.to_string(), machine.member);
        let machine = static_pods::Machine {
            node: &node,
            member,
            index: 0,
        };
        self.file_source.follow(world, files, self.preset, machine)
    }

    /// Whether a control-plane component runs (a static pod whose manifest was moved away
    /// does not).
    pub fn serving(&self, component: &str) -> bool {
        self.file_source.serving(component)
    }

    /// The static pods' containers on the console's machine (kubeadm), newest first.
    pub fn containers(&self) -> Vec<&Container> {
        self.file_source.containers()
    }

    /// One round of every loop, in a fixed order. The kubelets run on their nodes whatever
    /// happens to the control plane, and the control plane's components are processes of their
    /// own: a failing kubelet round does not stop them from trying.
    /// Without an API server nothing of this can be done (the kubelets' own containers go on;
    /// [`Controllers::follow_manifests`]).
    pub fn tick(&mut self, api: &mut ApiServer, world: &mut Cluster) {
        if !self.serving("kube-apiserver") {
            return;
        }
        let _ = self.kubelet_round(api, world);
        let scheduling = self.serving("kube-scheduler") && self.scheduler_lease.elect(api, world);
        let managing = self.serving("kube-controller-manager")
            && self.controller_manager_lease.elect(api, world);
        let _ = self.control_round(api, world, scheduling, managing);
    }

    /// The kubelets' loops; the cache catches up after each, and an etcd failure ends the round.
    fn kubelet_round(&mut self, api: &mut ApiServer, world: &mut Cluster) -> Tick {
        let nodes = self.node_names();
        self.kubelets.renew_leases(api, world, &nodes)?;
        api.sync(world);
        let informers = &mut self.informers;
        self.kubelets
            .sync_pods(api, world, &mut self.rng, informers)?;
        api.sync(world);
        static_pods::sync(
            api,
            world,
            (self.preset, &self.control_plane),
            (&self.kubelets, &self.file_source),
            informers,
        )?;
        api.sync(world);
        Ok(())
    }

    /// The scheduler and the controller manager's loops, each only while its component leads.
    fn control_round(
        &mut self,
        api: &mut ApiServer,
        world: &mut Cluster,
        scheduling: bool,
        managing: bool,
    ) -> Tick {
        let nodes = self.node_names();
        let informers = &mut self.informers;
        let (rng, quiet) = (&mut self.rng, &mut self.quiet);
        if scheduling {
            let scheduler = &mut self.scheduler;
            quiet.round(Loop::Scheduler, api, |api| {
                scheduler.sync(api, world, rng, informers)
            })?;
            api.sync(world);
        }
        if managing {
            quiet.round(Loop::Deployment, api, |api| {
                deployment::sync(api, world, rng, informers).map(|()| false)
            })?;
            api.sync(world);
            let client = &mut self.replicaset_client;
            quiet.round(Loop::ReplicaSet, api, |api| {
                asking(client, |client| {
                    replicaset::sync(api, world, informers, client)
                })
            })?;
            api.sync(world);
            let collector = &mut self.garbage_collector;
            quiet.round(Loop::GarbageCollector, api, |api| {
                collector.sync(api, world, informers).map(|()| false)
            })?;
            api.sync(world);
            self.node_lifecycle.sync(api, world, &nodes, informers)?;
            api.sync(world);
        }
        Ok(())
    }

    /// Stops or starts a node's kubelet (a node failure the control plane must notice).
    pub fn set_kubelet_running(&mut self, node: &str, running: bool) -> bool {
        if !self.node_names().iter().any(|n| n == node) {
            return false;
        }
        self.kubelets.set_running(node, running);
        true
    }

    /// Whether the controller manager and the scheduler currently lead (for views and tests).
    pub fn leading(&self) -> (bool, bool) {
        (
            self.controller_manager_lease.leading(),
            self.scheduler_lease.leading(),
        )
    }
}
