//! Following one change end to end: the last kubectl command's writes, then every write the
//! control plane made because of them, read from the apiserver's journal. Each write shows
//! its whole path: the component that asked, the etcd txn (a compare on mod_revision), the
//! Raft entry that carried it, when it was committed and applied, and when the watch cache
//! (which every controller's informer reads) received it.

use super::apiserver::Write;
use crate::base::Millis;
use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// How many writes a followed change shows after the command's own.
pub const MAX_FOLLOWED: usize = 40;

/// A kubectl command and the writes that followed from it, in the order they were made.
#[derive(Clone, Debug, PartialEq)]
pub struct Followed<'a> {
    pub command: &'a str,
    pub writes: Vec<&'a Write>,
}

/// The last kubectl command that wrote, and what the control plane did because of it: a
/// write is part of the change when it touches an object the change already touched, or an
/// object owned (ownerReferences) by one. Events and Leases are bookkeeping and left out.
pub fn follow_last<W: Borrow<Write>>(journal: &[W]) -> Option<Followed<'_>> {
    let last = journal
        .iter()
        .rposition(|w| w.borrow().actor == "kubectl")?;
    let journal: Vec<&Write> = journal.iter().map(Borrow::borrow).collect();
    let command = journal[last].command.as_str();
    let first = journal[..=last]
        .iter()
        .rposition(|w| w.actor != "kubectl" || w.command != command)
        .map_or(0, |p| p + 1);
    let mut keys = BTreeSet::new();
    let mut uids = BTreeSet::new();
    let mut writes = Vec::new();
    for &w in &journal[first..] {
        if matches!(w.kind, "Event" | "Lease") {
            continue;
        }
        let ours = w.actor == "kubectl" && w.command == command;
        let related = keys.contains(w.key.as_str()) || w.owners.iter().any(|o| uids.contains(o));
        if ours || related {
            keys.insert(w.key.as_str());
            if !w.uid.is_empty() {
                uids.insert(w.uid.clone());
            }
            writes.push(w);
            if writes.len() > MAX_FOLLOWED {
                break;
            }
        }
    }
    Some(Followed { command, writes })
}

/// The watch event a write becomes (the apiserver's etcd watch: a put that created the key
/// is ADDED, another put MODIFIED, a delete DELETED).
pub fn watch_kind(w: &Write) -> &'static str {
    match w.verb {
        "create" => "ADDED",
        "delete" => "DELETED",
        _ => "MODIFIED",
    }
}

/// `/registry/deployments/default/web` → `deployment default/web`.
pub fn object_name(w: &Write) -> String {
    let parts: Vec<&str> = w.key.split('/').collect();
    let name = match parts.as_slice() {
        ["", "registry", _, ns, name] => format!("{ns}/{name}"),
        ["", "registry", _, name] => (*name).to_string(),
        ["", "registry", _, _, ns, name] => format!("{ns}/{name}"),
        _ => w.key.clone(),
    };
    format!("{} {name}", w.kind.to_ascii_lowercase())
}

/// `t=12.345s`.
pub fn at(ms: Millis) -> String {
    format!("t={}.{:03}s", ms / 1000, ms % 1000)
}

/// The txn as etcdctl would write it.
pub fn txn_text(w: &Write) -> String {
    let op = if w.verb == "delete" { "del" } else { "put" };
    format!(
        "txn: mod_revision(\"{}\") = {} → {op}",
        w.key, w.compare_mod
    )
}

/// The followed change as text, one block per write (`kube trace`).
pub fn render(f: &Followed) -> String {
    let mut out = format!("{}\n", f.command);
    for (i, w) in f.writes.iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>2}. {}  {}: {} {}",
            i + 1,
            at(w.sent_ms),
            w.actor,
            w.verb,
            object_name(w)
        );
        for c in &w.changes {
            let _ = writeln!(out, "      {c}");
        }
        let _ = writeln!(
            out,
            "      apiserver → etcd {}: {}",
            w.endpoint,
            txn_text(w)
        );
        let raft = match w.entry {
            Some((index, term)) => format!("raft entry {index} (term {term})"),
            None => "raft entry ?".into(),
        };
        let _ = writeln!(
            out,
            "      {raft} committed, applied by {} at {}: revision {}",
            w.endpoint,
            at(w.applied_ms),
            w.revision
        );
        let _ = match w.watched_ms {
            Some(t) => writeln!(
                out,
                "      watch: {} reached the watch cache at {}",
                watch_kind(w),
                at(t)
            ),
            None => writeln!(out, "      watch: not yet received"),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::MemberId;

    fn write(
        actor: &str,
        verb: &'static str,
        kind: &'static str,
        key: &str,
        uid: &str,
        owners: &[&str],
    ) -> Write {
        Write {
            actor: actor.into(),
            command: if actor == "kubectl" {
                "kubectl x".into()
            } else {
                String::new()
            },
            verb,
            kind,
            key: key.into(),
            compare_mod: 0,
            revision: 0,
            endpoint: MemberId(1),
            entry: None,
            sent_ms: 0,
            applied_ms: 0,
            watched_ms: None,
            uid: uid.into(),
            owners: owners.iter().map(|o| o.to_string()).collect(),
            changes: Vec::new(),
        }
    }

    /// One write per line: actor, verb, kind, key under `/registry/`, uid, owner uids
    /// (comma-separated; `-` for none).
    const JOURNAL: &str = "
        kubelet                update  Pod         pods/default/old              p0  -
        kubectl                create  Deployment  deployments/default/web       d1  -
        kubelet                update  Lease       leases/kube-node-lease/node-1 l   -
        deployment-controller  create  ReplicaSet  replicasets/default/web-1     r1  d1
        replicaset-controller  create  Event       events/default/web-1.1        e   -
        replicaset-controller  create  Pod         pods/default/web-1-a          p1  r1
        kubelet                update  Pod         pods/default/old              p0  -
        default-scheduler      update  Pod         pods/default/web-1-a          p1  r1
        deployment-controller  update  Deployment  deployments/default/web       d1  -
    ";

    fn journal() -> Vec<Write> {
        let rows = JOURNAL.lines().filter(|line| !line.trim().is_empty());
        rows.map(|line| {
            let cells: Vec<&'static str> = line.split_whitespace().collect();
            let owners: Vec<&str> = cells[5].split(',').filter(|o| *o != "-").collect();
            let key = format!("/registry/{}", cells[3]);
            write(cells[0], cells[1], cells[2], &key, cells[4], &owners)
        })
        .collect()
    }

    #[test]
    fn follows_owners_and_touched_keys_but_not_unrelated_writes() {
        let journal = journal();
        let f = follow_last(&journal).unwrap();
        assert_eq!(f.command, "kubectl x");
        let keys: Vec<&str> = f.writes.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "/registry/deployments/default/web",
                "/registry/replicasets/default/web-1",
                "/registry/pods/default/web-1-a",
                "/registry/pods/default/web-1-a",
                "/registry/deployments/default/web",
            ]
        );
        assert_eq!(object_name(f.writes[1]), "replicaset default/web-1");
        assert!(follow_last(&journal[..1]).is_none(), "no kubectl write yet");
    }
}
