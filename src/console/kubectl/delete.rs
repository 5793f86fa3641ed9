//! `kubectl delete`: by name, by label or field selector (or `--all`) or by manifest,
//! waiting (as `--wait=true` does) until each object is gone.

use super::apply::{manifest_resource, read_manifests};
use super::flags::Args;
use super::targets::{selectors, targets};
use super::{Ctx, WAIT_LIMIT_MS};
use crate::base::Millis;
use crate::kube::meta::{self, Resource};

/// (resource, namespace, name) of every object to delete.
type Work = Vec<(Resource, String, String)>;

pub(super) fn delete(ctx: &mut Ctx, a: &Args) {
    let work = if a.files.is_empty() {
        named(ctx, a)
    } else {
        from_manifests(ctx, a)
    };
    if work.as_ref().is_some_and(Vec::is_empty) && selecting(a) {
        ctx.print("No resources found\n");
    }
    // kubectl deletes them all, then waits for them all to be gone.
    let mut gone = Gone {
        objects: Vec::new(),
        deadline_ms: 0,
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
                let uid = meta::uid(&deleted).to_string();
                gone.objects.push((r, ns, name, uid));
            }
            Err(e) => ctx.api_error(&e),
        }
    }
    gone.deadline_ms = ctx.world.now() + WAIT_LIMIT_MS;
    if a.wait && !gone.look(ctx) {
        ctx.waiting = Some(super::Wait::Gone(gone));
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

/// Whether the objects are chosen by a selector rather than by name (`--all` selects all).
fn selecting(a: &Args) -> bool {
    a.all || a.selector.is_some() || a.field_selector.is_some()
}

fn named(ctx: &mut Ctx, a: &Args) -> Option<Work> {
    let mut work = Vec::new();
    for (r, name) in targets(ctx, a)? {
        match (name.is_empty(), selecting(a)) {
            (true, false) => {
                ctx.fail("error: resource(s) were provided, but no name was specified");
                return None;
            }
            (false, true) => {
                ctx.fail("error: name cannot be provided when a selector is specified");
                return None;
            }
            (true, true) => work.extend(selected(ctx, a, r)?),
            (false, false) => work.push((r, a.namespace(), name)),
        }
    }
    if a.all && a.selector.is_some() {
        ctx.fail("error: cannot set --all and --selector at the same time");
        return None;
    }
    if a.all && a.field_selector.is_some() {
        ctx.fail("error: cannot set --all and --field-selector at the same time");
        return None;
    }
    Some(work)
}

/// The objects of `r` the selectors choose, in the namespace (or all of them with `-A`).
fn selected(ctx: &mut Ctx, a: &Args, r: Resource) -> Option<Work> {
    let chosen = match selectors(a, &r) {
        Ok(chosen) => chosen,
        Err(e) => {
            ctx.api_error(&e);
            return None;
        }
    };
    let ns = a.namespace();
    let scope = (!a.all_namespaces).then_some(ns.as_str());
    match ctx.cp.api.list(ctx.world, &r, scope) {
        Ok((list, _)) => Some(
            list.iter()
                .filter(|o| chosen.matches(o))
                .map(|o| (r, meta::namespace(o).to_string(), meta::name(o).to_string()))
                .collect(),
        ),
        Err(e) => {
            ctx.api_error(&e);
            None
        }
    }
}

/// How often kubectl looks again whether the deleted objects are gone (virtual time).
pub(super) const LOOK_EVERY_MS: Millis = 500;

/// Deleted objects not yet gone, which kubectl waits for (`--wait=true`), each by its uid (a
/// mirror pod comes back under the same name as a new object): kind, namespace, name, uid.
#[derive(Clone, Debug)]
pub(super) struct Gone {
    objects: Vec<(Resource, String, String, String)>,
    pub(super) deadline_ms: Millis,
}

impl Gone {
    /// Looks at the objects still there; whether the wait is over (all gone, or given up).
    pub(super) fn look(&mut self, ctx: &mut Ctx) -> bool {
        self.objects.retain(|(r, ns, name, uid)| {
            let there = ctx.cp.api.get(ctx.world, r, ns, name);
            there.is_ok_and(|o| meta::uid(&o) == uid)
        });
        self.objects.is_empty() || ctx.world.now() >= self.deadline_ms
    }
}
