//! `describe deployment` (`DeploymentDescriber`): replicas, strategy, the pod template,
//! conditions, and which ReplicaSets are old and new.

use super::{array_at, field, labels_and_annotations, map_lines, KEY_WIDTH};
use crate::console::kubectl::rollout::owned_replicasets;
use crate::console::kubectl::table::{render_table, row, selector_text};
use crate::console::kubectl::Ctx;
use crate::kube::meta;
use crate::kube::pod_template_hash;
use serde_json::Value;
use std::fmt::Write as _;

pub(super) fn describe(ctx: &mut Ctx, o: &Value, out: &mut String) {
    let created = meta::parse_timestamp(meta::str_at(o, &["metadata", "creationTimestamp"]));
    field(
        out,
        KEY_WIDTH,
        "CreationTimestamp",
        &meta::describe_time(created),
    );
    labels_and_annotations(out, o, KEY_WIDTH);
    field(out, KEY_WIDTH, "Selector", &selector_text(o));
    let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
    let n = |f: &str| meta::i64_at(o, &["status", f]).unwrap_or(0);
    let replicas = format!(
        "{want} desired | {} updated | {} total | {} available | {} unavailable",
        n("updatedReplicas"),
        n("replicas"),
        n("availableReplicas"),
        n("unavailableReplicas")
    );
    field(out, KEY_WIDTH, "Replicas", &replicas);
    strategy(o, out);
    out.push_str(&pod_template_text(
        meta::at(o, &["spec", "template"]).unwrap_or(&Value::Null),
    ));
    conditions(o, out);
    replica_sets(ctx, o, out);
}

fn strategy(o: &Value, out: &mut String) {
    let strategy = meta::str_at(o, &["spec", "strategy", "type"]);
    field(out, KEY_WIDTH, "StrategyType", strategy);
    let min_ready = meta::i64_at(o, &["spec", "minReadySeconds"]).unwrap_or(0);
    field(out, KEY_WIDTH, "MinReadySeconds", &min_ready.to_string());
    if strategy == "RollingUpdate" {
        let ru = |f: &str| {
            meta::at(o, &["spec", "strategy", "rollingUpdate", f])
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .unwrap_or_default()
        };
        let text = format!(
            "{} max unavailable, {} max surge",
            ru("maxUnavailable"),
            ru("maxSurge")
        );
        field(out, KEY_WIDTH, "RollingUpdateStrategy", &text);
    }
}

fn conditions(o: &Value, out: &mut String) {
    let conds = array_at(o, &["status", "conditions"]);
    if conds.is_empty() {
        return;
    }
    out.push_str("Conditions:\n");
    let mut rows = vec![
        row(&["  Type", "Status", "Reason"]),
        row(&["  ----", "------", "------"]),
    ];
    for c in conds {
        rows.push(vec![
            format!("  {}", meta::str_at(c, &["type"])),
            meta::str_at(c, &["status"]).into(),
            meta::str_at(c, &["reason"]).into(),
        ]);
    }
    out.push_str(&render_table(&rows).replace("   \n", "\n"));
}

/// OldReplicaSets (other templates, still scaled up) and NewReplicaSet (this template's).
fn replica_sets(ctx: &mut Ctx, o: &Value, out: &mut String) {
    let sets = owned_replicasets(ctx, meta::namespace(o), o).unwrap_or_default();
    let hash = pod_template_hash(
        meta::at(o, &["spec", "template"]).unwrap_or(&Value::Null),
        meta::i64_at(o, &["status", "collisionCount"]).unwrap_or(0),
    );
    let is_new =
        |rs: &Value| meta::str_at(rs, &["metadata", "labels", "pod-template-hash"]) == hash;
    let replicas = |rs: &Value, part: &str| meta::i64_at(rs, &[part, "replicas"]).unwrap_or(0);
    let listed = |pick: &dyn Fn(&Value) -> bool| {
        let names: Vec<String> = sets
            .iter()
            .filter(|(_, rs)| pick(rs))
            .map(|(_, rs)| {
                format!(
                    "{} ({}/{} replicas created)",
                    meta::name(rs),
                    replicas(rs, "status"),
                    replicas(rs, "spec")
                )
            })
            .collect();
        if names.is_empty() {
            "<none>".to_string()
        } else {
            names.join(", ")
        }
    };
    let old = listed(&|rs| !is_new(rs) && replicas(rs, "spec") > 0);
    let new = listed(&is_new);
    let _ = writeln!(out, "OldReplicaSets:  {old}");
    let _ = writeln!(out, "NewReplicaSet:   {new}");
}

/// The `Pod Template:` section: labels and each container's image and port.
fn pod_template_text(t: &Value) -> String {
    let mut out = String::from("Pod Template:\n");
    let _ = write!(
        out,
        "  Labels:  {}",
        map_lines(meta::at(t, &["metadata", "labels"]), 11)
    );
    out.push_str("  Containers:\n");
    for c in array_at(t, &["spec", "containers"]) {
        let _ = writeln!(out, "   {}:", meta::str_at(c, &["name"]));
        let _ = writeln!(out, "    Image:         {}", meta::str_at(c, &["image"]));
        let port = array_at(c, &["ports"])
            .first()
            .and_then(|p| p.get("containerPort"))
            .and_then(Value::as_i64);
        let _ = writeln!(
            out,
            "    Port:          {}",
            port.map_or("<none>".into(), |p| format!("{p}/TCP"))
        );
        let _ = writeln!(
            out,
            "    Host Port:     {}",
            port.map_or("<none>".into(), |_| "0/TCP".to_string())
        );
        let _ = writeln!(out, "    Environment:   <none>");
        let _ = writeln!(out, "    Mounts:        <none>");
    }
    out.push_str(
        "  Volumes:         <none>\n  Node-Selectors:  <none>\n  Tolerations:     <none>\n",
    );
    out
}
