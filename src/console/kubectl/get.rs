//! `kubectl get`: lists and objects as tables, `-o wide|name|yaml|json|custom-columns=`, and
//! `-w`, which prints every later change as one more row.

use super::flags::Args;
use super::table::{self, render_table, TableOptions};
use super::targets::{selectors, targets};
use super::{Ctx, STREAM_MS};
use crate::kube::meta::{self, Resource};
use crate::kube::{yaml, WatchEvent};
use serde::Serialize;
use serde_json::{json, Value};

/// `-o custom-columns=` columns: (header, path steps).
type Columns = Vec<(String, Vec<String>)>;

/// What `get` fetched: the objects in order, whether one object was asked for by name, and
/// the resourceVersion a watch resumes from.
#[derive(Default)]
struct Fetched {
    items: Vec<(Resource, Value)>,
    single: bool,
    listed_at: Option<i64>,
}

pub(super) fn get(ctx: &mut Ctx, a: &Args) {
    let Some(targets) = targets(ctx, a) else {
        return;
    };
    let format = a.output.clone().unwrap_or_default();
    let custom = match format.strip_prefix("custom-columns=") {
        Some(spec) => match custom_columns(spec) {
            Ok(c) => Some(c),
            Err(e) => return ctx.fail(&e),
        },
        None => None,
    };
    if custom.is_none() && !matches!(format.as_str(), "" | "wide" | "yaml" | "json" | "name") {
        ctx.fail(&format!("error: unable to match a printer suitable for the output format \"{format}\", allowed formats are: json,name,wide,yaml"));
        return;
    }
    let Some(fetched) = fetch(ctx, a, &targets) else {
        return;
    };
    if fetched.items.is_empty() && nothing_found(ctx, a, &targets, &fetched, &format) {
        return;
    }
    match (format.as_str(), custom) {
        ("yaml" | "json", _) => print_document(ctx, &fetched, &format),
        ("name", _) => {
            for (r, o) in &fetched.items {
                ctx.print(&format!("{}/{}\n", r.kind_group(), meta::name(o)));
            }
        }
        (_, Some(columns)) => print_custom(ctx, &fetched.items, &columns, a.no_headers),
        _ => print_tables(ctx, a, &targets, &fetched.items, format == "wide"),
    }
    if a.watch {
        if let (Some(rev), Some((r, name))) = (fetched.listed_at, targets.first()) {
            let ns = a.namespace();
            let scope = (!a.all_namespaces && r.namespaced).then_some(ns.as_str());
            watch_rows(ctx, a, r, name, scope, rev);
        }
    }
}

/// Lists and gets every target; `None` when a selector is refused.
fn fetch(ctx: &mut Ctx, a: &Args, targets: &[(Resource, String)]) -> Option<Fetched> {
    let ns = a.namespace();
    let mut fetched = Fetched::default();
    for (r, name) in targets {
        let selectors = match selectors(a, r) {
            Ok(s) => s,
            Err(e) => {
                ctx.api_error(&e);
                return None;
            }
        };
        if name.is_empty() {
            let scope = (!a.all_namespaces).then_some(ns.as_str());
            match ctx.cp.api.list(ctx.world, r, scope) {
                Ok((list, rev)) => {
                    fetched.listed_at.get_or_insert(rev);
                    let list = list.into_iter().filter(|o| selectors.matches(o));
                    fetched.items.extend(list.map(|o| (*r, o)));
                }
                Err(e) => {
                    ctx.api_error(&e);
                    return None;
                }
            }
        } else {
            fetched.single = targets.len() == 1;
            let obj_ns = if r.namespaced { ns.as_str() } else { "" };
            match ctx.cp.api.get(ctx.world, r, obj_ns, name) {
                Ok(o) => {
                    fetched.listed_at.get_or_insert(meta::resource_version(&o));
                    fetched.items.push((*r, o));
                }
                Err(e) => ctx.api_error(&e),
            }
        }
    }
    Some(fetched)
}

/// An empty result: `No resources found` (and a watch) for a table, and whether `get` is
/// done (yaml and json still print an empty List).
fn nothing_found(
    ctx: &mut Ctx,
    a: &Args,
    targets: &[(Resource, String)],
    fetched: &Fetched,
    format: &str,
) -> bool {
    if ctx.out.code == 0 && !fetched.single && matches!(format, "" | "wide" | "name") {
        let r = targets[0].0;
        let ns = a.namespace();
        if a.all_namespaces || !r.namespaced {
            ctx.fail("No resources found");
        } else {
            ctx.fail(&format!("No resources found in {ns} namespace."));
        }
        ctx.out.code = 0;
        if a.watch {
            if let Some(rev) = fetched.listed_at {
                let scope = (!a.all_namespaces && r.namespaced).then_some(ns.as_str());
                watch_rows(ctx, a, &r, "", scope, rev);
            }
        }
        return true;
    }
    !matches!(format, "yaml" | "json") || ctx.out.code != 0
}

/// `-o yaml|json`: the one object asked for by name, or a `List` of them all.
fn print_document(ctx: &mut Ctx, fetched: &Fetched, format: &str) {
    let items = &fetched.items;
    let value = if fetched.single && items.len() == 1 {
        items[0].1.clone()
    } else {
        json!({"apiVersion": "v1", "items": items.iter().map(|(_, o)| o.clone()).collect::<Vec<_>>(),
            "kind": "List", "metadata": {"resourceVersion": ""}})
    };
    if format == "yaml" {
        ctx.print(&yaml::to_yaml(&value));
    } else {
        ctx.print(&(pretty_json(&value) + "\n"));
    }
}

fn print_custom(ctx: &mut Ctx, items: &[(Resource, Value)], columns: &Columns, no_headers: bool) {
    let mut rows = vec![columns.iter().map(|(h, _)| h.clone()).collect::<Vec<_>>()];
    for (_, o) in items {
        rows.push(
            columns
                .iter()
                .map(|(_, path)| column_value(o, path))
                .collect(),
        );
    }
    ctx.print(&render_table(&rows[usize::from(no_headers)..]));
}

/// One table per run of objects of the same resource, a blank line between them.
fn print_tables(
    ctx: &mut Ctx,
    a: &Args,
    targets: &[(Resource, String)],
    items: &[(Resource, Value)],
    wide: bool,
) {
    let options = TableOptions {
        wide,
        all_namespaces: a.all_namespaces,
        show_labels: a.show_labels,
        label_columns: a.label_columns.clone(),
        no_headers: a.no_headers,
        kind_prefix: targets.len() > 1
            || a.positional.first().is_some_and(|p| p.contains(['/', ','])),
        now: ctx.world.now(),
    };
    for (i, run) in items.chunk_by(|(x, _), (y, _)| x == y).enumerate() {
        if i > 0 {
            ctx.print("\n");
        }
        let objs: Vec<&Value> = run.iter().map(|(_, o)| o).collect();
        ctx.print(&table::table(&run[0].0, &objs, &options));
    }
}

/// `kubectl get -w`: the control plane runs on; every change to the resource after the list's
/// resourceVersion is printed as one more row (no header), as kubectl's watch does.
fn watch_rows(ctx: &mut Ctx, a: &Args, r: &Resource, name: &str, scope: Option<&str>, rev: i64) {
    let until = ctx.world.now() + STREAM_MS;
    ctx.cp.run_until(ctx.world, until);
    let events = match ctx.cp.api.watch(r, scope, rev) {
        Ok(events) => events,
        Err(e) => return ctx.api_error(&e),
    };
    let options = TableOptions {
        wide: a.output.as_deref() == Some("wide"),
        all_namespaces: a.all_namespaces,
        show_labels: a.show_labels,
        label_columns: a.label_columns.clone(),
        no_headers: false,
        kind_prefix: false,
        now: ctx.world.now(),
    };
    let selectors = selectors(a, r).unwrap_or_default();
    let wanted = |ev: &&WatchEvent| {
        (name.is_empty() || meta::name(&ev.object) == name) && selectors.matches(&ev.object)
    };
    for ev in events.iter().filter(wanted) {
        let rows = table::table(r, &[&ev.object], &options);
        // The table's first line is its header; a watch prints only the row.
        if let Some((_, row)) = rows.split_once('\n') {
            ctx.print(row);
        }
    }
}

/// `-o custom-columns=HEADER:.json.path,...`: (header, path steps); a step is a key, `[N]` or
/// `[*]` (kubectl's JSONPath subset for custom columns).
fn custom_columns(spec: &str) -> Result<Columns, String> {
    spec.split(',')
        .map(|col| {
            let Some((header, path)) = col.split_once(':') else {
                return Err(format!("error: unexpected custom-columns spec: {col}, expected <header>:<json-path-expr>"));
            };
            let path = path.trim_start_matches('{').trim_end_matches('}');
            let path = path.strip_prefix('.').unwrap_or(path);
            let mut steps = Vec::new();
            for part in path.split('.').filter(|p| !p.is_empty()) {
                let (key, rest) = part.split_once('[').unwrap_or((part, ""));
                if !key.is_empty() {
                    steps.push(key.to_string());
                }
                for index in rest.split('[').filter(|i| !i.is_empty()) {
                    steps.push(format!("[{index}"));
                }
            }
            Ok((header.to_string(), steps))
        })
        .collect()
}

/// One custom column's cell: the values at the path, comma-joined; `<none>` when absent.
fn column_value(obj: &Value, path: &[String]) -> String {
    let mut current = vec![obj.clone()];
    for step in path {
        current = current
            .into_iter()
            .flat_map(
                |v| match step.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                    Some("*") => v.as_array().cloned().unwrap_or_default(),
                    Some(i) => i
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| v.get(i).cloned())
                        .into_iter()
                        .collect(),
                    None => v.get(step).cloned().into_iter().collect(),
                },
            )
            .collect();
    }
    let cells: Vec<String> = current
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    if cells.is_empty() {
        "<none>".into()
    } else {
        cells.join(",")
    }
}

/// JSON as kubectl prints it: four-space indents.
fn pretty_json(v: &Value) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    let _ = v.serialize(&mut ser);
    String::from_utf8(buf).unwrap_or_default()
}
