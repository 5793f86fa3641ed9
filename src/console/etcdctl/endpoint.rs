//! Where etcdctl connects. Without `--endpoints` the console is a client of the whole cluster
//! through one address, as a client behind a load balancer in front of the members' client
//! URLs is: each command (a new process, so a new connection) lands on the first member that
//! accepts connections, and is named by it. With `--endpoints`, every entry is read in the
//! forms etcdctl takes (`m2`, `m2:2379`, `http://m2:2379`, the client URL `member list`
//! shows, `http://127.0.0.1:22379`), and clientv3's balancer skips the ones it cannot
//! connect to (`Cluster::first_reachable`).

use crate::base::MemberId;
use crate::console::Hint;
use crate::etcd::{client_url, Cluster};

/// What an endpoint reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Member(MemberId),
    /// `https://` to a member: it serves plain http, so no TLS handshake ever completes.
    Tls(MemberId),
    /// Nothing listens there.
    Nowhere,
}

/// The port every member's host serves clients on when named by its host name
/// (`http://m2:2379`), as on the machines of a real cluster.
const CLIENT_PORT: &str = "2379";

/// Reads one `--endpoints` entry (`leader` names the current leader).
pub fn resolve(world: &Cluster, endpoint: &str) -> Target {
    let (tls, address) = match endpoint.split_once("://") {
        None => (false, endpoint),
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
    match member {
        Some(m) if tls && !world.serves_tls(m) => Target::Tls(m),
        Some(m) => Target::Member(m),
        None => Target::Nowhere,
    }
}

fn named(world: &Cluster, host: &str) -> Option<MemberId> {
    if host == "leader" {
        return world.leader();
    }
    world.member(host).ok()
}

/// `host:port`: a member's host on the client port, or the loopback address of one member.
fn on_port(world: &Cluster, host: &str, port: &str) -> Option<MemberId> {
    if host == "127.0.0.1" || host == "localhost" {
        let url = format!("http://127.0.0.1:{port}");
        return world
            .member_ids()
            .into_iter()
            .find(|m| client_url(*m) == url);
    }
    named(world, host).filter(|_| port == CLIENT_PORT)
}

/// The endpoint a command without `--endpoints` connects to: the first member of the cluster
/// that accepts connections (the first member when none does, so the call waits and fails
/// as it would).
pub fn default_endpoint(world: &Cluster) -> String {
    let members = world.client_endpoints();
    world
        .first_reachable(&members)
        .or_else(|| members.first().copied())
        .map_or_else(|| "m1".to_string(), |m| m.to_string())
}

/// Why a request to `member` (None: to `endpoints`, where nothing answered) went
/// unanswered, when the error cannot say: what the page adds as its hint.
pub fn diagnose(world: &Cluster, endpoints: &[String], member: Option<MemberId>) -> Option<Hint> {
    let Some(m) = member else {
        let (endpoint, target) = endpoints
            .iter()
            .map(|e| (e.clone(), resolve(world, e)))
            .find(|(_, t)| !matches!(t, Target::Member(_)))?;
        return Some(match target {
            Target::Tls(_) => Hint::NoTls { endpoint },
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
            assert_eq!(resolve(&w, form), m2, "{form}");
        }
        assert_eq!(
            resolve(&w, "http://127.0.0.1:2379"),
            Target::Member(MemberId(1))
        );
        assert_eq!(resolve(&w, "https://m2:2379"), Target::Tls(MemberId(2)));
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
            assert_eq!(resolve(&w, nothing), Target::Nowhere, "{nothing:?}");
        }
        let leader = w.leader().expect("a leader after 3 s");
        assert_eq!(resolve(&w, "leader"), Target::Member(leader));
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
    fn the_diagnosis_names_what_the_error_does_not() {
        let mut w = world();
        let eps = |s: &str| vec![s.to_string()];
        assert_eq!(
            diagnose(&w, &eps("https://m2:2379"), None),
            Some(Hint::NoTls {
                endpoint: "https://m2:2379".into()
            })
        );
        assert_eq!(
            diagnose(&w, &eps("m9"), None),
            Some(Hint::NoSuchEndpoint {
                endpoint: "m9".into()
            })
        );
        assert_eq!(diagnose(&w, &eps("m1"), Some(MemberId(1))), None);
        w.kill(MemberId(1)).expect("m1 runs");
        assert_eq!(
            diagnose(&w, &eps("m1"), Some(MemberId(1))),
            Some(Hint::EndpointDown {
                member: "m1".into(),
                up: vec!["m2".into(), "m3".into()]
            })
        );
        w.kill(MemberId(2)).expect("m2 runs");
        assert_eq!(
            diagnose(&w, &eps("m3"), Some(MemberId(3))),
            Some(Hint::NoQuorum {
                reachable: 1,
                quorum: 2
            })
        );
    }
}
