//! The API server against a real simulated etcd: create as a txn on mod_revision = 0,
//! resourceVersion = mod_revision, CAS updates and the Conflict error, watch resumption and
//! "too old resource version".

use super::apiserver::{ApiServer, Caller, EventNote, Subresource, WatchKind};
use super::meta::{self, CONFIGMAPS, DEPLOYMENTS};
use super::ControlPlane;
use crate::base::Rng;
use crate::etcd::{Cluster, ClusterConfig, Preset};
use serde_json::json;

/// What the tests' own requests are journaled as (the apiserver's own name).
fn tester() -> Caller {
    Caller::component("kube-apiserver")
}

fn world() -> Cluster {
    let mut w = ClusterConfig::new(3, 1).build();
    assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
    w
}

#[test]
fn create_get_update_delete_follow_mod_revisions_and_conflicts() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, Preset::Members).unwrap();
    let api = &mut cp.api;
    let cm = json!({"metadata": {"name": "cfg"}, "data": {"a": "1"}});
    let created = api
        .create(&tester(), &mut w, &CONFIGMAPS, cm.clone())
        .unwrap();
    let rv = meta::resource_version(&created);
    assert!(rv > 0);
    let again = api.create(&tester(), &mut w, &CONFIGMAPS, cm).unwrap_err();
    assert_eq!(
        again.to_string(),
        "Error from server (AlreadyExists): configmaps \"cfg\" already exists"
    );
    let got = api.get(&mut w, &CONFIGMAPS, "default", "cfg").unwrap();
    assert_eq!(
        meta::resource_version(&got),
        rv,
        "resourceVersion is the mod_revision"
    );

    let mut changed = got.clone();
    changed["data"]["a"] = json!("2");
    let updated = api
        .update(
            &tester(),
            &mut w,
            &CONFIGMAPS,
            changed.clone(),
            Subresource::Main,
        )
        .unwrap();
    assert!(meta::resource_version(&updated) > rv);
    // The same update again carries the old resourceVersion: a Conflict.
    let stale = api
        .update(&tester(), &mut w, &CONFIGMAPS, changed, Subresource::Main)
        .unwrap_err();
    assert_eq!(stale.reason, "Conflict");
    assert!(stale.message.contains("the object has been modified"));
    // An identical write is not written: the resourceVersion stays.
    let same = api
        .update(
            &tester(),
            &mut w,
            &CONFIGMAPS,
            updated.clone(),
            Subresource::Main,
        )
        .unwrap();
    assert_eq!(
        meta::resource_version(&same),
        meta::resource_version(&updated)
    );

    api.delete(&tester(), &mut w, &CONFIGMAPS, "default", "cfg", false)
        .unwrap();
    let gone = api.get(&mut w, &CONFIGMAPS, "default", "cfg").unwrap_err();
    assert_eq!(gone.code, 404);
}

#[test]
fn watches_resume_from_a_resource_version_and_expire_after_compaction() {
    let mut w = world();
    let mut api = ApiServer::new(&w, Rng::new(3));
    api.create(
        &tester(),
        &mut w,
        &meta::NAMESPACES,
        json!({"metadata": {"name": "default"}}),
    )
    .unwrap();
    api.sync(&mut w);
    let start = api.cache_revision();
    for i in 0..3 {
        let cm = json!({"metadata": {"name": format!("c{i}")}, "data": {}});
        api.create(&tester(), &mut w, &CONFIGMAPS, cm).unwrap();
    }
    api.delete(&tester(), &mut w, &CONFIGMAPS, "default", "c0", false)
        .unwrap();
    api.sync(&mut w);
    let events = api.watch(&CONFIGMAPS, Some("default"), start).unwrap();
    let kinds: Vec<WatchKind> = events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            WatchKind::Added,
            WatchKind::Added,
            WatchKind::Added,
            WatchKind::Deleted
        ]
    );
    // After etcd compacts past the cache's revision, the cache re-lists and old RVs are gone.
    let rev = api.cache_revision();
    let ep = w.ready_leader().unwrap();
    w.compact(ep, rev, false, 5_000).unwrap();
    let mut fresh = ApiServer::new(&w, Rng::new(4));
    fresh.sync(&mut w);
    let err = fresh.watch(&CONFIGMAPS, None, start).unwrap_err();
    assert_eq!(err.code, 410);
    assert!(
        err.message.starts_with("too old resource version"),
        "{}",
        err.message
    );
}

/// A control plane (seed 7) with Deployment `web` of `replicas` nginx pods just created.
fn with_web(replicas: i64) -> (Cluster, ControlPlane) {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 7, Preset::Members).unwrap();
    let d = json!({"metadata": {"name": "web"}, "spec": {"replicas": replicas,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.25"}]}}}});
    cp.api.create(&tester(), &mut w, &DEPLOYMENTS, d).unwrap();
    (w, cp)
}

#[test]
fn a_deployment_converges_and_pods_carry_owner_references() {
    let (mut w, mut cp) = with_web(3);
    let t = w.now() + 8_000;
    cp.run_until(&mut w, t);
    let d = cp.api.get(&mut w, &DEPLOYMENTS, "default", "web").unwrap();
    assert_eq!(meta::i64_at(&d, &["status", "readyReplicas"]), Some(3));
    let (pods, _) = cp.api.list(&mut w, &meta::PODS, Some("default")).unwrap();
    assert_eq!(pods.len(), 3);
    let (sets, _) = cp
        .api
        .list(&mut w, &meta::REPLICASETS, Some("default"))
        .unwrap();
    let rs = &sets[0];
    for p in &pods {
        assert_eq!(meta::controller_uid(p), Some(meta::uid(rs)));
        let suffix = meta::name(p)
            .strip_prefix(&format!("{}-", meta::name(rs)))
            .unwrap();
        assert_eq!(suffix.len(), 5);
    }
}

/// The scheduler's and the controller manager's loops skip a round while the watch cache
/// holds the revision of their last round that asked the API server nothing (the same run as
/// running it: every `tests/testdata` script's output and trace are unchanged, among them
/// `kube/unschedulable.script`, whose pending pods keep the scheduler's rounds going through
/// their backoff); a change wakes them.
#[test]
fn idle_loops_skip_their_rounds_until_the_cache_changes() {
    let (mut w, mut cp) = with_web(2);
    let ready = |cp: &mut ControlPlane, w: &mut Cluster| {
        let d = cp.api.get(w, &DEPLOYMENTS, "default", "web").unwrap();
        meta::i64_at(&d, &["status", "readyReplicas"])
    };
    let t = w.now() + 8_000;
    cp.run_until(&mut w, t);
    assert_eq!(ready(&mut cp, &mut w), Some(2));
    let skipped = cp.controllers.quiet_rounds_skipped();
    cp.run_until(&mut w, t + 10_000);
    // 100 rounds of 4 loops; the Leases' renewals change the revision now and then.
    let idle = cp.controllers.quiet_rounds_skipped() - skipped;
    assert!(idle > 300, "{idle} rounds skipped in 10 idle seconds");
    let mut d = cp.api.get(&mut w, &DEPLOYMENTS, "default", "web").unwrap();
    d["spec"]["replicas"] = json!(3);
    (cp.api
        .update(&tester(), &mut w, &DEPLOYMENTS, d, Subresource::Main))
    .unwrap();
    cp.run_until(&mut w, t + 18_000);
    assert_eq!(ready(&mut cp, &mut w), Some(3));
}

/// Losing etcd's quorum: the controller manager and the scheduler cannot renew their Leases
/// within the renew deadline and stop; when quorum returns they take the Leases again.
#[test]
fn leader_election_leases_lapse_without_quorum_and_return_with_it() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, Preset::Members).unwrap();
    let until = w.now() + 5_000;
    cp.run_until(&mut w, until);
    assert_eq!(
        cp.leading(),
        (true, true),
        "both lead while etcd is healthy"
    );
    let leader = w.leader().unwrap();
    let others: Vec<_> = w
        .member_ids()
        .into_iter()
        .filter(|m| *m != leader)
        .collect();
    for m in &others {
        w.kill(*m).unwrap();
    }
    let until = w.now() + 20_000;
    cp.run_until(&mut w, until);
    assert_eq!(
        cp.leading(),
        (false, false),
        "no quorum: the Leases lapse and both stop"
    );
    for m in &others {
        w.restart(*m).unwrap();
    }
    assert!(w.run_until_cond(30_000, |c| c.ready_leader().is_some()));
    let until = w.now() + 10_000;
    cp.run_until(&mut w, until);
    assert_eq!(cp.leading(), (true, true), "quorum back: both lead again");
}

#[test]
fn repeated_events_are_aggregated_and_expire_with_their_etcd_lease() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, Preset::Members).unwrap();
    let api = &mut cp.api;
    let cm = api
        .create(
            &tester(),
            &mut w,
            &CONFIGMAPS,
            json!({"metadata": {"name": "cfg"}}),
        )
        .unwrap();
    let record = |api: &mut ApiServer, w: &mut Cluster, message: &str| {
        let note = EventNote {
            involved: &cm,
            kind: "ConfigMap",
            event_type: "Warning",
            reason: "Odd",
            message,
            component: "tester",
            host: None,
        };
        api.record_event(&tester(), w, &note).unwrap();
    };
    let mine = |api: &mut ApiServer, w: &mut Cluster| {
        let (events, _) = api.list(w, &meta::EVENTS, Some("default")).unwrap();
        events
            .into_iter()
            .filter(|e| meta::str_at(e, &["involvedObject", "name"]) == "cfg")
            .collect::<Vec<_>>()
    };
    record(api, &mut w, "first");
    w.run_until(w.now() + 3_000);
    record(api, &mut w, "first");
    record(api, &mut w, "other");
    let events = mine(api, &mut w);
    assert_eq!(events.len(), 2, "{events:#?}");
    let first = events.iter().find(|e| e["message"] == "first").unwrap();
    assert_eq!(first["count"], 2);
    assert_ne!(first["firstTimestamp"], first["lastTimestamp"]);

    // Each Event key is attached to the lease manager's lease (TTL 1h + 60 s).
    let key = meta::EVENTS.key("default", meta::name(first));
    let view = w.kv_view(w.member_ids()[0]).unwrap();
    let kv = view.kvs.iter().find(|kv| kv.key == key.as_bytes()).unwrap();
    assert_ne!(kv.lease, 0);

    // After the TTL the lease expires and etcd deletes the Events; a repeat is then created
    // again under its old name, with the count carried on.
    w.run_until(w.now() + 3_700_000);
    assert!(mine(api, &mut w).is_empty());
    record(api, &mut w, "first");
    let events = mine(api, &mut w);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["count"], 3);
    assert_eq!(meta::name(&events[0]), meta::name(first));
}

#[test]
fn the_journal_names_the_raft_entry_that_carried_each_write() {
    use crate::etcd::{Proposal, Request, RequestOp};
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, Preset::Members).unwrap();
    let kubectl = Caller::kubectl("kubectl create configmap cfg".into());
    cp.api
        .create(
            &kubectl,
            &mut w,
            &CONFIGMAPS,
            json!({"metadata": {"name": "cfg"}}),
        )
        .unwrap();
    let write = cp.api.journal().last().cloned().unwrap();
    assert_eq!(write.key, "/registry/configmaps/default/cfg");
    assert_eq!(
        (write.actor.as_str(), write.verb, write.compare_mod),
        ("kubectl", "create", 0)
    );
    let (index, term) = write.entry.unwrap();
    // That entry, in every member's log, is the txn on this key that made this revision.
    for m in w.member_ids() {
        let log = &w.durable(m).unwrap().entries;
        let entry = log.iter().find(|e| e.index == index).unwrap();
        assert_eq!(entry.term, term);
        let Some(Proposal::Kv {
            request: Request::Txn(txn),
            ..
        }) = Proposal::decode(&entry.data)
        else {
            panic!("entry {index} is not a txn");
        };
        assert_eq!(txn.compare[0].key, write.key.as_bytes());
        assert!(matches!(txn.success[0], RequestOp::Put(_)));
    }
    let view = w.kv_view(write.endpoint).unwrap();
    let kv = view
        .kvs
        .iter()
        .find(|kv| kv.key == write.key.as_bytes())
        .unwrap();
    assert_eq!(kv.mod_revision, write.revision);
    // The watch cache received it on its next sync.
    assert!(write.watched_ms.is_none());
    cp.api.sync(&mut w);
    let watched = cp.api.journal().last().unwrap().watched_ms.unwrap();
    assert!(watched >= write.applied_ms);

    // Following it: the kubectl write first.
    let followed = super::trace::follow_last(cp.api.journal()).unwrap();
    assert_eq!(followed.command, "kubectl create configmap cfg");
    assert_eq!(followed.writes[0].key, write.key);
}

/// Every object the control plane reads as a typed object (nodes, node and election Leases,
/// static and workload pods, ReplicaSets, Deployments, mid-rollout) reads back exactly.
#[test]
fn typed_objects_round_trip_every_cached_object_exactly() {
    use super::objects::{self, Deployment, Lease, Node, Pod, ReplicaSet};
    fn exact<T: serde::de::DeserializeOwned + serde::Serialize>(v: &serde_json::Value) {
        let typed: T = objects::from_value(v).expect("reads as its type");
        assert_eq!(&objects::to_value(&typed), v);
    }
    let (mut w, mut cp) = with_web(3);
    let mut checked = 0;
    for step in 0..3 {
        let t = w.now() + 4_000;
        cp.run_until(&mut w, t);
        if step == 1 {
            let mut d = cp.api.get(&mut w, &DEPLOYMENTS, "default", "web").unwrap();
            d["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.26");
            let sub = Subresource::Main;
            cp.api
                .update(&tester(), &mut w, &DEPLOYMENTS, d, sub)
                .unwrap();
        }
        for (r, read) in [
            (meta::PODS, exact::<Pod> as fn(&serde_json::Value)),
            (meta::NODES, exact::<Node>),
            (meta::LEASES, exact::<Lease>),
            (meta::REPLICASETS, exact::<ReplicaSet>),
            (DEPLOYMENTS, exact::<Deployment>),
        ] {
            for v in cp.api.list_cached(&r, None) {
                read(&v);
                checked += 1;
            }
        }
    }
    assert!(checked > 40, "{checked} objects");
}

/// kubeadm's cluster: the CoreDNS addon's two pods run, each with an IP from its own node's
/// podCIDR (node01's and node02's ranges differ).
#[test]
fn kubeadm_runs_coredns_with_pod_ips_from_each_nodes_range() {
    let mut world = crate::etcd::ClusterConfig::kubeadm(1).build();
    assert!(world.run_until_cond(10_000, |w| w.ready_leader().is_some()));
    let mut files = super::Files::new();
    let mut cp = ControlPlane::kubeadm_init(&mut world, &mut files, 1).expect("kubeadm init");
    let t = world.now() + 30_000;
    cp.run_until(&mut world, t);
    let (nodes, _) = cp.api.list(&mut world, &meta::NODES, None).expect("nodes");
    let (pods, _) = cp
        .api
        .list(&mut world, &meta::PODS, Some("kube-system"))
        .expect("pods");
    let cidr = |node: &str| -> String {
        let n = nodes.iter().find(|n| n["metadata"]["name"] == node);
        n.map(|n| n["spec"]["podCIDR"].as_str().unwrap_or("").to_string())
            .unwrap_or_default()
    };
    let dns: Vec<&serde_json::Value> = pods
        .iter()
        .filter(|p| p["metadata"]["labels"]["k8s-app"] == "kube-dns")
        .collect();
    assert_eq!(dns.len(), 2);
    let mut ranges = Vec::new();
    for pod in dns {
        assert_eq!(pod["status"]["phase"], "Running", "{pod}");
        let node = pod["spec"]["nodeName"].as_str().expect("scheduled");
        let range = cidr(node);
        let ip = pod["status"]["podIP"].as_str().expect("an IP");
        assert!(
            ip.starts_with(range.trim_end_matches("0/24")),
            "{ip} in {range}"
        );
        ranges.push(range);
    }
    ranges.dedup();
    assert_eq!(ranges.len(), 2, "one on each worker: {ranges:?}");
}

/// The apiserver's memory of recent decodes changes no answer: a copy of the server (which
/// starts without it) reads every object alike, and bytes written behind its back under a
/// remembered key are decoded afresh.
#[test]
fn remembered_decodes_read_as_fresh_ones() {
    use crate::etcd::{PutRequest, Request};
    let (mut w, mut cp) = with_web(3);
    let t = w.now() + 8_000;
    cp.run_until(&mut w, t);
    let (warm, _) = cp.api.list(&mut w, &meta::PODS, Some("default")).unwrap();
    let mut fresh_api = cp.api.clone();
    let (fresh, _) = fresh_api
        .list(&mut w, &meta::PODS, Some("default"))
        .unwrap();
    assert_eq!(warm.len(), 3);
    assert_eq!(warm, fresh);
    let cm = json!({"metadata": {"name": "c"}, "data": {"k": "v"}});
    cp.api.create(&tester(), &mut w, &CONFIGMAPS, cm).unwrap();
    let before = cp.api.get(&mut w, &CONFIGMAPS, "default", "c").unwrap();
    assert_eq!(before["data"]["k"], "v");
    let key = CONFIGMAPS.key("default", "c");
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "default"}, "data": {"k": "w"}});
    let put = PutRequest::new(key, body.to_string().into_bytes());
    let ep = w.client_endpoints()[0];
    w.kv(ep, Request::Put(put), false, 7_000).unwrap();
    let after = cp.api.get(&mut w, &CONFIGMAPS, "default", "c").unwrap();
    assert_eq!(after["data"]["k"], "w");
}
