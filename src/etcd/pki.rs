//! The PKI kubeadm writes for a stacked etcd (`/etc/kubernetes/pki/etcd/`: the etcd CA, the
//! server, peer and healthcheck-client certificates and their keys; beside them the
//! API server's etcd client pair and the Kubernetes CA), as data. The PEMs are real: made
//! once with openssl (ECDSA P-256, kubeadm's `encryptionAlgorithm: ECDSA-P256`, the smallest
//! it offers; SANs `localhost`, `master`, `10.140.0.33`, `127.0.0.1`, `::1`). No crypto runs
//! here: a PEM block is known by its base64 body, and the table says what it is and who
//! signed it, which is all etcdctl's and etcd's checks need to decide as the real ones do.

/// Whose certificate (or key) a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `etcd/ca`: signs every other etcd certificate; etcd's `--trusted-ca-file`.
    EtcdCa,
    /// `etcd/server`: what etcd serves clients (`--cert-file`); serverAuth and clientAuth.
    Server,
    /// `etcd/peer`: between members; serverAuth and clientAuth.
    Peer,
    /// `etcd/healthcheck-client`: the liveness probe's client pair; clientAuth.
    HealthcheckClient,
    /// `apiserver-etcd-client`: kube-apiserver's client pair, signed by the etcd CA.
    ApiserverEtcdClient,
    /// `ca`: the Kubernetes CA, the one an etcd client must not trust for etcd.
    KubernetesCa,
}

impl Role {
    /// The CA that signed this role's certificate (a CA signs its own).
    pub fn issuer(self) -> Role {
        match self {
            Role::KubernetesCa => Role::KubernetesCa,
            _ => Role::EtcdCa,
        }
    }
}

/// A certificate or its private key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Cert,
    Key,
}

/// One file of the PKI.
pub struct PkiFile {
    pub path: &'static str,
    pub role: Role,
    pub part: Part,
    pub pem: &'static str,
}

/// What a kubeadm etcd serves clients with (its manifest's `--cert-file`,
/// `--trusted-ca-file` and `--client-cert-auth=true`).
pub const SERVER_CERT: Role = Role::Server;
pub const TRUSTED_CA: Role = Role::EtcdCa;

/// Every PKI file kubeadm leaves on the control-plane node, with its contents: what the
/// kubeadm world places on `master`'s file system.
pub fn kubeadm_files() -> Vec<(String, Vec<u8>)> {
    FILES
        .iter()
        .map(|f| (f.path.to_string(), f.pem.as_bytes().to_vec()))
        .collect()
}

/// The role and part of a PEM block's base64 body, if it is one of the PKI's.
pub fn identify(body: &str) -> Option<(Role, Part)> {
    let wanted = squeeze(body);
    FILES
        .iter()
        .find(|f| pem_body(f.pem).is_some_and(|b| squeeze(b) == wanted))
        .map(|f| (f.role, f.part))
}

/// The text between a PEM's BEGIN and END lines.
fn pem_body(pem: &str) -> Option<&str> {
    let start = pem.find("-----\n")? + 6;
    let end = pem[start..].find("-----END")? + start;
    Some(&pem[start..end])
}

fn squeeze(body: &str) -> String {
    body.split_ascii_whitespace().collect()
}

pub const FILES: [PkiFile; 12] = [
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/ca.crt",
        role: Role::EtcdCa,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIBiTCCAS+gAwIBAgIUd6gwJWINL7cVqewBFwbLU086W+gwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZXRjZC1jYTAeFw0yNjEyMDIwMTA2MDhaFw0zNjExMjkwMTA2
MDhaMBIxEDAOBgNVBAMMB2V0Y2QtY2EwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNC
AAQAFrXv9DvwJUToIzhBMEMXvtQDuNphRA2/AvcfUP7aFwyfN89xXV7DUhBCnZ2X
6kpFhNnmyFAWSQ27vYOvoQ6To2MwYTAdBgNVHQ4EFgQUIo2VfKhGVMjj9TXOyfGT
MwT/Wi0wHwYDVR0jBBgwFoAUIo2VfKhGVMjj9TXOyfGTMwT/Wi0wDwYDVR0TAQH/
BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDSAAwRQIhAPE7R53G
MRo+Fot5o6/g3dSABF+G/1BAlQXo9f0EQIwyAiB2ho5NOUmY6em5psLdi9wbuk2N
zsWLWNKo518AsGED5w==
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/ca.key",
        role: Role::EtcdCa,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIC64dMAv7oj2sz6wwQrLHLRyV9wBszeLuv7fOMBpyKUToAoGCCqGSM49
AwEHoUQDQgAEABa17/Q78CVE6CM4QTBDF77UA7jaYUQNvwL3H1D+2hcMnzfPcV1e
w1IQQp2dl+pKRYTZ5shQFkkNu72Dr6EOkw==
-----END EC PRIVATE KEY-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/server.crt",
        role: Role::Server,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIB4jCCAYigAwIBAgIUVtFKdknH7lPnjbu2F+DSzFoseTMwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZXRjZC1jYTAeFw0yNjEyMDIwMTA2MDhaFw0zNjExMjkwMTA2
MDhaMBExDzANBgNVBAMMBm1hc3RlcjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
BICqJW1mdzg5Oz9Pe5RTt5zcG7AVK8GULgP5TR/5pgaJPW+LxsY8nc9wnt+J4hvy
294lPwp88A5tZpSN/4twHgKjgbwwgbkwDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8E
BAMCBaAwHQYDVR0lBBYwFAYIKwYBBQUHAwEGCCsGAQUFBwMCMDoGA1UdEQQzMDGC
CWxvY2FsaG9zdIIGbWFzdGVyhwQKjAAhhwR/AAABhxAAAAAAAAAAAAAAAAAAAAAB
MB0GA1UdDgQWBBRrMfcM9NR9D7h2KmfjcijMMkSctTAfBgNVHSMEGDAWgBQijZV8
qEZUyOP1Nc7J8ZMzBP9aLTAKBggqhkjOPQQDAgNIADBFAiEAqAFvZa2eBLetnI2I
DTY8A+GTW/fcSa2k3/a1RHFaXIECIG/qXN9Qir6o0RYl+IOemVwNnxQQs+Yh3ad8
vFp6bqRD
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/server.key",
        role: Role::Server,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIJMWz72SChHnekL3XYwYr8kJiz+X3zRidsz0vq+vWsqYoAoGCCqGSM49
AwEHoUQDQgAEgKolbWZ3ODk7P097lFO3nNwbsBUrwZQuA/lNH/mmBok9b4vGxjyd
z3Ce34niG/Lb3iU/CnzwDm1mlI3/i3AeAg==
-----END EC PRIVATE KEY-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/peer.crt",
        role: Role::Peer,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIB4zCCAYigAwIBAgIUVtFKdknH7lPnjbu2F+DSzFoseTQwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZXRjZC1jYTAeFw0yNjEyMDIwMTA2MDhaFw0zNjExMjkwMTA2
MDhaMBExDzANBgNVBAMMBm1hc3RlcjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IA
BAKDS/8rBMR9nUtmfTJr8vgZ95XWJZyeHJTQoHz7mPLAc7m/ReUXEEEUNfnynnVJ
W1js+ZCgt+92bJRzAa7lbNSjgbwwgbkwDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8E
BAMCBaAwHQYDVR0lBBYwFAYIKwYBBQUHAwEGCCsGAQUFBwMCMDoGA1UdEQQzMDGC
CWxvY2FsaG9zdIIGbWFzdGVyhwQKjAAhhwR/AAABhxAAAAAAAAAAAAAAAAAAAAAB
MB0GA1UdDgQWBBSp9HgBCMfAxA2kNeytWpJPCXZ9RDAfBgNVHSMEGDAWgBQijZV8
qEZUyOP1Nc7J8ZMzBP9aLTAKBggqhkjOPQQDAgNJADBGAiEAi424VmYcZ+rrxmWw
u8YqKfx/7ajtVg09vnQnLpVfqIsCIQDkRBVmRHuAaIMc4rFfAZCb24hoMMp1JwIk
8pPYesGfEQ==
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/peer.key",
        role: Role::Peer,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIN8iNRRFNg9pkVQbuNdIg0bBEClxW/BgP5j5rUhR7S+4oAoGCCqGSM49
AwEHoUQDQgAEAoNL/ysExH2dS2Z9Mmvy+Bn3ldYlnJ4clNCgfPuY8sBzub9F5RcQ
QRQ1+fKedUlbWOz5kKC373ZslHMBruVs1A==
-----END EC PRIVATE KEY-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/healthcheck-client.crt",
        role: Role::HealthcheckClient,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIBsDCCAVagAwIBAgIUVtFKdknH7lPnjbu2F+DSzFoseTUwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZXRjZC1jYTAeFw0yNjEyMDIwMTA2MDhaFw0zNjExMjkwMTA2
MDhaMCcxJTAjBgNVBAMMHGt1YmUtZXRjZC1oZWFsdGhjaGVjay1jbGllbnQwWTAT
BgcqhkjOPQIBBggqhkjOPQMBBwNCAARCyZgm9c/lrZfXQxh/lwLUKUwUVY0InG7f
RXrsFJ8eGCDHLFttgLhW0DexvVJpO/YmLReJDPoLDTXebNrKFSl5o3UwczAMBgNV
HRMBAf8EAjAAMA4GA1UdDwEB/wQEAwIFoDATBgNVHSUEDDAKBggrBgEFBQcDAjAd
BgNVHQ4EFgQU9SjXAWsrHUs+whH2aSV7/5blRXswHwYDVR0jBBgwFoAUIo2VfKhG
VMjj9TXOyfGTMwT/Wi0wCgYIKoZIzj0EAwIDSAAwRQIhAKLQsJ2CylLhvJ5yhHKH
W52hUFqf8k/wtRbNBmwylnnWAiAJEaVzK++ByeEAvKZ2ox12a8ieaD4LOV5OvFfC
jPnwOw==
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/etcd/healthcheck-client.key",
        role: Role::HealthcheckClient,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIMUbQEUUy1wCb4KFq8sjlFo1iNBwtkwhY3r+UyNe6LZ/oAoGCCqGSM49
AwEHoUQDQgAEQsmYJvXP5a2X10MYf5cC1ClMFFWNCJxu30V67BSfHhggxyxbbYC4
VtA3sb1SaTv2Ji0XiQz6Cw013mzayhUpeQ==
-----END EC PRIVATE KEY-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/apiserver-etcd-client.crt",
        role: Role::ApiserverEtcdClient,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIBrzCCAVSgAwIBAgIUVtFKdknH7lPnjbu2F+DSzFoseTYwCgYIKoZIzj0EAwIw
EjEQMA4GA1UEAwwHZXRjZC1jYTAeFw0yNjEyMDIwMTA2MDlaFw0zNjExMjkwMTA2
MDlaMCUxIzAhBgNVBAMMGmt1YmUtYXBpc2VydmVyLWV0Y2QtY2xpZW50MFkwEwYH
KoZIzj0CAQYIKoZIzj0DAQcDQgAEqMlI9TgqxVDkoWKJWEQn3YTtQCAg4A+cIYEl
tcjYpXl0r+TUExww3ULp/kfkpyoYxVMPi1vH+YWjFH7tPa/SeaN1MHMwDAYDVR0T
AQH/BAIwADAOBgNVHQ8BAf8EBAMCBaAwEwYDVR0lBAwwCgYIKwYBBQUHAwIwHQYD
VR0OBBYEFHfrGh5mfOmthlQSonYv/l7ZNnAcMB8GA1UdIwQYMBaAFCKNlXyoRlTI
4/U1zsnxkzME/1otMAoGCCqGSM49BAMCA0kAMEYCIQDNcQ8dp8N8/ILqDdC2RlPd
h6fjwQIKP8M5xmEUvFvTUAIhANcAi1Ep7GRVdBVmTQCK50YqXbs+ISuYu0b8uDtk
9cFv
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/apiserver-etcd-client.key",
        role: Role::ApiserverEtcdClient,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIHCZVWKwgeny3271SgAvujaVyTcOdMpUa1BDer1HJXmVoAoGCCqGSM49
AwEHoUQDQgAEqMlI9TgqxVDkoWKJWEQn3YTtQCAg4A+cIYEltcjYpXl0r+TUExww
3ULp/kfkpyoYxVMPi1vH+YWjFH7tPa/SeQ==
-----END EC PRIVATE KEY-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/ca.crt",
        role: Role::KubernetesCa,
        part: Part::Cert,
        pem: "-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIUOVeKBSYz7A0+UAEzGiEvkXDhCTIwCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKa3ViZXJuZXRlczAeFw0yNjEyMDIwMTA2MDhaFw0zNjExMjkw
MTA2MDhaMBUxEzARBgNVBAMMCmt1YmVybmV0ZXMwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASOSt8u/WGgRK7ES4PLOJD92BzfHl5giMRShBSjekPEkKfmqzokAPPn
uwEFQrgMYzko8ypgft6kcDY0orQmpXyxo2MwYTAdBgNVHQ4EFgQUHc6aqYAJR93q
66t7ZzfF6/Hj0/8wHwYDVR0jBBgwFoAUHc6aqYAJR93q66t7ZzfF6/Hj0/8wDwYD
VR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMCAqQwCgYIKoZIzj0EAwIDSAAwRQIh
ALOuK86BnAndVvWCgacTp5YnjdotzGhuioN+UifWblDjAiBgvkDCepTZFINdjFgL
5z7ElK+HuMtBqJBENI5FdptjgA==
-----END CERTIFICATE-----
",
    },
    PkiFile {
        path: "/etc/kubernetes/pki/ca.key",
        role: Role::KubernetesCa,
        part: Part::Key,
        pem: "-----BEGIN EC PRIVATE KEY-----
MHcCAQEEIGin6u12KcHDUCC5T7ZOzK+kb3EI5s8O3q4d00uRZLSvoAoGCCqGSM49
AwEHoUQDQgAEjkrfLv1hoESuxEuDyziQ/dgc3x5eYIjEUoQUo3pDxJCn5qs6JADz
57sBBUK4DGM5KPMqYH7epHA2NKK0JqV8sQ==
-----END EC PRIVATE KEY-----
",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_known_by_its_body_and_no_two_are_alike() {
        for f in &FILES {
            let body = pem_body(f.pem).expect("a PEM");
            assert_eq!(identify(body), Some((f.role, f.part)), "{}", f.path);
            let kind = match f.part {
                Part::Cert => "CERTIFICATE",
                Part::Key => "EC PRIVATE KEY",
            };
            assert!(
                f.pem.starts_with(&format!("-----BEGIN {kind}-----\n")),
                "{}",
                f.path
            );
        }
        assert_eq!(identify("bm90IGEgY2VydA=="), None);
        let files = kubeadm_files();
        assert_eq!(files.len(), 12);
        assert!(files
            .iter()
            .any(|(p, _)| p == "/etc/kubernetes/pki/etcd/healthcheck-client.key"));
        let total: usize = files.iter().map(|(_, c)| c.len()).sum();
        assert!(
            total < 6_000,
            "the PKI stays small in the page: {total} bytes"
        );
    }

    #[test]
    fn only_the_etcd_ca_signs_etcd_certificates() {
        assert_eq!(SERVER_CERT.issuer(), TRUSTED_CA);
        assert_eq!(Role::HealthcheckClient.issuer(), Role::EtcdCa);
        assert_eq!(Role::KubernetesCa.issuer(), Role::KubernetesCa);
    }
}
