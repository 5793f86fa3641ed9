//! Where etcdctl connects. Without `--endpoints` the console is a client of the whole cluster
//! through one address, as a client behind a load balancer in front of the members' client
//! URLs is: each command (a new process, so a new connection) lands on the first member that
//! accepts connections, and is named by it. With `--endpoints`, every entry is read in the
//! forms etcdctl takes (`m2`, `m2:2379`, `http://m2:2379`, the client URL `member list`
//! shows, `http://127.0.0.1:22379`, `127.0.0.1:2379` for the member on this machine), and
//! clientv3's balancer skips the ones it cannot connect to (`Cluster::first_reachable`). A
//! member that advertises `https://` client URLs serves TLS: only a client whose TLS files
//! pass `tls::handshake` connects to it, and a TLS client connects to no plain member.

use super::tls::{self, ClientTls, Refusal};
use crate::base::MemberId;
use crate::console::Hint;
use crate::etcd::{client_url, Cluster};

/// What an endpoint reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Member(MemberId),
    /// A member whose connection never becomes ready: TLS on one side only, or a handshake
    /// that fails (so the client waits out its timeout).
    Refused(MemberId, Refusal),
    /// Nothing listens there.
    Nowhere,
}

/// The port every member's host serves clients on when named by its host name
/// (`http://m2:2379`), as on the machines of a real cluster.
const CLIENT_PORT: &str = "2379";

/// Reads one `--endpoints` entry (`leader` names the current leader) for a client with
/// `tls`: `https://` dials TLS, `http://` plain, no scheme TLS only if a TLS flag was given
/// (clientv3 3.4 dials securely when it has a TLS config).
pub fn resolve(world: &Cluster, endpoint: &str, tls: &ClientTls) -> Target {
    let (dials_tls, address) = match endpoint.split_once("://") {
        None => (tls.configured, endpoint),
        Some(("http", rest)) => (false, rest),
        Some(("https", rest)) => (true, rest),
        // unix sockets and unknown schemes: grpc dials nothing the members listen on.
        Some(_) => return Target::Nowhere,
    };
    let address = address.trim_end_matches('/');
    let member = match address.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => {
            on_port(world, host, port)
        }
        _ => named(world, address),
    };
    let Some(m) = member else {
        return Target::Nowhere;
    };
    match tls::handshake(tls, dials_tls, world.serves_tls(m)) {
        Ok(()) => Target::Member(m),
        Err(refusal) => Target::Refused(m, refusal),
    }
}

/// The client URLs a member advertises (what `member list` shows).
fn client_urls(world: &Cluster, m: MemberId) -> Vec<String> {
    world
        .process(m)
        .map_or_else(|| vec![client_url(m)], |p| p.identity.client_urls.clone())
}

fn named(world: &Cluster, host: &str) -> Option<MemberId> {
    if host == "leader" {
        return world.leader();
    }
    world.member(host).ok()
}

/// `host:port`: a member's host on the client port, an address a member advertises, or the
/// loopback address of the member on this machine (every member also listens there).
fn on_port(world: &Cluster, host: &str, port: &str) -> Option<MemberId> {
    let members = world.member_ids();
    let loopback = host == "127.0.0.1" || host == "localhost";
    let wanted = format!("{host}:{port}");
    let suffix = format!(":{port}");
    members
        .iter()
        .copied()
        .find(|m| {
            client_urls(world, *m).iter().any(|u| {
                let address = u.split_once("://").map_or(u.as_str(), |(_, a)| a);
                address == wanted || (loopback && address.ends_with(&suffix))
            })
        })
        .or_else(|| {
            let url = format!("http://127.0.0.1:{port}");
            let local = members.iter().copied().find(|m| client_url(*m) == url);
            loopback.then_some(local).flatten()
        })
        .or_else(|| named(world, host).filter(|_| port == CLIENT_PORT))
}

/// The endpoint a command without `--endpoints` connects to: the first member of the cluster
/// that accepts connections (the first member when none does, so the call waits and fails
/// as it would).
///
/// On the kubeadm machine (its member serves TLS) the console runs beside its one member,
/// so the default is etcdctl's own, `127.0.0.1:2379`, and output names it so.
pub fn default_endpoint(world: &Cluster) -> String {
    let members = world.client_endpoints();
    let member = world
        .first_reachable(&members)
        .or_else(|| members.first().copied());
    match member {
        _ if default_is_local(world) => ETCDCTL_DEFAULT.to_string(),
        Some(m) => m.to_string(),
        None => "m1".to_string(),
    }
}

/// Whether the console's etcdctl runs beside its member (the kubeadm machine): then its
/// default endpoint is that member's loopback address, not the cluster's first member up.
pub fn default_is_local(world: &Cluster) -> bool {
    let members = world.client_endpoints();
    members.first().is_some_and(|m| world.serves_tls(*m))
}

/// clientv3's default endpoint (etcdctl's `--endpoints` default).
const ETCDCTL_DEFAULT: &str = "127.0.0.1:2379";

/// Why a request to `member` (None: to `endpoints`, where nothing answered) went
/// unanswered, when the error cannot say: what the page adds as its hint.
pub fn diagnose(
    world: &Cluster,
    tls: &ClientTls,
    endpoints: &[String],
    member: Option<MemberId>,
) -> Option<Hint> {
    let Some(m) = member else {
        let (endpoint, target) = endpoints
            .iter()
            .map(|e| (e.clone(), resolve(world, e, tls)))
            .find(|(_, t)| !matches!(t, Target::Member(_)))?;
        return Some(match target {
            Target::Refused(_, Refusal::NoTls) => Hint::NoTls { endpoint },
            Target::Refused(_, Refusal::NeedsTls) => Hint::NeedsTls { endpoint },
            Target::Refused(_, Refusal::UnknownAuthority) => Hint::UnknownCa { endpoint },
            Target::Refused(_, Refusal::NoClientCert) => Hint::NoClientCert { endpoint },
            _ => Hint::NoSuchEndpoint { endpoint },
        });
    };
    if !world.accepts_connections(m) {
        let up = world
            .client_endpoints()
            .into_iter()
            .filter(|o| world.accepts_connections(*o))
            .map(|o| o.to_string())
            .collect();
        return Some(Hint::EndpointDown {
            member: m.to_string(),
            up,
        });
    }
    let quorum = world.quorum_view();
    if quorum.reachable < quorum.quorum {
        return Some(Hint::NoQuorum {
            reachable: quorum.reachable,
            quorum: quorum.quorum,
        });
    }
    if !world.largest_connected_group().contains(&m) {
        return Some(Hint::CutOff {
            member: m.to_string(),
        });
    }
    world.leader().is_none().then_some(Hint::Electing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::ClusterConfig;

    fn world() -> Cluster {
        let mut w = ClusterConfig::new(3, 1).build();
        w.run_for(3_000);
        w
    }

    #[test]
    fn every_url_form_of_a_member_reaches_it() {
        let w = world();
        let plain = ClientTls::default();
        let m2 = Target::Member(MemberId(2));
        for form in [
            "m2",
            "m2:2379",
            "http://m2:2379",
            "http://m2:2379/",
            "127.0.0.1:22379",
            "http://127.0.0.1:22379",
            "localhost:22379",
        ] {
            assert_eq!(resolve(&w, form, &plain), m2, "{form}");
        }
        assert_eq!(
            resolve(&w, "http://127.0.0.1:2379", &plain),
            Target::Member(MemberId(1))
        );
        assert_eq!(
            resolve(&w, "https://m2:2379", &plain),
            Target::Refused(MemberId(2), Refusal::NoTls)
        );
        for nothing in [
            "m9",
            "m2:2380",
            "127.0.0.1:1",
            "127.0.0.1",
            "unix://m2:2379",
            "ftp://m2",
            "",
            "m2:",
        ] {
            assert_eq!(resolve(&w, nothing, &plain), Target::Nowhere, "{nothing:?}");
        }
        let leader = w.leader().expect("a leader after 3 s");
        assert_eq!(resolve(&w, "leader", &plain), Target::Member(leader));
    }

    #[test]
    fn the_default_endpoint_is_the_first_member_that_accepts_connections() {
        let mut w = world();
        assert_eq!(default_endpoint(&w), "m1");
        w.kill(MemberId(1)).expect("m1 runs");
        assert_eq!(default_endpoint(&w), "m2");
        w.pause(MemberId(2)).expect("m2 runs");
        assert_eq!(default_endpoint(&w), "m3");
        w.kill(MemberId(3)).expect("m3 runs");
        assert_eq!(
            default_endpoint(&w),
            "m1",
            "nobody is up: the first, to fail on"
        );
    }

    #[test]
    fn on_the_kubeadm_machine_the_default_is_etcdctls_own_and_reaches_master() {
        let mut w = crate::etcd::ClusterConfig::kubeadm(1).build();
        assert_eq!(default_endpoint(&w), "127.0.0.1:2379");
        let tls = ClientTls {
            configured: true,
            ..ClientTls::default()
        };
        assert!(matches!(
            resolve(&w, &default_endpoint(&w), &tls),
            Target::Member(MemberId(1)) | Target::Refused(MemberId(1), _)
        ));
        assert_eq!(w.member("master"), Ok(MemberId(1)), "its etcd name");
        assert_eq!(w.display_name(MemberId(1)), "master");
        w.kill(MemberId(1)).expect("master runs");
        assert_eq!(
            default_endpoint(&w),
            "127.0.0.1:2379",
            "stopped: still there"
        );
    }

    #[test]
    fn the_diagnosis_names_what_the_error_does_not() {
        let mut w = world();
        let plain = ClientTls::default();
        let eps = |s: &str| vec![s.to_string()];
        assert_eq!(
            diagnose(&w, &plain, &eps("https://m2:2379"), None),
            Some(Hint::NoTls {
                endpoint: "https://m2:2379".into()
            })
        );
        assert_eq!(
            diagnose(&w, &plain, &eps("m9"), None),
            Some(Hint::NoSuchEndpoint {
                endpoint: "m9".into()
            })
        );
        assert_eq!(diagnose(&w, &plain, &eps("m1"), Some(MemberId(1))), None);
        w.kill(MemberId(1)).expect("m1 runs");
        assert_eq!(
            diagnose(&w, &plain, &eps("m1"), Some(MemberId(1))),
            Some(Hint::EndpointDown {
                member: "m1".into(),
                up: vec!["m2".into(), "m3".into()]
            })
        );
        w.kill(MemberId(2)).expect("m2 runs");
        assert_eq!(
            diagnose(&w, &plain, &eps("m3"), Some(MemberId(3))),
            Some(Hint::NoQuorum {
                reachable: 1,
                quorum: 2
            })
        );
    }
}
