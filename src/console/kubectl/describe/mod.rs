//! `kubectl describe` (KK `pkg/describe/describe.go`): one describer per kind, sharing the
//! sections every kind has (labels, annotations, conditions, events).

mod deployment;
mod node;
mod pod;

use super::flags::Args;
use super::table::{render_table, row};
use super::targets::{selectors, targets};
use super::Ctx;
use crate::kube::meta::{self, Resource};
use base64::Engine as _;
use serde_json::Value;
use std::fmt::Write as _;

/// The width of the key column of most describers (`Name:` padded to it).
const KEY_WIDTH: usize = 24;

pub(in crate::console::kubectl) fn describe(ctx: &mut Ctx, a: &Args) {
    let Some(targets) = targets(ctx, a) else {
        return;
    };
    let ns = a.namespace();
    let mut first = true;
    for (r, name) in targets {
        let objs = if name.is_empty() {
            match list(ctx, a, &r) {
                Some(l) => l,
                None => return,
            }
        } else {
            let obj_ns = if r.namespaced { ns.as_str() } else { "" };
            match ctx.cp.api.get(ctx.world, &r, obj_ns, &name) {
                Ok(o) => vec![o],
                Err(e) => {
                    ctx.api_error(&e);
                    continue;
                }
            }
        };
        for o in objs {
            if !first {
                ctx.print("\n\n");
            }
            first = false;
            let text = describe_one(ctx, &r, &o);
            ctx.print(&text);
        }
    }
}

/// Every object of `r` in the namespace (`-A`: in all), filtered by `-l`.
fn list(ctx: &mut Ctx, a: &Args, r: &Resource) -> Option<Vec<Value>> {
    let ns = a.namespace();
    let scope = (!a.all_namespaces).then_some(ns.as_str());
    let listed = selectors(a, r).and_then(|s| {
        let (list, _) = ctx.cp.api.list(ctx.world, r, scope)?;
        Ok(list.into_iter().filter(|o| s.matches(o)).collect())
    });
    match listed {
        Ok(objs) => Some(objs),
        Err(e) => {
            ctx.api_error(&e);
            None
        }
    }
}

fn describe_one(ctx: &mut Ctx, r: &Resource, o: &Value) -> String {
    if r.kind == "Node" {
        return node::describe(ctx, o);
    }
    let mut out = String::new();
    field(&mut out, KEY_WIDTH, "Name", meta::name(o));
    if r.namespaced {
        field(&mut out, KEY_WIDTH, "Namespace", meta::namespace(o));
    }
    match r.kind {
        "Deployment" => deployment::describe(ctx, o, &mut out),
        "Pod" => pod::describe(o, &mut out),
        "Secret" => return secret(o, out),
        _ => {
            labels_and_annotations(&mut out, o, KEY_WIDTH);
            if let Some(status) = meta::at(o, &["status", "phase"]).and_then(Value::as_str) {
                field(&mut out, KEY_WIDTH, "Status", status);
            }
        }
    }
    out.push_str(&events_for(ctx, o));
    out
}

/// A Secret's type and the size of each value (never the value itself); no events.
fn secret(o: &Value, mut out: String) -> String {
    labels_and_annotations(&mut out, o, KEY_WIDTH);
    field(&mut out, KEY_WIDTH, "Type", meta::str_at(o, &["type"]));
    out.push_str("\nData\n====\n");
    for (k, v) in o
        .get("data")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let len = base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or(""))
            .map_or(0, |b| b.len());
        let _ = writeln!(out, "{k}:  {len} bytes");
    }
    out
}

/// `Key:` padded to `width`, then the value.
fn field(out: &mut String, width: usize, key: &str, value: &str) {
    let _ = writeln!(out, "{:<width$}{value}", format!("{key}:"));
}

/// A map's `k=v` lines, the later ones indented to `indent`; `<none>` when empty.
fn map_lines(v: Option<&Value>, indent: usize) -> String {
    let Some(m) = v.and_then(Value::as_object).filter(|m| !m.is_empty()) else {
        return "<none>\n".into();
    };
    let mut out = String::new();
    for (i, (k, val)) in m.iter().enumerate() {
        if i > 0 {
            out.extend(std::iter::repeat_n(' ', indent));
        }
        let text = val.as_str().map_or_else(|| val.to_string(), str::to_string);
        let _ = writeln!(out, "{k}={text}");
    }
    out
}

/// Annotations as `k: v` lines, without kubectl's own last-applied configuration.
fn annotation_lines(v: Option<&Value>, indent: usize) -> String {
    let Some(m) = v.and_then(Value::as_object).filter(|m| !m.is_empty()) else {
        return "<none>\n".into();
    };
    let mut out = String::new();
    for (i, (k, val)) in m
        .iter()
        .filter(|(k, _)| *k != "kubectl.kubernetes.io/last-applied-configuration")
        .enumerate()
    {
        if i > 0 {
            out.extend(std::iter::repeat_n(' ', indent));
        }
        let _ = writeln!(out, "{k}: {}", val.as_str().unwrap_or(""));
    }
    if out.is_empty() {
        return "<none>\n".into();
    }
    out
}

/// `describe`'s Labels and Annotations lines.
fn labels_and_annotations(out: &mut String, o: &Value, w: usize) {
    let labels = map_lines(meta::at(o, &["metadata", "labels"]), w);
    let annotations = annotation_lines(meta::at(o, &["metadata", "annotations"]), w);
    let _ = write!(
        out,
        "{:<w$}{labels}{:<w$}{annotations}",
        "Labels:", "Annotations:"
    );
}

/// The array at `path` (empty when absent).
fn array_at<'a>(o: &'a Value, path: &[&str]) -> &'a [Value] {
    meta::at(o, path)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The Events about `o` (describe's `SearchEvents`: name, kind and uid of the involved
/// object), oldest first.
fn events_for(ctx: &mut Ctx, o: &Value) -> String {
    let ns = match meta::namespace(o) {
        "" => "default",
        n => n,
    }
    .to_string();
    let events = match ctx.cp.api.list(ctx.world, &meta::EVENTS, Some(&ns)) {
        Ok((l, _)) => l,
        Err(_) => Vec::new(),
    };
    let mut mine: Vec<Value> = events
        .into_iter()
        .filter(|e| {
            let involved = |f: &str| meta::str_at(e, &["involvedObject", f]);
            involved("name") == meta::name(o)
                && involved("kind") == meta::str_at(o, &["kind"])
                && involved("uid") == meta::uid(o)
        })
        .collect();
    if mine.is_empty() {
        return "Events:          <none>\n".into();
    }
    mine.sort_by_key(|e| meta::parse_timestamp(meta::str_at(e, &["lastTimestamp"])));
    let now = ctx.world.now();
    let mut rows = vec![
        row(&["  Type", "Reason", "Age", "From", "Message"]),
        row(&["  ----", "------", "----", "----", "-------"]),
    ];
    for e in &mine {
        rows.push(event_row(e, now));
    }
    format!("Events:\n{}", render_table(&rows))
}

fn event_row(e: &Value, now: crate::base::Millis) -> Vec<String> {
    let since = |field: &str| {
        let t = meta::parse_timestamp(meta::str_at(e, &[field]));
        meta::human_duration(now.saturating_sub(t))
    };
    // describe's interval: the age, or `<last> (xN over <first>)` for a repeated Event.
    let interval = match meta::i64_at(e, &["count"]).unwrap_or(1) {
        n if n > 1 => format!(
            "{} (x{n} over {})",
            since("lastTimestamp"),
            since("firstTimestamp")
        ),
        _ => since("firstTimestamp"),
    };
    vec![
        format!("  {}", meta::str_at(e, &["type"])),
        meta::str_at(e, &["reason"]).into(),
        interval,
        meta::str_at(e, &["source", "component"]).into(),
        meta::str_at(e, &["message"]).into(),
    ]
}
