//! The objects the controllers read and write, as typed structs over the apiserver's JSON.
//! Only the fields the controllers use are modelled; every other field is kept in `rest`, so
//! `Value -> struct -> Value` gives back the same object (same keys, nulls and numbers), and
//! an object written back differs only where a controller changed it.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The fields a struct does not model, kept as they came.
pub type Rest = Map<String, Value>;

/// Reads an object the apiserver holds; None when it does not have the modelled fields' types
/// (the apiserver's decoder makes that impossible for what it stores).
pub fn from_value<T: DeserializeOwned>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// The object as JSON again (structs with string keys and JSON values always serialize).
pub fn to_value<T: Serialize>(object: &T) -> Value {
    serde_json::to_value(object).unwrap_or(Value::Null)
}

/// A field that may be present as `null` (Go's zero `metav1.Time`): `Some(None)`, so that the
/// null survives a round trip, where an absent field is `None` (through `#[serde(default)]`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub creation_timestamp: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_references: Option<Vec<OwnerReference>>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl ObjectMeta {
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }

    pub fn namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("")
    }

    pub fn uid(&self) -> &str {
        self.uid.as_deref().unwrap_or("")
    }

    pub fn creation_timestamp(&self) -> &str {
        self.creation_timestamp
            .as_ref()
            .and_then(|t| t.as_deref())
            .unwrap_or("")
    }

    pub fn is_deleting(&self) -> bool {
        self.deletion_timestamp.is_some()
    }

    pub fn label(&self, key: &str) -> &str {
        self.labels
            .as_ref()
            .and_then(|l| l.get(key))
            .map_or("", String::as_str)
    }

    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.annotations
            .as_ref()
            .and_then(|a| a.get(key))
            .map(String::as_str)
    }

    /// Sets an annotation (creating the map where there was none).
    pub fn annotate(&mut self, key: &str, value: String) {
        self.annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(key.to_string(), value);
    }

    /// The uid of the owner that is this object's controller.
    pub fn controller_uid(&self) -> Option<&str> {
        self.owner_references
            .as_ref()?
            .iter()
            .find(|o| o.controller == Some(true))
            .map(|o| o.uid.as_str())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// A status condition (of a Pod, Node or Deployment).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type", default)]
    pub kind: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_update_time: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_transition_time: Option<Option<String>>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// Whether `conditions` hold one of type `kind` with status True.
pub fn condition_true(conditions: &Option<Vec<Condition>>, kind: &str) -> bool {
    conditions
        .iter()
        .flatten()
        .any(|c| c.kind == kind && c.status == "True")
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PodSpec,
    #[serde(default)]
    pub status: PodStatus,
    #[serde(flatten)]
    pub rest: Rest,
}

impl Pod {
    /// The node it is bound to ("" while unscheduled).
    pub fn node_name(&self) -> &str {
        self.spec.node_name.as_deref().unwrap_or("")
    }

    pub fn phase(&self) -> &str {
        self.status.phase.as_deref().unwrap_or("")
    }

    /// Neither being deleted nor finished.
    pub fn is_active(&self) -> bool {
        !self.metadata.is_deleting() && !matches!(self.phase(), "Succeeded" | "Failed")
    }

    pub fn is_ready(&self) -> bool {
        condition_true(&self.status.conditions, "Ready")
    }

    /// `namespace/name`. Joined by hand: the controllers ask for it per pod per round, and
    /// `format!`'s machinery costs several times the copy.
    pub fn key(&self) -> String {
        let (ns, name) = (self.metadata.namespace(), self.metadata.name());
        let mut key = String::with_capacity(ns.len() + 1 + name.len());
        key.push_str(ns);
        key.push('/');
        key.push_str(name);
        key
    }

    pub fn containers(&self) -> &[Container] {
        self.spec.containers.as_deref().unwrap_or_default()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers: Option<Vec<Container>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<Toleration>>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl Container {
    pub fn image(&self) -> &str {
        self.image.as_deref().unwrap_or("")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_statuses: Option<Vec<ContainerStatus>>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<ContainerState>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Value>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl Toleration {
    /// `ToleratesTaint`: same effect (or any), and the key equal (`Equal`, the default, also
    /// compares the value) or any key with `Exists` and no key.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        let effect = self.effect.as_deref().unwrap_or("");
        if !effect.is_empty() && effect != taint.effect {
            return false;
        }
        let key = self.key.as_deref().unwrap_or("");
        match self.operator.as_deref() {
            Some("Exists") => key.is_empty() || key == taint.key,
            _ => key == taint.key && self.value.as_deref().unwrap_or("") == taint.value(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    #[serde(default)]
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default)]
    pub effect: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_added: Option<String>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl Taint {
    pub fn value(&self) -> &str {
        self.value.as_deref().unwrap_or("")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: NodeSpec,
    #[serde(default)]
    pub status: NodeStatus,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unschedulable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taints: Option<Vec<Taint>>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LeaseSpec,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeaseSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder_identity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_duration_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_time: Option<String>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// A ReplicaSet's or a Deployment's pod template.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodTemplate {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PodSpec,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ReplicaSetSpec,
    #[serde(default)]
    pub status: ReplicaSetStatus,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<PodTemplate>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// The replica counts a ReplicaSet's (and a Deployment's) status reports.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_replicas: Option<i64>,
    #[serde(flatten)]
    pub rest: Rest,
}

impl ReplicaSet {
    /// `spec.replicas` (1 when unset).
    pub fn replicas(&self) -> i64 {
        self.spec.replicas.unwrap_or(1)
    }

    pub fn status_replicas(&self) -> i64 {
        self.status.replicas.unwrap_or(0)
    }

    pub fn available(&self) -> i64 {
        self.status.available_replicas.unwrap_or(0)
    }

    /// Its `deployment.kubernetes.io/revision` (None when unset or not a number).
    pub fn revision(&self) -> Option<i64> {
        self.metadata
            .annotation(REVISION)
            .and_then(|r| r.parse().ok())
    }
}

/// The annotation holding a ReplicaSet's (and its Deployment's) revision.
pub const REVISION: &str = "deployment.kubernetes.io/revision";

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: DeploymentSpec,
    #[serde(default)]
    pub status: DeploymentStatus,
    #[serde(flatten)]
    pub rest: Rest,
}

impl Deployment {
    /// `spec.replicas` (1 when unset).
    pub fn replicas(&self) -> i64 {
        self.spec.replicas.unwrap_or(1)
    }

    pub fn is_recreate(&self) -> bool {
        self.spec.strategy.as_ref().and_then(|s| s.kind.as_deref()) == Some("Recreate")
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<PodTemplate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ready_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i64>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Strategy {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdate>,
    #[serde(flatten)]
    pub rest: Rest,
}

/// maxSurge and maxUnavailable: a count or a percentage (`"25%"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RollingUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<Value>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collision_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<Condition>>,
    #[serde(flatten)]
    pub rest: Rest,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nulls_absent_fields_and_unknown_fields_survive_a_round_trip() {
        let template = json!({"metadata": {"creationTimestamp": null, "labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {}}]}});
        let back: PodTemplate = from_value(&template).unwrap();
        assert_eq!(back.metadata.creation_timestamp, Some(None));
        assert_eq!(to_value(&back), template);
        let condition = json!({"type": "Ready", "status": "True", "lastProbeTime": null,
            "lastTransitionTime": "2026-01-01T00:00:00Z"});
        assert_eq!(
            to_value(&from_value::<Condition>(&condition).unwrap()),
            condition
        );
        let bare = json!({"metadata": {}, "spec": {}, "status": {}});
        assert_eq!(to_value(&from_value::<Pod>(&bare).unwrap()), bare);
    }

    #[test]
    fn a_field_of_the_wrong_type_is_not_read() {
        assert_eq!(from_value::<Pod>(&json!({"spec": {"nodeName": 3}})), None);
        assert_eq!(from_value::<Pod>(&json!("pod")), None);
    }
}
