//! Sharing equal values between the members that made them. Every member applies the same
//! entries within moments of the others and makes the same records, and the same runs of
//! them; kept apart, a cluster of n members holds n copies of its history.

use std::cell::RefCell;
use std::hash::{Hash, Hasher};
use std::thread::LocalKey;

/// Values made recently, one per hash slot: an equal value made since by another member
/// is found in its slot.
pub(crate) struct Recent<T>(Vec<Option<T>>);

impl<T> Recent<T> {
    pub const fn new() -> Recent<T> {
        Recent(Vec::new())
    }
}

/// The value in slot `hash` of `recent` if it is `same` as `value`, else `make` of
/// `value`, remembered there. Only whether equal values point at one buffer or at copies of
/// it depends on this: no result does, though it lives outside any value.
pub(crate) fn share<T: Clone, V>(
    recent: &'static LocalKey<RefCell<Recent<T>>>,
    (slots, hash): (usize, u64),
    value: V,
    same: impl FnOnce(&T, &V) -> bool,
    make: impl FnOnce(V) -> T,
) -> T {
    let slot = (hash % slots as u64) as usize;
    recent.with_borrow_mut(|Recent(recent)| {
        if recent.is_empty() {
            recent.resize(slots, None);
        }
        match &recent[slot] {
            Some(known) if same(known, &value) => known.clone(),
            _ => {
                let made = make(value);
                recent[slot] = Some(made.clone());
                made
            }
        }
    })
}

/// The hash that picks a value's slot.
pub(crate) fn hash_of(parts: impl IntoIterator<Item = impl Hash>) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for part in parts {
        part.hash(&mut h);
    }
    h.finish()
}
