//! The pure part of the ring and its panels (compiled natively, so `cargo test --lib` checks
//! it): where message labels go so that none covers a member or another label, the short
//! codes they use, repeated events folded into one line, and the words of the network's state.

use crate::base::MemberId;
use crate::etcd::PartitionView;

/// Each message kind's short code on the ring, in the order the legend lists them. A reply
/// is its request's code with ↩.
pub const CODES: &[(&str, &str)] = &[
    ("PreVote", "PV"),
    ("PreVoteResp", "PV↩"),
    ("RequestVote", "RV"),
    ("RequestVoteResp", "RV↩"),
    ("AppendEntries", "AE"),
    ("AppendResp", "AE↩"),
    ("Heartbeat", "HB"),
    ("HeartbeatResp", "HB↩"),
    ("InstallSnapshot", "SNAP"),
    ("TimeoutNow", "TN"),
    ("ReadIndex", "RI"),
    ("ReadIndexResp", "RI↩"),
    ("Propose", "PROP"),
    ("TransferLeader", "TL"),
];

/// The code of a message kind (the kind itself when it has none).
pub fn short_code(kind: &str) -> &str {
    CODES
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(kind, |(_, code)| code)
}

/// A message as a label needs it: which edge, which way, what.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Wire<'a> {
    pub from: usize,
    pub to: usize,
    pub kind: &'a str,
    pub entries: usize,
}

/// One label per edge and direction: the codes of what travels on it, `×N` for several.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeLabel {
    pub from: usize,
    pub to: usize,
    pub text: String,
    /// Messages on this edge in this direction.
    pub count: usize,
    /// Only heartbeats travel here (the label fades with them).
    pub heartbeat_only: bool,
}

/// The labels for `wires`, one per (from, to), in the order each edge first appears.
pub fn edge_labels(wires: &[Wire]) -> Vec<EdgeLabel> {
    // Per edge: each kind on it, how many of it, and their entries.
    type Kinds<'k> = Vec<(&'k str, usize, usize)>;
    let mut edges: Vec<(usize, usize, Kinds)> = Vec::new();
    for w in wires {
        let at = match edges
            .iter()
            .position(|(f, t, _)| (*f, *t) == (w.from, w.to))
        {
            Some(at) => at,
            None => {
                edges.push((w.from, w.to, Vec::new()));
                edges.len() - 1
            }
        };
        let kinds = &mut edges[at].2;
        match kinds.iter_mut().find(|(k, _, _)| *k == w.kind) {
            Some((_, n, entries)) => {
                *n += 1;
                *entries += w.entries;
            }
            None => kinds.push((w.kind, 1, w.entries)),
        }
    }
    edges
        .into_iter()
        .map(|(from, to, kinds)| EdgeLabel {
            from,
            to,
            count: kinds.iter().map(|(_, n, _)| n).sum(),
            heartbeat_only: kinds.iter().all(|(k, _, _)| k.starts_with("Heartbeat")),
            text: kinds
                .iter()
                .map(|(kind, n, entries)| match (n, entries) {
                    (1, 0) => short_code(kind).to_string(),
                    (1, e) => format!("{}({e})", short_code(kind)),
                    (n, _) => format!("{}×{n}", short_code(kind)),
                })
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect()
}

/// Sizes the layout works with, in SVG user units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelMetrics {
    /// Radius around a member's centre that no label may enter (its halo and timer arc).
    pub keep_out: f64,
    pub char_width: f64,
    pub height: f64,
}

impl LabelMetrics {
    /// The boxes of labels set in `font` (SVG units) of the ring's bold sans type.
    pub fn for_font(font: f64, keep_out: f64) -> LabelMetrics {
        LabelMetrics {
            keep_out,
            char_width: font * 0.625,
            height: font * 4.0 / 3.0,
        }
    }

    fn width(&self, text: &str) -> f64 {
        text.chars().count() as f64 * self.char_width + 8.0
    }
}

/// A placed label's box, centre and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Placed {
    fn overlaps(&self, other: &Placed, margin: f64) -> bool {
        (self.x - other.x).abs() * 2.0 < self.width + other.width + 2.0 * margin
            && (self.y - other.y).abs() * 2.0 < self.height + other.height + 2.0 * margin
    }

    fn touches_circle(&self, (cx, cy): (f64, f64), r: f64) -> bool {
        let nx = cx.clamp(self.x - self.width / 2.0, self.x + self.width / 2.0);
        let ny = cy.clamp(self.y - self.height / 2.0, self.y + self.height / 2.0);
        (nx - cx).powi(2) + (ny - cy).powi(2) < r * r
    }
}

/// Where along the edge (from the sender) a label may sit, best first.
const ALONG: [f64; 9] = [0.5, 0.4, 0.6, 0.32, 0.68, 0.45, 0.55, 0.25, 0.75];

/// Places each label beside its edge, on the sender's left (so the two directions of an
/// edge never share a side), at the first spot that enters no member's keep-out circle and
/// no label placed before; a label with no free spot takes the least crowded one.
pub fn place_labels(
    nodes: &[(f64, f64)],
    labels: &[EdgeLabel],
    metrics: LabelMetrics,
) -> Vec<Placed> {
    let mut placed: Vec<Placed> = Vec::new();
    for label in labels {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (nodes.get(label.from), nodes.get(label.to))
        else {
            placed.push(Placed {
                x: 0.0,
                y: 0.0,
                width: 0.0,
                height: 0.0,
            });
            continue;
        };
        let (dx, dy) = (x2 - x1, y2 - y1);
        let len = (dx * dx + dy * dy).sqrt().max(1.0);
        // The sender's left, in SVG coordinates (y grows downwards).
        let (nx, ny) = (dy / len, -dx / len);
        let (width, height) = (metrics.width(&label.text), metrics.height);
        let offsets = [height / 2.0 + 3.0, height * 1.5 + 5.0];
        let candidates = offsets.iter().flat_map(|off| {
            ALONG.iter().map(move |t| Placed {
                x: x1 + dx * t + nx * off,
                y: y1 + dy * t + ny * off,
                width,
                height,
            })
        });
        let crowding = |c: &Placed| {
            let nodes_hit = nodes
                .iter()
                .filter(|n| c.touches_circle(**n, metrics.keep_out))
                .count();
            let labels_hit = placed.iter().filter(|p| c.overlaps(p, 2.0)).count();
            nodes_hit * 10 + labels_hit
        };
        let best = candidates
            .enumerate()
            .min_by_key(|(i, c)| (crowding(c), *i))
            .map(|(_, c)| c);
        if let Some(best) = best {
            placed.push(best);
        }
    }
    placed
}

/// Items with an equal `key` folded into one: the latest of them, how many there were, and
/// the index of the first; ordered by their latest occurrence, as a log reads.
pub fn fold_repeats<T, K: PartialEq>(
    items: &[T],
    key: impl Fn(&T) -> K,
) -> Vec<(usize, usize, usize)> {
    let mut folded: Vec<(K, usize, usize, usize)> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        match folded.iter_mut().find(|(fk, ..)| *fk == k) {
            Some((_, latest, count, _)) => {
                *latest = i;
                *count += 1;
            }
            None => folded.push((k, i, 1, i)),
        }
    }
    let mut out: Vec<(usize, usize, usize)> = folded
        .into_iter()
        .map(|(_, latest, count, first)| (latest, count, first))
        .collect();
    out.sort_by_key(|(latest, ..)| *latest);
    out
}

fn set(members: &[MemberId]) -> String {
    let names: Vec<String> = members.iter().map(|m| m.to_string()).collect();
    format!("{{{}}}", names.join(","))
}

/// The network's state in the words of the status chip, without its prefix:
/// `{m1} | {m2,m3}`, then one-way blocks (`m2→m1 ✕`) and lossy links (`m1→m2 25%`).
/// Empty when every link works.
pub fn partition_chip(view: &PartitionView) -> String {
    let mut parts = Vec::new();
    if view.groups.len() > 1 {
        let groups: Vec<String> = view.groups.iter().map(|g| set(g)).collect();
        parts.push(groups.join(" | "));
    }
    parts.extend(view.blocked.iter().map(|(a, b)| format!("{a}→{b} ✕")));
    parts.extend(
        view.lossy
            .iter()
            .map(|(a, b, p)| format!("{a}→{b} {}%", (p * 100.0).round())),
    );
    parts.join(" · ")
}

/// The codes a log cell names an entry's kind with: the first word of the entry's summary and
/// its code (etcd's own entries shortened to fit a cell); a configuration change is
/// `CONF_CODE`. Any other first word is its own code, cut to five letters.
pub const ENTRY_CODES: &[(&str, &str)] = &[
    ("put", "put"),
    ("del", "del"),
    ("txn", "txn"),
    ("noop", "noop"),
    ("publish", "pub"),
    ("cluster", "ver"),
    ("compact", "cmp"),
];
pub const CONF_CODE: &str = "conf";

/// The kind of a log entry as its cell names it (`ENTRY_CODES`).
pub fn entry_kind_label(summary: &str, config: bool) -> String {
    if config {
        return CONF_CODE.into();
    }
    let word = summary.split_whitespace().next().unwrap_or("");
    let short = ENTRY_CODES
        .iter()
        .find(|(w, _)| *w == word)
        .map_or(word, |(_, code)| code);
    short.chars().take(5).collect()
}

/// The command of the one-click client write: a put through the leader itself, of a value
/// that changes with each write (the store's next revision).
pub fn client_write(leader: MemberId, revision: i64) -> String {
    format!("etcdctl --endpoints={leader} put demo v{}", revision + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(n: usize) -> Vec<(f64, f64)> {
        (0..n)
            .map(|i| {
                let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / n as f64;
                (280.0 + 200.0 * a.cos(), 280.0 + 200.0 * a.sin())
            })
            .collect()
    }

    fn wire(from: usize, to: usize, kind: &str) -> Wire<'_> {
        Wire {
            from,
            to,
            kind,
            entries: 0,
        }
    }

    #[test]
    fn one_label_per_edge_and_direction_with_counts() {
        let wires = [
            wire(0, 1, "Heartbeat"),
            wire(0, 1, "Heartbeat"),
            wire(1, 0, "HeartbeatResp"),
            Wire {
                entries: 2,
                ..wire(0, 2, "AppendEntries")
            },
            wire(0, 1, "AppendEntries"),
            wire(0, 1, "Heartbeat"),
        ];
        let labels = edge_labels(&wires);
        let texts: Vec<(usize, usize, &str, usize)> = labels
            .iter()
            .map(|l| (l.from, l.to, l.text.as_str(), l.count))
            .collect();
        assert_eq!(
            texts,
            [(0, 1, "HB×3 AE", 4), (1, 0, "HB↩", 1), (0, 2, "AE(2)", 1)]
        );
        assert_eq!(short_code("Nonsense"), "Nonsense");
    }

    /// The picture the issue showed: every label piled up at the leader. Every edge of a
    /// 3, 4 and 5 member ring, both ways, must find a spot clear of members and labels.
    #[test]
    fn labels_stay_off_the_members_and_each_other() {
        let metrics = LabelMetrics {
            keep_out: 58.0,
            char_width: 7.5,
            height: 16.0,
        };
        for n in 3..=5 {
            let nodes = ring(n);
            let wires: Vec<Wire> = (0..n)
                .flat_map(|a| {
                    (0..n)
                        .filter(move |b| *b != a)
                        .map(move |b| wire(a, b, "AppendEntries"))
                })
                .collect();
            let labels = edge_labels(&wires);
            let placed = place_labels(&nodes, &labels, metrics);
            assert_eq!(placed.len(), labels.len());
            for (i, p) in placed.iter().enumerate() {
                for node in &nodes {
                    assert!(
                        !p.touches_circle(*node, metrics.keep_out),
                        "n={n} label {i} on a member"
                    );
                }
                for (j, q) in placed.iter().enumerate().skip(i + 1) {
                    assert!(!p.overlaps(q, 0.0), "n={n} labels {i} and {j} overlap");
                }
            }
        }
    }

    #[test]
    fn the_two_directions_of_an_edge_sit_on_opposite_sides() {
        let nodes = ring(3);
        let labels = edge_labels(&[wire(0, 1, "Heartbeat"), wire(1, 0, "HeartbeatResp")]);
        let metrics = LabelMetrics {
            keep_out: 58.0,
            char_width: 7.5,
            height: 16.0,
        };
        let placed = place_labels(&nodes, &labels, metrics);
        let side = |p: &Placed| {
            let ((x1, y1), (x2, y2)) = (nodes[0], nodes[1]);
            ((x2 - x1) * (p.y - y1) - (y2 - y1) * (p.x - x1)).signum()
        };
        assert_ne!(side(&placed[0]), side(&placed[1]));
    }

    #[test]
    fn repeats_fold_into_their_latest_with_a_count() {
        let events = ["a", "b", "a", "a", "c", "b"];
        let folded = fold_repeats(&events, |e| *e);
        // a: latest 3, ×3, first 0; c: 4; b: latest 5, ×2.
        assert_eq!(folded, [(3, 3, 0), (4, 1, 4), (5, 2, 1)]);
        assert!(fold_repeats(&[] as &[&str], |e| *e).is_empty());
    }

    #[test]
    fn the_chip_names_groups_one_way_blocks_and_lossy_links() {
        let (m1, m2, m3) = (MemberId(1), MemberId(2), MemberId(3));
        let view = PartitionView {
            groups: vec![vec![m1], vec![m2, m3]],
            blocked: vec![(m2, m3)],
            lossy: vec![(m3, m2, 0.25)],
        };
        assert_eq!(
            partition_chip(&view),
            "{m1} | {m2,m3} · m2→m3 ✕ · m3→m2 25%"
        );
        let whole = PartitionView {
            groups: vec![vec![m1, m2, m3]],
            ..PartitionView::default()
        };
        assert_eq!(partition_chip(&whole), "");
    }

    #[test]
    fn cells_name_their_entry_kind() {
        assert_eq!(entry_kind_label("put foo=bar", false), "put");
        assert_eq!(entry_kind_label("noop", false), "noop");
        assert_eq!(
            entry_kind_label("txn /registry/pods/x: mod_revision = 3 → put", false),
            "txn"
        );
        assert_eq!(entry_kind_label("+m4", true), "conf");
        assert_eq!(entry_kind_label("", false), "");
        assert_eq!(entry_kind_label("publish m1", false), "pub");
        assert_eq!(entry_kind_label("cluster version 3.4.0", false), "ver");
    }

    #[test]
    fn a_client_write_goes_to_the_leader_with_a_fresh_value() {
        assert_eq!(
            client_write(MemberId(2), 7),
            "etcdctl --endpoints=m2 put demo v8"
        );
    }
}
