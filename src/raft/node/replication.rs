//! Replication (§5.3): a leader's appends and heartbeats under flow control, a follower's
//! answers, and the commit rule (§5.4.2).

use super::Raft;
use crate::base::{Index, MemberId, Term};
use crate::raft::log::{Entry, EntryKind};
use crate::raft::message::{Body, EntryBatch, Message};
use crate::raft::progress::ProgressState;
use crate::raft::ready::NodeEvent;
use crate::raft::Role;

impl Raft {
    pub(super) fn handle_append(&mut self, m: Message) {
        let Body::Append {
            prev_index,
            prev_term,
            entries,
            commit,
            heartbeat,
            read_ctx,
        } = m.body
        else {
            return;
        };
        let reply = |index, reject, hint_index, hint_term| Body::AppendResp {
            index,
            reject,
            hint_index,
            hint_term,
            heartbeat,
            read_ctx,
        };
        // A stale append gets our commit index, as in etcd; but one that contradicts what we
        // committed (a teaching switch broke Raft) overwrites it as any conflict does: told we
        // match, the leader would probe us forever, a new probe per heartbeat (fuzz script
        // input 322589).
        if prev_index < self.log.committed && !self.log.contradicts_committed(&entries) {
            let body = reply(self.log.committed, false, 0, 0);
            self.send(Message {
                from: self.id,
                to: m.from,
                term: self.term,
                body,
            });
            return;
        }
        let mut overwrote = false;
        let body =
            match self
                .log
                .maybe_append(prev_index, prev_term, commit, &entries, &mut overwrote)
            {
                Some(last_new) => reply(last_new, false, 0, 0),
                None => {
                    let hint = self
                        .log
                        .find_conflict_by_term(prev_index.min(self.log.last_index()), prev_term);
                    let hint_term = self.log.term(hint).unwrap_or(0);
                    reply(prev_index, true, hint, hint_term)
                }
            };
        if overwrote {
            self.events.push(NodeEvent::OverwroteCommitted {
                index: self.log.committed,
            });
        }
        // A new configuration entry, or a truncation that may have removed one.
        let touches_conf = entries.first().is_some_and(|e| e.index <= self.conf_index)
            || entries.iter().any(|e| e.kind == EntryKind::Config);
        if touches_conf {
            self.reload_conf();
        }
        self.send(Message {
            from: self.id,
            to: m.from,
            term: self.term,
            body,
        });
    }

    pub(super) fn handle_append_response(&mut self, m: Message) {
        let Body::AppendResp {
            index,
            reject,
            hint_index,
            hint_term,
            heartbeat,
            read_ctx,
        } = m.body
        else {
            return;
        };
        let hint = if reject && hint_term > 0 {
            self.log.find_conflict_by_term(hint_index, hint_term)
        } else {
            hint_index
        };
        let Some(pr) = self.progress_mut(m.from) else {
            return;
        };
        pr.recent_active = true;
        if heartbeat {
            self.heartbeat_answered(m.from, read_ctx);
        } else if !reject {
            self.append_accepted(m.from, index);
        } else if pr.maybe_decr_to(index, hint) {
            if pr.state == ProgressState::Replicate {
                pr.become_probe();
            }
            self.send_append(m.from, true);
        }
    }

    /// A heartbeat's answer frees a stuck window, counts towards a ReadIndex round and
    /// tells whether the follower still lacks entries.
    fn heartbeat_answered(&mut self, from: MemberId, read_ctx: u64) {
        let last_index = self.log.last_index();
        let Some(pr) = self.progress_mut(from) else {
            return;
        };
        pr.probe_sent = false;
        if pr.state == ProgressState::Replicate && pr.inflight_full() {
            pr.inflights.pop_front();
        }
        let behind = pr.match_index < last_index;
        if read_ctx != 0 {
            self.ack_read(from, read_ctx);
        }
        if behind {
            self.send_append(from, true);
        }
    }

    /// `from` has the log up to `index`: move its progress on, commit what a quorum has,
    /// keep its pipeline full and finish a transfer to it once it caught up.
    fn append_accepted(&mut self, from: MemberId, index: Index) {
        let last_index = self.log.last_index();
        let Role::Leader(state) = &mut self.role else {
            return;
        };
        let Some(pr) = state.progress.get_mut(&from) else {
            return;
        };
        let was_paused = pr.is_paused();
        if !pr.maybe_update(index) {
            return;
        }
        match pr.state {
            ProgressState::Probe => pr.become_replicate(),
            ProgressState::Snapshot if pr.match_index >= pr.pending_snapshot => pr.become_probe(),
            ProgressState::Snapshot => {}
            ProgressState::Replicate => pr.free_inflights_to(index),
        }
        let caught_up = pr.match_index == last_index;
        let transfer_now = state.transferee == Some(from) && caught_up;
        // A match that stays at or below the commit index cannot move a quorum past it (the
        // other members' matches are as they were when it was last counted).
        let may_commit = pr.match_index > self.log.committed;
        if may_commit && self.maybe_commit() {
            self.bcast_append();
        } else if was_paused {
            self.send_append(from, true);
        }
        while self.send_append(from, false) {}
        if transfer_now {
            self.send(Message {
                from: self.id,
                to: from,
                term: self.term,
                body: Body::TimeoutNow,
            });
        }
    }

    /// §5.4.2: commit the largest index a quorum has, but only if it is of this term, unless
    /// the Figure 8 teaching switch is on.
    pub(super) fn maybe_commit(&mut self) -> bool {
        let Role::Leader(state) = &self.role else {
            return false;
        };
        let quorum_index = state.committed_index(&self.voters);
        if quorum_index <= self.log.committed || quorum_index == Index::MAX {
            return false;
        }
        let own_term = self.log.term(quorum_index) == Some(self.term);
        if !own_term && !self.config.teaching.commit_old_terms_by_counting {
            return false;
        }
        self.log.commit_to(quorum_index);
        self.release_waiting_reads();
        self.after_commit();
        true
    }

    pub(super) fn bcast_append(&mut self) {
        self.append_to_peers(true);
    }

    /// A batched leader's proposals since the last Ready, to each follower that has not had
    /// them meanwhile (an answer may have sent them already).
    pub(super) fn send_due_appends(&mut self) {
        self.append_to_peers(false);
    }

    /// Followers at the same point get the same entries: one list, shared.
    fn append_to_peers(&mut self, allow_empty: bool) {
        let mut after = None;
        let mut last = EntryBatch::default();
        while let Some(peer) = self
            .leader_state()
            .and_then(|s| s.peer_after(self.id, after))
        {
            self.send_append_sharing(peer, allow_empty, &mut last);
            after = Some(peer);
        }
    }

    pub(super) fn send_append(&mut self, to: MemberId, allow_empty: bool) -> bool {
        self.send_append_sharing(to, allow_empty, &mut EntryBatch::default())
    }

    /// `send_append`, taking the entries from `last` (the list sent to another follower in
    /// this broadcast) when they are the ones `to` needs, and leaving its own there.
    fn send_append_sharing(
        &mut self,
        to: MemberId,
        allow_empty: bool,
        last: &mut EntryBatch,
    ) -> bool {
        let Role::Leader(state) = &mut self.role else {
            return false;
        };
        let Some(pr) = state.progress.get_mut(&to) else {
            return false;
        };
        if pr.is_paused() {
            return false;
        }
        let prev_index = pr.next_index - 1;
        let Some(prev_term) = self.log.term(prev_index) else {
            // The entries it needs were compacted: it needs a snapshot, which the next
            // Ready asks the driver for.
            pr.become_snapshot(self.log.snapshot_index);
            return false;
        };
        let max = self.config.max_entries_per_msg;
        let wanted = (self.log.last_index().saturating_sub(prev_index)).min(max as Index) as usize;
        let same = last.len() == wanted && last.first().is_none_or(|e| e.index == pr.next_index);
        if !same {
            *last = self.log.batch_from(pr.next_index, max);
        }
        let entries = last.clone();
        if entries.is_empty() && !allow_empty {
            return false;
        }
        if self.config.batch_append && pr.state == ProgressState::Replicate {
            let cap = self.config.max_entries_per_msg;
            let pending = pending_append(&mut self.msgs, to, self.term, prev_index, cap);
            if let Some((queued, commit)) = pending.filter(|_| !entries.is_empty()) {
                let room = cap - queued.len();
                let taken = entries.len().min(room);
                let more = entries.iter().take(taken).cloned();
                *queued = queued
                    .iter()
                    .cloned()
                    .chain(more)
                    .collect::<Vec<_>>()
                    .into();
                *commit = self.log.committed;
                pr.batched_entries(queued.last().map_or(prev_index, |e| e.index));
                return true;
            }
        }
        pr.sent_entries(entries.last().map(|e| e.index));
        let body = Body::Append {
            prev_index,
            prev_term,
            entries,
            commit: self.log.committed,
            heartbeat: false,
            read_ctx: 0,
        };
        self.send(Message {
            from: self.id,
            to,
            term: self.term,
            body,
        });
        true
    }

    /// Heartbeats are empty AppendEntries at the follower's known match, carrying the commit
    /// index only as far as the follower is known to have the log.
    pub(super) fn bcast_heartbeat(&mut self, read_ctx: u64) {
        // The fields apart, so the heartbeats go straight into the outbox (a list of the
        // targets made first was an allocation at every heartbeat).
        let Raft {
            role: Role::Leader(state),
            log,
            msgs,
            id,
            term,
            ..
        } = self
        else {
            return;
        };
        for (to, pr) in state.progress.iter().filter(|(to, _)| *to != id) {
            let (prev_index, prev_term) = match log.term(pr.match_index) {
                Some(term) => (pr.match_index, term),
                None => (log.snapshot_index, log.snapshot_term),
            };
            let body = Body::Append {
                prev_index,
                prev_term,
                entries: EntryBatch::default(),
                commit: log.committed.min(prev_index),
                heartbeat: true,
                read_ctx,
            };
            msgs.push(Message {
                from: *id,
                to: *to,
                term: *term,
                body,
            });
        }
    }

    pub(super) fn quorum_active(&mut self) -> bool {
        match &mut self.role {
            Role::Leader(state) => state.quorum_active(self.id, &self.voters),
            _ => false,
        }
    }

    /// Appends one entry of this term at the end of the log (a proposal, a new leader's
    /// empty entry or a configuration change).
    pub(super) fn append_entry(&mut self, kind: EntryKind, data: Vec<u8>) {
        self.log.push(Entry {
            index: self.log.last_index() + 1,
            term: self.term,
            kind,
            data: data.into(),
        });
        if kind == EntryKind::Config {
            self.reload_conf();
        }
        // Our own progress advances when the entries are persisted (see `advance`).
    }
}

/// The append still in the outbox for `to` whose entries end right before `prev_index` and
/// have room for more: its entries and commit index, for raft-rs's `batch_append`.
fn pending_append(
    msgs: &mut [Message],
    to: MemberId,
    term: Term,
    prev_index: Index,
    cap: usize,
) -> Option<(&mut EntryBatch, &mut Index)> {
    let m = msgs.iter_mut().rev().find(|m| m.to == to)?;
    if m.term != term {
        return None;
    }
    match &mut m.body {
        Body::Append {
            entries,
            commit,
            heartbeat: false,
            ..
        } if entries.last().map(|e| e.index) == Some(prev_index) && entries.len() < cap => {
            Some((entries, commit))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::base::{MemberId, Rng};
    use crate::raft::message::{Body, EntryBatch};
    use crate::raft::{Config, Message, Raft};

    /// Voters m1..mN, batching or not; member i draws from `Rng::new(seed * 100 + i)`.
    fn voters(n: u64, batch_append: bool, seed: u64) -> Vec<Raft> {
        let voters: Vec<MemberId> = (1..=n).map(MemberId).collect();
        (voters.iter())
            .map(|id| {
                let mut config = Config::new(*id, voters.clone());
                config.batch_append = batch_append;
                Raft::new(config, Rng::new(seed * 100 + id.0))
            })
            .collect()
    }

    /// Three voters, every message delivered at once; returns the appends m1 sent while
    /// committing ten proposals handed to it in one burst, and the nodes.
    fn burst(batch_append: bool) -> (usize, Vec<Raft>) {
        let mut nodes = voters(3, batch_append, 0);
        nodes[0].force_timeout();
        deliver_all(&mut nodes, |_| {});
        assert!(nodes[0].is_leader());
        for i in 0..10u8 {
            nodes[0].propose(vec![i]).expect("leader accepts");
        }
        let mut appends = 0;
        deliver_all(&mut nodes, |m| {
            if m.from == MemberId(1) && m.kind() == "AppendEntries" {
                appends += 1;
            }
        });
        (appends, nodes)
    }

    /// raft-rs's `batch_append`: a burst rides in one append per follower (and the commit
    /// advance in one more), and the logs end
    /// the same as without it.
    #[test]
    fn batch_append_sends_one_append_per_follower_per_burst() {
        let (plain, unbatched) = burst(false);
        let (batched, nodes) = burst(true);
        assert_eq!(
            plain, 40,
            "per follower: one per proposal, one per commit advance"
        );
        assert_eq!(
            batched, 4,
            "per follower: one for the burst, one for its commit"
        );
        for (a, b) in nodes.iter().zip(&unbatched) {
            assert_eq!(a.log().committed, b.log().committed);
            assert_eq!(a.log().last_index(), a.log().committed);
        }
    }

    /// A broadcast hands every follower at the same point one shared list of entries, with
    /// or without batching; an append to one follower alone has its own.
    #[test]
    fn followers_at_the_same_point_share_one_list_of_entries() {
        for batch_append in [false, true] {
            let mut nodes = voters(5, batch_append, 0);
            nodes[0].force_timeout();
            deliver_all(&mut nodes, |_| {});
            nodes[0].propose(b"x".to_vec()).expect("leader accepts");
            let rd = nodes[0].ready();
            let lists: Vec<&EntryBatch> = (rd.messages.iter())
                .filter_map(|m| match &m.body {
                    Body::Append { entries, .. } if !entries.is_empty() => Some(entries),
                    _ => None,
                })
                .collect();
            assert_eq!(lists.len(), 4, "batch_append {batch_append}");
            assert!(
                lists.iter().all(|l| l.shares(lists[0])),
                "batch_append {batch_append}"
            );
            assert_eq!(lists[0].len(), 1);
        }
    }

    /// Delivers every message (each shown to `seen` first) until no node has a Ready left.
    fn deliver_all(nodes: &mut [Raft], mut seen: impl FnMut(&Message)) {
        loop {
            let mut queue: Vec<Message> = Vec::new();
            for node in nodes.iter_mut().filter(|n| n.has_ready()) {
                let rd = node.ready();
                node.advance(&rd);
                queue.extend(rd.messages);
            }
            if queue.is_empty() {
                return;
            }
            for m in queue {
                seen(&m);
                nodes[(m.to.0 - 1) as usize].step(m);
            }
        }
    }

    /// With `batch_append` a leader's proposals wait for its next Ready; a follower that got
    /// them meanwhile (a heartbeat's answer showed it behind) is not sent them twice, nor an
    /// empty append.
    #[test]
    fn batched_proposals_go_out_once_at_the_next_ready() {
        let (_, mut nodes) = burst(true);
        let leader = &mut nodes[0];
        let (term, matched) = (leader.term, leader.log().last_index());
        leader.propose(vec![10]).expect("leader accepts");
        leader.propose(vec![11]).expect("leader accepts");
        assert!(leader.msgs.is_empty(), "nothing sent before the Ready");
        leader.step(Message {
            from: MemberId(2),
            to: MemberId(1),
            term,
            body: Body::AppendResp {
                index: matched,
                reject: false,
                hint_index: 0,
                hint_term: 0,
                heartbeat: true,
                read_ctx: 0,
            },
        });
        let sent: Vec<(u64, Vec<u64>)> = (leader.ready().messages.iter())
            .filter_map(|m| match &m.body {
                Body::Append { entries, .. } => {
                    Some((m.to.0, entries.iter().map(|e| e.index).collect()))
                }
                _ => None,
            })
            .collect();
        let new = vec![matched + 1, matched + 2];
        assert_eq!(sent, vec![(2, new.clone()), (3, new)]);
    }

    /// Every member's Readies until it has none: persisted, sent, applied.
    fn drive(
        nodes: &mut [Raft],
        disks: &mut [crate::raft::Durable],
        applied: &mut [Applied],
        net: &mut Vec<Message>,
    ) {
        for ((node, disk), applied) in nodes.iter_mut().zip(disks).zip(applied) {
            while node.has_ready() {
                let mut rd = node.ready();
                disk.persist(&rd);
                net.append(&mut rd.messages);
                for e in &rd.committed_entries {
                    applied.insert(e.index, (e.term, e.data.to_vec()));
                }
                node.advance(&rd);
            }
        }
    }

    /// A member's applied entries: index → (term, data).
    type Applied = std::collections::BTreeMap<u64, (u64, Vec<u8>)>;

    /// Safety of the batched path under a hostile network: 5 voters with `batch_append`,
    /// messages delivered in random order, some lost or duplicated, random ticks and bursts
    /// of proposals on whoever leads. Every index applied anywhere holds the same entry
    /// everywhere (state machine safety), and once the network is kind all apply as much.
    #[test]
    fn batched_appends_keep_state_machine_safety_on_a_random_network() {
        use crate::raft::Durable;
        for seed in 1..=100 {
            let mut rng = Rng::new(seed);
            let mut nodes = voters(5, true, seed);
            let mut disks = vec![Durable::default(); nodes.len()];
            let mut applied = vec![Applied::new(); 5];
            let mut net: Vec<Message> = Vec::new();
            let mut proposed = 0u32;
            for round in 0..6_000 {
                let hostile = round < 5_000;
                match rng.range(0, 10) {
                    0 | 1 => nodes[rng.range(0, 5) as usize].tick(),
                    2 => {
                        if let Some(leader) = nodes.iter_mut().find(|n| n.is_leader()) {
                            for _ in 0..rng.range(1, 6) {
                                proposed += 1;
                                let _ = leader.propose(proposed.to_be_bytes().to_vec());
                            }
                        }
                    }
                    _ if net.is_empty() => {}
                    _ => {
                        let m = net.swap_remove(rng.range(0, net.len() as u64) as usize);
                        if hostile && rng.chance(0.05) {
                            net.push(m.clone());
                        }
                        if !hostile || !rng.chance(0.1) {
                            nodes[(m.to.0 - 1) as usize].step(m);
                        }
                    }
                }
                drive(&mut nodes, &mut disks, &mut applied, &mut net);
            }
            // A kind network and no more proposals: heartbeats bring every member level.
            for _ in 0..50 {
                for node in &mut nodes {
                    node.tick();
                }
                while !net.is_empty() || nodes.iter().any(Raft::has_ready) {
                    for m in std::mem::take(&mut net) {
                        nodes[(m.to.0 - 1) as usize].step(m);
                    }
                    drive(&mut nodes, &mut disks, &mut applied, &mut net);
                }
            }
            for index in applied.iter().flat_map(|a| a.keys()) {
                let at: Vec<_> = applied.iter().filter_map(|a| a.get(index)).collect();
                assert!(
                    at.windows(2).all(|w| w[0] == w[1]),
                    "seed {seed}: index {index} applied as {at:?}"
                );
            }
            let lengths: Vec<usize> = applied.iter().map(Applied::len).collect();
            assert!(
                lengths.iter().all(|n| *n == lengths[0]) && proposed > 0,
                "seed {seed}: applied {lengths:?} of {proposed} proposed"
            );
        }
    }
}
