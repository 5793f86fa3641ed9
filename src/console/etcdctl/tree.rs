//! etcdctl 3.4's command tree as cobra holds it, simulated or not: etcdctl turns on cobra's
//! prefix matching (`etcdctl compact 5` runs `compaction`, `member li` runs `member list`), and
//! an unknown or ambiguous word gets cobra's "Did you mean this?" list, in the order the
//! commands were added (ctlv3/ctl.go), as Debian's etcdctl 3.4.23 prints it (measured).

/// Every command and its subcommands, in cobra's order (`help` and `completion` are cobra's
/// own, added last).
const TREE: &[(&str, &[&str])] = &[
    ("get", &[]),
    ("put", &[]),
    ("del", &[]),
    ("txn", &[]),
    ("compaction", &[]),
    ("alarm", &["disarm", "list"]),
    ("defrag", &[]),
    ("endpoint", &["health", "status", "hashkv"]),
    ("move-leader", &[]),
    ("watch", &[]),
    ("version", &[]),
    (
        "lease",
        &["grant", "revoke", "timetolive", "list", "keep-alive"],
    ),
    ("member", &["add", "remove", "update", "list", "promote"]),
    ("snapshot", &["save", "restore", "status"]),
    ("make-mirror", &[]),
    ("migrate", &[]),
    ("lock", &[]),
    ("elect", &[]),
    ("auth", &["enable", "disable"]),
    (
        "user",
        &[
            "add",
            "delete",
            "get",
            "list",
            "passwd",
            "grant-role",
            "revoke-role",
        ],
    ),
    (
        "role",
        &[
            "add",
            "delete",
            "get",
            "list",
            "grant-permission",
            "revoke-permission",
        ],
    ),
    ("check", &["perf", "datascale"]),
    ("help", &[]),
    ("completion", &["bash", "fish", "powershell", "zsh"]),
];

/// The command `word` names among `names`: its exact name, else the one name it is a prefix
/// of (cobra's `findNext` with `EnablePrefixMatching`). None: unknown or ambiguous.
fn find<'a>(names: impl Iterator<Item = &'a str> + Clone, word: &str) -> Option<&'a str> {
    if let Some(exact) = names.clone().find(|n| *n == word) {
        return Some(exact);
    }
    let mut prefixed = names.filter(|n| n.starts_with(word));
    match (prefixed.next(), prefixed.next()) {
        (Some(one), None) if !word.is_empty() => Some(one),
        _ => None,
    }
}

/// The top-level command `word` names.
pub fn command(word: &str) -> Option<&'static str> {
    find(TREE.iter().map(|(n, _)| *n), word)
}

/// The subcommand of `group` that `word` names.
pub fn subcommand(group: &str, word: &str) -> Option<&'static str> {
    let (_, subs) = TREE.iter().find(|(n, _)| *n == group)?;
    find(subs.iter().copied(), word)
}

/// What each group says of itself in its help: its usage words and cobra's `Short`.
const GROUP_SHORT: &[(&str, &str, &str)] = &[
    ("alarm", "alarm <subcommand>", "Alarm related commands"),
    (
        "endpoint",
        "endpoint <subcommand>",
        "Endpoint related commands",
    ),
    ("lease", "lease <subcommand>", "Lease related commands"),
    (
        "member",
        "member <subcommand>",
        "Membership related commands",
    ),
    (
        "snapshot",
        "snapshot <subcommand>",
        "Manages etcd node snapshots",
    ),
    (
        "check",
        "check <subcommand>",
        "commands for checking properties of the etcd cluster",
    ),
    (
        "auth",
        "auth <enable or disable>",
        "Enable or disable authentication",
    ),
    ("user", "user <subcommand>", "User related commands"),
    ("role", "role <subcommand>", "Role related commands"),
];

/// A group's usage words and short description; None for `completion`, whose help has
/// more (not kept).
pub fn group_short(group: &str) -> Option<(&'static str, &'static str)> {
    GROUP_SHORT
        .iter()
        .find(|(g, _, _)| *g == group)
        .map(|(_, u, s)| (*u, *s))
}

/// A group's subcommands and their descriptions, read from the root help's command list.
pub fn subcommands<'a>(group: &str, root_help: &'a str) -> Vec<(&'a str, &'a str)> {
    let prefix = format!("\t{group} ");
    root_help
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split_once('\t'))
        .map(|(sub, short)| (sub, short.trim_start_matches('\t')))
        .collect()
}

/// A command that only groups others (`lease`, `member`…).
pub fn is_group(name: &str) -> bool {
    TREE.iter().any(|(n, subs)| *n == name && !subs.is_empty())
}

/// cobra's `SuggestionsFor`: the commands within 2 edits of `word`, or that it starts,
/// case-insensitively (`help` is never suggested).
pub fn suggestions(word: &str) -> Vec<&'static str> {
    let typed = word.to_lowercase();
    // Words whose lengths differ by more than 2 are more than 2 edits apart: a pasted
    // megabyte word no longer costs a distance to every command (billions of steps).
    let length = typed.chars().count();
    let near = |n: &str| length.abs_diff(n.chars().count()) <= 2 && levenshtein(&typed, n) <= 2;
    TREE.iter()
        .map(|(n, _)| *n)
        .filter(|n| *n != "help")
        .filter(|n| near(n) || n.starts_with(&typed))
        .collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// cobra's unknown-command error (the suggestions part of its message).
pub fn unknown_command(word: &str) -> String {
    let mut msg = format!(
        "unknown command {} for \"etcdctl\"",
        super::args::go_quote(word)
    );
    let found = suggestions(word);
    if !found.is_empty() {
        msg.push_str("\n\nDid you mean this?\n");
        for s in found {
            msg.push_str(&format!("\t{s}\n"));
        }
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unambiguous_prefixes_name_their_command() {
        assert_eq!(command("compact"), Some("compaction"));
        assert_eq!(command("compaction"), Some("compaction"));
        assert_eq!(command("ver"), Some("version"));
        assert_eq!(command("s"), Some("snapshot"));
        assert_eq!(command("h"), Some("help"));
        assert_eq!(command("comp"), None, "compaction or completion");
        assert_eq!(command("e"), None, "endpoint or elect");
        assert_eq!(command(""), None);
        assert_eq!(subcommand("member", "li"), Some("list"));
        assert_eq!(subcommand("member", "l"), Some("list"));
        assert_eq!(subcommand("endpoint", "h"), None, "health or hashkv");
        assert_eq!(subcommand("snapshot", "sa"), Some("save"));
        assert!(is_group("lease") && !is_group("get"));
    }

    /// `raftlab fuzz --target etcdctl --seed 1 --from 7686`: a 1.6 MB word cost 4.5 G
    /// instructions of edit distances; lengths more than 2 apart now skip them, and a word
    /// 2 longer than a command is still suggested it.
    #[test]
    fn a_huge_word_is_suggested_nothing_and_quickly() {
        assert!(suggestions(&"compaction".repeat(160_000)).is_empty());
        assert_eq!(suggestions("memberxx"), ["member"]);
        assert_eq!(suggestions("memberxxx"), Vec::<&str>::new());
    }

    /// The lists Debian's etcdctl 3.4.23 printed for these words.
    #[test]
    fn suggestions_follow_cobra() {
        assert_eq!(suggestions("comp"), ["compaction", "completion"]);
        assert_eq!(suggestions("c"), ["compaction", "check", "completion"]);
        assert_eq!(suggestions("e"), ["get", "del", "endpoint", "elect"]);
        assert_eq!(
            suggestions("m"),
            ["move-leader", "member", "make-mirror", "migrate"]
        );
        assert_eq!(suggestions("l"), ["del", "lease", "lock"]);
        assert!(suggestions("zz").is_empty());
        assert_eq!(
            unknown_command("comp"),
            "unknown command \"comp\" for \"etcdctl\"\n\nDid you mean this?\n\tcompaction\n\tcompletion\n"
        );
        assert_eq!(
            unknown_command("zz"),
            "unknown command \"zz\" for \"etcdctl\""
        );
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }
}
