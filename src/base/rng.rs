//! The one seeded generator type. `Pcg64Mcg` is named explicitly (not `SmallRng`, whose
//! algorithm differs between 32- and 64-bit targets), so the browser and the CLI draw the
//! same numbers from the same seed.

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
pub struct Rng {
    inner: Pcg64Mcg,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng {
            inner: Pcg64Mcg::seed_from_u64(seed),
        }
    }

    /// A sub-generator for one subsystem. Drawing from it never disturbs the parent's later
    /// draws beyond this one call, so adding draws in one subsystem leaves the others' streams
    /// as they were.
    pub fn split(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }

    /// A sub-generator derived from the seed and a label, without consuming anything.
    pub fn derive(seed: u64, label: &str) -> Rng {
        // FNV-1a over the label, mixed with the seed: stable across platforms and versions.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
        for byte in label.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        Rng::new(hash)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// Uniform in `[low, high)`; `low` when the range is empty. Lemire's method, exact.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        let span = high - low;
        let threshold = span.wrapping_neg() % span;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(span);
            if (product as u64) >= threshold {
                return low + (product >> 64) as u64;
            }
        }
    }

    /// True with probability `p` (clamped to [0, 1]).
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            return false;
        }
        if p >= 1.0 {
            return true;
        }
        // 53 random bits make a uniform double in [0, 1).
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        unit < p
    }

    /// A uniformly chosen element, or None for an empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.range(0, items.len() as u64) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_known_values() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(Rng::new(8).next_u64(), xs[0]);
    }

    #[test]
    fn range_stays_in_bounds_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [false; 10];
        for _ in 0..1000 {
            let x = rng.range(10, 20);
            assert!((10..20).contains(&x));
            seen[(x - 10) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
        assert_eq!(rng.range(5, 5), 5);
    }

    #[test]
    fn chance_extremes() {
        let mut rng = Rng::new(3);
        assert!((0..100).all(|_| !rng.chance(0.0)));
        assert!((0..100).all(|_| rng.chance(1.0)));
        let hits = (0..10_000).filter(|_| rng.chance(0.25)).count();
        assert!((2_000..3_000).contains(&hits), "{hits}");
    }

    #[test]
    fn derive_is_stable_and_label_sensitive() {
        assert_eq!(
            Rng::derive(1, "net").next_u64(),
            Rng::derive(1, "net").next_u64()
        );
        assert_ne!(
            Rng::derive(1, "net").next_u64(),
            Rng::derive(1, "raft").next_u64()
        );
    }
}
