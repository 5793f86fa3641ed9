//! What a command line names: resources and objects (`deployment/nginx`, `rs,po`,
//! `pods a b`) and the selectors that filter a list.

use super::flags::Args;
use super::Ctx;
use crate::kube::meta::{self, ApiError, Resource, DEPLOYMENTS, REPLICASETS};
use crate::kube::selector::Selectors;

fn resource(ctx: &mut Ctx, name: &str) -> Option<Resource> {
    let found = meta::resource_by_name(name);
    if found.is_none() {
        ctx.fail(&format!(
            "error: the server doesn't have a resource type \"{name}\""
        ));
    }
    found
}

/// `deployment/nginx` or `deployment nginx`: the resource and the names (an empty name: the
/// whole list).
pub(super) fn targets(ctx: &mut Ctx, a: &Args) -> Option<Vec<(Resource, String)>> {
    let Some(first) = a.positional.first() else {
        ctx.fail("error: you must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.");
        return None;
    };
    if first.contains('/') {
        let mut out = Vec::new();
        for p in &a.positional {
            let (r, n) = p.split_once('/').unwrap_or((p, ""));
            out.push((resource(ctx, r)?, n.to_string()));
        }
        return Some(out);
    }
    if first.contains(',') && a.positional.len() == 1 {
        let mut out = Vec::new();
        for r in first.split(',') {
            out.push((resource(ctx, r)?, String::new()));
        }
        return Some(out);
    }
    let res = resource(ctx, first)?;
    if a.positional.len() == 1 {
        return Some(vec![(res, String::new())]);
    }
    Some(a.positional[1..].iter().map(|n| (res, n.clone())).collect())
}

/// The one Deployment (or ReplicaSet) a `scale`, `set image` or `rollout` names: its kind
/// and name.
pub(super) fn deployment_target(
    ctx: &mut Ctx,
    positional: &[String],
    verb: &str,
) -> Option<(String, String)> {
    let target = match positional {
        [t] if t.contains('/') => t.clone(),
        [r, n] => format!("{r}/{n}"),
        _ => {
            ctx.fail(&format!("error: {verb}: expected deployment/NAME"));
            return None;
        }
    };
    let (r, name) = target.split_once('/').unwrap_or(("", ""));
    match meta::resource_by_name(r) {
        Some(res) if res == DEPLOYMENTS || res == REPLICASETS => {
            Some((res.kind.to_string(), name.to_string()))
        }
        _ => {
            ctx.fail(&format!("error: no {verb} for resource type \"{r}\""));
            None
        }
    }
}

/// `-l` and `--field-selector`, checked by the API server for the resource listed.
pub(super) fn selectors(a: &Args, r: &Resource) -> Result<Selectors, ApiError> {
    Selectors::parse(
        r,
        a.selector.as_deref().unwrap_or(""),
        a.field_selector.as_deref().unwrap_or(""),
    )
}
