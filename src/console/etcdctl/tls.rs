//! etcdctl's TLS: `--cacert`, `--cert`, `--key` (or `ETCDCTL_CACERT/CERT/KEY`) and
//! `--insecure-skip-tls-verify`, loaded as 3.4's `transport.TLSInfo.ClientConfig` loads them
//! (the key pair first, then the CA bundle) with Go's error texts, and the handshake with a
//! member decided as crypto/tls would decide it for the PKI of [`crate::etcd::pki`]: every
//! text here was recorded from Debian's etcdctl 3.4.23 against a real etcd serving that PKI
//! (`tests/testdata/run/etcdctl-tls-real.txt`). A certificate or key outside that PKI is
//! one of nobody's: it pairs with no key and no CA we know signed it.

use super::args::Parsed;
use super::{Exit, EXIT_BAD_ARGS};
use crate::console::shell::fs::{self, Files, Node};
use crate::etcd::pki::{self, Part, Role};

/// What the client presents and trusts once its files loaded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientTls {
    /// Whether any TLS flag was given: then an endpoint without a scheme dials TLS too.
    pub configured: bool,
    /// The client certificate (its key matched), if `--cert`/`--key` were given.
    pub cert: Option<Role>,
    /// The CAs of `--cacert` (None: the system roots, which hold neither PKI's CA).
    pub roots: Option<Vec<Role>>,
    pub skip_verify: bool,
}

/// Why a connection to a member never becomes ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// TLS to a member that serves plain http.
    NoTls,
    /// Plain http to a member that serves TLS.
    NeedsTls,
    /// The member's certificate is not signed by a CA the client trusts.
    UnknownAuthority,
    /// The member asks for a client certificate signed by its CA and gets none.
    NoClientCert,
}

impl Refusal {
    /// grpc's `latest balancer error` for a connection made alone (`endpoint status`,
    /// `health`, `hashkv` dial each endpoint with a passthrough target).
    pub fn passthrough_desc(self) -> &'static str {
        match self {
            // Not recorded (the real etcd served TLS): the balancer's word, as for nowhere.
            Refusal::NoTls => "all SubConns are in TransientFailure",
            Refusal::NeedsTls | Refusal::NoClientCert => "connection closed",
            Refusal::UnknownAuthority => "connection error: desc = \"transport: authentication handshake failed: x509: certificate signed by unknown authority\"",
        }
    }
}

/// Loads the TLS flags' files. Errors: what `mustClientFromCmd` exits with (128).
pub fn load(files: &Files, p: &Parsed) -> Result<ClientTls, Exit> {
    let (cacert, cert, key) = (p.str("cacert"), p.str("cert"), p.str("key"));
    let skip_verify = p.bool("insecure-skip-tls-verify");
    let mut tls = ClientTls {
        configured: cacert.is_some() || cert.is_some() || key.is_some() || skip_verify,
        skip_verify,
        ..ClientTls::default()
    };
    let bad = |message: String| Exit::new(EXIT_BAD_ARGS, message);
    if cert.is_some() || key.is_some() {
        let (cert, key) = (cert.unwrap_or(""), key.unwrap_or(""));
        if cert.is_empty() || key.is_empty() {
            return Err(bad(format!(
                "KeyFile and CertFile must both be present[key: {key}, cert: {cert}]"
            )));
        }
        let cert_pem = read(files, cert).map_err(bad)?;
        let key_pem = read(files, key).map_err(bad)?;
        tls.cert = Some(key_pair(&cert_pem, &key_pem).map_err(bad)?);
    }
    if let Some(path) = cacert.filter(|c| !c.is_empty()) {
        tls.roots = Some(cert_pool(&read(files, path).map_err(bad)?).map_err(bad)?);
    }
    Ok(tls)
}

/// `ioutil.ReadFile` with Go's errors, naming the path as given.
fn read(files: &Files, path: &str) -> Result<String, String> {
    let key = fs::key(path);
    match fs::node(files, &key) {
        None => Err(format!("open {path}: no such file or directory")),
        Some(Node::Dir | Node::DataDir) => Err(format!("read {path}: is a directory")),
        Some(Node::File) => Ok(String::from_utf8_lossy(&files[&key]).into_owned()),
    }
}

/// The PEM blocks of `text` as `pem.Decode` finds them: (type, base64 body).
fn blocks(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("-----BEGIN ") {
        let after = &rest[at + 11..];
        let Some(end_type) = after.find("-----") else {
            break;
        };
        let kind = &after[..end_type];
        let body_start = end_type + 5;
        let end_line = format!("-----END {kind}-----");
        let Some(end) = after[body_start..].find(&end_line) else {
            break;
        };
        out.push((kind, &after[body_start..body_start + end]));
        rest = &after[body_start + end + end_line.len()..];
    }
    out
}

/// crypto/tls `X509KeyPair` (Go 1.19): the certificate's role once its key matches.
fn key_pair(cert_pem: &str, key_pem: &str) -> Result<Role, String> {
    let cert_blocks = blocks(cert_pem);
    let Some(&(_, cert_body)) = cert_blocks.iter().find(|(t, _)| *t == "CERTIFICATE") else {
        let skipped: Vec<&str> = cert_blocks.iter().map(|(t, _)| *t).collect();
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in certificate input".to_string(),
            [one] if one.ends_with("PRIVATE KEY") => "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched".to_string(),
            _ => format!("tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [{}]", skipped.join(" ")),
        });
    };
    let key_blocks = blocks(key_pem);
    let is_key = |t: &str| t == "PRIVATE KEY" || t.ends_with(" PRIVATE KEY");
    let Some(&(_, key_body)) = key_blocks.iter().find(|(t, _)| is_key(t)) else {
        let skipped: Vec<&str> = key_blocks.iter().map(|(t, _)| *t).collect();
        return Err(match skipped.as_slice() {
            [] => "tls: failed to find any PEM data in key input".to_string(),
            ["CERTIFICATE"] => {
                "tls: found a certificate rather than a key in the PEM for the private key"
                    .to_string()
            }
            _ => format!("tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of the following types: [{}]", skipped.join(" ")),
        });
    };
    match (pki::identify(cert_body), pki::identify(key_body)) {
        (Some((role, Part::Cert)), Some((owner, Part::Key))) if role == owner => Ok(role),
        _ => Err("tls: private key does not match public key".to_string()),
    }
}

/// etcd's `tlsutil.NewCertPool`: every block must parse as a certificate; a file without
/// PEM gives an empty pool (which then trusts nothing).
fn cert_pool(pem: &str) -> Result<Vec<Role>, String> {
    let mut pool = Vec::new();
    for (kind, body) in blocks(pem) {
        match pki::identify(body) {
            Some((role, Part::Cert)) => pool.push(role),
            // A key's DER read as a certificate: what x509.ParseCertificate says (recorded).
            Some((_, Part::Key)) => return Err("x509: malformed tbs certificate".to_string()),
            None if kind.ends_with("PRIVATE KEY") => {
                return Err("x509: malformed tbs certificate".to_string())
            }
            None => {}
        }
    }
    Ok(pool)
}

/// Whether a connection to a member that serves `serves_tls` succeeds for a client that
/// dials `tls` (true: TLS) with `client`.
pub fn handshake(client: &ClientTls, dials_tls: bool, serves_tls: bool) -> Result<(), Refusal> {
    match (dials_tls, serves_tls) {
        (false, false) => Ok(()),
        (true, false) => Err(Refusal::NoTls),
        (false, true) => Err(Refusal::NeedsTls),
        (true, true) => {
            let trusted = client
                .roots
                .as_ref()
                .is_some_and(|r| r.contains(&pki::SERVER_CERT.issuer()));
            if !client.skip_verify && !trusted {
                return Err(Refusal::UnknownAuthority);
            }
            // Every certificate of the PKI may be a client's (the leaves have clientAuth, the
            // CAs no extended usage at all: recorded, the etcd CA's own pair is let in).
            match client.cert {
                Some(role) if role.issuer() == pki::TRUSTED_CA => Ok(()),
                _ => Err(Refusal::NoClientCert),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{run_etcdctl, Invocation, Stop, DEFAULT_STREAM_MS};
    use super::*;
    use crate::base::{MemberId, Rng};
    use crate::console::shell::env::Env;
    use crate::console::{Aside, Hint, Output};
    use crate::etcd::{Cluster, ClusterConfig};

    const PKI: &str = "/etc/kubernetes/pki";

    /// One member serving TLS as kubeadm's does, and the PKI on the machine.
    fn kubeadm_like() -> (Cluster, Files) {
        let mut w = ClusterConfig::new(1, 1).build();
        let mut m = w.remove(MemberId(1)).expect("m1");
        m.identity.client_urls = vec!["https://10.140.0.33:2379".to_string()];
        w.add(MemberId(1), m, Rng::new(7));
        assert!(w.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        let mut files: Files = pki::kubeadm_files().into_iter().collect();
        files.insert("/tmp/garbage.crt".into(), b"not a certificate\n".to_vec());
        files.insert("/tmp/empty.crt".into(), Vec::new());
        (w, files)
    }

    fn run(w: &mut Cluster, f: &mut Files, line: &str) -> Output {
        let line = line.replace("PKI", PKI);
        let args = shlex::split(&line).expect("words");
        let env = Env::new();
        let run = Invocation {
            args: &args,
            stdin: None,
            env: &env,
        };
        run_etcdctl(w, f, run, Stop::Default(DEFAULT_STREAM_MS))
    }

    const GOOD: &str =
        "--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key";

    #[test]
    fn the_right_files_reach_the_member_by_every_address_it_has() {
        let (mut w, mut f) = kubeadm_like();
        let put = run(
            &mut w,
            &mut f,
            &format!("--endpoints=https://127.0.0.1:2379 {GOOD} put a 1"),
        );
        assert_eq!(
            (put.code, put.stdout.as_str()),
            (0, "OK\n"),
            "{}",
            put.stderr
        );
        for eps in [
            "127.0.0.1:2379",
            "https://localhost:2379",
            "https://10.140.0.33:2379",
        ] {
            let get = run(
                &mut w,
                &mut f,
                &format!("--endpoints={eps} {GOOD} get a --print-value-only"),
            );
            assert_eq!(
                (get.code, get.stdout.as_str()),
                (0, "1\n"),
                "{eps}: {}",
                get.stderr
            );
        }
        // Recorded: the health check names the endpoint as it was given.
        let health = run(&mut w, &mut f, "--endpoints=127.0.0.1:2379 --cacert=PKI/etcd/ca.crt --cert=PKI/etcd/healthcheck-client.crt --key=PKI/etcd/healthcheck-client.key endpoint health");
        assert!(
            health
                .stderr
                .starts_with("127.0.0.1:2379 is healthy: successfully committed proposal: took = "),
            "{}",
            health.stderr
        );
        for pair in ["etcd/peer", "apiserver-etcd-client"] {
            let o = run(&mut w, &mut f, &format!("--endpoints=https://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt --cert=PKI/{pair}.crt --key=PKI/{pair}.key get a --print-value-only"));
            assert_eq!(o.stdout, "1\n", "{pair}: {}", o.stderr);
        }
        let skip = run(&mut w, &mut f, "--endpoints=https://127.0.0.1:2379 --insecure-skip-tls-verify --cacert=PKI/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a --print-value-only");
        assert_eq!(skip.stdout, "1\n", "{}", skip.stderr);
    }

    #[test]
    fn a_file_that_is_missing_unreadable_or_wrong_gets_etcdctls_error() {
        let (mut w, mut f) = kubeadm_like();
        // Each recorded in tests/testdata/run/etcdctl-tls-real.txt: exit 128, before dialing.
        for (flags, error) in [
            ("--cacert=PKI/etcd/nope.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key", "open /etc/kubernetes/pki/etcd/nope.crt: no such file or directory"),
            ("--cacert=PKI/etcd/nope-ca.crt --cert=PKI/etcd/nope-cert.crt --key=PKI/etcd/nope.key", "open /etc/kubernetes/pki/etcd/nope-cert.crt: no such file or directory"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/nope.key", "open /etc/kubernetes/pki/etcd/nope.key: no such file or directory"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt", "KeyFile and CertFile must both be present[key: , cert: /etc/kubernetes/pki/etcd/server.crt]"),
            ("--cacert=PKI/etcd/ca.crt --key=PKI/etcd/server.key", "KeyFile and CertFile must both be present[key: /etc/kubernetes/pki/etcd/server.key, cert: ]"),
            ("--cacert=PKI/etcd --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key", "read /etc/kubernetes/pki/etcd: is a directory"),
            ("--cacert=PKI/etcd/ca.crt --cert=/tmp/garbage.crt --key=PKI/etcd/server.key", "tls: failed to find any PEM data in certificate input"),
            ("--cacert=PKI/etcd/ca.crt --cert=/tmp/empty.crt --key=PKI/etcd/server.key", "tls: failed to find any PEM data in certificate input"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=/tmp/garbage.crt", "tls: failed to find any PEM data in key input"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.key --key=PKI/etcd/server.crt", "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.crt", "tls: found a certificate rather than a key in the PEM for the private key"),
            ("--cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/peer.key", "tls: private key does not match public key"),
            ("--cacert=PKI/etcd/nope-ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/peer.key", "tls: private key does not match public key"),
            ("--cacert=PKI/etcd/ca.key --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key", "x509: malformed tbs certificate"),
        ] {
            let o = run(&mut w, &mut f, &format!("--endpoints=https://127.0.0.1:2379 {flags} get a"));
            assert_eq!((o.code, o.stderr.as_str(), o.stdout.as_str()), (128, format!("Error: {error}\n").as_str(), ""), "{flags}");
        }
    }

    #[test]
    fn a_handshake_that_fails_waits_out_the_timeout_as_recorded() {
        let (mut w, mut f) = kubeadm_like();
        // Wrong CA, no CA, no client certificate, no TLS, garbage CA: the balancer's error.
        for line in [
            "--endpoints=https://127.0.0.1:2379 --cacert=PKI/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a",
            "--endpoints=https://127.0.0.1:2379 --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a",
            "--endpoints=https://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt get a",
            "--endpoints=https://127.0.0.1:2379 get a",
            "--endpoints=127.0.0.1:2379 get a",
            "--endpoints=http://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a",
            "--endpoints=https://127.0.0.1:2379 --cacert=/tmp/garbage.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a",
        ] {
            let before = w.now();
            let o = run(&mut w, &mut f, line);
            assert_eq!(o.code, 1, "{line}");
            assert!(o.stderr.contains("\"target\":\"endpoint://client-8e2c6a1f-0000-4000-8000-000000000001/127.0.0.1:2379\""), "{line}: {}", o.stderr);
            assert!(o.stderr.ends_with("\"error\":\"rpc error: code = DeadlineExceeded desc = latest balancer error: all SubConns are in TransientFailure\"}\nError: context deadline exceeded\n"), "{line}: {}", o.stderr);
            assert_eq!(w.now() - before, 5_000, "the command timeout, in virtual time");
        }
        let status = |w: &mut Cluster, f: &mut Files, flags: &str| {
            run(w, f, &format!("{flags} endpoint status")).stderr
        };
        let wrong_ca = status(&mut w, &mut f, "--endpoints=https://127.0.0.1:2379 --cacert=PKI/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key");
        assert!(wrong_ca.contains(r#""target":"passthrough:///https://127.0.0.1:2379","attempt":0,"error":"rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = \"transport: authentication handshake failed: x509: certificate signed by unknown authority\""}"#), "{wrong_ca}");
        assert!(wrong_ca.ends_with("Failed to get the status of endpoint https://127.0.0.1:2379 (context deadline exceeded)\n"), "{wrong_ca}");
        for flags in ["--endpoints=https://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt", "--endpoints=http://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key"] {
            let closed = status(&mut w, &mut f, flags);
            assert!(closed.contains("desc = latest balancer error: connection closed\"}"), "{flags}: {closed}");
        }
        let hint = |w: &mut Cluster, f: &mut Files, line: &str| run(w, f, line).aside;
        let need = hint(&mut w, &mut f, "--endpoints=http://127.0.0.1:2379 get a");
        assert_eq!(
            need,
            Some(Aside::Hint(Hint::NeedsTls {
                endpoint: "http://127.0.0.1:2379".into()
            }))
        );
        let ca = hint(&mut w, &mut f, "--endpoints=https://127.0.0.1:2379 --cacert=PKI/ca.crt --cert=PKI/etcd/server.crt --key=PKI/etcd/server.key get a");
        assert_eq!(
            ca,
            Some(Aside::Hint(Hint::UnknownCa {
                endpoint: "https://127.0.0.1:2379".into()
            }))
        );
        let cert = hint(
            &mut w,
            &mut f,
            "--endpoints=https://127.0.0.1:2379 --cacert=PKI/etcd/ca.crt get a",
        );
        assert_eq!(
            cert,
            Some(Aside::Hint(Hint::NoClientCert {
                endpoint: "https://127.0.0.1:2379".into()
            }))
        );
        let health = run(
            &mut w,
            &mut f,
            "--endpoints=http://127.0.0.1:2379 endpoint health",
        );
        assert!(health.stderr.ends_with("http://127.0.0.1:2379 is unhealthy: failed to commit proposal: context deadline exceeded\nError: unhealthy cluster\n"), "{}", health.stderr);
    }

    #[test]
    fn pem_blocks_are_found_as_pem_decode_finds_them() {
        let two = format!("junk\n{}{}", pki::FILES[0].pem, pki::FILES[1].pem);
        let kinds: Vec<&str> = blocks(&two).iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, ["CERTIFICATE", "EC PRIVATE KEY"]);
        assert!(
            blocks("-----BEGIN CERTIFICATE-----\nAAAA\n").is_empty(),
            "no END line"
        );
        assert_eq!(
            cert_pool(&two),
            Err("x509: malformed tbs certificate".to_string())
        );
        assert_eq!(
            cert_pool("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"),
            Ok(vec![]),
            "a certificate of nobody's"
        );
        assert_eq!(key_pair("-----BEGIN X-----\nAA\n-----END X-----\n", ""), Err("tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the following types: [X]".to_string()));
    }

    #[test]
    fn the_handshake_follows_both_sides() {
        let good = ClientTls {
            configured: true,
            cert: Some(Role::HealthcheckClient),
            roots: Some(vec![Role::KubernetesCa, Role::EtcdCa]),
            skip_verify: false,
        };
        assert_eq!(handshake(&good, true, true), Ok(()));
        assert_eq!(handshake(&good, true, false), Err(Refusal::NoTls));
        assert_eq!(handshake(&good, false, true), Err(Refusal::NeedsTls));
        assert_eq!(handshake(&ClientTls::default(), false, false), Ok(()));
        let no_cert = ClientTls {
            cert: None,
            ..good.clone()
        };
        assert_eq!(handshake(&no_cert, true, true), Err(Refusal::NoClientCert));
        let etcd_ca = ClientTls {
            cert: Some(Role::EtcdCa),
            ..good.clone()
        };
        assert_eq!(handshake(&etcd_ca, true, true), Ok(()));
        let kube_ca = ClientTls {
            cert: Some(Role::KubernetesCa),
            ..good.clone()
        };
        assert_eq!(handshake(&kube_ca, true, true), Err(Refusal::NoClientCert));
        let system_roots = ClientTls {
            roots: None,
            ..good
        };
        assert_eq!(
            handshake(&system_roots, true, true),
            Err(Refusal::UnknownAuthority)
        );
    }

    /// What the page's "start here" card sends in the kubeadm world: the article's lines.
    #[test]
    fn the_articles_export_lines_reach_master_over_tls() {
        let mut s = crate::console::Session::new(ClusterConfig::kubeadm(1));
        assert_eq!(s.execute("wait leader", None).code, 0);
        for line in crate::etcd::kubeadm::ETCDCTL_EXPORTS {
            let out = s.execute(line, None);
            assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{line}");
        }
        let out = s.execute("etcdctl endpoint health", None);
        // etcdctl 3.4 prints health to stderr, healthy or not.
        assert!(
            out.stderr
                .starts_with("https://127.0.0.1:2379 is healthy: successfully committed proposal"),
            "{out:?}"
        );
    }
}
