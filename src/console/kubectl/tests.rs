//! kubectl against a control plane on a simulated etcd: junk never panics, flags a command
//! lacks are refused before anything is sent, and the API server learns who wrote.

use super::*;
use crate::base::Rng;
use crate::etcd::ClusterConfig;

fn world() -> Cluster {
    let mut w = ClusterConfig::new(3, 1).build();
    assert!(w.run_until_cond(10_000, |c| c.ready_leader().is_some()));
    w
}

fn run(cp: &mut ControlPlane, w: &mut Cluster, line: &str) -> KubectlOutput {
    let args = shlex::split(line).unwrap();
    kubectl(Some(cp), w, &BTreeMap::new(), &args, None).0
}

#[test]
fn kubectl_junk_never_panics() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 2, crate::etcd::Preset::Members).unwrap();
    let files = BTreeMap::new();
    let mut rng = Rng::new(9);
    let words = [
        "get",
        "apply",
        "-f",
        "-",
        "delete",
        "pods",
        "deploy/x",
        "-o",
        "yaml",
        "scale",
        "--replicas",
        "-1",
        "set",
        "image",
        "rollout",
        "undo",
        "status",
        "describe",
        "rs,po",
        "-n",
        "",
        "a=b",
    ];
    let stdins = [
        "",
        "{",
        "kind: Pod",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: UPPER\n",
        "- 1\n- 2",
        "a: *b",
    ];
    for _ in 0..300 {
        let n = rng.range(0, 6);
        let args: Vec<String> = (0..n)
            .map(|_| rng.pick(&words).unwrap().to_string())
            .collect();
        let stdin = *rng.pick(&stdins).unwrap();
        let (out, _) = kubectl(Some(&mut cp), &mut w, &files, &args, Some(stdin));
        assert!(out.code == 0 || !out.stderr.is_empty(), "{args:?}: {out:?}");
    }
}

#[test]
fn unknown_flags_are_refused_with_kubectls_texts() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, crate::etcd::Preset::Members).unwrap();
    let out = run(&mut cp, &mut w, "get pods --foo");
    assert_eq!(
        (out.stdout.as_str(), out.stderr.as_str(), out.code),
        (
            "",
            "error: unknown flag: --foo\nSee 'kubectl get --help' for usage.\n",
            1
        )
    );
    let out = run(&mut cp, &mut w, "scale deployment web --replicas=2 -x");
    assert_eq!(
        (out.stderr.as_str(), out.code),
        (
            "error: unknown shorthand flag: 'x' in -x\nSee 'kubectl scale --help' for usage.\n",
            1
        )
    );
    let out = run(
        &mut cp,
        &mut w,
        "rollout status deployment/web --to-revision=1",
    );
    assert_eq!(
        out.stderr,
        "error: unknown flag: --to-revision\nSee 'kubectl rollout status --help' for usage.\n"
    );
    // Refused before anything was sent: no deployment was made.
    let out = run(
        &mut cp,
        &mut w,
        "create deployment web --image=nginx --wait",
    );
    assert_eq!(
        out.stderr,
        "error: unknown flag: --wait\nSee 'kubectl create deployment --help' for usage.\n"
    );
    let out = run(&mut cp, &mut w, "get deployments");
    assert_eq!(out.stderr, "No resources found in default namespace.\n");
    // Without a control plane, a flag error still comes first.
    let (out, _) = kubectl(
        None,
        &mut w,
        &BTreeMap::new(),
        &["get".into(), "--foo".into()],
        None,
    );
    assert!(out.stderr.starts_with("error: unknown flag: --foo\n"));
    let (out, _) = kubectl(
        None,
        &mut w,
        &BTreeMap::new(),
        &["get".into(), "pods".into()],
        None,
    );
    assert_eq!(
        out.stderr,
        "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n"
    );
}

#[test]
fn flags_each_command_accepts_still_work() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, crate::etcd::Preset::Members).unwrap();
    let out = run(
        &mut cp,
        &mut w,
        "create deployment web --image=nginx:1.25 -r 2",
    );
    assert_eq!(out.stdout, "deployment.apps/web created\n");
    let out = run(
        &mut cp,
        &mut w,
        "scale deployment/web --replicas 3 --record --timeout=1m",
    );
    assert_eq!(out.stdout, "deployment.apps/web scaled\n");
    let out = run(&mut cp, &mut w, "get deploy web -o name -n default");
    assert_eq!(out.stdout, "deployment.apps/web\n");
    let out = run(&mut cp, &mut w, "get deployments -A --show-labels");
    assert!(
        out.stdout.starts_with("NAMESPACE   NAME "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("app=web"), "{}", out.stdout);
    // The rows alone, padded among themselves (the header's widths no longer count).
    let out = run(&mut cp, &mut w, "get deployments --no-headers");
    assert!(out.stdout.starts_with("web   0/3   "), "{}", out.stdout);
    assert_eq!(out.stdout.lines().count(), 1, "{}", out.stdout);
    let out = run(
        &mut cp,
        &mut w,
        "get deploy -o custom-columns=N:.metadata.name,R:.spec.replicas --no-headers",
    );
    assert_eq!(out.stdout, "web   3\n");
    let out = run(&mut cp, &mut w, "describe deployments -A -l app=web");
    assert!(
        out.stdout.starts_with("Name:                   web\n"),
        "{}",
        out.stdout
    );
    let out = run(
        &mut cp,
        &mut w,
        "create secret generic tls --type=kubernetes.io/tls",
    );
    assert_eq!(out.stdout, "secret/tls created\n");
    let out = run(&mut cp, &mut w, "get secrets");
    assert!(
        out.stdout.contains("tls    kubernetes.io/tls   0  "),
        "{}",
        out.stdout
    );
    let out = run(&mut cp, &mut w, "get --help");
    assert!(out
        .stdout
        .starts_with("Display one or many resources.\n\nUsage:\n  kubectl get "));
    assert_eq!(out.code, 0);
}

#[test]
fn the_api_server_learns_each_write_came_from_this_command_line() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 1, crate::etcd::Preset::Members).unwrap();
    run(&mut cp, &mut w, "create configmap cfg --from-literal=a=1");
    let last = crate::kube::trace::follow_last(cp.api.journal()).unwrap();
    assert_eq!(
        last.command,
        "kubectl create configmap cfg --from-literal=a=1"
    );
    assert_eq!(
        command_line(&[
            "get".into(),
            "pods".into(),
            "-l".into(),
            "app in (a)".into()
        ]),
        "kubectl get pods -l 'app in (a)'"
    );
}

fn apply_stdin(cp: &mut ControlPlane, w: &mut Cluster, verb: &str, yaml: &str) -> KubectlOutput {
    let args: Vec<String> = [verb, "-f", "-"].map(String::from).to_vec();
    kubectl(Some(cp), w, &BTreeMap::new(), &args, Some(yaml)).0
}

/// What the API server and etcd refuse for size, as kubectl prints it: the 3 MiB body, the
/// 256 KiB of annotations (which `apply`'s own last-applied annotation reaches first), the
/// 1 MiB of a ConfigMap's data, and an object that passes them all but is over etcd's 1.5 MiB.
#[test]
fn objects_too_large_get_the_api_servers_and_etcds_errors() {
    let mut w = world();
    let mut cp = ControlPlane::up(&mut w, 2, crate::etcd::Preset::Members).unwrap();
    let cm = |name: &str, bytes: usize| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  k: {}\n",
            "x".repeat(bytes)
        )
    };
    let out = apply_stdin(&mut cp, &mut w, "apply", &cm("half", 300_000));
    assert_eq!(out.stderr, "The ConfigMap \"half\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes\n");
    let out = apply_stdin(&mut cp, &mut w, "create", &cm("half", 300_000));
    assert_eq!(out.stdout, "configmap/half created\n", "{}", out.stderr);
    let out = apply_stdin(&mut cp, &mut w, "create", &cm("big", 1_048_577));
    assert_eq!(
        out.stderr,
        "The ConfigMap \"big\" is invalid: []: Too long: may not be more than 1048576 bytes\n"
    );
    let out = apply_stdin(&mut cp, &mut w, "apply", &cm("huge", 3_200_000));
    assert_eq!(out.stderr, "Error from server (RequestEntityTooLarge): error when creating \"STDIN\": Request entity too large: limit is 3145728\n");
    // An env value has no limit of its own: etcd's is the first it meets.
    let deployment = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: env\nspec:\n  selector:\n    matchLabels:\n      app: env\n  template:\n    metadata:\n      labels:\n        app: env\n    spec:\n      containers:\n      - name: c\n        image: nginx\n        env:\n        - name: BIG\n          value: {}\n",
        "x".repeat(1_600_000)
    );
    let out = apply_stdin(&mut cp, &mut w, "create", &deployment);
    assert_eq!(
        out.stderr,
        "Error from server: error when creating \"STDIN\": etcdserver: request is too large\n"
    );
    assert_eq!(out.code, 1);
    let listed = run(&mut cp, &mut w, "get configmaps -o name");
    assert_eq!(
        listed.stdout, "configmap/half\n",
        "only what fits was stored"
    );
    let deployments = run(&mut cp, &mut w, "get deployments");
    assert_eq!(
        deployments.stderr,
        "No resources found in default namespace.\n"
    );
}
