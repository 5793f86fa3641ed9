//! etcd's watch guarantees (etcd API guarantees, "Watch APIs"): a watch stream is ordered by
//! revision, never delivers an event twice, has no gaps (every change in its range from its
//! start revision on, up to the last revision it delivered, is there), and a watch resumed
//! from the revision after the last one seen continues the stream exactly. A stream, its
//! resumptions concatenated, is checked against the store's own history of the same range
//! replayed from revision 1 (its MVCC record, another code path than live notification).

use crate::base::MemberId;
use crate::etcd::{Cluster, Event, EventType, WatchId, WatchRequest};
use std::collections::BTreeMap;

/// One change as a stream shows it: revision, key, put or delete, value.
type Change = (i64, Vec<u8>, EventType, Vec<u8>);

fn change(e: &Event) -> Change {
    (
        e.kv.mod_revision,
        e.kv.key.clone(),
        e.kind,
        e.kv.value.clone(),
    )
}

/// Checks `stream` (every event a watcher received from `start_revision` on, resumptions
/// included) against `truth` (the range's whole history in revision order); the first broken
/// guarantee, if any.
pub fn check_stream(stream: &[Event], start_revision: i64, truth: &[Event]) -> Result<(), String> {
    let got: Vec<Change> = stream.iter().map(change).collect();
    if let Some(w) = got.windows(2).find(|w| w[1].0 < w[0].0) {
        return Err(format!(
            "watch: out of order, revision {} after {}",
            w[1].0, w[0].0
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(dup) = got.iter().find(|c| !seen.insert((c.0, c.1.clone()))) {
        return Err(format!(
            "watch: {:?} at revision {} delivered twice",
            String::from_utf8_lossy(&dup.1),
            dup.0
        ));
    }
    let Some(last) = got.last().map(|c| c.0) else {
        return Ok(());
    };
    let want: Vec<Change> = truth
        .iter()
        .map(change)
        .filter(|c| c.0 >= start_revision && c.0 <= last)
        .collect();
    match want.iter().zip(&got).position(|(w, g)| w != g) {
        None if want.len() == got.len() => Ok(()),
        at => {
            let at = at.unwrap_or(want.len().min(got.len()));
            let show = |c: Option<&Change>| {
                c.map_or("nothing".to_string(), |c| {
                    let key = String::from_utf8_lossy(&c.1);
                    let value = match c.2 {
                        EventType::Put => format!("={:?}", String::from_utf8_lossy(&c.3)),
                        EventType::Delete => String::new(),
                    };
                    format!("{:?} {key:?}{value} at revision {}", c.2, c.0)
                })
            };
            Err(format!(
                "watch from revision {start_revision}: event {at} is {}, the history has {}",
                show(got.get(at)),
                show(want.get(at))
            ))
        }
    }
}

/// A watch on every member over one range, as a client keeps one: when its member restarts
/// the watch is gone, and the client watches again from the revision after the last one it
/// saw (etcd's clientv3 resumes so). What each received is checked against the history at
/// the end ([`check_stream`]).
pub struct Watchers {
    key: Vec<u8>,
    range_end: Vec<u8>,
    /// Per member: the watch open on it and the incarnation it was opened in, the events so
    /// far, and the revision it started from.
    streams: BTreeMap<MemberId, WatchStream>,
}

#[derive(Default)]
struct WatchStream {
    open: Option<(WatchId, u64)>,
    start: i64,
    events: Vec<Event>,
    /// Canceled (its start compacted): no more to check.
    ended: bool,
}

/// A watch of `[key, range_end)` from `start_revision`.
fn range(key: &[u8], range_end: &[u8], start_revision: i64) -> WatchRequest {
    WatchRequest {
        key: key.to_vec(),
        range_end: range_end.to_vec(),
        start_revision,
        ..WatchRequest::default()
    }
}

impl Watchers {
    /// Watchers of `[key, range_end)`, each from revision 1.
    pub fn new(key: &[u8], range_end: &[u8]) -> Watchers {
        Watchers {
            key: key.to_vec(),
            range_end: range_end.to_vec(),
            streams: BTreeMap::new(),
        }
    }

    /// Opens, reopens and reads each member's watch: call it after every event.
    pub fn serve(&mut self, cluster: &mut Cluster) {
        for ep in cluster.member_ids() {
            let incarnation = cluster.incarnation(ep);
            let running = cluster.is_running(ep);
            let s = self.streams.entry(ep).or_insert_with(|| WatchStream {
                start: 1,
                ..WatchStream::default()
            });
            if s.ended || !running {
                continue;
            }
            let id = match s.open {
                Some((id, at)) if at == incarnation => id,
                _ => {
                    let from = s.events.last().map_or(s.start, |e| e.kv.mod_revision + 1);
                    let opened = cluster.with_process(ep, |m, _| {
                        m.store.watch(range(&self.key, &self.range_end, from))
                    });
                    let Some(id) = opened else { continue };
                    s.open = Some((id, incarnation));
                    id
                }
            };
            let batch = cluster
                .with_process(ep, |m, _| m.store.take_watch_responses(id))
                .unwrap_or_default();
            for r in batch {
                s.ended |= r.canceled;
                s.events.extend(r.events);
            }
        }
    }

    /// Every stream against the history of the keys replayed from revision 1 on the member
    /// that applied the most.
    pub fn check(&self, cluster: &mut Cluster) -> Result<usize, String> {
        let ids = cluster.member_ids();
        let most = ids
            .iter()
            .copied()
            .filter(|m| cluster.is_running(*m))
            .max_by_key(|m| cluster.process(*m).map_or(0, |p| p.store.revision()));
        let Some(ep) = most else { return Ok(0) };
        let truth = cluster
            .with_process(ep, |m, _| {
                let id = m.store.watch(range(&self.key, &self.range_end, 1));
                let out = m.store.take_watch_responses(id);
                m.store.cancel_watch(id);
                out
            })
            .unwrap_or_default();
        if truth.iter().any(|r| r.canceled) {
            return Ok(0);
        }
        let truth: Vec<Event> = truth.into_iter().flat_map(|r| r.events).collect();
        let mut checked = 0;
        for (member, s) in &self.streams {
            check_stream(&s.events, s.start, &truth)
                .map_err(|e| format!("{member}'s watch: {e}"))?;
            checked += s.events.len();
        }
        Ok(checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::KeyValue;

    fn put(key: &str, rev: i64) -> Event {
        Event {
            kind: EventType::Put,
            kv: KeyValue {
                key: key.into(),
                value: format!("v{rev}").into(),
                mod_revision: rev,
                ..KeyValue::default()
            },
            prev_kv: None,
        }
    }

    #[test]
    fn ordered_unique_gapless_streams_pass_and_each_broken_guarantee_is_named() {
        let truth = vec![put("a", 2), put("b", 3), put("a", 4), put("c", 5)];
        assert_eq!(check_stream(&truth, 1, &truth), Ok(()));
        // Resumed from 3: revisions 3 and 4, so far.
        assert_eq!(check_stream(&truth[1..3], 3, &truth), Ok(()));
        assert_eq!(check_stream(&[], 9, &truth), Ok(()));
        let order = check_stream(&[put("b", 3), put("a", 2)], 1, &truth);
        assert!(order.unwrap_err().contains("out of order"));
        let twice = check_stream(&[put("a", 2), put("a", 2)], 1, &truth);
        assert!(twice.unwrap_err().contains("delivered twice"));
        let gap = check_stream(&[put("a", 2), put("a", 4)], 1, &truth);
        assert!(gap
            .unwrap_err()
            .contains("event 1 is Put \"a\"=\"v4\" at revision 4"));
        // The same change with another value (two members applied different writes).
        let mut other = put("a", 2);
        other.kv.value = b"w".to_vec();
        let differs = check_stream(&[other], 1, &truth).unwrap_err();
        assert!(
            differs.contains("is Put \"a\"=\"w\" at revision 2, the history has Put \"a\"=\"v2\""),
            "{differs}"
        );
        // A resumption from the wrong revision repeats or skips: both are caught.
        let late = check_stream(&[put("c", 5)], 4, &truth);
        assert!(late
            .unwrap_err()
            .contains("the history has Put \"a\"=\"v4\" at revision 4"));
    }
}
