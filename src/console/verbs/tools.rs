//! The real tools (etcdctl, etcdutl, kubectl, coreutils' `timeout`) and the few shell builtins
//! the course material uses around them (`echo`, `date`, and `write`, our `cat > FILE`).
//! Every call of a real tool is recorded, failed or not: requests take virtual time, and
//! replaying a run must take it again.

use super::Call;
use crate::base::parse_duration;
use crate::console::error::ConsoleError;
use crate::console::later::Tool;
use crate::console::{etcdctl, shell, Aside, Hint, Output, Session};

fn recorded(s: &mut Session, call: &Call, out: Output) -> Result<Output, ConsoleError> {
    s.record_with_stdin(call.line, call.stdin);
    Ok(out)
}

pub fn etcdctl(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let out = etcdctl::etcdctl(s, call.words, call.stdin, call.env);
    tool_recorded(s, call, out)
}

/// A tool's command is recorded when it returns, or at the end of the work it left running.
fn tool_recorded(s: &mut Session, call: &Call, out: Output) -> Result<Output, ConsoleError> {
    if s.later.is_some() {
        return Ok(out);
    }
    recorded(s, call, out)
}

pub fn etcdutl(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let out = etcdctl::etcdutl(s, call.words, call.stdin);
    recorded(s, call, out)
}

// kube: kubectl talks to the mock apiserver (refused before `kube up`).
pub fn kubectl(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let (out, waiting) = crate::console::kubectl::kubectl(
        s.kube.as_mut(),
        &mut s.world,
        &s.files,
        call.words,
        call.stdin,
    );
    if let Some(waiting) = waiting {
        s.continue_later(Tool::Kubectl(Box::new(waiting)));
    }
    // The API server is the kube layer's own; that it is not up yet, the error cannot say.
    let hint = (out.code != 0 && s.kube.is_none()).then_some(Aside::Hint(Hint::KubeNotUp));
    let out = Output {
        aside: hint,
        ..out.into()
    };
    tool_recorded(s, call, out)
}

/// coreutils' `timeout N etcdctl …`, or the simulator's `timeout MEMBER`.
pub fn timeout(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [secs, tool, rest @ ..] = call.words else {
        return super::cluster::member_action(s, call);
    };
    if tool != "etcdctl" {
        return super::cluster::member_action(s, call);
    }
    // A bare number is seconds.
    let limit = match secs.parse::<u64>() {
        Ok(whole_seconds) => whole_seconds.checked_mul(1000),
        Err(_) => parse_duration(secs),
    };
    let out = match limit {
        Some(limit) if limit > crate::console::WAIT_LIMIT_MS => {
            return Err(super::cluster::too_long(&format!("timeout {secs}")));
        }
        Some(limit) => {
            let out = etcdctl::etcdctl_timeout(s, rest, call.stdin, call.env, limit);
            return tool_recorded(s, call, out);
        }
        None => Output {
            stderr: format!("timeout: invalid time interval '{secs}'\n"),
            code: 125,
            ..Output::default()
        },
    };
    recorded(s, call, out)
}

/// `write FILE <<EOF`: puts the heredoc into FILE (a manifest, an EncryptionConfiguration),
/// as `cat > FILE` would.
pub fn write_file(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [path] = call.args[..] else {
        return Err(call.usage());
    };
    let text = call.stdin.unwrap_or("");
    s.files
        .insert(shell::fs::key(path), text.as_bytes().to_vec());
    recorded(s, call, Output::default())
}

pub fn echo(_: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    Ok(Output::ok(format!("{}\n", call.args.join(" "))))
}

pub fn date(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    Ok(Output::ok(shell::date(&call.args, s.world.now())?))
}

/// `clear`: the page empties its console; a script has no screen, so nothing happens (bash's
/// `clear` writes terminal escapes, which would only garble a transcript). Not recorded: it
/// changes nothing in the world.
pub fn clear(_: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    if !call.args.is_empty() {
        return Err(call.usage());
    }
    Ok(Output {
        aside: Some(Aside::ClearScreen),
        ..Output::default()
    })
}
