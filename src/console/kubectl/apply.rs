//! `kubectl apply -f` and `create -f`: manifests read from files or standard input, each
//! object created, or laid over the live one with its last-applied configuration.

use super::flags::Args;
use super::Ctx;
use crate::kube::meta::{self, Resource};
use crate::kube::{yaml, Subresource};
use serde_json::{json, Value};

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The manifest text `-f FILE` names (`-`: standard input) and the source its errors name.
fn manifest_text(ctx: &mut Ctx, file: &str) -> Option<(String, String)> {
    if file == "-" {
        return Some((ctx.stdin.unwrap_or("").to_string(), "STDIN".to_string()));
    }
    match ctx.files.get(&crate::console::shell::fs::key(file)) {
        Some(bytes) => Some((
            String::from_utf8_lossy(bytes).into_owned(),
            file.to_string(),
        )),
        None => {
            ctx.fail(&format!("error: the path \"{file}\" does not exist"));
            None
        }
    }
}

/// Every object of every `-f`, with its source; a `List` counts as its items.
pub(super) fn read_manifests(ctx: &mut Ctx, a: &Args) -> Option<Vec<(String, Value)>> {
    if a.files.is_empty() {
        ctx.fail("error: must specify one of -f and -k");
        return None;
    }
    let mut out = Vec::new();
    for f in &a.files {
        let (text, source) = manifest_text(ctx, f)?;
        let docs = match yaml::parse_documents(&text) {
            Ok(docs) => docs,
            Err(e) => {
                ctx.fail(&format!(
                    "error: error parsing {source}: error converting YAML to JSON: yaml: {e}"
                ));
                return None;
            }
        };
        for d in docs {
            if d.get("kind").and_then(Value::as_str) == Some("List") {
                let items = d.get("items").and_then(Value::as_array).cloned();
                out.extend(
                    items
                        .unwrap_or_default()
                        .into_iter()
                        .map(|i| (source.clone(), i)),
                );
            } else {
                out.push((source.clone(), d));
            }
        }
    }
    if out.is_empty() {
        ctx.fail("error: no objects passed to apply");
        return None;
    }
    Some(out)
}

/// The resource a manifest's `apiVersion` and `kind` name, or kubectl's validation error.
pub(super) fn manifest_resource(ctx: &mut Ctx, source: &str, doc: &Value) -> Option<Resource> {
    if !doc.is_object() {
        ctx.fail(&format!("error: error validating \"{source}\": error validating data: invalid object to validate; if you choose to ignore these errors, turn validation off with --validate=false"));
        return None;
    }
    let api_version = meta::str_at(doc, &["apiVersion"]);
    let kind = meta::str_at(doc, &["kind"]);
    for (field, value) in [("apiVersion", api_version), ("kind", kind)] {
        if value.is_empty() {
            ctx.fail(&format!("error: error validating \"{source}\": error validating data: {field} not set; if you choose to ignore these errors, turn validation off with --validate=false"));
            return None;
        }
    }
    let found = meta::resource_by_kind(api_version, kind);
    if found.is_none() {
        ctx.fail(&format!(
            "error: resource mapping not found for name: \"{}\" namespace: \"{}\" from \"{source}\": no matches for kind \"{kind}\" in version \"{api_version}\"\nensure CRDs are installed first",
            meta::name(doc),
            meta::namespace(doc)
        ));
    }
    found
}

/// `apply -f` (`create_only`: `create -f`): every manifest's object, in order.
pub(super) fn apply(ctx: &mut Ctx, a: &Args, create_only: bool) {
    let Some(docs) = read_manifests(ctx, a) else {
        return;
    };
    for (source, doc) in docs {
        let Some(r) = manifest_resource(ctx, &source, &doc) else {
            continue;
        };
        if create_only {
            create_one(ctx, a, &r, &source, doc);
        } else {
            apply_one(ctx, a, &r, &source, doc);
        }
    }
}

/// The namespace a manifest's object goes to (`""` for a cluster-scoped one), or kubectl's
/// error when it contradicts `-n`.
fn manifest_namespace(ctx: &mut Ctx, a: &Args, r: &Resource, doc: &Value) -> Option<String> {
    match (r.namespaced, meta::namespace(doc), &a.namespace) {
        (false, _, _) => Some(String::new()),
        (true, "", _) => Some(a.namespace()),
        (true, doc_ns, Some(flag)) if doc_ns != flag => {
            ctx.fail(&format!("error: the namespace from the provided object \"{doc_ns}\" does not match the namespace \"{flag}\". You must pass '--namespace={doc_ns}' to perform this operation."));
            None
        }
        (true, doc_ns, _) => Some(doc_ns.to_string()),
    }
}

/// The manifest's object with the namespace it goes to set.
fn placed(ctx: &mut Ctx, a: &Args, r: &Resource, mut doc: Value) -> Option<(String, Value)> {
    let ns = manifest_namespace(ctx, a, r, &doc)?;
    if r.namespaced {
        meta::obj_mut(&mut doc, &["metadata"]).insert("namespace".into(), json!(ns));
    }
    Some((ns, doc))
}

fn create_one(ctx: &mut Ctx, a: &Args, r: &Resource, source: &str, doc: Value) {
    let Some((_, doc)) = placed(ctx, a, r, doc) else {
        return;
    };
    match ctx.cp.api.create(&ctx.caller, ctx.world, r, doc) {
        Ok(obj) => ctx.print(&format!(
            "{}/{} created\n",
            r.kind_group(),
            meta::name(&obj)
        )),
        Err(e) => ctx.create_error(&e, source),
    }
}

fn apply_one(ctx: &mut Ctx, a: &Args, r: &Resource, source: &str, doc: Value) {
    let name = meta::name(&doc).to_string();
    if name.is_empty() {
        ctx.fail(&format!("error: error when retrieving current configuration of:\nResource: \"{}\", GroupVersionKind: \"{}\"\nName: \"\", Namespace: \"{}\"\nfrom server for: \"{source}\": resource name may not be empty", r.group_resource(), r.api_version() + ", Kind=" + r.kind, a.namespace()));
        return;
    }
    let Some((ns, doc)) = placed(ctx, a, r, doc) else {
        return;
    };
    let doc = with_last_applied(doc);
    let label = format!("{}/{name}", r.kind_group());
    match ctx.cp.api.get(ctx.world, r, &ns, &name) {
        Err(e) if e.code == 404 => match ctx.cp.api.create(&ctx.caller, ctx.world, r, doc) {
            Ok(_) => ctx.print(&format!("{label} created\n")),
            Err(e) => ctx.create_error(&e, source),
        },
        Err(e) => ctx.api_error(&e),
        Ok(live) => {
            let merged = merge_applied(&live, &doc);
            match ctx
                .cp
                .api
                .update(&ctx.caller, ctx.world, r, merged, Subresource::Main)
            {
                Ok(after) if meta::resource_version(&after) == meta::resource_version(&live) => {
                    ctx.print(&format!("{label} unchanged\n"))
                }
                Ok(_) => ctx.print(&format!("{label} configured\n")),
                Err(e) => ctx.api_error(&e),
            }
        }
    }
}

/// The manifest annotated with itself (without that annotation), as `apply` records it.
fn with_last_applied(mut doc: Value) -> Value {
    let mut last_applied = doc.clone();
    if let Some(m) = last_applied
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
    {
        if let Some(Value::Object(ann)) = m.get_mut("annotations") {
            ann.remove(LAST_APPLIED);
        }
    }
    let applied_text = serde_json::to_string(&last_applied).unwrap_or_default() + "\n";
    meta::obj_mut(&mut doc, &["metadata", "annotations"])
        .insert(LAST_APPLIED.into(), json!(applied_text));
    doc
}

/// The live object with the manifest's fields laid over it (what the apply patch does for
/// the fields a manifest sets).
fn merge_applied(live: &Value, doc: &Value) -> Value {
    let mut merged = live.clone();
    for (k, v) in doc.as_object().into_iter().flatten() {
        match k.as_str() {
            "metadata" => merge_metadata(&mut merged, v),
            "status" | "apiVersion" | "kind" => {}
            _ => merged[k] = v.clone(),
        }
    }
    // A resourceVersion in the manifest is a precondition (a stale one is a Conflict).
    let wanted_rv = meta::at(doc, &["metadata", "resourceVersion"]).cloned();
    if let Some(m) = merged.get_mut("metadata").and_then(Value::as_object_mut) {
        match wanted_rv {
            Some(rv) => m.insert("resourceVersion".into(), rv),
            None => m.remove("resourceVersion"),
        };
    }
    merged
}

/// The manifest's labels replace the live ones; its annotations are added to them.
fn merge_metadata(merged: &mut Value, doc_meta: &Value) {
    let m = meta::obj_mut(merged, &["metadata"]);
    if let Some(labels) = doc_meta.get("labels") {
        m.insert("labels".into(), labels.clone());
    }
    if let Some(Value::Object(ann)) = doc_meta.get("annotations") {
        let live_ann = m.entry("annotations").or_insert_with(|| json!({}));
        if let Some(la) = live_ann.as_object_mut() {
            for (ak, av) in ann {
                la.insert(ak.clone(), av.clone());
            }
        }
    }
}
