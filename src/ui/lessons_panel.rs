//! The Lessons card, at the top of the right column beside the cluster: folded, the table of
//! contents; with a step open, the step (its text, the predict question, the goal, met or
//! not, and the buttons) and the contents folded above it. What it shows comes from
//! `super::lessons` and the lesson files; the goal from the engine's views.

use super::i18n::{t, Lang, Text};
use super::lab::{Lab, Msg};
use super::lessons::{paragraphs, Answer, Course, GoalState, LessonMsg, Open, Outcome};
use super::page::Dispatch;
use crate::lesson::{shipped, Lesson, Predict, PredictKind, Text as Both};
use web_sys::HtmlInputElement;
use yew::prelude::*;

fn say(text: &Both, lang: Lang) -> &str {
    match lang {
        Lang::En => &text.en,
        Lang::ZhTw => &text.zh_tw,
    }
}

/// The lesson's number as its file is named (`05-leader-election.yaml` is lesson 5).
fn number_of(lesson: &Lesson) -> String {
    shipped::FILES
        .iter()
        .find(|(name, _)| name.strip_suffix(".yaml").and_then(|n| n.get(3..)) == Some(&lesson.id))
        .and_then(|(name, _)| name.get(..2))
        .map(|n| n.trim_start_matches('0').to_string())
        .unwrap_or_default()
}

/// A lesson button. A step that opens, or a question answered, plays the world (the run
/// refuses to while a question waits); closing or "Show me" leave play as it was.
fn send(d: &Dispatch, msg: LessonMsg) -> Callback<MouseEvent> {
    let d = d.clone();
    let plays = !matches!(msg, LessonMsg::Close | LessonMsg::ShowMe);
    Callback::from(move |_: MouseEvent| {
        d.dispatch(Msg::Lesson(msg.clone()));
        if plays {
            d.dispatch(Msg::Play);
            to_the_top();
        }
    })
}

/// A step that opens is read from its title: the card's own scroll goes back to its top.
fn to_the_top() {
    let card = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(".lesson-panel").ok().flatten());
    if let Some(card) = card {
        card.set_scroll_top(0);
    }
}

/// A step of the contents: opens it, and folds the contents so that the step shows.
fn jump(d: &Dispatch, lesson: &str, step: usize) -> Callback<MouseEvent> {
    let open = send(
        d,
        LessonMsg::Open {
            lesson: lesson.to_string(),
            step,
        },
    );
    Callback::from(move |e: MouseEvent| {
        super::members::close_menu(&e);
        open.emit(e);
    })
}

/// Lesson text: paragraphs with `code` spans.
fn prose(text: &str) -> Html {
    html! { <>{ for paragraphs(text).into_iter().map(|runs| html! {
        <p>{ for runs.into_iter().map(|(code, run)| if code {
            html! { <code>{ run }</code> }
        } else {
            html! { { run } }
        }) }</p>
    }) }</> }
}

/// The card: the contents alone (folded until asked for), or the open step under them.
pub fn card(lab: &Lab, lang: Lang, d: &Dispatch) -> Html {
    let course = lab.lessons();
    let toc = html! {
        <details class="lesson-toc">
            <summary data-action="lesson-contents">
                { if course.open().is_some() { t(lang, Text::LessonContents) } else { t(lang, Text::Lessons) } }
            </summary>
            { contents(course, lang, d) }
        </details>
    };
    if course.open().is_none() {
        return html! { <section class="panel lessons-card" aria-label={t(lang, Text::Lessons)}>{ toc }</section> };
    }
    open_step(lab, toc, lang, d)
}

/// Every lesson and its steps, each step a jump, done ones marked.
fn contents(course: &Course, lang: Lang, d: &Dispatch) -> Html {
    let lessons = match course.lessons() {
        Ok(lessons) => lessons,
        Err(e) => {
            return html! { <p class="error" data-lessons="">{ format!("{}: {e}", t(lang, Text::LessonsBroken)) }</p> }
        }
    };
    let open = course.open().map(|o| (o.lesson().id.clone(), o.number()));
    html! {
        <nav class="lesson-contents" data-lessons="" aria-label={t(lang, Text::Lessons)}>
            <p class="muted">{ t(lang, Text::LessonsIntro) }</p>
            <ol>
                { for lessons.iter().map(|lesson| {
                    let current = open.as_ref().is_some_and(|(id, _)| *id == lesson.id);
                    html! {
                        <li data-lesson={lesson.id.clone()} class={classes!(current.then_some("current"))}>
                            <h3>{ format!("{} {} · {}", t(lang, Text::Lesson), number_of(lesson), say(&lesson.title, lang)) }</h3>
                            <p class="muted summary">{ say(&lesson.summary, lang) }</p>
                            <ol class="lesson-steps">
                                { for lesson.steps().iter().enumerate().map(|(i, step)| {
                                    let n = i + 1;
                                    let done = course.is_done(&lesson.id, n);
                                    let here = current && open.as_ref().is_some_and(|(_, s)| *s == n);
                                    html! { <li>
                                        <button class={classes!("jump", done.then_some("done"), here.then_some("here"))}
                                            data-lesson-jump={format!("{}:{n}", lesson.id)}
                                            data-done={done.to_string()}
                                            aria-current={here.then_some("step")}
                                            onclick={jump(d, &lesson.id, n)}>
                                            <span class="mark" aria-hidden="true">{ if done { "✓" } else { "○" } }</span>
                                            { format!("{n}. {}", say(&step.title, lang)) }
                                            if done { <span class="sr-only">{ format!(" ({})", t(lang, Text::LessonDone)) }</span> }
                                        </button>
                                    </li> }
                                }) }
                            </ol>
                        </li>
                    }
                }) }
            </ol>
        </nav>
    }
}

/// The open step, beside the cluster, under the folded contents (`toc`).
fn open_step(lab: &Lab, toc: Html, lang: Lang, d: &Dispatch) -> Html {
    let Some(open) = lab.lessons().open() else {
        return html! {};
    };
    let (lesson, step, n) = (open.lesson(), open.step(), open.number());
    let count = lesson.steps().len();
    let goal = open.goal_state(lab.session());
    let waits = lab.lessons().waits_for_answer();
    html! {
        <section class="panel lesson-panel" data-lesson-open={lesson.id.clone()}
            aria-label={say(&lesson.title, lang).to_string()}>
            <div class="panel-head">
                <h2>{ format!("{} {} · {}", t(lang, Text::Lesson), number_of(lesson), say(&lesson.title, lang)) }</h2>
                <button class="small" data-action="lesson-close" aria-label={t(lang, Text::LessonClose)}
                    onclick={send(d, LessonMsg::Close)}>{ "✕" }</button>
            </div>
            { toc }
            <article class="lesson-step" data-step={n.to_string()}>
                <h3><span class="muted">{ format!("{} {n}/{count} · ", t(lang, Text::LessonStep)) }</span>{ say(&step.title, lang) }</h3>
                <div class="lesson-text">{ prose(say(&step.text, lang)) }</div>
                if let Some(predict) = &step.predict {
                    { predict_panel(open, predict, lab, lang, d) }
                }
                { doing(open, lang, waits, d) }
                { goal_line(say(&step.goal_text, lang), &goal, lang) }
            </article>
            <div class="button-row lesson-buttons">
                <button data-action="lesson-back" disabled={n == 1} onclick={send(d, LessonMsg::Back)}>
                    { format!("← {}", t(lang, Text::LessonBack)) }</button>
                <button data-action="lesson-restart" onclick={send(d, LessonMsg::Restart)}>
                    { format!("↺ {}", t(lang, Text::LessonRestart)) }</button>
                <button data-action="lesson-show" disabled={waits} onclick={send(d, LessonMsg::ShowMe)}>
                    { t(lang, Text::LessonShow) }</button>
                <button data-action="lesson-next" disabled={!lab.lessons().has_next()}
                    class={classes!(goal.met.then_some("primary"))} onclick={send(d, LessonMsg::Next)}>
                    { format!("{} →", t(lang, Text::LessonNext)) }</button>
            </div>
        </section>
    }
}

/// The hint and the commands that do the step, as chips that run them.
fn doing(open: &Open, lang: Lang, waits: bool, d: &Dispatch) -> Html {
    let step = open.step();
    html! {
        <div class="lesson-do">
            if let Some(hint) = &step.hint {
                <div class="hint">{ prose(say(hint, lang)) }</div>
            }
            if !step.actions.is_empty() {
                <div class="chips">
                    <span class="muted">{ t(lang, Text::LessonTry) }</span>
                    { for step.actions.iter().map(|line| html! {
                        <button class="chip" data-lesson-do={line.clone()} disabled={waits}
                            onclick={d.command(line.clone())}><code>{ line.clone() }</code></button>
                    }) }
                </div>
            }
        </div>
    }
}

fn goal_line(goal_text: &str, goal: &GoalState, lang: Lang) -> Html {
    let (mark, state) = if goal.met {
        ("✓", t(lang, Text::GoalMet))
    } else {
        ("○", t(lang, Text::GoalNotMet))
    };
    html! {
        <div class={classes!("goal", goal.met.then_some("met"))} data-goal="" data-met={goal.met.to_string()}
            role="status">
            <div><span class="mark" aria-hidden="true">{ mark }</span>
                <strong>{ format!("{} ({state}): ", t(lang, Text::LessonGoal)) }</strong>{ goal_text }</div>
            if let Some(why) = &goal.why_not {
                <div class="why muted" data-goal-why="">{ why.clone() }</div>
            }
        </div>
    }
}

/// The question, asked before the decisive moment; the reveal once the goal is met.
fn predict_panel(open: &Open, predict: &Predict, lab: &Lab, lang: Lang, d: &Dispatch) -> Html {
    let answer = open.answer();
    let outcome = open.outcome(lab.session());
    let choices = match predict.kind() {
        PredictKind::Choices(choices) => html! {
            <div class="choices">
                { for choices.iter().enumerate().map(|(i, c)| {
                    let k = i + 1;
                    let chosen = answer == Some(Answer::Choice(k));
                    let held = matches!(&outcome, Some(Outcome::Choices(h)) if h.contains(&k));
                    html! {
                        <button class={classes!("choice", chosen.then_some("chosen"), held.then_some("held"))}
                            data-choice={k.to_string()} aria-pressed={chosen.to_string()}
                            disabled={answer.is_some()}
                            onclick={send(d, LessonMsg::Answer(Answer::Choice(k)))}>
                            { format!("{k}. {}", say(&c.text, lang)) }
                            if held { <span class="held-mark">{ format!(" ✓ {}", t(lang, Text::RevealHeld)) }</span> }
                        </button>
                    }
                }) }
            </div>
        },
        PredictKind::Number(_) => html! {
            <NumberAnswer lang={lang} answered={match answer { Some(Answer::Number(n)) => Some(n), _ => None }}
                dispatch={d.clone()} />
        },
    };
    let verdict = outcome.map(|o| {
        let right = match (&o, answer) {
            (Outcome::Choices(held), Some(Answer::Choice(k))) => held.contains(&k),
            (Outcome::Number { right, .. }, _) => *right,
            _ => false,
        };
        let account = match o {
            Outcome::Number { account, .. } => Some(account),
            Outcome::Choices(_) => None,
        };
        (right, account)
    });
    html! {
        <div class={classes!("predict", answer.is_none().then_some("waiting"))} data-predict=""
            data-answered={answer.is_some().to_string()}>
            <div class="question"><strong>{ format!("{}: ", t(lang, Text::Predict)) }</strong>{ say(&predict.question, lang) }</div>
            { choices }
            if answer.is_none() {
                <p class="muted">{ t(lang, Text::PredictWaits) }</p>
            } else if verdict.is_none() {
                <p class="muted">{ t(lang, Text::PredictThen) }</p>
            }
            if let Some((right, account)) = verdict {
                <div class={classes!("reveal", right.then_some("right"))} data-reveal="" data-right={right.to_string()}>
                    <strong>{ t(lang, if right { Text::RevealRight } else { Text::RevealWrong }) }</strong>
                    if let Some(account) = account { <span class="muted">{ format!(" ({account})") }</span> }
                    { prose(say(&predict.reveal, lang)) }
                </div>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct NumberProps {
    lang: Lang,
    answered: Option<i64>,
    dispatch: Dispatch,
}

/// A number question's field: the answer is sent as a whole number, or refused as typed.
#[component]
fn NumberAnswer(props: &NumberProps) -> Html {
    let field = use_node_ref();
    let lang = props.lang;
    let submit = {
        let (field, d) = (field.clone(), props.dispatch.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(input) = field.cast::<HtmlInputElement>() else {
                return;
            };
            if let Ok(n) = input.value().trim().parse::<i64>() {
                d.dispatch(Msg::Lesson(LessonMsg::Answer(Answer::Number(n))));
                d.dispatch(Msg::Play);
            }
        })
    };
    html! {
        <form class="number-answer" onsubmit={submit}>
            <input type="number" step="1" ref={field} data-predict-number=""
                aria-label={t(lang, Text::PredictYours)} disabled={props.answered.is_some()}
                value={props.answered.map(|n| n.to_string()).unwrap_or_default()} />
            <button type="submit" data-action="lesson-answer" disabled={props.answered.is_some()}>
                { t(lang, Text::PredictAnswer) }</button>
        </form>
    }
}
