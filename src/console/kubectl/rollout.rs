//! `kubectl rollout status|history|undo` for a Deployment (KC `pkg/cmd/rollout`,
//! `polymorphichelpers/rollout_status.go`).

use super::flags::Args;
use super::table::render_table;
use super::targets::deployment_target;
use super::{Ctx, WAIT_LIMIT_MS};
use crate::base::{parse_go_duration_ms, Millis};
use crate::console::longer_than_the_longest_wait;
use crate::kube::meta::{self, ApiError, DEPLOYMENTS, REPLICASETS};
use serde_json::{json, Value};

const REVISION: &[&str] = &[
    "metadata",
    "annotations",
    "deployment.kubernetes.io/revision",
];

/// `kubectl rollout SUB` with a subcommand this console does not have.
pub(super) fn rollout(ctx: &mut Ctx, a: &Args) {
    let sub = a.positional.first().cloned().unwrap_or_default();
    let rest: Vec<String> = a.positional.iter().skip(1).cloned().collect();
    if deployment_target(ctx, &rest, &format!("rollout {sub}")).is_some() {
        ctx.fail(&format!(
            "error: unknown command \"{sub}\" for \"kubectl rollout\""
        ));
    }
}

/// The Deployment a rollout subcommand names: its namespace and name.
fn rollout_target(ctx: &mut Ctx, a: &Args, sub: &str) -> Option<(String, String)> {
    let (_, name) = deployment_target(ctx, &a.positional, &format!("rollout {sub}"))?;
    Some((a.namespace(), name))
}

/// One status line of `rollout status` and whether the rollout is done.
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

/// How often `rollout status` looks at the Deployment again (virtual time).
pub(super) const LOOK_EVERY_MS: Millis = 200;

/// `rollout status`: a line each time the status changes, until done or timed out. What it
/// waits for after its first look goes on once the command returns ([`super::Continued`]).
pub(super) fn status(ctx: &mut Ctx, a: &Args) {
    let Some((ns, name)) = rollout_target(ctx, a, "status") else {
        return;
    };
    // kubectl's 0s, the default, waits as long as it takes: here, WAIT_LIMIT_MS (5 minutes).
    let timeout = a.timeout.as_deref().and_then(parse_go_duration_ms);
    let limit_ms = timeout.filter(|ms| *ms > 0).unwrap_or(WAIT_LIMIT_MS);
    if limit_ms > crate::console::WAIT_LIMIT_MS {
        let flag = format!("--timeout={}", a.timeout.as_deref().unwrap_or_default());
        return ctx.fail(&format!("error: {}", longer_than_the_longest_wait(&flag)));
    }
    let mut waiting = Waiting {
        ns,
        name,
        deadline_ms: ctx.world.now() + limit_ms,
        last: String::new(),
    };
    if !waiting.look(ctx) {
        ctx.waiting = Some(super::Wait::Rollout(waiting));
    }
}

/// A `rollout status` still waiting: the Deployment, when it gives up, the last line printed.
#[derive(Clone, Debug)]
pub(super) struct Waiting {
    ns: String,
    name: String,
    pub(super) deadline_ms: Millis,
    last: String,
}

impl Waiting {
    /// Looks at the Deployment, printing its status if it changed; whether the wait is over
    /// (rolled out, failed or timed out).
    pub(super) fn look(&mut self, ctx: &mut Ctx) -> bool {
        let d = match ctx
            .cp
            .api
            .get(ctx.world, &DEPLOYMENTS, &self.ns, &self.name)
        {
            Ok(d) => d,
            Err(e) => {
                ctx.api_error(&e);
                return true;
            }
        };
        let (msg, done) = rollout_message(&d);
        if msg != self.last {
            ctx.print(&msg);
            self.last = msg;
        }
        if !done && ctx.world.now() >= self.deadline_ms {
            ctx.fail("error: timed out waiting for the condition");
            return true;
        }
        done
    }
}

/// The Deployment's ReplicaSets by revision, oldest first.
pub(super) fn owned_replicasets(
    ctx: &mut Ctx,
    ns: &str,
    d: &Value,
) -> Result<Vec<(i64, Value)>, ApiError> {
    let (list, _) = ctx.cp.api.list(ctx.world, &REPLICASETS, Some(ns))?;
    let mut out: Vec<(i64, Value)> = list
        .into_iter()
        .filter(|rs| meta::controller_uid(rs) == Some(meta::uid(d)))
        .map(|rs| (meta::str_at(&rs, REVISION).parse().unwrap_or(0), rs))
        .collect();
    out.sort_by_key(|(rev, _)| *rev);
    Ok(out)
}

/// The Deployment and its ReplicaSets by revision.
fn deployment_and_sets(
    ctx: &mut Ctx,
    ns: &str,
    name: &str,
) -> Result<(Value, Vec<(i64, Value)>), ApiError> {
    let d = ctx.cp.api.get(ctx.world, &DEPLOYMENTS, ns, name)?;
    let sets = owned_replicasets(ctx, ns, &d)?;
    Ok((d, sets))
}

pub(super) fn history(ctx: &mut Ctx, a: &Args) {
    let Some((ns, name)) = rollout_target(ctx, a, "history") else {
        return;
    };
    let sets = match deployment_and_sets(ctx, &ns, &name) {
        Ok((_, sets)) => sets,
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

/// `rollout undo [--to-revision=N]`: the template of that revision (default: the one before
/// the current) written back to the Deployment.
pub(super) fn undo(ctx: &mut Ctx, a: &Args) {
    let Some((ns, name)) = rollout_target(ctx, a, "undo") else {
        return;
    };
    let (d, sets) = match deployment_and_sets(ctx, &ns, &name) {
        Ok(found) => found,
        Err(e) => return ctx.api_error(&e),
    };
    let current = meta::str_at(&d, REVISION).parse::<i64>().unwrap_or(0);
    let wanted = a
        .to_revision
        .as_deref()
        .and_then(|t| t.parse::<i64>().ok())
        .filter(|t| *t > 0);
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
    let template = template_of(rs);
    if meta::at(&d, &["spec", "template"]) == Some(&template) {
        ctx.print(&format!("deployment.apps/{name} skipped rollback (current template already matches revision {})\n", meta::str_at(rs, REVISION)));
        return;
    }
    let result =
        ctx.cp
            .api
            .guaranteed_update(&ctx.caller, ctx.world, &DEPLOYMENTS, &ns, &name, |cur| {
                let mut new = cur.clone();
                new["spec"]["template"] = template.clone();
                Ok(new)
            });
    match result {
        Ok(_) => ctx.print(&format!("deployment.apps/{name} rolled back\n")),
        Err(e) => ctx.api_error(&e),
    }
}

/// A ReplicaSet's pod template as its Deployment had it (without `pod-template-hash`).
fn template_of(rs: &Value) -> Value {
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
    template
}
