//! A text field the page never overwrites while someone types in it: the run re-renders every
//! frame, so a field bound to its value would lose each keystroke. It shows the value it is
//! given only while it has no focus, applies what was typed on Enter (or when it loses the
//! focus), and says beside itself what is wrong with a value it cannot take.

use super::i18n::{t, Lang, Text};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SeedFieldProps {
    pub value: u64,
    pub lang: Lang,
    pub on_seed: Callback<u64>,
}

fn focused(el: &HtmlInputElement) -> bool {
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element());
    active
        .is_some_and(|a| a.unchecked_ref::<web_sys::Node>() == el.unchecked_ref::<web_sys::Node>())
}

/// The seed of the run: a whole number; anything else is refused with the reason.
#[component]
pub fn SeedField(props: &SeedFieldProps) -> Html {
    let node = use_node_ref();
    let error = use_state(|| None::<String>);
    {
        let node = node.clone();
        use_effect_with(props.value, move |value| {
            if let Some(el) = node.cast::<HtmlInputElement>() {
                if !focused(&el) {
                    el.set_value(&value.to_string());
                }
            }
        });
    }
    let lang = props.lang;
    let apply = {
        let (error, on_seed, current) = (error.clone(), props.on_seed.clone(), props.value);
        move |el: &HtmlInputElement| {
            let text = el.value();
            match text.trim().parse::<u64>() {
                Ok(seed) => {
                    error.set(None);
                    if seed != current {
                        on_seed.emit(seed);
                    }
                }
                Err(_) => error.set(Some(format!(
                    "{}, not {text:?}.",
                    t(lang, Text::SeedInvalid)
                ))),
            }
        }
    };
    let onkeydown = {
        let (apply, error, current) = (apply.clone(), error.clone(), props.value);
        Callback::from(move |e: KeyboardEvent| {
            let el: HtmlInputElement = e.target_unchecked_into();
            match e.key().as_str() {
                "Enter" => apply(&el),
                "Escape" => {
                    el.set_value(&current.to_string());
                    error.set(None);
                }
                _ => {}
            }
        })
    };
    let onchange = Callback::from(move |e: Event| apply(&e.target_unchecked_into()));
    html! {
        <span class="field">
            <input ref={node} class="seed" type="text" inputmode="numeric" data-control="seed"
                aria-invalid={error.is_some().then_some("true")} aria-describedby="seed-error"
                title={t(lang, Text::SeedApply)} {onkeydown} {onchange} />
            if let Some(message) = &*error {
                <span class="field-error" id="seed-error" role="alert" data-field-error="seed">{ message.clone() }</span>
            }
        </span>
    }
}
