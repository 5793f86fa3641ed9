//! English and Traditional Chinese (zh-TW) texts of the page.

use crate::raft::{NodeEvent, RoleName};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    En,
    ZhTw,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhTw => "zh-TW",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "en" => Some(Lang::En),
            "zh-TW" => Some(Lang::ZhTw),
            _ => None,
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::ZhTw,
            Lang::ZhTw => Lang::En,
        }
    }
}

/// Keys of the fixed UI texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    Title,
    Subtitle,
    Play,
    Pause,
    Step,
    Speed,
    Members,
    Seed,
    Reset,
    Kill,
    Restart,
    PauseMember,
    ResumeMember,
    Timeout,
    Term,
    Vote,
    Commit,
    Applied,
    Log,
    Events,
    Leader,
    NoLeader,
    Quorum,
    Reachable,
    WritesCommit,
    WritesBlocked,
    Stopped,
    Paused,
    Language,
    VirtualTime,
    InFlight,
}

pub fn t(lang: Lang, key: Text) -> &'static str {
    use Text::*;
    match lang {
        Lang::En => match key {
            Title => "Raft Lab",
            Subtitle => "etcd's consensus, live in your browser",
            Play => "Play",
            Pause => "Pause",
            Step => "Step",
            Speed => "Speed",
            Members => "Members",
            Seed => "Seed",
            Reset => "Reset",
            Kill => "Kill",
            Restart => "Restart",
            PauseMember => "Pause",
            ResumeMember => "Resume",
            Timeout => "Time out",
            Term => "term",
            Vote => "vote",
            Commit => "commit",
            Applied => "applied",
            Log => "Logs",
            Events => "What happened",
            Leader => "Leader",
            NoLeader => "no leader",
            Quorum => "quorum",
            Reachable => "reachable",
            WritesCommit => "writes can commit",
            WritesBlocked => "writes cannot commit",
            Stopped => "stopped",
            Paused => "paused",
            Language => "中文",
            VirtualTime => "virtual time",
            InFlight => "messages in flight",
        },
        Lang::ZhTw => match key {
            Title => "Raft Lab",
            Subtitle => "etcd 的共識演算法，在瀏覽器裡即時運作",
            Play => "播放",
            Pause => "暫停",
            Step => "單步",
            Speed => "速度",
            Members => "成員數",
            Seed => "種子",
            Reset => "重設",
            Kill => "終止",
            Restart => "重新啟動",
            PauseMember => "暫停",
            ResumeMember => "繼續",
            Timeout => "逾時",
            Term => "任期",
            Vote => "投票",
            Commit => "已提交",
            Applied => "已套用",
            Log => "日誌",
            Events => "事件紀錄",
            Leader => "Leader",
            NoLeader => "沒有 leader",
            Quorum => "法定人數",
            Reachable => "可連線",
            WritesCommit => "寫入可以提交",
            WritesBlocked => "寫入無法提交",
            Stopped => "已停止",
            Paused => "已暫停",
            Language => "English",
            VirtualTime => "虛擬時間",
            InFlight => "傳送中的訊息",
        },
    }
}

pub fn role(lang: Lang, role: &str) -> &'static str {
    match (lang, role) {
        (Lang::En, "leader") => "leader",
        (Lang::En, "follower") => "follower",
        (Lang::En, "candidate") => "candidate",
        (Lang::En, "pre-candidate") => "pre-candidate",
        (Lang::En, _) => "stopped",
        (Lang::ZhTw, "leader") => "領導者",
        (Lang::ZhTw, "follower") => "跟隨者",
        (Lang::ZhTw, "candidate") => "候選人",
        (Lang::ZhTw, "pre-candidate") => "預備候選人",
        (Lang::ZhTw, _) => "已停止",
    }
}

/// One narrated sentence: "m3 became leader in term 4".
pub fn narrate(lang: Lang, member: &str, event: &NodeEvent) -> String {
    match (lang, event) {
        (Lang::En, NodeEvent::BecameRole { role: r, term }) => {
            let article = if *r == RoleName::Follower { "a " } else { "" };
            format!(
                "{member} became {article}{} in term {term}",
                role(lang, r.as_str())
            )
        }
        (Lang::En, NodeEvent::Voted { candidate, term }) => {
            format!("{member} voted for {candidate} in term {term}")
        }
        (Lang::En, NodeEvent::SteppedDown { term, reason }) => {
            format!("{member} stepped down in term {term}: {reason}")
        }
        (Lang::En, NodeEvent::OverwroteCommitted { index }) => {
            format!(
                "{member} overwrote a committed entry at or below index {index}: safety violated"
            )
        }
        (Lang::En, NodeEvent::Configuration { index, change }) => {
            format!("{member} proposed configuration {change} at index {index}")
        }
        (Lang::ZhTw, NodeEvent::Configuration { index, change }) => {
            format!("{member} 在索引 {index} 提議成員變更 {change}")
        }
        (Lang::ZhTw, NodeEvent::BecameRole { role: r, term }) => {
            format!("{member} 在任期 {term} 成為{}", role(lang, r.as_str()))
        }
        (Lang::ZhTw, NodeEvent::Voted { candidate, term }) => {
            format!("{member} 在任期 {term} 投票給 {candidate}")
        }
        (Lang::ZhTw, NodeEvent::SteppedDown { term, reason }) => {
            format!("{member} 在任期 {term} 卸任：{reason}")
        }
        (Lang::ZhTw, NodeEvent::OverwroteCommitted { index }) => {
            format!("{member} 覆寫了索引 {index} 以內已提交的項目：安全性被破壞")
        }
    }
}
