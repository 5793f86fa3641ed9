//! The simulator's verbs on the network: partitions, isolation, latency, loss, and single
//! messages in flight.

use super::Call;
use crate::base::{parse_duration, MemberId};
use crate::console::error::ConsoleError;
use crate::console::{Output, Session};

/// `partition m1,m2 | m3,m4,m5`: links between groups are cut both ways.
pub fn partition(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let spec = call.args.join(" ");
    let mut groups = Vec::new();
    for part in spec.split('|') {
        let mut group = Vec::new();
        for name in part.split([',', ' ']).filter(|n| !n.is_empty()) {
            group.push(s.member(name)?);
        }
        if group.is_empty() {
            return Err(call.usage_because("each group needs a member"));
        }
        groups.push(group);
    }
    if groups.len() < 2 {
        return Err(call.usage_because("at least two groups"));
    }
    s.world.net.partition(&groups);
    s.done(Ok(()), call.line)
}

pub fn isolate(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [name] = call.args[..] else {
        return Err(call.usage());
    };
    let member = s.member(name)?;
    let others: Vec<MemberId> = s
        .world
        .member_ids()
        .into_iter()
        .filter(|m| *m != member)
        .collect();
    s.world.net.isolate(member, &others);
    s.done(Ok(()), call.line)
}

pub fn heal(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    if !call.args.is_empty() {
        return Err(call.usage());
    }
    s.world.net.heal();
    s.done(Ok(()), call.line)
}

pub fn latency(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let parse =
        |text: &str| parse_duration(text).ok_or_else(|| ConsoleError::duration(text, "20ms"));
    let (latency, jitter) = match call.args[..] {
        [l] => (parse(l)?, None),
        [l, "jitter", j] => (parse(l)?, Some(parse(j)?)),
        _ => return Err(call.usage()),
    };
    s.world.net.config.latency_ms = latency.max(1);
    if let Some(jitter) = jitter {
        s.world.net.config.jitter_ms = jitter;
    }
    s.record(call.line);
    Ok(Output::default())
}

/// `0.2` or `20%`.
fn probability(text: &str) -> Result<f64, ConsoleError> {
    let bad = || ConsoleError::BadProbability(text.to_string());
    let p: f64 = text.trim_end_matches('%').parse().map_err(|_| bad())?;
    let p = if text.ends_with('%') { p / 100.0 } else { p };
    if !(0.0..=1.0).contains(&p) {
        return Err(bad());
    }
    Ok(p)
}

pub fn loss(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let [p] = call.args[..] else {
        return Err(call.usage());
    };
    s.world.net.config.loss = probability(p)?;
    s.record(call.line);
    Ok(Output::default())
}

/// `drop m1 m2 [p]`: messages from m1 to m2 are lost with probability p (default 1).
pub fn drop_link(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let (from, to, p) = match call.args[..] {
        [a, b] => (s.member(a)?, s.member(b)?, 1.0),
        [a, b, p] => (s.member(a)?, s.member(b)?, probability(p)?),
        _ => return Err(call.usage()),
    };
    s.world.net.link_loss.insert((from, to), p);
    s.record(call.line);
    Ok(Output::default())
}

/// `drop-message 42`, `delay-message 42 100ms`: act on one message in flight.
pub fn message(s: &mut Session, call: &Call) -> Result<Output, ConsoleError> {
    let parse_id = |text: &str| {
        text.trim_start_matches('#')
            .parse::<u64>()
            .map_err(|_| ConsoleError::BadMessageId(text.to_string()))
    };
    let result = match (call.verb.name, &call.args[..]) {
        ("drop-message", [id]) => s.world.drop_message(parse_id(id)?),
        ("delay-message", [id, d]) => {
            let ms = parse_duration(d).ok_or_else(|| ConsoleError::BadDuration {
                text: d.to_string(),
                example: None,
            })?;
            s.world.delay_message(parse_id(id)?, ms)
        }
        _ => return Err(call.usage()),
    };
    s.done(result, call.line)
}
