//! Tab completion of a console line, as bash's programmable completion does it for these
//! tools: the verbs, then each tool's own commands (read from its command table), resource
//! types for kubectl, member names where a member goes. One Tab completes what all
//! candidates share; when they still differ, the candidates are listed (bash lists them on
//! the second Tab; the page shows them at once, since it has room).

use crate::kube::meta;

/// What Tab did to a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The line with the word completed as far as every candidate agrees.
    pub line: String,
    /// The candidates, sorted, when more than one fits (none when one or none fits).
    pub candidates: Vec<String>,
}

/// Completes the last word of `line`; `members` are the members' names.
pub fn complete(line: &str, members: &[String]) -> Completion {
    let cut = line
        .rfind(|c: char| c.is_whitespace() || c == ',' || c == '|' || c == '=')
        .map_or(0, |i| i + 1);
    let (head, word) = line.split_at(cut);
    let before: Vec<&str> = head.split_whitespace().collect();
    let mut fits: Vec<String> = pool(&before, members)
        .into_iter()
        .filter(|c| c.starts_with(word))
        .collect();
    fits.sort();
    fits.dedup();
    match fits.as_slice() {
        [] => Completion {
            line: line.to_string(),
            candidates: Vec::new(),
        },
        [only] => Completion {
            line: format!("{head}{only} "),
            candidates: Vec::new(),
        },
        many => Completion {
            line: format!("{head}{}", common_prefix(many)),
            candidates: many.to_vec(),
        },
    }
}

fn common_prefix(words: &[String]) -> String {
    let mut common = words[0].clone();
    for w in &words[1..] {
        let same = common
            .chars()
            .zip(w.chars())
            .take_while(|(a, b)| a == b)
            .count();
        common = common.chars().take(same).collect();
    }
    common
}

/// The words that may come after `before` (the words already typed, flags skipped for the
/// tools' command paths).
fn pool(before: &[&str], members: &[String]) -> Vec<String> {
    let Some((first, rest)) = before.split_first() else {
        return super::verbs::names().map(str::to_string).collect();
    };
    let plain: Vec<&str> = rest
        .iter()
        .copied()
        .filter(|w| !w.starts_with('-'))
        .collect();
    match *first {
        "etcdctl" => next_words(super::etcdctl::command_paths(), &plain),
        "kubectl" => kubectl(&plain),
        "kube" if plain.is_empty() => [
            "up",
            "down",
            "apiserver",
            "trace",
            "stop-kubelet",
            "start-kubelet",
        ]
        .map(str::to_string)
        .to_vec(),
        "wait" if plain.is_empty() => vec!["leader".into(), "1s".into(), "until".into()],
        "status" => vec!["-w".into(), "json".into()],
        "help" if plain.is_empty() => super::verbs::names().map(str::to_string).collect(),
        _ => members
            .iter()
            .cloned()
            .chain(std::iter::once("leader".to_string()))
            .collect(),
    }
}

/// The next word of a command path (`lease` → `grant`, `revoke`…) after the words typed.
fn next_words(paths: impl Iterator<Item = &'static str>, typed: &[&str]) -> Vec<String> {
    paths
        .filter_map(|path| {
            let words: Vec<&str> = path.split(' ').collect();
            (words.len() > typed.len() && words[..typed.len()] == *typed)
                .then(|| words[typed.len()].to_string())
        })
        .collect()
}

fn kubectl(typed: &[&str]) -> Vec<String> {
    let takes_type = matches!(typed.first(), Some(&("get" | "describe" | "delete")));
    if takes_type && typed.len() == 1 {
        return meta::ALL.iter().map(|r| r.plural.to_string()).collect();
    }
    next_words(super::kubectl::command_paths(), typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn members() -> Vec<String> {
        vec!["m1".into(), "m2".into(), "m3".into()]
    }

    #[test]
    fn one_candidate_completes_the_word_and_a_space() {
        let c = complete("par", &members());
        assert_eq!((c.line.as_str(), c.candidates.len()), ("partition ", 0));
        assert_eq!(complete("etcdctl mem", &members()).line, "etcdctl member ");
        assert_eq!(
            complete("etcdctl member li", &members()).line,
            "etcdctl member list "
        );
        assert_eq!(
            complete("etcdctl --endpoints=m2 sn", &members()).line,
            "etcdctl --endpoints=m2 snapshot "
        );
        assert_eq!(complete("kill m", &members()).line, "kill m");
        assert_eq!(
            complete("kubectl get depl", &members()).line,
            "kubectl get deployments "
        );
        assert_eq!(
            complete("kubectl rollout st", &members()).line,
            "kubectl rollout status "
        );
    }

    #[test]
    fn ambiguous_words_list_every_candidate_sorted() {
        let c = complete("k", &members());
        assert_eq!(c.line, "k");
        assert_eq!(c.candidates, ["kill", "kube", "kubectl"]);
        let c = complete("kub", &members());
        assert_eq!((c.line.as_str(), c.candidates.len()), ("kube", 2));
        let c = complete("etcdctl lease ", &members());
        assert_eq!(
            c.candidates,
            ["grant", "keep-alive", "list", "revoke", "timetolive"]
        );
        let c = complete("kill ", &members());
        assert_eq!(c.candidates, ["leader", "m1", "m2", "m3"]);
        let c = complete("partition m1,", &members());
        assert_eq!(c.candidates, ["leader", "m1", "m2", "m3"]);
    }

    #[test]
    fn nothing_fits_leaves_the_line_alone() {
        let c = complete("frob", &members());
        assert_eq!((c.line.as_str(), c.candidates.len()), ("frob", 0));
        assert_eq!(
            complete("", &members()).candidates.len(),
            super::super::verbs::VERBS.len()
        );
    }
}
