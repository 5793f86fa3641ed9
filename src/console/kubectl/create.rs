//! `kubectl create`: from manifests (`-f`), or one object made from the command line
//! (`create deployment`, `namespace`, `secret generic`, `configmap`).

use super::flags::Args;
use super::{apply, Ctx};
use crate::kube::meta::{self, Resource, DEPLOYMENTS};
use base64::Engine as _;
use serde_json::{json, Value};

const UNEXPECTED_ARGS: &str = "error: Unexpected args: must specify one of -f, or a resource (deployment NAME --image=IMAGE, namespace NAME, secret generic NAME, configmap NAME)";

/// `create -f`, or (no subcommand matched) kubectl's complaint.
pub(super) fn create(ctx: &mut Ctx, a: &Args) {
    if a.files.is_empty() {
        ctx.fail(UNEXPECTED_ARGS);
    } else {
        apply::apply(ctx, a, true);
    }
}

/// The one NAME a `create` subcommand takes.
fn the_name<'a>(ctx: &mut Ctx, a: &'a Args) -> Option<&'a str> {
    match a.positional.as_slice() {
        [name] => Some(name),
        _ => {
            ctx.fail(UNEXPECTED_ARGS);
            None
        }
    }
}

fn create_object(ctx: &mut Ctx, r: &Resource, obj: Value) {
    match ctx.cp.api.create(&ctx.caller, ctx.world, r, obj) {
        Ok(o) => ctx.print(&format!("{}/{} created\n", r.kind_group(), meta::name(&o))),
        // kubectl's `create configmap` and `create secret` wrap the server's error in their
        // own words (`fmt.Errorf("failed to create configmap: %v")`, secret without the colon).
        Err(e) if r.kind == "ConfigMap" => {
            ctx.fail(&format!("error: failed to create configmap: {}", e.message))
        }
        Err(e) if r.kind == "Secret" => {
            ctx.fail(&format!("error: failed to create secret {}", e.message))
        }
        Err(e) => ctx.api_error(&e),
    }
}

/// `create deployment NAME --image=IMAGE [--replicas=N]`: one container named after the
/// image, labels `app: NAME`.
pub(super) fn deployment(ctx: &mut Ctx, a: &Args) {
    let Some(name) = the_name(ctx, a) else {
        return;
    };
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
        .unwrap_or("");
    // The flag parser has checked that --replicas is an integer.
    let replicas: i64 = a.replicas.as_deref().map_or(1, |r| r.parse().unwrap_or(1));
    let obj = json!({
        "metadata": {"name": name, "namespace": a.namespace(), "labels": {"app": name}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": container, "image": image, "resources": {}}]}},
            "strategy": {}},
    });
    create_object(ctx, &DEPLOYMENTS, obj);
}

pub(super) fn namespace(ctx: &mut Ctx, a: &Args) {
    if let Some(name) = the_name(ctx, a) {
        create_object(ctx, &meta::NAMESPACES, json!({"metadata": {"name": name}}));
    }
}

/// `create secret generic NAME [--type=T] --from-literal=k=v...`: the values base64-encoded.
pub(super) fn secret_generic(ctx: &mut Ctx, a: &Args) {
    let Some(name) = the_name(ctx, a) else {
        return;
    };
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
    let secret_type = a.secret_type.as_deref().unwrap_or("Opaque");
    let obj = json!({"metadata": {"name": name, "namespace": a.namespace()}, "type": secret_type, "data": data});
    create_object(ctx, &meta::SECRETS, obj);
}

pub(super) fn configmap(ctx: &mut Ctx, a: &Args) {
    let Some(name) = the_name(ctx, a) else {
        return;
    };
    let data: serde_json::Map<String, Value> = a
        .literals
        .iter()
        .filter_map(|lit| lit.split_once('='))
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let obj = json!({"metadata": {"name": name, "namespace": a.namespace()}, "data": data});
    create_object(ctx, &meta::CONFIGMAPS, obj);
}
