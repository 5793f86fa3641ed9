//! What the API server knows about each kind: resource names, groups, where it lives in etcd,
//! and the errors it answers with (apimachinery `pkg/api/errors`).

use crate::base::{time, Millis};
use crate::etcd::EPOCH_UNIX_MS;
use serde_json::Value;
use std::fmt;

/// One kind the mock API server serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resource {
    pub kind: &'static str,
    /// Lowercase plural (`deployments`).
    pub plural: &'static str,
    /// API group, empty for the core group.
    pub group: &'static str,
    pub version: &'static str,
    pub namespaced: bool,
    /// The prefix under `/registry/` (nodes are `minions`, services `services/specs`).
    pub etcd_prefix: &'static str,
    /// kubectl's short names and the singular.
    pub aliases: &'static [&'static str],
}

impl Resource {
    /// `deployments.apps`, `pods`: how errors name the resource.
    pub fn group_resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    /// `deployment.apps`, `pod`: how kubectl names an object (`deployment.apps/nginx`).
    pub fn kind_group(&self) -> String {
        let kind = self.kind.to_ascii_lowercase();
        if self.group.is_empty() {
            kind
        } else {
            format!("{kind}.{}", self.group)
        }
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// The etcd key of an object (`/registry/deployments/default/nginx`).
    pub fn key(&self, namespace: &str, name: &str) -> String {
        if self.namespaced {
            format!("/registry/{}/{namespace}/{name}", self.etcd_prefix)
        } else {
            format!("/registry/{}/{name}", self.etcd_prefix)
        }
    }

    /// Whether the part of a key after `list_prefix(None)` names an object: a namespaced
    /// resource's object has a namespace (a key without one is not an object of the list).
    pub fn names_object(&self, rest: &str) -> bool {
        !self.namespaced || rest.contains('/')
    }

    /// The range of a list: one namespace, or all of them (`None`).
    pub fn list_prefix(&self, namespace: Option<&str>) -> String {
        match namespace {
            Some(ns) if self.namespaced => format!("/registry/{}/{ns}/", self.etcd_prefix),
            _ => format!("/registry/{}/", self.etcd_prefix),
        }
    }
}

const fn res(
    kind: &'static str,
    plural: &'static str,
    group: &'static str,
    namespaced: bool,
    etcd_prefix: &'static str,
    aliases: &'static [&'static str],
) -> Resource {
    Resource {
        kind,
        plural,
        group,
        version: "v1",
        namespaced,
        etcd_prefix,
        aliases,
    }
}

pub const NAMESPACES: Resource = res(
    "Namespace",
    "namespaces",
    "",
    false,
    "namespaces",
    &["ns", "namespace"],
);
pub const NODES: Resource = res("Node", "nodes", "", false, "minions", &["no", "node"]);
pub const PODS: Resource = res("Pod", "pods", "", true, "pods", &["po", "pod"]);
pub const SERVICES: Resource = res(
    "Service",
    "services",
    "",
    true,
    "services/specs",
    &["svc", "service"],
);
pub const SECRETS: Resource = res("Secret", "secrets", "", true, "secrets", &["secret"]);
pub const CONFIGMAPS: Resource = res(
    "ConfigMap",
    "configmaps",
    "",
    true,
    "configmaps",
    &["cm", "configmap"],
);
pub const EVENTS: Resource = res("Event", "events", "", true, "events", &["ev", "event"]);
pub const REPLICASETS: Resource = res(
    "ReplicaSet",
    "replicasets",
    "apps",
    true,
    "replicasets",
    &["rs", "replicaset"],
);
pub const DEPLOYMENTS: Resource = res(
    "Deployment",
    "deployments",
    "apps",
    true,
    "deployments",
    &["deploy", "deployment"],
);
pub const LEASES: Resource = res(
    "Lease",
    "leases",
    "coordination.k8s.io",
    true,
    "leases",
    &["lease"],
);

pub const ALL: [Resource; 10] = [
    NAMESPACES,
    NODES,
    PODS,
    SERVICES,
    SECRETS,
    CONFIGMAPS,
    EVENTS,
    REPLICASETS,
    DEPLOYMENTS,
    LEASES,
];

/// The resource a kubectl argument names (`po`, `pods`, `deployment.apps`, `deploy`).
pub fn resource_by_name(name: &str) -> Option<Resource> {
    let lower = name.to_ascii_lowercase();
    ALL.into_iter().find(|r| {
        r.plural == lower
            || r.aliases.contains(&lower.as_str())
            || r.group_resource() == lower
            || r.kind_group() == lower
    })
}

pub fn resource_by_kind(api_version: &str, kind: &str) -> Option<Resource> {
    ALL.into_iter()
        .find(|r| r.kind == kind && r.api_version() == api_version)
}

/// An API error: HTTP code, reason and message, printed by kubectl as
/// `Error from server (Reason): message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    pub code: u16,
    /// Empty for an internal error (an etcd error passed through).
    pub reason: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn not_found(r: &Resource, name: &str) -> ApiError {
        ApiError {
            code: 404,
            reason: "NotFound",
            message: format!("{} \"{name}\" not found", r.group_resource()),
        }
    }

    pub fn already_exists(r: &Resource, name: &str) -> ApiError {
        ApiError {
            code: 409,
            reason: "AlreadyExists",
            message: format!("{} \"{name}\" already exists", r.group_resource()),
        }
    }

    pub fn conflict(r: &Resource, name: &str) -> ApiError {
        ApiError {
            code: 409,
            reason: "Conflict",
            message: format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                r.group_resource()
            ),
        }
    }

    pub fn invalid(message: String) -> ApiError {
        ApiError {
            code: 422,
            reason: "Invalid",
            message,
        }
    }

    pub fn bad_request(message: String) -> ApiError {
        ApiError {
            code: 400,
            reason: "BadRequest",
            message,
        }
    }

    /// An etcd error, which the apiserver returns as a 500 with no reason.
    pub fn internal(message: String) -> ApiError {
        ApiError {
            code: 500,
            reason: "",
            message,
        }
    }

    pub fn gone(message: String) -> ApiError {
        ApiError {
            code: 410,
            reason: "Expired",
            message,
        }
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.reason.is_empty() {
            write!(f, "Error from server: {}", self.message)
        } else {
            write!(f, "Error from server ({}): {}", self.reason, self.message)
        }
    }
}

// ----- object accessors ----------------------------------------------------------------------

pub fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

pub fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

pub fn i64_at(v: &Value, path: &[&str]) -> Option<i64> {
    at(v, path).and_then(Value::as_i64)
}

pub fn name(v: &Value) -> &str {
    str_at(v, &["metadata", "name"])
}

pub fn namespace(v: &Value) -> &str {
    str_at(v, &["metadata", "namespace"])
}

pub fn uid(v: &Value) -> &str {
    str_at(v, &["metadata", "uid"])
}

pub fn resource_version(v: &Value) -> i64 {
    str_at(v, &["metadata", "resourceVersion"])
        .parse()
        .unwrap_or(0)
}

/// A mutable object at `path`, created (as `{}`) where missing.
pub fn obj_mut<'a>(v: &'a mut Value, path: &[&str]) -> &'a mut serde_json::Map<String, Value> {
    let mut cur = v;
    for k in path {
        if !cur.is_object() {
            *cur = Value::Object(serde_json::Map::new());
        }
        cur = cur
            .as_object_mut()
            .map(|m| m.entry(k.to_string()).or_insert(Value::Null))
            .expect("just made an object");
    }
    if !cur.is_object() {
        *cur = Value::Object(serde_json::Map::new());
    }
    cur.as_object_mut().expect("just made an object")
}

pub fn labels(v: &Value) -> Vec<(String, String)> {
    at(v, &["metadata", "labels"])
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `selector` (`matchLabels`) selects an object with `labels`.
pub fn selects(selector: &Value, labels: &[(String, String)]) -> bool {
    let Some(m) = selector.get("matchLabels").and_then(Value::as_object) else {
        return selector.get("matchExpressions").is_none() && !selector.is_null();
    };
    m.iter().all(|(k, v)| {
        labels
            .iter()
            .any(|(lk, lv)| lk == k && Some(lv.as_str()) == v.as_str())
    })
}

/// The controller owner reference's uid.
pub fn controller_uid(v: &Value) -> Option<&str> {
    at(v, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)?
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
        .and_then(|o| o.get("uid"))
        .and_then(Value::as_str)
}

// ----- time -------------------------------------------------------------------------------

/// RFC 3339 time (`2026-01-01T00:00:05Z`) of virtual time `ms`.
pub fn timestamp(ms: Millis) -> String {
    time::rfc3339_seconds(EPOCH_UNIX_MS + ms)
}

/// `Thu, 01 Jan 2026 00:00:05 +0000`, as `kubectl describe` prints times.
pub fn describe_time(ms: Millis) -> String {
    time::rfc1123z(((EPOCH_UNIX_MS + ms) / 1000) as i64)
}

/// Virtual milliseconds of an RFC 3339 time written by [`timestamp`] (0 if unreadable).
pub fn parse_timestamp(text: &str) -> Millis {
    time::unix_s_of_rfc3339_prefix(text)
        .map_or(0, |unix_s| (unix_s * 1000).saturating_sub(EPOCH_UNIX_MS))
}

/// kubectl's AGE (apimachinery `duration.HumanDuration`).
pub fn human_duration(ms: Millis) -> String {
    let s = ms / 1000;
    if s < 120 {
        return format!("{s}s");
    }
    let m = s / 60;
    if m < 10 {
        return if s.is_multiple_of(60) {
            format!("{m}m")
        } else {
            format!("{m}m{}s", s % 60)
        };
    }
    if m < 180 {
        return format!("{m}m");
    }
    let h = m / 60;
    if h < 8 {
        return if m.is_multiple_of(60) {
            format!("{h}h")
        } else {
            format!("{h}h{}m", m % 60)
        };
    }
    if h < 48 {
        return format!("{h}h");
    }
    format!("{}d", h / 24)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_names_follow_the_registry_layout() {
        assert_eq!(NODES.key("", "node-1"), "/registry/minions/node-1");
        assert_eq!(
            SERVICES.key("default", "web"),
            "/registry/services/specs/default/web"
        );
        assert_eq!(
            DEPLOYMENTS.key("default", "nginx"),
            "/registry/deployments/default/nginx"
        );
        assert_eq!(LEASES.group_resource(), "leases.coordination.k8s.io");
        assert_eq!(resource_by_name("deploy"), Some(DEPLOYMENTS));
        assert_eq!(resource_by_name("deployment.apps"), Some(DEPLOYMENTS));
        assert_eq!(resource_by_name("po"), Some(PODS));
        assert_eq!(resource_by_name("frobs"), None);
        assert_eq!(
            ApiError::not_found(&DEPLOYMENTS, "etcd-test").to_string(),
            "Error from server (NotFound): deployments.apps \"etcd-test\" not found"
        );
    }

    #[test]
    fn times_round_trip_and_ages_print_like_kubectl() {
        assert_eq!(timestamp(0), "2026-01-01T00:00:00Z");
        assert_eq!(
            timestamp(86_400_000 * 59 + 3_723_000),
            "2026-03-01T01:02:03Z"
        );
        assert_eq!(parse_timestamp(&timestamp(123_456_000)), 123_456_000);
        assert_eq!(describe_time(0), "Thu, 01 Jan 2026 00:00:00 +0000");
        assert_eq!(human_duration(45_000), "45s");
        assert_eq!(human_duration(125_000), "2m5s");
        assert_eq!(human_duration(600_000), "10m");
        assert_eq!(human_duration(3 * 3_600_000 + 60_000), "3h1m");
    }
}
