//! One lesson being taken: the open step, its world, the solution as far as it was played.

use super::format::{Lesson, Step};
use crate::console::script::{self, ScriptLine};
use crate::console::{Output, Session};

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
    /// The session as the step opened (after its setup): Restart goes back to it.
    start: Session,
    solution: Vec<ScriptLine>,
    played: usize,
    prepare: Prepare,
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
        let session = replay(&lesson, step, prepare).map_err(|e| e.to_string())?;
        let solution = script::parse(&lesson.steps()[step].solution);
        Ok(Runner {
            start: session.clone(),
            session,
            solution,
            played: 0,
            lesson,
            step,
            prepare,
        })
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

    /// Back to the moment the step opened.
    pub fn restart(&mut self) {
        self.session = self.start.clone();
        self.played = 0;
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
