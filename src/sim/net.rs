//! The simulated network: per-link latency with jitter, loss, duplication, and cuts.

use crate::base::{MemberId, Millis, Rng};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NetConfig {
    pub latency_ms: Millis,
    /// Each message's latency is drawn uniformly from latency ± jitter (reordering follows).
    pub jitter_ms: Millis,
    /// Probability that a message is lost.
    pub loss: f64,
    /// Probability that a message is delivered twice.
    pub duplicate: f64,
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig {
            latency_ms: 5,
            jitter_ms: 2,
            loss: 0.0,
            duplicate: 0.0,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Network {
    pub config: NetConfig,
    /// Directed links that deliver nothing.
    pub cut: BTreeSet<(MemberId, MemberId)>,
    /// Per directed link loss probability, overriding `config.loss`.
    pub link_loss: BTreeMap<(MemberId, MemberId), f64>,
}

/// What happens to one message handed to the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Lost(&'static str),
    /// The arrival delay, and a duplicate's.
    Delivered {
        delay: Millis,
        again: Option<Millis>,
    },
}

impl Network {
    pub fn is_cut(&self, from: MemberId, to: MemberId) -> bool {
        self.cut.contains(&(from, to))
    }

    pub fn fate(&self, from: MemberId, to: MemberId, rng: &mut Rng) -> Fate {
        if self.is_cut(from, to) {
            return Fate::Lost("partitioned");
        }
        let loss = self
            .link_loss
            .get(&(from, to))
            .copied()
            .unwrap_or(self.config.loss);
        if rng.chance(loss) {
            return Fate::Lost("lost");
        }
        let delay = self.delay(rng);
        let again = rng.chance(self.config.duplicate).then(|| self.delay(rng));
        Fate::Delivered { delay, again }
    }

    fn delay(&self, rng: &mut Rng) -> Millis {
        let c = &self.config;
        let low = c.latency_ms.saturating_sub(c.jitter_ms).max(1);
        rng.range(low, c.latency_ms + c.jitter_ms + 1)
    }

    /// Cuts every link between different groups (both directions). Members not named keep
    /// all their links.
    pub fn partition(&mut self, groups: &[Vec<MemberId>]) {
        for (i, a) in groups.iter().enumerate() {
            for b in groups.iter().skip(i + 1) {
                for x in a {
                    for y in b {
                        self.cut.insert((*x, *y));
                        self.cut.insert((*y, *x));
                    }
                }
            }
        }
    }

    /// Cuts `member` off from everyone in `others`, both ways.
    pub fn isolate(&mut self, member: MemberId, others: &[MemberId]) {
        self.partition(&[
            vec![member],
            others.iter().copied().filter(|o| *o != member).collect(),
        ]);
    }

    pub fn heal(&mut self) {
        self.cut.clear();
        self.link_loss.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_cuts_between_groups_only() {
        let mut net = Network::default();
        let (m1, m2, m3) = (MemberId(1), MemberId(2), MemberId(3));
        net.partition(&[vec![m1, m2], vec![m3]]);
        assert!(net.is_cut(m1, m3) && net.is_cut(m3, m2));
        assert!(!net.is_cut(m1, m2));
        net.heal();
        assert!(!net.is_cut(m1, m3));
    }

    #[test]
    fn delays_stay_within_jitter() {
        let net = Network {
            config: NetConfig {
                latency_ms: 10,
                jitter_ms: 3,
                ..NetConfig::default()
            },
            ..Network::default()
        };
        let mut rng = Rng::new(9);
        for _ in 0..200 {
            match net.fate(MemberId(1), MemberId(2), &mut rng) {
                Fate::Delivered { delay, again } => {
                    assert!([Some(delay), again]
                        .iter()
                        .flatten()
                        .all(|x| (7..=13).contains(x)))
                }
                Fate::Lost(why) => panic!("lost: {why}"),
            }
        }
    }
}
