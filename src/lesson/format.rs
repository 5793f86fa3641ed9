//! The lesson file: YAML (`static/lessons/NN-id.yaml`) read by the manifest parser, then serde.
//! Every struct refuses unknown fields, so a teacher's typo is an error naming the file, the
//! step and the field; every text needs both languages (checked after parsing, where the path
//! of the text is known).

use crate::console::script;
use crate::etcd::{ClusterConfig, Switch};
use serde::Deserialize;
use serde_json::Value;

/// A text in both languages of the page.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Text {
    #[serde(default)]
    pub en: String,
    #[serde(default, rename = "zh-TW")]
    pub zh_tw: String,
}

/// The run a lesson (or a step that starts afresh) begins from.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct World {
    #[serde(default = "three")]
    pub members: usize,
    #[serde(default = "one")]
    pub seed: u64,
    /// What differs from etcd's defaults, as `raftlab run` spells it without the dashes:
    /// `no-check-quorum` turns a safety switch off, `commit-old-terms` a teaching one on.
    #[serde(default)]
    pub switches: Vec<String>,
    /// Start the mock Kubernetes control plane (`kube up`) before the first setup line.
    #[serde(default)]
    pub kube: bool,
}

fn three() -> usize {
    3
}

fn one() -> u64 {
    1
}

impl Default for World {
    fn default() -> World {
        World {
            members: three(),
            seed: one(),
            switches: Vec::new(),
            kube: false,
        }
    }
}

impl World {
    /// The cluster configuration: the header flags of `raftlab run`, read by the one parser of
    /// them ([`ClusterConfig::with_flags`]).
    pub fn config(&self) -> Result<ClusterConfig, String> {
        let mut words = vec![
            "--members".to_string(),
            self.members.to_string(),
            "--seed".to_string(),
            self.seed.to_string(),
        ];
        for name in &self.switches {
            match Switch::by_name(name) {
                Some(s) if s.is_teaching() => words.extend(["--teach".into(), name.clone()]),
                _ => words.push(format!("--{name}")),
            }
        }
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        ClusterConfig::default()
            .with_flags(&words)
            .map_err(|e| format!("world: {e}"))
    }
}

/// One choice of a predict question: its text, and what holds in the world if it is right.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Choice {
    pub text: Text,
    pub holds: String,
}

/// A question asked before the decisive moment: choices, or a number.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Predict {
    pub question: Text,
    #[serde(default)]
    pub choices: Vec<Choice>,
    /// The operand whose value after the solution is the answer (`keys(/registry/)`).
    #[serde(default)]
    pub number: Option<String>,
    /// The right choice (1-based) or the number.
    pub answer: i64,
    pub reveal: Text,
}

/// Which kind of answer a predict question takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredictKind<'a> {
    Choices(&'a [Choice]),
    Number(&'a str),
}

impl Predict {
    pub fn kind(&self) -> PredictKind<'_> {
        match &self.number {
            Some(operand) => PredictKind::Number(operand),
            None => PredictKind::Choices(&self.choices),
        }
    }
}

/// One step of a lesson.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub title: Text,
    pub text: Text,
    /// This step starts a new run from this world instead of continuing the previous one.
    #[serde(default)]
    pub world: Option<World>,
    /// Script lines run when the step opens.
    #[serde(default)]
    pub setup: String,
    #[serde(default)]
    pub hint: Option<Text>,
    /// The commands (and the buttons that do the same) the page shows as chips.
    #[serde(default, rename = "do")]
    pub actions: Vec<String>,
    pub goal: String,
    pub goal_text: Text,
    pub solution: String,
    #[serde(default)]
    pub predict: Option<Predict>,
}

/// A lesson as its file says.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    pub title: Text,
    pub summary: Text,
    /// The articles' claims it teaches (C-numbers of the lessons reference).
    #[serde(default)]
    pub claims: Vec<String>,
    #[serde(default)]
    pub world: World,
    /// Read one by one, so that an error names its step.
    #[serde(deserialize_with = "raw_steps")]
    steps: Vec<Value>,
    #[serde(skip)]
    parsed: Vec<Step>,
}

fn raw_steps<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    Vec::<Value>::deserialize(d)
}

impl Lesson {
    /// Reads a lesson file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Lesson, String> {
        let docs = crate::kube::yaml::parse_documents(text).map_err(|e| format!("{file}: {e}"))?;
        let [doc] = docs.as_slice() else {
            return Err(format!(
                "{file}: a lesson file holds one YAML document, not {}",
                docs.len()
            ));
        };
        let mut lesson: Lesson =
            serde_json::from_value(doc.clone()).map_err(|e| format!("{file}: {e}"))?;
        let where_ = format!("{file}: lesson {:?}", lesson.id);
        let mut steps = Vec::new();
        for (i, raw) in lesson.steps.iter().enumerate() {
            let step: Step = serde_json::from_value(raw.clone())
                .map_err(|e| format!("{where_}: step {}: {e}", i + 1))?;
            steps.push(step);
        }
        lesson.parsed = steps;
        lesson.validate().map_err(|e| format!("{where_}: {e}"))?;
        Ok(lesson)
    }

    pub fn steps(&self) -> &[Step] {
        &self.parsed
    }

    /// The world step `n` (0-based) runs in: its own, or the latest one before it.
    pub fn world_of(&self, n: usize) -> &World {
        self.parsed[..=n.min(self.parsed.len().saturating_sub(1))]
            .iter()
            .rev()
            .find_map(|s| s.world.as_ref())
            .unwrap_or(&self.world)
    }

    /// The first step of the run step `n` belongs to (0-based): a jump replays from there.
    pub fn run_start(&self, n: usize) -> usize {
        (0..=n)
            .rev()
            .find(|&i| self.parsed[i].world.is_some())
            .unwrap_or(0)
    }

    /// What parsing alone cannot refuse: missing texts, an empty lesson, a bad world, a
    /// predict question without a possible answer, a script line no verb answers to, a goal
    /// the goal language cannot read.
    fn validate(&self) -> Result<(), String> {
        let id_ok = !self.id.is_empty()
            && self
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !id_ok {
            return Err("id: use lowercase letters, digits and `-` (it goes into links)".into());
        }
        both("title", &self.title)?;
        both("summary", &self.summary)?;
        self.world.config()?;
        if self.parsed.is_empty() {
            return Err("steps: a lesson needs at least one step".into());
        }
        for (i, step) in self.parsed.iter().enumerate() {
            step.validate()
                .map_err(|e| format!("step {}: {e}", i + 1))?;
        }
        Ok(())
    }
}

impl Step {
    fn validate(&self) -> Result<(), String> {
        both("title", &self.title)?;
        both("text", &self.text)?;
        both("goal_text", &self.goal_text)?;
        if let Some(hint) = &self.hint {
            both("hint", hint)?;
        }
        if let Some(world) = &self.world {
            world.config()?;
        }
        for (k, chip) in self.actions.iter().enumerate() {
            // A chip is clicked as one command: no heredoc (it would get no input).
            let one = script::parse(chip).len() == 1 && !chip.contains("<<");
            if !one {
                return Err(format!(
                    "do[{}]: a chip is one command, without a heredoc",
                    k + 1
                ));
            }
            script_lines(&format!("do[{}]", k + 1), chip)?;
        }
        script_lines("setup", &self.setup)?;
        script_lines("solution", &self.solution)?;
        if script::parse(&self.solution).is_empty() {
            return Err("solution: a step needs a solution (CI and \"Show me\" play it)".into());
        }
        super::goal_syntax(&self.goal).map_err(|e| format!("goal: {e}"))?;
        if let Some(p) = &self.predict {
            p.validate().map_err(|e| format!("predict.{e}"))?;
        }
        Ok(())
    }
}

impl Predict {
    fn validate(&self) -> Result<(), String> {
        both("question", &self.question)?;
        both("reveal", &self.reveal)?;
        match (&self.number, self.choices.len()) {
            (Some(_), n) if n > 0 => {
                Err("choices: a question has choices or a number, not both".into())
            }
            (None, 0) => Err("choices: a question needs choices (or a number)".into()),
            (None, 1) => Err("choices: one choice is no question".into()),
            (Some(operand), _) => {
                super::operand_syntax(operand).map_err(|e| format!("number: {e}"))
            }
            (None, n) => {
                if !(1..=n as i64).contains(&self.answer) {
                    return Err(format!(
                        "answer: {} is not a choice (1 to {n})",
                        self.answer
                    ));
                }
                for (k, c) in self.choices.iter().enumerate() {
                    both(&format!("choices[{}].text", k + 1), &c.text)?;
                    super::goal_syntax(&c.holds)
                        .map_err(|e| format!("choices[{}].holds: {e}", k + 1))?;
                }
                Ok(())
            }
        }
    }
}

/// Both languages, or an error naming the text and the one missing.
fn both(field: &str, text: &Text) -> Result<(), String> {
    match (text.en.trim().is_empty(), text.zh_tw.trim().is_empty()) {
        (false, false) => Ok(()),
        (true, false) => Err(format!("{field}: the English text (en) is missing")),
        (false, true) => Err(format!("{field}: the zh-TW text is missing")),
        (true, true) => Err(format!("{field}: the texts (en, zh-TW) are missing")),
    }
}

/// Every line of a script starts with a word the console answers to.
fn script_lines(field: &str, text: &str) -> Result<(), String> {
    for line in script::parse(text) {
        let first = line.text.split_whitespace().next().unwrap_or("");
        let is_assignment = first.contains('=') && !first.starts_with('=');
        if !is_assignment && crate::console::verbs::find(first).is_none() {
            return Err(format!(
                "{field}: line {}: unknown command {first:?}",
                line.line_no
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
id: tiny
title: {en: "Tiny", zh-TW: "小"}
summary: {en: "A lesson", zh-TW: "一課"}
world: {members: 3, seed: 1, switches: [no-check-quorum, forget-vote]}
steps:
  - title: {en: "One", zh-TW: "一"}
    text: {en: "Text", zh-TW: "內容"}
    setup: |
      wait leader
    goal: "leader.term > start.leader.term"
    goal_text: {en: "A new term", zh-TW: "新的 Term"}
    solution: |
      kill leader
      wait leader
"#;

    fn broken(from: &str, to: &str) -> String {
        assert!(GOOD.contains(from), "{from}");
        Lesson::parse("x.yaml", &GOOD.replacen(from, to, 1)).unwrap_err()
    }

    #[test]
    fn a_good_file_reads_with_its_world() {
        let lesson = Lesson::parse("x.yaml", GOOD).unwrap();
        assert_eq!(lesson.steps().len(), 1);
        let config = lesson.world.config().unwrap();
        assert!(!config.check_quorum && config.teaching.forget_vote_on_restart);
        assert_eq!(lesson.world_of(0), &lesson.world);
    }

    #[test]
    fn a_typo_names_the_file_the_step_and_the_field() {
        let e = broken("goal_text:", "goal_txt:");
        assert!(
            e.starts_with("x.yaml: lesson \"tiny\": step 1: unknown field `goal_txt`"),
            "{e}"
        );
        let e = broken("summary:", "sumary:");
        assert!(e.starts_with("x.yaml: unknown field `sumary`"), "{e}");
        let e = broken("seed: 1,", "sed: 1,");
        assert!(e.contains("unknown field `sed`"), "{e}");
    }

    #[test]
    fn a_missing_language_is_an_error() {
        let e = broken("zh-TW: \"新的 Term\"", "zh-tw: \"新的 Term\"");
        assert!(e.contains("step 1") && e.contains("zh-tw"), "{e}");
        let e = broken(", zh-TW: \"新的 Term\"", "");
        assert_eq!(
            e,
            "x.yaml: lesson \"tiny\": step 1: goal_text: the zh-TW text is missing"
        );
        let e = broken(
            "title: {en: \"Tiny\", zh-TW: \"小\"}",
            "title: {zh-TW: \"小\"}",
        );
        assert!(
            e.ends_with("title: the English text (en) is missing"),
            "{e}"
        );
    }

    #[test]
    fn bad_worlds_scripts_and_shapes_are_refused() {
        assert!(broken("members: 3", "members: 40").contains("--members must be between"));
        assert!(broken("forget-vote]", "no-such]").contains("unknown flag"));
        let e = broken("kill leader", "kil leader");
        assert!(
            e.ends_with("step 1: solution: line 1: unknown command \"kil\""),
            "{e}"
        );
        let e = broken(
            "    solution: |\n      kill",
            "    do: [\"kubectl apply -f - <<EOF\"]\n    solution: |\n      kill",
        );
        assert!(
            e.ends_with("step 1: do[1]: a chip is one command, without a heredoc"),
            "{e}"
        );
        let e = broken(
            "    solution: |\n      kill",
            "    do: [\"wait leader\", \"kil m1\"]\n    solution: |\n      kill",
        );
        assert!(
            e.ends_with("step 1: do[2]: line 1: unknown command \"kil\""),
            "{e}"
        );
        let e = broken("id: tiny", "id: Tiny Lesson");
        assert!(e.contains("id: use lowercase"), "{e}");
        assert!(Lesson::parse("x.yaml", "id: [")
            .unwrap_err()
            .starts_with("x.yaml: "));
        assert!(Lesson::parse("x.yaml", "")
            .unwrap_err()
            .contains("one YAML document"));
        let e = Lesson::parse("x.yaml", &format!("{GOOD}---\n{GOOD}")).unwrap_err();
        assert!(e.contains("not 2"), "{e}");
    }

    #[test]
    fn predict_questions_need_a_possible_answer() {
        let with = |predict: &str| {
            let text = format!("{GOOD}    predict:\n{predict}");
            Lesson::parse("x.yaml", &text)
        };
        let texts = "      question: {en: Q, zh-TW: 問}\n      reveal: {en: R, zh-TW: 答}\n";
        let choice = |holds: &str| {
            format!("        - text: {{en: A, zh-TW: 甲}}\n          holds: \"{holds}\"\n")
        };
        let two = format!(
            "      choices:\n{}{}",
            choice("leaders == 1"),
            choice("leaders == 2")
        );
        let ok = with(&format!("{texts}{two}      answer: 2\n")).unwrap();
        let predict = ok.steps()[0].predict.as_ref().unwrap();
        assert!(matches!(predict.kind(), PredictKind::Choices(c) if c.len() == 2));
        let e = with(&format!("{texts}{two}      answer: 3\n")).unwrap_err();
        assert!(
            e.ends_with("predict.answer: 3 is not a choice (1 to 2)"),
            "{e}"
        );
        let e = with(&format!("{texts}      answer: 3\n")).unwrap_err();
        assert!(
            e.contains("predict.choices: a question needs choices"),
            "{e}"
        );
        let number = with(&format!(
            "{texts}      number: \"keys(/registry/)\"\n      answer: 26\n"
        ));
        assert!(matches!(
            number.unwrap().steps()[0].predict.as_ref().unwrap().kind(),
            PredictKind::Number("keys(/registry/)")
        ));
        let e = with(&format!(
            "{texts}{two}      number: leaders\n      answer: 1\n"
        ))
        .unwrap_err();
        assert!(e.contains("not both"), "{e}");
        let e = with(&format!("{texts}{two}      answer: 1\n      anwser: 1\n")).unwrap_err();
        assert!(e.contains("step 1: unknown field `anwser`"), "{e}");
    }
}
