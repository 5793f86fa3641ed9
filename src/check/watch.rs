//! etcd's watch guarantees (etcd API guarantees, "Watch APIs"): a watch stream is ordered by
//! revision, never delivers an event twice, has no gaps (every change in its range from its
//! start revision on, up to the last revision it delivered, is there), and a watch resumed
//! from the revision after the last one seen continues the stream exactly. A stream, its
//! resumptions concatenated, is checked against the store's own history of the same range
//! replayed from revision 1 (its MVCC record, another code path than live notification).

use crate::etcd::{Event, EventType};

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
                    format!(
                        "{:?} {:?} at revision {}",
                        c.2,
                        String::from_utf8_lossy(&c.1),
                        c.0
                    )
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
            .contains("event 1 is Put \"a\" at revision 4"));
        // A resumption from the wrong revision repeats or skips: both are caught.
        let late = check_stream(&[put("c", 5)], 4, &truth);
        assert!(late
            .unwrap_err()
            .contains("the history has Put \"a\" at revision 4"));
    }
}
