//! One lesson being taken: the open step, its world, the solution as far as it was played.

use super::format::{Lesson, Predict, PredictKind, Step, Text};
use crate::console::script::{self, ScriptLine};
use crate::console::{Baseline, Goal, Output, Session};

/// Something done to the session before any lesson line runs (the page keeps a wire log and
/// watches invariants); it must not change what the world does.
pub type Prepare = fn(&mut Session);

fn nothing(_: &mut Session) {}

/// A lesson open at one step.
#[derive(Clone, Debug)]
pub struct Runner {
    lesson: Lesson,
    step: usize,
    session: Session,
    /// The session as the step opened (after its setup, goal watched): Restart goes back to
    /// it.
    start: Session,
    goal: Goal,
    baseline: Baseline,
    solution: Vec<ScriptLine>,
    played: usize,
    answered: Option<Answer>,
    prepare: Prepare,
}

/// A student's answer to a predict question.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// 1-based, as the page's `data-choice="K"`.
    Choice(usize),
    Number(i64),
}

/// Right or wrong, and the explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub right: bool,
    pub reveal: Text,
}

/// A line of a setup or a solution that did not do what the lesson needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineFailed {
    /// 0-based step.
    pub step: usize,
    pub part: &'static str,
    pub line: String,
    pub stderr: String,
}

impl std::fmt::Display for LineFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {}: {} line `{}` failed: {}",
            self.step + 1,
            self.part,
            self.line,
            self.stderr.trim_end()
        )
    }
}

impl Runner {
    /// Opens step `step` (0-based) of `lesson` with a plain session (the CLI's).
    pub fn open(lesson: Lesson, step: usize) -> Result<Runner, String> {
        Runner::open_with(lesson, step, nothing)
    }

    /// Opens step `step`: a fresh run from the step's world and seed, every earlier step's
    /// setup and solution of that run, then this step's setup. Exact, as time travel is: the
    /// same lesson and step always give the same world.
    pub fn open_with(lesson: Lesson, step: usize, prepare: Prepare) -> Result<Runner, String> {
        let count = lesson.steps().len();
        if step >= count {
            return Err(format!(
                "lesson {:?} has {count} steps, not {}",
                lesson.id,
                step + 1
            ));
        }
        let mut session = replay(&lesson, step, prepare).map_err(|e| e.to_string())?;
        let (goal, baseline) = watch(&mut session, &lesson.steps()[step])?;
        let solution = script::parse(&lesson.steps()[step].solution);
        Ok(Runner {
            start: session.clone(),
            session,
            goal,
            baseline,
            solution,
            played: 0,
            answered: None,
            lesson,
            step,
            prepare,
        })
    }

    /// Goes on to the next step in the world as it is now (what `lesson check` does once a
    /// step's solution has run; the same world a jump replays, as the tests show): `false`
    /// at the last step.
    pub(super) fn advance(&mut self) -> Result<bool, String> {
        let next = self.step + 1;
        let Some(step) = self.lesson.steps().get(next) else {
            return Ok(false);
        };
        if step.world.is_some() {
            self.jump(next)?;
            return Ok(true);
        }
        run_part(&mut self.session, next, "setup", &step.setup).map_err(|e| e.to_string())?;
        let (goal, baseline) = watch(&mut self.session, step)?;
        self.solution = script::parse(&step.solution);
        (self.goal, self.baseline, self.step) = (goal, baseline, next);
        self.played = 0;
        self.answered = None;
        self.start = self.session.clone();
        Ok(true)
    }

    pub fn lesson(&self) -> &Lesson {
        &self.lesson
    }

    /// The open step, 0-based.
    pub fn step_index(&self) -> usize {
        self.step
    }

    pub fn step(&self) -> &Step {
        &self.lesson.steps()[self.step]
    }

    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The session, for what the page does besides commands (single steps, play, rewind).
    pub fn session_mut(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Runs a line the student typed (or a button's command).
    pub fn execute(&mut self, line: &str, stdin: Option<&str>) -> Output {
        self.session.execute(line, stdin)
    }

    /// The solution's commands, in order ("Show me" types them one by one).
    pub fn solution(&self) -> &[ScriptLine] {
        &self.solution
    }

    /// How many solution lines were played since the step opened.
    pub fn played(&self) -> usize {
        self.played
    }

    /// Plays the next line of the solution; `None` once all were played.
    pub fn play_next(&mut self) -> Option<(ScriptLine, Output)> {
        let line = self.solution.get(self.played)?.clone();
        self.played += 1;
        let out = self.session.execute(&line.text, line.stdin.as_deref());
        Some((line, out))
    }

    /// Plays the rest of the solution.
    pub fn play_rest(&mut self) -> Vec<(ScriptLine, Output)> {
        std::iter::from_fn(|| self.play_next()).collect()
    }

    /// Back to the moment the step opened (the predict question is asked again).
    pub fn restart(&mut self) {
        self.session = self.start.clone();
        self.played = 0;
        self.answered = None;
    }

    pub fn goal(&self) -> &Goal {
        &self.goal
    }

    /// The world as the step opened: what the goal compares with.
    pub fn baseline(&self) -> &Baseline {
        &self.baseline
    }

    /// Whether the step's goal holds now (its `ever` parts watched after every event since
    /// the step opened).
    pub fn goal_met(&self) -> bool {
        self.session.goal_met().unwrap_or(false)
    }

    /// Where the goal stands, in one line (the first part that does not hold, and why).
    pub fn explain(&self) -> String {
        self.goal.explain(&self.session, &self.baseline)
    }

    pub fn predict(&self) -> Option<&Predict> {
        self.step().predict.as_ref()
    }

    /// Records the student's answer; refused when the step asks nothing, or asks for the
    /// other kind of answer, or the choice does not exist.
    pub fn answer(&mut self, answer: Answer) -> Result<(), String> {
        let Some(predict) = self.predict() else {
            return Err("this step asks no question".into());
        };
        match (predict.kind(), answer) {
            (PredictKind::Choices(c), Answer::Choice(k)) if (1..=c.len()).contains(&k) => {}
            (PredictKind::Choices(c), Answer::Choice(k)) => {
                return Err(format!("no choice {k} (1 to {})", c.len()));
            }
            (PredictKind::Number(_), Answer::Number(_)) => {}
            (PredictKind::Choices(_), Answer::Number(_)) => {
                return Err("this question takes a choice, not a number".into());
            }
            (PredictKind::Number(_), Answer::Choice(_)) => {
                return Err("this question takes a number, not a choice".into());
            }
        }
        self.answered = Some(answer);
        Ok(())
    }

    pub fn answered(&self) -> Option<Answer> {
        self.answered
    }

    /// Right or wrong, once the question was answered and the goal is met (the reveal says
    /// what happened, so it waits for it to happen). A choice is right if it is the file's
    /// answer (which `lesson check` proved is the one that holds); a number, if it equals
    /// the operand's value in the world now.
    pub fn verdict(&self) -> Option<Verdict> {
        let predict = self.predict()?;
        let answer = self.answered?;
        if !self.goal_met() {
            return None;
        }
        let right = match (predict.kind(), answer) {
            (PredictKind::Choices(_), Answer::Choice(k)) => k as i64 == predict.answer,
            (PredictKind::Number(operand), Answer::Number(n)) => {
                number_holds(&self.session, &self.baseline, operand, n).unwrap_or(false)
            }
            _ => false,
        };
        Some(Verdict {
            right,
            reveal: predict.reveal.clone(),
        })
    }

    /// Opens another step of the same lesson (a jump: replayed from the seed).
    pub fn jump(&mut self, step: usize) -> Result<(), String> {
        *self = Runner::open_with(self.lesson.clone(), step, self.prepare)?;
        Ok(())
    }

    /// The next step; `false` at the last one.
    pub fn next_step(&mut self) -> Result<bool, String> {
        if self.step + 1 >= self.lesson.steps().len() {
            return Ok(false);
        }
        self.jump(self.step + 1).map(|()| true)
    }

    /// The step before; `false` at the first one.
    pub fn back_step(&mut self) -> Result<bool, String> {
        match self.step.checked_sub(1) {
            Some(before) => self.jump(before).map(|()| true),
            None => Ok(false),
        }
    }
}

/// Watches the step's goal from the world as it is now.
fn watch(session: &mut Session, step: &Step) -> Result<(Goal, Baseline), String> {
    let goal = Goal::parse(&step.goal).map_err(|e| format!("goal: {e}"))?;
    let baseline = session.baseline();
    session.watch_goal(goal.clone(), baseline.clone());
    Ok((goal, baseline))
}

/// Whether a number question's operand equals `n` in the session now.
pub(super) fn number_holds(
    session: &Session,
    base: &Baseline,
    operand: &str,
    n: i64,
) -> Result<bool, String> {
    let goal = super::number_goal(operand, n)?;
    session.goal_holds(&goal, base).map_err(|e| e.to_string())
}

/// The session of step `step` as it opens: its run's world, then setups and solutions.
fn replay(lesson: &Lesson, step: usize, prepare: Prepare) -> Result<Session, LineFailed> {
    let first = lesson.run_start(step);
    let world = lesson.world_of(step);
    let config = world.config().map_err(|e| LineFailed {
        step: first,
        part: "world",
        line: String::new(),
        stderr: e,
    })?;
    let mut session = Session::new(config);
    // `violations` goals read the invariant monitor, in the CLI as on the page.
    session.watch_invariants();
    prepare(&mut session);
    if world.kube {
        run_part(&mut session, first, "world", "kube up")?;
    }
    for (i, s) in lesson.steps().iter().enumerate().take(step + 1).skip(first) {
        run_part(&mut session, i, "setup", &s.setup)?;
        if i < step {
            for line in script::parse(&s.solution) {
                session.execute(&line.text, line.stdin.as_deref());
            }
        }
    }
    Ok(session)
}

/// Runs a setup: every line must succeed (a failing one is a broken lesson, not a lesson).
pub(super) fn run_part(
    session: &mut Session,
    step: usize,
    part: &'static str,
    text: &str,
) -> Result<(), LineFailed> {
    for line in script::parse(text) {
        let out = session.execute(&line.text, line.stdin.as_deref());
        if out.code != 0 {
            return Err(LineFailed {
                step,
                part,
                line: line.text,
                stderr: out.stderr,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson(setup2: &str) -> Lesson {
        let text = format!(
            r#"
id: two
title: {{en: T, zh-TW: 題}}
summary: {{en: S, zh-TW: 摘}}
steps:
  - title: {{en: One, zh-TW: 一}}
    text: {{en: X, zh-TW: 文}}
    setup: "wait leader"
    goal: "leader.term > start.leader.term"
    goal_text: {{en: G, zh-TW: 標}}
    solution: |
      kill leader
      wait leader
  - title: {{en: Two, zh-TW: 二}}
    text: {{en: X, zh-TW: 文}}
    setup: "{setup2}"
    goal: "m1.state == follower"
    goal_text: {{en: G, zh-TW: 標}}
    solution: "restart m1"
"#
        );
        Lesson::parse("two.yaml", &text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A jump lands on the very world that taking the steps one by one reaches.
    #[test]
    fn a_jump_is_the_same_run_as_walking_there() {
        let mut walked = Runner::open(lesson("wait 1s"), 0).unwrap();
        assert_eq!(walked.solution().len(), 2);
        let played = walked.play_rest();
        assert_eq!(played.len(), 2);
        assert!(played.iter().all(|(_, out)| out.code == 0));
        assert_eq!(walked.played(), 2);
        assert!(walked.play_next().is_none());
        walked.execute("wait 1s", None);
        let jumped = Runner::open(lesson("wait 1s"), 1).unwrap();
        assert_eq!(
            walked.session().world.status(),
            jumped.session().world.status()
        );
        assert_eq!(
            walked.session().world.trace_hash(),
            jumped.session().world.trace_hash()
        );
    }

    #[test]
    fn restart_next_and_back() {
        let mut r = Runner::open(lesson("wait 1s"), 0).unwrap();
        let start = r.session().world.status();
        r.play_next();
        assert_ne!(r.session().world.status().leader, start.leader);
        r.restart();
        assert_eq!(r.session().world.status(), start);
        assert_eq!(r.played(), 0);
        assert_eq!(r.back_step(), Ok(false));
        assert_eq!(r.next_step(), Ok(true));
        assert_eq!(r.step_index(), 1);
        assert_eq!(r.step().title.en, "Two");
        assert_eq!(r.next_step(), Ok(false));
        assert_eq!(r.back_step(), Ok(true));
        assert_eq!(r.session().world.status(), start);
        let e = Runner::open(lesson("wait 1s"), 2).unwrap_err();
        assert_eq!(e, "lesson \"two\" has 2 steps, not 3");
    }

    #[test]
    fn a_failing_setup_line_is_a_broken_lesson() {
        let e = Runner::open(lesson("kill m9"), 1).unwrap_err();
        assert!(
            e.starts_with("step 2: setup line `kill m9` failed: Error: "),
            "{e}"
        );
    }
}

#[cfg(test)]
mod goal_tests {
    use super::*;

    fn lesson() -> Lesson {
        let text = r#"
id: p
title: {en: T, zh-TW: 題}
summary: {en: S, zh-TW: 摘}
steps:
  - title: {en: One, zh-TW: 一}
    text: {en: X, zh-TW: 文}
    setup: "wait leader"
    goal: "leader.term > start.leader.term"
    goal_text: {en: G, zh-TW: 標}
    solution: |
      kill leader
      wait leader
    predict:
      question: {en: Q, zh-TW: 問}
      choices:
        - {text: {en: one, zh-TW: 一}, holds: "leaders == 1"}
        - {text: {en: two, zh-TW: 二}, holds: "leaders == 2"}
      answer: 1
      reveal: {en: R, zh-TW: 答}
  - title: {en: Two, zh-TW: 二}
    text: {en: X, zh-TW: 文}
    goal: "term > start.term"
    goal_text: {en: G, zh-TW: 標}
    solution: |
      restart m1
      kill leader
      wait leader
    predict:
      question: {en: Q, zh-TW: 問}
      number: "elections"
      answer: 1
      reveal: {en: R, zh-TW: 答}
"#;
        Lesson::parse("p.yaml", text).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The goal is watched from the step's start: not met, met once the solution ran,
    /// unmet again after Restart; the predict verdict waits for the goal.
    #[test]
    fn goal_and_predict_from_open_to_restart() {
        let mut r = Runner::open(lesson(), 0).unwrap();
        assert!(!r.goal_met());
        assert!(r.explain().contains("is false"), "{}", r.explain());
        assert_eq!(
            r.answer(Answer::Number(3)),
            Err("this question takes a choice, not a number".into())
        );
        assert_eq!(
            r.answer(Answer::Choice(3)),
            Err("no choice 3 (1 to 2)".into())
        );
        r.answer(Answer::Choice(2)).unwrap();
        assert_eq!(r.answered(), Some(Answer::Choice(2)));
        assert_eq!(r.verdict(), None, "no reveal before it happened");
        r.play_rest();
        assert!(r.goal_met(), "{}", r.explain());
        let v = r.verdict().unwrap();
        assert!(!v.right);
        assert_eq!(v.reveal.en, "R");
        r.restart();
        assert!(!r.goal_met());
        assert_eq!(r.answered(), None);
        // The student's own command (not the solution) meets the goal the same way.
        r.execute("kill leader", None);
        r.execute("wait leader", None);
        assert!(r.goal_met());
        r.answer(Answer::Choice(1)).unwrap();
        assert!(r.verdict().unwrap().right);
    }

    /// A number is compared with the live world, and the runner that walks on to the next
    /// step stands where a jump lands.
    #[test]
    fn numbers_and_advance() {
        let mut walked = Runner::open(lesson(), 0).unwrap();
        walked.play_rest();
        assert_eq!(walked.advance(), Ok(true));
        assert_eq!(walked.step_index(), 1);
        let jumped = Runner::open(lesson(), 1).unwrap();
        assert_eq!(
            walked.session().world.status(),
            jumped.session().world.status()
        );
        assert!(!walked.goal_met());
        assert_eq!(
            walked.answer(Answer::Choice(1)),
            Err("this question takes a number, not a choice".into())
        );
        walked.answer(Answer::Number(1)).unwrap();
        walked.play_rest();
        assert!(walked.goal_met(), "{}", walked.explain());
        assert!(walked.verdict().unwrap().right, "{}", walked.explain());
        assert_eq!(walked.advance(), Ok(false));
        let mut none = Runner::open(lesson(), 1).unwrap();
        none.jump(0).unwrap();
        assert!(none.predict().is_some());
    }
}
