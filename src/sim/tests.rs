//! The world's own semantics, with a toy process that counts pings.

use super::*;

#[derive(Clone, Debug)]
struct Ping {
    from: MemberId,
    to: MemberId,
    n: u64,
}

impl Envelope for Ping {
    fn from(&self) -> MemberId {
        self.from
    }
    fn to(&self) -> MemberId {
        self.to
    }
    fn kind(&self) -> &'static str {
        "Ping"
    }
    fn term(&self) -> u64 {
        0
    }
    fn entry_count(&self) -> usize {
        0
    }
    fn describe(&self) -> String {
        format!("{}->{} ping {}", self.from, self.to, self.n)
    }
}

/// Pings its peer every tick; counts what it receives. `received` is volatile, `ticks` too.
#[derive(Clone, Debug)]
struct Pinger {
    id: MemberId,
    peer: MemberId,
    running: bool,
    ticks: u64,
    received: Vec<u64>,
    woken: Vec<u64>,
}

impl Process for Pinger {
    type Msg = Ping;
    fn tick(&mut self, ctx: &mut Ctx<Ping>) {
        self.ticks += 1;
        ctx.send(Ping {
            from: self.id,
            to: self.peer,
            n: self.ticks,
        });
        if self.ticks == 1 {
            ctx.wake_in(250, 7);
        }
    }
    fn receive(&mut self, msg: Ping, ctx: &mut Ctx<Ping>) {
        self.received.push(msg.n);
        if msg.n.is_multiple_of(10) {
            ctx.note(format!("noted ping {}", msg.n));
        }
    }
    fn wake(&mut self, token: u64, _ctx: &mut Ctx<Ping>) {
        self.woken.push(token);
    }
    fn crash(&mut self) {
        self.running = false;
        self.ticks = 0;
        self.received.clear();
    }
    fn restart(&mut self, _ctx: &mut Ctx<Ping>) {
        self.running = true;
    }
    fn is_running(&self) -> bool {
        self.running
    }
}

fn pinger(id: u64, peer: u64) -> Pinger {
    Pinger {
        id: MemberId(id),
        peer: MemberId(peer),
        running: true,
        ticks: 0,
        received: Vec::new(),
        woken: Vec::new(),
    }
}

fn world(seed: u64, net: NetConfig) -> Sim<Pinger> {
    Sim::new(
        vec![(MemberId(1), pinger(1, 2)), (MemberId(2), pinger(2, 1))],
        net,
        100,
        Rng::new(seed),
    )
}

/// A trace line a process noted (the Pinger's every tenth ping received).
fn is_note(line: &str) -> bool {
    line.contains(" noted ping ")
}

const M1: MemberId = MemberId(1);
const M2: MemberId = MemberId(2);

#[test]
fn events_run_in_time_order_and_the_clock_lands_on_the_target() {
    let mut w = world(1, NetConfig::default());
    w.run_until(1_000);
    assert_eq!(w.now(), 1_000);
    let p = w.process(M1).unwrap();
    assert!((9..=10).contains(&p.ticks), "{}", p.ticks);
    // Pings sent 100 ms apart with ±2 ms jitter arrive in the order sent.
    assert!(
        p.received.windows(2).all(|w| w[0] <= w[1]),
        "{:?}",
        p.received
    );
    assert!(p.received.len() >= 8);
    assert_eq!(p.woken, vec![7]);
}

#[test]
fn partitions_and_heal() {
    let mut w = world(2, NetConfig::default());
    w.net.partition(&[vec![M1], vec![M2]]);
    w.run_for(1_000);
    assert!(w.process(M2).unwrap().received.is_empty());
    assert!(w.largest_connected_group().len() == 1);
    w.net.heal();
    w.run_for(500);
    assert!(!w.process(M2).unwrap().received.is_empty());
    assert_eq!(w.largest_connected_group(), vec![M1, M2]);
}

#[test]
fn one_way_cut_is_asymmetric() {
    let mut w = world(3, NetConfig::default());
    w.net.cut.insert((M1, M2));
    w.run_for(1_000);
    assert!(w.process(M2).unwrap().received.is_empty());
    assert!(!w.process(M1).unwrap().received.is_empty());
}

#[test]
fn kill_drops_timers_and_volatile_state_pause_keeps_it() {
    let mut w = world(4, NetConfig::default());
    w.run_for(50);
    w.kill(M1).unwrap();
    assert_eq!(w.kill(M1), Err(SimError::AlreadyStopped(M1)));
    w.run_for(1_000);
    assert!(
        w.process(M1).unwrap().woken.is_empty(),
        "a crashed incarnation's timers never fire"
    );
    assert!(
        w.process(M1).unwrap().received.is_empty(),
        "messages to a dead process are dropped"
    );
    w.restart(M1).unwrap();
    w.run_for(1_000);
    assert!(w.process(M1).unwrap().ticks >= 9);

    w.pause(M2).unwrap();
    let (ticks, got) = (
        w.process(M2).unwrap().ticks,
        w.process(M2).unwrap().received.len(),
    );
    w.run_for(1_000);
    assert_eq!(
        w.process(M2).unwrap().ticks,
        ticks,
        "a paused process does not tick"
    );
    assert_eq!(
        w.process(M2).unwrap().received.len(),
        got,
        "nor handle messages"
    );
    w.resume(M2).unwrap();
    assert!(
        w.process(M2).unwrap().received.len() >= got + 9,
        "held messages are handled on resume"
    );
}

#[test]
fn loss_duplication_and_single_message_control() {
    let lossy = NetConfig {
        loss: 0.5,
        ..NetConfig::default()
    };
    let mut w = world(5, lossy);
    w.run_for(10_000);
    let got = w.process(M2).unwrap().received.len();
    assert!((20..80).contains(&got), "{got} of ~100 with 50% loss");

    let dup = NetConfig {
        duplicate: 1.0,
        ..NetConfig::default()
    };
    let mut w = world(6, dup);
    w.run_for(1_000);
    let received = &w.process(M2).unwrap().received;
    assert!(received.windows(2).any(|p| p[0] == p[1]) || received.len() >= 18);

    let mut w = world(
        7,
        NetConfig {
            latency_ms: 50,
            jitter_ms: 0,
            ..NetConfig::default()
        },
    );
    w.run_until_cond(1_000, |w| !w.in_flight().is_empty());
    let first = w.in_flight()[0].clone();
    assert_eq!(first.arrive_ms - first.sent_ms, 50);
    w.delay_message(first.id, 500).unwrap();
    assert!(w
        .in_flight()
        .iter()
        .any(|m| m.id == first.id && m.arrive_ms == first.arrive_ms + 500));
    w.drop_message(first.id).unwrap();
    assert!(w.in_flight().iter().all(|m| m.id != first.id));
    // The count the page draws at every step of its clock is the list's, timers left out.
    for _ in 0..200 {
        assert_eq!(w.in_flight_count(), w.in_flight().len());
        w.step();
    }
    assert_eq!(
        w.drop_message(first.id),
        Err(SimError::NoSuchMessage(first.id))
    );
}

#[test]
fn same_seed_same_trace_hash_and_checkpoint_replay() {
    let net = NetConfig {
        loss: 0.1,
        jitter_ms: 4,
        duplicate: 0.05,
        ..NetConfig::default()
    };
    let mut a = world(8, net.clone());
    let mut b = world(8, net.clone());
    a.run_for(3_000);
    b.run_for(3_000);
    assert_eq!(a.trace_hash(), b.trace_hash());
    assert_ne!(a.trace_hash(), {
        let mut c = world(9, net);
        c.run_for(3_000);
        c.trace_hash()
    });
    // A clone is a checkpoint: running it forward gives exactly what the original did.
    let checkpoint = a.clone();
    a.run_for(2_000);
    let mut replay = checkpoint;
    replay.run_for(2_000);
    assert_eq!(a.trace_hash(), replay.trace_hash());
}

#[test]
fn the_wire_log_records_every_fate_and_changes_nothing() {
    let mut plain = world(7, NetConfig::default());
    let mut logged = world(7, NetConfig::default());
    logged.set_wire_log(1_000);
    for w in [&mut plain, &mut logged] {
        w.record_trace(true);
        w.run_for(500);
        w.net.partition(&[vec![M1], vec![M2]]);
        w.run_for(300);
        w.net.heal();
        w.run_for(200);
    }
    assert_eq!(
        plain.trace_hash(),
        logged.trace_hash(),
        "logging changes the run"
    );
    assert_eq!(plain.wire_since(0).count(), 0, "off by default");
    let records: Vec<&Wire> = logged.wire_since(0).collect();
    let lost: Vec<&&Wire> = records.iter().filter(|w| w.lost.is_some()).collect();
    let sent = logged
        .trace_lines()
        .iter()
        .filter(|l| l.contains("send #"))
        .count();
    let lose = logged
        .trace_lines()
        .iter()
        .filter(|l| l.contains("lose #"))
        .count();
    assert_eq!(records.len() - lost.len(), sent, "one record per delivery");
    assert_eq!(lost.len(), lose, "one record per loss");
    assert!(!lost.is_empty() && lost.iter().all(|w| (500..800).contains(&w.message.sent_ms)));
    assert!(records.windows(2).all(|p| p[0].seq < p[1].seq));
    // Reading on from a cursor gives only what is newer; the log keeps its last records.
    let cursor = logged.wire_seq();
    logged.run_for(300);
    assert!(logged
        .wire_since(cursor)
        .all(|w| w.seq > cursor && w.message.sent_ms >= 1_000));
    logged.set_wire_log(5);
    assert_eq!(logged.wire_since(0).count(), 5);
}

#[test]
fn what_the_run_foresees_is_what_it_then_sends() {
    let net = NetConfig {
        loss: 0.1,
        jitter_ms: 9,
        ..NetConfig::default()
    };
    let (mut foreseen, mut noted) = (0, 0);
    for seed in 0..20 {
        let mut w = world(seed, net.clone());
        w.set_wire_log(10_000);
        w.record_trace(true);
        let mut rng = Rng::new(seed);
        for _ in 0..10 {
            w.run_for(rng.range(0, 300));
            let (now, hash, cursor) = (w.now(), w.trace_hash(), w.wire_seq());
            let until = now + rng.range(1, 200);
            let ahead = w.foresee(until);
            assert_eq!(
                (w.now(), w.trace_hash()),
                (now, hash),
                "seed {seed}: the run moved"
            );
            let mut notes = Vec::new();
            while w.next_event_time().is_some_and(|next| next <= until) {
                let noted = w.trace_lines().iter().filter(|l| is_note(l)).count();
                w.step();
                let after = w.trace_lines().iter().filter(|l| is_note(l)).count();
                if after != noted && notes.last() != Some(&w.now()) {
                    notes.push(w.now());
                }
            }
            w.run_until(until);
            assert_eq!(
                ahead.notes, notes,
                "seed {seed}: notes from {now} to {until}"
            );
            noted += notes.len();
            let ahead = ahead.messages;
            let sent: Vec<InFlight> = w
                .wire_since(cursor)
                .filter(|r| r.lost.is_none())
                .map(|r| r.message.clone())
                .collect();
            assert_eq!(ahead, sent, "seed {seed}: from {now} to {until}");
            assert!(ahead.iter().all(|m| m.sent_ms > now && m.sent_ms <= until));
            foreseen += ahead.len();
        }
    }
    assert!(foreseen > 200, "{foreseen} messages foreseen");
    assert!(noted > 20, "{noted} notes foreseen");
}
