//! The session's side of goals: baselines, holding, and the one watched goal whose `ever`
//! predicates are looked at after every engine event (and every command) from its baseline
//! on. A predicate seen holding is latched with the moment it held, so a rewind to before
//! that moment unlatches it.

use super::eval::{self, View};
use super::{Baseline, Goal, Pred};
use crate::base::Millis;
use crate::console::error::ConsoleError;
use crate::console::Session;

/// A goal being watched: for each of its predicates, when it was first seen holding (only
/// `ever` predicates are latched).
#[derive(Clone, Debug)]
pub struct Watch {
    goal: Goal,
    baseline: Baseline,
    /// Each `ever` predicate's inner one with its `start.` sides already read (None for the
    /// others), as it is looked at after every event.
    inner: Vec<Option<Pred>>,
    latched: Vec<Option<Millis>>,
    /// Times the world was looked at for it (a test counts them against the events).
    #[cfg(test)]
    pub(super) looks: u64,
}

impl Watch {
    /// The latch of `p` if it is one of this watch's `ever` predicates.
    fn latch_of(&self, p: &Pred) -> Option<bool> {
        let i = self.goal.preds.iter().position(|q| q == p)?;
        Some(self.latched[i].is_some())
    }

    /// Whether some `ever` predicate still waits to be seen.
    fn waiting(&self) -> bool {
        let mut preds = self.goal.preds.iter().zip(&self.latched);
        preds.any(|(p, l)| matches!(p, Pred::Ever(_)) && l.is_none())
    }
}

impl Session {
    /// The world as it is now, to compare a later moment with (`start.…`, counts since).
    pub fn baseline(&self) -> Baseline {
        Baseline::take(self)
    }

    /// Whether every predicate of `goal` holds now against `base`. An `ever` predicate is
    /// known only from the watch of this goal's baseline (`watch_goal`); otherwise it is an
    /// error, as is a comparison no world could make hold.
    pub fn goal_holds(&self, goal: &Goal, base: &Baseline) -> Result<bool, ConsoleError> {
        let now = View::of(self);
        let ever = |p: &Pred| self.latch(p, base);
        for p in &goal.preds {
            let held = eval::holds(p, &now, base, &ever);
            if !held.map_err(|e| ConsoleError::Failed(format!("{p}: {e}")))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn latch(&self, p: &Pred, base: &Baseline) -> Option<bool> {
        let w = self.watch.as_ref().filter(|w| w.baseline.same(base))?;
        w.latch_of(p)
    }

    /// Watches `goal` from `base` on (replacing any goal watched before).
    pub fn watch_goal(&mut self, goal: Goal, baseline: Baseline) {
        let latched = vec![None; goal.preds.len()];
        let inner = goal
            .preds
            .iter()
            .map(|p| match p {
                Pred::Ever(inner) => Some(eval::resolve_start(inner, &baseline)),
                _ => None,
            })
            .collect();
        self.watch = Some(Watch {
            goal,
            baseline,
            inner,
            latched,
            #[cfg(test)]
            looks: 0,
        });
    }

    pub fn unwatch_goal(&mut self) {
        self.watch = None;
    }

    /// The watched goal and its baseline.
    pub fn watched_goal(&self) -> Option<(&Goal, &Baseline)> {
        self.watch.as_ref().map(|w| (&w.goal, &w.baseline))
    }

    /// Whether the watched goal holds now (None: nothing watched). A goal that cannot be
    /// evaluated is not met.
    pub fn goal_met(&self) -> Option<bool> {
        let w = self.watch.as_ref()?;
        Some(self.goal_holds(&w.goal, &w.baseline).unwrap_or(false))
    }

    /// Whether the engine must be looked at after each event (an `ever` not yet seen).
    pub(in crate::console) fn watches_events(&self) -> bool {
        self.watch.as_ref().is_some_and(Watch::waiting)
    }

    /// Looks at the world now for the watched goal's `ever` predicates not yet seen.
    pub(in crate::console) fn observe_goal(&mut self) {
        if !self.watches_events() {
            return;
        }
        let Some(mut w) = self.watch.take() else {
            return;
        };
        #[cfg(test)]
        {
            w.looks += 1;
        }
        let now_ms = self.world.now();
        let view = View::of(self);
        let unknown = |_: &Pred| None;
        for (p, latch) in w.inner.iter().zip(w.latched.iter_mut()) {
            if let (Some(inner), None) = (p, &latch) {
                if eval::holds(inner, &view, &w.baseline, &unknown) == Ok(true) {
                    *latch = Some(now_ms);
                }
            }
        }
        self.watch = Some(w);
    }

    /// `Cluster::run_until_cond` up to `deadline`, looking at the watched goal after every
    /// event when it must (`wait leader` steps the world itself). Past `slice_end` it stops
    /// before the next event (None: not decided yet), having handled at least one, so a wait
    /// cut in slices (the page) looks at the same moments as one run whole, and goes on.
    pub(in crate::console) fn run_world_until(
        &mut self,
        (deadline, slice_end): (Millis, Millis),
        mut done: impl FnMut(&crate::etcd::Cluster) -> bool,
    ) -> Option<bool> {
        let mut stepped = false;
        loop {
            if done(&self.world) {
                return Some(true);
            }
            match self.world.next_event_time() {
                Some(t) if t <= deadline => {
                    if t > slice_end && stepped {
                        return None;
                    }
                    stepped = true;
                    self.world.step();
                    self.observe_goal();
                }
                _ => {
                    self.world.set_now(deadline.max(self.world.now()));
                    return Some(done(&self.world));
                }
            }
        }
    }

    /// `wait until GOAL`: lets virtual time pass until `goal` holds against `base`, looking
    /// after each moment at which something happens (every event of that moment handled,
    /// the control plane's ticks too, the invariant checkers fed), up to `deadline`. Whether
    /// it came to hold (None: not yet, the next moment is past `slice_end` and one moment was
    /// looked at); a goal no world could make hold is an error at once.
    pub(in crate::console) fn run_until_goal(
        &mut self,
        (deadline, slice_end): (Millis, Millis),
        goal: &Goal,
        base: &Baseline,
    ) -> Result<Option<bool>, ConsoleError> {
        let mut advanced = false;
        loop {
            if self.goal_holds(goal, base)? {
                return Ok(Some(true));
            }
            match crate::etcd::Clock::next_moment(self) {
                Some(t) if t <= deadline && t > slice_end && advanced => return Ok(None),
                Some(t) if t <= deadline => self.advance_until(t.max(self.world.now())),
                _ => {
                    self.advance_until(deadline);
                    self.observe();
                    return self.goal_holds(goal, base).map(Some);
                }
            }
            advanced = true;
            // `violations` goals read the checkers, so they look at every moment too.
            self.observe();
        }
    }

    /// A rewind to `t`: what was seen after `t` has not happened yet.
    pub(in crate::console) fn unlatch_after(&mut self, t: Millis) {
        if let Some(w) = &mut self.watch {
            for latch in &mut w.latched {
                if latch.is_some_and(|at| at > t) {
                    *latch = None;
                }
            }
        }
    }
}

impl Goal {
    /// One line on where the goal stands: the first predicate that does not hold and the
    /// value of each of its sides (`leader.term > start.leader.term is false (leader.term is
    /// 2, start.leader.term is 2)`), or that it holds.
    pub fn explain(&self, s: &Session, base: &Baseline) -> String {
        let now = View::of(s);
        let ever = |p: &Pred| s.latch(p, base);
        for p in &self.preds {
            match eval::holds(p, &now, base, &ever) {
                Ok(true) => {}
                Ok(false) => return format!("{p} is false ({})", eval::sides(p, &now, base)),
                Err(e) => return format!("{p}: {e}"),
            }
        }
        let all: Vec<String> = self
            .preds
            .iter()
            .filter(|p| !matches!(p, Pred::Ever(_)))
            .map(|p| eval::sides(p, &now, base))
            .filter(|s| !s.is_empty())
            .collect();
        format!("{} holds ({})", self.text, all.join("; "))
    }
}
