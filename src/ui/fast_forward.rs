//! The fast-forward control (issue 14): skip ahead a minute, ten or an hour, or run until a
//! leader exists, the next election, or quorum is back. Each choice is the console command
//! that does it, typed for the user: recorded as `wait` is (export, replay and rewind repeat
//! it), and run in slices by the console's long run, so the page stays responsive.

use super::i18n::Text;
use crate::etcd::Cluster;

/// The skips offered, in seconds (`data-skip-ahead`), with their labels.
pub const SKIPS: [(u64, Text); 3] = [
    (60, Text::SkipMinute),
    (600, Text::SkipTenMinutes),
    (3_600, Text::SkipHour),
];

/// What "run until" can wait for (`data-run-until`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    Leader,
    Election,
    Quorum,
}

impl Until {
    pub const ALL: [Until; 3] = [Until::Leader, Until::Election, Until::Quorum];

    pub fn hook(self) -> &'static str {
        match self {
            Until::Leader => "leader",
            Until::Election => "election",
            Until::Quorum => "quorum",
        }
    }

    pub fn label(self) -> Text {
        match self {
            Until::Leader => Text::UntilLeader,
            Until::Election => Text::UntilElection,
            Until::Quorum => Text::UntilQuorum,
        }
    }

    /// The console command that waits for it in `world` as it is now.
    pub fn command(self, world: &Cluster) -> String {
        match self {
            Until::Leader => "wait leader".to_string(),
            Until::Election => {
                let term = world.highest_term().unwrap_or(0);
                format!("wait until leaders == 1 and term > {term}")
            }
            Until::Quorum => format!("wait until reachable >= {}", world.quorum_view().quorum),
        }
    }
}

/// The console command that skips `seconds` ahead.
pub fn skip(seconds: u64) -> String {
    format!("wait {seconds}s")
}

#[cfg(target_arch = "wasm32")]
pub use view::render;

#[cfg(target_arch = "wasm32")]
mod view {
    use super::{skip, Until, SKIPS};
    use crate::ui::i18n::{t, Text};
    use crate::ui::lab::{Lab, Msg};
    use crate::ui::page::Dispatch;
    use crate::ui::view::View;
    use yew::prelude::*;

    /// The control, in the simulation's toolbar; disabled while a long run goes on.
    pub fn render(lab: &Lab, view: &View, d: &Dispatch) -> Html {
        let lang = view.lang;
        let busy = lab.long_run().is_some();
        let skips = SKIPS.iter().map(|&(seconds, label)| {
            let label = t(lang, label);
            let d = d.clone();
            let onclick = Callback::from(move |e: MouseEvent| {
                crate::ui::members::close_menu(&e);
                d.dispatch(Msg::Command(skip(seconds)));
            });
            html! { <button class="small" data-skip-ahead={seconds.to_string()} disabled={busy} {onclick}>{ label }</button> }
        });
        let untils = Until::ALL.iter().map(|&until| {
            let line = until.command(lab.world());
            let d = d.clone();
            let onclick = Callback::from(move |e: MouseEvent| {
                crate::ui::members::close_menu(&e);
                d.dispatch(Msg::Command(line.clone()));
            });
            html! { <button class="small" data-run-until={until.hook()} disabled={busy} {onclick}>{ t(lang, until.label()) }</button> }
        });
        // A menu, so the header stays one row on a 1280x720 projector (the ring keeps its size).
        html! {
            <details class="more fast-forward" data-fast-forward="">
                // An icon, so the time tools stay one row on a 1024-pixel screen.
                <summary data-action="fast-forward" aria-label={t(lang, Text::SkipAhead)}
                    title={t(lang, Text::SkipAhead)}>{ "»" }</summary>
                <div class="menu">
                    <span class="menu-label">{ t(lang, Text::SkipAhead) }</span>{ for skips }
                    <span class="menu-label">{ t(lang, Text::RunUntil) }</span>{ for untils }
                </div>
            </details>
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::lab::{Lab, Msg};

    fn settle(lab: &mut Lab) {
        while lab.long_run().is_some() {
            lab.apply(Msg::Continue(60_000));
        }
    }

    #[test]
    fn a_skip_lets_its_time_pass_and_is_exported_as_a_wait() {
        let mut lab = Lab::new(crate::etcd::ClusterConfig::default());
        for (seconds, _) in SKIPS {
            let before = lab.world().now();
            lab.apply(Msg::Command(skip(seconds)));
            settle(&mut lab);
            assert_eq!(lab.world().now(), before + seconds * 1000);
        }
        let script = lab.session().export_script();
        assert!(script.contains("wait "), "{script}");
    }

    #[test]
    fn run_until_reaches_a_leader_the_next_election_and_quorum() {
        let mut lab = Lab::new(crate::etcd::ClusterConfig::default());
        lab.apply(Msg::Command(Until::Leader.command(lab.world())));
        assert_eq!(lab.world().leader().map(|_| ()), Some(()));
        let term = |lab: &Lab| {
            lab.world()
                .member_ids()
                .iter()
                .filter_map(|id| lab.world().member_status(*id))
                .map(|s| s.term)
                .max()
        };
        let before = term(&lab);
        lab.apply(Msg::Command("kill leader".into()));
        lab.apply(Msg::Command(Until::Election.command(lab.world())));
        let ended = lab.transcript().last().map(|e| (e.line.clone(), e.code));
        assert_eq!(ended.map(|e| e.1), Some(0), "a new leader won");
        assert!(term(&lab) > before, "in a new term");
        lab.apply(Msg::Command("kill m1".into()));
        lab.apply(Msg::Command("kill m2".into()));
        lab.apply(Msg::Command("kill m3".into()));
        lab.apply(Msg::Command(Until::Quorum.command(lab.world())));
        let failed = lab.transcript().last().map(|e| e.code);
        assert_ne!(failed, Some(0), "no quorum can come back by itself here");
        lab.apply(Msg::Command("restart m1".into()));
        lab.apply(Msg::Command("restart m2".into()));
        lab.apply(Msg::Command(Until::Quorum.command(lab.world())));
        assert_eq!(lab.transcript().last().map(|e| e.code), Some(0));
        let q = lab.world().quorum_view();
        assert!(q.reachable >= q.quorum, "{} of {}", q.reachable, q.quorum);
    }
}
