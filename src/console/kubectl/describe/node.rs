//! `describe node` (`describeNode`): identity, taints, the node Lease, conditions,
//! addresses, capacity, the pods on it, events.

use super::{array_at, events_for, field, labels_and_annotations};
use crate::console::kubectl::table::{age, node_roles, render_table, row};
use crate::console::kubectl::Ctx;
use crate::kube::meta;
use serde_json::Value;
use std::fmt::Write as _;

/// The width of `describe node`'s key column.
const KEY_WIDTH: usize = 20;

pub(super) fn describe(ctx: &mut Ctx, o: &Value) -> String {
    let mut out = String::new();
    let name = meta::name(o).to_string();
    field(&mut out, KEY_WIDTH, "Name", &name);
    field(&mut out, KEY_WIDTH, "Roles", &node_roles(o));
    labels_and_annotations(&mut out, o, KEY_WIDTH);
    let created = meta::parse_timestamp(meta::str_at(o, &["metadata", "creationTimestamp"]));
    field(
        &mut out,
        KEY_WIDTH,
        "CreationTimestamp",
        &meta::describe_time(created),
    );
    field(&mut out, KEY_WIDTH, "Taints", &taints(o));
    let unschedulable =
        meta::at(o, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true);
    field(
        &mut out,
        KEY_WIDTH,
        "Unschedulable",
        &unschedulable.to_string(),
    );
    lease(ctx, &name, &mut out);
    conditions(o, &mut out);
    addresses(o, &mut out);
    capacity(o, &mut out);
    let cidr = meta::str_at(o, &["spec", "podCIDR"]);
    let _ = writeln!(out, "{:<30}{cidr}", "PodCIDR:");
    let _ = writeln!(out, "{:<30}{cidr}", "PodCIDRs:");
    pods(ctx, &name, &mut out);
    out.push_str(&events_for(ctx, o));
    out
}

/// `key[=value]:effect`, one a line.
fn taints(o: &Value) -> String {
    let taints: Vec<String> = array_at(o, &["spec", "taints"])
        .iter()
        .map(|t| {
            let value = match meta::str_at(t, &["value"]) {
                "" => String::new(),
                v => format!("={v}"),
            };
            format!(
                "{}{value}:{}",
                meta::str_at(t, &["key"]),
                meta::str_at(t, &["effect"])
            )
        })
        .collect();
    if taints.is_empty() {
        "<none>".into()
    } else {
        taints.join(&format!("\n{}", " ".repeat(KEY_WIDTH)))
    }
}

/// The node's Lease in `kube-node-lease`: who holds it and when it was last renewed.
fn lease(ctx: &mut Ctx, name: &str, out: &mut String) {
    let Ok(lease) = ctx
        .cp
        .api
        .get(ctx.world, &meta::LEASES, "kube-node-lease", name)
    else {
        return;
    };
    let renew = match meta::str_at(&lease, &["spec", "renewTime"]) {
        "" => "<unset>".to_string(),
        renew => meta::describe_time(meta::parse_timestamp(renew)),
    };
    let _ = write!(
        out,
        "Lease:\n  HolderIdentity:  {}\n  AcquireTime:     <unset>\n  RenewTime:       {renew}\n",
        meta::str_at(&lease, &["spec", "holderIdentity"])
    );
}

fn conditions(o: &Value, out: &mut String) {
    let mut rows = vec![
        row(&[
            "  Type",
            "Status",
            "LastHeartbeatTime",
            "LastTransitionTime",
            "Reason",
            "Message",
        ]),
        row(&[
            "  ----",
            "------",
            "-----------------",
            "------------------",
            "------",
            "-------",
        ]),
    ];
    for c in array_at(o, &["status", "conditions"]) {
        let time = |f: &str| meta::describe_time(meta::parse_timestamp(meta::str_at(c, &[f])));
        rows.push(vec![
            format!("  {}", meta::str_at(c, &["type"])),
            meta::str_at(c, &["status"]).into(),
            time("lastHeartbeatTime"),
            time("lastTransitionTime"),
            meta::str_at(c, &["reason"]).into(),
            meta::str_at(c, &["message"]).into(),
        ]);
    }
    out.push_str("Conditions:\n");
    out.push_str(&render_table(&rows));
}

fn addresses(o: &Value, out: &mut String) {
    out.push_str("Addresses:\n");
    let addresses = array_at(o, &["status", "addresses"]);
    let width = addresses
        .iter()
        .map(|a| meta::str_at(a, &["type"]).len() + 3)
        .max()
        .unwrap_or(0);
    for a in addresses {
        let key = format!("{}:", meta::str_at(a, &["type"]));
        out.push_str("  ");
        crate::base::pad(out, &key, width, false);
        out.push_str(meta::str_at(a, &["address"]));
        out.push('\n');
    }
}

fn capacity(o: &Value, out: &mut String) {
    for section in ["capacity", "allocatable"] {
        let mut title = section.to_string();
        title[..1].make_ascii_uppercase();
        let _ = writeln!(out, "{title}:");
        if let Some(m) = meta::at(o, &["status", section]).and_then(Value::as_object) {
            for (k, v) in m {
                let _ = writeln!(out, "  {:<18}{}", format!("{k}:"), v.as_str().unwrap_or(""));
            }
        }
    }
}

/// `Non-terminated Pods:` the pods bound to the node that have not finished.
fn pods(ctx: &mut Ctx, name: &str, out: &mut String) {
    let pods: Vec<Value> = match ctx.cp.api.list(ctx.world, &meta::PODS, None) {
        Ok((l, _)) => l
            .into_iter()
            .filter(|p| meta::str_at(p, &["spec", "nodeName"]) == name)
            .filter(|p| {
                !matches!(
                    meta::str_at(p, &["status", "phase"]),
                    "Succeeded" | "Failed"
                )
            })
            .collect(),
        Err(_) => Vec::new(),
    };
    let now = ctx.world.now();
    let _ = writeln!(
        out,
        "{:<30}({} in total)",
        "Non-terminated Pods:",
        pods.len()
    );
    let mut rows = vec![
        row(&["  Namespace", "Name", "Age"]),
        row(&["  ---------", "----", "---"]),
    ];
    for p in &pods {
        rows.push(vec![
            format!("  {}", meta::namespace(p)),
            meta::name(p).into(),
            age(p, now),
        ]);
    }
    out.push_str(&render_table(&rows));
}
