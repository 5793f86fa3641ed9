//! Every message of the recent past, read from the engine's exact wire log
//! (`Sim::wire_since`) after each frame: what the space-time diagram and the message
//! inspector draw once a message has left the wire.

use crate::base::Millis;
use crate::etcd::Cluster as World;
use crate::sim::InFlight;
use std::collections::BTreeMap;

/// Virtual time the diagram shows (the most recent part of the run).
pub const WINDOW_MS: Millis = 1_500;
// What the page draws after a rewind comes from a checkpoint's wire records.
const _: () = assert!(2 * WINDOW_MS <= crate::console::CHECKPOINT_WIRE_MS);
const KEEP: usize = 600;
/// Arrows the diagram draws at most, the newest: a busy control plane sends hundreds in the
/// window, more than anyone reads, and every arrow moves as the window slides, so a frame
/// that redrew 600 of them held the page for 100 ms and more.
pub const ARROWS_SHOWN: usize = 200;
/// Wire records the world keeps for the page (a frame at 100× reads well under this).
pub const WIRE_LOG: usize = 4_096;

/// One message as seen on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub message: InFlight,
    /// It left the wire before its arrival time: lost by the network or dropped by hand.
    pub vanished_ms: Option<Millis>,
}

/// Every message of the recent past, read from the world's wire log after each frame.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    seen: BTreeMap<u64, Seen>,
    /// The last wire record read.
    cursor: u64,
}

impl Recorder {
    pub fn observe(&mut self, world: &World) {
        let now = world.now();
        // A message lost on the wire is drawn going half its usual way, then crossed out.
        let half_way = world.net.config.latency_ms.max(2) / 2;
        let oldest = now.saturating_sub(WINDOW_MS * 2);
        for w in world.wire_since(self.cursor) {
            let sent_ms = w.message.sent_ms;
            // Gone before the kept past whatever its later records say: a long run's frame
            // reads thousands of such records, and each was inserted only to be dropped.
            let settled = w.message.arrive_ms.max(sent_ms + 2 * half_way);
            if settled < oldest && !self.seen.contains_key(&w.message.id) {
                continue;
            }
            let entry = self.seen.entry(w.message.id).or_insert_with(|| Seen {
                message: InFlight {
                    arrive_ms: sent_ms,
                    ..w.message.clone()
                },
                vanished_ms: None,
            });
            let m = &mut entry.message;
            match &w.lost {
                None => {
                    m.arrive_ms = w.message.arrive_ms; // a held-back message arrives later
                    entry.vanished_ms = None;
                }
                Some(_) if m.arrive_ms > sent_ms => {
                    // Dropped by hand while in flight: it vanishes then.
                    entry.vanished_ms = Some(w.at_ms.min(m.arrive_ms));
                }
                Some(_) => {
                    m.arrive_ms = sent_ms + 2 * half_way;
                    entry.vanished_ms = Some(sent_ms + half_way);
                }
            }
        }
        self.cursor = world.wire_seq();
        self.seen.retain(|_, s| s.message.arrive_ms >= oldest);
        while self.seen.len() > KEEP {
            self.seen.pop_first();
        }
    }

    /// After a rewind to `t`: forget what was sent after it, and read the (re-run) world's
    /// wire log again from its start (the same run sends the same messages, ids included).
    pub fn forget_after(&mut self, t: Millis) {
        self.seen.retain(|_, s| s.message.sent_ms <= t);
        for s in self.seen.values_mut() {
            if s.vanished_ms.is_some_and(|v| v > t) {
                s.vanished_ms = None;
            }
        }
        self.cursor = 0;
    }

    pub fn get(&self, id: u64) -> Option<&Seen> {
        self.seen.get(&id)
    }

    pub fn messages(&self) -> impl Iterator<Item = &Seen> {
        self.seen.values()
    }

    /// The messages the space-time diagram draws at `now`: the newest [`ARROWS_SHOWN`] of
    /// those it shows, in send order; and how many it shows.
    pub fn drawn(&self, now: Millis) -> (Vec<&Seen>, usize) {
        let mut all: Vec<&Seen> = self.shown(now).collect();
        let total = all.len();
        all.drain(..total.saturating_sub(ARROWS_SHOWN));
        (all, total)
    }

    /// The messages the space-time diagram shows at `now` (on the wire during its window), in
    /// send order.
    pub fn shown(&self, now: Millis) -> impl Iterator<Item = &Seen> {
        let start = now.saturating_sub(WINDOW_MS);
        self.messages().filter(move |s| {
            s.message.arrive_ms >= start || s.vanished_ms.is_some_and(|v| v >= start)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::console::Session;
    use crate::etcd::ClusterConfig;

    fn session(setup: &[&str]) -> Session {
        let mut session = Session::new(ClusterConfig::new(3, 7));
        session.set_wire_log(WIRE_LOG);
        for line in setup {
            session.execute(line, None);
        }
        session
    }

    /// Runs `ms` in steps of a frame, observing after each one as the page does.
    fn record(session: &mut Session, recorder: &mut Recorder, ms: Millis) {
        for _ in 0..ms / 20 {
            session.run_for(20);
            recorder.observe(&session.world);
        }
    }

    /// A busy window (the control plane's requests on a fast network) draws its newest
    /// arrows, in send order, and says how many it holds; a quiet one draws them all.
    #[test]
    fn a_busy_window_draws_its_newest_arrows() {
        let (mut s, mut recorder) = (session(&["wait leader"]), Recorder::default());
        record(&mut s, &mut recorder, 2_000);
        let (quiet, in_window) = recorder.drawn(s.world.now());
        assert_eq!(quiet.len(), in_window, "heartbeats alone are all drawn");
        let create = "kubectl create deployment web --image=nginx --replicas=30";
        for line in ["latency 2ms", "kube up", create] {
            s.execute(line, None);
        }
        record(&mut s, &mut recorder, 1_000);
        let now = s.world.now();
        let (drawn, total) = recorder.drawn(now);
        assert!(total > ARROWS_SHOWN, "{total} messages in the window");
        let all: Vec<u64> = recorder.shown(now).map(|m| m.message.id).collect();
        let ids: Vec<u64> = drawn.iter().map(|m| m.message.id).collect();
        assert_eq!(ids, all[total - ARROWS_SHOWN..]);
    }

    #[test]
    fn every_message_is_received_after_it_was_sent_and_ids_follow_send_order() {
        let (mut session, mut recorder) =
            (session(&["latency 30ms jitter 10ms"]), Recorder::default());
        record(&mut session, &mut recorder, 3_000);
        let seen: Vec<&Seen> = recorder.messages().collect();
        assert!(
            seen.len() > 10,
            "a 3-member election and heartbeats send messages"
        );
        for s in &seen {
            assert!(
                s.message.sent_ms <= s.message.arrive_ms,
                "#{} arrives before it is sent",
                s.message.id
            );
            assert!(s.message.from != s.message.to);
        }
        for pair in seen.windows(2) {
            assert!(pair[0].message.id < pair[1].message.id);
            assert!(
                pair[0].message.sent_ms <= pair[1].message.sent_ms,
                "ids follow the send order"
            );
        }
        let oldest = session.world.now() - 2 * WINDOW_MS;
        assert!(
            seen.iter().all(|s| s.message.arrive_ms >= oldest),
            "only the recent past is kept"
        );
        let first = seen[0].message.id;
        assert_eq!(recorder.get(first).map(|s| s.message.id), Some(first));
    }

    /// A long run's frame reads the wire once after many seconds: it keeps what frames
    /// reading it every 20 ms keep, lost messages too.
    #[test]
    fn a_long_run_read_at_once_keeps_what_frames_keep() {
        let setup = ["latency 40ms jitter 10ms", "loss 20%", "wait leader"];
        let (mut framed, mut by_frames) = (session(&setup), Recorder::default());
        let (mut at_once, mut once) = (framed.clone(), Recorder::default());
        record(&mut framed, &mut by_frames, 10_000);
        at_once.run_for(10_000);
        once.observe(&at_once.world);
        let kept: Vec<&Seen> = by_frames.messages().collect();
        assert!(
            kept.iter().any(|s| s.vanished_ms.is_some()),
            "some are lost"
        );
        assert!(kept.len() > 20, "{} kept", kept.len());
        assert_eq!(once.messages().collect::<Vec<_>>(), kept);
    }

    #[test]
    fn a_lost_message_vanishes_half_way() {
        let (mut session, mut recorder) =
            (session(&["latency 40ms", "loss 100%"]), Recorder::default());
        record(&mut session, &mut recorder, 3_000);
        let lost: Vec<&Seen> = recorder.messages().collect();
        assert!(!lost.is_empty(), "candidates keep asking for votes");
        for s in lost {
            let m = &s.message;
            assert_eq!(s.vanished_ms, Some(m.sent_ms + 20), "#{}", m.id);
            assert_eq!(m.arrive_ms, m.sent_ms + 40);
        }
    }

    #[test]
    fn after_a_rewind_the_same_run_is_recorded_again() {
        let (mut session, mut recorder) = (session(&[]), Recorder::default());
        record(&mut session, &mut recorder, 2_000);
        let before: Vec<Seen> = recorder.messages().cloned().collect();
        let t: Millis = 1_500;
        assert!(session.rewind_to(t).is_ok());
        recorder.forget_after(t);
        assert!(recorder.messages().all(|s| s.message.sent_ms <= t));
        assert!(recorder
            .messages()
            .all(|s| s.vanished_ms.is_none_or(|v| v <= t)));
        record(&mut session, &mut recorder, 500);
        let after: Vec<Seen> = recorder.messages().cloned().collect();
        assert_eq!(after, before, "the engine is deterministic, ids included");
    }
}
