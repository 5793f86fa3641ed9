//! `crictl ps` on the console's machine (cri-tools 1.31 against containerd): the containers
//! the kubelet runs there for the static pods, in crictl's own table (`cmd/crictl/
//! container.go` `OutputContainers`). Only the kubeadm world's machine is a node; elsewhere
//! no container runtime listens, and crictl says so as it does.

use super::Call;
use crate::base::Millis;
use crate::console::error::ConsoleError;
use crate::console::{Output, Session};
use crate::kube::{Container, ContainerState};

/// What crictl prints (on stderr, exit 1) when containerd's socket is not there.
const NO_RUNTIME: &str = "FATA[0000] validate service connection: validate CRI v1 runtime API for endpoint \"unix:///run/containerd/containerd.sock\": rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial unix /run/containerd/containerd.sock: connect: no such file or directory\"\n";

fn failed(stderr: String, code: i32) -> Output {
    Output {
        stderr,
        code,
        ..Output::default()
    }
}

/// `crictl ps [-a] [-q] [--name REGEX]`.
pub fn crictl(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let Some((command, flags)) = call.args.split_first() else {
        return Ok(failed(
            "usage: crictl ps [-a] [-q] [--name REGEX] (the other commands are not simulated)\n"
                .into(),
            1,
        ));
    };
    if *command != "ps" {
        // urfave/cli's answer to a command it does not have.
        return Ok(failed(format!("No help topic for '{command}'\n"), 3));
    }
    let options = match PsOptions::parse(flags) {
        Ok(options) => options,
        Err(e) => return Ok(failed(e, 1)),
    };
    let Some(kube) = s.kube.as_ref().filter(|k| !k.containers().is_empty()) else {
        return Ok(failed(NO_RUNTIME.into(), 1));
    };
    let now = s.world.now();
    let shown: Vec<&Container> = kube
        .containers()
        .into_iter()
        .filter(|c| options.all || c.state == ContainerState::Running)
        .filter(|c| options.name.as_ref().is_none_or(|re| re.is_match(c.name)))
        .collect();
    if options.quiet {
        return Ok(Output::ok(
            shown.iter().map(|c| format!("{}\n", c.id)).collect(),
        ));
    }
    Ok(Output::ok(table(&shown, now)))
}

struct PsOptions {
    all: bool,
    quiet: bool,
    name: Option<regex_lite::Regex>,
}

impl PsOptions {
    fn parse(flags: &[&str]) -> Result<PsOptions, String> {
        let mut options = PsOptions {
            all: false,
            quiet: false,
            name: None,
        };
        let mut flags = flags.iter();
        while let Some(flag) = flags.next() {
            match *flag {
                "-a" | "--all" => options.all = true,
                "-q" | "--quiet" => options.quiet = true,
                "--name" => {
                    let Some(pattern) = flags.next() else {
                        return Err("FATA[0000] flag needs an argument: -name\n".into());
                    };
                    let re = regex_lite::Regex::new(pattern)
                        .map_err(|e| format!("FATA[0000] list containers: {e}\n"))?;
                    options.name = Some(re);
                }
                other => {
                    let name = other.trim_start_matches('-');
                    return Err(format!(
                        "FATA[0000] flag provided but not defined: -{name}\n"
                    ));
                }
            }
        }
        Ok(options)
    }
}

/// The rows as crictl's tabwriter pads them (minimum width 20, padding 3).
fn table(containers: &[&Container], now: Millis) -> String {
    let header = [
        "CONTAINER",
        "IMAGE",
        "CREATED",
        "STATE",
        "NAME",
        "ATTEMPT",
        "POD ID",
        "POD",
        "NAMESPACE",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for c in containers {
        let state = match c.state {
            ContainerState::Running => "Running",
            ContainerState::Exited => "Exited",
        };
        rows.push(vec![
            c.id[..13].to_string(),
            c.image_id[..13].to_string(),
            format!("{} ago", human_duration(now.saturating_sub(c.created_ms))),
            state.to_string(),
            c.name.to_string(),
            c.attempt.to_string(),
            c.pod_id[..13].to_string(),
            c.pod.clone(),
            "kube-system".to_string(),
        ]);
    }
    tabwriter(&rows, 20, 3)
}

/// Go's `text/tabwriter` with a minimum cell width and padding: every cell but a line's
/// last is as wide as its column's widest cell plus the padding, at least `min`.
fn tabwriter(rows: &[Vec<String>], min: usize, padding: usize) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            let widest = rows
                .iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0);
            (widest + padding).max(min)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count();
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

/// docker/go-units `HumanDuration`, which crictl's CREATED column uses.
fn human_duration(ms: Millis) -> String {
    let seconds = ms / 1000;
    let minutes = seconds / 60;
    // go-units rounds hours to the nearest one.
    let hours = (ms + 1_800_000) / 3_600_000;
    match () {
        _ if seconds < 1 => "Less than a second".into(),
        _ if seconds == 1 => "1 second".into(),
        _ if seconds < 60 => format!("{seconds} seconds"),
        _ if minutes == 1 => "About a minute".into(),
        _ if minutes < 60 => format!("{minutes} minutes"),
        _ if hours == 1 => "About an hour".into(),
        _ if hours < 48 => format!("{hours} hours"),
        _ if hours < 24 * 7 * 2 => format!("{} days", hours / 24),
        _ if hours < 24 * 30 * 2 => format!("{} weeks", hours / 24 / 7),
        _ if hours < 24 * 365 * 2 => format!("{} months", hours / 24 / 30),
        _ => format!("{} years", ms / 3_600_000 / 24 / 365),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::ClusterConfig;

    #[test]
    fn the_kubeadm_console_follows_its_manifests_and_kubectl_is_refused_meanwhile() {
        let mut s = Session::new(ClusterConfig::kubeadm(1));
        let ps = s.execute("sudo crictl ps", None);
        assert_eq!(ps.code, 0, "{}", ps.stderr);
        let lines: Vec<&str> = ps.stdout.lines().collect();
        assert!(lines[0].starts_with("CONTAINER           IMAGE               CREATED"));
        assert!(
            lines[0].ends_with("POD ID              POD                              NAMESPACE")
        );
        assert_eq!(lines.len(), 5, "{}", ps.stdout);
        assert!(lines.iter().any(|l| l.contains("   etcd-master   ")));
        let moved = s.execute(
            "sudo mv /etc/kubernetes/manifests/kube-apiserver.yaml /tmp/",
            None,
        );
        assert_eq!(moved.code, 0, "{}", moved.stderr);
        let refused = s.execute("kubectl get nodes", None);
        assert_eq!(
            (refused.stderr.as_str(), refused.code),
            ("The connection to the server 10.140.0.33:6443 was refused - did you specify the right host or port?\n", 1)
        );
        let grep = s.execute("sudo crictl ps | grep -E \"etcd|kube-apiserver\"", None);
        assert_eq!(
            grep.stdout.lines().count(),
            1,
            "etcd still runs: {}",
            grep.stdout
        );
        s.execute(
            "sudo mv /tmp/kube-apiserver.yaml /etc/kubernetes/manifests/",
            None,
        );
        s.execute("sleep 5", None);
        let nodes = s.execute("kubectl get nodes", None);
        assert_eq!(nodes.code, 0, "{}", nodes.stderr);
        assert!(
            nodes.stdout.contains("master   Ready    control-plane"),
            "{}",
            nodes.stdout
        );
        assert_eq!(
            s.execute("crictl -q ps", None).code,
            3,
            "a command crictl has not"
        );
        assert!(s
            .execute("crictl ps -q", None)
            .stdout
            .lines()
            .all(|l| l.len() == 64));
        assert_eq!(
            s.execute("crictl ps --bogus", None).stderr,
            "FATA[0000] flag provided but not defined: -bogus\n"
        );
    }

    #[test]
    fn without_a_kubeadm_machine_no_runtime_answers() {
        let mut s = Session::new(ClusterConfig::new(3, 1));
        let out = s.execute("crictl ps", None);
        assert_eq!((out.stderr.as_str(), out.code), (NO_RUNTIME, 1));
    }

    #[test]
    fn a_kubeadm_run_exports_a_script_that_replays_it() {
        // The API server first: one waiting on a stopped etcd lets its requests time out,
        // which a replay of the wait does not repeat alike (as in any world).
        let mut s = Session::new(ClusterConfig::kubeadm(3));
        s.execute(
            "sudo mv /etc/kubernetes/manifests/kube-apiserver.yaml /tmp/",
            None,
        );
        s.execute("sleep 2", None);
        s.execute("sudo mv /etc/kubernetes/manifests/etcd.yaml /tmp/", None);
        let script = s.export_script();
        assert!(
            script.starts_with("# raftlab run --world kubeadm --seed 3\nsudo mv"),
            "{script}"
        );
        let mut again = Session::new(ClusterConfig::kubeadm(3));
        crate::console::run_script(&mut again, &script, false);
        assert_eq!(again.world.now(), s.world.now(), "{script}");
        assert_eq!(again.world.trace_hash(), s.world.trace_hash());
        assert!(!again.world.is_running(crate::base::MemberId(1)));
        assert_eq!(again.files, s.files);
    }

    #[test]
    fn created_reads_as_go_units_says_it() {
        assert_eq!(human_duration(500), "Less than a second");
        assert_eq!(human_duration(1_000), "1 second");
        assert_eq!(human_duration(42_000), "42 seconds");
        assert_eq!(human_duration(90_000), "About a minute");
        assert_eq!(human_duration(59 * 60_000), "59 minutes");
        assert_eq!(human_duration(60 * 60_000), "About an hour");
        assert_eq!(human_duration(5 * 3_600_000), "5 hours");
        assert_eq!(human_duration(72 * 3_600_000), "3 days");
    }

    #[test]
    fn tabwriter_pads_to_twenty_at_least() {
        let rows = vec![
            vec!["A".to_string(), "B".to_string()],
            vec!["a-long-cell-of-21-chr".to_string(), "x".to_string()],
        ];
        assert_eq!(
            tabwriter(&rows, 20, 3),
            format!("A{}B\na-long-cell-of-21-chr   x\n", " ".repeat(23))
        );
    }
}
