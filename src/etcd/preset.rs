//! World presets: what the simulated machines are called and where they listen. `members` is
//! the classroom's ring (members `m1`..`mN` on loopback ports, workers `node-1`..`node-3`);
//! `kubeadm` is the articles' lab: one control-plane machine `master` at 10.140.0.33 whose
//! etcd member `master` speaks TLS, and the workers `node01` and `node02`.

use super::member::Identity;
use super::{cluster_id, member_id};
use crate::base::MemberId;
use serde::Serialize;

/// Which world a run starts from (`raftlab run --world NAME`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Preset {
    /// Members `m1..mN`, as many as `--members` asks.
    #[default]
    Members,
    /// The articles' kubeadm cluster, Kubernetes up.
    Kubeadm,
}

/// The articles' kubeadm machine and its etcd member.
pub mod kubeadm {
    /// The control-plane node, and its etcd member's `--name`.
    pub const MEMBER_NAME: &str = "master";
    pub const HOST_IP: &str = "10.140.0.33";
    pub const PEER_URL: &str = "https://10.140.0.33:2380";
    /// `--advertise-client-urls`; the member listens on loopback too.
    pub const CLIENT_URL: &str = "https://10.140.0.33:2379";
    pub const LISTEN_CLIENT_URLS: &str = "https://127.0.0.1:2379,https://10.140.0.33:2379";
    /// kubeadm sets no `--initial-cluster-token`: etcd's (and etcdutl's) default.
    pub const CLUSTER_TOKEN: &str = "etcd-cluster";
    /// The server in `/etc/kubernetes/admin.conf`.
    pub const API_SERVER: &str = "10.140.0.33:6443";
    /// The lines article 001 types before its first etcdctl command (三 Step 3).
    pub const ETCDCTL_EXPORTS: [&str; 4] = [
        "export ETCDCTL_ENDPOINTS=https://127.0.0.1:2379",
        "export ETCDCTL_CACERT=/etc/kubernetes/pki/etcd/ca.crt",
        "export ETCDCTL_CERT=/etc/kubernetes/pki/etcd/healthcheck-client.crt",
        "export ETCDCTL_KEY=/etc/kubernetes/pki/etcd/healthcheck-client.key",
    ];
}

/// The data dir etcd makes on its first start as `identity`, alone in its cluster (an empty
/// store), in the form `etcdutl snapshot restore` writes one: what `/var/lib/etcd` holds.
pub fn new_data_dir(identity: &Identity) -> Vec<u8> {
    let dir = super::RestoredDataDir {
        name: identity.name.clone(),
        peer_urls: identity.peer_urls.clone(),
        initial_cluster_token: kubeadm::CLUSTER_TOKEN.to_string(),
        member_id: identity.etcd_id,
        cluster_id: identity.cluster_id,
        initial_cluster: vec![(identity.name.clone(), identity.peer_urls.clone())],
        db: crate::mvcc::Store::default().encode(),
    };
    serde_json::to_vec(&dir).unwrap_or_default()
}

/// The worker machines of each world: name and address.
const MEMBERS_WORKERS: &[(&str, &str)] = &[
    ("node-1", "172.18.0.2"),
    ("node-2", "172.18.0.3"),
    ("node-3", "172.18.0.4"),
];
const KUBEADM_WORKERS: &[(&str, &str)] = &[("node01", "10.140.0.34"), ("node02", "10.140.0.35")];

impl Preset {
    pub const ALL: [Preset; 2] = [Preset::Members, Preset::Kubeadm];

    /// Its name in `--world NAME`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Members => "members",
            Preset::Kubeadm => "kubeadm",
        }
    }

    pub fn parse(name: &str) -> Result<Preset, String> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
                format!("unknown world {name:?} (one of: {})", names.join(", "))
            })
    }

    /// How many members the world has, when it fixes that.
    pub fn fixed_members(self) -> Option<usize> {
        match self {
            Preset::Members => None,
            Preset::Kubeadm => Some(1),
        }
    }

    /// Who member `id` of a fresh cluster of `ids` is.
    pub fn identity(self, id: MemberId, ids: &[MemberId]) -> Identity {
        match self {
            Preset::Members => Identity::simulated(id, super::simulated_cluster_id(ids)),
            Preset::Kubeadm => {
                let peer_urls = vec![kubeadm::PEER_URL.to_string()];
                let etcd_id = member_id(&peer_urls, kubeadm::CLUSTER_TOKEN);
                Identity {
                    name: kubeadm::MEMBER_NAME.to_string(),
                    peer_urls,
                    client_urls: vec![kubeadm::CLIENT_URL.to_string()],
                    etcd_id,
                    cluster_id: cluster_id(&[etcd_id]),
                }
            }
        }
    }

    /// The address of the `index`th control-plane machine.
    pub fn control_plane_ip(self, index: usize) -> String {
        match self {
            Preset::Members => format!("172.18.0.{}", 10 + index),
            Preset::Kubeadm => kubeadm::HOST_IP.to_string(),
        }
    }

    /// The worker machines: name and address.
    pub fn workers(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Preset::Members => MEMBERS_WORKERS,
            Preset::Kubeadm => KUBEADM_WORKERS,
        }
    }

    /// Where kubectl finds the API server: kubeadm's admin kubeconfig, else none (kubectl's
    /// default, localhost:8080).
    pub fn api_server(self) -> &'static str {
        match self {
            Preset::Members => "localhost:8080",
            Preset::Kubeadm => kubeadm::API_SERVER,
        }
    }

    /// Whether the etcd members serve clients and peers over TLS (kubeadm's certificates).
    pub fn tls(self) -> bool {
        self == Preset::Kubeadm
    }
}

impl super::Cluster {
    /// Whether member `id` serves its clients over TLS (its advertised client URLs are
    /// `https://`, as kubeadm's are): then it serves the PKI of `crate::etcd::pki` and asks
    /// clients for certificates.
    pub fn serves_tls(&self, id: MemberId) -> bool {
        self.process(id).is_some_and(|m| {
            m.identity
                .client_urls
                .iter()
                .any(|u| u.starts_with("https://"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_a_wrong_one_lists_them() {
        for p in Preset::ALL {
            assert_eq!(Preset::parse(p.name()), Ok(p));
        }
        assert_eq!(
            Preset::parse("kind").unwrap_err(),
            "unknown world \"kind\" (one of: members, kubeadm)"
        );
    }

    #[test]
    fn the_kubeadm_member_is_the_articles() {
        let me = Preset::Kubeadm.identity(MemberId(1), &[MemberId(1)]);
        assert_eq!(me.name, "master");
        assert_eq!(me.peer_urls, ["https://10.140.0.33:2380"]);
        // What `etcdutl snapshot restore --name=master --initial-cluster=master=https://
        // 10.140.0.33:2380` derives with its default token: the restore keeps the ids.
        assert_eq!(
            me.etcd_id,
            member_id(&["https://10.140.0.33:2380".into()], "etcd-cluster")
        );
        assert_eq!(me.cluster_id, cluster_id(&[me.etcd_id]));
        let ring = Preset::Members.identity(MemberId(2), &[MemberId(1), MemberId(2)]);
        assert_eq!(ring.name, "m2");
        assert_eq!(Preset::Kubeadm.workers()[1].0, "node02");
    }
}
