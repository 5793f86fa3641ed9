//! The lessons that ship with Raft Lab, compiled in (the page and the CLI need no fetch). The
//! order here is the order of the table of contents.

use super::format::Lesson;

/// Each shipped file: its name under `static/lessons/` and its text.
pub const FILES: &[(&str, &str)] = &[
    (
        "01-registry.yaml",
        include_str!("../../static/lessons/01-registry.yaml"),
    ),
    (
        "02-desired-observed.yaml",
        include_str!("../../static/lessons/02-desired-observed.yaml"),
    ),
    (
        "03-apiserver-only.yaml",
        include_str!("../../static/lessons/03-apiserver-only.yaml"),
    ),
    (
        "04-secrets.yaml",
        include_str!("../../static/lessons/04-secrets.yaml"),
    ),
    (
        "05-leader-election.yaml",
        include_str!("../../static/lessons/05-leader-election.yaml"),
    ),
    (
        "06-write-journey.yaml",
        include_str!("../../static/lessons/06-write-journey.yaml"),
    ),
    (
        "07-quorum.yaml",
        include_str!("../../static/lessons/07-quorum.yaml"),
    ),
    (
        "08-odd-members.yaml",
        include_str!("../../static/lessons/08-odd-members.yaml"),
    ),
    (
        "09-partitions.yaml",
        include_str!("../../static/lessons/09-partitions.yaml"),
    ),
    (
        "10-reading-the-registry.yaml",
        include_str!("../../static/lessons/10-reading-the-registry.yaml"),
    ),
    (
        "11-backup.yaml",
        include_str!("../../static/lessons/11-backup.yaml"),
    ),
    (
        "12-restore.yaml",
        include_str!("../../static/lessons/12-restore.yaml"),
    ),
    (
        "13-mvcc-history.yaml",
        include_str!("../../static/lessons/13-mvcc-history.yaml"),
    ),
    (
        "14-healthy-etcd.yaml",
        include_str!("../../static/lessons/14-healthy-etcd.yaml"),
    ),
    (
        "15-breaking-raft.yaml",
        include_str!("../../static/lessons/15-breaking-raft.yaml"),
    ),
];

/// The shipped lessons, parsed; a file that does not parse is an error naming it (the unit
/// tests and `raftlab lesson check --all` make sure none does).
pub fn all() -> Result<Vec<Lesson>, String> {
    FILES
        .iter()
        .map(|(name, text)| Lesson::parse(&format!("static/lessons/{name}"), text))
        .collect()
}

/// The shipped lesson with this id: the file named `NN-ID.yaml` (the tests hold every file to
/// that name), so one broken file does not hide the others.
pub fn find(id: &str) -> Result<Lesson, String> {
    let file = FILES.iter().find(|(name, _)| {
        name.split_once('-')
            .is_some_and(|(_, rest)| rest == format!("{id}.yaml"))
    });
    match file {
        Some((name, text)) => Lesson::parse(&format!("static/lessons/{name}"), text),
        None => {
            let ids: Vec<&str> = FILES
                .iter()
                .filter_map(|(n, _)| n.split_once('-')?.1.strip_suffix(".yaml"))
                .collect();
            Err(format!("no lesson {id:?} (one of: {})", ids.join(", ")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The folder and the list agree: a lesson file nobody lists (or a listed one that is
    /// gone) fails here, as does a file whose name does not carry its lesson's id.
    #[test]
    fn the_list_is_the_folder() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("static/lessons");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("static/lessons")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect();
        on_disk.sort();
        let listed: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(
            listed, on_disk,
            "FILES must list static/lessons/*.yaml, in order"
        );
        for (name, text) in FILES {
            let on_disk = std::fs::read_to_string(dir.join(name)).expect("read");
            assert_eq!(&on_disk, text, "{name}");
        }
    }

    #[test]
    fn every_shipped_lesson_parses_and_is_named_by_its_id() {
        let lessons = all().unwrap_or_else(|e| panic!("{e}"));
        let mut ids = std::collections::BTreeSet::new();
        for ((name, _), lesson) in FILES.iter().zip(&lessons) {
            let (number, rest) = name.split_once('-').expect("NN-id.yaml");
            assert!(
                number.len() == 2 && number.bytes().all(|b| b.is_ascii_digit()),
                "{name}"
            );
            assert_eq!(rest, format!("{}.yaml", lesson.id), "{name}");
            assert!(
                ids.insert(lesson.id.clone()),
                "two lessons called {}",
                lesson.id
            );
        }
        assert!(find("no-such-lesson").unwrap_err().contains("no lesson"));
    }
}
