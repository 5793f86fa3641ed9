//! LIST's `labelSelector` and `fieldSelector`, parsed and matched as the apiserver does
//! (AM `pkg/labels/selector.go`, `pkg/fields/selector.go`, and each kind's field label
//! conversion: KK `pkg/apis/core/v1/conversion.go`, `pkg/registry/*/strategy.go`).

use super::meta::{self, ApiError, Resource};
use serde_json::Value;

/// One label requirement.
#[derive(Clone, Debug, PartialEq)]
enum LabelOp {
    Equals(String),
    NotEquals(String),
    In(Vec<String>),
    NotIn(Vec<String>),
    Exists,
    DoesNotExist,
}

/// A field requirement: `field=value`, `field==value` or `field!=value`.
#[derive(Clone, Debug, PartialEq)]
struct FieldTerm {
    field: String,
    value: String,
    equal: bool,
}

/// The parsed selectors of one LIST or WATCH; the empty selector matches everything.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selectors {
    labels: Vec<(String, LabelOp)>,
    fields: Vec<FieldTerm>,
}

impl Selectors {
    /// Parses both selectors for a request on `r`. An error is the apiserver's BadRequest:
    /// `Unable to find "/v1, Resource=pods" that match label selector "…", field selector
    /// "…": <why>`.
    pub fn parse(r: &Resource, label: &str, field: &str) -> Result<Selectors, ApiError> {
        let fail = |why: String| {
            let gvr = format!("{}/{}, Resource={}", r.group, r.version, r.plural);
            ApiError::bad_request(format!(
                "Unable to find {gvr:?} that match label selector {label:?}, field selector {field:?}: {why}"
            ))
        };
        let labels = parse_labels(label).map_err(fail)?;
        let fields = parse_fields(field).map_err(fail)?;
        for term in &fields {
            if !field_supported(r, &term.field) {
                return Err(fail(unsupported_field(r, &term.field)));
            }
        }
        Ok(Selectors { labels, fields })
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }

    pub fn matches(&self, obj: &Value) -> bool {
        let labels = meta::labels(obj);
        let label = |k: &str| labels.iter().find(|(lk, _)| lk == k).map(|(_, v)| v);
        let labels_ok = self.labels.iter().all(|(k, op)| match op {
            LabelOp::Equals(v) => label(k) == Some(v),
            LabelOp::NotEquals(v) => label(k) != Some(v),
            LabelOp::In(vs) => label(k).is_some_and(|l| vs.contains(l)),
            LabelOp::NotIn(vs) => label(k).is_none_or(|l| !vs.contains(l)),
            LabelOp::Exists => label(k).is_some(),
            LabelOp::DoesNotExist => label(k).is_none(),
        });
        labels_ok
            && self
                .fields
                .iter()
                .all(|t| (field_value(obj, &t.field) == t.value) == t.equal)
    }
}

/// `a=b,c!=d,e in (f,g),!h,i`.
fn parse_labels(text: &str) -> Result<Vec<(String, LabelOp)>, String> {
    let mut out = Vec::new();
    for term in split_outside_parens(text) {
        let term = term.trim();
        if term.is_empty() {
            continue;
        }
        let (key, op) = if let Some(key) = term.strip_prefix('!') {
            (key.trim(), LabelOp::DoesNotExist)
        } else if let Some((k, v)) = term.split_once("!=") {
            (k.trim(), LabelOp::NotEquals(v.trim().to_string()))
        } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
            (k.trim(), LabelOp::Equals(v.trim().to_string()))
        } else if let Some((k, rest)) = term.split_once(' ') {
            let rest = rest.trim();
            let (negate, values) = if let Some(v) = rest.strip_prefix("notin") {
                (true, v)
            } else if let Some(v) = rest.strip_prefix("in") {
                (false, v)
            } else {
                let found = rest.split_whitespace().next().unwrap_or("");
                return Err(format!(
                    "unable to parse requirement: found '{found}', expected: in, notin, =, ==, !=, gt, lt"
                ));
            };
            let values = values
                .trim()
                .strip_prefix('(')
                .and_then(|v| v.strip_suffix(')'))
                .ok_or_else(|| {
                    "unable to parse requirement: found '', expected: '('".to_string()
                })?;
            let values = values
                .split(',')
                .map(|v| v.trim().to_string())
                .collect::<Vec<_>>();
            (
                k.trim(),
                if negate {
                    LabelOp::NotIn(values)
                } else {
                    LabelOp::In(values)
                },
            )
        } else {
            (term, LabelOp::Exists)
        };
        validate_label_key(key)?;
        if let LabelOp::Equals(v) | LabelOp::NotEquals(v) = &op {
            validate_label_value(v)?;
        }
        out.push((key.to_string(), op));
    }
    Ok(out)
}

fn split_outside_parens(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

fn label_chars_ok(s: &str) -> bool {
    s.len() <= 63
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && s.chars().next().is_none_or(|c| c.is_ascii_alphanumeric())
        && s.chars().last().is_none_or(|c| c.is_ascii_alphanumeric())
}

fn validate_label_key(key: &str) -> Result<(), String> {
    let name = key.rsplit_once('/').map_or(key, |(_, n)| n);
    if name.is_empty() || !label_chars_ok(name) {
        return Err(format!(
            "unable to parse requirement: <nil>: Invalid value: {key:?}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
        ));
    }
    Ok(())
}

fn validate_label_value(value: &str) -> Result<(), String> {
    if !label_chars_ok(value) {
        return Err(format!(
            "unable to parse requirement: <nil>: Invalid value: {value:?}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
        ));
    }
    Ok(())
}

/// `a=b,c!=d` (`fields.ParseSelector`).
fn parse_fields(text: &str) -> Result<Vec<FieldTerm>, String> {
    let mut out = Vec::new();
    for term in text.split(',').filter(|t| !t.is_empty()) {
        let (field, value, equal) = if let Some((f, v)) = term.split_once("!=") {
            (f, v, false)
        } else if let Some((f, v)) = term.split_once("==") {
            (f, v, true)
        } else if let Some((f, v)) = term.split_once('=') {
            (f, v, true)
        } else {
            return Err(format!(
                "invalid selector: '{text}'; can't understand '{term}'"
            ));
        };
        out.push(FieldTerm {
            field: field.to_string(),
            value: value.to_string(),
            equal,
        });
    }
    Ok(out)
}

/// The fields each kind can be selected by, besides `metadata.name` and
/// `metadata.namespace` (the `ToSelectableFields` of its registry strategy).
fn kind_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &[
            "spec.nodeName",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "spec.hostNetwork",
            "status.phase",
            "status.podIP",
            "status.nominatedNodeName",
        ],
        "Event" => &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
        "Secret" => &["type"],
        "Namespace" => &["status.phase"],
        "ReplicaSet" => &["status.replicas"],
        "Node" => &["spec.unschedulable"],
        _ => &[],
    }
}

fn field_supported(r: &Resource, field: &str) -> bool {
    matches!(field, "metadata.name" | "metadata.namespace") || kind_fields(r.kind).contains(&field)
}

/// What the kind's field label conversion says of a field it does not know.
fn unsupported_field(r: &Resource, field: &str) -> String {
    match r.kind {
        "Pod" | "Event" | "Secret" | "Namespace" | "Node" => {
            format!("field label not supported: {field}")
        }
        "ReplicaSet" => format!("field label not supported for appsv1.ReplicaSet: {field}"),
        _ => format!(
            "{field:?} is not a known field selector: only \"metadata.name\", \"metadata.namespace\""
        ),
    }
}

/// A field's value as its selectable-fields set renders it (numbers and booleans as text;
/// `source` is the source's component).
fn field_value(obj: &Value, field: &str) -> String {
    let path: Vec<&str> = match field {
        "source" => vec!["source", "component"],
        f => f.split('.').collect(),
    };
    match meta::at(obj, &path) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        // Absent booleans and counters select as their zero value.
        _ => match field {
            "spec.hostNetwork" | "spec.unschedulable" => "false".into(),
            "status.replicas" => "0".into(),
            _ => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, node: &str, phase: &str, app: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
               "spec": {"nodeName": node}, "status": {"phase": phase}})
    }

    #[test]
    fn field_selectors_select_pods_by_node_and_phase() {
        let pods = [
            pod("a", "node-1", "Running", "web"),
            pod("b", "node-2", "Running", "web"),
            pod("c", "node-1", "Pending", "db"),
        ];
        let names = |label: &str, field: &str| -> Vec<String> {
            let s = Selectors::parse(&meta::PODS, label, field).unwrap();
            pods.iter()
                .filter(|p| s.matches(p))
                .map(|p| meta::name(p).to_string())
                .collect()
        };
        assert_eq!(names("", "spec.nodeName=node-1"), ["a", "c"]);
        assert_eq!(names("", "status.phase!=Running"), ["c"]);
        assert_eq!(
            names("", "spec.nodeName==node-1,status.phase=Running"),
            ["a"]
        );
        assert_eq!(names("", "metadata.name=b"), ["b"]);
        assert_eq!(names("", "spec.hostNetwork=false"), ["a", "b", "c"]);
        assert_eq!(names("app=web", "spec.nodeName=node-1"), ["a"]);
        assert_eq!(names("app!=web", ""), ["c"]);
        assert_eq!(names("app in (db, cache)", ""), ["c"]);
        assert_eq!(names("app notin (db)", ""), ["a", "b"]);
        assert_eq!(names("!tier,app", ""), ["a", "b", "c"]);
        assert_eq!(names("tier", ""), Vec::<String>::new());
    }

    #[test]
    fn unknown_fields_are_the_apiservers_bad_requests() {
        let e = Selectors::parse(&meta::PODS, "", "foo=bar").unwrap_err();
        assert_eq!(e.code, 400);
        assert_eq!(
            e.message,
            "Unable to find \"/v1, Resource=pods\" that match label selector \"\", field selector \"foo=bar\": field label not supported: foo"
        );
        let e = Selectors::parse(&meta::DEPLOYMENTS, "", "spec.replicas=3").unwrap_err();
        assert!(e.message.starts_with(
            "Unable to find \"apps/v1, Resource=deployments\" that match label selector \"\", field selector \"spec.replicas=3\": \"spec.replicas\" is not a known field selector"
        ), "{}", e.message);
        let e = Selectors::parse(&meta::PODS, "", "status.phase").unwrap_err();
        assert!(e
            .message
            .ends_with("invalid selector: 'status.phase'; can't understand 'status.phase'"));
        let e = Selectors::parse(&meta::PODS, "app in db", "").unwrap_err();
        assert!(
            e.message.contains("unable to parse requirement"),
            "{}",
            e.message
        );
        let e = Selectors::parse(&meta::PODS, "app=a b", "").unwrap_err();
        assert!(
            e.message.contains("Invalid value: \"a b\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn events_select_by_involved_object_reason_and_source() {
        let ev = json!({"involvedObject": {"kind": "Pod", "name": "web-1"}, "reason": "Scheduled",
                        "source": {"component": "default-scheduler"}, "type": "Normal"});
        let m = |f: &str| Selectors::parse(&meta::EVENTS, "", f).unwrap().matches(&ev);
        assert!(m("involvedObject.kind=Pod,reason=Scheduled"));
        assert!(m("source=default-scheduler"));
        assert!(!m("type=Warning"));
    }
}
