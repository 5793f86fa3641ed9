//! English and Traditional Chinese (zh-TW) texts of the page, and the glossary every zh-TW
//! text follows.

use crate::base::MemberId;
use crate::check::{Property, Violation};
use crate::raft::{NodeEvent, ProgressState, RoleName, StepDown, VoteRefusal};

/// The technical terms a zh-TW text keeps in English, spelled as here, as the articles the
/// class reads write them ("Leader 當選後，會定期向 Follower 發送 AppendEntries RPC"、"只要叢集
/// 仍然維持 Quorum"、"建立 Snapshot"、"Revision"). Nothing else in a zh-TW text is English,
/// except a command line (a run starting with a console verb: `kill m1`), a flag
/// (`--endpoints`), an address (`http://m1:2379`), a key path (`/registry`), the codes the
/// ring and the log cells draw (`AE`, `put`: their tables in `ring.rs`), member names (m1),
/// numbers and units (a test below holds every text to this).
pub const KEPT_IN_ENGLISH: &[&str] = &[
    // Raft's roles and parts, as the articles keep them.
    "Leader",
    "Follower",
    "Pre-Candidate",
    "Candidate",
    "Learner",
    "Quorum",
    "Heartbeat",
    "Election Timeout",
    "Snapshot",
    "Revision",
    "Raft",
    "Raft Lab",
    "Joint Consensus",
    // Options named after etcd's flags.
    "Pre-vote",
    "Check-quorum",
    // Messages on the wire, as the engine names them.
    "AppendEntries",
    "RequestVote",
    "PreVote",
    "InstallSnapshot",
    // The tools and the API the articles use by name.
    "etcd",
    "kubeadm",
    "Kubernetes",
    "Static Pod",
    "API Server",
    "Deployment",
    "Watch",
    "txn",
    "mod_revision",
    "fsync",
    "JSON",
    "SVG",
    "PNG",
    "TLS",
    // The language switch names the other language in its own words.
    "English",
    // Keys of the keyboard.
    "Tab",
    "Esc",
    "Enter",
    "Home",
    "End",
    "N",
    // The log's marks for the leader's match and next index (logs.rs draws M and N).
    "M",
];

/// The terms a zh-TW text says in Chinese, one rendering each: an English text naming one
/// (any of its forms) has a zh-TW text with its rendering.
pub const RENDERED: &[(&[&str], &str)] = &[
    (&["term", "terms"], "任期"),
    (&["vote", "votes", "voted"], "投票"),
    (&["log", "logs"], "日誌"),
    (&["member", "members"], "成員"),
    (&["cluster"], "叢集"),
    (&["commit", "committed", "commits"], "提交"),
    (&["applied"], "套用"),
    (&["message", "messages"], "訊息"),
    (&["console"], "主控台"),
];

/// Renderings the glossary replaced (a zh-TW text never uses them any more).
pub const RETIRED: &[&str] = &["領導者", "跟隨者", "候選人", "法定人數", "快照"];

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

    /// The page's language for a browser whose preferred languages are `preferred`
    /// (`navigator.languages`, best first): the first one the page speaks. Traditional Chinese
    /// is zh-TW, zh-HK, zh-MO or zh-Hant; a plain `zh` or `zh-CN` reads Simplified, which the
    /// page does not write, so it looks further down the list.
    pub fn from_browser<S: AsRef<str>>(preferred: &[S]) -> Option<Lang> {
        preferred.iter().find_map(|tag| {
            let tag = tag.as_ref().to_ascii_lowercase();
            let mut parts = tag.split(['-', '_']);
            match (parts.next(), parts.next()) {
                (Some("en"), _) => Some(Lang::En),
                (Some("zh"), Some("tw" | "hk" | "mo" | "hant")) => Some(Lang::ZhTw),
                _ => None,
            }
        })
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::En => Lang::ZhTw,
            Lang::ZhTw => Lang::En,
        }
    }
}

/// Declares `Text`, the keys of the fixed UI texts, and `TEXTS`, their English and
/// Traditional Chinese, from one list: a key cannot lack its texts, nor the table its key.
macro_rules! texts {
    ($($key:ident => ($en:expr, $zh:expr $(,)?),)*) => {
        /// Keys of the fixed UI texts.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Text {
            $($key,)*
        }

        /// Every text in English and in Traditional Chinese, in the order of `Text`.
        const TEXTS: &[(&str, &str)] = &[$(($en, $zh),)*];
    };
}

texts! {
    Cluster => ("Cluster", "叢集"),
    Title => ("Raft Lab", "Raft Lab"),
    Subtitle => ("etcd's consensus, live in your browser", "etcd 的共識演算法，在瀏覽器裡即時運作"),
    Play => ("Play", "播放"),
    Pause => ("Pause", "暫停"),
    Step => ("Step", "單步"),
    Speed => ("Speed", "速度"),
    Members => ("Members", "成員"),
    MemberCount => ("Members", "成員數"),
    World => ("World", "環境"),
    WorldMembers => ("m1, m2, …", "m1、m2…"),
    WorldKubeadm => ("kubeadm, as in the articles", "kubeadm，如文章所示"),
    Seed => ("Seed", "種子"),
    Reset => ("Reset", "重設"),
    Kill => ("Kill", "終止"),
    Restart => ("Restart", "重新啟動"),
    PauseMember => ("Freeze", "凍結"),
    ResumeMember => ("Unfreeze", "解凍"),
    Timeout => ("Time out", "逾時"),
    Term => ("term", "任期"),
    Vote => ("vote", "投票"),
    Commit => ("commit", "已提交"),
    Applied => ("applied", "已套用"),
    Log => ("Logs", "日誌"),
    Events => ("What happened", "事件紀錄"),
    Leader => ("Leader", "Leader"),
    NoLeader => ("no leader", "沒有 Leader"),
    Quorum => ("quorum", "Quorum"),
    Reachable => ("reachable", "可連線"),
    WritesCommit => ("writes can commit", "寫入可以提交"),
    WritesBlocked => ("writes cannot commit", "寫入無法提交"),
    Stopped => ("stopped", "已停止"),
    Paused => ("paused", "已暫停"),
    Language => ("中文", "English"),
    VirtualTime => ("virtual time", "虛擬時間"),
    InFlight => ("messages in flight", "傳送中的訊息"),
    Time => ("Time", "時間"),
    BackInTime => ("Back in time. Play, step or act to branch from here; the rest of the old run is dropped then.", "回到過去。播放、單步或下指令就會從這裡分岔，舊的後續會被捨棄。"),
    More => ("More", "更多"),
    Transfer => ("Make leader", "讓它成為 Leader"),
    SlowDisk => ("Slow disk (200 ms fsync)", "慢速磁碟（fsync 200 ms）"),
    FastDisk => ("Fast disk", "快速磁碟"),
    Snapshot => ("Snapshot", "建立 Snapshot"),
    Promote => ("Promote to voter", "升為投票成員"),
    Remove => ("Remove member", "移除成員"),
    AddMember => ("+ member", "+ 成員"),
    AddLearner => ("+ learner", "+ Learner"),
    Learner => ("learner", "Learner"),
    SlowDiskBadge => ("slow disk", "慢速磁碟"),
    Console => ("Console", "主控台"),
    ConsolePlaceholder => ("a command: kill m1, partition m1 | m2,m3, etcdctl put k v (Tab completes, ↑↓ history)", "輸入指令：kill m1、partition m1 | m2,m3、etcdctl put k v（Tab 補完，↑↓ 歷史）"),
    Clear => ("Clear", "清除"),
    TabSpaceTime => ("Space-time", "時空圖"),
    TabNetwork => ("Network", "網路"),
    TabRules => ("Rules & checks", "規則與檢查"),
    TabShare => ("Share", "分享"),
    TabKeys => ("Keys", "鍵值"),
    TabKube => ("Kubernetes", "Kubernetes"),
    KubeDown => ("The Kubernetes control plane is not running on this etcd cluster.", "這個 etcd 叢集上還沒有執行 Kubernetes 控制平面。"),
    KubeUp => ("kube up", "kube up（啟動）"),
    KubeNodes => ("Nodes", "節點"),
    KubeRegistry => ("/registry in etcd (key, mod revision)", "etcd 裡的 /registry（鍵、mod_revision）"),
    KubeEvents => ("Events (newest first)", "事件（最新的在前）"),
    FocusedEntry => ("Showing Raft log entry", "顯示 Raft 日誌項目"),
    ShowLatest => ("Show the latest entries", "顯示最新的項目"),
    KubeFollow => ("Follow the last kubectl change", "追蹤最近一次 kubectl 變更"),
    KubeFollowStart => ("Create a Deployment and follow it", "建立一個 Deployment 並追蹤它"),
    KubeFollowTitle => ("One change, end to end", "一次變更的完整路徑"),
    KubeFollowClose => ("Close", "關閉"),
    KubeFollowHelp => (
        "Each write: who asked the API server, the etcd txn guarded by mod_revision, the Raft entry that carried it, its commit, and when the watch delivered it to the controllers.",
        "每一次寫入：誰向 API Server 提出請求、以 mod_revision 為條件的 etcd txn、承載它的 Raft 日誌項目、提交的時間，以及 Watch 何時把它送到控制器。",
    ),
    KubeCommitted => ("committed", "已提交"),
    KubeNotWatched => ("not watched yet", "Watch 尚未收到"),
    KubeStopped => ("stopped: no leader-election lease (etcd has no quorum?)", "已停止：沒有 Leader 選舉的租約（etcd 失去 Quorum？）"),
    KvRevision => ("revision", "Revision"),
    KvCompacted => ("compacted at", "已壓縮至"),
    KvEmpty => ("no keys yet: try etcdctl put greeting hello", "還沒有鍵：試試 etcdctl put greeting hello"),
    RowsNotShown => ("more not shown", "筆未顯示"),
    RowsAllOfThem => ("; all of them:", "；列出全部："),
    WatchStream => ("Watch stream (latest changes)", "Watch 串流（最近的變更）"),
    Presets => ("Presets", "預設情境"),
    IsolateLeader => ("Isolate the leader", "隔離 Leader"),
    Split => ("Split minority | majority", "分成少數 | 多數"),
    Asymmetric => ("Asymmetric: nobody reaches the leader", "不對稱：沒人連得到 Leader"),
    Heal => ("Heal", "修復網路"),
    Latency => ("Latency", "延遲"),
    Jitter => ("Jitter", "抖動"),
    Loss => ("Loss", "遺失率"),
    ApplyPartition => ("Cut between groups", "依群組切斷網路"),
    GroupHint => ("Drag members between groups (or click a member to move it), then cut.", "把成員拖到不同群組（或點成員切換群組），再切斷網路。"),
    Group => ("Group", "群組"),
    MessagesInFlight => ("Messages in flight", "傳送中的訊息"),
    Drop => ("Drop", "丟棄"),
    Delay => ("Delay 300 ms", "延遲 300 ms"),
    Close => ("Close", "關閉"),
    Sent => ("sent", "送出"),
    Arrives => ("arrives", "抵達"),
    Entries => ("entries", "項目"),
    From => ("from", "來源"),
    To => ("to", "目的"),
    Kind => ("kind", "種類"),
    Gone => ("no longer in flight", "已不在傳送中"),
    Message => ("Message", "訊息"),
    NoMessages => ("none right now", "目前沒有"),
    Switches => ("Raft switches", "Raft 開關"),
    SwitchPreVote => ("Pre-vote (ask before campaigning)", "Pre-vote（參選前先詢問）"),
    SwitchCheckQuorum => ("Check-quorum (a leader steps down without a quorum)", "Check-quorum（失去 Quorum 時 Leader 卸任）"),
    SwitchCommitOld => ("Break §5.4.2: commit old-term entries by counting (Figure 8)", "破壞 §5.4.2：以計數提交舊任期的日誌項目（圖 8）"),
    SwitchVoteAny => ("Break §5.4.1: vote without the log check", "破壞 §5.4.1：投票時不檢查日誌"),
    SwitchForgetVote => ("Break §5.2: forget the vote on restart", "破壞 §5.2：重啟後忘記投票"),
    SwitchesRestart => ("Changing a switch starts a new run with the same seed.", "改變開關會以相同種子重新開始。"),
    Monitor => ("Invariant monitor", "不變量監測"),
    AllHold => ("Every checked property holds so far.", "目前所有檢查的性質都成立。"),
    ShareLink => ("Share link", "分享連結"),
    ShareHint => ("Opening this link replays the same run: seed, members, switches and every action.", "開啟此連結會重播同一段執行：種子、成員、開關與所有操作。"),
    Copy => ("Copy", "複製"),
    Copied => ("Link copied", "已複製連結"),
    ExportScript => ("Download script", "下載腳本"),
    ExportTrace => ("Download trace (JSON)", "下載追蹤（JSON）"),
    ImportScript => ("Import a script", "匯入腳本"),
    RunScript => ("Start over and run it", "重新開始並執行"),
    DownloadSvg => ("Download SVG", "下載 SVG"),
    DownloadPng => ("Download PNG", "下載 PNG"),
    BadLink => ("This link could not be opened", "無法開啟此連結"),
    LoadedLink => ("Opened a shared run", "已開啟分享的執行"),
    NotKept => ("This browser stopped keeping the session (its storage is full or turned off): a reload goes back to the last moment it kept. The Share tab downloads the whole script.", "這個瀏覽器無法再保存這次的進度（儲存空間已滿或已關閉）：重新整理只會回到最後保存的那一刻。可以在「分享」分頁下載完整的腳本。"),
    RestoredSession => ("Your last session in this browser is back, at the moment you left it.", "已還原你在這個瀏覽器上次的進度，停在你離開的那一刻。"),
    RestoreDied => ("Restoring your last session stopped the page, so this is a fresh run.", "上次的進度在還原時讓頁面停止了，所以這是全新的執行。"),
    KeptHere => ("Kept in this browser", "保存在這個瀏覽器"),
    KeptHint => ("A reload or a closed tab loses nothing: the run, the console, the open tab and the lessons come back as they were.", "重新整理或關掉分頁都不會遺失：執行、主控台、開啟的分頁與課程都會照原樣回來。"),
    StartFresh => ("Start fresh", "全新開始"),
    StartedFresh => ("Started fresh: this browser no longer keeps the last session.", "已全新開始：這個瀏覽器不再保存上次的進度。"),
    BadImport => ("This file could not be imported", "無法匯入此檔案"),
    Presenter => ("Presenter", "簡報模式"),
    Match => ("match", "已同步至"),
    Next => ("next", "下一個送出"),
    State => ("state", "狀態"),
    Progress => ("The leader's view of each follower", "Leader 眼中的每個 Follower"),
    Index => ("index", "索引"),
    Uncommitted => ("uncommitted", "未提交"),
    Conflict => ("differs from the leader's log: will be overwritten", "與 Leader 的日誌不同：將被覆寫"),
    Committed => ("committed", "已提交"),
    Dismiss => ("Dismiss", "關閉"),
    Shortcuts => ("Keys: Space play/pause · N step · / console", "快捷鍵：空白鍵 播放/暫停 · N 單步 · / 主控台"),
    SpaceTime => ("space-time diagram of messages", "訊息的時空圖"),
    SpaceTimeCut => ("messages drawn, the newest of those in the window:", "則訊息已繪出（最新的），視窗內共"),
    SpaceTimeHint => ("Each arrow is one message: sent on the left end, received at the tip. Click one to inspect it.", "每個箭頭是一則訊息：左端送出，箭頭處收到。點一下可檢視。"),
    CrashTitle => ("Raft Lab stopped", "Raft Lab 已停止"),
    CrashBody => ("The simulation hit an error it cannot recover from, so the page no longer runs. Reload this run to go on from the last command, or send the seed and the script below with a bug report.", "模擬遇到無法復原的錯誤，頁面已停止運作。重新載入這段執行即可從最後一個指令繼續，或把下面的種子與腳本附在錯誤回報中。"),
    CrashReload => ("Reload this run", "重新載入這段執行"),
    CrashScript => ("The script so far", "目前為止的腳本"),
    // ----- presenter (issue 17 points 2-5): start card, legend, slow motion, restart question -----
    ElectingLeader => ("electing a leader…", "正在選出 Leader…"),
    StartHere => ("Start here", "從這裡開始"),
    StartWatch => ("Watch an election", "看一次選舉"),
    StartWatchWhat => ("replays the last election in slow motion: timers run out, votes fly", "以慢動作重播上一次選舉：計時器歸零、投票訊息來回飛"),
    StartKill => ("Kill the leader", "終止 Leader"),
    StartKillWhat => ("the others notice the silence and elect a new one (restart brings it back)", "其他成員發現沒有 Heartbeat，選出新的 Leader（restart 可讓它回來）"),
    StartPods => ("See the static pods", "查看 Static Pod"),
    StartPodsWhat => ("kubeadm runs etcd and the API server on this machine as static pods, from /etc/kubernetes/manifests", "kubeadm 在這台機器上以 Static Pod 執行 etcd 與 API Server，來自 /etc/kubernetes/manifests"),
    StartTls => ("Ask etcd over TLS", "透過 TLS 詢問 etcd"),
    StartTlsWhat => ("the article's environment variables, then etcdctl endpoint health with kubeadm's certificates", "先設定文章中的環境變數，再用 kubeadm 的憑證執行 etcdctl endpoint health"),
    StartCut => ("Cut the network", "切斷網路"),
    StartCutWhat => ("isolates the leader: the majority goes on without it", "把 Leader 隔離：多數的一方照常運作"),
    StartWrite => ("Write a key", "寫入一個鍵"),
    StartWriteWhat => ("etcdctl put, committed by a quorum, shown in the Keys tab", "etcdctl put 經多數成員提交後，顯示在「鍵值」分頁"),
    LegendTitle => ("What you see", "畫面說明"),
    LegendTimer => ("Election timer: the arc runs down; when it is gone the member campaigns. Heartbeats from the leader refill it.", "選舉計時器：圓弧逐漸縮短，歸零時成員就參選；Leader 的 Heartbeat 會把它補滿。"),
    LegendRoles => ("Role colours: orange leader, blue follower, pink dashed candidate, light blue dotted pre-candidate, grey stopped.", "角色顏色：橘色 Leader、藍色 Follower、粉紅虛線 Candidate、淺藍點線 Pre-Candidate、灰色已停止。"),
    LegendMessage => ("A message on the wire: filled dot a request, hollow dot its reply; pink votes, blue appends, light blue heartbeats. Click one to inspect it.", "傳送中的訊息：實心點是請求、空心點是回覆；粉紅是投票、藍色是附加日誌、淺藍是 Heartbeat。點一下可檢視。"),
    LegendPips => ("One pip per voter: green when reachable; the ringed pip is the quorum a write needs.", "每個點代表一個投票成員：綠色表示連得到；有外框的點是寫入所需的 Quorum。"),
    LegendTerms => ("A log entry: its colour is its term, its number its index.", "日誌項目：顏色代表任期，數字是索引。"),
    LegendMatchNext => ("M and N: the leader's match index (what a follower surely has) and next index (what it sends next).", "M 與 N：Leader 記錄的「已同步至」索引（Follower 確定已有的位置）與「下一個送出」索引（下一個要送的位置）。"),
    LegendAbsent => ("(not on screen right now)", "（目前畫面上沒有）"),
    SlowMotion => ("Slow motion", "慢動作"),
    SlowMotionActive => ("Slow motion ×0.1", "慢動作 ×0.1"),
    SlowMotionHelp => ("Plays ten times slower while a member campaigns or a proposal waits for its quorum.", "有成員參選或提案等待多數確認時，以十分之一的速度播放。"),
    PauseOnLeader => ("Pause on new leader", "出現新 Leader 時暫停"),
    ReplayElection => ("Replay last election", "重播上一次選舉"),
    ReplayElectionHelp => ("Back in time to just before the last election, then play it in slow motion.", "回到上一次選舉前一刻，再以慢動作播放。"),
    RestartTitle => ("Start a new run?", "要重新開始嗎？"),
    RestartBody => ("This change starts the cluster over: the commands of this run and its history are dropped (a share link or the script download keeps them).", "這個變更會讓叢集重新開始：這次執行的指令與歷史都會被捨棄（分享連結或下載腳本可以保留它們）。"),
    RestartYes => ("Start over", "重新開始"),
    RestartNo => ("Keep this run", "保留目前的執行"),
    // ring (issue 17, points 6, 7, 8, 9, 12, 13): the ring, its menu, the logs, the network.
    Frozen => ("frozen", "已凍結"),
    NodeMenuHint => ("Click for this member's actions", "點一下顯示這個成員的操作"),
    TallyNeed => ("need", "需要"),
    FadeHeartbeats => ("Fade heartbeats", "淡化 Heartbeat"),
    MessageCodes => ("Message codes", "訊息代號"),
    MessageCodesHint => ("One label per direction of an edge; ×3: three of that kind on the way; AE(2): carrying two entries.", "每條連線的每個方向一個標籤；×3：三則同類訊息在路上；AE(2)：帶著兩個日誌項目。"),
    ClientWrite => ("Client write", "用戶端寫入"),
    NeedsLeader => ("Needs a leader: wait for an election (or heal the network).", "需要 Leader：等選舉完成（或修復網路）。"),
    RefusedBy => ("Its election was refused:", "它的選舉被拒絕："),
    LogScroll => ("Entries", "項目"),
    ColourIsTerm => ("colour = term", "顏色 = 任期"),
    UncommittedHollow => ("hollow: not committed yet", "空心：尚未提交"),
    CommitLine => ("commit index: entries up to the line are committed", "提交索引：線以前的項目都已提交"),
    EntryKinds => ("the entry's kind (put, del, txn, conf; noop: a new leader's empty entry; pub, ver: etcd's own)", "項目種類（put、del、txn、conf；noop：新 Leader 的空項目；pub、ver：etcd 自己的項目）"),
    NetworkWhole => ("network: every link works", "網路：所有連線正常"),
    Partitioned => ("partitioned", "網路分割"),
    SeedInvalid => ("The seed must be a whole number from 0 to 18446744073709551615", "種子必須是 0 到 18446744073709551615 的整數"),
    SeedApply => ("Enter applies it (a new run).", "按 Enter 套用（重新開始）。"),
    // The Lessons panel (src/ui/lessons_panel.rs).
    Lessons => ("Lessons", "課程"),
    LessonsIntro => ("Each lesson teaches one idea of the articles on this cluster, step by step. Open any step: it starts from the lesson's seed.", "每堂課在這個叢集上一步一步說明文章裡的一個觀念。任何一步都可以直接開啟：它會從該課的種子重新開始。"),
    LessonsBroken => ("The lessons could not be read", "無法讀取課程"),
    Lesson => ("Lesson", "課程"),
    LessonStep => ("Step", "步驟"),
    LessonDone => ("done", "已完成"),
    LessonContents => ("Contents", "目錄"),
    LessonClose => ("Close the lesson", "關閉課程"),
    LessonBack => ("Back", "上一步"),
    LessonNext => ("Next", "下一步"),
    LessonRestart => ("Restart step", "重做這一步"),
    LessonShow => ("Show me", "示範給我看"),
    LessonTry => ("Try:", "試試："),
    LessonGoal => ("Goal", "目標"),
    GoalMet => ("met", "已達成"),
    GoalNotMet => ("not met yet", "尚未達成"),
    Predict => ("Predict first", "先預測"),
    PredictWaits => ("The cluster waits, paused, until you answer.", "叢集會先暫停，等你回答。"),
    PredictThen => ("Now make it happen: the answer is revealed once the goal is met.", "現在動手做：達成目標後就會揭曉答案。"),
    PredictYours => ("Your answer", "你的答案"),
    PredictAnswer => ("Answer", "回答"),
    RevealHeld => ("this happened", "實際發生"),
    RevealRight => ("You predicted it.", "你預測對了。"),
    RevealWrong => ("Not what happened.", "實際情況不是這樣。"),
    // console17 (issue 17 points 1, 10, 15): where etcdctl connects, replays, dividers, hints.
    ConsoleEndpoint => ("etcdctl (no --endpoints) connects to", "etcdctl（未指定 --endpoints）連線到"),
    ConsoleEndpointOf => ("the first member up of", "叢集中第一個可連線的成員，依序為"),
    ConsoleEndpointLocal => ("the member on this machine:", "這台機器上的成員："),
    ConsoleReplayed => ("Dimmed lines were replayed from a link or an import, not typed here.", "淡色的指令是從連結或匯入的腳本重播的，不是在這裡輸入的。"),
    PlayFromStart => ("⏮ Rewind to start and play", "⏮ 倒回開頭並播放"),
    PlayingBack => ("Playing the loaded run again: its commands run at their moments.", "正在重新播放載入的執行：每個指令會在原本的時間點執行。"),
    NewRun => ("new run", "新的執行"),
    HintPrefix => ("Raft Lab:", "Raft Lab："),
    HeredocWaiting => ("heredoc: finish with a line", "多行輸入：最後單獨輸入一行"),
    HeredocCancel => ("Esc cancels", "Esc 取消"),
    // A long console run, in slices (issue 15), and the fast-forward control (issue 14).
    ConsoleRunning => ("running: virtual time", "執行中：虛擬時間"),
    ConsoleQueued => ("lines waiting", "行指令等待中"),
    SkipAhead => ("Skip ahead", "快轉"),
    SkipMinute => ("1 min", "1 分鐘"),
    SkipTenMinutes => ("10 min", "10 分鐘"),
    SkipHour => ("1 h", "1 小時"),
    RunUntil => ("Run until", "執行直到"),
    UntilLeader => ("a leader exists", "出現 Leader"),
    UntilElection => ("the next election", "下一次選舉"),
    UntilQuorum => ("quorum is back", "Quorum 恢復"),
    // Accessibility and the page's frame (a11y: issue 17, points 11 and 14).
    PageTitle => ("Raft Lab: etcd consensus, live", "Raft Lab：etcd 的共識演算法即時運作"),
    SimulationControls => ("Simulation", "模擬控制"),
    RunControls => ("Run settings", "執行設定"),
    Panels => ("Panels", "面板"),
    InflightColumn => ("in flight", "傳送中"),
    ProbeState => ("probe", "探測"),
    ReplicateState => ("replicate", "複製中"),
    SnapshotState => ("snapshot", "傳送 Snapshot"),
    SpaceTimeKeys => ("Space-time diagram: ← and → select the previous or next message, Home and End the first or last; its fields open beside the ring", "時空圖：← 與 → 選取上一則或下一則訊息，Home 與 End 選取第一則或最後一則；訊息內容會顯示在環旁"),
}

/// console17: the "Raft Lab:" line after a request that failed for a reason its error does
/// not show.
pub fn console_hint(lang: Lang, hint: &crate::console::Hint) -> String {
    use crate::console::Hint as H;
    match (lang, hint) {
        (Lang::En, H::NoSuchEndpoint { endpoint }) => format!("no member listens at {endpoint}: use a member's name (m2), m2:2379, or a client URL from `etcdctl member list`."),
        (Lang::ZhTw, H::NoSuchEndpoint { endpoint }) => format!("{endpoint} 沒有任何成員在監聽：請用成員名稱（m2）、m2:2379，或 `etcdctl member list` 列出的客戶端網址。"),
        (Lang::En, H::NoTls { endpoint }) => format!("{endpoint} asks for TLS, but the members serve plain http: use http:// (the handshake never succeeds, so the client waits out its timeout)."),
        (Lang::ZhTw, H::NoTls { endpoint }) => format!("{endpoint} 要求 TLS，但成員只提供不加密的 http://：請改用 http://（握手永遠不會成功，客戶端只能等到逾時）。"),
        (Lang::En, H::NeedsTls { endpoint }) => format!("{endpoint} is plain http, but this member serves only TLS: use https:// with --cacert, --cert and --key (the handshake never succeeds, so the client waits out its timeout)."),
        (Lang::ZhTw, H::NeedsTls { endpoint }) => format!("{endpoint} 是不加密的 http://，但這個成員只提供 TLS：請改用 https://，並加上 --cacert、--cert 與 --key（握手永遠不會成功，客戶端只能等到逾時）。"),
        (Lang::En, H::UnknownCa { endpoint }) => format!("{endpoint}: the member's certificate is signed by the etcd CA, which --cacert does not hold: use --cacert=/etc/kubernetes/pki/etcd/ca.crt (not /etc/kubernetes/pki/ca.crt)."),
        (Lang::ZhTw, H::UnknownCa { endpoint }) => format!("{endpoint}：成員的憑證由 etcd 的憑證授權中心簽發，但 --cacert 不是它的憑證：請用 --cacert=/etc/kubernetes/pki/etcd/ca.crt（不是 /etc/kubernetes/pki/ca.crt）。"),
        (Lang::En, H::NoClientCert { endpoint }) => format!("{endpoint} asks for a client certificate signed by the etcd CA (--client-cert-auth): add --cert and --key, such as /etc/kubernetes/pki/etcd/healthcheck-client.crt and its .key."),
        (Lang::ZhTw, H::NoClientCert { endpoint }) => format!("{endpoint} 要求由 etcd 的憑證授權中心簽發的客戶端憑證（--client-cert-auth）：請加上 --cert 與 --key，例如 /etc/kubernetes/pki/etcd/healthcheck-client.crt 與它的私鑰檔。"),
        (Lang::En, H::EndpointDown { member, up }) if up.is_empty() => format!("{member} is down, and so is every other member: restart one."),
        (Lang::ZhTw, H::EndpointDown { member, up }) if up.is_empty() => format!("{member} 已停止，其他成員也都停止了：請重新啟動其中一個。"),
        (Lang::En, H::EndpointDown { member, up }) => format!("{member} is down, so nothing answers there. Without --endpoints the console uses the first member up ({}).", up.join(", ")),
        (Lang::ZhTw, H::EndpointDown { member, up }) => format!("{member} 已停止，那裡沒有人回應。不指定 --endpoints 時，主控台會使用第一個可連線的成員（{}）。", up.join("、")),
        (Lang::En, H::NoQuorum { reachable, quorum }) => format!("no quorum: only {reachable} voter(s) can reach each other and {quorum} are needed, so nothing commits, whichever member you ask."),
        (Lang::ZhTw, H::NoQuorum { reachable, quorum }) => format!("沒有 Quorum：只有 {reachable} 個投票成員能互相連線，需要 {quorum} 個，所以無論問哪個成員，都無法提交。"),
        (Lang::En, H::CutOff { member }) => format!("{member} runs, but the network cuts it off from the majority: it accepts the request and can never commit it. Ask a member on the majority side, or heal."),
        (Lang::ZhTw, H::CutOff { member }) => format!("{member} 仍在執行，但網路把它與多數成員隔開：它收下請求，卻永遠無法提交。請改問多數那一側的成員，或恢復網路（heal）。"),
        (Lang::En, H::Electing) => "no leader right now: an election is under way; try again in a moment.".to_string(),
        (Lang::ZhTw, H::Electing) => "目前沒有 Leader：正在選舉中，稍後再試一次。".to_string(),
        (Lang::En, H::KubeNotUp) => "no Kubernetes API server runs yet: start the control plane with `kube up`.".to_string(),
        (Lang::ZhTw, H::KubeNotUp) => "Kubernetes API Server 尚未啟動：請先執行 `kube up` 啟動控制平面。".to_string(),
    }
}

pub fn t(lang: Lang, key: Text) -> &'static str {
    let (en, zh) = TEXTS[key as usize];
    match lang {
        Lang::En => en,
        Lang::ZhTw => zh,
    }
}

/// A member's state as `data-state` names it (`leader`, `follower`, `candidate`,
/// `pre-candidate`, anything else: stopped), said in `lang`: zh-TW keeps the role names in
/// English, as the glossary says.
pub fn role(lang: Lang, role: &str) -> &'static str {
    match (lang, role) {
        (Lang::En, "leader") => "leader",
        (Lang::En, "follower") => "follower",
        (Lang::En, "candidate") => "candidate",
        (Lang::En, "pre-candidate") => "pre-candidate",
        (Lang::En, _) => "stopped",
        (Lang::ZhTw, "leader") => "Leader",
        (Lang::ZhTw, "follower") => "Follower",
        (Lang::ZhTw, "candidate") => "Candidate",
        (Lang::ZhTw, "pre-candidate") => "Pre-Candidate",
        (Lang::ZhTw, _) => "已停止",
    }
}

/// "Leader: m1", or "no leader".
pub fn leader_now(lang: Lang, leader: Option<&str>) -> String {
    match (lang, leader) {
        (Lang::En, Some(l)) => format!("Leader: {l}"),
        (Lang::ZhTw, Some(l)) => format!("Leader：{l}"),
        (_, None) => t(lang, Text::NoLeader).to_string(),
    }
}

/// Why a leader stepped down, in `lang`.
pub fn step_down(lang: Lang, reason: StepDown) -> &'static str {
    match (lang, reason) {
        (Lang::En, reason) => reason.as_str(),
        (Lang::ZhTw, StepDown::CheckQuorum) => {
            "Check-quorum：一個 Election Timeout 內沒有收到 Quorum 的回應"
        }
        (Lang::ZhTw, StepDown::Removed) => "已從成員設定中移除",
    }
}

/// An invariant's name, in `lang` (the engine's name is the English one).
pub fn property(lang: Lang, p: Property) -> &'static str {
    match (lang, p) {
        (Lang::En, p) => p.name(),
        (Lang::ZhTw, Property::ElectionSafety) => "選舉安全性",
        (Lang::ZhTw, Property::LogMatching) => "日誌一致性",
        (Lang::ZhTw, Property::LeaderCompleteness) => "Leader 完整性",
        (Lang::ZhTw, Property::StateMachineSafety) => "狀態機安全性",
        (Lang::ZhTw, Property::MonotonicCommit) => "提交只進不退",
        (Lang::ZhTw, Property::StaleLeader) => "過時的 Leader",
        (Lang::ZhTw, Property::Disruption) => "干擾選舉",
    }
}

/// What a violation of `p` means, said plainly, for the zh-TW line (the engine's detail is an
/// English sentence built from its numbers; zh-TW says the property's broken promise and the
/// members involved instead).
fn broken(p: Property) -> &'static str {
    match p {
        Property::ElectionSafety => "同一個任期出現了兩個 Leader",
        Property::LogMatching => "兩個成員在同一索引、同一任期的日誌項目不一樣",
        Property::LeaderCompleteness => "新 Leader 的日誌少了一個已提交的項目",
        Property::StateMachineSafety => "兩個成員在同一索引套用了不同的項目",
        Property::MonotonicCommit => "提交或套用的索引倒退了",
        Property::StaleLeader => "失去 Quorum 的 Leader 仍然自認是 Leader",
        Property::Disruption => "一個連不到 Quorum 的成員回來後拉高任期，趕下了正常的 Leader",
    }
}

/// One violation as the page lists it: "election safety: m1 and m3 both led term 4".
pub fn violation(lang: Lang, v: &Violation) -> String {
    match lang {
        Lang::En => v.to_string(),
        Lang::ZhTw => {
            let members: Vec<String> = v.members.iter().map(|m| m.to_string()).collect();
            let who = if members.is_empty() {
                String::new()
            } else {
                format!("（{}）", members.join("、"))
            };
            format!(
                "{}：{}{who}",
                property(lang, v.property),
                broken(v.property)
            )
        }
    }
}

/// A state of the leader's replication to one follower (etcd's probe, replicate, snapshot).
pub fn progress_state(lang: Lang, state: ProgressState) -> &'static str {
    let key = match state {
        ProgressState::Probe => Text::ProbeState,
        ProgressState::Replicate => Text::ReplicateState,
        ProgressState::Snapshot => Text::SnapshotState,
    };
    t(lang, key)
}

/// A member on the ring, as a screen reader says its button: "m1, leader, term 2".
pub fn member_label(lang: Lang, name: &str, state: &str, term: u64) -> String {
    let role = role(lang, state);
    match lang {
        Lang::En if state == "stopped" => format!("{name}, {role}"),
        Lang::En => format!("{name}, {role}, term {term}"),
        Lang::ZhTw if state == "stopped" => format!("{name}，{role}"),
        Lang::ZhTw => format!("{name}，{role}，任期 {term}"),
    }
}

/// A message on the ring, as a screen reader says its button.
pub fn message_label(lang: Lang, id: u64, kind: &str, from: &str, to: &str) -> String {
    match lang {
        Lang::En => format!("message #{id} {kind} from {from} to {to}"),
        Lang::ZhTw => format!("訊息 #{id} {kind}，從 {from} 到 {to}"),
    }
}

/// The cluster in one sentence, for the live region that speaks its changes: who leads, and
/// whether a quorum is reachable.
pub fn cluster_summary(
    lang: Lang,
    leader: Option<(&str, u64)>,
    reachable: usize,
    voters: usize,
    writes_commit: bool,
) -> String {
    let writes = t(
        lang,
        if writes_commit {
            Text::WritesCommit
        } else {
            Text::WritesBlocked
        },
    );
    match (lang, leader) {
        (Lang::En, Some((l, term))) => {
            format!(
                "Leader {l} in term {term}. {reachable} of {voters} voters reachable: {writes}."
            )
        }
        (Lang::En, None) => {
            format!("No leader. {reachable} of {voters} voters reachable: {writes}.")
        }
        (Lang::ZhTw, Some((l, term))) => {
            format!("任期 {term} 的 Leader 是 {l}。{voters} 個投票成員中 {reachable} 個可連線：{writes}。")
        }
        (Lang::ZhTw, None) => {
            format!("目前沒有 Leader。{voters} 個投票成員中 {reachable} 個可連線：{writes}。")
        }
    }
}

/// A configuration change as the engine writes it (`+m4 ~m5 -m2`, or `leave-joint`), said in
/// `lang`: the marks stay (the log cells show them too), the word is translated.
fn change_text(lang: Lang, change: &str) -> String {
    match (lang, change) {
        (Lang::ZhTw, "leave-joint") => "（離開 Joint Consensus）".to_string(),
        _ => change.to_string(),
    }
}

/// What the page calls a member: its own name where it has one (kubeadm's `master`).
pub type Names<'a> = &'a dyn Fn(MemberId) -> String;

/// One narrated sentence: "m3 became leader in term 4".
pub fn narrate(lang: Lang, names: Names, member: MemberId, event: &NodeEvent) -> String {
    let member = names(member);
    match (lang, event) {
        (Lang::En, NodeEvent::BecameRole { role: r, term }) => {
            let article = if *r == RoleName::Follower { "a " } else { "" };
            format!(
                "{member} became {article}{} in term {term}",
                role(lang, r.as_str())
            )
        }
        (Lang::En, NodeEvent::Voted { candidate, term }) => {
            format!("{member} voted for {} in term {term}", names(*candidate))
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
            format!(
                "{member} 在索引 {index} 提議成員變更 {}",
                change_text(lang, change)
            )
        }
        (Lang::ZhTw, NodeEvent::BecameRole { role: r, term }) => {
            format!("{member} 在任期 {term} 成為 {}", role(lang, r.as_str()))
        }
        (Lang::ZhTw, NodeEvent::Voted { candidate, term }) => {
            format!("{member} 在任期 {term} 投票給 {}", names(*candidate))
        }
        (Lang::ZhTw, NodeEvent::SteppedDown { term, reason }) => {
            format!("{member} 在任期 {term} 卸任：{}", step_down(lang, *reason))
        }
        (Lang::ZhTw, NodeEvent::OverwroteCommitted { index }) => {
            format!("{member} 覆寫了索引 {index} 以內已提交的項目：安全性被破壞")
        }
        (_, NodeEvent::RefusedVote { .. }) => narrate_refusal(lang, names, &member, event),
        (Lang::En, NodeEvent::ClusterIdMismatch { peer, .. }) => {
            let peer = names(*peer);
            format!("{member} refused a message from {peer}: it belongs to another cluster (cluster ID mismatch)")
        }
        (Lang::ZhTw, NodeEvent::ClusterIdMismatch { peer, .. }) => {
            let peer = names(*peer);
            format!("{member} 拒絕了 {peer} 的訊息：它屬於另一個叢集（cluster ID 不符）")
        }
    }
}

// ring (issue 17, point 6): why a vote was refused, in the words of the rule that refused it.
fn narrate_refusal(lang: Lang, names: Names, member: &str, event: &NodeEvent) -> String {
    let NodeEvent::RefusedVote {
        candidate,
        term,
        pre,
        reason,
    } = event
    else {
        return String::new();
    };
    let why = refusal_reason(lang, names, *candidate, reason);
    let candidate = names(*candidate);
    match (lang, pre) {
        (Lang::En, true) => {
            format!("{member} refused {candidate}'s pre-vote for term {term}: {why}")
        }
        (Lang::En, false) => format!("{member} refused {candidate}'s vote for term {term}: {why}"),
        (Lang::ZhTw, true) => {
            format!("{member} 拒絕了 {candidate} 在任期 {term} 的 Pre-vote：{why}")
        }
        (Lang::ZhTw, false) => format!("{member} 拒絕投票給 {candidate}（任期 {term}）：{why}"),
    }
}

/// The reason alone, as the member card shows it beside the "time out" button.
pub fn refusal_reason(
    lang: Lang,
    names: Names,
    candidate: MemberId,
    reason: &VoteRefusal,
) -> String {
    let candidate = names(candidate);
    // The member the reason names: the leader heard from, or the one already voted for.
    let (leader, vote) = match reason {
        VoteRefusal::LeaderLease { leader } | VoteRefusal::HasLeader { leader } => {
            (names(*leader), String::new())
        }
        VoteRefusal::AlreadyVoted { vote } => (String::new(), names(*vote)),
        _ => (String::new(), String::new()),
    };
    match (lang, reason) {
        (Lang::En, VoteRefusal::LeaderLease { .. }) => format!(
            "it heard from leader {leader} less than an election timeout ago, so it ignores elections (check-quorum)"
        ),
        (Lang::En, VoteRefusal::LogBehind) => format!("{candidate}'s log is behind its own (§5.4.1)"),
        (Lang::En, VoteRefusal::AlreadyVoted { .. }) => format!("it already voted for {vote} in this term"),
        (Lang::En, VoteRefusal::HasLeader { .. }) => format!("it already follows leader {leader} in this term"),
        (Lang::En, VoteRefusal::StaleTerm { term }) => format!("its own term {term} is newer"),
        (Lang::ZhTw, VoteRefusal::LeaderLease { .. }) => format!(
            "它在一個 Election Timeout 內才收到 Leader {leader} 的訊息，所以不理會選舉（Check-quorum）"
        ),
        (Lang::ZhTw, VoteRefusal::LogBehind) => format!("{candidate} 的日誌比它的舊（§5.4.1）"),
        (Lang::ZhTw, VoteRefusal::AlreadyVoted { .. }) => format!("它在這個任期已投票給 {vote}"),
        (Lang::ZhTw, VoteRefusal::HasLeader { .. }) => format!("它在這個任期已跟隨 Leader {leader}"),
        (Lang::ZhTw, VoteRefusal::StaleTerm { term }) => format!("它自己的任期 {term} 比較新"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::MemberId;

    /// The ring world's names: a member's id.
    fn ids(m: MemberId) -> String {
        m.to_string()
    }

    /// The English words of a zh-TW text that the glossary does not keep: each run of ASCII
    /// between Chinese characters is a command line (it starts with a console verb), or
    /// made of kept terms, member names, numbers and units.
    fn stray_english(zh: &str) -> Vec<String> {
        let mut kept: Vec<Vec<&str>> = KEPT_IN_ENGLISH.iter().map(|k| words(k)).collect();
        kept.sort_by_key(|k| std::cmp::Reverse(k.len()));
        let mut stray = Vec::new();
        for run in zh.split(|c: char| !c.is_ascii()) {
            let tokens = words(run);
            let command = tokens
                .first()
                .is_some_and(|w| crate::console::verbs::find(w).is_some());
            let run_start = run.trim_start();
            if command
                || run_start.starts_with('/')
                || run_start.starts_with("--")
                || run.contains("://")
            {
                continue;
            }
            let mut i = 0;
            while i < tokens.len() {
                if let Some(k) = kept.iter().find(|k| tokens[i..].starts_with(k)) {
                    i += k.len();
                    continue;
                }
                let w = tokens[i];
                let plain = w.chars().all(|c| c.is_ascii_digit())
                    || (w.starts_with('m') && w[1..].chars().all(|c| c.is_ascii_digit()))
                    || ["ms", "s"].contains(&w)
                    || is_code(w);
                if !plain {
                    stray.push(w.to_string());
                }
                i += 1;
            }
        }
        stray
    }

    /// A code the ring draws for a message (`AE`, `PV`) or a log cell for an entry (`put`).
    fn is_code(w: &str) -> bool {
        use crate::ui::ring::{CODES, CONF_CODE, ENTRY_CODES};
        w == CONF_CODE
            || ENTRY_CODES.iter().any(|(_, code)| *code == w)
            || CODES.iter().any(|(_, code)| words(code).contains(&w))
    }

    fn words(text: &str) -> Vec<&str> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .map(|w| w.trim_matches('-'))
            .filter(|w| !w.is_empty())
            .collect()
    }

    /// Every zh-TW text the page shows: the table, and what the functions above build.
    fn every_zh_text() -> Vec<String> {
        let mut all: Vec<String> = TEXTS.iter().map(|(_, zh)| zh.to_string()).collect();
        let zh = Lang::ZhTw;
        for state in [
            "leader",
            "follower",
            "candidate",
            "pre-candidate",
            "stopped",
        ] {
            all.push(role(zh, state).into());
            all.push(member_label(zh, "m1", state, 3));
        }
        for p in Property::ALL {
            all.push(property(zh, p).into());
            all.push(violation(zh, &sample_violation(p)));
        }
        for reason in [StepDown::CheckQuorum, StepDown::Removed] {
            all.push(narrate(
                zh,
                &ids,
                MemberId(2),
                &NodeEvent::SteppedDown { term: 3, reason },
            ));
        }
        for state in [
            ProgressState::Probe,
            ProgressState::Replicate,
            ProgressState::Snapshot,
        ] {
            all.push(progress_state(zh, state).into());
        }
        for role in [
            RoleName::Leader,
            RoleName::Follower,
            RoleName::Candidate,
            RoleName::PreCandidate,
        ] {
            all.push(narrate(
                zh,
                &ids,
                MemberId(3),
                &NodeEvent::BecameRole { role, term: 4 },
            ));
        }
        let m2 = MemberId(2);
        all.push(narrate(
            zh,
            &ids,
            MemberId(1),
            &NodeEvent::Voted {
                candidate: m2,
                term: 2,
            },
        ));
        all.push(narrate(
            zh,
            &ids,
            MemberId(1),
            &NodeEvent::OverwroteCommitted { index: 7 },
        ));
        for change in ["+m4 ~m5 -m2", "leave-joint"] {
            let change = change.to_string();
            all.push(narrate(
                zh,
                &ids,
                MemberId(1),
                &NodeEvent::Configuration { index: 9, change },
            ));
        }
        all.extend(refusals(zh));
        all.extend(console_hints(zh));
        all.push(leader_now(zh, Some("m1")));
        all.push(leader_now(zh, None));
        all.push(message_label(zh, 12, "AppendEntries", "m1", "m2"));
        all.push(cluster_summary(zh, Some(("m1", 2)), 3, 3, true));
        all.push(cluster_summary(zh, None, 1, 3, false));
        all
    }

    /// ring's narration of every refused vote and pre-vote, and each reason alone (the card).
    fn refusals(lang: Lang) -> Vec<String> {
        let m3 = MemberId(3);
        let reasons = [
            VoteRefusal::LeaderLease { leader: m3 },
            VoteRefusal::LogBehind,
            VoteRefusal::AlreadyVoted { vote: m3 },
            VoteRefusal::HasLeader { leader: m3 },
            VoteRefusal::StaleTerm { term: 5 },
        ];
        let mut all = Vec::new();
        for reason in reasons {
            all.push(refusal_reason(lang, &ids, MemberId(2), &reason));
            for pre in [true, false] {
                let event = NodeEvent::RefusedVote {
                    candidate: MemberId(2),
                    term: 4,
                    pre,
                    reason,
                };
                all.push(narrate(lang, &ids, MemberId(1), &event));
            }
        }
        all
    }

    /// console17's "Raft Lab:" hints, with what a student would type as the endpoint.
    fn console_hints(lang: Lang) -> Vec<String> {
        use crate::console::Hint as H;
        let (member, up) = ("m1".to_string(), vec!["m2".to_string(), "m3".to_string()]);
        let hints = [
            H::NoSuchEndpoint {
                endpoint: "m9:2379".into(),
            },
            H::NoTls {
                endpoint: "https://m1:2379".into(),
            },
            H::NeedsTls {
                endpoint: "http://127.0.0.1:2379".into(),
            },
            H::UnknownCa {
                endpoint: "https://127.0.0.1:2379".into(),
            },
            H::NoClientCert {
                endpoint: "https://127.0.0.1:2379".into(),
            },
            H::EndpointDown {
                member: member.clone(),
                up: Vec::new(),
            },
            H::EndpointDown {
                member: member.clone(),
                up,
            },
            H::NoQuorum {
                reachable: 1,
                quorum: 2,
            },
            H::CutOff { member },
            H::Electing,
            H::KubeNotUp,
        ];
        hints.iter().map(|h| console_hint(lang, h)).collect()
    }

    fn sample_violation(property: Property) -> Violation {
        Violation {
            property,
            time_ms: 1200,
            members: vec![MemberId(1), MemberId(3)],
            detail: "m1 and m3 both led term 4".into(),
        }
    }

    #[test]
    fn zh_tw_texts_keep_only_the_glossary_in_english() {
        let mut failures = Vec::new();
        for text in every_zh_text() {
            let stray = stray_english(&text);
            if !stray.is_empty() {
                failures.push(format!("{text:?}: {stray:?}"));
            }
            for retired in RETIRED {
                if text.contains(retired) {
                    failures.push(format!("{text:?}: {retired} (retired by the glossary)"));
                }
            }
        }
        assert!(
            failures.is_empty(),
            "zh-TW texts with English outside KEPT_IN_ENGLISH:\n{}",
            failures.join("\n")
        );
        assert_eq!(stray_english("沒有 leader"), ["leader"]);
        assert!(stray_english("試試 etcdctl put greeting hello").is_empty());
        assert!(stray_english("m1 在任期 4 成為 Pre-Candidate").is_empty());
    }

    #[test]
    fn each_term_has_one_rendering_in_every_text() {
        let mut failures = Vec::new();
        for (en, zh) in TEXTS {
            let en_words: Vec<String> = words(en).iter().map(|w| w.to_lowercase()).collect();
            for (forms, rendering) in RENDERED {
                if forms.iter().any(|f| en_words.iter().any(|w| w == f)) && !zh.contains(rendering)
                {
                    failures.push(format!("{en:?} / {zh:?} lacks {rendering}"));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn the_browser_language_picks_the_first_one_the_page_speaks() {
        assert_eq!(Lang::from_browser(&["zh-TW", "en-US"]), Some(Lang::ZhTw));
        assert_eq!(Lang::from_browser(&["zh-Hant-TW"]), Some(Lang::ZhTw));
        assert_eq!(Lang::from_browser(&["zh_HK"]), Some(Lang::ZhTw));
        assert_eq!(Lang::from_browser(&["en-GB", "zh-TW"]), Some(Lang::En));
        assert_eq!(
            Lang::from_browser(&["zh-CN", "zh", "zh-TW"]),
            Some(Lang::ZhTw)
        );
        assert_eq!(Lang::from_browser(&["fr-FR", "de"]), None);
        assert_eq!(Lang::from_browser::<&str>(&[]), None);
    }

    #[test]
    fn screen_reader_labels_and_the_cluster_summary() {
        assert_eq!(
            member_label(Lang::En, "m1", "leader", 2),
            "m1, leader, term 2"
        );
        assert_eq!(member_label(Lang::ZhTw, "m2", "stopped", 2), "m2，已停止");
        assert_eq!(
            cluster_summary(Lang::En, Some(("m2", 3)), 2, 3, true),
            "Leader m2 in term 3. 2 of 3 voters reachable: writes can commit."
        );
        assert_eq!(
            cluster_summary(Lang::ZhTw, None, 1, 3, false),
            "目前沒有 Leader。3 個投票成員中 1 個可連線：寫入無法提交。"
        );
        assert_eq!(
            violation(Lang::En, &sample_violation(Property::ElectionSafety)),
            "election safety: m1 and m3 both led term 4"
        );
        assert_eq!(
            violation(Lang::ZhTw, &sample_violation(Property::ElectionSafety)),
            "選舉安全性：同一個任期出現了兩個 Leader（m1、m3）"
        );
    }

    #[test]
    fn every_text_is_written_in_both_languages() {
        for (en, zh) in TEXTS {
            assert!(
                !en.trim().is_empty() && !zh.trim().is_empty(),
                "{en:?} / {zh:?}"
            );
        }
        assert_eq!(t(Lang::En, Text::Cluster), "Cluster");
        assert_eq!(t(Lang::ZhTw, Text::Cluster), "叢集");
        assert_eq!(t(Lang::En, Text::CrashScript), "The script so far");
        assert_eq!(t(Lang::ZhTw, Text::Play), "播放");
    }

    #[test]
    fn languages_round_trip_their_codes() {
        for lang in [Lang::En, Lang::ZhTw] {
            assert_eq!(Lang::from_code(lang.code()), Some(lang));
            assert_eq!(lang.other().other(), lang);
        }
        assert_eq!(Lang::from_code("fr"), None);
    }

    #[test]
    fn narration_names_the_member_and_the_term() {
        let event = NodeEvent::BecameRole {
            role: RoleName::Follower,
            term: 4,
        };
        assert_eq!(
            narrate(Lang::En, &ids, MemberId(3), &event),
            "m3 became a follower in term 4"
        );
        assert_eq!(
            narrate(Lang::ZhTw, &ids, MemberId(3), &event),
            "m3 在任期 4 成為 Follower"
        );
        assert_eq!(role(Lang::En, "anything else"), "stopped");
    }
}
