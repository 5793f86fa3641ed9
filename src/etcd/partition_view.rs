//! The network as a state the page can name: which members can still talk both ways (the
//! groups a partition left), which links are blocked one way only, and which only lose some
//! messages. A link that loses every message (`drop m1 m2`) counts as blocked.

use super::cluster::Cluster;
use crate::base::MemberId;
use crate::sim::Network;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PartitionView {
    /// Members linked, directly or through one another, by links open in at least one
    /// direction; one group when nothing is cut both ways. Ordered by their first member.
    pub groups: Vec<Vec<MemberId>>,
    /// Directed links blocked inside a group (one-way cuts, or a partial cut between two
    /// members that still meet through a third).
    pub blocked: Vec<(MemberId, MemberId)>,
    /// Directed links that lose only some messages, with the probability.
    pub lossy: Vec<(MemberId, MemberId, f64)>,
}

impl PartitionView {
    pub fn of(members: &[MemberId], net: &Network) -> PartitionView {
        let loss = |a: MemberId, b: MemberId| net.link_loss.get(&(a, b)).copied().unwrap_or(0.0);
        let blocked = |a: MemberId, b: MemberId| net.is_cut(a, b) || loss(a, b) >= 1.0;
        let mut groups: Vec<Vec<MemberId>> = Vec::new();
        for start in members {
            if groups.iter().any(|g| g.contains(start)) {
                continue;
            }
            let mut group = vec![*start];
            let mut i = 0;
            while i < group.len() {
                let a = group[i];
                for b in members {
                    let linked = !blocked(a, *b) || !blocked(*b, a);
                    if linked && !group.contains(b) {
                        group.push(*b);
                    }
                }
                i += 1;
            }
            group.sort();
            groups.push(group);
        }
        let same_group =
            |a: &MemberId, b: &MemberId| groups.iter().any(|g| g.contains(a) && g.contains(b));
        let pairs = || {
            members
                .iter()
                .flat_map(|a| members.iter().map(move |b| (*a, *b)))
        };
        let inside: Vec<(MemberId, MemberId)> = pairs()
            .filter(|(a, b)| a != b && same_group(a, b) && blocked(*a, *b))
            .collect();
        let lossy = pairs()
            .map(|(a, b)| (a, b, loss(a, b)))
            .filter(|(a, b, p)| a != b && *p > 0.0 && *p < 1.0)
            .collect();
        PartitionView {
            groups,
            blocked: inside,
            lossy,
        }
    }

    /// Whether any link fails at all.
    pub fn is_whole(&self) -> bool {
        self.groups.len() <= 1 && self.blocked.is_empty() && self.lossy.is_empty()
    }

    /// The group of `member`, counted from 0 (0 also for a member not in the view).
    pub fn group_of(&self, member: MemberId) -> usize {
        self.groups
            .iter()
            .position(|g| g.contains(&member))
            .unwrap_or(0)
    }
}

impl Cluster {
    /// The network's state over every member, running or not.
    pub fn partition_view(&self) -> PartitionView {
        PartitionView::of(&self.member_ids(), &self.net)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: [MemberId; 4] = [MemberId(1), MemberId(2), MemberId(3), MemberId(4)];

    #[test]
    fn a_whole_network_is_one_group() {
        let view = PartitionView::of(&M[..3], &Network::default());
        assert_eq!(view.groups, [M[..3].to_vec()]);
        assert!(view.is_whole());
    }

    #[test]
    fn a_partition_leaves_its_groups() {
        let mut net = Network::default();
        net.isolate(M[0], &M[..3]);
        let view = PartitionView::of(&M[..3], &net);
        assert_eq!(view.groups, [vec![M[0]], vec![M[1], M[2]]]);
        assert!(view.blocked.is_empty() && !view.is_whole());
        assert_eq!((view.group_of(M[0]), view.group_of(M[2])), (0, 1));
        net.heal();
        assert!(PartitionView::of(&M[..3], &net).is_whole());
    }

    #[test]
    fn one_way_drops_and_partial_cuts_stay_inside_a_group() {
        let mut net = Network::default();
        // Nobody reaches m1, but m1 still reaches everyone: no group is cut off both ways.
        for m in &M[1..3] {
            net.link_loss.insert((*m, M[0]), 1.0);
        }
        net.link_loss.insert((M[0], M[1]), 0.25);
        let view = PartitionView::of(&M[..3], &net);
        assert_eq!(view.groups, [M[..3].to_vec()]);
        assert_eq!(view.blocked, [(M[1], M[0]), (M[2], M[0])]);
        assert_eq!(view.lossy, [(M[0], M[1], 0.25)]);
        net.link_loss.clear();
        // m1 and m2 cut from each other both ways, but both reach m3: one group.
        net.partition(&[vec![M[0]], vec![M[1]]]);
        net.link_loss.insert((M[2], M[3]), 0.5);
        let view = PartitionView::of(&M, &net);
        assert_eq!(view.groups, [M.to_vec()]);
        assert_eq!(view.blocked, [(M[0], M[1]), (M[1], M[0])]);
        assert_eq!(view.lossy, [(M[2], M[3], 0.5)]);
    }
}
