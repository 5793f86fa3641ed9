//! Watchers (etcd `mvcc/watchable_store.go`): member-local, not part of the replicated state
//! or the snapshot. A watcher from a past revision first gets the history from the backend
//! (batched), then one response per applied revision; the layer above pulls responses with
//! `Store::take_watch_responses`.

use super::kv::KeyValue;
use crate::base::Revision;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A watcher's ID, unique within one store.
pub type WatchId = i64;

/// At most this many revisions of history per response (etcd `watchBatchMaxRevs`).
pub const WATCH_BATCH_MAX_REVS: usize = 1000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchRequest {
    pub key: Vec<u8>,
    /// Same rules as a range: empty = one key, `[0]` = every key `>= key`.
    pub range_end: Vec<u8>,
    /// 0 = from the next revision; `<= current` replays history from there.
    pub start_revision: Revision,
    pub prev_kv: bool,
    pub no_put: bool,
    pub no_delete: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventType {
    Put,
    Delete,
}

/// One change. A DELETE's `kv` has only `key` and `mod_revision` (the deletion revision).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub kind: EventType,
    pub kv: KeyValue,
    pub prev_kv: Option<KeyValue>,
}

/// One message on a watch stream.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchResponse {
    pub watch_id: WatchId,
    /// Header revision: the event revision for live events, the store's revision for history,
    /// 0 for a cancel.
    pub revision: Revision,
    pub events: Vec<Event>,
    /// Set with `canceled` when the start revision was compacted.
    pub compact_revision: Revision,
    pub canceled: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Watcher {
    pub req: WatchRequest,
    /// Events below this revision are not for this watcher.
    pub min_rev: Revision,
    pub queue: Vec<WatchResponse>,
    pub canceled: bool,
}

impl Watcher {
    pub fn covers(&self, key: &[u8]) -> bool {
        key_in_range(key, &self.req.key, &self.req.range_end)
    }

    pub fn wants(&self, kind: EventType) -> bool {
        match kind {
            EventType::Put => !self.req.no_put,
            EventType::Delete => !self.req.no_delete,
        }
    }
}

/// Whether `key` falls in `[start, end)` with etcd's range conventions.
pub fn key_in_range(key: &[u8], start: &[u8], end: &[u8]) -> bool {
    if end.is_empty() {
        key == start
    } else if end == [0] {
        key >= start
    } else {
        key >= start && key < end
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Watchers {
    pub next_id: WatchId,
    pub by_id: BTreeMap<WatchId, Watcher>,
}

impl Watchers {
    pub fn any_wants_prev_kv(&self) -> bool {
        self.by_id.values().any(|w| w.req.prev_kv && !w.canceled)
    }

    /// Queues one response per interested watcher for the events of revision `rev`.
    pub fn notify(&mut self, rev: Revision, events: &[Event]) {
        for (&id, w) in self.by_id.iter_mut() {
            if w.canceled || rev < w.min_rev {
                continue;
            }
            let mine: Vec<Event> = events
                .iter()
                .filter(|e| w.covers(&e.kv.key) && w.wants(e.kind))
                .map(|e| Event {
                    kind: e.kind,
                    kv: e.kv.clone(),
                    prev_kv: if w.req.prev_kv {
                        e.prev_kv.clone()
                    } else {
                        None
                    },
                })
                .collect();
            if !mine.is_empty() {
                w.queue.push(WatchResponse {
                    watch_id: id,
                    revision: rev,
                    events: mine,
                    ..Default::default()
                });
            }
        }
    }
}
