//! Encryption at rest, as kube-apiserver does it with `--encryption-provider-config`
//! (k8s.io/apiserver `pkg/storage/value/encrypt/aes`): an `EncryptionConfiguration` lists, per
//! resource, providers in order; the first one writes, any of them reads. Stored values are
//! `k8s:enc:aescbc:v1:<key>:` + IV + AES-CBC(PKCS#7), or `k8s:enc:aesgcm:v1:<key>:` + nonce +
//! AES-GCM with the etcd key as additional data; `identity` stores plain bytes.

use crate::base::Rng;
use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use base64::Engine as _;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Provider {
    Identity,
    AesCbc(Vec<(String, Vec<u8>)>),
    AesGcm(Vec<(String, Vec<u8>)>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Rule {
    /// Plural resource names, or `*.*` for all.
    resources: Vec<String>,
    providers: Vec<Provider>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncryptionConfig {
    rules: Vec<Rule>,
}

fn keys_of(provider: &Value, kind: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    let keys = provider
        .get("keys")
        .and_then(Value::as_array)
        .filter(|k| !k.is_empty());
    let keys = keys.ok_or_else(|| format!("providers.{kind}.keys: Required value"))?;
    keys.iter()
        .map(|k| {
            let name = k.get("name").and_then(Value::as_str).filter(|n| !n.is_empty());
            let name = name.ok_or_else(|| format!("providers.{kind}.keys.name: Required value"))?;
            let secret = k.get("secret").and_then(Value::as_str).unwrap_or("");
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(secret)
                .map_err(|_| format!("providers.{kind}.keys.secret: Invalid value: \"REDACTED\": secrets must be base64 encoded"))?;
            if ![16, 24, 32].contains(&bytes.len()) {
                return Err(format!(
                    "providers.{kind}.keys.secret: Invalid value: \"REDACTED\": secret is not of the expected length, got {}, expected one of [16 24 32]",
                    bytes.len()
                ));
            }
            Ok((name.to_string(), bytes))
        })
        .collect()
}

impl EncryptionConfig {
    /// Reads an `apiserver.config.k8s.io/v1` `EncryptionConfiguration`.
    pub fn parse(doc: &Value) -> Result<EncryptionConfig, String> {
        if doc.get("kind").and_then(Value::as_str) != Some("EncryptionConfiguration") {
            return Err("not an EncryptionConfiguration".into());
        }
        let resources = doc
            .get("resources")
            .and_then(Value::as_array)
            .ok_or("resources: Required value")?;
        let mut rules = Vec::new();
        for r in resources {
            let names: Vec<String> = r
                .get("resources")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            if names.is_empty() {
                return Err("resources.resources: Required value".into());
            }
            let mut providers = Vec::new();
            for p in r
                .get("providers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if p.get("identity").is_some() {
                    providers.push(Provider::Identity);
                } else if let Some(c) = p.get("aescbc") {
                    providers.push(Provider::AesCbc(keys_of(c, "aescbc")?));
                } else if let Some(g) = p.get("aesgcm") {
                    providers.push(Provider::AesGcm(keys_of(g, "aesgcm")?));
                } else {
                    return Err("providers: Invalid value: provider must be one of identity, aescbc, aesgcm".into());
                }
            }
            if providers.is_empty() {
                return Err("resources.providers: Required value".into());
            }
            rules.push(Rule {
                resources: names,
                providers,
            });
        }
        Ok(EncryptionConfig { rules })
    }

    fn providers(&self, resource: &str) -> Option<&[Provider]> {
        self.rules
            .iter()
            .find(|r| r.resources.iter().any(|n| n == resource || n == "*.*"))
            .map(|r| r.providers.as_slice())
    }

    /// The bytes to store for `plain` under etcd key `key`.
    pub fn encrypt(&self, resource: &str, key: &str, plain: &[u8], rng: &mut Rng) -> Vec<u8> {
        let Some(first) = self.providers(resource).and_then(|p| p.first()) else {
            return plain.to_vec();
        };
        match first {
            Provider::Identity => plain.to_vec(),
            Provider::AesCbc(keys) => {
                let (name, secret) = &keys[0];
                let iv: Vec<u8> = (0..16).map(|_| rng.range(0, 256) as u8).collect();
                let mut out = format!("k8s:enc:aescbc:v1:{name}:").into_bytes();
                out.extend_from_slice(&iv);
                out.extend(cbc_encrypt(secret, &iv, plain));
                out
            }
            Provider::AesGcm(keys) => {
                let (name, secret) = &keys[0];
                let nonce: Vec<u8> = (0..12).map(|_| rng.range(0, 256) as u8).collect();
                let mut out = format!("k8s:enc:aesgcm:v1:{name}:").into_bytes();
                out.extend_from_slice(&nonce);
                out.extend(gcm_encrypt(secret, &nonce, plain, key.as_bytes()));
                out
            }
        }
    }

    /// The plain bytes of a stored value, trying the providers in order (by prefix).
    pub fn decrypt(&self, resource: &str, key: &str, stored: &[u8]) -> Result<Vec<u8>, String> {
        let providers = self.providers(resource).unwrap_or(&[Provider::Identity]);
        for provider in providers {
            match provider {
                Provider::Identity if !stored.starts_with(b"k8s:enc:") => {
                    return Ok(stored.to_vec())
                }
                Provider::Identity => {}
                Provider::AesCbc(keys) => {
                    for (name, secret) in keys {
                        let prefix = format!("k8s:enc:aescbc:v1:{name}:");
                        if let Some(rest) = stored.strip_prefix(prefix.as_bytes()) {
                            return cbc_decrypt(secret, rest)
                                .ok_or_else(|| "invalid padding on input".to_string());
                        }
                    }
                }
                Provider::AesGcm(keys) => {
                    for (name, secret) in keys {
                        let prefix = format!("k8s:enc:aesgcm:v1:{name}:");
                        if let Some(rest) = stored.strip_prefix(prefix.as_bytes()) {
                            return gcm_decrypt(secret, rest, key.as_bytes()).ok_or_else(|| {
                                "cipher: message authentication failed".to_string()
                            });
                        }
                    }
                }
            }
        }
        Err(format!("no matching prefix found for {key}"))
    }
}

macro_rules! with_aes {
    ($secret:expr, $cipher:ident => $body:expr) => {
        match $secret.len() {
            16 => {
                type $cipher = aes::Aes128;
                $body
            }
            24 => {
                type $cipher = aes::Aes192;
                $body
            }
            _ => {
                type $cipher = aes::Aes256;
                $body
            }
        }
    };
}

fn cbc_encrypt(secret: &[u8], iv: &[u8], plain: &[u8]) -> Vec<u8> {
    with_aes!(secret, C => cbc::Encryptor::<C>::new_from_slices(secret, iv)
        .map(|e| e.encrypt_padded_vec_mut::<Pkcs7>(plain))
        .unwrap_or_default())
}

fn cbc_decrypt(secret: &[u8], data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 32 || !data.len().is_multiple_of(16) {
        return None;
    }
    let (iv, ct) = data.split_at(16);
    with_aes!(secret, C => cbc::Decryptor::<C>::new_from_slices(secret, iv)
        .ok()
        .and_then(|d| d.decrypt_padded_vec_mut::<Pkcs7>(ct).ok()))
}

fn gcm_encrypt(secret: &[u8], nonce: &[u8], plain: &[u8], aad: &[u8]) -> Vec<u8> {
    let payload = Payload { msg: plain, aad };
    with_aes!(secret, C => aes_gcm::AesGcm::<C, aes_gcm::aead::consts::U12>::new_from_slice(secret)
        .ok()
        .and_then(|g| g.encrypt(aes_gcm::Nonce::from_slice(nonce), payload).ok())
        .unwrap_or_default())
}

fn gcm_decrypt(secret: &[u8], data: &[u8], aad: &[u8]) -> Option<Vec<u8>> {
    if data.len() < 12 + 16 {
        return None;
    }
    let (nonce, ct) = data.split_at(12);
    let payload = Payload { msg: ct, aad };
    with_aes!(secret, C => aes_gcm::AesGcm::<C, aes_gcm::aead::consts::U12>::new_from_slice(secret)
        .ok()
        .and_then(|g| g.decrypt(aes_gcm::Nonce::from_slice(nonce), payload).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(provider: &str) -> EncryptionConfig {
        let key = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        EncryptionConfig::parse(&json!({
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "EncryptionConfiguration",
            "resources": [{"resources": ["secrets"], "providers": [
                {provider: {"keys": [{"name": "key1", "secret": key}]}},
                {"identity": {}}
            ]}]
        }))
        .unwrap()
    }

    #[test]
    fn aescbc_and_aesgcm_round_trip_with_the_kubernetes_prefix() {
        let mut rng = Rng::new(1);
        for (provider, prefix) in [
            ("aescbc", "k8s:enc:aescbc:v1:key1:"),
            ("aesgcm", "k8s:enc:aesgcm:v1:key1:"),
        ] {
            let c = config(provider);
            let plain = br#"{"kind":"Secret","data":{"password":"czNjcjN0"}}"#;
            let stored = c.encrypt("secrets", "/registry/secrets/default/db", plain, &mut rng);
            assert!(stored.starts_with(prefix.as_bytes()), "{provider}");
            assert!(
                !stored.windows(8).any(|w| w == b"czNjcjN0"),
                "{provider}: ciphertext hides the value"
            );
            assert_eq!(
                c.decrypt("secrets", "/registry/secrets/default/db", &stored)
                    .unwrap(),
                plain
            );
            // Plain values written before encryption was on stay readable (identity).
            assert_eq!(
                c.decrypt("secrets", "/registry/secrets/default/old", plain)
                    .unwrap(),
                plain
            );
            // Other resources are not encrypted.
            assert_eq!(
                c.encrypt(
                    "configmaps",
                    "/registry/configmaps/default/x",
                    plain,
                    &mut rng
                ),
                plain
            );
        }
        // GCM binds the value to its key: moved to another key it no longer decrypts.
        let c = config("aesgcm");
        let stored = c.encrypt("secrets", "/registry/secrets/default/a", b"x", &mut rng);
        assert!(c
            .decrypt("secrets", "/registry/secrets/default/b", &stored)
            .is_err());
    }

    #[test]
    fn bad_configurations_are_refused() {
        let bad_key = json!({"kind": "EncryptionConfiguration", "resources": [{"resources": ["secrets"],
            "providers": [{"aescbc": {"keys": [{"name": "k", "secret": "c2hvcnQ="}]}}]}]});
        assert!(EncryptionConfig::parse(&bad_key)
            .unwrap_err()
            .contains("expected one of [16 24 32]"));
        assert!(EncryptionConfig::parse(&json!({"kind": "Pod"})).is_err());
        let empty = json!({"kind": "EncryptionConfiguration", "resources": [{"resources": ["secrets"], "providers": []}]});
        assert!(EncryptionConfig::parse(&empty).is_err());
    }
}
