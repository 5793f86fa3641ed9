//! The proof of a lesson (`raftlab lesson check`, and CI): for every step, the setup runs,
//! the goal is not met yet, the solution runs, the goal is met, and every predict answer is
//! what the run really did.

use super::format::{Lesson, PredictKind};
use super::runner::{number_holds, Runner};
use crate::console::Goal;

/// What the check found at one step (0-based); no problems means `ok`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepReport {
    pub step: usize,
    pub title: String,
    pub problems: Vec<String>,
}

/// A lesson's check: each step reached, or why the lesson could not go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    pub id: String,
    pub steps: Vec<StepReport>,
    /// The step count of the lesson (fewer reports: a step could not be opened).
    pub total: usize,
    /// Why the run stopped before the last step (a failing setup line).
    pub stopped: Option<String>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.stopped.is_none() && self.steps.iter().all(|s| s.problems.is_empty())
    }
}

/// Checks every step of `lesson`, walking it as a student who follows the solutions would.
pub fn check(lesson: &Lesson) -> Report {
    let mut report = Report {
        id: lesson.id.clone(),
        steps: Vec::new(),
        total: lesson.steps().len(),
        stopped: None,
    };
    let mut runner = match Runner::open(lesson.clone(), 0) {
        Ok(r) => r,
        Err(e) => {
            report.stopped = Some(e);
            return report;
        }
    };
    loop {
        report.steps.push(check_step(&mut runner));
        match runner.advance() {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                report.stopped = Some(e);
                break;
            }
        }
    }
    report
}

/// One step, from its start (the runner just opened it) to its solution's end.
fn check_step(runner: &mut Runner) -> StepReport {
    let mut problems = Vec::new();
    if runner.goal_met() {
        problems.push(format!(
            "the goal is already met when the step starts: {}",
            runner.explain()
        ));
    }
    runner.play_rest();
    if !runner.goal_met() {
        problems.push(format!(
            "the solution does not reach the goal: {}",
            runner.explain()
        ));
    }
    problems.extend(predict_problems(runner));
    StepReport {
        step: runner.step_index(),
        title: runner.step().title.en.clone(),
        problems,
    }
}

/// A choice question: exactly the `answer` choice holds after the solution. A number: the
/// operand equals `answer`.
fn predict_problems(runner: &Runner) -> Vec<String> {
    let Some(predict) = runner.predict() else {
        return Vec::new();
    };
    let (session, base) = (runner.session(), runner.baseline());
    match predict.kind() {
        PredictKind::Number(operand) => {
            match number_holds(session, base, operand, predict.answer) {
                Ok(true) => Vec::new(),
                Ok(false) => {
                    let goal = super::number_goal(operand, predict.answer);
                    let why = goal.map_or_else(|e| e, |g| g.explain(session, base));
                    vec![format!(
                        "the predict answer {} is wrong: {why}",
                        predict.answer
                    )]
                }
                Err(e) => vec![format!("predict.number: {e}")],
            }
        }
        PredictKind::Choices(choices) => {
            let mut problems = Vec::new();
            for (k, choice) in choices.iter().enumerate() {
                let right = k as i64 + 1 == predict.answer;
                let goal = match Goal::parse(&choice.holds) {
                    Ok(g) => g,
                    Err(e) => {
                        problems.push(format!("choice {}: {e}", k + 1));
                        continue;
                    }
                };
                match session.goal_holds(&goal, base) {
                    Ok(holds) if holds == right => {}
                    Ok(holds) => problems.push(format!(
                        "choice {} {} after the solution, but the answer is {}: {}",
                        k + 1,
                        if holds { "holds" } else { "does not hold" },
                        predict.answer,
                        goal.explain(session, base)
                    )),
                    Err(e) => problems.push(format!("choice {}: {e}", k + 1)),
                }
            }
            problems
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-step lesson with this goal, solution and predict block.
    fn lesson(goal: &str, solution: &str, predict: &str) -> Lesson {
        let text = format!(
            r#"
id: t
title: {{en: T, zh-TW: 題}}
summary: {{en: S, zh-TW: 摘}}
steps:
  - title: {{en: One, zh-TW: 一}}
    text: {{en: X, zh-TW: 文}}
    setup: "wait leader"
    goal: '{goal}'
    goal_text: {{en: G, zh-TW: 標}}
    solution: |
      {solution}
{predict}"#
        );
        Lesson::parse("t.yaml", &text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn problems(l: &Lesson) -> Vec<String> {
        let r = check(l);
        assert!(r.stopped.is_none(), "{r:?}");
        r.steps.into_iter().flat_map(|s| s.problems).collect()
    }

    const CHOICES: &str = "    predict:
      question: {en: Q, zh-TW: 問}
      choices:
        - {text: {en: one, zh-TW: 一}, holds: 'leaders == 1'}
        - {text: {en: none, zh-TW: 無}, holds: 'leaders == 0'}
      answer: ANSWER
      reveal: {en: R, zh-TW: 答}
";

    #[test]
    fn a_good_step_is_ok() {
        let l = lesson(
            "leader.term > start.leader.term",
            "kill leader\n      wait leader",
            &CHOICES.replace("ANSWER", "1"),
        );
        let r = check(&l);
        assert!(r.ok(), "{r:?}");
        assert_eq!((r.total, r.steps.len()), (1, 1));
    }

    #[test]
    fn a_goal_already_met_at_the_start_is_caught() {
        let l = lesson("leader exists", "wait 1s", "");
        let p = problems(&l);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("the goal is already met when the step starts: leader exists holds"),
            "{p:?}"
        );
    }

    #[test]
    fn a_solution_that_misses_the_goal_is_caught() {
        let l = lesson("leader.term > start.leader.term", "wait 1s", "");
        let p = problems(&l);
        assert_eq!(
            p,
            ["the solution does not reach the goal: leader.term > start.leader.term is false (leader.term is 2, start.leader.term is 2)"]
        );
    }

    #[test]
    fn a_wrong_predict_answer_is_caught() {
        let l = lesson(
            "leader.term > start.leader.term",
            "kill leader\n      wait leader",
            &CHOICES.replace("ANSWER", "2"),
        );
        let p = problems(&l);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            p[0].starts_with("choice 1 holds after the solution, but the answer is 2"),
            "{p:?}"
        );
        assert!(
            p[1].starts_with("choice 2 does not hold after the solution, but the answer is 2"),
            "{p:?}"
        );
        let number = "    predict:
      question: {en: Q, zh-TW: 問}
      number: leaders
      answer: 2
      reveal: {en: R, zh-TW: 答}
";
        let l = lesson(
            "leader.term > start.leader.term",
            "kill leader\n      wait leader",
            number,
        );
        let p = problems(&l);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("the predict answer 2 is wrong: leaders == 2 is false (leaders is 1"),
            "{p:?}"
        );
    }

    #[test]
    fn a_broken_setup_stops_the_lesson() {
        let mut l = lesson("leader.term > start.leader.term", "kill leader", "");
        let text = "id: t\ntitle: {en: T, zh-TW: 題}\nsummary: {en: S, zh-TW: 摘}\nsteps:\n  - title: {en: One, zh-TW: 一}\n    text: {en: X, zh-TW: 文}\n    setup: \"kill m7\"\n    goal: \"leader exists\"\n    goal_text: {en: G, zh-TW: 標}\n    solution: \"wait leader\"\n";
        l = Lesson::parse("t.yaml", text).unwrap_or(l);
        let r = check(&l);
        assert!(!r.ok());
        assert!(r.steps.is_empty());
        let why = r.stopped.unwrap();
        assert!(
            why.starts_with("step 1: setup line `kill m7` failed: Error: "),
            "{why}"
        );
    }
}
