//! Leases (etcd `lease/lessor.go`). Grants and revokes are replicated through `apply`; the
//! expiry clock is member-local: only the primary lessor (the leader's) counts down, renews
//! and reports expired leases, which the leader then revokes through Raft.

use super::kv::{KeyBounds, LeaseId};
use super::MvccError;
use crate::base::Millis;
use std::collections::BTreeMap;

/// Remaining TTL reported for a lease that never expires on this member (a follower's):
/// Go's `math.MaxInt64` nanoseconds in whole seconds.
pub const FOREVER_TTL_S: i64 = 9_223_372_036;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    pub id: LeaseId,
    /// Granted TTL in seconds (already raised to the minimum).
    pub ttl_s: i64,
    /// When it expires on this member; `None` while this lessor is not the primary.
    pub expiry_ms: Option<Millis>,
    /// Keys attached to it: a persistent set, since Kubernetes attaches up to a thousand
    /// Events to one lease and every checkpoint of every member copies its leases.
    pub keys: imbl::OrdSet<Vec<u8>>,
}

impl Lease {
    fn refresh(&mut self, now_ms: Millis, extend_ms: Millis) {
        let ttl_ms = (self.ttl_s.max(0) as u64).saturating_mul(1000);
        self.expiry_ms = Some(now_ms.saturating_add(extend_ms).saturating_add(ttl_ms));
    }

    fn remaining_s(&self, now_ms: Millis) -> i64 {
        match self.expiry_ms {
            None => FOREVER_TTL_S,
            Some(e) => {
                (e as i128 - now_ms as i128).clamp(i64::MIN as i128, i64::MAX as i128) as i64 / 1000
            }
        }
    }
}

/// What `lease timetolive` answers. An unknown lease gives `ttl_s = -1`, `granted_ttl_s = 0`
/// (etcd's server answer, which etcdctl prints as "already expired").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseTimeToLive {
    pub id: LeaseId,
    pub ttl_s: i64,
    pub granted_ttl_s: i64,
    pub keys: Vec<Vec<u8>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lessor {
    pub leases: BTreeMap<LeaseId, Lease>,
    pub primary: bool,
    pub min_ttl_s: i64,
}

impl Lessor {
    pub fn new(min_ttl_s: i64) -> Lessor {
        Lessor {
            leases: BTreeMap::new(),
            primary: false,
            min_ttl_s,
        }
    }

    /// Checks a grant without changing anything.
    pub fn check_grant(&self, id: LeaseId, ttl_s: i64) -> Result<(), MvccError> {
        if id == 0 {
            return Err(MvccError::LeaseNotFound);
        }
        if ttl_s > super::request::MAX_LEASE_TTL_S {
            return Err(MvccError::LeaseTtlTooLarge);
        }
        if self.leases.contains_key(&id) {
            return Err(MvccError::LeaseExists);
        }
        Ok(())
    }

    pub fn grant(&mut self, id: LeaseId, ttl_s: i64, now_ms: Millis) -> Result<i64, MvccError> {
        self.check_grant(id, ttl_s)?;
        let ttl_s = ttl_s.max(self.min_ttl_s);
        let mut lease = Lease {
            id,
            ttl_s,
            expiry_ms: None,
            keys: imbl::OrdSet::new(),
        };
        if self.primary {
            lease.refresh(now_ms, 0);
        }
        self.leases.insert(id, lease);
        Ok(ttl_s)
    }

    pub fn attach(&mut self, id: LeaseId, key: &[u8]) {
        if let Some(l) = self.leases.get_mut(&id) {
            l.keys.insert(key.to_vec());
        }
    }

    pub fn detach(&mut self, id: LeaseId, key: &[u8]) {
        if let Some(l) = self.leases.get_mut(&id) {
            l.keys.remove(key);
        }
    }

    /// Detaches every key in `bounds` from its lease.
    pub fn detach_range(&mut self, bounds: KeyBounds) {
        for l in self.leases.values_mut() {
            let gone: Vec<Vec<u8>> = l.keys.range::<_, [u8]>(bounds).cloned().collect();
            for k in &gone {
                l.keys.remove(k);
            }
        }
    }

    pub fn promote(&mut self, now_ms: Millis, extend_ms: Millis) {
        self.primary = true;
        for l in self.leases.values_mut() {
            l.refresh(now_ms, extend_ms);
        }
    }

    pub fn demote(&mut self) {
        self.primary = false;
        for l in self.leases.values_mut() {
            l.expiry_ms = None;
        }
    }

    pub fn renew(&mut self, id: LeaseId, now_ms: Millis) -> Result<i64, MvccError> {
        if !self.primary {
            return Err(MvccError::NotPrimary);
        }
        let l = self.leases.get_mut(&id).ok_or(MvccError::LeaseNotFound)?;
        // An expired lease waits for its revoke in etcd; the client then gets "not found".
        if l.expiry_ms.is_some_and(|e| e <= now_ms) {
            return Err(MvccError::LeaseNotFound);
        }
        l.refresh(now_ms, 0);
        Ok(l.ttl_s)
    }

    pub fn time_to_live(&self, id: LeaseId, with_keys: bool, now_ms: Millis) -> LeaseTimeToLive {
        match self.leases.get(&id) {
            None => LeaseTimeToLive {
                id,
                ttl_s: -1,
                granted_ttl_s: 0,
                keys: Vec::new(),
            },
            Some(l) => LeaseTimeToLive {
                id,
                ttl_s: l.remaining_s(now_ms),
                granted_ttl_s: l.ttl_s,
                keys: if with_keys {
                    l.keys.iter().cloned().collect()
                } else {
                    Vec::new()
                },
            },
        }
    }

    pub fn expired(&self, now_ms: Millis) -> Vec<LeaseId> {
        if !self.primary {
            return Vec::new();
        }
        let mut due: Vec<(Millis, LeaseId)> = self
            .leases
            .values()
            .filter_map(|l| l.expiry_ms.filter(|&e| e <= now_ms).map(|e| (e, l.id)))
            .collect();
        due.sort_unstable();
        due.into_iter().map(|(_, id)| id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grant_raises_ttl_and_checks() {
        let mut l = Lessor::new(2);
        assert_eq!(l.grant(1, 1, 0), Ok(2));
        assert_eq!(l.grant(1, 10, 0), Err(MvccError::LeaseExists));
        assert_eq!(l.grant(0, 10, 0), Err(MvccError::LeaseNotFound));
        assert_eq!(
            l.grant(2, 9_000_000_001, 0),
            Err(MvccError::LeaseTtlTooLarge)
        );
        assert_eq!(l.grant(3, -5, 0), Ok(2));
    }

    #[test]
    fn follower_leases_never_expire_until_promoted() {
        let mut l = Lessor::new(2);
        l.grant(7, 10, 0).unwrap();
        assert_eq!(l.time_to_live(7, false, 50_000).ttl_s, FOREVER_TTL_S);
        assert!(l.expired(1_000_000).is_empty());
        assert_eq!(l.renew(7, 0), Err(MvccError::NotPrimary));
        l.promote(100_000, 1_000);
        assert_eq!(l.time_to_live(7, false, 100_000).ttl_s, 11);
        assert!(l.expired(110_999).is_empty());
        assert_eq!(l.expired(111_000), vec![7]);
        assert_eq!(l.renew(7, 111_000), Err(MvccError::LeaseNotFound));
    }

    #[test]
    fn renew_and_time_to_live() {
        let mut l = Lessor::new(2);
        l.promote(0, 0);
        l.grant(9, 600, 1_000).unwrap();
        l.attach(9, b"b");
        l.attach(9, b"a");
        let t = l.time_to_live(9, true, 1_001);
        assert_eq!((t.ttl_s, t.granted_ttl_s), (599, 600));
        assert_eq!(t.keys, vec![b"a".to_vec(), b"b".to_vec()]);
        assert_eq!(l.renew(9, 300_000), Ok(600));
        assert_eq!(l.time_to_live(9, false, 300_000).ttl_s, 600);
        assert_eq!(l.renew(8, 0), Err(MvccError::LeaseNotFound));
        let gone = l.time_to_live(8, true, 0);
        assert_eq!((gone.ttl_s, gone.granted_ttl_s), (-1, 0));
        l.demote();
        assert!(l.expired(u64::MAX).is_empty());
    }
}
