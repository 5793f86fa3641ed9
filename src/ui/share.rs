//! Share links: a URL fragment that carries the settings (seed, members, switches) and the run
//! so far as a script. Opening it replays the script on a fresh world, which reproduces the
//! run exactly (the engine is deterministic). Decoding is total: any text gives either a
//! `Shared` or a message saying what is wrong, never a panic.

use crate::base::parse_duration;
use crate::console::script;
use crate::etcd::{parse_members, ClusterConfig, Preset, Switch, MAX_MEMBERS};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use std::collections::{BTreeMap, BTreeSet};

/// Settings plus the script of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Shared {
    pub settings: ClusterConfig,
    pub script: String,
}

/// A loaded script may not run the page for longer than this much virtual time, nor have more
/// lines than this: a link must not freeze the tab.
pub const MAX_SCRIPT_MS: u64 = 60 * 60 * 1000;
pub const MAX_SCRIPT_LINES: usize = 5_000;
const MAX_FRAGMENT_CHARS: usize = 400_000;

/// The key links used for a switch before its name was the scripts' one: links already pasted
/// into a class's notes must keep opening as they did.
const FORMER_SWITCH_KEYS: [(&str, Switch); 1] =
    [("vote-without-log-check", Switch::NoVoteLogCheck)];

/// The key the page's own controls carry for `switch` (`data-switch`): the one its links
/// used to, which the browser stories select the checkboxes by.
pub fn page_key(switch: Switch) -> &'static str {
    FORMER_SWITCH_KEYS
        .iter()
        .find(|(_, s)| *s == switch)
        .map_or(switch.name(), |(key, _)| key)
}

fn switch_by_key(key: &str) -> Option<Switch> {
    Switch::by_name(key).or_else(|| {
        FORMER_SWITCH_KEYS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, s)| *s)
    })
}

/// The fragment (without `#`) that `decode` turns back into `shared`.
pub fn encode(shared: &Shared) -> String {
    let s = &shared.settings;
    let mut out = format!("v=1&members={}&seed={}", s.members, s.seed);
    if s.preset != Preset::default() {
        out.push_str(&format!("&world={}", s.preset.name()));
    }
    for switch in Switch::ALL {
        out.push_str(&format!("&{}={}", switch.name(), u8::from(switch.get(s))));
    }
    out.push_str("&script=");
    out.push_str(&percent_encode(&shared.script));
    out
}

/// Reads a fragment (with or without its `#`). `Ok(None)` for an empty one (a plain visit).
pub fn decode(fragment: &str) -> Result<Option<Shared>, String> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    if fragment.is_empty() {
        return Ok(None);
    }
    if fragment.len() > MAX_FRAGMENT_CHARS {
        return Err(format!(
            "the link is too long ({} characters; at most {MAX_FRAGMENT_CHARS})",
            fragment.len()
        ));
    }
    let mut settings = ClusterConfig::default();
    let mut script = None;
    let mut version = None;
    for pair in fragment.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(raw).ok_or_else(|| format!("{key}: bad %-encoding"))?;
        match key {
            "v" => version = Some(value),
            "members" => {
                settings.members = parse_members(&value)
                    .map_err(|_| format!("members must be 1 to {MAX_MEMBERS}, not {value:?}"))?;
            }
            "seed" => {
                settings.seed = value
                    .parse()
                    .map_err(|_| format!("seed must be a whole number, not {value:?}"))?;
            }
            "world" => settings.preset = Preset::parse(&value)?,
            "script" => script = Some(value),
            // Read by `decode_lessons`: a link that carries a lesson still replays its run.
            LESSON_KEY | DONE_KEY => {}
            _ => {
                let switch =
                    switch_by_key(key).ok_or_else(|| format!("unknown setting {key:?}"))?;
                let on = match value.as_str() {
                    "1" | "true" | "on" => true,
                    "0" | "false" | "off" => false,
                    _ => return Err(format!("{key} must be 0 or 1, not {value:?}")),
                };
                switch.set(&mut settings, on);
            }
        }
    }
    if version.as_deref() != Some("1") {
        return Err("not a Raft Lab link (no v=1)".into());
    }
    if let Some(n) = settings.preset.fixed_members() {
        settings.members = n;
    }
    let script = script.unwrap_or_default();
    check_script(&script)?;
    Ok(Some(Shared { settings, script }))
}

/// Where a visitor is in the lessons: the step open and the steps done. A link carries it
/// after the run (`&lesson=…&done=…`), whose script then begins as the step did; the page's
/// local storage keeps the same text, so a reload lands on the same step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LessonMark {
    pub open: Option<OpenStep>,
    /// Lesson id → its steps done (1-based, as the page numbers them).
    pub done: BTreeMap<String, BTreeSet<usize>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenStep {
    pub lesson: String,
    /// 1-based, as `data-step` shows it.
    pub step: usize,
}

const LESSON_KEY: &str = "lesson";
const DONE_KEY: &str = "done";
/// The characters between a lesson id and its step numbers, and between lessons: unreserved,
/// so a link shows `lesson=leader-election.2&done=leader-election.1.2~kube-memory.1` as is.
const STEP_SEP: char = '.';
const LESSON_SEP: char = '~';

/// `&lesson=…&done=…` for `mark` (empty when it holds nothing), to append to `encode`'s
/// fragment or to keep on its own (without the first `&`) in local storage.
pub fn encode_lessons(mark: &LessonMark) -> String {
    let mut out = String::new();
    if let Some(open) = &mark.open {
        out.push_str(&format!(
            "&{LESSON_KEY}={}{STEP_SEP}{}",
            open.lesson, open.step
        ));
    }
    let done: Vec<String> = mark
        .done
        .iter()
        .filter(|(_, steps)| !steps.is_empty())
        .map(|(id, steps)| {
            let numbers: Vec<String> = steps.iter().map(usize::to_string).collect();
            format!("{id}{STEP_SEP}{}", numbers.join(&STEP_SEP.to_string()))
        })
        .collect();
    if !done.is_empty() {
        out.push_str(&format!(
            "&{DONE_KEY}={}",
            done.join(&LESSON_SEP.to_string())
        ));
    }
    out
}

/// The lesson part of a fragment (or of the stored text); a link without one gives the empty
/// mark. Only the shape is checked here: whether the lesson and the step exist is the
/// lessons' to say.
pub fn decode_lessons(fragment: &str) -> Result<LessonMark, String> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let mut mark = LessonMark::default();
    for pair in fragment.split('&').filter(|p| !p.is_empty()) {
        let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
        if ![LESSON_KEY, DONE_KEY].contains(&key) {
            continue;
        }
        let value = percent_decode(raw).ok_or_else(|| format!("{key}: bad %-encoding"))?;
        match key {
            LESSON_KEY => {
                let (lesson, steps) = lesson_steps(&value)
                    .filter(|(_, steps)| steps.len() == 1)
                    .ok_or_else(|| format!("lesson must be ID.STEP, not {value:?}"))?;
                mark.open = Some(OpenStep {
                    lesson,
                    step: steps[0],
                });
            }
            _ => {
                for part in value.split(LESSON_SEP).filter(|p| !p.is_empty()) {
                    let (lesson, steps) = lesson_steps(part).ok_or_else(|| {
                        format!("done must be ID.STEP.STEP~ID.STEP, not {value:?}")
                    })?;
                    mark.done.entry(lesson).or_default().extend(steps);
                }
            }
        }
    }
    Ok(mark)
}

/// `leader-election.1.2` → ("leader-election", [1, 2]): an id of lowercase letters, digits
/// and dashes, then one or more step numbers from 1.
fn lesson_steps(text: &str) -> Option<(String, Vec<usize>)> {
    let mut parts = text.split(STEP_SEP);
    let id = parts.next()?;
    let id_ok = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    let steps: Option<Vec<usize>> = parts.map(|p| p.parse().ok().filter(|n| *n >= 1)).collect();
    let steps = steps.filter(|s| !s.is_empty())?;
    id_ok.then(|| (id.to_string(), steps))
}

/// Rejects scripts that would keep the page busy too long; the engine reports the rest.
pub fn check_script(text: &str) -> Result<(), String> {
    let lines = script::parse(text);
    if lines.len() > MAX_SCRIPT_LINES {
        return Err(format!(
            "the script has {} commands; at most {MAX_SCRIPT_LINES}",
            lines.len()
        ));
    }
    let mut total: u64 = 0;
    for line in &lines {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        if let ["wait", d] = words.as_slice() {
            total = total.saturating_add(parse_duration(d).unwrap_or(0));
        }
    }
    if total > MAX_SCRIPT_MS {
        return Err(format!(
            "the script waits {} s of virtual time; at most {} s",
            total / 1000,
            MAX_SCRIPT_MS / 1000
        ));
    }
    Ok(())
}

/// What an imported file must be before it replaces the run: text (not a picture or an
/// archive picked by mistake), a `# raftlab run` header `raftlab run` accepts, and a script
/// `check_script` lets run. Anything else is refused, saying why, and changes nothing.
pub fn check_import(text: &str) -> Result<(), String> {
    let binary = text.lines().enumerate().find(|(_, line)| {
        line.chars()
            .any(|c| c == '\u{fffd}' || (c.is_control() && c != '\t' && c != '\r'))
    });
    if let Some((at, _)) = binary {
        return Err(format!(
            "line {}: this is not a text file (it holds bytes no script has)",
            at + 1
        ));
    }
    if let Some(words) = script::header_settings(text) {
        ClusterConfig::default()
            .with_flags(&words)
            .map_err(|e| format!("line 1: {e}"))?;
    }
    check_script(text)
}

/// Reads the settings from an exported script's first line
/// (`# raftlab run --members N --seed S --no-pre-vote --teach …`), if it has one.
pub fn settings_from_script(text: &str, base: &ClusterConfig) -> ClusterConfig {
    let Some(words) = script::header_settings(text) else {
        return base.clone();
    };
    // As `raftlab run` reads it: etcd's defaults, then every flag the header names (a header
    // it refuses leaves the settings as they were).
    ClusterConfig::new(base.members, base.seed)
        .with_flags(&words)
        .unwrap_or_else(|_| base.clone())
}

/// Everything but RFC 3986's unreserved characters is escaped.
const ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

pub fn percent_encode(text: &str) -> String {
    utf8_percent_encode(text, ESCAPED).to_string()
}

/// Decodes `%XX` escapes (and `+` as a space); `None` for a broken escape or bad UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    // The crate keeps a broken escape as it is; in a link it means the link was damaged.
    let escapes_whole = text.split('%').skip(1).all(|rest| {
        rest.get(..2)
            .is_some_and(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
    });
    if !escapes_whole {
        return None;
    }
    let spaced = text.replace('+', " ");
    let decoded = percent_decode_str(&spaced).decode_utf8().ok()?;
    Some(decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(script: &str) -> Shared {
        let mut settings = ClusterConfig {
            members: 5,
            seed: 42,
            ..ClusterConfig::default()
        };
        settings.pre_vote = !settings.pre_vote;
        settings.teaching.vote_without_log_check = true;
        Shared {
            settings,
            script: script.into(),
        }
    }

    /// A switch's key as links spell it (the first one after the seed).
    fn switch_key() -> String {
        let link = encode(&shared(""));
        let pair = link.split('&').nth(3).unwrap_or_default();
        pair.split('=').next().unwrap_or_default().to_string()
    }

    #[test]
    fn a_link_round_trips_its_settings_and_script() {
        let script = "# raftlab run --members 5 --seed 42\nwait leader\netcdctl put k 'a b&c=d%'\nkill leader\n流量 ✓\n";
        let original = shared(script);
        let link = encode(&original);
        assert!(link.starts_with("v=1&members=5&seed=42&"), "{link}");
        assert_eq!(decode(&link), Ok(Some(original.clone())));
        assert_eq!(decode(&format!("#{link}")), Ok(Some(original)));
    }

    #[test]
    fn an_import_that_is_not_a_script_is_refused_saying_why() {
        assert_eq!(
            check_import("# raftlab run --members 5 --seed 2\nwait leader\n"),
            Ok(())
        );
        assert_eq!(check_import("wait leader\r\netcdctl put k\tv\r\n"), Ok(()));
        let png = "\u{fffd}PNG\r\n\u{1a}\n\0\0\0\rIHDR";
        let e = check_import(png).unwrap_err();
        assert!(e.starts_with("line 1: this is not a text file"), "{e}");
        let e = check_import("wait 1s\nput\0k v\n").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = check_import("# raftlab run --members banana\nwait leader\n").unwrap_err();
        assert!(e.contains("line 1: --members must be"), "{e}");
        assert!(
            check_import("wait 2h\n").is_err(),
            "check_script's limits still hold"
        );
    }

    #[test]
    fn a_link_carries_the_kubeadm_world() {
        let shared = Shared {
            settings: ClusterConfig::kubeadm(5),
            script: "kubectl get nodes\n".into(),
        };
        let link = encode(&shared);
        assert!(
            link.starts_with("v=1&members=1&seed=5&world=kubeadm&"),
            "{link}"
        );
        assert_eq!(decode(&link).unwrap().unwrap().settings, shared.settings);
        let ring = encode(&Shared {
            settings: ClusterConfig::default(),
            script: String::new(),
        });
        assert!(!ring.contains("world="), "{ring}");
        let read = decode("v=1&world=kubeadm&members=3").unwrap().unwrap();
        assert_eq!(read.settings.members, 1, "the world fixes its members");
        assert_eq!(
            decode("v=1&world=kind").unwrap_err(),
            "unknown world \"kind\" (one of: members, kubeadm)"
        );
    }

    #[test]
    fn an_empty_fragment_is_a_plain_visit() {
        assert_eq!(decode(""), Ok(None));
        assert_eq!(decode("#"), Ok(None));
    }

    #[test]
    fn missing_settings_take_the_defaults() {
        let decoded = decode("v=1&&script=wait%201s");
        let expected = Shared {
            settings: ClusterConfig::default(),
            script: "wait 1s".into(),
        };
        assert_eq!(decoded, Ok(Some(expected)));
    }

    #[test]
    fn bad_fragments_say_what_is_wrong() {
        let key = switch_key();
        let cases = [
            (
                "members=3&seed=1",
                "not a Raft Lab link (no v=1)".to_string(),
            ),
            ("v=2", "not a Raft Lab link (no v=1)".into()),
            ("v=1&members=0", "members must be 1 to 11, not \"0\"".into()),
            (
                "v=1&members=12",
                "members must be 1 to 11, not \"12\"".into(),
            ),
            (
                "v=1&members=three",
                "members must be 1 to 11, not \"three\"".into(),
            ),
            (
                "v=1&seed=-1",
                "seed must be a whole number, not \"-1\"".into(),
            ),
            ("v=1&colour=red", "unknown setting \"colour\"".into()),
            (
                &format!("v=1&{key}=2"),
                format!("{key} must be 0 or 1, not \"2\""),
            ),
            ("v=1&script=%4", "script: bad %-encoding".into()),
            ("v=1&script=%zz", "script: bad %-encoding".into()),
            ("v=1&script=%FF", "script: bad %-encoding".into()),
        ];
        for (fragment, error) in cases {
            assert_eq!(decode(fragment), Err(error), "{fragment}");
        }
    }

    #[test]
    fn switches_read_several_spellings_of_on_and_off() {
        let key = switch_key();
        for (value, on) in [
            ("1", true),
            ("true", true),
            ("on", true),
            ("0", false),
            ("off", false),
        ] {
            let decoded = decode(&format!("v=1&{key}={value}")).ok().flatten();
            let link = decoded.map(|d| encode(&d)).unwrap_or_default();
            assert!(
                link.contains(&format!("&{key}={}", u8::from(on))),
                "{value}: {link}"
            );
        }
    }

    #[test]
    fn links_and_scripts_that_would_freeze_the_page_are_refused() {
        let long = "a".repeat(MAX_FRAGMENT_CHARS + 1);
        assert_eq!(
            decode(&long),
            Err(format!(
                "the link is too long ({} characters; at most {MAX_FRAGMENT_CHARS})",
                long.len()
            ))
        );
        let busy = "wait 1s\n".repeat(MAX_SCRIPT_LINES + 1);
        assert_eq!(
            check_script(&busy),
            Err(format!(
                "the script has {} commands; at most {MAX_SCRIPT_LINES}",
                MAX_SCRIPT_LINES + 1
            ))
        );
        assert_eq!(
            check_script("wait 3000s\nwait 601s\n"),
            Err("the script waits 3601 s of virtual time; at most 3600 s".into())
        );
        assert_eq!(check_script("wait 3600s\nwait never\n"), Ok(()));
    }

    #[test]
    fn no_text_makes_decoding_panic() {
        let mut rng = crate::base::Rng::new(11);
        let alphabet: Vec<char> = "v=1&%+#members seed script=0123456789abcdefFGZ\u{e9}\u{6d41}"
            .chars()
            .collect();
        for _ in 0..2_000 {
            let len = rng.range(0, 40) as usize;
            let text: String = (0..len)
                .filter_map(|_| alphabet.get(rng.range(0, alphabet.len() as u64) as usize))
                .collect();
            let _ = decode(&text);
        }
    }

    #[test]
    fn the_percent_codec_keeps_unreserved_characters_and_escapes_the_rest() {
        assert_eq!(percent_encode("a-Z_0.~"), "a-Z_0.~");
        assert_eq!(percent_encode("a b&=%\n"), "a%20b%26%3D%25%0A");
        assert_eq!(percent_encode("é"), "%C3%A9");
        assert_eq!(percent_decode("a+b%20c"), Some("a b c".into()));
        assert_eq!(percent_decode("%C3%A9"), Some("é".into()));
        for text in ["", "plain", "kill m1 | m2,m3", "流量 ✓ 100%"] {
            assert_eq!(percent_decode(&percent_encode(text)).as_deref(), Some(text));
        }
    }

    #[test]
    fn an_exported_header_sets_the_imported_run() {
        let base = ClusterConfig::default();
        let read = settings_from_script("# raftlab run --members 5 --seed 9\nwait leader\n", &base);
        assert_eq!((read.members, read.seed), (5, 9));
        assert_eq!(settings_from_script("wait leader\n", &base), base);
        assert_eq!(
            settings_from_script("# raftlab run --members lots\n", &base),
            base
        );
        let echoed = "# raftlab run --members 1 --echo --quota-backend-bytes 1048576\nstatus\n";
        assert_eq!(check_import(echoed), Ok(()));
        let read = settings_from_script(echoed, &base);
        assert_eq!((read.members, read.quota_backend_bytes), (1, 1_048_576));
    }

    #[test]
    fn links_write_the_scripts_spelling_and_still_read_the_former_one() {
        let link = encode(&shared("wait 1s\n"));
        assert!(link.contains("&no-vote-log-check=1"), "{link}");
        assert!(!link.contains("vote-without-log-check"), "{link}");
        let old = "v=1&members=3&seed=1&vote-without-log-check=1&script=";
        let opened = decode(old)
            .expect("an old link opens")
            .expect("it carries a run");
        assert!(opened.settings.teaching.vote_without_log_check);
        assert_eq!(page_key(Switch::NoVoteLogCheck), "vote-without-log-check");
    }

    fn mark() -> LessonMark {
        let mut done = BTreeMap::new();
        done.insert("leader-election".to_string(), BTreeSet::from([1, 2]));
        done.insert("kube-memory".to_string(), BTreeSet::from([3]));
        LessonMark {
            open: Some(OpenStep {
                lesson: "leader-election".into(),
                step: 3,
            }),
            done,
        }
    }

    #[test]
    fn a_link_carries_the_open_lesson_step_and_the_progress() {
        let fragment = format!(
            "{}{}",
            encode(&shared("wait 1s\n")),
            encode_lessons(&mark())
        );
        assert!(
            fragment.ends_with("&lesson=leader-election.3&done=kube-memory.3~leader-election.1.2"),
            "{fragment}"
        );
        assert_eq!(decode_lessons(&format!("#{fragment}")), Ok(mark()));
        assert_eq!(
            decode(&fragment),
            Ok(Some(shared("wait 1s\n"))),
            "the run part reads as before"
        );
        let stored = encode_lessons(&mark());
        assert_eq!(
            decode_lessons(&stored),
            Ok(mark()),
            "local storage keeps the same text"
        );
    }

    #[test]
    fn links_without_a_lesson_still_open_and_carry_an_empty_mark() {
        let old = "v=1&members=3&seed=1&script=wait%201s";
        assert!(matches!(decode(old), Ok(Some(_))));
        assert_eq!(decode_lessons(old), Ok(LessonMark::default()));
        assert_eq!(encode_lessons(&LessonMark::default()), "");
        let open = decode_lessons("v=1&lesson=quorum.1")
            .ok()
            .and_then(|m| m.open);
        assert_eq!(
            open.map(|o| (o.lesson, o.step)),
            Some(("quorum".to_string(), 1))
        );
    }

    #[test]
    fn bad_lesson_parts_say_what_is_wrong() {
        let cases = [
            ("lesson=quorum", "lesson must be ID.STEP, not \"quorum\""),
            (
                "lesson=quorum.0",
                "lesson must be ID.STEP, not \"quorum.0\"",
            ),
            (
                "lesson=quorum.1.2",
                "lesson must be ID.STEP, not \"quorum.1.2\"",
            ),
            (
                "lesson=Quorum.1",
                "lesson must be ID.STEP, not \"Quorum.1\"",
            ),
            ("lesson=.1", "lesson must be ID.STEP, not \".1\""),
            (
                "done=quorum.x",
                "done must be ID.STEP.STEP~ID.STEP, not \"quorum.x\"",
            ),
            ("lesson=%zz", "lesson: bad %-encoding"),
        ];
        for (fragment, error) in cases {
            assert_eq!(
                decode_lessons(fragment),
                Err(error.to_string()),
                "{fragment}"
            );
        }
    }

    #[test]
    fn no_text_makes_the_lesson_part_panic() {
        let mut rng = crate::base::Rng::new(12);
        let alphabet: Vec<char> = "lesson=done=&.~%0123456789abz-AZ\u{6d41}".chars().collect();
        for _ in 0..2_000 {
            let len = rng.range(0, 40) as usize;
            let text: String = (0..len)
                .filter_map(|_| alphabet.get(rng.range(0, alphabet.len() as u64) as usize))
                .collect();
            let _ = decode_lessons(&text);
        }
    }
}
