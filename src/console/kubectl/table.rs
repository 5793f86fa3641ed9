//! kubectl's tables: the columns of each kind (KK `printers.go`), `-o wide`, `-A`'s
//! NAMESPACE, `-L`'s label columns, `--show-labels`, padded as kubectl's tabwriter pads them.

use crate::base::Millis;
use crate::kube::meta::{self, Resource};
use serde_json::Value;

/// How `get` prints a table.
pub(super) struct TableOptions {
    pub wide: bool,
    pub all_namespaces: bool,
    pub show_labels: bool,
    /// `-L`: labels shown as columns of their own.
    pub label_columns: Vec<String>,
    /// `--no-headers`: the rows alone, padded among themselves.
    pub no_headers: bool,
    /// Names as `kind.group/name` (several resources were asked for).
    pub kind_prefix: bool,
    pub now: Millis,
}

/// kubectl's tabwriter: cells padded to the column's width plus 3 spaces, the last one not.
pub(super) fn render_table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0; cols];
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count() + 3;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

/// A table's rows from string literals (a header, a dashed rule).
pub(super) fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

/// The table of `objs`, all of resource `r`, with its header.
pub(super) fn table(r: &Resource, objs: &[&Value], options: &TableOptions) -> String {
    let (columns, wide_columns) = columns(r.kind, options.wide);
    let mut header = row(columns);
    if options.wide {
        header.extend(row(wide_columns));
    }
    let namespace_column = options.all_namespaces && r.namespaced;
    if namespace_column {
        header.insert(0, "NAMESPACE".into());
    }
    // kubectl's formatLabelHeaders: a label's last path segment, upper-cased.
    header.extend(options.label_columns.iter().map(|l| {
        let last = l.rsplit('/').next().unwrap_or(l);
        last.to_uppercase()
    }));
    if options.show_labels {
        header.push("LABELS".into());
    }
    let mut rows = vec![header];
    for o in objs {
        let mut name = meta::name(o).to_string();
        if options.kind_prefix {
            name = format!("{}/{name}", r.kind_group());
        }
        let (mut cells, wide_cells) = cells(r.kind, o, name, options);
        if options.wide {
            cells.extend(wide_cells);
        }
        if namespace_column {
            cells.insert(0, meta::namespace(o).to_string());
        }
        cells.extend(options.label_columns.iter().map(|l| {
            let value = meta::at(o, &["metadata", "labels", l.as_str()]);
            value.and_then(Value::as_str).unwrap_or("").to_string()
        }));
        if options.show_labels {
            cells.push(labels_cell(o));
        }
        rows.push(cells);
    }
    let skip = usize::from(options.no_headers);
    render_table(&rows[skip..])
}

/// A kind's columns and the ones `-o wide` adds.
fn columns(kind: &str, wide: bool) -> (&'static [&'static str], &'static [&'static str]) {
    const WORKLOAD_WIDE: &[&str] = &["CONTAINERS", "IMAGES", "SELECTOR"];
    match kind {
        "Pod" => (
            &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
            &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        "Deployment" => (
            &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
            WORKLOAD_WIDE,
        ),
        "ReplicaSet" => (
            &["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
            WORKLOAD_WIDE,
        ),
        "Node" => (
            &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
            &[
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
            ],
        ),
        "Namespace" => (&["NAME", "STATUS", "AGE"], &[]),
        "Secret" => (&["NAME", "TYPE", "DATA", "AGE"], &[]),
        "ConfigMap" => (&["NAME", "DATA", "AGE"], &[]),
        "Lease" => (&["NAME", "HOLDER", "AGE"], &[]),
        // -o wide puts SUBOBJECT and SOURCE before MESSAGE (their column definitions).
        "Event" if wide => (
            &[
                "LAST SEEN",
                "TYPE",
                "REASON",
                "OBJECT",
                "SUBOBJECT",
                "SOURCE",
                "MESSAGE",
                "FIRST SEEN",
                "COUNT",
                "NAME",
            ],
            &[],
        ),
        "Event" => (&["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], &[]),
        _ => (&["NAME", "AGE"], &[]),
    }
}

/// One object's cells and its `-o wide` cells.
fn cells(
    kind: &str,
    o: &Value,
    name: String,
    options: &TableOptions,
) -> (Vec<String>, Vec<String>) {
    let now = options.now;
    match kind {
        "Pod" => pod_cells(o, name, now),
        "Deployment" => deployment_cells(o, name, now),
        "ReplicaSet" => replicaset_cells(o, name, now),
        "Node" => node_cells(o, name, now),
        "Namespace" => (
            vec![
                name,
                meta::str_at(o, &["status", "phase"]).to_string(),
                age(o, now),
            ],
            vec![],
        ),
        "Secret" => {
            let data = o
                .get("data")
                .and_then(Value::as_object)
                .map_or(0, |m| m.len());
            let kind = meta::str_at(o, &["type"]).to_string();
            (vec![name, kind, data.to_string(), age(o, now)], vec![])
        }
        "ConfigMap" => {
            let count = |f: &str| o.get(f).and_then(Value::as_object).map_or(0, |m| m.len());
            let data = count("data") + count("binaryData");
            (vec![name, data.to_string(), age(o, now)], vec![])
        }
        "Lease" => {
            let holder = or_none(meta::str_at(o, &["spec", "holderIdentity"]));
            (vec![name, holder.to_string(), age(o, now)], vec![])
        }
        "Event" => (event_cells(o, name, now, options.wide), vec![]),
        _ => (vec![name, age(o, now)], vec![]),
    }
}

/// `<none>` for an empty value.
fn or_none(v: &str) -> &str {
    if v.is_empty() {
        "<none>"
    } else {
        v
    }
}

fn labels_cell(o: &Value) -> String {
    let labels = meta::labels(o)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    or_none(&labels).to_string()
}

fn pod_cells(o: &Value, name: String, now: Millis) -> (Vec<String>, Vec<String>) {
    let statuses = meta::at(o, &["status", "containerStatuses"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let total = meta::at(o, &["spec", "containers"])
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let ready = statuses
        .iter()
        .filter(|c| c.get("ready").and_then(Value::as_bool) == Some(true))
        .count();
    let restarts: i64 = statuses
        .iter()
        .filter_map(|c| c.get("restartCount").and_then(Value::as_i64))
        .sum();
    let ip = or_none(meta::str_at(o, &["status", "podIP"]));
    let node = or_none(meta::str_at(o, &["spec", "nodeName"]));
    (
        vec![
            name,
            format!("{ready}/{total}"),
            pod_status_text(o),
            restarts.to_string(),
            age(o, now),
        ],
        vec![ip.into(), node.into(), "<none>".into(), "<none>".into()],
    )
}

fn deployment_cells(o: &Value, name: String, now: Millis) -> (Vec<String>, Vec<String>) {
    let (c, i) = template_containers(o);
    let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
    let n = |f: &str| meta::i64_at(o, &["status", f]).unwrap_or(0);
    (
        vec![
            name,
            format!("{}/{want}", n("readyReplicas")),
            n("updatedReplicas").to_string(),
            n("availableReplicas").to_string(),
            age(o, now),
        ],
        vec![c, i, selector_text(o)],
    )
}

fn replicaset_cells(o: &Value, name: String, now: Millis) -> (Vec<String>, Vec<String>) {
    let (c, i) = template_containers(o);
    let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
    let n = |f: &str| meta::i64_at(o, &["status", f]).unwrap_or(0);
    (
        vec![
            name,
            want.to_string(),
            n("replicas").to_string(),
            n("readyReplicas").to_string(),
            age(o, now),
        ],
        vec![c, i, selector_text(o)],
    )
}

/// The first entry of the array at `path` whose `type` is `wanted`.
fn typed_entry<'a>(o: &'a Value, path: &[&str], wanted: &str) -> Option<&'a Value> {
    meta::at(o, path).and_then(Value::as_array).and_then(|a| {
        a.iter()
            .find(|x| x.get("type").and_then(Value::as_str) == Some(wanted))
    })
}

fn node_cells(o: &Value, name: String, now: Millis) -> (Vec<String>, Vec<String>) {
    let ready = typed_entry(o, &["status", "conditions"], "Ready")
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str);
    let mut status = if ready == Some("True") {
        "Ready".to_string()
    } else {
        "NotReady".to_string()
    };
    if meta::at(o, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
        status.push_str(",SchedulingDisabled");
    }
    let ip = typed_entry(o, &["status", "addresses"], "InternalIP")
        .and_then(|x| x.get("address"))
        .and_then(Value::as_str)
        .unwrap_or("<none>")
        .to_string();
    let info = |f: &str| meta::str_at(o, &["status", "nodeInfo", f]).to_string();
    (
        vec![
            name,
            status,
            node_roles(o),
            age(o, now),
            info("kubeletVersion"),
        ],
        vec![
            ip,
            "<none>".into(),
            info("osImage"),
            info("kernelVersion"),
            info("containerRuntimeVersion"),
        ],
    )
}

fn event_cells(o: &Value, name: String, now: Millis, wide: bool) -> Vec<String> {
    let since = |field: &str| {
        let t = meta::parse_timestamp(meta::str_at(o, &[field]));
        meta::human_duration(now.saturating_sub(t))
    };
    let kind = meta::str_at(o, &["involvedObject", "kind"]).to_ascii_lowercase();
    let object = match meta::str_at(o, &["involvedObject", "name"]) {
        "" => kind,
        n => format!("{kind}/{n}"),
    };
    let message = meta::str_at(o, &["message"]).trim().to_string();
    let mut cells = vec![
        since("lastTimestamp"),
        meta::str_at(o, &["type"]).into(),
        meta::str_at(o, &["reason"]).into(),
        object,
    ];
    if !wide {
        cells.push(message);
        return cells;
    }
    let component = meta::str_at(o, &["source", "component"]);
    let source = match meta::str_at(o, &["source", "host"]) {
        "" => component.to_string(),
        host => format!("{component}, {host}"),
    };
    let count = meta::i64_at(o, &["count"]).filter(|c| *c > 0).unwrap_or(1);
    cells.extend([
        meta::str_at(o, &["involvedObject", "fieldPath"]).to_string(),
        source,
        message,
        since("firstTimestamp"),
        count.to_string(),
        name,
    ]);
    cells
}

/// AGE: since the object's creationTimestamp.
pub(super) fn age(obj: &Value, now: Millis) -> String {
    let created = meta::parse_timestamp(meta::str_at(obj, &["metadata", "creationTimestamp"]));
    meta::human_duration(now.saturating_sub(created))
}

/// SELECTOR: `spec.selector.matchLabels` as `k=v,...`.
pub(super) fn selector_text(obj: &Value) -> String {
    meta::at(obj, &["spec", "selector", "matchLabels"])
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_else(|| "<none>".into())
}

/// CONTAINERS and IMAGES of a workload's pod template, comma-joined.
fn template_containers(obj: &Value) -> (String, String) {
    let cs = meta::at(obj, &["spec", "template", "spec", "containers"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let field = |f: &str| {
        cs.iter()
            .map(|c| c.get(f).and_then(Value::as_str).unwrap_or("").to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    (field("name"), field("image"))
}

/// A pod's STATUS: Terminating, a waiting container's reason, or the phase.
pub(super) fn pod_status_text(pod: &Value) -> String {
    if meta::at(pod, &["metadata", "deletionTimestamp"]).is_some() {
        return "Terminating".into();
    }
    let statuses = meta::at(pod, &["status", "containerStatuses"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for s in &statuses {
        if let Some(reason) = meta::at(s, &["state", "waiting", "reason"]).and_then(Value::as_str) {
            return reason.to_string();
        }
    }
    match meta::str_at(pod, &["status", "phase"]) {
        "" => "Pending".into(),
        p => p.to_string(),
    }
}

/// ROLES: the node's `node-role.kubernetes.io/<role>` labels, or `<none>`.
pub(super) fn node_roles(o: &Value) -> String {
    let roles: Vec<String> = meta::labels(o)
        .into_iter()
        .filter_map(|(k, _)| {
            k.strip_prefix("node-role.kubernetes.io/")
                .map(str::to_string)
        })
        .collect();
    or_none(&roles.join(",")).to_string()
}
