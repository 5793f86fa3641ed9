//! The page's state and its reducer. Plain Rust: no DOM here; the engine computes every
//! protocol fact, the model only drives it (time, play/pause, the user's commands).

use super::i18n::Lang;
use crate::console::{Output, Session};
use crate::etcd::ClusterConfig;
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

pub const DEFAULT_SPEED_LOG10: f64 = -0.7; // 0.2×: slow enough to see a heartbeat travel
/// The UI's network is slower than the CLI default so messages are visible in flight.
pub const UI_NETWORK_SETUP: &str = "latency 30ms jitter 10ms";
/// Never advance more than this much real time in one frame (after a stall, or a hidden tab).
const MAX_FRAME_MS: f64 = 100.0;

#[derive(Clone)]
pub struct Model {
    pub session: Rc<RefCell<Session>>,
    pub playing: bool,
    pub speed_log10: f64,
    pub members: usize,
    pub seed: u64,
    pub lang: Lang,
    /// Virtual milliseconds owed but not yet run (fractions carry over between frames).
    pub carry_ms: f64,
    /// The last console or control output (shown under the controls).
    pub last_output: Option<Output>,
    pub version: u64,
}

pub enum Msg {
    /// A frame passed: `real_ms` of wall time.
    Frame(f64),
    Play,
    Pause,
    Step,
    SetSpeed(f64),
    SetMembers(usize),
    SetSeed(u64),
    Reset,
    SetLang(Lang),
    /// A console or button command, e.g. `kill m1`.
    Command(String),
}

impl Model {
    pub fn new(members: usize, seed: u64, lang: Lang) -> Model {
        Model {
            session: Rc::new(RefCell::new(new_session(members, seed))),
            playing: true,
            speed_log10: DEFAULT_SPEED_LOG10,
            members,
            seed,
            lang,
            carry_ms: 0.0,
            last_output: None,
            version: 0,
        }
    }

    pub fn speed(&self) -> f64 {
        10f64.powf(self.speed_log10)
    }
}

fn new_session(members: usize, seed: u64) -> Session {
    let mut session = Session::new(ClusterConfig::new(members, seed));
    session.execute(UI_NETWORK_SETUP, None);
    session
}

impl Reducible for Model {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let mut next = (*self).clone();
        next.version += 1;
        match msg {
            Msg::Frame(real_ms) => {
                if next.playing {
                    next.carry_ms += real_ms.clamp(0.0, MAX_FRAME_MS) * next.speed();
                    let whole = next.carry_ms.floor();
                    next.carry_ms -= whole;
                    if whole >= 1.0 {
                        next.session.borrow_mut().run_for(whole as u64);
                    }
                }
            }
            Msg::Play => next.playing = true,
            Msg::Pause => next.playing = false,
            Msg::Step => {
                next.playing = false;
                next.session.borrow_mut().step();
            }
            Msg::SetSpeed(log10) => next.speed_log10 = log10.clamp(-2.0, 2.0),
            Msg::SetMembers(n) => {
                next.members = n.clamp(1, 11);
                next.session = Rc::new(RefCell::new(new_session(next.members, next.seed)));
            }
            Msg::SetSeed(seed) => {
                next.seed = seed;
                next.session = Rc::new(RefCell::new(new_session(next.members, seed)));
            }
            Msg::Reset => {
                next.session = Rc::new(RefCell::new(new_session(next.members, next.seed)));
                next.carry_ms = 0.0;
            }
            Msg::SetLang(lang) => next.lang = lang,
            Msg::Command(line) => {
                let out = next.session.borrow_mut().execute(&line, None);
                next.last_output = Some(out);
            }
        }
        Rc::new(next)
    }
}
