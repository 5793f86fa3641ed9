//! Time travel: copies of the session taken as virtual time passes, and the rewind that starts
//! from the latest copy before a moment and replays the recorded commands up to it.

use super::error::ConsoleError;
use super::session::Session;
use crate::base::{format_duration, Millis};
use crate::check::Monitor;
use crate::etcd::Cluster;
use std::collections::BTreeMap;

/// Virtual time between checkpoints (doubles when too many pile up).
const CHECKPOINT_EVERY_MS: Millis = 1_000;
/// Checkpoints of the last [`RECENT_MS`]: a rewind there replays at most the spacing.
pub(super) const MAX_CHECKPOINTS: usize = 256;
pub(super) const RECENT_MS: Millis = 3_600_000;
/// ...and of the last [`RECENT_GROWTH`] of the world's growth (revisions written plus log
/// entries appended, summed over the members): a checkpoint holds what changed since the one
/// before, so a busy cluster's dense span is the memory, not their number (at 100 writes/s
/// on 3 members, 256 checkpoints held 105 MB after 600 s; this keeps the last ~100 s dense).
pub(super) const RECENT_GROWTH: u64 = 60_000;
/// Older moments keep only this many checkpoints (and the first), spread over the run: each
/// holds a world that shares little with the present, so their number bounds the memory.
pub(super) const MAX_OLD_CHECKPOINTS: usize = 8;
/// The wire records a checkpoint keeps: those of its last seconds, which the page draws
/// after a rewind (its space-time diagram shows 1.5 s, and keeps twice that); each
/// checkpoint kept its own copy of the whole wire log, thousands of records (10 MB of an
/// idle hour's wasm heap).
pub const CHECKPOINT_WIRE_MS: Millis = 5_000;

/// A copy of the session's state, to travel back in time quickly.
#[derive(Clone, Debug)]
struct Checkpoint {
    world: Cluster,
    kube: Option<crate::kube::ControlPlane>,
    files: BTreeMap<String, Vec<u8>>,
    monitor: Option<Monitor>,
    vars: crate::console::shell::env::Vars,
    history_len: usize,
    /// The world's growth since the start when it was taken (see [`RECENT_GROWTH`]).
    grown: u64,
}

/// Revisions written plus entries on disk, over the members: what grows as the world writes.
fn size(world: &Cluster) -> u64 {
    let member =
        |m: &crate::etcd::Member| m.store.revision().max(0) as u64 + m.durable.last_index();
    world.processes().map(|(_, m)| member(m)).sum()
}

/// The checkpoints kept: dense over the last hour, few before it, and always the first.
#[derive(Clone, Debug)]
pub struct Timeline {
    checkpoints: Vec<Checkpoint>,
    every_ms: Millis,
    /// [`size`] at the newest checkpoint: growth is counted from it (a restore or a
    /// member's removal shrinks the size; that is no growth).
    size: u64,
    /// [`RECENT_GROWTH`], smaller in tests.
    recent_growth: u64,
    /// Checkpoints taken since the start, the thinned ones too (for tests).
    #[cfg(test)]
    made: u64,
}

impl Timeline {
    /// A timeline whose first moment is the world as given (a preset's may have Kubernetes up
    /// and files on its machine already).
    pub fn new(
        world: &Cluster,
        kube: Option<&crate::kube::ControlPlane>,
        files: &BTreeMap<String, Vec<u8>>,
    ) -> Timeline {
        let first = Checkpoint {
            world: world.clone(),
            kube: kube.cloned(),
            files: files.clone(),
            monitor: None,
            vars: crate::console::shell::env::Vars::default(),
            history_len: 0,
            grown: 0,
        };
        Timeline {
            checkpoints: vec![first],
            every_ms: CHECKPOINT_EVERY_MS,
            size: size(world),
            recent_growth: RECENT_GROWTH,
            #[cfg(test)]
            made: 0,
        }
    }

    #[cfg(test)]
    pub(super) fn set_recent_growth(&mut self, growth: u64) {
        self.recent_growth = growth;
    }

    /// Every checkpoint gets checkers, so that every rewind finds some.
    pub fn watch_invariants(&mut self) {
        for c in &mut self.checkpoints {
            c.monitor.get_or_insert_with(Monitor::new);
        }
    }

    pub fn set_wire_log(&mut self, keep: usize) {
        for c in &mut self.checkpoints {
            c.world.set_wire_log(keep);
        }
    }

    /// A wait until `end` begins: the spacing that thinning would reach by then is taken
    /// now, instead of checkpoints made densely only to be dropped as they pile up (an
    /// hour's wait made ~740 to keep ~230). A rewind lands as exactly either way.
    pub(super) fn expect_until(&mut self, end: Millis) {
        let horizon = end.saturating_sub(RECENT_MS);
        let first_kept = self.checkpoints[1..]
            .iter()
            .map(|c| c.world.now())
            .find(|&t| t >= horizon);
        let newest = self.checkpoints.last().map_or(0, |c| c.world.now());
        let span = end.saturating_sub(first_kept.unwrap_or(newest).max(horizon));
        while span / self.every_ms > MAX_CHECKPOINTS as Millis {
            self.every_ms *= 2;
        }
    }

    /// When the next checkpoint is due.
    fn next_ms(&self) -> Millis {
        self.checkpoints.last().map_or(0, |c| c.world.now()) + self.every_ms
    }

    fn push(&mut self, mut checkpoint: Checkpoint) {
        #[cfg(test)]
        {
            self.made += 1;
        }
        let now = checkpoint.world.now();
        let size_now = size(&checkpoint.world);
        let grown_before = self.checkpoints.last().map_or(0, |c| c.grown);
        checkpoint.grown = grown_before + size_now.saturating_sub(self.size);
        self.size = size_now;
        let horizon = (
            now.saturating_sub(RECENT_MS),
            checkpoint.grown.saturating_sub(self.recent_growth),
        );
        self.checkpoints.push(checkpoint);
        let old = self.old_count(horizon);
        if old > MAX_OLD_CHECKPOINTS {
            thin_every_other(&mut self.checkpoints, 1..=old);
        }
        let recent = self.old_count(horizon) + 1;
        let newest = self.checkpoints.len() - 1;
        if newest + 1 - recent > MAX_CHECKPOINTS {
            thin_every_other(&mut self.checkpoints, recent..=newest);
            self.every_ms *= 2;
        }
    }

    /// Checkpoints after the first and before `horizon` (a time and a growth).
    fn old_count(&self, (time, grown): (Millis, u64)) -> usize {
        self.checkpoints[1..].partition_point(|c| c.world.now() < time || c.grown < grown)
    }

    /// The latest checkpoint at or before `t`; the later ones are dropped (the run branches).
    fn back_to(&mut self, t: Millis) -> Checkpoint {
        let position = self
            .checkpoints
            .iter()
            .rposition(|c| c.world.now() <= t)
            .unwrap_or(0);
        self.checkpoints.truncate(position + 1);
        self.size = size(&self.checkpoints[position].world);
        self.checkpoints[position].clone()
    }
}

/// Drops every other checkpoint in `range` (an inclusive range of positions), keeping the
/// last one of it.
fn thin_every_other(checkpoints: &mut Vec<Checkpoint>, range: std::ops::RangeInclusive<usize>) {
    let (first, last) = (*range.start(), *range.end());
    let mut position = 0;
    checkpoints.retain(|_| {
        let keep = position < first || position > last || (last - position) % 2 == 0;
        position += 1;
        keep
    });
}

impl Session {
    /// Advances virtual time by `ms`, taking checkpoints on the way.
    pub fn run_for(&mut self, ms: Millis) {
        let target = self.world.now() + ms;
        loop {
            let next_checkpoint = self.timeline.next_ms();
            if next_checkpoint > target {
                break;
            }
            // A checkpoint keeps only its last seconds of the wire, as the run's end does.
            (self.world).skip_wire_before(next_checkpoint.saturating_sub(CHECKPOINT_WIRE_MS));
            self.advance_until(next_checkpoint);
            self.observe();
            self.checkpoint();
        }
        (self.world).skip_wire_before(target.saturating_sub(CHECKPOINT_WIRE_MS));
        self.advance_until(target);
        self.observe();
    }

    // kube: the control plane, when up, acts as virtual time passes.
    pub(super) fn advance_until(&mut self, t: Millis) {
        if self.watches_events() {
            self.advance_observed(t);
        } else {
            match &mut self.kube {
                Some(kube) => kube.run_until(&mut self.world, t),
                None => self.world.run_until(t),
            }
        }
        self.follow_manifests();
    }

    /// `advance_until`, looking at the watched goal after every event (and every control
    /// plane tick): the same events in the same order, only watched.
    fn advance_observed(&mut self, t: Millis) {
        loop {
            let next_tick = self
                .kube
                .as_ref()
                .map(crate::kube::ControlPlane::next_tick_ms);
            let until = next_tick.map_or(t, |tick| tick.min(t));
            while self
                .world
                .next_event_time()
                .is_some_and(|next| next <= until)
            {
                self.world.step();
                self.observe_goal();
                if !self.watches_events() {
                    return self.advance_until(t);
                }
            }
            self.world.set_now(until);
            match &mut self.kube {
                Some(kube) if next_tick.is_some_and(|tick| tick <= t) => {
                    kube.tick_once(&mut self.world);
                    self.observe_goal();
                    if self.world.now() > t {
                        return;
                    }
                }
                _ => return,
            }
        }
    }

    /// The live wire log is cut to what the checkpoint keeps, and then shared with it: the
    /// page has read the records before (or records them again after a rewind), and at its
    /// length limit each new record pushed out the oldest one by one.
    fn checkpoint(&mut self) {
        let now = self.world.now();
        (self.world).forget_wire_before(now.saturating_sub(CHECKPOINT_WIRE_MS));
        self.timeline.push(Checkpoint {
            world: self.world.clone(),
            kube: self.kube.clone(),
            files: self.files.clone(),
            monitor: self.monitor.clone(),
            vars: self.vars.clone(),
            history_len: self.history.len(),
            grown: 0,
        });
    }

    /// Checkpoints taken since the start, those thinned since too.
    #[cfg(test)]
    pub fn checkpoints_made(&self) -> u64 {
        self.timeline.made
    }

    /// Virtual times of the checkpoints kept: how far back a rewind finds one, and how close.
    pub fn checkpoint_times(&self) -> Vec<Millis> {
        self.timeline
            .checkpoints
            .iter()
            .map(|c| c.world.now())
            .collect()
    }

    /// Travels back to virtual time `t` (at most now): the world is exactly as it was when the
    /// clock reached `t`, before any command given at `t`; what happened after is forgotten,
    /// so the run branches from here. A command that changed the world on and on as its time
    /// passed (`etcdctl check perf`'s minute of load) cannot be stopped midway: a rewind into
    /// it lands where it began.
    pub fn rewind_to(&mut self, t: Millis) -> Result<(), ConsoleError> {
        if t > self.world.now() {
            return Err(ConsoleError::failed(format!(
                "cannot travel forward: it is {} and {} has not happened yet",
                format_duration(self.world.now()),
                format_duration(t)
            )));
        }
        let t = self.landing(t);
        let checkpoint = self.timeline.back_to(t);
        self.world = checkpoint.world;
        self.kube = checkpoint.kube;
        self.files = checkpoint.files;
        self.vars = checkpoint.vars;
        if self.monitor.is_some() {
            self.monitor = checkpoint.monitor;
        }
        let mut replayed = 0;
        for e in (self.history.iter_from(checkpoint.history_len)).take_while(|e| e.time_ms < t) {
            // A `wait leader`/`wait until` still running at `t` only let time pass: the branch
            // stops it at `t` (running it whole would end past `t`). Nothing started after it.
            if e.end_ms > t && e.line.split_whitespace().next() == Some("wait") {
                break;
            }
            replayed += 1;
        }
        let replay = checkpoint.history_len..checkpoint.history_len + replayed;
        self.history.truncate(replay.end);
        self.transcript.rewind(t);
        self.unlatch_after(t);
        self.replay(replay);
        self.advance_until(t);
        self.observe();
        Ok(())
    }

    /// Where a rewind to `t` lands (see [`Session::rewind_to`]); a `wait` only lets time pass,
    /// so a rewind stops it at `t`.
    fn landing(&self, t: Millis) -> Millis {
        match self.history.last_before(t) {
            Some(e) if e.end_ms > t && e.line.split_whitespace().next() != Some("wait") => {
                e.time_ms
            }
            _ => t,
        }
    }

    /// Runs recorded commands again, each at the moment it was first given.
    fn replay(&mut self, entries: std::ops::Range<usize>) {
        self.replaying = true;
        for i in entries {
            let Some(entry) = self.history.get(i) else {
                break;
            };
            let (time_ms, steps) = (entry.time_ms, entry.steps);
            let (line, stdin) = entry.to_owned_parts();
            if self.kube.is_some() {
                // The control plane's own requests are part of the run: let it act again.
                self.advance_until(time_ms);
            } else {
                self.world.run_to_steps(steps);
            }
            self.world.set_now(time_ms);
            self.observe();
            self.execute(&line, stdin.as_deref());
            self.observe();
        }
        self.replaying = false;
    }
}
