//! The mock Kubernetes control plane on top of etcd: an API server that is the only etcd
//! client, controllers (Deployment, ReplicaSet, garbage collector), a scheduler and three
//! simulated kubelets, all stepped in virtual time with the world. Every etcd access goes
//! through the etcd client API (`Cluster::kv`, `Cluster::watch`, `Cluster::compact`), so the
//! control plane's work takes simulated time and fails as a real one does when etcd does.

pub mod apiserver;
mod controllers;
mod defaults;
pub mod encryption;
pub mod limits;
pub mod meta;
pub mod objects;
pub mod proto;
pub mod selector;
pub mod trace;
pub mod view;
pub mod yaml;

pub use apiserver::{ApiServer, Caller, Subresource, WatchEvent, WatchKind};
pub use controllers::{
    pod_template_hash, Change, Container, ContainerState, Files, ETCD_DATA_DIR, MANIFEST_DIR,
};
pub use meta::{ApiError, Resource};

use crate::base::{Millis, Rng};
use crate::etcd::{Cluster, Preset};
use controllers::Controllers;

/// How often the control plane's loops look at the world (virtual time).
pub const TICK_MS: Millis = 100;

/// API server, controllers, scheduler and kubelets: what `kube up` starts.
#[derive(Clone, Debug)]
pub struct ControlPlane {
    pub api: ApiServer,
    controllers: Controllers,
    next_tick_ms: Millis,
    /// Its API server's generator's seed: a restarted API server draws from it again.
    seed: u64,
    preset: Preset,
    /// What [`ControlPlane::view`] has read, kept between views.
    view_cache: view::ViewCache,
}

impl ControlPlane {
    /// Starts the control plane: the apiserver creates the system namespaces, the kubelets
    /// register their nodes. Fails (with the apiserver's error) when etcd cannot be written.
    pub fn up(world: &mut Cluster, seed: u64, preset: Preset) -> Result<ControlPlane, ApiError> {
        let mut api = ApiServer::new(world, Rng::derive(seed, "kube-apiserver"));
        let controllers = Controllers::new(Rng::derive(seed, "kube-controllers"), preset);
        // `kube up`'s own writes (the namespaces, the nodes' registration) are journaled
        // under the apiserver's name.
        let bootstrap = Caller::component("kube-apiserver");
        for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
            let obj = serde_json::json!({"metadata": {"name": ns}});
            match api.create(&bootstrap, world, &meta::NAMESPACES, obj) {
                Ok(_) => {}
                Err(e) if e.reason == "AlreadyExists" => {}
                Err(e) => return Err(e),
            }
        }
        let mut cp = ControlPlane {
            api,
            controllers,
            next_tick_ms: world.now(),
            seed,
            preset,
            view_cache: Default::default(),
        };
        cp.controllers
            .register_nodes(&mut cp.api, &bootstrap, world)?;
        cp.api.sync(world);
        Ok(cp)
    }

    /// Runs the world until virtual time `t`, letting the control plane act every
    /// [`TICK_MS`]. Its etcd requests take virtual time too, so when etcd is slow or has lost
    /// quorum a tick can end after `t`.
    pub fn run_until(&mut self, world: &mut Cluster, t: Millis) {
        loop {
            if self.next_tick_ms > t {
                world.run_until(t);
                return;
            }
            world.run_until(self.next_tick_ms);
            self.tick_once(world);
            if world.now() > t {
                return;
            }
        }
    }

    /// When the control plane next acts (a session that watches every event steps the world
    /// itself up to it, then calls [`ControlPlane::tick_once`]).
    pub fn next_tick_ms(&self) -> Millis {
        self.next_tick_ms
    }

    /// The tick due at [`ControlPlane::next_tick_ms`], and the next one scheduled.
    pub fn tick_once(&mut self, world: &mut Cluster) {
        self.tick(world);
        self.next_tick_ms = (self.next_tick_ms + TICK_MS).max(world.now());
    }

    /// `kubeadm init` on the console's machine (`files`): the control plane up as
    /// [`ControlPlane::up`] starts it, its static pods written as manifests that the
    /// machine's kubelet follows from then on ([`ControlPlane::follow_manifests`]).
    pub fn kubeadm_init(
        world: &mut Cluster,
        files: &mut Files,
        seed: u64,
    ) -> Result<ControlPlane, ApiError> {
        let mut cp = ControlPlane::up(world, seed, Preset::Kubeadm)?;
        cp.controllers.init_machine(world, files);
        controllers::addons::coredns(&mut cp.api, world)?;
        Ok(cp)
    }

    /// The console's machine's kubelet looks at its manifests: pods start and stop as they
    /// come and go. A restarted API server is a new process: it lists etcd afresh.
    pub fn follow_manifests(&mut self, world: &mut Cluster, files: &mut Files) {
        for change in self.controllers.follow_manifests(world, files) {
            if change == Change::Started("kube-apiserver") {
                let mut api = ApiServer::new(world, Rng::derive(self.seed, "kube-apiserver"));
                api.encryption = self.api.encryption.take();
                api.event_ttl_ms = self.api.event_ttl_ms;
                self.api = api;
                self.controllers.forget_quiet_rounds();
            }
        }
    }

    /// Whether the API server answers (its static pod runs).
    pub fn serving(&self) -> bool {
        self.controllers.serving("kube-apiserver")
    }

    /// Where kubectl reaches the API server (`host:port`).
    pub fn address(&self) -> &'static str {
        self.preset.api_server()
    }

    /// The static pods' containers on the console's machine (kubeadm), newest first.
    pub fn containers(&self) -> Vec<&Container> {
        self.controllers.containers()
    }

    /// Every node: the control plane's (one per etcd member), then the workers.
    pub fn node_names(&self) -> Vec<String> {
        self.controllers.node_names()
    }

    /// Stops or starts the kubelet of `node` (false: no such node).
    pub fn set_kubelet_running(&mut self, node: &str, running: bool) -> bool {
        self.controllers.set_kubelet_running(node, running)
    }

    /// Whether kube-controller-manager and kube-scheduler hold their Leases (and so act).
    pub fn leading(&self) -> (bool, bool) {
        self.controllers.leading()
    }

    /// One round of every loop (informers read the apiserver's watch cache, synced first).
    pub fn tick(&mut self, world: &mut Cluster) {
        self.api.sync(world);
        self.api.maybe_compact(world);
        self.controllers.tick(&mut self.api, world);
    }
}

#[cfg(test)]
mod tests;
