//! `kubectl delete`: by name or by manifest, waiting (as `--wait=true` does) until each
//! object is gone.

use super::apply::{manifest_resource, read_manifests};
use super::flags::Args;
use super::targets::targets;
use super::{Ctx, WAIT_LIMIT_MS};
use crate::kube::meta::{self, Resource};
use serde_json::Value;

/// (resource, namespace, name) of every object to delete.
type Work = Vec<(Resource, String, String)>;

pub(super) fn delete(ctx: &mut Ctx, a: &Args) {
    let work = if a.files.is_empty() {
        named(ctx, a)
    } else {
        from_manifests(ctx, a)
    };
    for (r, ns, name) in work.unwrap_or_default() {
        let ns = if r.namespaced { ns } else { String::new() };
        match ctx
            .cp
            .api
            .delete(&ctx.caller, ctx.world, &r, &ns, &name, false)
        {
            Ok(deleted) => {
                ctx.print(&format!("{} \"{name}\" deleted\n", r.kind_group()));
                wait_until_gone(ctx, &r, &ns, &name, &deleted);
            }
            Err(e) => ctx.api_error(&e),
        }
    }
}

fn from_manifests(ctx: &mut Ctx, a: &Args) -> Option<Work> {
    let mut work = Vec::new();
    for (source, doc) in read_manifests(ctx, a)? {
        if let Some(r) = manifest_resource(ctx, &source, &doc) {
            let ns = match meta::namespace(&doc) {
                "" => a.namespace(),
                n => n.to_string(),
            };
            work.push((r, ns, meta::name(&doc).to_string()));
        }
    }
    Some(work)
}

fn named(ctx: &mut Ctx, a: &Args) -> Option<Work> {
    let mut work = Vec::new();
    for (r, name) in targets(ctx, a)? {
        if name.is_empty() {
            ctx.fail("error: resource(s) were provided, but no name was specified");
            return None;
        }
        work.push((r, a.namespace(), name));
    }
    Some(work)
}

/// kubectl waits for the object to be gone (--wait=true): that object, by uid (a mirror pod
/// comes back under the same name as a new object).
fn wait_until_gone(ctx: &mut Ctx, r: &Resource, ns: &str, name: &str, deleted: &Value) {
    let deadline = ctx.world.now() + WAIT_LIMIT_MS;
    while ctx.world.now() < deadline {
        match ctx.cp.api.get(ctx.world, r, ns, name) {
            Ok(o) if meta::uid(&o) == meta::uid(deleted) => {
                let t = ctx.world.now() + 500;
                ctx.cp.run_until(ctx.world, t);
            }
            _ => break,
        }
    }
}
