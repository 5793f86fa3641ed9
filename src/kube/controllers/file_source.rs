//! The kubelet's file source on the console's own machine (the kubeadm world's `master`): the
//! static pod manifests in `/etc/kubernetes/manifests/`, and the containers the kubelet runs
//! from them, which `crictl ps` lists. A manifest that appears starts its pod, one that goes
//! stops it, and an exited container starts again after the kubelet's back-off. etcd's
//! container starts from whatever `/var/lib/etcd` holds then: the directory it ran on (the
//! same member again), a data dir `etcdutl snapshot restore` wrote (the member restored from
//! it), or nothing (etcd makes a new, empty one, as `--initial-cluster-state=new` does).

use super::static_pods::{etcd_servers, manifest_yaml, static_pods, Machine};
use crate::base::{digest, MemberId, Millis};
use crate::etcd::{read_data_dir, restore_member, Cluster, Identity, Preset};
use std::collections::BTreeMap;

/// The machine's files, as the console keeps them (path to bytes).
pub type Files = BTreeMap<String, Vec<u8>>;

/// kubelet's `staticPodPath` under kubeadm.
pub const MANIFEST_DIR: &str = "/etc/kubernetes/manifests";
/// etcd's `--data-dir` under kubeadm.
pub const ETCD_DATA_DIR: &str = "/var/lib/etcd";
/// What etcd writes into its data dir once it runs there.
const ETCD_WAL: &str = "/var/lib/etcd/member/wal/0000000000000000-0000000000000000.wal";
/// The kubelet's first crash-loop back-off.
const BACK_OFF_MS: Millis = 10_000;
/// The kubelet's container garbage collection runs this often (`ContainerGCPeriod`) and,
/// with kubeadm's `MinAge` of 0, removes every exited container of a pod that is gone.
const CONTAINER_GC_MS: Millis = 60_000;
/// crictl's configuration, which kubeadm's node set-up leaves (without it crictl warns about
/// guessing its endpoint).
const CRICTL_YAML: (&str, &str) = (
    "/etc/crictl.yaml",
    "runtime-endpoint: unix:///run/containerd/containerd.sock\nimage-endpoint: unix:///run/containerd/containerd.sock\n",
);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContainerState {
    Running,
    Exited,
}

/// A container the kubelet runs for a static pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Container {
    pub id: String,
    pub pod_id: String,
    pub image_id: String,
    pub name: &'static str,
    pub pod: String,
    pub created_ms: Millis,
    pub attempt: u32,
    pub state: ContainerState,
    finished_ms: Millis,
}

/// A pod the kubelet started or stopped, for the control plane to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Started(&'static str),
    Stopped(&'static str),
}

#[derive(Clone, Debug, Default)]
pub struct FileSource {
    /// Whether the first control-plane machine's manifests are the console's files.
    on_files: bool,
    /// Each static pod's current container.
    containers: BTreeMap<&'static str, Container>,
    /// Exited containers of pods whose manifest went, until the container GC removes them.
    orphans: Vec<Container>,
    /// The data dir etcd last started from (a digest of its files): the member's own since.
    data_dir_in_use: Option<u64>,
    /// Pod sandboxes made so far (their ids differ).
    sandboxes: u64,
}

/// A digest of everything at and under etcd's data dir, if it is there.
fn data_dir_digest(files: &Files) -> Option<u64> {
    let inside = format!("{ETCD_DATA_DIR}/");
    let mut text = Vec::new();
    for (k, v) in files.range(ETCD_DATA_DIR.to_string()..) {
        if k != ETCD_DATA_DIR && !k.starts_with(&inside) {
            break;
        }
        text.extend_from_slice(k.as_bytes());
        text.extend_from_slice(&digest(v).to_be_bytes());
    }
    (!text.is_empty()).then(|| digest(&text))
}

fn hex64(seed: &str) -> String {
    (0..4)
        .map(|i| format!("{:016x}", digest(format!("{seed}/{i}").as_bytes())))
        .collect()
}

impl FileSource {
    /// `kubeadm init` on the console's machine: the manifests, crictl's configuration and
    /// etcd's data dir written, the kubelet running what they name (etcd already runs).
    pub fn init(world: &mut Cluster, files: &mut Files, preset: Preset, machine: Machine) -> Self {
        let etcd_urls = etcd_servers(preset, &[(machine.node.to_string(), machine.member)]);
        for pod in static_pods(world, preset, machine, &etcd_urls) {
            let path = format!("{MANIFEST_DIR}/{}.yaml", pod.component);
            files.insert(path, manifest_yaml(&pod).into_bytes());
        }
        files.insert(CRICTL_YAML.0.into(), CRICTL_YAML.1.into());
        // kubeadm writes its PKI before the manifests that name it need it.
        files.extend(crate::etcd::pki::kubeadm_files());
        if let Some(m) = world.process(machine.member) {
            files.insert(ETCD_DATA_DIR.into(), crate::etcd::new_data_dir(&m.identity));
        }
        files.insert(ETCD_WAL.into(), wal(machine.member, 0));
        let mut source = FileSource {
            on_files: true,
            data_dir_in_use: data_dir_digest(files),
            ..FileSource::default()
        };
        source.follow(world, files, preset, machine);
        source
    }

    /// Whether the console's machine is a node whose manifests are its files (kubeadm's).
    pub fn on_files(&self) -> bool {
        self.on_files
    }

    /// Whether `component`'s container on `machine` runs: None when it has no manifest. Only
    /// the console's machine is followed; the others run all of theirs, etcd as its member.
    pub fn running(&self, world: &Cluster, machine: Machine, component: &str) -> Option<bool> {
        let member_up = component != "etcd" || world.is_running(machine.member);
        if !self.on_files || machine.index != 0 {
            return Some(member_up);
        }
        let c = self.containers.get(component)?;
        Some(c.state == ContainerState::Running && member_up)
    }

    /// Whether `component` of the first machine serves (the API server answers, the
    /// scheduler schedules).
    pub fn serving(&self, component: &str) -> bool {
        !self.on_files
            || self
                .containers
                .get(component)
                .is_some_and(|c| c.state == ContainerState::Running)
    }

    /// The containers of the console's machine, newest first (what `crictl ps -a` lists).
    pub fn containers(&self) -> Vec<&Container> {
        let mut all: Vec<&Container> = self.containers.values().chain(&self.orphans).collect();
        all.sort_by_key(|c| std::cmp::Reverse((c.created_ms, c.name)));
        all
    }

    /// The kubelet looks at its manifests (and etcd at its process): starts what appeared or
    /// exited long enough ago, stops what went.
    pub fn follow(
        &mut self,
        world: &mut Cluster,
        files: &mut Files,
        preset: Preset,
        machine: Machine,
    ) -> Vec<Change> {
        if !self.on_files {
            return Vec::new();
        }
        let etcd_urls = etcd_servers(preset, &[(machine.node.to_string(), machine.member)]);
        let mut changes = Vec::new();
        let now = world.now();
        self.orphans
            .retain(|c| now < c.finished_ms + CONTAINER_GC_MS);
        for pod in static_pods(world, preset, machine, &etcd_urls) {
            let name = pod.component;
            let present = files.contains_key(&format!("{MANIFEST_DIR}/{name}.yaml"));
            match self.containers.get_mut(name) {
                Some(_) if !present => {
                    if let Some(mut c) = self.containers.remove(name) {
                        if c.state == ContainerState::Running {
                            c.state = ContainerState::Exited;
                            c.finished_ms = now;
                        }
                        self.orphans.push(c);
                    }
                    if name == "etcd" {
                        let _ = world.kill(machine.member);
                    }
                    changes.push(Change::Stopped(name));
                }
                // etcd's process ended (`kill m1`): its container exited.
                Some(c)
                    if c.state == ContainerState::Running
                        && name == "etcd"
                        && !world.is_running(machine.member) =>
                {
                    c.state = ContainerState::Exited;
                    c.finished_ms = now;
                }
                Some(c)
                    if c.state == ContainerState::Exited && now >= c.finished_ms + BACK_OFF_MS =>
                {
                    let attempt = c.attempt + 1;
                    let pod_id = c.pod_id.clone();
                    self.start(world, files, (machine, name), (pod_id, attempt), &pod.image);
                    changes.push(Change::Started(name));
                }
                Some(_) => {}
                None if present => {
                    self.sandboxes += 1;
                    let pod_id = hex64(&format!(
                        "{name}-{}/sandbox{}",
                        machine.node, self.sandboxes
                    ));
                    self.start(world, files, (machine, name), (pod_id, 0), &pod.image);
                    changes.push(Change::Started(name));
                }
                None => {}
            }
        }
        changes
    }

    /// Starts `name`'s container (etcd's member from its data dir).
    fn start(
        &mut self,
        world: &mut Cluster,
        files: &mut Files,
        (machine, name): (Machine, &'static str),
        (pod_id, attempt): (String, u32),
        image: &str,
    ) {
        let pod = format!("{name}-{}", machine.node);
        let runs = name != "etcd" || world.is_running(machine.member) || {
            self.start_etcd(world, files, machine.member)
        };
        let now = world.now();
        self.containers.insert(
            name,
            Container {
                id: hex64(&format!("{pod_id}/{name}/{attempt}")),
                image_id: hex64(image),
                pod_id,
                name,
                pod,
                created_ms: now,
                attempt,
                state: if runs {
                    ContainerState::Running
                } else {
                    ContainerState::Exited
                },
                finished_ms: now,
            },
        );
    }

    /// etcd starts on `/var/lib/etcd`: its own data again, a restored data dir, or (none
    /// there) a new one. Whether it runs (a directory that is no data dir stops it).
    fn start_etcd(&mut self, world: &mut Cluster, files: &mut Files, member: MemberId) -> bool {
        let Some(current) = world.process(member).map(|m| m.identity.clone()) else {
            return false;
        };
        let seen = data_dir_digest(files);
        if seen.is_none() || seen != self.data_dir_in_use {
            if seen.is_none() {
                files.insert(ETCD_DATA_DIR.into(), crate::etcd::new_data_dir(&current));
            }
            let Some(dir) = read_data_dir(files, ETCD_DATA_DIR) else {
                return false;
            };
            if dir.initial_cluster.len() != 1 {
                // Its peers are machines this world does not have: no quorum ever forms.
                return false;
            }
            let identity = Identity {
                name: dir.name,
                peer_urls: dir.peer_urls,
                client_urls: current.client_urls,
                etcd_id: dir.member_id,
                cluster_id: dir.cluster_id,
            };
            restore_member(world, member, identity, dir.db, vec![member]);
            self.sandboxes += 1;
            files.insert(ETCD_WAL.into(), wal(member, self.sandboxes));
            self.data_dir_in_use = data_dir_digest(files);
        }
        world.restart(member).is_ok()
    }
}

/// What stands for etcd's write-ahead log in its data dir (the log itself is the member's
/// disk in the simulation); `generation` tells data dirs apart.
fn wal(member: MemberId, generation: u64) -> Vec<u8> {
    format!("raftlab: the write-ahead log of member {member} (data dir #{generation}); the simulation keeps its entries\n").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::{ClusterConfig, PutRequest, Request, REQUEST_TIMEOUT_MS};
    use crate::kube::ControlPlane;

    const ETCD_YAML: &str = "/etc/kubernetes/manifests/etcd.yaml";
    const APISERVER_YAML: &str = "/etc/kubernetes/manifests/kube-apiserver.yaml";

    fn kubeadm() -> (Cluster, Files, ControlPlane) {
        let mut world = ClusterConfig::kubeadm(1).build();
        assert!(world.run_until_cond(10_000, |w| w.ready_leader().is_some()));
        let mut files = Files::new();
        let cp = ControlPlane::kubeadm_init(&mut world, &mut files, 1).unwrap();
        (world, files, cp)
    }

    fn put(world: &mut Cluster, key: &str) {
        let put = Request::Put(PutRequest::new(key.as_bytes().to_vec(), b"v".to_vec()));
        world
            .kv(MemberId(1), put, false, REQUEST_TIMEOUT_MS)
            .unwrap();
    }

    fn has(world: &Cluster, key: &str) -> bool {
        world
            .kv_view(MemberId(1))
            .is_some_and(|s| s.kvs.iter().any(|kv| kv.key == key.as_bytes()))
    }

    #[test]
    fn kubeadm_init_writes_the_manifests_and_the_data_dir_it_runs() {
        let (world, files, cp) = kubeadm();
        for c in [
            "etcd",
            "kube-apiserver",
            "kube-controller-manager",
            "kube-scheduler",
        ] {
            assert!(
                files.contains_key(&format!("{MANIFEST_DIR}/{c}.yaml")),
                "{c}"
            );
        }
        let etcd = String::from_utf8_lossy(&files[ETCD_YAML]).into_owned();
        for flag in [
            "- --data-dir=/var/lib/etcd\n",
            "- --name=master\n",
            "- --initial-cluster=master=https://10.140.0.33:2380\n",
            "- --initial-advertise-peer-urls=https://10.140.0.33:2380\n",
            "- --listen-client-urls=https://127.0.0.1:2379,https://10.140.0.33:2379\n",
            "- --trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt\n",
            "      path: /var/lib/etcd\n",
        ] {
            assert!(etcd.contains(flag), "{flag} not in\n{etcd}");
        }
        let apiserver = String::from_utf8_lossy(&files[APISERVER_YAML]).into_owned();
        assert!(apiserver.contains("- --etcd-servers=https://127.0.0.1:2379\n"));
        let dir = read_data_dir(&files, ETCD_DATA_DIR).unwrap();
        assert_eq!(dir.name, "master");
        assert_eq!(dir.peer_urls, ["https://10.140.0.33:2380"]);
        let names: Vec<&str> = cp.containers().iter().map(|c| c.name).collect();
        assert_eq!(names.len(), 4, "{names:?}");
        assert!(cp
            .containers()
            .iter()
            .all(|c| c.state == ContainerState::Running));
        assert!(cp.serving() && world.is_running(MemberId(1)));
        assert_eq!(cp.node_names(), ["master", "node01", "node02"]);
    }

    #[test]
    fn a_manifest_moved_out_stops_its_pod_and_moved_back_starts_it() {
        let (mut world, mut files, mut cp) = kubeadm();
        put(&mut world, "kept");
        let apiserver = files.remove(APISERVER_YAML).unwrap();
        let etcd = files.remove(ETCD_YAML).unwrap();
        cp.follow_manifests(&mut world, &mut files);
        assert!(!cp.serving(), "the API server went with its manifest");
        assert!(!world.is_running(MemberId(1)), "etcd stopped");
        let running = |cp: &ControlPlane| -> Vec<&'static str> {
            let all = cp.containers();
            let up = all.iter().filter(|c| c.state == ContainerState::Running);
            up.map(|c| c.name).collect()
        };
        assert_eq!(running(&cp), ["kube-scheduler", "kube-controller-manager"]);
        let exited: Vec<&str> = cp
            .containers()
            .iter()
            .filter(|c| c.state == ContainerState::Exited)
            .map(|c| c.name)
            .collect();
        assert_eq!(
            exited,
            ["kube-apiserver", "etcd"],
            "crictl ps -a lists them Exited"
        );
        files.insert(ETCD_YAML.into(), etcd);
        files.insert(APISERVER_YAML.into(), apiserver);
        cp.follow_manifests(&mut world, &mut files);
        assert!(cp.serving() && world.is_running(MemberId(1)));
        assert!(world.run_until_cond(10_000, |w| w.ready_leader().is_some()));
        assert!(has(&world, "kept"), "the same data dir: the same member");
        let etcd = cp
            .containers()
            .into_iter()
            .find(|c| c.name == "etcd")
            .unwrap();
        assert_eq!(etcd.attempt, 0, "a new pod, not a restarted container");
        assert_eq!(etcd.state, ContainerState::Running);
        assert_eq!(cp.containers().len(), 6, "the old pods' containers, Exited");
        world.run_for(CONTAINER_GC_MS);
        cp.follow_manifests(&mut world, &mut files);
        assert_eq!(running(&cp).len(), 4);
        assert_eq!(cp.containers().len(), 4, "the container GC removed them");
    }

    #[test]
    fn etcd_starts_from_what_var_lib_etcd_holds_then() {
        let (mut world, mut files, mut cp) = kubeadm();
        put(&mut world, "before");
        let etcd = files.remove(ETCD_YAML).unwrap();
        cp.follow_manifests(&mut world, &mut files);
        // A data dir of another store (what a restore writes): the member starts from it.
        let own: Vec<(String, Vec<u8>)> = files
            .range(ETCD_DATA_DIR.to_string()..)
            .take_while(|(k, _)| k.starts_with(ETCD_DATA_DIR))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, _) in &own {
            files.remove(k);
        }
        files.insert(
            ETCD_DATA_DIR.into(),
            crate::etcd::new_data_dir(&world.process(MemberId(1)).unwrap().identity),
        );
        files.insert(ETCD_YAML.into(), etcd.clone());
        cp.follow_manifests(&mut world, &mut files);
        assert!(world.run_until_cond(10_000, |w| w.ready_leader().is_some()));
        assert!(
            !has(&world, "before"),
            "the restored store replaced the member's"
        );
        assert!(files.contains_key(ETCD_WAL), "etcd writes its log there");
        put(&mut world, "after");
        // The same dir again (stopped and started): the member keeps what it wrote since.
        files.remove(ETCD_YAML);
        cp.follow_manifests(&mut world, &mut files);
        files.insert(ETCD_YAML.into(), etcd);
        cp.follow_manifests(&mut world, &mut files);
        assert!(world.run_until_cond(10_000, |w| w.ready_leader().is_some()));
        assert!(has(&world, "after"));
    }

    #[test]
    fn a_killed_etcd_is_started_again_after_the_back_off() {
        let (mut world, mut files, mut cp) = kubeadm();
        world.kill(MemberId(1)).unwrap();
        cp.follow_manifests(&mut world, &mut files);
        let state = |cp: &ControlPlane| {
            let c = cp
                .containers()
                .into_iter()
                .find(|c| c.name == "etcd")
                .cloned();
            c.map(|c| (c.state, c.attempt)).unwrap()
        };
        assert_eq!(state(&cp), (ContainerState::Exited, 0));
        world.run_for(BACK_OFF_MS - 1);
        cp.follow_manifests(&mut world, &mut files);
        assert_eq!(state(&cp), (ContainerState::Exited, 0));
        world.run_for(1);
        cp.follow_manifests(&mut world, &mut files);
        assert_eq!(state(&cp), (ContainerState::Running, 1));
        assert!(world.is_running(MemberId(1)));
    }

    #[test]
    fn a_data_dir_etcd_cannot_read_keeps_it_exited() {
        let (mut world, mut files, mut cp) = kubeadm();
        let etcd = files.remove(ETCD_YAML).unwrap();
        cp.follow_manifests(&mut world, &mut files);
        files.retain(|k, _| !k.starts_with(ETCD_DATA_DIR));
        files.insert(ETCD_DATA_DIR.into(), b"not a data dir".to_vec());
        files.insert(ETCD_YAML.into(), etcd);
        cp.follow_manifests(&mut world, &mut files);
        assert!(!world.is_running(MemberId(1)));
        let etcd = cp
            .containers()
            .into_iter()
            .find(|c| c.name == "etcd")
            .unwrap();
        assert_eq!(etcd.state, ContainerState::Exited);
    }
}
