//! `kubectl` (1.3x) against the mock API server: the same verbs, columns, messages and errors
//! (KC `pkg/cmd/*`, KK `pkg/printers/internalversion/printers.go`). Commands that wait
//! (`delete` of a pod, `rollout status`) let the control plane run in virtual time meanwhile.

use super::apiserver::{Caller, Subresource};
use super::controllers::pod_template_hash;
use super::meta::{self, ApiError, Resource, DEPLOYMENTS, REPLICASETS};
use super::selector::Selectors;
use super::{yaml, ControlPlane};
use crate::base::Millis;
use crate::etcd::Cluster;
use base64::Engine as _;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What kubectl printed and its exit code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KubectlOutput {
    pub stdout: String,
    pub stderr: String,
    pub code: i32,
}

const REFUSED: &str =
    "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n";
/// How long `rollout status` and `delete` wait at most (virtual time).
const WAIT_LIMIT_MS: Millis = 300_000;

struct Ctx<'a> {
    caller: Caller,
    cp: &'a mut ControlPlane,
    world: &'a mut Cluster,
    files: &'a BTreeMap<String, Vec<u8>>,
    stdin: Option<&'a str>,
    out: KubectlOutput,
}

impl Ctx<'_> {
    fn print(&mut self, text: &str) {
        self.out.stdout.push_str(text);
    }

    fn fail(&mut self, text: &str) {
        self.out.stderr.push_str(text);
        if !text.ends_with('\n') {
            self.out.stderr.push('\n');
        }
        self.out.code = 1;
    }

    /// kubectl's `CheckErr`: `Error from server (Reason): message`, except that an Invalid
    /// object is `The <Kind> "<name>" is invalid: <causes>` (from the status details).
    fn api_error(&mut self, e: &ApiError) {
        if e.reason == "Invalid" {
            if let Some((subject, causes)) = e.message.split_once(" is invalid: ") {
                if let Some((kind, name)) = subject.split_once(' ') {
                    let kind = kind.split('.').next().unwrap_or(kind);
                    return self.fail(&format!("The {kind} {name} is invalid: {causes}"));
                }
            }
        }
        self.fail(&e.to_string());
    }

    /// An error creating an object read from `source` (`AddSourceToErr`): the server's
    /// message gets `error when creating "<source>": ` in front.
    fn create_error(&mut self, e: &ApiError, source: &str) {
        let mut e = e.clone();
        if e.reason != "Invalid" {
            e.message = format!("error when creating \"{source}\": {}", e.message);
        }
        self.api_error(&e)
    }
}

/// Parsed flags and positional arguments.
#[derive(Default)]
struct Args {
    positional: Vec<String>,
    namespace: Option<String>,
    all_namespaces: bool,
    output: Option<String>,
    files: Vec<String>,
    selector: Option<String>,
    field_selector: Option<String>,
    replicas: Option<String>,
    image: Option<String>,
    literals: Vec<String>,
    to_revision: Option<String>,
    show_labels: bool,
    /// `get -w`: after the list, print every change that arrives.
    watch: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut a = Args::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let takes_value = matches!(
            flag.as_str(),
            "-n" | "--namespace"
                | "-o"
                | "--output"
                | "-f"
                | "--filename"
                | "-l"
                | "--selector"
                | "--field-selector"
                | "--replicas"
                | "--image"
                | "--from-literal"
                | "--to-revision"
                | "--timeout"
                | "--type"
                | "--grace-period"
        );
        if takes_value {
            let value = match inline {
                Some(v) => v,
                None => {
                    i += 1;
                    args.get(i)
                        .cloned()
                        .ok_or_else(|| format!("error: flag needs an argument: {flag}"))?
                }
            };
            match flag.as_str() {
                "-n" | "--namespace" => a.namespace = Some(value),
                "-o" | "--output" => a.output = Some(value),
                "-f" | "--filename" => a.files.push(value),
                "-l" | "--selector" => a.selector = Some(value),
                "--field-selector" => a.field_selector = Some(value),
                "--replicas" => a.replicas = Some(value),
                "--image" => a.image = Some(value),
                "--from-literal" => a.literals.push(value),
                "--to-revision" => a.to_revision = Some(value),
                _ => {}
            }
        } else if let Some(rest) = arg
            .strip_prefix("-o")
            .filter(|r| !r.is_empty() && !arg.starts_with("--"))
        {
            a.output = Some(rest.to_string());
        } else if let Some(rest) = arg
            .strip_prefix("-n")
            .filter(|r| !r.is_empty() && !arg.starts_with("--"))
        {
            a.namespace = Some(rest.to_string());
        } else if matches!(flag.as_str(), "-A" | "--all-namespaces") {
            a.all_namespaces = true;
        } else if flag == "--show-labels" {
            a.show_labels = true;
        } else if matches!(flag.as_str(), "-w" | "--watch") {
            a.watch = true;
        } else if matches!(flag.as_str(), "--wait" | "--record" | "--now" | "--force") {
        } else if arg.starts_with('-') && arg.len() > 1 {
            return Err(format!("error: unknown flag: {flag}"));
        } else {
            a.positional.push(arg.clone());
        }
        i += 1;
    }
    Ok(a)
}

/// `kubectl ARGS`; `cp` is the control plane (`None` before `kube up`: nothing listens).
pub fn kubectl(
    cp: Option<&mut ControlPlane>,
    world: &mut Cluster,
    files: &BTreeMap<String, Vec<u8>>,
    args: &[String],
    stdin: Option<&str>,
) -> KubectlOutput {
    let Some((verb, rest)) = args.split_first() else {
        return KubectlOutput {
            stdout: "kubectl controls the Kubernetes cluster manager.\n".into(),
            ..KubectlOutput::default()
        };
    };
    let parsed = match parse_args(rest) {
        Ok(p) => p,
        Err(e) => {
            return KubectlOutput {
                stderr: format!("{e}\nSee 'kubectl {verb} --help' for usage.\n"),
                code: 1,
                ..KubectlOutput::default()
            }
        }
    };
    let known = [
        "apply", "create", "get", "delete", "describe", "scale", "set", "rollout", "version",
    ];
    if !known.contains(&verb.as_str()) {
        return KubectlOutput {
            stderr: format!("error: unknown command \"{verb}\" for \"kubectl\"\n"),
            code: 1,
            ..KubectlOutput::default()
        };
    }
    let Some(cp) = cp else {
        return KubectlOutput {
            stderr: REFUSED.into(),
            code: 1,
            ..KubectlOutput::default()
        };
    };
    let line = std::iter::once("kubectl".to_string())
        .chain(args.iter().map(|a| shell_word(a)))
        .collect::<Vec<_>>()
        .join(" ");
    let mut ctx = Ctx {
        caller: Caller::kubectl(line),
        cp,
        world,
        files,
        stdin,
        out: KubectlOutput::default(),
    };
    match verb.as_str() {
        "apply" => apply(&mut ctx, &parsed, false),
        "create" => create(&mut ctx, &parsed),
        "get" => get(&mut ctx, &parsed),
        "delete" => delete(&mut ctx, &parsed),
        "describe" => describe(&mut ctx, &parsed),
        "scale" => scale(&mut ctx, &parsed),
        "set" => set_image(&mut ctx, &parsed),
        "rollout" => rollout(&mut ctx, &parsed),
        _ => ctx
            .print("Client Version: v1.31.0\nKustomize Version: v5.4.2\nServer Version: v1.31.0\n"),
    }
    ctx.out
}

/// An argument as a shell would need it written (quoted only when it must be).
fn shell_word(a: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:,@%+-".contains(c);
    if !a.is_empty() && a.chars().all(plain) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn namespace_of(a: &Args) -> String {
    a.namespace.clone().unwrap_or_else(|| "default".into())
}

/// `deployment/nginx` or `deployment nginx`: the resource and the names.
fn targets(ctx: &mut Ctx, a: &Args) -> Option<Vec<(Resource, String)>> {
    let Some(first) = a.positional.first() else {
        ctx.fail("error: you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.");
        return None;
    };
    if first.contains('/') {
        let mut out = Vec::new();
        for p in &a.positional {
            let (r, n) = p.split_once('/').unwrap_or((p, ""));
            let Some(res) = meta::resource_by_name(r) else {
                ctx.fail(&format!(
                    "error: the server doesn't have a resource type \"{r}\""
                ));
                return None;
            };
            out.push((res, n.to_string()));
        }
        return Some(out);
    }
    if first.contains(',') && a.positional.len() == 1 {
        let mut out = Vec::new();
        for r in first.split(',') {
            let Some(res) = meta::resource_by_name(r) else {
                ctx.fail(&format!(
                    "error: the server doesn't have a resource type \"{r}\""
                ));
                return None;
            };
            out.push((res, String::new()));
        }
        return Some(out);
    }
    let Some(res) = meta::resource_by_name(first) else {
        ctx.fail(&format!(
            "error: the server doesn't have a resource type \"{first}\""
        ));
        return None;
    };
    Some(
        a.positional[1..]
            .iter()
            .map(|n| (res, n.clone()))
            .collect::<Vec<_>>()
            .into_iter()
            .chain(std::iter::once((res, String::new())).filter(|_| a.positional.len() == 1))
            .collect(),
    )
}

// ----- manifests ---------------------------------------------------------------------------

fn read_manifests(ctx: &mut Ctx, a: &Args) -> Option<Vec<(String, Value)>> {
    if a.files.is_empty() {
        ctx.fail("error: must specify one of -f and -k");
        return None;
    }
    let mut out = Vec::new();
    for f in &a.files {
        let text = if f == "-" {
            ctx.stdin.unwrap_or("").to_string()
        } else {
            match ctx.files.get(f.trim_start_matches("./")) {
                Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                None => {
                    ctx.fail(&format!("error: the path \"{f}\" does not exist"));
                    return None;
                }
            }
        };
        let source = if f == "-" {
            "STDIN".to_string()
        } else {
            f.clone()
        };
        match yaml::parse_documents(&text) {
            Ok(docs) => {
                for d in docs {
                    if d.get("kind").and_then(Value::as_str) == Some("List") {
                        for item in d
                            .get("items")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default()
                        {
                            out.push((source.clone(), item));
                        }
                    } else {
                        out.push((source.clone(), d));
                    }
                }
            }
            Err(e) => {
                ctx.fail(&format!(
                    "error: error parsing {source}: error converting YAML to JSON: yaml: {e}"
                ));
                return None;
            }
        }
    }
    if out.is_empty() {
        ctx.fail("error: no objects passed to apply");
        return None;
    }
    Some(out)
}

fn manifest_resource(ctx: &mut Ctx, source: &str, doc: &Value) -> Option<Resource> {
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
    match meta::resource_by_kind(api_version, kind) {
        Some(r) => Some(r),
        None => {
            ctx.fail(&format!(
                "error: resource mapping not found for name: \"{}\" namespace: \"{}\" from \"{source}\": no matches for kind \"{kind}\" in version \"{api_version}\"\nensure CRDs are installed first",
                meta::name(doc),
                meta::namespace(doc)
            ));
            None
        }
    }
}

fn apply(ctx: &mut Ctx, a: &Args, create_only: bool) {
    let Some(docs) = read_manifests(ctx, a) else {
        return;
    };
    for (source, mut doc) in docs {
        let Some(r) = manifest_resource(ctx, &source, &doc) else {
            continue;
        };
        let name = meta::name(&doc).to_string();
        if name.is_empty() && !create_only {
            ctx.fail(&format!("error: error when retrieving current configuration of:\nResource: \"{}\", GroupVersionKind: \"{}\"\nName: \"\", Namespace: \"{}\"\nfrom server for: \"{source}\": resource name may not be empty", r.group_resource(), r.api_version() + ", Kind=" + r.kind, namespace_of(a)));
            continue;
        }
        let ns = match (r.namespaced, meta::namespace(&doc), &a.namespace) {
            (false, _, _) => String::new(),
            (true, "", _) => namespace_of(a),
            (true, doc_ns, Some(flag)) if doc_ns != flag => {
                ctx.fail(&format!("error: the namespace from the provided object \"{doc_ns}\" does not match the namespace \"{flag}\". You must pass '--namespace={doc_ns}' to perform this operation."));
                continue;
            }
            (true, doc_ns, _) => doc_ns.to_string(),
        };
        if r.namespaced {
            meta::obj_mut(&mut doc, &["metadata"]).insert("namespace".into(), json!(ns));
        }
        let label = format!("{}/{name}", r.kind_group());
        if create_only {
            match ctx.cp.api.create(&ctx.caller, ctx.world, &r, doc) {
                Ok(obj) => ctx.print(&format!(
                    "{}/{} created\n",
                    r.kind_group(),
                    meta::name(&obj)
                )),
                Err(e) => ctx.create_error(&e, &source),
            }
            continue;
        }
        let mut last_applied = doc.clone();
        if let Some(m) = last_applied
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
        {
            if let Some(Value::Object(ann)) = m.get_mut("annotations") {
                ann.remove("kubectl.kubernetes.io/last-applied-configuration");
            }
        }
        let applied_text = serde_json::to_string(&last_applied).unwrap_or_default() + "\n";
        meta::obj_mut(&mut doc, &["metadata", "annotations"]).insert(
            "kubectl.kubernetes.io/last-applied-configuration".into(),
            json!(applied_text),
        );
        match ctx.cp.api.get(ctx.world, &r, &ns, &name) {
            Err(e) if e.code == 404 => match ctx.cp.api.create(&ctx.caller, ctx.world, &r, doc) {
                Ok(_) => ctx.print(&format!("{label} created\n")),
                Err(e) => ctx.create_error(&e, &source),
            },
            Err(e) => ctx.api_error(&e),
            Ok(live) => {
                let merged = merge_applied(&live, &doc);
                match ctx
                    .cp
                    .api
                    .update(&ctx.caller, ctx.world, &r, merged, Subresource::Main)
                {
                    Ok(after)
                        if meta::resource_version(&after) == meta::resource_version(&live) =>
                    {
                        ctx.print(&format!("{label} unchanged\n"))
                    }
                    Ok(_) => ctx.print(&format!("{label} configured\n")),
                    Err(e) => ctx.api_error(&e),
                }
            }
        }
    }
}

/// The live object with the manifest's fields laid over it (what the apply patch does for
/// the fields a manifest sets).
fn merge_applied(live: &Value, doc: &Value) -> Value {
    let mut merged = live.clone();
    if let Some(o) = doc.as_object() {
        for (k, v) in o {
            match k.as_str() {
                "metadata" => {
                    let m = meta::obj_mut(&mut merged, &["metadata"]);
                    if let Some(labels) = v.get("labels") {
                        m.insert("labels".into(), labels.clone());
                    }
                    if let Some(Value::Object(ann)) = v.get("annotations") {
                        let live_ann = m.entry("annotations").or_insert_with(|| json!({}));
                        if let Some(la) = live_ann.as_object_mut() {
                            for (ak, av) in ann {
                                la.insert(ak.clone(), av.clone());
                            }
                        }
                    }
                }
                "status" | "apiVersion" | "kind" => {}
                _ => {
                    merged[k] = v.clone();
                }
            }
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

fn create(ctx: &mut Ctx, a: &Args) {
    if !a.files.is_empty() {
        return apply(ctx, a, true);
    }
    let ns = namespace_of(a);
    let obj = match a
        .positional
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["deployment" | "deploy", name] => {
            let Some(image) = &a.image else {
                ctx.fail("error: required flag(s) \"image\" not set");
                return;
            };
            let container = image
                .rsplit('/')
                .next()
                .unwrap_or(image)
                .split([':', '@'])
                .next()
                .unwrap_or("")
                .to_string();
            let replicas: i64 = match a.replicas.as_deref().map(str::parse) {
                None => 1,
                Some(Ok(n)) => n,
                Some(Err(_)) => {
                    ctx.fail(&format!("error: invalid argument \"{}\" for \"-r, --replicas\" flag: strconv.ParseInt: parsing \"{}\": invalid syntax", a.replicas.as_deref().unwrap_or(""), a.replicas.as_deref().unwrap_or("")));
                    return;
                }
            };
            (
                DEPLOYMENTS,
                json!({
                    "metadata": {"name": name, "namespace": ns, "labels": {"app": name}},
                    "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                        "template": {"metadata": {"labels": {"app": name}},
                            "spec": {"containers": [{"name": container, "image": image, "resources": {}}]}},
                        "strategy": {}},
                }),
            )
        }
        ["namespace" | "ns", name] => (meta::NAMESPACES, json!({"metadata": {"name": name}})),
        ["secret", "generic", name] => {
            let mut data = serde_json::Map::new();
            for lit in &a.literals {
                let Some((k, v)) = lit.split_once('=') else {
                    ctx.fail(&format!(
                        "error: invalid literal source {lit}, expected key=value"
                    ));
                    return;
                };
                data.insert(
                    k.into(),
                    json!(base64::engine::general_purpose::STANDARD.encode(v)),
                );
            }
            (
                meta::SECRETS,
                json!({"metadata": {"name": name, "namespace": ns}, "type": "Opaque", "data": data}),
            )
        }
        ["configmap" | "cm", name] => {
            let mut data = serde_json::Map::new();
            for lit in &a.literals {
                if let Some((k, v)) = lit.split_once('=') {
                    data.insert(k.into(), json!(v));
                }
            }
            (
                meta::CONFIGMAPS,
                json!({"metadata": {"name": name, "namespace": ns}, "data": data}),
            )
        }
        _ => {
            ctx.fail("error: Unexpected args: must specify one of -f, or a resource (deployment NAME --image=IMAGE, namespace NAME, secret generic NAME, configmap NAME)");
            return;
        }
    };
    let (r, obj) = obj;
    match ctx.cp.api.create(&ctx.caller, ctx.world, &r, obj) {
        Ok(o) => ctx.print(&format!("{}/{} created\n", r.kind_group(), meta::name(&o))),
        Err(e) => ctx.api_error(&e),
    }
}

// ----- get ---------------------------------------------------------------------------------

fn get(ctx: &mut Ctx, a: &Args) {
    let Some(targets) = targets(ctx, a) else {
        return;
    };
    let ns = namespace_of(a);
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
    let mut items: Vec<(Resource, Value)> = Vec::new();
    let mut single = false;
    let mut listed_at = None;
    for (r, name) in &targets {
        let selectors = match selectors(a, r) {
            Ok(s) => s,
            Err(e) => return ctx.api_error(&e),
        };
        if name.is_empty() {
            let scope = (!a.all_namespaces).then_some(ns.as_str());
            match ctx.cp.api.list(ctx.world, r, scope) {
                Ok((list, rev)) => {
                    listed_at.get_or_insert(rev);
                    let list = list.into_iter().filter(|o| selectors.matches(o));
                    items.extend(list.map(|o| (*r, o)));
                }
                Err(e) => return ctx.api_error(&e),
            }
        } else {
            single = targets.len() == 1;
            match ctx
                .cp
                .api
                .get(ctx.world, r, if r.namespaced { &ns } else { "" }, name)
            {
                Ok(o) => {
                    listed_at.get_or_insert(meta::resource_version(&o));
                    items.push((*r, o));
                }
                Err(e) => ctx.api_error(&e),
            }
        }
    }
    if items.is_empty() {
        if ctx.out.code == 0 && !single && matches!(format.as_str(), "" | "wide" | "name") {
            let r = targets[0].0;
            if a.all_namespaces || !r.namespaced {
                ctx.fail("No resources found");
            } else {
                ctx.fail(&format!("No resources found in {ns} namespace."));
            }
            ctx.out.code = 0;
            if a.watch {
                if let Some(rev) = listed_at {
                    let scope = (!a.all_namespaces && r.namespaced).then_some(ns.as_str());
                    watch_rows(ctx, a, &r, "", scope, rev);
                }
            }
            return;
        }
        if !matches!(format.as_str(), "yaml" | "json") || ctx.out.code != 0 {
            return;
        }
    }
    match format.as_str() {
        "yaml" | "json" => {
            let value = if single && items.len() == 1 {
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
        "name" => {
            for (r, o) in &items {
                ctx.print(&format!("{}/{}\n", r.kind_group(), meta::name(o)));
            }
        }
        _ if custom.is_some() => {
            let columns = custom.unwrap_or_default();
            let mut rows = vec![columns.iter().map(|(h, _)| h.clone()).collect::<Vec<_>>()];
            for (_, o) in &items {
                rows.push(
                    columns
                        .iter()
                        .map(|(_, path)| column_value(o, path))
                        .collect(),
                );
            }
            ctx.print(&render_table(&rows));
        }
        _ => {
            let now = ctx.world.now();
            let mut start = 0;
            while start < items.len() {
                let r = items[start].0;
                let end = items[start..]
                    .iter()
                    .position(|(x, _)| *x != r)
                    .map_or(items.len(), |p| start + p);
                if start > 0 {
                    ctx.print("\n");
                }
                let objs: Vec<&Value> = items[start..end].iter().map(|(_, o)| o).collect();
                let prefix = targets.len() > 1
                    || a.positional.first().is_some_and(|p| p.contains(['/', ',']));
                ctx.print(&table(
                    &r,
                    &objs,
                    format == "wide",
                    a.all_namespaces,
                    a.show_labels,
                    prefix,
                    now,
                ));
                start = end;
            }
        }
    }
    if a.watch {
        if let (Some(rev), Some((r, name))) = (listed_at, targets.first()) {
            let scope = (!a.all_namespaces && r.namespaced).then_some(ns.as_str());
            watch_rows(ctx, a, r, name, scope, rev);
        }
    }
}

/// How long a streaming command runs in a script: the next 2 s of virtual time, as if
/// stopped by `timeout 2` (DESIGN.md).
const STREAM_MS: crate::base::Millis = 2_000;

/// `kubectl get -w`: the control plane runs on; every change to the resource after the list's
/// resourceVersion is printed as one more row (no header), as kubectl's watch does.
fn watch_rows(ctx: &mut Ctx, a: &Args, r: &Resource, name: &str, scope: Option<&str>, rev: i64) {
    let until = ctx.world.now() + STREAM_MS;
    ctx.cp.run_until(ctx.world, until);
    let events = match ctx.cp.api.watch(r, scope, rev) {
        Ok(events) => events,
        Err(e) => return ctx.api_error(&e),
    };
    let now = ctx.world.now();
    let selectors = selectors(a, r).unwrap_or_default();
    let wanted = |ev: &&super::apiserver::WatchEvent| {
        (name.is_empty() || meta::name(&ev.object) == name) && selectors.matches(&ev.object)
    };
    for ev in events.iter().filter(wanted) {
        let rows = table(
            r,
            &[&ev.object],
            a.output.as_deref() == Some("wide"),
            a.all_namespaces,
            a.show_labels,
            false,
            now,
        );
        // The table's first line is its header; a watch prints only the row.
        if let Some((_, row)) = rows.split_once('\n') {
            ctx.print(row);
        }
    }
}

/// `-o custom-columns=HEADER:.json.path,...`: (header, path steps); a step is a key, `[N]` or
/// `[*]` (kubectl's JSONPath subset for custom columns).
fn custom_columns(spec: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    spec.split(',')
        .map(|col| {
            let Some((header, path)) = col.split_once(':') else {
                return Err(format!("error: unexpected custom-columns spec: {col}, expected <header>:<json-path-expr>"));
            };
            let path = path.trim_start_matches('{').trim_end_matches('}');
            let path = path.strip_prefix('.').unwrap_or(path);
            let mut steps = Vec::new();
            for part in path.split('.').filter(|p| !p.is_empty()) {
                let (key, rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
                if !key.is_empty() {
                    steps.push(key.to_string());
                }
                for index in rest.split('[').filter(|i| !i.is_empty()) {
                    steps.push(format!("[{}", index));
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

/// `-l` and `--field-selector`, checked by the API server for the resource listed.
fn selectors(a: &Args, r: &Resource) -> Result<Selectors, ApiError> {
    Selectors::parse(
        r,
        a.selector.as_deref().unwrap_or(""),
        a.field_selector.as_deref().unwrap_or(""),
    )
}

fn pretty_json(v: &Value) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    let _ = v.serialize(&mut ser);
    String::from_utf8(buf).unwrap_or_default()
}

/// kubectl's tabwriter: cells padded to the column's width plus 3 spaces, the last one not.
pub fn render_table(rows: &[Vec<String>]) -> String {
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

fn age(obj: &Value, now: Millis) -> String {
    let created = meta::parse_timestamp(meta::str_at(obj, &["metadata", "creationTimestamp"]));
    meta::human_duration(now.saturating_sub(created))
}

fn selector_text(obj: &Value) -> String {
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

fn template_containers(obj: &Value, path: &[&str]) -> (String, String) {
    let cs = meta::at(obj, path)
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

pub fn pod_status_text(pod: &Value) -> String {
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

fn table(
    r: &Resource,
    objs: &[&Value],
    wide: bool,
    all_ns: bool,
    show_labels: bool,
    prefix: bool,
    now: Millis,
) -> String {
    let s = |v: &str| v.to_string();
    let (mut header, wide_header): (Vec<String>, Vec<&str>) = match r.kind {
        "Pod" => (
            ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
                .map(s)
                .to_vec(),
            vec!["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        ),
        "Deployment" => (
            ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
                .map(s)
                .to_vec(),
            vec!["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        "ReplicaSet" => (
            ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
                .map(s)
                .to_vec(),
            vec!["CONTAINERS", "IMAGES", "SELECTOR"],
        ),
        "Node" => (
            ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
                .map(s)
                .to_vec(),
            vec![
                "INTERNAL-IP",
                "EXTERNAL-IP",
                "OS-IMAGE",
                "KERNEL-VERSION",
                "CONTAINER-RUNTIME",
            ],
        ),
        "Namespace" => (["NAME", "STATUS", "AGE"].map(s).to_vec(), vec![]),
        "Secret" => (["NAME", "TYPE", "DATA", "AGE"].map(s).to_vec(), vec![]),
        "ConfigMap" => (["NAME", "DATA", "AGE"].map(s).to_vec(), vec![]),
        "Lease" => (["NAME", "HOLDER", "AGE"].map(s).to_vec(), vec![]),
        // -o wide puts SUBOBJECT and SOURCE before MESSAGE (their column definitions).
        "Event" if wide => (
            [
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
            ]
            .map(s)
            .to_vec(),
            vec![],
        ),
        "Event" => (
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
                .map(s)
                .to_vec(),
            vec![],
        ),
        _ => (["NAME", "AGE"].map(s).to_vec(), vec![]),
    };
    if wide {
        header.extend(wide_header.iter().map(|h| h.to_string()));
    }
    if all_ns && r.namespaced {
        header.insert(0, "NAMESPACE".into());
    }
    if show_labels {
        header.push("LABELS".into());
    }
    let mut rows = vec![header];
    for o in objs {
        let mut name = meta::name(o).to_string();
        if prefix {
            name = format!("{}/{name}", r.kind_group());
        }
        let n = |f: &str| meta::i64_at(o, &["status", f]).unwrap_or(0);
        let (mut row, wide_row): (Vec<String>, Vec<String>) = match r.kind {
            "Pod" => {
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
                let ip = match meta::str_at(o, &["status", "podIP"]) {
                    "" => "<none>",
                    ip => ip,
                };
                let node = match meta::str_at(o, &["spec", "nodeName"]) {
                    "" => "<none>",
                    n => n,
                };
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
            "Deployment" => {
                let (c, i) = template_containers(o, &["spec", "template", "spec", "containers"]);
                let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
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
            "ReplicaSet" => {
                let (c, i) = template_containers(o, &["spec", "template", "spec", "containers"]);
                let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
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
            "Node" => {
                let ready = meta::at(o, &["status", "conditions"])
                    .and_then(Value::as_array)
                    .and_then(|cs| {
                        cs.iter()
                            .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                    })
                    .and_then(|c| c.get("status"))
                    .and_then(Value::as_str)
                    .unwrap_or("Unknown")
                    .to_string();
                let mut status = if ready == "True" {
                    "Ready".to_string()
                } else {
                    "NotReady".to_string()
                };
                if meta::at(o, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true) {
                    status.push_str(",SchedulingDisabled");
                }
                let ip = meta::at(o, &["status", "addresses"])
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .find(|x| x.get("type").and_then(Value::as_str) == Some("InternalIP"))
                    })
                    .and_then(|x| x.get("address"))
                    .and_then(Value::as_str)
                    .unwrap_or("<none>")
                    .to_string();
                let info = |f: &str| meta::str_at(o, &["status", "nodeInfo", f]).to_string();
                let roles = node_roles(o);
                (
                    vec![name, status, roles, age(o, now), info("kubeletVersion")],
                    vec![
                        ip,
                        "<none>".into(),
                        info("osImage"),
                        info("kernelVersion"),
                        info("containerRuntimeVersion"),
                    ],
                )
            }
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
                (
                    vec![
                        name,
                        meta::str_at(o, &["type"]).to_string(),
                        data.to_string(),
                        age(o, now),
                    ],
                    vec![],
                )
            }
            "ConfigMap" => {
                let data = o
                    .get("data")
                    .and_then(Value::as_object)
                    .map_or(0, |m| m.len())
                    + o.get("binaryData")
                        .and_then(Value::as_object)
                        .map_or(0, |m| m.len());
                (vec![name, data.to_string(), age(o, now)], vec![])
            }
            "Lease" => {
                let holder = match meta::str_at(o, &["spec", "holderIdentity"]) {
                    "" => "<none>",
                    h => h,
                };
                (vec![name, holder.to_string(), age(o, now)], vec![])
            }
            "Event" => {
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
                let mut row = vec![
                    since("lastTimestamp"),
                    meta::str_at(o, &["type"]).into(),
                    meta::str_at(o, &["reason"]).into(),
                    object,
                ];
                if wide {
                    let source = match meta::str_at(o, &["source", "host"]) {
                        "" => meta::str_at(o, &["source", "component"]).to_string(),
                        host => format!("{}, {host}", meta::str_at(o, &["source", "component"])),
                    };
                    let count = meta::i64_at(o, &["count"]).filter(|c| *c > 0).unwrap_or(1);
                    row.extend([
                        meta::str_at(o, &["involvedObject", "fieldPath"]).to_string(),
                        source,
                        message,
                        since("firstTimestamp"),
                        count.to_string(),
                        name,
                    ]);
                } else {
                    row.push(message);
                }
                (row, vec![])
            }
            _ => (vec![name, age(o, now)], vec![]),
        };
        if wide {
            row.extend(wide_row);
        }
        if all_ns && r.namespaced {
            row.insert(0, meta::namespace(o).to_string());
        }
        if show_labels {
            let labels = meta::labels(o)
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            row.push(if labels.is_empty() {
                "<none>".into()
            } else {
                labels
            });
        }
        rows.push(row);
    }
    render_table(&rows)
}

// ----- delete, scale, set image --------------------------------------------------------------

fn delete(ctx: &mut Ctx, a: &Args) {
    let mut work: Vec<(Resource, String, String)> = Vec::new();
    if !a.files.is_empty() {
        let Some(docs) = read_manifests(ctx, a) else {
            return;
        };
        for (source, doc) in docs {
            if let Some(r) = manifest_resource(ctx, &source, &doc) {
                let ns = match meta::namespace(&doc) {
                    "" => namespace_of(a),
                    n => n.to_string(),
                };
                work.push((r, ns, meta::name(&doc).to_string()));
            }
        }
    } else {
        let Some(targets) = targets(ctx, a) else {
            return;
        };
        for (r, name) in targets {
            if name.is_empty() {
                ctx.fail("error: resource(s) were provided, but no name was specified");
                return;
            }
            work.push((r, namespace_of(a), name));
        }
    }
    for (r, ns, name) in work {
        let ns = if r.namespaced { ns } else { String::new() };
        match ctx
            .cp
            .api
            .delete(&ctx.caller, ctx.world, &r, &ns, &name, false)
        {
            Ok(deleted) => {
                ctx.print(&format!("{} \"{name}\" deleted\n", r.kind_group()));
                // kubectl waits for the object to be gone (--wait=true): that object, by
                // uid (a mirror pod comes back under the same name as a new object).
                let deadline = ctx.world.now() + WAIT_LIMIT_MS;
                while ctx.world.now() < deadline {
                    match ctx.cp.api.get(ctx.world, &r, &ns, &name) {
                        Err(e) if e.code == 404 => break,
                        Err(_) => break,
                        Ok(o) if meta::uid(&o) != meta::uid(&deleted) => break,
                        Ok(_) => {
                            let t = ctx.world.now() + 500;
                            ctx.cp.run_until(ctx.world, t);
                        }
                    }
                }
            }
            Err(e) => ctx.api_error(&e),
        }
    }
}

fn deployment_target(ctx: &mut Ctx, a: &Args, verb: &str) -> Option<(String, String)> {
    let target = match a.positional.as_slice() {
        [t] if t.contains('/') => t.clone(),
        [r, n] => format!("{r}/{n}"),
        _ => {
            ctx.fail(&format!("error: {verb}: expected deployment/NAME"));
            return None;
        }
    };
    let (r, name) = target.split_once('/').unwrap_or(("", ""));
    if meta::resource_by_name(r) != Some(DEPLOYMENTS)
        && meta::resource_by_name(r) != Some(REPLICASETS)
    {
        ctx.fail(&format!("error: no {verb} for resource type \"{r}\""));
        return None;
    }
    Some((
        meta::resource_by_name(r).map_or("", |x| x.kind).to_string(),
        name.to_string(),
    ))
}

fn scale(ctx: &mut Ctx, a: &Args) {
    let Some(replicas) = a.replicas.as_deref().and_then(|r| r.parse::<i64>().ok()) else {
        ctx.fail("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
        return;
    };
    let Some((kind, name)) = deployment_target(ctx, a, "scale") else {
        return;
    };
    let r = if kind == "ReplicaSet" {
        REPLICASETS
    } else {
        DEPLOYMENTS
    };
    let ns = namespace_of(a);
    let result = ctx
        .cp
        .api
        .guaranteed_update(&ctx.caller, ctx.world, &r, &ns, &name, |cur| {
            let mut new = cur.clone();
            meta::obj_mut(&mut new, &["spec"]).insert("replicas".into(), json!(replicas));
            Ok(new)
        });
    match result {
        Ok(_) => ctx.print(&format!("{}/{name} scaled\n", r.kind_group())),
        Err(e) => ctx.api_error(&e),
    }
}

fn set_image(ctx: &mut Ctx, a: &Args) {
    if a.positional.first().map(String::as_str) != Some("image") {
        ctx.fail("error: unknown command: set only supports `set image`");
        return;
    }
    let target = a.positional.get(1).cloned().unwrap_or_default();
    let pairs: Vec<(String, String)> = a.positional[2.min(a.positional.len())..]
        .iter()
        .filter_map(|p| {
            p.split_once('=')
                .map(|(c, i)| (c.to_string(), i.to_string()))
        })
        .collect();
    if pairs.is_empty() {
        ctx.fail("error: at least one image update is required");
        return;
    }
    let sub = Args {
        positional: vec![target],
        ..Args::default()
    };
    let Some((_, name)) = deployment_target(ctx, &sub, "set image") else {
        return;
    };
    let ns = namespace_of(a);
    let mut missing = None;
    let result =
        ctx.cp
            .api
            .guaranteed_update(&ctx.caller, ctx.world, &DEPLOYMENTS, &ns, &name, |cur| {
                let mut new = cur.clone();
                let containers = new
                    .get_mut("spec")
                    .and_then(|s| s.get_mut("template"))
                    .and_then(|t| t.get_mut("spec"))
                    .and_then(|s| s.get_mut("containers"))
                    .and_then(Value::as_array_mut);
                if let Some(cs) = containers {
                    for (c, image) in &pairs {
                        match cs
                            .iter_mut()
                            .find(|x| x.get("name").and_then(Value::as_str) == Some(c) || c == "*")
                        {
                            Some(x) => x["image"] = json!(image),
                            None => missing = Some(c.clone()),
                        }
                    }
                }
                Ok(new)
            });
    if let Some(c) = missing {
        ctx.fail(&format!("error: unable to find container named \"{c}\""));
        return;
    }
    match result {
        Ok(_) => ctx.print(&format!("deployment.apps/{name} image updated\n")),
        Err(e) => ctx.api_error(&e),
    }
}

// ----- rollout -------------------------------------------------------------------------------

fn rollout(ctx: &mut Ctx, a: &Args) {
    let sub = a.positional.first().cloned().unwrap_or_default();
    let rest = Args {
        positional: a.positional.iter().skip(1).cloned().collect(),
        ..Args::default()
    };
    let Some((_, name)) = deployment_target(ctx, &rest, &format!("rollout {sub}")) else {
        return;
    };
    let ns = namespace_of(a);
    match sub.as_str() {
        "status" => rollout_status(ctx, &ns, &name),
        "history" => rollout_history(ctx, &ns, &name),
        "undo" => rollout_undo(ctx, &ns, &name, a.to_revision.as_deref()),
        other => ctx.fail(&format!(
            "error: unknown command \"{other}\" for \"kubectl rollout\""
        )),
    }
}

/// One status line of `rollout status` and whether the rollout is done
/// (KC `polymorphichelpers/rollout_status.go`).
fn rollout_message(d: &Value) -> (String, bool) {
    let name = meta::name(d);
    let generation = meta::i64_at(d, &["metadata", "generation"]).unwrap_or(0);
    let observed = meta::i64_at(d, &["status", "observedGeneration"]).unwrap_or(0);
    if generation > observed {
        return (
            "Waiting for deployment spec update to be observed...\n".into(),
            false,
        );
    }
    let want = meta::i64_at(d, &["spec", "replicas"]).unwrap_or(1);
    let n = |f: &str| meta::i64_at(d, &["status", f]).unwrap_or(0);
    let (updated, total, available) = (n("updatedReplicas"), n("replicas"), n("availableReplicas"));
    if updated < want {
        return (format!("Waiting for deployment \"{name}\" rollout to finish: {updated} out of {want} new replicas have been updated...\n"), false);
    }
    if total > updated {
        return (format!("Waiting for deployment \"{name}\" rollout to finish: {} old replicas are pending termination...\n", total - updated), false);
    }
    if available < updated {
        return (format!("Waiting for deployment \"{name}\" rollout to finish: {available} of {updated} updated replicas are available...\n"), false);
    }
    (
        format!("deployment \"{name}\" successfully rolled out\n"),
        true,
    )
}

fn rollout_status(ctx: &mut Ctx, ns: &str, name: &str) {
    let deadline = ctx.world.now() + WAIT_LIMIT_MS;
    let mut last = String::new();
    loop {
        let d = match ctx.cp.api.get(ctx.world, &DEPLOYMENTS, ns, name) {
            Ok(d) => d,
            Err(e) => return ctx.api_error(&e),
        };
        let (msg, done) = rollout_message(&d);
        if msg != last {
            ctx.print(&msg);
            last = msg;
        }
        if done {
            return;
        }
        if ctx.world.now() >= deadline {
            return ctx.fail("error: timed out waiting for the condition");
        }
        let t = ctx.world.now() + 200;
        ctx.cp.run_until(ctx.world, t);
    }
}

fn owned_replicasets(ctx: &mut Ctx, ns: &str, d: &Value) -> Result<Vec<(i64, Value)>, ApiError> {
    let (list, _) = ctx.cp.api.list(ctx.world, &REPLICASETS, Some(ns))?;
    let mut out: Vec<(i64, Value)> = list
        .into_iter()
        .filter(|rs| meta::controller_uid(rs) == Some(meta::uid(d)))
        .map(|rs| {
            let rev = meta::str_at(
                &rs,
                &[
                    "metadata",
                    "annotations",
                    "deployment.kubernetes.io/revision",
                ],
            )
            .parse()
            .unwrap_or(0);
            (rev, rs)
        })
        .collect();
    out.sort_by_key(|(rev, _)| *rev);
    Ok(out)
}

fn rollout_history(ctx: &mut Ctx, ns: &str, name: &str) {
    let d = match ctx.cp.api.get(ctx.world, &DEPLOYMENTS, ns, name) {
        Ok(d) => d,
        Err(e) => return ctx.api_error(&e),
    };
    let sets = match owned_replicasets(ctx, ns, &d) {
        Ok(s) => s,
        Err(e) => return ctx.api_error(&e),
    };
    let mut rows = vec![vec!["REVISION".to_string(), "CHANGE-CAUSE".to_string()]];
    for (rev, rs) in &sets {
        let cause = match meta::str_at(
            rs,
            &["metadata", "annotations", "kubernetes.io/change-cause"],
        ) {
            "" => "<none>",
            c => c,
        };
        rows.push(vec![rev.to_string(), cause.to_string()]);
    }
    ctx.print(&format!(
        "deployment.apps/{name} \n{}\n",
        render_table(&rows)
    ));
}

fn rollout_undo(ctx: &mut Ctx, ns: &str, name: &str, to: Option<&str>) {
    let d = match ctx.cp.api.get(ctx.world, &DEPLOYMENTS, ns, name) {
        Ok(d) => d,
        Err(e) => return ctx.api_error(&e),
    };
    let sets = match owned_replicasets(ctx, ns, &d) {
        Ok(s) => s,
        Err(e) => return ctx.api_error(&e),
    };
    let current = meta::str_at(
        &d,
        &[
            "metadata",
            "annotations",
            "deployment.kubernetes.io/revision",
        ],
    )
    .parse::<i64>()
    .unwrap_or(0);
    let wanted = to.and_then(|t| t.parse::<i64>().ok()).filter(|t| *t > 0);
    let target = match wanted {
        Some(rev) => sets.iter().find(|(r, _)| *r == rev),
        None => sets.iter().rev().find(|(r, _)| *r < current),
    };
    let Some((_, rs)) = target else {
        return match wanted {
            Some(rev) => ctx.fail(&format!(
                "error: unable to find specified revision {rev} in history"
            )),
            None => ctx.fail(&format!(
                "error: no rollout history found for deployment \"{name}\""
            )),
        };
    };
    let mut template = meta::at(rs, &["spec", "template"])
        .cloned()
        .unwrap_or(json!({}));
    if let Some(l) = template
        .get_mut("metadata")
        .and_then(|m| m.get_mut("labels"))
        .and_then(Value::as_object_mut)
    {
        l.remove("pod-template-hash");
    }
    if meta::at(&d, &["spec", "template"]) == Some(&template) {
        ctx.print(&format!("deployment.apps/{name} skipped rollback (current template already matches revision {})\n", meta::str_at(rs, &["metadata", "annotations", "deployment.kubernetes.io/revision"])));
        return;
    }
    let result =
        ctx.cp
            .api
            .guaranteed_update(&ctx.caller, ctx.world, &DEPLOYMENTS, ns, name, |cur| {
                let mut new = cur.clone();
                new["spec"]["template"] = template.clone();
                Ok(new)
            });
    match result {
        Ok(_) => ctx.print(&format!("deployment.apps/{name} rolled back\n")),
        Err(e) => ctx.api_error(&e),
    }
}

// ----- describe ------------------------------------------------------------------------------

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

fn describe(ctx: &mut Ctx, a: &Args) {
    let Some(targets) = targets(ctx, a) else {
        return;
    };
    let ns = namespace_of(a);
    let mut first = true;
    for (r, name) in targets {
        let objs = if name.is_empty() {
            match ctx.cp.api.list(ctx.world, &r, Some(&ns)) {
                Ok((l, _)) => l,
                Err(e) => return ctx.api_error(&e),
            }
        } else {
            match ctx
                .cp
                .api
                .get(ctx.world, &r, if r.namespaced { &ns } else { "" }, &name)
            {
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

fn describe_one(ctx: &mut Ctx, r: &Resource, o: &Value) -> String {
    if r.kind == "Node" {
        return describe_node(ctx, o);
    }
    let mut out = String::new();
    let w = 24;
    let field = |out: &mut String, k: &str, v: &str| {
        let _ = writeln!(out, "{:<w$}{v}", format!("{k}:"));
    };
    field(&mut out, "Name", meta::name(o));
    if r.namespaced {
        field(&mut out, "Namespace", meta::namespace(o));
    }
    let created = meta::parse_timestamp(meta::str_at(o, &["metadata", "creationTimestamp"]));
    match r.kind {
        "Deployment" => {
            field(&mut out, "CreationTimestamp", &meta::describe_time(created));
            labels_and_annotations(&mut out, o, w);
            field(&mut out, "Selector", &selector_text(o));
            let want = meta::i64_at(o, &["spec", "replicas"]).unwrap_or(1);
            let n = |f: &str| meta::i64_at(o, &["status", f]).unwrap_or(0);
            field(
                &mut out,
                "Replicas",
                &format!(
                    "{want} desired | {} updated | {} total | {} available | {} unavailable",
                    n("updatedReplicas"),
                    n("replicas"),
                    n("availableReplicas"),
                    n("unavailableReplicas")
                ),
            );
            let strategy = meta::str_at(o, &["spec", "strategy", "type"]);
            field(&mut out, "StrategyType", strategy);
            field(
                &mut out,
                "MinReadySeconds",
                &meta::i64_at(o, &["spec", "minReadySeconds"])
                    .unwrap_or(0)
                    .to_string(),
            );
            if strategy == "RollingUpdate" {
                let ru = |f: &str| {
                    meta::at(o, &["spec", "strategy", "rollingUpdate", f])
                        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                        .unwrap_or_default()
                };
                field(
                    &mut out,
                    "RollingUpdateStrategy",
                    &format!(
                        "{} max unavailable, {} max surge",
                        ru("maxUnavailable"),
                        ru("maxSurge")
                    ),
                );
            }
            out.push_str(&pod_template_text(
                meta::at(o, &["spec", "template"]).unwrap_or(&Value::Null),
            ));
            let conds = meta::at(o, &["status", "conditions"])
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if !conds.is_empty() {
                out.push_str("Conditions:\n");
                let mut rows = vec![
                    ["  Type", "Status", "Reason"].map(String::from).to_vec(),
                    ["  ----", "------", "------"].map(String::from).to_vec(),
                ];
                for c in &conds {
                    rows.push(vec![
                        format!("  {}", meta::str_at(c, &["type"])),
                        meta::str_at(c, &["status"]).into(),
                        meta::str_at(c, &["reason"]).into(),
                    ]);
                }
                out.push_str(&render_table(&rows).replace("   \n", "\n"));
            }
            let sets = owned_replicasets(ctx, meta::namespace(o), o).unwrap_or_default();
            let hash = pod_template_hash(
                meta::at(o, &["spec", "template"]).unwrap_or(&Value::Null),
                meta::i64_at(o, &["status", "collisionCount"]).unwrap_or(0),
            );
            let fmt_rs = |rs: &Value| {
                format!(
                    "{} ({}/{} replicas created)",
                    meta::name(rs),
                    meta::i64_at(rs, &["status", "replicas"]).unwrap_or(0),
                    meta::i64_at(rs, &["spec", "replicas"]).unwrap_or(0)
                )
            };
            let new: Vec<String> = sets
                .iter()
                .filter(|(_, rs)| {
                    meta::str_at(rs, &["metadata", "labels", "pod-template-hash"]) == hash
                })
                .map(|(_, rs)| fmt_rs(rs))
                .collect();
            let old: Vec<String> = sets
                .iter()
                .filter(|(_, rs)| {
                    meta::str_at(rs, &["metadata", "labels", "pod-template-hash"]) != hash
                        && meta::i64_at(rs, &["spec", "replicas"]).unwrap_or(0) > 0
                })
                .map(|(_, rs)| fmt_rs(rs))
                .collect();
            let _ = writeln!(
                out,
                "OldReplicaSets:  {}",
                if old.is_empty() {
                    "<none>".into()
                } else {
                    old.join(", ")
                }
            );
            let _ = writeln!(
                out,
                "NewReplicaSet:   {}",
                if new.is_empty() {
                    "<none>".into()
                } else {
                    new.join(", ")
                }
            );
        }
        "Pod" => {
            let priority = meta::i64_at(o, &["spec", "priority"]).unwrap_or(0);
            field(&mut out, "Priority", &priority.to_string());
            let class = meta::str_at(o, &["spec", "priorityClassName"]);
            if !class.is_empty() {
                field(&mut out, "Priority Class Name", class);
            }
            field(
                &mut out,
                "Service Account",
                meta::str_at(o, &["spec", "serviceAccountName"]),
            );
            field(
                &mut out,
                "Node",
                &match meta::str_at(o, &["spec", "nodeName"]) {
                    "" => "<none>".to_string(),
                    n => format!("{n}/{}", meta::str_at(o, &["status", "hostIP"])),
                },
            );
            let start = meta::str_at(o, &["status", "startTime"]);
            if !start.is_empty() {
                field(
                    &mut out,
                    "Start Time",
                    &meta::describe_time(meta::parse_timestamp(start)),
                );
            }
            labels_and_annotations(&mut out, o, w);
            field(&mut out, "Status", &pod_status_text(o));
            field(&mut out, "IP", meta::str_at(o, &["status", "podIP"]));
            if let Some(owner) = meta::at(o, &["metadata", "ownerReferences"])
                .and_then(Value::as_array)
                .and_then(|a| a.first())
            {
                field(
                    &mut out,
                    "Controlled By",
                    &format!(
                        "{}/{}",
                        meta::str_at(owner, &["kind"]),
                        meta::str_at(owner, &["name"])
                    ),
                );
            }
            out.push_str("Containers:\n");
            let statuses = meta::at(o, &["status", "containerStatuses"])
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for c in meta::at(o, &["spec", "containers"])
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
            {
                let cname = meta::str_at(&c, &["name"]);
                let _ = writeln!(out, "  {cname}:");
                let s = statuses
                    .iter()
                    .find(|s| meta::str_at(s, &["name"]) == cname);
                let _ = writeln!(out, "    Image:          {}", meta::str_at(&c, &["image"]));
                let state = match s.and_then(|s| s.get("state")) {
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
                };
                let _ = writeln!(out, "    State:          {state}");
                let _ = writeln!(
                    out,
                    "    Ready:          {}",
                    if s.and_then(|s| s.get("ready")).and_then(Value::as_bool) == Some(true) {
                        "True"
                    } else {
                        "False"
                    }
                );
                let _ = writeln!(
                    out,
                    "    Restart Count:  {}",
                    s.and_then(|s| s.get("restartCount"))
                        .and_then(Value::as_i64)
                        .unwrap_or(0)
                );
            }
            let conds = meta::at(o, &["status", "conditions"])
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if !conds.is_empty() {
                out.push_str("Conditions:\n");
                let mut rows = vec![vec!["  Type".to_string(), "Status".to_string()]];
                for c in &conds {
                    rows.push(vec![
                        format!("  {}", meta::str_at(c, &["type"])),
                        meta::str_at(c, &["status"]).into(),
                    ]);
                }
                out.push_str(&render_table(&rows));
            }
            let qos = match meta::str_at(o, &["status", "qosClass"]) {
                "" => "BestEffort",
                q => q,
            };
            let _ = writeln!(out, "QoS Class:                   {qos}");
            let _ = writeln!(out, "Node-Selectors:              <none>");
            // printTolerationsMultiline: `key[=value][:effect][ op=Exists][ for Ns]`.
            let tolerations: Vec<String> = meta::at(o, &["spec", "tolerations"])
                .and_then(Value::as_array)
                .map(|ts| {
                    ts.iter()
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
                        .collect()
                })
                .unwrap_or_default();
            let tolerations = if tolerations.is_empty() {
                "<none>".to_string()
            } else {
                tolerations.join("\n                             ")
            };
            let _ = writeln!(out, "Tolerations:                 {tolerations}");
        }
        _ => {
            labels_and_annotations(&mut out, o, w);
            if r.kind == "Secret" {
                field(&mut out, "Type", meta::str_at(o, &["type"]));
                out.push_str("\nData\n====\n");
                for (k, v) in o
                    .get("data")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default()
                {
                    let len = base64::engine::general_purpose::STANDARD
                        .decode(v.as_str().unwrap_or(""))
                        .map_or(0, |b| b.len());
                    let _ = writeln!(out, "{k}:  {len} bytes");
                }
                return out;
            }
            if let Some(status) = meta::at(o, &["status", "phase"]).and_then(Value::as_str) {
                field(&mut out, "Status", status);
            }
        }
    }
    out.push_str(&events_for(ctx, o));
    out
}

fn pod_template_text(t: &Value) -> String {
    let mut out = String::from("Pod Template:\n");
    let _ = write!(
        out,
        "  Labels:  {}",
        map_lines(meta::at(t, &["metadata", "labels"]), 11)
    );
    out.push_str("  Containers:\n");
    for c in meta::at(t, &["spec", "containers"])
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let _ = writeln!(out, "   {}:", meta::str_at(&c, &["name"]));
        let _ = writeln!(out, "    Image:         {}", meta::str_at(&c, &["image"]));
        let ports = meta::at(&c, &["ports"])
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let port = ports
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
            // describe's SearchEvents: name, namespace, kind and uid of the involved object.
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
        ["  Type", "Reason", "Age", "From", "Message"]
            .map(String::from)
            .to_vec(),
        ["  ----", "------", "----", "----", "-------"]
            .map(String::from)
            .to_vec(),
    ];
    for e in &mine {
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
        rows.push(vec![
            format!("  {}", meta::str_at(e, &["type"])),
            meta::str_at(e, &["reason"]).into(),
            interval,
            meta::str_at(e, &["source", "component"]).into(),
            meta::str_at(e, &["message"]).into(),
        ]);
    }
    format!("Events:\n{}", render_table(&rows))
}

/// ROLES: the node's `node-role.kubernetes.io/<role>` labels, or `<none>`.
fn node_roles(o: &Value) -> String {
    let roles: Vec<String> = meta::labels(o)
        .into_iter()
        .filter_map(|(k, _)| {
            k.strip_prefix("node-role.kubernetes.io/")
                .map(str::to_string)
        })
        .collect();
    if roles.is_empty() {
        "<none>".to_string()
    } else {
        roles.join(",")
    }
}

/// `kubectl describe node` (`describeNode`): identity, taints, the node Lease, conditions,
/// addresses, capacity, the pods on it, events.
fn describe_node(ctx: &mut Ctx, o: &Value) -> String {
    let w = 20;
    let mut out = String::new();
    let field = |out: &mut String, k: &str, v: &str| {
        let _ = writeln!(out, "{:<w$}{v}", format!("{k}:"));
    };
    let name = meta::name(o).to_string();
    field(&mut out, "Name", &name);
    field(&mut out, "Roles", &node_roles(o));
    labels_and_annotations(&mut out, o, w);
    let created = meta::parse_timestamp(meta::str_at(o, &["metadata", "creationTimestamp"]));
    field(&mut out, "CreationTimestamp", &meta::describe_time(created));
    let taints: Vec<String> = meta::at(o, &["spec", "taints"])
        .and_then(Value::as_array)
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    let value = meta::str_at(t, &["value"]);
                    let value = if value.is_empty() {
                        String::new()
                    } else {
                        format!("={value}")
                    };
                    format!(
                        "{}{value}:{}",
                        meta::str_at(t, &["key"]),
                        meta::str_at(t, &["effect"])
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let indent = " ".repeat(w);
    field(
        &mut out,
        "Taints",
        &if taints.is_empty() {
            "<none>".into()
        } else {
            taints.join(&format!("\n{indent}"))
        },
    );
    let unschedulable =
        meta::at(o, &["spec", "unschedulable"]).and_then(Value::as_bool) == Some(true);
    field(&mut out, "Unschedulable", &unschedulable.to_string());
    if let Ok(lease) = ctx
        .cp
        .api
        .get(ctx.world, &meta::LEASES, "kube-node-lease", &name)
    {
        let renew = meta::str_at(&lease, &["spec", "renewTime"]);
        let renew = if renew.is_empty() {
            "<unset>".to_string()
        } else {
            meta::describe_time(meta::parse_timestamp(renew))
        };
        let _ = write!(
            out,
            "Lease:\n  HolderIdentity:  {}\n  AcquireTime:     <unset>\n  RenewTime:       {renew}\n",
            meta::str_at(&lease, &["spec", "holderIdentity"])
        );
    }
    let mut rows = vec![
        [
            "  Type",
            "Status",
            "LastHeartbeatTime",
            "LastTransitionTime",
            "Reason",
            "Message",
        ]
        .map(String::from)
        .to_vec(),
        [
            "  ----",
            "------",
            "-----------------",
            "------------------",
            "------",
            "-------",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for c in meta::at(o, &["status", "conditions"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
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
    out.push_str("Addresses:\n");
    let addresses: Vec<&Value> = meta::at(o, &["status", "addresses"])
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .collect();
    let width = addresses
        .iter()
        .map(|a| meta::str_at(a, &["type"]).len() + 3)
        .max()
        .unwrap_or(0);
    for a in addresses {
        let key = format!("{}:", meta::str_at(a, &["type"]));
        let _ = writeln!(out, "  {key:<width$}{}", meta::str_at(a, &["address"]));
    }
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
    let cidr = meta::str_at(o, &["spec", "podCIDR"]);
    let _ = writeln!(out, "{:<30}{cidr}", "PodCIDR:");
    let _ = writeln!(out, "{:<30}{cidr}", "PodCIDRs:");
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
        ["  Namespace", "Name", "Age"].map(String::from).to_vec(),
        ["  ---------", "----", "---"].map(String::from).to_vec(),
    ];
    for p in &pods {
        rows.push(vec![
            format!("  {}", meta::namespace(p)),
            meta::name(p).into(),
            age(p, now),
        ]);
    }
    out.push_str(&render_table(&rows));
    out.push_str(&events_for(ctx, o));
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
