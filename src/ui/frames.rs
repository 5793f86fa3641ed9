//! The animation clock: `requestAnimationFrame` while active, nothing at all otherwise, so a
//! paused simulation or a hidden tab costs no CPU.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

type FrameClosure = Closure<dyn FnMut(f64)>;

/// Calls `on_frame` with the real milliseconds since the previous frame, while `active`.
#[hook]
pub fn use_animation_frames(active: bool, on_frame: Callback<f64>) {
    // The loop outlives the render that started it; it calls the newest callback, which knows
    // the newest speed.
    let latest = use_mut_ref(|| on_frame.clone());
    *latest.borrow_mut() = on_frame;
    use_effect_with(active, move |active| {
        let stopped = Rc::new(Cell::new(!*active));
        let closure: Rc<RefCell<Option<FrameClosure>>> = Rc::new(RefCell::new(None));
        let request_id = Rc::new(Cell::new(0));
        if *active {
            let last = Rc::new(Cell::new(None::<f64>));
            let (stopped_in, closure_in, id_in) =
                (stopped.clone(), closure.clone(), request_id.clone());
            *closure.borrow_mut() = Some(Closure::new(move |timestamp: f64| {
                if stopped_in.get() {
                    return;
                }
                let elapsed = last
                    .replace(Some(timestamp))
                    .map_or(0.0, |prev| timestamp - prev);
                // Cloned out first: the callback may re-render, which replaces `latest`.
                let on_frame = latest.borrow().clone();
                on_frame.emit(elapsed);
                if let Some(f) = closure_in.borrow().as_ref() {
                    id_in.set(request(f));
                }
            }));
            if let Some(f) = closure.borrow().as_ref() {
                request_id.set(request(f));
            }
        }
        move || {
            stopped.set(true);
            if let Some(window) = web_sys::window() {
                let _ = window.cancel_animation_frame(request_id.get());
            }
            // Breaks the closure's reference to itself so it can be freed.
            closure.borrow_mut().take();
        }
    });
}

fn request(f: &FrameClosure) -> i32 {
    web_sys::window()
        .and_then(|w| w.request_animation_frame(f.as_ref().unchecked_ref()).ok())
        .unwrap_or(0)
}
