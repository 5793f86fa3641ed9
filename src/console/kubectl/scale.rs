//! `kubectl scale` and `kubectl set image`: one change to a Deployment's (or ReplicaSet's)
//! spec, retried on conflict as kubectl's patch is.

use super::flags::Args;
use super::targets::deployment_target;
use super::Ctx;
use crate::kube::meta::{self, DEPLOYMENTS, REPLICASETS};
use serde_json::{json, Value};

pub(super) fn scale(ctx: &mut Ctx, a: &Args) {
    let Some(replicas) = a.replicas.as_deref().and_then(|r| r.parse::<i64>().ok()) else {
        ctx.fail("error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0");
        return;
    };
    let Some((kind, name)) = deployment_target(ctx, &a.positional, "scale") else {
        return;
    };
    let r = if kind == "ReplicaSet" {
        REPLICASETS
    } else {
        DEPLOYMENTS
    };
    let result =
        ctx.cp
            .api
            .guaranteed_update(&ctx.caller, ctx.world, &r, &a.namespace(), &name, |cur| {
                let mut new = cur.clone();
                meta::obj_mut(&mut new, &["spec"]).insert("replicas".into(), json!(replicas));
                Ok(new)
            });
    match result {
        Ok(_) => ctx.print(&format!("{}/{name} scaled\n", r.kind_group())),
        Err(e) => ctx.api_error(&e),
    }
}

/// `kubectl set` with no subcommand this console has.
pub(super) fn set(ctx: &mut Ctx, _: &Args) {
    ctx.fail("error: unknown command: set only supports `set image`");
}

/// `set image deployment/NAME CONTAINER=IMAGE...` (`*` names every container).
pub(super) fn set_image(ctx: &mut Ctx, a: &Args) {
    let target = a.positional.first().cloned().unwrap_or_default();
    let pairs: Vec<(String, String)> = a
        .positional
        .iter()
        .skip(1)
        .filter_map(|p| {
            p.split_once('=')
                .map(|(c, i)| (c.to_string(), i.to_string()))
        })
        .collect();
    if pairs.is_empty() {
        ctx.fail("error: at least one image update is required");
        return;
    }
    let Some((_, name)) = deployment_target(ctx, &[target], "set image") else {
        return;
    };
    let mut missing = None;
    let result = ctx.cp.api.guaranteed_update(
        &ctx.caller,
        ctx.world,
        &DEPLOYMENTS,
        &a.namespace(),
        &name,
        |cur| {
            let mut new = cur.clone();
            if let Some(c) = set_images(&mut new, &pairs) {
                missing = Some(c);
            }
            Ok(new)
        },
    );
    if let Some(c) = missing {
        ctx.fail(&format!("error: unable to find container named \"{c}\""));
        return;
    }
    match result {
        Ok(_) => ctx.print(&format!("deployment.apps/{name} image updated\n")),
        Err(e) => ctx.api_error(&e),
    }
}

/// Sets each (container, image) in the pod template; the last container not found.
fn set_images(deployment: &mut Value, pairs: &[(String, String)]) -> Option<String> {
    let containers = deployment
        .get_mut("spec")
        .and_then(|s| s.get_mut("template"))
        .and_then(|t| t.get_mut("spec"))
        .and_then(|s| s.get_mut("containers"))
        .and_then(Value::as_array_mut)?;
    let mut missing = None;
    for (c, image) in pairs {
        match containers
            .iter_mut()
            .find(|x| x.get("name").and_then(Value::as_str) == Some(c) || c == "*")
        {
            Some(x) => x["image"] = json!(image),
            None => missing = Some(c.clone()),
        }
    }
    missing
}
