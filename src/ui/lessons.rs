//! The lessons as the page takes them: the shipped lessons, the step open (a `Runner` of the
//! lesson layer, the step's baseline and goal, the answer to its predict question) and the
//! steps done. Plain Rust: `super::lab::Lab` keeps one `Course` beside its run and hands it the
//! session to judge; every step opens through the runner, from the lesson's seed, so a jump,
//! Back and Restart all land on the world `raftlab lesson check` checked.

use super::recorder::WIRE_LOG;
use super::share::{LessonMark, OpenStep};
use crate::console::goal::{Baseline, Goal};
use crate::console::script::ScriptLine;
use crate::console::Session;
use crate::lesson::{shipped, Lesson, PredictKind, Runner, Step};
use std::collections::{BTreeMap, BTreeSet};

/// What the student asks of the lessons (the Lessons panel's buttons and links).
#[derive(Clone, Debug, PartialEq)]
pub enum LessonMsg {
    /// Open step `step` (1-based, as the page numbers steps) of lesson `lesson`.
    Open {
        lesson: String,
        step: usize,
    },
    Next,
    Back,
    Restart,
    /// Plays the solution in the console.
    ShowMe,
    Answer(Answer),
    Close,
}

pub use crate::lesson::Answer;

/// The step a student is on.
#[derive(Clone, Debug)]
pub struct Open {
    runner: Runner,
    baseline: Baseline,
    goal: Result<Goal, String>,
}

/// The goal as the page shows it now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoalState {
    pub met: bool,
    /// Why not yet (the goal language's explanation), or why it cannot be judged.
    pub why_not: Option<String>,
}

/// How a predict answer compares with what the run did, once the goal was met.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The choices (1-based) whose predicate holds in the run.
    Choices(Vec<usize>),
    /// Whether the student's number equals the live value, and the goal language's account
    /// of that value.
    Number { right: bool, account: String },
}

/// The lessons, the open step and the progress of one visitor.
#[derive(Clone, Debug)]
pub struct Course {
    lessons: Result<Vec<Lesson>, String>,
    open: Option<Open>,
    /// Lesson id → steps done (1-based).
    done: BTreeMap<String, BTreeSet<usize>>,
}

/// What the page does to every lesson session before the lesson runs: the message recorder's
/// wire log and the invariant monitor (neither changes what the world does).
fn prepare(session: &mut Session) {
    session.set_wire_log(WIRE_LOG);
    session.watch_invariants();
}

impl Default for Course {
    fn default() -> Course {
        Course {
            lessons: shipped::all(),
            open: None,
            done: BTreeMap::new(),
        }
    }
}

impl Course {
    /// The shipped lessons, or why they could not be read (a broken build; CI refuses it).
    pub fn lessons(&self) -> Result<&[Lesson], &str> {
        self.lessons.as_deref().map_err(String::as_str)
    }

    pub fn open(&self) -> Option<&Open> {
        self.open.as_ref()
    }

    pub fn is_done(&self, lesson: &str, step: usize) -> bool {
        self.done.get(lesson).is_some_and(|s| s.contains(&step))
    }

    /// Adds the steps `mark` says are done (a link's or the stored ones).
    pub fn merge_done(&mut self, mark: &LessonMark) {
        for (id, steps) in &mark.done {
            self.done.entry(id.clone()).or_default().extend(steps);
        }
    }

    /// The open step and the progress, as local storage and share links keep them.
    pub fn mark(&self) -> LessonMark {
        LessonMark {
            open: self.open.as_ref().map(|o| OpenStep {
                lesson: o.lesson().id.clone(),
                step: o.number(),
            }),
            done: self.done.clone(),
        }
    }

    /// Opens step `step` (1-based) of lesson `id` from its seed: the session to run.
    pub fn open_step(&mut self, id: &str, step: usize) -> Result<Session, String> {
        let lessons = self.lessons.as_ref().map_err(String::clone)?;
        let lesson = lessons.iter().find(|l| l.id == id).ok_or_else(|| {
            let ids: Vec<&str> = lessons.iter().map(|l| l.id.as_str()).collect();
            format!("no lesson {id:?} (one of: {})", ids.join(", "))
        })?;
        let index = step
            .checked_sub(1)
            .ok_or_else(|| format!("lesson {id:?} has no step 0 (steps count from 1)"))?;
        let mut runner = Runner::open_with(lesson.clone(), index, prepare)?;
        // Restarting a step does not ask its question again.
        let answer = self
            .open
            .as_ref()
            .filter(|o| o.lesson().id == id && o.number() == step)
            .and_then(|o| o.runner.answered());
        if let Some(answer) = answer {
            runner.answer(answer)?;
        }
        Ok(self.start(runner))
    }

    /// Opens the step as a link left it: from its seed, then what the link's run (`linked`,
    /// replayed) did after the step began, each command at its moment, as a rewind replays
    /// them. The warning says why the step opened from its start instead.
    pub fn resume(
        &mut self,
        open: &OpenStep,
        linked: Option<&Session>,
    ) -> Result<(Session, Option<String>), String> {
        let mut session = self.open_step(&open.lesson, open.step)?;
        let Some(linked) = linked else {
            return Ok((session, None));
        };
        let before = session.history().len();
        let same_start = linked.history().len() >= before
            && linked
                .history()
                .iter()
                .zip(session.history().iter())
                .all(|(a, b)| (a.time_ms, a.line, a.stdin) == (b.time_ms, b.line, b.stdin));
        if !same_start || linked.world.now() < session.world.now() {
            let warning = format!(
                "the link's run does not begin as step {} of {:?} does: the step opens from its start",
                open.step, open.lesson
            );
            return Ok((session, Some(warning)));
        }
        for entry in linked.history().iter().skip(before) {
            session.run_for(entry.time_ms.saturating_sub(session.world.now()));
            session.execute(&entry.line, entry.stdin);
        }
        session.run_for(linked.world.now().saturating_sub(session.world.now()));
        Ok((session, None))
    }

    fn start(&mut self, runner: Runner) -> Session {
        let mut session = runner.session().clone();
        let baseline = session.baseline();
        let goal = Goal::parse(&runner.step().goal).map_err(|e| e.to_string());
        if let Ok(goal) = &goal {
            session.watch_goal(goal.clone(), baseline.clone());
        }
        self.open = Some(Open {
            runner,
            baseline,
            goal,
        });
        session
    }

    /// Does what `msg` asks: the session to run from now on when a step opened, else `None`.
    pub fn apply(&mut self, msg: LessonMsg) -> Result<Option<Session>, String> {
        let Some(open) = &self.open else {
            return match msg {
                LessonMsg::Open { lesson, step } => self.open_step(&lesson, step).map(Some),
                _ => Ok(None),
            };
        };
        let (id, number, count) = (
            open.lesson().id.clone(),
            open.number(),
            open.lesson().steps().len(),
        );
        let target = match msg {
            LessonMsg::Open { lesson, step } => Some((lesson, step)),
            LessonMsg::Next if number < count => Some((id, number + 1)),
            LessonMsg::Next => self.lesson_after(&id).map(|next| (next, 1)),
            LessonMsg::Back if number > 1 => Some((id, number - 1)),
            LessonMsg::Restart => Some((id, number)),
            LessonMsg::Answer(answer) => {
                self.answer(answer)?;
                None
            }
            LessonMsg::Close => {
                self.open = None;
                None
            }
            LessonMsg::Back | LessonMsg::ShowMe => None,
        };
        match target {
            Some((lesson, step)) => self.open_step(&lesson, step).map(Some),
            None => Ok(None),
        }
    }

    /// The lesson after `id` in the table of contents (Next on a lesson's last step).
    fn lesson_after(&self, id: &str) -> Option<String> {
        let lessons = self.lessons.as_ref().ok()?;
        let at = lessons.iter().position(|l| l.id == id)?;
        lessons.get(at + 1).map(|l| l.id.clone())
    }

    /// Next leads somewhere: a later step, or the next lesson.
    pub fn has_next(&self) -> bool {
        self.open.as_ref().is_some_and(|o| {
            o.number() < o.lesson().steps().len() || self.lesson_after(&o.lesson().id).is_some()
        })
    }

    /// The runner checks the answer fits the question, and keeps it.
    fn answer(&mut self, answer: Answer) -> Result<(), String> {
        match &mut self.open {
            Some(open) => open.runner.answer(answer),
            None => Ok(()),
        }
    }

    /// The open step waits for its predict question to be answered: the world is held still
    /// until then (the question is asked before the decisive moment).
    pub fn waits_for_answer(&self) -> bool {
        self.open
            .as_ref()
            .is_some_and(|o| o.runner.predict().is_some() && o.runner.answered().is_none())
    }

    /// The solution's lines, for "Show me" to run as if typed.
    pub fn solution(&self) -> Vec<ScriptLine> {
        self.open
            .as_ref()
            .map(|o| o.runner.solution().to_vec())
            .unwrap_or_default()
    }

    /// Marks the open step done once its goal holds in `session`; true when that is news.
    pub fn observe(&mut self, session: &Session) -> bool {
        let Some(open) = &self.open else {
            return false;
        };
        if !open.goal_state(session).met {
            return false;
        }
        let (id, number) = (open.lesson().id.clone(), open.number());
        self.done.entry(id).or_default().insert(number)
    }
}

impl Open {
    pub fn lesson(&self) -> &Lesson {
        self.runner.lesson()
    }

    pub fn step(&self) -> &Step {
        self.runner.step()
    }

    /// The step's number, from 1.
    pub fn number(&self) -> usize {
        self.runner.step_index() + 1
    }

    pub fn answer(&self) -> Option<Answer> {
        self.runner.answered()
    }

    /// The goal judged on the engine's views of `session` (never on what the page shows).
    pub fn goal_state(&self, session: &Session) -> GoalState {
        let goal = match &self.goal {
            Ok(goal) => goal,
            Err(e) => {
                return GoalState {
                    met: false,
                    why_not: Some(e.clone()),
                }
            }
        };
        let held = match session.goal_met() {
            Some(met) => Ok(met),
            None => session
                .goal_holds(goal, &self.baseline)
                .map_err(|e| e.to_string()),
        };
        match held {
            Ok(true) => GoalState {
                met: true,
                why_not: None,
            },
            Ok(false) => GoalState {
                met: false,
                why_not: Some(goal.explain(session, &self.baseline)),
            },
            Err(e) => GoalState {
                met: false,
                why_not: Some(e),
            },
        }
    }

    /// How the answer compares with the run, judged once the goal is met (the reveal comes
    /// after the decisive moment); `None` before, or with no question or no answer.
    pub fn outcome(&self, session: &Session) -> Option<Outcome> {
        let predict = self.step().predict.as_ref()?;
        let answer = self.runner.answered()?;
        if !self.goal_state(session).met {
            return None;
        }
        let holds = |text: &str| {
            Goal::parse(text)
                .ok()
                .and_then(|g| session.goal_holds(&g, &self.baseline).ok())
        };
        match (predict.kind(), answer) {
            (PredictKind::Choices(choices), _) => Some(Outcome::Choices(
                (1..=choices.len())
                    .filter(|k| holds(&choices[k - 1].holds) == Some(true))
                    .collect(),
            )),
            (PredictKind::Number(operand), Answer::Number(n)) => {
                let text = format!("{operand} == {n}");
                let goal = Goal::parse(&text).ok()?;
                let right = session.goal_holds(&goal, &self.baseline).ok()?;
                Some(Outcome::Number {
                    right,
                    account: goal.explain(session, &self.baseline),
                })
            }
            (PredictKind::Number(_), Answer::Choice(_)) => None,
        }
    }
}

/// A lesson text in Markdown-light: paragraphs (blank lines between), and `code` spans. Each
/// paragraph is a list of (is code, text) runs. The lines of a paragraph join with a space,
/// except between two Chinese characters (YAML wraps Chinese anywhere; it has no spaces).
pub fn paragraphs(text: &str) -> Vec<Vec<(bool, String)>> {
    text.split("\n\n")
        .map(join_lines)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.split('`')
                .enumerate()
                .filter(|(_, run)| !run.is_empty())
                .map(|(i, run)| (i % 2 == 1, run.to_string()))
                .collect()
        })
        .collect()
}

fn join_lines(paragraph: &str) -> String {
    let mut out = String::new();
    for line in paragraph.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let wide = |c: Option<char>| c.is_some_and(|c| c > '\u{2e7f}');
        let between_chinese = wide(out.chars().last()) && wide(line.chars().next());
        if !out.is_empty() && !between_chinese {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::i18n::Lang;
    use crate::ui::lab::{open_with_lessons, Lab, Msg};
    use crate::ui::share;
    use crate::ui::view::Action;

    const ELECTION: &str = "leader-election";
    /// Lesson 5's steps: 1 asks with choices (2 is right), 2 asks a number (2), 4 has no
    /// question and wants a new leader after a crash.
    const CHOICES: usize = 1;
    const NUMBER: usize = 2;
    const KILL: usize = 4;

    fn opened(step: usize) -> (Course, Session) {
        let mut course = Course::default();
        let session = course.open_step(ELECTION, step).expect("the step opens");
        (course, session)
    }

    fn met(course: &Course, session: &Session) -> bool {
        course.open().expect("open").goal_state(session).met
    }

    fn lab_at(step: usize) -> Lab {
        let mut lab = Lab::new(crate::etcd::ClusterConfig::default());
        lab.apply(Msg::Lesson(LessonMsg::Open {
            lesson: ELECTION.into(),
            step,
        }));
        lab
    }

    #[test]
    fn a_step_opens_from_its_seed_with_the_goal_unmet_until_the_student_acts() {
        let (mut course, mut session) = opened(KILL);
        assert!(session.world.leader().is_some());
        let state = course.open().expect("open").goal_state(&session);
        assert!(!state.met);
        assert!(
            state.why_not.is_some_and(|w| !w.is_empty()),
            "unmet says why"
        );
        course.observe(&session);
        assert!(!course.is_done(ELECTION, KILL));
        session.execute("kill leader", None);
        session.execute("wait leader", None);
        assert!(met(&course, &session));
        course.observe(&session);
        assert!(course.is_done(ELECTION, KILL));
        let (_, again) = opened(KILL);
        assert_eq!(
            again.export_script(),
            opened(KILL).1.export_script(),
            "a jump is exact"
        );
    }

    #[test]
    fn next_back_and_restart_move_between_steps_and_stop_at_the_ends() {
        let (mut course, _) = opened(1);
        let at = |c: &Course| c.open().map(|o| o.number());
        assert!(
            matches!(course.apply(LessonMsg::Back), Ok(None)),
            "no step 0"
        );
        assert!(matches!(course.apply(LessonMsg::Next), Ok(Some(_))));
        assert_eq!(at(&course), Some(2));
        assert!(matches!(course.apply(LessonMsg::Restart), Ok(Some(_))));
        assert_eq!(at(&course), Some(2));
        assert!(matches!(course.apply(LessonMsg::Back), Ok(Some(_))));
        assert_eq!(at(&course), Some(1));
        let last = course.open().expect("open").lesson().steps().len();
        course
            .apply(LessonMsg::Open {
                lesson: ELECTION.into(),
                step: last,
            })
            .expect("the last step opens");
        assert!(course.has_next());
        assert!(matches!(course.apply(LessonMsg::Next), Ok(Some(_))));
        let open = course.open().map(|o| (o.lesson().id.clone(), o.number()));
        let ids: Vec<String> = course
            .lessons()
            .expect("lessons")
            .iter()
            .map(|l| l.id.clone())
            .collect();
        let after = ids
            .iter()
            .position(|i| i == ELECTION)
            .map(|i| ids[i + 1].clone());
        assert_eq!(
            open,
            after.map(|id| (id, 1)),
            "the last step leads to the next lesson"
        );
        let final_id = ids.last().expect("a lesson").clone();
        let final_count = course
            .lessons()
            .expect("lessons")
            .last()
            .map_or(0, |l| l.steps().len());
        course
            .open_step(&final_id, final_count)
            .expect("the very last step");
        assert!(!course.has_next());
        assert!(
            matches!(course.apply(LessonMsg::Next), Ok(None)),
            "nothing after the last lesson"
        );
        course
            .apply(LessonMsg::Open {
                lesson: ELECTION.into(),
                step: last,
            })
            .expect("the last step opens");
        for (lesson, step) in [("no-such-lesson", 1), (ELECTION, 0), (ELECTION, last + 1)] {
            let msg = LessonMsg::Open {
                lesson: lesson.into(),
                step,
            };
            assert!(course.apply(msg).is_err(), "{lesson} {step}");
        }
        assert_eq!(at(&course), Some(last), "a bad jump leaves the step open");
        course.apply(LessonMsg::Close).expect("close");
        assert!(course.open().is_none());
    }

    #[test]
    fn a_choice_question_waits_for_its_answer_and_is_judged_on_the_run() {
        let (mut course, mut session) = opened(CHOICES);
        assert!(course.waits_for_answer());
        assert!(course.apply(LessonMsg::Answer(Answer::Choice(9))).is_err());
        assert!(course.apply(LessonMsg::Answer(Answer::Number(2))).is_err());
        assert!(course.waits_for_answer());
        course
            .apply(LessonMsg::Answer(Answer::Choice(2)))
            .expect("a choice");
        assert!(!course.waits_for_answer());
        let open = course.open().expect("open");
        assert_eq!(
            open.outcome(&session),
            None,
            "no reveal before the goal is met"
        );
        for line in course.solution() {
            session.execute(&line.text, line.stdin.as_deref());
        }
        let open = course.open().expect("open");
        assert_eq!(open.outcome(&session), Some(Outcome::Choices(vec![2])));
        course.apply(LessonMsg::Restart).expect("restart");
        assert!(!course.waits_for_answer(), "Restart does not ask again");
        course.apply(LessonMsg::Next).expect("next");
        assert!(
            course.waits_for_answer(),
            "the next step asks its own question"
        );
    }

    #[test]
    fn a_number_question_compares_with_the_live_value() {
        for (guess, right) in [(2, true), (1, false)] {
            let (mut course, mut session) = opened(NUMBER);
            course
                .apply(LessonMsg::Answer(Answer::Number(guess)))
                .expect("a number");
            for line in course.solution() {
                session.execute(&line.text, line.stdin.as_deref());
            }
            let outcome = course.open().and_then(|o| o.outcome(&session));
            let Some(Outcome::Number {
                right: was,
                account,
            }) = outcome
            else {
                panic!("a number outcome, not {outcome:?}");
            };
            assert_eq!(was, right, "{guess}: {account}");
            assert!(!account.is_empty());
        }
    }

    #[test]
    fn the_world_waits_for_the_answer_then_show_me_types_the_solution() {
        let mut lab = lab_at(CHOICES);
        let now = lab.world().now();
        let frame = Msg::Frame {
            real_ms: 50.0,
            pace: crate::ui::view::Pace::steady(1.0),
        };
        for msg in [
            frame.clone(),
            Msg::Play,
            Msg::Step,
            Msg::Command("kill m1".into()),
            Msg::Lesson(LessonMsg::ShowMe),
        ] {
            assert_eq!(lab.apply(msg.clone()), Action::Pause, "{msg:?}");
        }
        assert_eq!(lab.world().now(), now, "time waits too");
        assert!(lab.transcript().is_empty());
        let answer = Msg::Lesson(LessonMsg::Answer(Answer::Choice(CHOICES_RIGHT)));
        lab.apply(answer);
        assert_eq!(
            lab.apply(Msg::Play),
            Action::Play,
            "answered: the world goes on"
        );
        lab.apply(frame);
        assert!(lab.world().now() > now);
        lab.apply(Msg::Lesson(LessonMsg::ShowMe));
        let typed: Vec<&str> = lab.transcript().iter().map(|e| e.line.as_str()).collect();
        assert_eq!(typed, ["wait 500ms", "status"]);
        assert!(lab.lessons().is_done(ELECTION, CHOICES));
    }

    const CHOICES_RIGHT: usize = 2;

    /// "Show me" types its lines as the console does: a `wait leader` that cannot end soon
    /// runs in slices (the page keeps drawing), and ends as it would have at once.
    #[test]
    fn show_me_runs_a_long_wait_in_slices() {
        let mut lab = lab_at(KILL);
        lab.apply(Msg::Command("wait leader".into()));
        let leader = lab.world().leader().expect("a leader");
        let other = lab.world().member_ids().into_iter().find(|m| *m != leader);
        lab.apply(Msg::Command(format!("kill {}", other.expect("a follower"))));
        lab.apply(Msg::Lesson(LessonMsg::ShowMe));
        assert!(lab.long_run().is_some(), "no quorum: the wait goes on");
        let last = |lab: &Lab| lab.transcript().last().map(|e| e.line.clone());
        assert_eq!(last(&lab).as_deref(), Some("kill leader"));
        let mut slices = 0;
        while lab.long_run().is_some() && slices < 1_000 {
            lab.apply(Msg::Continue(1_000));
            slices += 1;
        }
        assert!(slices > 10, "{slices} slices");
        let end = lab.transcript().last().expect("the wait ended");
        assert_eq!(end.line, "wait leader");
        assert_eq!(end.stderr, "Error: no leader within 60s\n");
    }

    #[test]
    fn a_share_link_reopens_the_step_and_replays_what_was_done_in_it() {
        let mut lab = lab_at(KILL);
        lab.apply(Msg::Command("kill leader".into()));
        lab.apply(Msg::Command("wait leader".into()));
        let fragment = lab.share_fragment();
        assert!(fragment.contains("&lesson=leader-election.4"), "{fragment}");
        assert!(fragment.contains("&done=leader-election.4"), "{fragment}");
        let (copy, view) = open_with_lessons(&fragment, "", Lang::En, false);
        let open = copy.lessons().open().expect("the step is open");
        assert_eq!((open.lesson().id.as_str(), open.number()), (ELECTION, KILL));
        assert!(open.goal_state(copy.session()).met, "the kill came along");
        assert_eq!(copy.world().now(), lab.world().now());
        assert!(view.notice.is_some_and(|n| !n.error));

        let other_start = fragment.replace("wait%20leader", "wait%201s");
        let (copy, view) = open_with_lessons(&other_start, "", Lang::En, false);
        let open = copy.lessons().open().expect("the step is open");
        assert!(
            !open.goal_state(copy.session()).met,
            "opened from its start"
        );
        assert!(view.notice.is_some_and(|n| n.error));
    }

    #[test]
    fn a_reload_lands_on_the_stored_step_and_keeps_the_progress() {
        let mut lab = lab_at(CHOICES);
        lab.apply(Msg::Lesson(LessonMsg::Answer(Answer::Choice(
            CHOICES_RIGHT,
        ))));
        lab.apply(Msg::Lesson(LessonMsg::ShowMe));
        lab.apply(Msg::Lesson(LessonMsg::Next));
        let stored = share::encode_lessons(&lab.lessons().mark());
        assert_eq!(stored, "&lesson=leader-election.2&done=leader-election.1");
        let (again, _) = open_with_lessons("", &stored, Lang::En, false);
        let open = again.lessons().open().expect("open");
        assert_eq!(open.number(), 2);
        assert!(again.lessons().is_done(ELECTION, 1));
        assert_eq!(again.settings().seed, open.lesson().world_of(1).seed);

        let (plain, _) = open_with_lessons("", "", Lang::En, false);
        assert!(plain.lessons().open().is_none());
        let (broken, view) = open_with_lessons("", "&lesson=gone.3", Lang::En, false);
        assert!(broken.lessons().open().is_none());
        assert!(view
            .notice
            .is_some_and(|n| n.error && n.text.contains("gone")));
    }

    #[test]
    fn changing_the_cluster_leaves_the_lesson_but_not_the_progress() {
        let mut lab = lab_at(KILL);
        lab.apply(Msg::Command("kill leader".into()));
        lab.apply(Msg::Command("wait leader".into()));
        lab.apply(Msg::SetMembers(5));
        assert!(lab.lessons().open().is_none());
        assert!(lab.lessons().is_done(ELECTION, KILL));
    }

    #[test]
    fn lesson_text_keeps_paragraphs_and_code_and_joins_chinese_lines_without_spaces() {
        let text = "The `status` command\nshows it.\n\nSecond.\n";
        assert_eq!(
            paragraphs(text),
            vec![
                vec![
                    (false, "The ".to_string()),
                    (true, "status".to_string()),
                    (false, " command shows it.".to_string())
                ],
                vec![(false, "Second.".to_string())],
            ]
        );
        let zh = "三個 Member 一開始\n都是 Follower，etcd 預設開啟\npre-vote 時";
        assert_eq!(
            paragraphs(zh),
            vec![vec![(
                false,
                "三個 Member 一開始都是 Follower，etcd 預設開啟 pre-vote 時".to_string()
            )]]
        );
        assert!(paragraphs("\n\n").is_empty());
    }
}
