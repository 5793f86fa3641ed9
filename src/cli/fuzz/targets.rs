//! What the fuzzer feeds: one row per parser, with the real inputs it starts from, the
//! session it starts in and how an input is run, through the parser and on into the engine
//! behind it (a console line runs against a live cluster, a snapshot is restored and served).

use super::corpus::Corpus;
use crate::console::{run_script, script, trace_file, Session};
use crate::etcd::ClusterConfig;
use crate::lesson::format::Lesson;
use crate::ui::share;

pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// The real inputs the generator changes.
    pub seeds: fn(&Corpus) -> Vec<Vec<u8>>,
    pub form: Form,
    /// The session every input starts from, made once per run.
    pub prepare: fn(&Corpus) -> Session,
    pub run: fn(&Session, &[u8]),
}

/// How a generator changes an input.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// As words and lines.
    Text,
    /// As bytes (a binary file).
    Bytes,
    /// Either (a text file that may arrive damaged).
    Either,
}

pub const TARGETS: &[Target] = &[
    Target {
        name: "etcdctl",
        about: "etcdctl and etcdutl lines against a live 3-member cluster",
        seeds: |c| c.lines_where(|w| matches!(w, "etcdctl" | "etcdutl" | "timeout")),
        form: Form::Text,
        prepare: |_| prepared(ETCD_SETUP),
        run: run_lines,
    },
    Target {
        name: "kubectl",
        about: "kubectl lines against a running control plane",
        seeds: |c| c.lines_where(|w| w == "kubectl"),
        form: Form::Text,
        prepare: |_| prepared(KUBE_SETUP),
        run: run_lines,
    },
    Target {
        name: "shell",
        about: "lines with pipes, substitutions, variables and quotes",
        seeds: Corpus::shell_lines,
        form: Form::Text,
        prepare: |_| prepared(KUBE_SETUP),
        run: run_lines,
    },
    Target {
        name: "verbs",
        about: "the simulator's own verbs (kill, partition, wait, expect, kube ...)",
        seeds: Corpus::verb_lines,
        form: Form::Text,
        prepare: |_| prepared(ETCD_SETUP),
        run: run_lines,
    },
    Target {
        name: "script",
        about: "whole scripts, imported as the page and `raftlab run` take them, traced",
        seeds: |c| c.scripts.iter().map(|s| s.clone().into_bytes()).collect(),
        form: Form::Either,
        prepare: |_| Session::new(ClusterConfig::default()),
        run: run_import,
    },
    Target {
        name: "share",
        about: "share-link fragments (settings, script, lesson progress)",
        seeds: share_links,
        form: Form::Text,
        prepare: |_| Session::new(ClusterConfig::default()),
        run: run_share,
    },
    Target {
        name: "snapshot",
        about: "snapshot files: etcdutl snapshot status and restore, a member restarted on it",
        seeds: |_| vec![snapshot_bytes()],
        form: Form::Bytes,
        prepare: |_| prepared(ETCD_SETUP),
        run: run_snapshot,
    },
    Target {
        name: "manifest",
        about: "YAML and JSON manifests: kubectl apply, create and delete -f",
        seeds: |c| c.manifests.iter().map(|s| s.clone().into_bytes()).collect(),
        form: Form::Text,
        prepare: |_| prepared(KUBE_SETUP),
        run: run_manifest,
    },
    Target {
        name: "encryption",
        about: "EncryptionConfigurations: the API server restarted with one, a Secret written",
        seeds: |c| {
            c.encryption
                .iter()
                .map(|s| s.clone().into_bytes())
                .collect()
        },
        form: Form::Text,
        prepare: |_| prepared(KUBE_SETUP),
        run: run_encryption,
    },
    Target {
        name: "lesson",
        about: "lesson files: parsed, and their first step opened",
        seeds: |_| {
            crate::lesson::shipped::FILES
                .iter()
                .map(|(_, text)| text.as_bytes().to_vec())
                .collect()
        },
        form: Form::Text,
        prepare: |_| Session::new(ClusterConfig::default()),
        run: run_lesson,
    },
];

const ETCD_SETUP: &str = "wait leader
etcdctl put foo bar
etcdctl put dir/a 1
etcdctl lease grant 600
";

const KUBE_SETUP: &str = "wait leader
kube up
kubectl create deployment web --image=nginx --replicas=2
wait 3s
";

/// The fixed snapshot the `snapshot` target damages: a few keys, a lease, a deletion.
fn snapshot_bytes() -> Vec<u8> {
    let mut session = prepared(ETCD_SETUP);
    session.execute("etcdctl del foo", None);
    session.execute("etcdctl snapshot save backup.db", None);
    session.files.remove("backup.db").unwrap_or_default()
}

fn prepared(setup: &str) -> Session {
    let mut session = Session::new(ClusterConfig::default());
    run_script(&mut session, setup, false);
    session
}

/// The page's console: each line (a heredoc with its body) as it is typed, and what the
/// completion offers for it.
fn run_lines(base: &Session, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let mut session = base.clone();
    let members: Vec<String> = session
        .world
        .member_ids()
        .iter()
        .map(ToString::to_string)
        .collect();
    for line in script::parse(&text).into_iter().take(4) {
        crate::console::complete::complete(&line.text, &members);
        session.execute(&line.text, line.stdin.as_deref());
    }
}

/// An imported script file, as the page's import takes it (bytes read as UTF-8 with
/// replacement, the link limits checked, the header's settings read) and traced as the trace
/// download writes it.
fn run_import(base: &Session, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    if share::check_script(&text).is_err() {
        return;
    }
    let config = share::settings_from_script(&text, &base.config);
    let _ = trace_file::replay_trace_json(&config, &text);
}

fn share_links(c: &Corpus) -> Vec<Vec<u8>> {
    let mut links: Vec<Vec<u8>> = c
        .scripts
        .iter()
        .map(|s| {
            let settings = share::settings_from_script(s, &ClusterConfig::default());
            let shared = share::Shared {
                settings,
                script: s.clone(),
            };
            share::encode(&shared).into_bytes()
        })
        .collect();
    links.push(b"lesson=05-leader-election~2&done=01-registry~1~2~3".to_vec());
    links
}

/// A link is decoded as the page opens it; its script then goes through the import path.
fn run_share(base: &Session, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let _ = share::decode_lessons(&text);
    if let Ok(Some(shared)) = share::decode(&text) {
        let _ = share::check_script(&shared.script);
        let _ = share::settings_from_script(&shared.script, &base.config);
    }
}

fn run_with_file(base: &Session, name: &str, input: &[u8], lines: &[&str]) {
    let mut session = base.clone();
    session.files.insert(name.to_string(), input.to_vec());
    for line in lines {
        session.execute(line, None);
    }
}

fn run_snapshot(base: &Session, input: &[u8]) {
    run_with_file(
        base,
        "backup.db",
        input,
        &[
            "etcdutl snapshot status backup.db -w json",
            "etcdutl snapshot restore backup.db --name m1 --initial-cluster m1=http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 --data-dir m1.etcd",
            "kill m1",
            "restart m1 --data-dir m1.etcd",
            "wait 1s",
            "etcdctl --endpoints=m1 get \"\" --prefix -w json",
        ],
    );
}

fn run_manifest(base: &Session, input: &[u8]) {
    run_with_file(
        base,
        "m.yaml",
        input,
        &[
            "kubectl apply -f m.yaml",
            "wait 2s",
            "kubectl get all -o wide",
            "kubectl create -f m.yaml -o json",
            "kubectl delete -f m.yaml",
        ],
    );
}

fn run_encryption(base: &Session, input: &[u8]) {
    run_with_file(
        base,
        "enc.yaml",
        input,
        &[
            "kube apiserver --encryption-provider-config enc.yaml",
            "kubectl create secret generic sealed --from-literal=password=s3cret",
            "etcdctl get /registry/secrets/default/sealed -w json",
            "kubectl get secret sealed -o yaml",
        ],
    );
}

fn run_lesson(_: &Session, input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    if let Ok(lesson) = Lesson::parse("fuzz.yaml", &text) {
        let _ = crate::lesson::Runner::open(lesson, 0);
    }
}

/// The target named `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
