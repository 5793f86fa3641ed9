//! etcdctl 3.4's environment: `ETCDCTL_API` picks the API (main.go), and every global flag
//! can be given as `ETCDCTL_<FLAG>` (`ETCDCTL_ENDPOINTS`, `ETCDCTL_CACERT`…), read by
//! `pkg/flags.SetPflagsFromEnv` when a command makes its client. Measured on Debian's
//! etcdctl 3.4.23: a flag given on the line *and* in the environment is a fatal conflict, an
//! invalid value in the environment is silently dropped, and an unknown `ETCDCTL_*` gets a
//! warning.

use super::args::{self, Parsed, GLOBAL_FLAGS};
use super::{Exit, EXIT_ERROR};
use crate::base::time::Civil;
use crate::console::shell::env::Env;
use crate::etcd::EPOCH_UNIX_MS;

/// The variable that chooses the API; main.go unsets it before the flags read the rest.
pub const API: &str = "ETCDCTL_API";

/// Why `ETCDCTL_API` stops etcdctl before it parses anything: the line for stderr.
pub fn api_refusal(env: &Env) -> Option<String> {
    match env.get(API).map(String::as_str) {
        None | Some("" | "3") => None,
        // etcdctl 3.4 runs its v2 client here, a different tool against the v2 store, which
        // Raft Lab does not simulate: say so rather than pretend.
        Some("2") => Some(
            "raftlab: ETCDCTL_API=2 selects etcdctl's v2 API, which Raft Lab does not simulate \
             (only the v3 API is); unset ETCDCTL_API or set ETCDCTL_API=3"
                .to_string(),
        ),
        Some(other) => Some(format!("unsupported API version {other}")),
    }
}

/// What every variable etcdctl reads begins with.
const PREFIX: &str = "ETCDCTL_";

/// `ETCDCTL_DIAL_TIMEOUT` for `--dial-timeout`.
fn key(flag: &str) -> String {
    format!("{PREFIX}{}", flag.to_uppercase().replace('-', "_"))
}

/// A capnslog line (`2026-01-01 00:00:05.000000 W | pkg/flags: …`) at virtual time `now`.
fn capnslog(now: crate::base::Millis, level: char, text: &str) -> String {
    let ms = EPOCH_UNIX_MS + now;
    let civil = Civil::from_unix_s((ms / 1000) as i64);
    format!(
        "{} {}.{:06} {level} | pkg/flags: {text}\n",
        civil.date(),
        civil.time_of_day(),
        ms % 1000 * 1000
    )
}

/// Fills the global flags not given on the line from `env`; `stderr` gets the warnings.
/// Errors: a variable whose flag was also given (capnslog's fatal line, exit 1).
pub fn apply(
    env: &Env,
    p: &mut Parsed,
    now: crate::base::Millis,
    stderr: &mut String,
) -> Result<(), Exit> {
    // Nothing to fill, refuse or warn about: the usual case, where building each flag's
    // variable name to look it up cost 7 % of a whole put.
    if !env
        .keys()
        .any(|name| name.starts_with(PREFIX) && name != API)
    {
        return Ok(());
    }
    let mut used = Vec::new();
    for f in GLOBAL_FLAGS {
        let k = key(f.name);
        if let Some(value) = env.get(&k).filter(|v| !v.is_empty() && !p.is_set(f.name)) {
            // 3.4 ignores what SetPflagsFromEnv returns: a bad value leaves the default.
            let _ = args::set_from_env(p, f, value);
            used.push(k);
        }
    }
    for (name, value) in env {
        if used.contains(name) || name == API {
            continue;
        }
        if GLOBAL_FLAGS
            .iter()
            .any(|f| key(f.name) == *name && p.is_set(f.name))
        {
            stderr.push_str(&capnslog(now, 'C', &format!("conflicting environment variable {name:?} is shadowed by corresponding command-line flag (either unset environment variable or disable flag)")));
            return Err(Exit::quiet(EXIT_ERROR));
        }
        if name.starts_with(PREFIX) {
            stderr.push_str(&capnslog(
                now,
                'W',
                &format!("unrecognized environment variable {name}={value}"),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::etcdctl::args::{parse, Spec};

    const SPEC: Spec = Spec {
        path: "get",
        use_line: "get",
        short: "",
        flags: &[],
    };

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    fn parsed(line: &[&str]) -> Parsed {
        let words: Vec<String> = line.iter().map(|w| (*w).to_string()).collect();
        parse(&SPEC, &words).unwrap()
    }

    #[test]
    fn the_environment_fills_the_flags_not_given() {
        let e = env(&[
            ("ETCDCTL_ENDPOINTS", "https://127.0.0.1:2379"),
            ("ETCDCTL_CACERT", "/etc/kubernetes/pki/etcd/ca.crt"),
            ("ETCDCTL_WRITE_OUT", "json"),
            ("ETCDCTL_DIAL_TIMEOUT", "bogus"),
            ("ETCDCTL_API", "3"),
        ]);
        let mut p = parsed(&["k"]);
        let mut stderr = String::new();
        apply(&e, &mut p, 0, &mut stderr).unwrap();
        assert_eq!(p.str("endpoints"), Some("https://127.0.0.1:2379"));
        assert_eq!(p.str("cacert"), Some("/etc/kubernetes/pki/etcd/ca.crt"));
        assert_eq!(p.str("write-out"), Some("json"));
        assert_eq!(p.str("dial-timeout"), None, "a bad value is dropped");
        assert_eq!(
            stderr, "",
            "ETCDCTL_API and used variables are not warned about"
        );
    }

    #[test]
    fn a_flag_and_its_variable_together_are_fatal() {
        let e = env(&[("ETCDCTL_ENDPOINTS", "m1")]);
        let mut p = parsed(&["--endpoints=m2", "k"]);
        let mut stderr = String::new();
        let exit = apply(&e, &mut p, 5_000, &mut stderr).unwrap_err();
        assert_eq!(exit.code, EXIT_ERROR);
        assert_eq!(stderr, "2026-01-01 00:00:05.000000 C | pkg/flags: conflicting environment variable \"ETCDCTL_ENDPOINTS\" is shadowed by corresponding command-line flag (either unset environment variable or disable flag)\n");
    }

    #[test]
    fn unknown_variables_warn_and_the_api_is_checked() {
        let mut stderr = String::new();
        apply(
            &env(&[("ETCDCTL_KEYS_ONLY", "true"), ("HOME", "/root")]),
            &mut parsed(&["k"]),
            0,
            &mut stderr,
        )
        .unwrap();
        assert_eq!(stderr, "2026-01-01 00:00:00.000000 W | pkg/flags: unrecognized environment variable ETCDCTL_KEYS_ONLY=true\n");
        assert_eq!(api_refusal(&env(&[("ETCDCTL_API", "3")])), None);
        assert_eq!(api_refusal(&env(&[])), None);
        assert_eq!(
            api_refusal(&env(&[("ETCDCTL_API", "4")])).as_deref(),
            Some("unsupported API version 4")
        );
        assert!(api_refusal(&env(&[("ETCDCTL_API", "2")]))
            .unwrap()
            .contains("does not simulate"));
    }
}
