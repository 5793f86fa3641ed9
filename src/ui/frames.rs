//! The animation clock: `requestAnimationFrame` while active, nothing at all otherwise, so a
//! paused simulation or a hidden tab costs no CPU. Between frames that would show nothing new
//! it sleeps on a timer: the browser then draws no frame of the page's own.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use super::lab::FRAME_SLEEP_MS;

type FrameClosure = Closure<dyn FnMut(f64)>;

/// The loop's state, shared by its two closures and the effect that wakes it.
#[derive(Default)]
struct Loop {
    stopped: Cell<bool>,
    frame_id: Cell<Option<i32>>,
    timer_id: Cell<Option<i32>>,
    /// When the sleep under way was meant to end (the timestamps' clock).
    due: Cell<Option<f64>>,
    on_frame: RefCell<Option<FrameClosure>>,
    on_timer: RefCell<Option<Closure<dyn FnMut()>>>,
}

impl Loop {
    fn request_frame(&self) {
        let window = web_sys::window();
        if let (Some(w), Some(f)) = (&window, self.on_frame.borrow().as_ref()) {
            self.frame_id
                .set(w.request_animation_frame(f.as_ref().unchecked_ref()).ok());
        }
    }

    fn sleep(&self, from: f64, ms: f64) {
        self.due.set(Some(from + ms));
        let window = web_sys::window();
        if let (Some(w), Some(f)) = (&window, self.on_timer.borrow().as_ref()) {
            self.timer_id.set(
                w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    f.as_ref().unchecked_ref(),
                    ms as i32,
                )
                .ok(),
            );
        }
    }

    /// A sleeping loop asks for a frame now.
    fn wake(&self) {
        self.due.set(None);
        if let Some(id) = self.timer_id.take() {
            if let Some(w) = web_sys::window() {
                w.clear_timeout_with_handle(id);
            }
            self.request_frame();
        }
    }

    /// The tab was hidden or shown again: hidden, the loop asks for nothing at all (Chromium
    /// may still run a hidden page's frames once a second); shown, it asks for a frame.
    fn follow_visibility(&self) {
        self.cancel();
        if !self.stopped.get() && !page_hidden() {
            self.request_frame();
        }
    }

    fn cancel(&self) {
        self.due.set(None);
        if let Some(w) = web_sys::window() {
            if let Some(id) = self.frame_id.take() {
                let _ = w.cancel_animation_frame(id);
            }
            if let Some(id) = self.timer_id.take() {
                w.clear_timeout_with_handle(id);
            }
        }
    }

    fn stop(&self) {
        self.stopped.set(true);
        self.cancel();
        // Breaks the closures' references to the loop so that it can be freed.
        self.on_frame.borrow_mut().take();
        self.on_timer.borrow_mut().take();
    }
}

fn page_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

/// Calls `on_frame` with each frame's timestamp (`performance.now()`'s clock) while `active`;
/// it answers how many real ms the loop may sleep before the next frame (0: the next frame).
/// A new `wake` value ends a sleep at once (something happened that may show sooner).
#[hook]
pub fn use_frames<W: PartialEq + 'static>(active: bool, wake: W, on_frame: Callback<f64, f64>) {
    // The loop outlives the render that started it; it calls the newest callback, which knows
    // the newest speed.
    let latest = use_mut_ref(|| on_frame.clone());
    *latest.borrow_mut() = on_frame;
    let running = use_mut_ref(|| None::<Rc<Loop>>);
    let started = running.clone();
    use_effect_with(active, move |active| {
        let state = Rc::new(Loop::default());
        let stop_following = active.then(|| {
            start(&state, latest);
            *started.borrow_mut() = Some(state.clone());
            let shown = Rc::downgrade(&state);
            super::dom::listen(&["visibilitychange"], move || {
                if let Some(state) = shown.upgrade() {
                    state.follow_visibility();
                }
            })
        });
        move || {
            if let Some(stop) = stop_following {
                stop();
            }
            state.stop();
        }
    });
    use_effect_with(wake, move |_| {
        if let Some(state) = running.borrow().as_ref() {
            state.wake();
        }
    });
}

/// Starts `state`'s loop: a frame, then a frame or a sleep after each, as `latest` says.
fn start(state: &Rc<Loop>, latest: Rc<RefCell<Callback<f64, f64>>>) {
    let on_frame_state = Rc::downgrade(state);
    *state.on_frame.borrow_mut() = Some(Closure::new(move |timestamp: f64| {
        let Some(state) = on_frame_state.upgrade() else {
            return;
        };
        state.frame_id.set(None);
        if state.stopped.get() {
            return;
        }
        // A frame's timestamp is its vsync's, often a few ms before the timer that asked for
        // it fired: played only to it, the frame after a sleep would draw the events but not
        // yet the clock's step it woke for, and the next frame that step (two drawings).
        let timestamp = state.due.take().map_or(timestamp, |due| timestamp.max(due));
        // Cloned out first: the callback may re-render, which replaces `latest`.
        let on_frame = latest.borrow().clone();
        let sleep = on_frame.emit(timestamp);
        if state.stopped.get() || page_hidden() {
            return;
        }
        if sleep < FRAME_SLEEP_MS {
            state.request_frame();
        } else {
            state.sleep(timestamp, sleep);
        }
    }));
    let on_timer_state = Rc::downgrade(state);
    *state.on_timer.borrow_mut() = Some(Closure::new(move || {
        if let Some(state) = on_timer_state.upgrade() {
            state.timer_id.set(None);
            if !page_hidden() {
                state.request_frame();
            }
        }
    }));
    state.request_frame();
}
