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
//! - With the goal language (`crate::console::goal`): `Runner::goal_met() -> bool` and
//!   `Runner::explain() -> String` (watched after every engine event, against the baseline
//!   taken when the step opened), `Runner::answer(Answer::Choice(k) | Answer::Number(n)) ->
//!   Verdict { right, reveal }`, `Runner::answered()`.

pub mod format;
mod runner;
pub mod shipped;

pub use format::{Choice, Lesson, Predict, PredictKind, Step, Text, World};
pub use runner::{LineFailed, Prepare, Runner};

/// A goal or predicate the file gives: one line of text.
fn goal_syntax(text: &str) -> Result<(), String> {
    if text.trim().is_empty() || text.contains('\n') {
        return Err("a goal is one line of the goal language".into());
    }
    Ok(())
}

/// The operand of a number question.
fn operand_syntax(text: &str) -> Result<(), String> {
    goal_syntax(text)
}
