//! `describe pod` (`PodDescriber`): placement, owner, containers and their state,
//! conditions, QoS and tolerations.

use super::{array_at, field, labels_and_annotations, KEY_WIDTH};
use crate::console::kubectl::table::{pod_status_text, render_table};
use crate::kube::meta;
use serde_json::Value;
use std::fmt::Write as _;

pub(super) fn describe(o: &Value, out: &mut String) {
    let priority = meta::i64_at(o, &["spec", "priority"]).unwrap_or(0);
    field(out, KEY_WIDTH, "Priority", &priority.to_string());
    let class = meta::str_at(o, &["spec", "priorityClassName"]);
    if !class.is_empty() {
        field(out, KEY_WIDTH, "Priority Class Name", class);
    }
    let account = meta::str_at(o, &["spec", "serviceAccountName"]);
    field(out, KEY_WIDTH, "Service Account", account);
    let node = match meta::str_at(o, &["spec", "nodeName"]) {
        "" => "<none>".to_string(),
        n => format!("{n}/{}", meta::str_at(o, &["status", "hostIP"])),
    };
    field(out, KEY_WIDTH, "Node", &node);
    let start = meta::str_at(o, &["status", "startTime"]);
    if !start.is_empty() {
        let start = meta::describe_time(meta::parse_timestamp(start));
        field(out, KEY_WIDTH, "Start Time", &start);
    }
    labels_and_annotations(out, o, KEY_WIDTH);
    field(out, KEY_WIDTH, "Status", &pod_status_text(o));
    field(out, KEY_WIDTH, "IP", meta::str_at(o, &["status", "podIP"]));
    if let Some(owner) = array_at(o, &["metadata", "ownerReferences"]).first() {
        let owner = format!(
            "{}/{}",
            meta::str_at(owner, &["kind"]),
            meta::str_at(owner, &["name"])
        );
        field(out, KEY_WIDTH, "Controlled By", &owner);
    }
    containers(o, out);
    conditions(o, out);
    let qos = match meta::str_at(o, &["status", "qosClass"]) {
        "" => "BestEffort",
        q => q,
    };
    let _ = writeln!(out, "QoS Class:                   {qos}");
    let _ = writeln!(out, "Node-Selectors:              <none>");
    let _ = writeln!(out, "Tolerations:                 {}", tolerations(o));
}

fn containers(o: &Value, out: &mut String) {
    out.push_str("Containers:\n");
    let statuses = array_at(o, &["status", "containerStatuses"]);
    for c in array_at(o, &["spec", "containers"]) {
        let cname = meta::str_at(c, &["name"]);
        let _ = writeln!(out, "  {cname}:");
        let s = statuses
            .iter()
            .find(|s| meta::str_at(s, &["name"]) == cname);
        let _ = writeln!(out, "    Image:          {}", meta::str_at(c, &["image"]));
        let _ = writeln!(out, "    State:          {}", container_state(s));
        let ready = s.and_then(|s| s.get("ready")).and_then(Value::as_bool) == Some(true);
        let _ = writeln!(
            out,
            "    Ready:          {}",
            if ready { "True" } else { "False" }
        );
        let restarts = s
            .and_then(|s| s.get("restartCount"))
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let _ = writeln!(out, "    Restart Count:  {restarts}");
    }
}

/// `Running` with its start, `Waiting` with its reason.
fn container_state(status: Option<&Value>) -> String {
    match status.and_then(|s| s.get("state")) {
        Some(st) if st.get("running").is_some() => format!(
            "Running\n      Started:      {}",
            meta::describe_time(meta::parse_timestamp(meta::str_at(
                st,
                &["running", "startedAt"]
            )))
        ),
        Some(st) if st.get("waiting").is_some() => format!(
            "Waiting\n      Reason:       {}",
            meta::str_at(st, &["waiting", "reason"])
        ),
        _ => "Waiting".into(),
    }
}

fn conditions(o: &Value, out: &mut String) {
    let conds = array_at(o, &["status", "conditions"]);
    if conds.is_empty() {
        return;
    }
    out.push_str("Conditions:\n");
    let mut rows = vec![vec!["  Type".to_string(), "Status".to_string()]];
    for c in conds {
        rows.push(vec![
            format!("  {}", meta::str_at(c, &["type"])),
            meta::str_at(c, &["status"]).into(),
        ]);
    }
    out.push_str(&render_table(&rows));
}

/// printTolerationsMultiline: `key[=value][:effect][ op=Exists][ for Ns]`, one a line.
fn tolerations(o: &Value) -> String {
    let lines: Vec<String> = array_at(o, &["spec", "tolerations"])
        .iter()
        .map(|t| {
            let mut s = meta::str_at(t, &["key"]).to_string();
            let value = meta::str_at(t, &["value"]);
            if !value.is_empty() {
                let _ = write!(s, "={value}");
            }
            let effect = meta::str_at(t, &["effect"]);
            if !effect.is_empty() {
                let _ = write!(s, ":{effect}");
            }
            if meta::str_at(t, &["operator"]) == "Exists" {
                s.push_str(" op=Exists");
            }
            if let Some(secs) = meta::i64_at(t, &["tolerationSeconds"]) {
                let _ = write!(s, " for {secs}s");
            }
            s
        })
        .collect();
    if lines.is_empty() {
        "<none>".to_string()
    } else {
        lines.join("\n                             ")
    }
}
