//! The world's event queue, ordered by (virtual time, sequence number). A heap of small keys
//! over a slab of events: a run pops one event per step, and a heap of whole events (a
//! message each) spent more moving them than an ordered map did.

use super::Event;
use crate::base::Millis;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// When an event is due, and its place among those due at the same millisecond.
pub type Key = (Millis, u64);

#[derive(Clone, Debug)]
pub struct Queue<M> {
    /// Earliest first: (key, where the event is in `slab`).
    heap: BinaryHeap<Reverse<(Key, usize)>>,
    slab: Vec<Option<Event<M>>>,
    free: Vec<usize>,
}

impl<M> Default for Queue<M> {
    fn default() -> Self {
        Queue {
            heap: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<M> Queue<M> {
    pub fn push(&mut self, key: Key, event: Event<M>) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slab[slot] = Some(event);
                slot
            }
            None => {
                self.slab.push(Some(event));
                self.slab.len() - 1
            }
        };
        self.heap.push(Reverse((key, slot)));
    }

    pub fn next_time(&self) -> Option<Millis> {
        self.heap.peek().map(|Reverse(((at, _), _))| *at)
    }

    pub fn pop(&mut self) -> Option<(Key, Event<M>)> {
        let Reverse((key, slot)) = self.heap.pop()?;
        self.free.push(slot);
        Some((key, self.slab[slot].take()?))
    }

    /// How many events `pick` chooses, in no order (nothing sorted, nothing copied).
    pub fn count(&self, pick: impl Fn(&Event<M>) -> bool) -> usize {
        self.slab.iter().flatten().filter(|e| pick(e)).count()
    }

    /// Every event, in the order it will be handled.
    pub fn in_order(&self) -> Vec<(Key, &Event<M>)> {
        let mut all: Vec<(Key, &Event<M>)> = (self.heap.iter())
            .filter_map(|Reverse((key, slot))| Some((*key, self.slab[*slot].as_ref()?)))
            .collect();
        all.sort_unstable_by_key(|(key, _)| *key);
        all
    }

    /// Takes out every event `pick` chooses, in the order they would have been handled.
    pub fn take(&mut self, mut pick: impl FnMut(Key, &Event<M>) -> bool) -> Vec<(Key, Event<M>)> {
        let mut taken = Vec::new();
        let mut kept = Vec::with_capacity(self.heap.len());
        for Reverse((key, slot)) in std::mem::take(&mut self.heap).into_vec() {
            match self.slab[slot].take_if(|e| pick(key, e)) {
                Some(event) => {
                    self.free.push(slot);
                    taken.push((key, event));
                }
                None => kept.push(Reverse((key, slot))),
            }
        }
        self.heap = kept.into();
        taken.sort_unstable_by_key(|(key, _)| *key);
        taken
    }
}
