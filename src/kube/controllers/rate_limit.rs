//! client-go's client-side rate limit (`flowcontrol.NewTokenBucketRateLimiter`, fed by
//! `--kube-api-qps` and `--kube-api-burst`): each component's client may send `burst` requests
//! at once and `qps` a second after that. A client out of tokens blocks until the next one;
//! here the component's loop stops for this tick and goes on at the next, which is what keeps
//! the work of one tick bounded however many pods a ReplicaSet asks for.
//!
//! A real client sends a burst's requests at once (a goroutine each); here a loop sends them
//! one after the other, each waiting for etcd, so a burst of a hundred would make one tick
//! seconds of virtual time long, a stretch the page cannot cut into slices. So a loop also
//! stops once its round has taken a tick's worth of virtual time ([`ROUND_MS`]) and goes on
//! at the next tick, its tokens kept.

use crate::base::Millis;
use crate::kube::TICK_MS;

/// The virtual time one loop's round may take before it leaves the rest to the next tick.
pub const ROUND_MS: Millis = TICK_MS;

/// kube-controller-manager's defaults: `--kube-api-qps` 20, `--kube-api-burst` 30 (each
/// controller builds its own client, so each has its own bucket).
pub const CONTROLLER_MANAGER: (u64, u64) = (20, 30);
/// kube-scheduler's `clientConnection` defaults: qps 50, burst 100.
pub const SCHEDULER: (u64, u64) = (50, 100);

#[derive(Clone, Debug)]
pub struct RateLimiter {
    qps: u64,
    burst: u64,
    /// Tokens in thousandths, so that refilling by elapsed milliseconds stays exact.
    milli_tokens: u64,
    last_ms: Millis,
    /// Tokens asked for, granted or not.
    asked: u64,
    /// When the current round has had its time (see [`ROUND_MS`]).
    round_end: Millis,
}

impl RateLimiter {
    /// A full bucket at `now`.
    pub fn new((qps, burst): (u64, u64), now: Millis) -> RateLimiter {
        RateLimiter {
            qps,
            burst,
            milli_tokens: burst * 1000,
            last_ms: now,
            asked: 0,
            round_end: Millis::MAX,
        }
    }

    /// A round starts at `now`: its requests may go on for [`ROUND_MS`].
    pub fn begin_round(&mut self, now: Millis) {
        self.round_end = now.saturating_add(ROUND_MS);
    }

    /// How many tokens were asked for (a counter to compare).
    pub fn asked(&self) -> u64 {
        self.asked
    }

    /// Takes a token for one request at `now`; false when there is none left or the round
    /// has had its time (the request waits for a later tick).
    pub fn take(&mut self, now: Millis) -> bool {
        self.asked += 1;
        if now >= self.round_end {
            return false;
        }
        let elapsed = now.saturating_sub(self.last_ms);
        self.last_ms = self.last_ms.max(now);
        self.milli_tokens = (self.milli_tokens + elapsed * self.qps).min(self.burst * 1000);
        if self.milli_tokens < 1000 {
            return false;
        }
        self.milli_tokens -= 1000;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_qps_a_second() {
        let mut bucket = RateLimiter::new(CONTROLLER_MANAGER, 0);
        assert_eq!((0..100).filter(|_| bucket.take(0)).count(), 30);
        // 100 ms later, 20 a second has given two more.
        assert_eq!((0..100).filter(|_| bucket.take(100)).count(), 2);
        assert!(!bucket.take(149));
        assert!(bucket.take(150));
        // An idle minute fills the bucket up to its burst, no more.
        assert_eq!((0..100).filter(|_| bucket.take(60_150)).count(), 30);
    }

    #[test]
    fn a_round_ends_after_its_time_and_keeps_its_tokens() {
        let mut bucket = RateLimiter::new(SCHEDULER, 0);
        bucket.begin_round(0);
        assert_eq!((0..10).filter(|_| bucket.take(0)).count(), 10);
        assert!(bucket.take(ROUND_MS - 1));
        assert!(!bucket.take(ROUND_MS));
        // The next round has the burst less the 11 taken, plus 100 ms at 50 a second.
        bucket.begin_round(ROUND_MS);
        assert_eq!((0..200).filter(|_| bucket.take(ROUND_MS)).count(), 89 + 5);
    }
}
