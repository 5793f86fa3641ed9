//! Commands against a one-member simulated cluster, checked against the recorded etcd texts.

use super::*;
use crate::etcd::ClusterConfig;

fn world() -> (Cluster, BTreeMap<String, Vec<u8>>) {
    let mut w = ClusterConfig::new(1, 1).build();
    assert!(w.run_until_cond(30_000, |c| c.ready_leader().is_some()));
    (w, BTreeMap::new())
}

fn run(
    w: &mut Cluster,
    f: &mut BTreeMap<String, Vec<u8>>,
    line: &str,
    stdin: Option<&str>,
) -> Output {
    let args = shlex::split(line).unwrap();
    let env = Env::new();
    let run = Invocation {
        args: &args,
        stdin,
        env: &env,
    };
    run_etcdctl(w, f, run, Stop::Default(DEFAULT_STREAM_MS))
}

#[test]
fn put_get_and_errors_print_as_etcdctl() {
    let (mut w, mut f) = world();
    assert_eq!(run(&mut w, &mut f, "get foo", None).stdout, "");
    assert_eq!(run(&mut w, &mut f, "put foo bar", None).stdout, "OK\n");
    assert_eq!(run(&mut w, &mut f, "get foo", None).stdout, "foo\nbar\n");
    let o = run(&mut w, &mut f, "-w json get foo", None);
    assert!(o.stdout.contains("\"kvs\":[{\"key\":\"Zm9v\",\"create_revision\":2,\"mod_revision\":2,\"version\":1,\"value\":\"YmFy\"}],\"count\":1}"), "{}", o.stdout);
    let o = run(&mut w, &mut f, "get", None);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (
            128,
            "Error: get command needs one argument as key and an optional argument as range_end\n"
        )
    );
    let o = run(&mut w, &mut f, "get foo --count-only", None);
    assert_eq!(o.code, 1);
    assert!(o
        .stdout
        .starts_with("NAME:\n\tget - Gets the key or a range of keys\n"));
    assert_eq!(
        o.stderr,
        "Error: unknown flag: --count-only\n\nError: unknown flag: --count-only\n"
    );
    let o = run(&mut w, &mut f, "-w table put a b", None);
    assert_eq!(
        (o.code, o.stderr.as_str()),
        (4, "Error: table not supported as output format\n")
    );
    assert_eq!(
        run(&mut w, &mut f, "get a", None).stdout,
        "a\nb\n",
        "the put ran before printing failed"
    );
    let o = run(&mut w, &mut f, "frobnicate", None);
    assert_eq!(o.stderr, "Error: unknown command \"frobnicate\" for \"etcdctl\"\nRun 'etcdctl --help' for usage.\nError: unknown command \"frobnicate\" for \"etcdctl\"\n");
    let o = run(&mut w, &mut f, "--endpoints=127.0.0.1:1 get foo", None);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.ends_with("Error: context deadline exceeded\n"),
        "{}",
        o.stderr
    );
}

#[test]
fn txn_and_leases() {
    let (mut w, mut f) = world();
    run(&mut w, &mut f, "put foo reborn", None);
    let o = run(
        &mut w,
        &mut f,
        "txn",
        Some("value(\"foo\") = \"reborn\"\n\nput t1 a\nget t1\n\nput t3 fail\n\n"),
    );
    assert_eq!(o.stdout, "SUCCESS\n\nOK\n\nt1\na\n");
    let o = run(&mut w, &mut f, "lease grant 600", None);
    assert!(
        o.stdout.starts_with("lease ") && o.stdout.ends_with(" granted with TTL(600s)\n"),
        "{}",
        o.stdout
    );
    let id = o.stdout.split(' ').nth(1).unwrap().to_string();
    assert_eq!(
        run(&mut w, &mut f, &format!("put k v --lease={id}"), None).stdout,
        "OK\n"
    );
    let o = run(
        &mut w,
        &mut f,
        &format!("lease timetolive {id} --keys"),
        None,
    );
    assert!(o.stdout.ends_with("attached keys([k])\n"), "{}", o.stdout);
    assert_eq!(
        run(&mut w, &mut f, &format!("lease revoke {id}"), None).stdout,
        format!("lease {id} revoked\n")
    );
    let o = run(&mut w, &mut f, &format!("lease keep-alive {id}"), None);
    assert_eq!(
        (o.code, o.stdout),
        (0, format!("lease {id} expired or revoked.\n"))
    );
}

/// The first demo (issue 17): seed 1 elects m1; once it is killed and m2 leads, a command
/// without `--endpoints` lands on a live member and commits. An explicit dead endpoint still
/// fails as etcdctl does, and the page's hint (not stdout or stderr) says why.
#[test]
fn without_endpoints_the_cluster_answers_after_the_leader_dies() {
    let mut s = Session::new(ClusterConfig::new(3, 1));
    for line in ["wait leader", "kill leader", "wait leader"] {
        assert_eq!(s.execute(line, None).code, 0, "{line}");
    }
    assert_eq!(
        s.world.leader().map(|m| m.to_string()).as_deref(),
        Some("m2")
    );
    let put = s.execute("etcdctl put k v", None);
    assert_eq!(
        (put.code, put.stdout.as_str(), put.aside),
        (0, "OK\n", None)
    );
    let dead = s.execute("etcdctl --endpoints=m1 put k v", None);
    assert_eq!(
        dead.stderr.lines().last(),
        Some("Error: context deadline exceeded")
    );
    assert!(
        !dead.stderr.contains("Raft Lab"),
        "the hint is no part of stderr"
    );
    assert_eq!(
        dead.aside,
        Some(Aside::Hint(crate::console::Hint::EndpointDown {
            member: "m1".into(),
            up: vec!["m2".into(), "m3".into()]
        }))
    );
    let flag_error = s.execute("etcdctl --endpoints=m1 put", None);
    assert_eq!(flag_error.aside, None, "a usage error is visible: no hint");
    // m1 and m3 make a quorum without m2: a request to m2 waits, one to the rest commits.
    for line in ["restart m1", "wait 2s", "isolate m2", "wait 2s"] {
        assert_eq!(s.execute(line, None).code, 0, "{line}");
    }
    let quorum = s.execute("etcdctl put k v", None);
    assert_eq!((quorum.code, quorum.aside), (0, None));
    let cut = s.execute("etcdctl --endpoints=m2 put k v", None);
    assert_eq!(
        cut.aside,
        Some(Aside::Hint(crate::console::Hint::CutOff {
            member: "m2".into()
        }))
    );
    s.execute("kill m3", None);
    let lost = s.execute("etcdctl put k v", None);
    assert_eq!(
        lost.aside,
        Some(Aside::Hint(crate::console::Hint::NoQuorum {
            reachable: 1,
            quorum: 2
        }))
    );
}

#[test]
fn kubectl_before_kube_up_gets_the_hint_to_start_it() {
    let mut s = Session::new(ClusterConfig::new(3, 1));
    let out = s.execute("kubectl get pods", None);
    assert_eq!(
        out.stderr,
        "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n"
    );
    assert_eq!(
        out.aside,
        Some(Aside::Hint(crate::console::Hint::KubeNotUp))
    );
    s.execute("wait leader", None);
    s.execute("kube up", None);
    s.execute("wait 5s", None);
    assert_eq!(s.execute("kubectl get pods", None).aside, None);
}
