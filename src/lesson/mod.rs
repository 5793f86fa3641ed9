//! Guided lessons: data files (`static/lessons/NN-id.yaml`, compiled in by [`shipped`]), read
//! by [`format`], taken step by step with a [`Runner`] that the page and `raftlab lesson`
//! both drive.
//!
//! The runner's public API (the page's Lessons panel is built on it):
//! - [`Runner::open`]`(lesson, step)` / [`Runner::open_with`]`(lesson, step, prepare)`: step
//!   `step` (0-based) as it opens: a fresh run from the step's world and seed, then every
//!   earlier step's setup and solution, then this step's setup (exact, like time travel).
//!   `prepare` runs on the new session first (the page's wire log and invariant monitor); it
//!   must not change what the world does.
//! - [`Runner::session`] / [`Runner::session_mut`]: the live session the page renders;
//!   [`Runner::execute`]`(line, stdin)`: a command typed or a button's command.
//! - [`Runner::solution`], [`Runner::play_next`] (one line, so the page can show it typed),
//!   [`Runner::play_rest`], [`Runner::played`].
//! - [`Runner::restart`] (back to the step's start), [`Runner::jump`]`(n)`, [`Runner::next_step`],
//!   [`Runner::back_step`] (jumps: replayed from the seed, so every step opens on the world CI
//!   checked).
//! - [`shipped::all`], [`shipped::find`]`(id)`: the lessons that ship; [`Lesson::parse`]
//!   `(file, text)`: a teacher's file, with errors naming the file, step and field.
//! - [`Runner::goal_met`] and [`Runner::explain`] (the "why not yet" line): the step's goal,
//!   watched after every engine event against [`Runner::baseline`], the world as the step
//!   opened, so it cannot hold before the student acts; a button and a typed command pass
//!   alike.
//! - [`Runner::predict`], [`Runner::answer`]`(`[`Answer::Choice`]`(k) | `[`Answer::Number`]`(n))`,
//!   [`Runner::answered`], [`Runner::verdict`] (right or wrong and the reveal, once the goal
//!   is met: a choice is right if it is the file's answer, which [`check`] proved is the one
//!   that holds; a number, if it equals the operand in the world then). Restart forgets the
//!   answer.
//! - [`check::check`]`(lesson)`: the proof `raftlab lesson check` prints and CI runs.

pub mod check;
pub mod format;
mod runner;
pub mod shipped;

pub use format::{Choice, Lesson, Predict, PredictKind, Step, Text, World};
pub use runner::{Answer, LineFailed, Prepare, Runner, Verdict};

use crate::console::Goal;

/// A goal or a choice's predicate, read by the goal language (`expect`'s).
fn goal_syntax(text: &str) -> Result<(), String> {
    Goal::parse(text).map(|_| ()).map_err(|e| e.to_string())
}

/// The operand of a number question must be one a goal can compare.
fn operand_syntax(text: &str) -> Result<(), String> {
    number_goal(text, 0).map(|_| ())
}

/// "The operand equals `n`", as a goal.
fn number_goal(operand: &str, n: i64) -> Result<Goal, String> {
    Goal::parse(&format!("{operand} == {n}")).map_err(|e| e.to_string())
}
