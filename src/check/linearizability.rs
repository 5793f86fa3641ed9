//! Linearizability of client histories (Herlihy & Wing), checked as Porcupine does: Wing &
//! Gong's search with Lowe's just-in-time linearization, memoizing each (set of operations
//! linearized, model state) reached so that no configuration is explored twice. A history is
//! split per key first: operations on distinct keys commute, so a history is linearizable iff
//! each key's sub-history is (P-compositionality, Horn & Kroening).
//!
//! The model is one etcd key: its value and the revision of its last change. Revisions are
//! global and grow in apply order, so along a key's linearization each put or delete carries a
//! greater revision than the change before it, and a get returns exactly the revision of the
//! change it sees. An operation whose client never got an answer (its deadline passed: a dead
//! member, no quorum) may have taken effect at any time after its call, or never: it returns
//! at infinity with an unknown result (Jepsen's `:info`, Porcupine's pending operations).
//! Serializable reads may be stale by design (etcd serves them from the member's own store),
//! so a history holds linearizable reads only.

use crate::etcd::{Request, Response};
use std::collections::BTreeMap;
use std::collections::BTreeSet;
use std::fmt;

/// What a client asked, on one key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    Put {
        key: Vec<u8>,
        value: Vec<u8>,
    },
    /// A linearizable get of one key.
    Get {
        key: Vec<u8>,
    },
    /// A delete of one key.
    Delete {
        key: Vec<u8>,
    },
    /// A compare-and-swap txn: `If(ModRevision(key) == expected) Then Put(key, value) Else
    /// Get(key)`, as the API server writes (a mod revision 0: the key is absent).
    Cas {
        key: Vec<u8>,
        expected: i64,
        value: Vec<u8>,
    },
}

impl Input {
    /// The single-key put, get or delete `req` is, if it is one.
    pub fn of(req: &Request) -> Option<Input> {
        match req {
            Request::Put(p) if !p.ignore_value => Some(Input::Put {
                key: p.key.clone(),
                value: p.value.clone(),
            }),
            Request::Range(r) if r.range_end.is_empty() && r.revision <= 0 && !r.count_only => {
                Some(Input::Get { key: r.key.clone() })
            }
            Request::DeleteRange(d) if d.range_end.is_empty() => {
                Some(Input::Delete { key: d.key.clone() })
            }
            Request::Txn(t) => cas_of(t),
            _ => None,
        }
    }

    pub fn key(&self) -> &[u8] {
        match self {
            Input::Put { key, .. }
            | Input::Get { key }
            | Input::Delete { key }
            | Input::Cas { key, .. } => key,
        }
    }

    /// The request that asks it.
    pub fn request(&self) -> Request {
        use crate::etcd::{
            Compare, CompareResult, CompareTarget, DeleteRangeRequest, PutRequest, RangeRequest,
            RequestOp, TxnRequest,
        };
        match self {
            Input::Put { key, value } => Request::Put(PutRequest::new(key.clone(), value.clone())),
            Input::Get { key } => Request::Range(RangeRequest::key(key.clone())),
            Input::Delete { key } => Request::DeleteRange(DeleteRangeRequest::key(key.clone())),
            Input::Cas {
                key,
                expected,
                value,
            } => Request::Txn(TxnRequest {
                compare: vec![Compare::new(
                    key.clone(),
                    CompareResult::Equal,
                    CompareTarget::Mod(*expected),
                )],
                success: vec![RequestOp::Put(PutRequest::new(key.clone(), value.clone()))],
                failure: vec![RequestOp::Range(RangeRequest::key(key.clone()))],
            }),
        }
    }
}

/// The compare-and-swap a txn is, if it is one (one key's mod revision compared for equality,
/// a put of that key if it holds, a get of it if not: without that get, a failed swap's
/// answer would say nothing of the key).
fn cas_of(t: &crate::etcd::TxnRequest) -> Option<Input> {
    use crate::etcd::{CompareResult, CompareTarget, RequestOp};
    let [c] = &t.compare[..] else {
        return None;
    };
    let (CompareResult::Equal, CompareTarget::Mod(expected)) = (&c.result, &c.target) else {
        return None;
    };
    let [RequestOp::Put(p)] = &t.success[..] else {
        return None;
    };
    let else_ok = match &t.failure[..] {
        [RequestOp::Range(r)] => r.key == c.key && r.range_end.is_empty(),
        _ => false,
    };
    (c.range_end.is_empty() && p.key == c.key && !p.ignore_value && else_ok).then(|| Input::Cas {
        key: c.key.clone(),
        expected: *expected,
        value: p.value.clone(),
    })
}

/// What the client was answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The put's revision.
    Put { revision: i64 },
    /// The value and mod revision seen, or none for a missing key.
    Get { found: Option<(Vec<u8>, i64)> },
    /// How many keys were deleted (0 or 1) and the revision of the answer.
    Delete { deleted: i64, revision: i64 },
    /// Whether the compare held, the answer's revision (the put's, when it did), and what the
    /// failure branch's get saw (None also when the compare held).
    Cas {
        succeeded: bool,
        revision: i64,
        found: Option<(Vec<u8>, i64)>,
    },
}

impl Output {
    /// The answer `resp` gives to `input`, if it is of the matching kind.
    pub fn of(input: &Input, resp: &Response) -> Option<Output> {
        match (input, resp) {
            (Input::Put { .. }, Response::Put(p)) => Some(Output::Put {
                revision: p.revision,
            }),
            (Input::Get { key }, Response::Range(r)) => Some(Output::Get {
                found: r
                    .kvs
                    .iter()
                    .find(|kv| &kv.key == key)
                    .map(|kv| (kv.value.clone(), kv.mod_revision)),
            }),
            (Input::Delete { .. }, Response::DeleteRange(d)) => Some(Output::Delete {
                deleted: d.deleted,
                revision: d.revision,
            }),
            (Input::Cas { key, .. }, Response::Txn(t)) => Some(Output::Cas {
                succeeded: t.succeeded,
                revision: t.revision,
                found: t
                    .responses
                    .iter()
                    .find_map(|r| match r {
                        crate::etcd::ResponseOp::Range(r) => Some(
                            r.kvs
                                .iter()
                                .find(|kv| &kv.key == key)
                                .map(|kv| (kv.value.clone(), kv.mod_revision)),
                        ),
                        _ => None,
                    })
                    .flatten(),
            }),
            _ => None,
        }
    }
}

/// One client operation: its call and return as positions in the history's one order of
/// events (no two events share one), its input, and its output (None: no answer came).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    pub client: usize,
    pub input: Input,
    pub call: u64,
    /// None while pending, and for ever if no answer came.
    pub ret: Option<u64>,
    pub output: Option<Output>,
}

/// A history as clients record it: [`History::call`] when a request is sent,
/// [`History::answered`] when its answer comes, [`History::failed`] when it certainly did
/// nothing (refused before reaching Raft); an operation left without either timed out.
#[derive(Clone, Debug, Default)]
pub struct History {
    ops: Vec<Option<Operation>>,
    clock: u64,
}

impl History {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Records a call; returns the operation's handle.
    pub fn call(&mut self, client: usize, input: Input) -> usize {
        let call = self.tick();
        self.ops.push(Some(Operation {
            client,
            input,
            call,
            ret: None,
            output: None,
        }));
        self.ops.len() - 1
    }

    /// Records the answer to operation `op`.
    pub fn answered(&mut self, op: usize, output: Output) {
        let ret = self.tick();
        if let Some(Some(o)) = self.ops.get_mut(op) {
            o.ret = Some(ret);
            o.output = Some(output);
        }
    }

    /// Operation `op` certainly had no effect: it leaves the history.
    pub fn failed(&mut self, op: usize) {
        if let Some(slot) = self.ops.get_mut(op) {
            *slot = None;
        }
    }

    /// The operations recorded (failed ones aside), in call order.
    pub fn operations(&self) -> impl Iterator<Item = &Operation> {
        self.ops.iter().flatten()
    }

    /// How many operations were answered, and how many got no answer.
    pub fn counts(&self) -> (usize, usize) {
        let answered = self.operations().filter(|o| o.output.is_some()).count();
        (answered, self.operations().count() - answered)
    }
}

/// A key's state in the model: its value (None: absent) and the revision of its last change
/// (None: unknown, after a change whose answer never came).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct KeyState {
    value: Option<Value>,
    revision: Option<i64>,
}

/// A present key's value, as far as the history can tell.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Value {
    Known(Vec<u8>),
    /// Written by a put without an answer whose value no get returned: one such put is as
    /// good as another.
    Unseen,
}

impl KeyState {
    fn initial() -> KeyState {
        KeyState {
            value: None,
            revision: Some(0),
        }
    }

    /// Whether a change at `revision` may follow this state.
    fn before(&self, revision: i64) -> bool {
        self.revision.is_none_or(|r| r < revision)
    }

    /// The key's mod revision as a compare sees it (0 when absent), if known.
    fn mod_revision(&self) -> Option<i64> {
        match self.value {
            None => Some(0),
            Some(_) => self.revision,
        }
    }

    /// The state after a compare-and-swap answered (`succeeded`, its revision, what its
    /// failure branch read), if that answer is possible here. `on_a_change`: an answer shows
    /// the expected revision to be some change's; an unseen put's revision is none of those
    /// (no answer showed its value, and each change has its own revision).
    fn cas(
        &self,
        (expected, on_a_change): (i64, bool),
        value: &[u8],
        (succeeded, revision, found): (bool, i64, Option<&(Vec<u8>, i64)>),
    ) -> Option<KeyState> {
        let held = match self.mod_revision() {
            Some(m) => Some(m == expected),
            // The key is present, so its mod revision is not 0.
            None if expected == 0 => Some(false),
            None if on_a_change && self.value == Some(Value::Unseen) => Some(false),
            None => None,
        };
        if succeeded {
            return (held != Some(false) && self.before(revision)).then(|| KeyState {
                value: Some(Value::Known(value.to_vec())),
                revision: Some(revision),
            });
        }
        if held == Some(true) {
            return None;
        }
        match found {
            None => self.value.is_none().then(|| self.clone()),
            Some((v, r)) => {
                let seen = self.value.as_ref() == Some(&Value::Known(v.clone()));
                (seen && self.revision.is_none_or(|s| s == *r) && *r != expected).then(|| {
                    KeyState {
                        value: Some(Value::Known(v.clone())),
                        revision: Some(*r),
                    }
                })
            }
        }
    }

    /// The state after `op` answered `op.output` (None: unknown), if that answer is possible.
    fn step(&self, op: &Pending) -> Option<KeyState> {
        let (input, output) = (&op.op.input, op.op.output.as_ref());
        match (input, output) {
            (Input::Put { .. } | Input::Cas { .. }, None) if op.unseen => Some(KeyState {
                value: Some(Value::Unseen),
                revision: None,
            }),
            (Input::Put { value, .. } | Input::Cas { value, .. }, None) => op
                .revision
                .is_none_or(|r| self.before(r))
                .then(|| KeyState {
                    value: Some(Value::Known(value.clone())),
                    revision: op.revision,
                }),
            (Input::Put { value, .. }, Some(Output::Put { revision })) => {
                self.before(*revision).then(|| KeyState {
                    value: Some(Value::Known(value.clone())),
                    revision: Some(*revision),
                })
            }
            (
                Input::Cas {
                    expected, value, ..
                },
                Some(Output::Cas {
                    succeeded,
                    revision,
                    found,
                }),
            ) => self.cas(
                (*expected, op.swaps_a_change),
                value,
                (*succeeded, *revision, found.as_ref()),
            ),
            (Input::Get { .. }, None) => Some(self.clone()),
            (Input::Get { .. }, Some(Output::Get { found: None })) => {
                self.value.is_none().then(|| self.clone())
            }
            (
                Input::Get { .. },
                Some(Output::Get {
                    found: Some((v, r)),
                }),
            ) => {
                let seen = self.value.as_ref() == Some(&Value::Known(v.clone()));
                let same = seen && self.revision.is_none_or(|s| s == *r);
                same.then(|| KeyState {
                    value: Some(Value::Known(v.clone())),
                    revision: Some(*r),
                })
            }
            (Input::Delete { .. }, None) if self.value.is_some() => Some(KeyState {
                value: None,
                revision: None,
            }),
            (Input::Delete { .. }, None) => Some(self.clone()),
            (Input::Delete { .. }, Some(Output::Delete { deleted, revision })) => match deleted {
                0 => self.value.is_none().then(|| self.clone()),
                1 => (self.value.is_some() && self.before(*revision)).then_some(KeyState {
                    value: None,
                    revision: Some(*revision),
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

/// The checker's answer for a whole history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Linearizable,
    /// No linearization of this key's operations exists.
    Violation(Counterexample),
    /// The search gave up on this key after its step budget (Porcupine's timeout).
    Unknown {
        key: Vec<u8>,
    },
}

/// A key whose sub-history is not linearizable, with its operations and how far the search
/// got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counterexample {
    pub key: Vec<u8>,
    pub operations: Vec<Operation>,
    /// The most operations any partial linearization took in.
    pub longest_prefix: usize,
}

impl fmt::Display for Counterexample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "linearizability: the {} operations on key {:?} have no linearization (at most {} \
             of them linearize):",
            self.operations.len(),
            String::from_utf8_lossy(&self.key),
            self.longest_prefix
        )?;
        for op in &self.operations {
            writeln!(f, "    {}", describe(op))?;
        }
        Ok(())
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Linearizable => f.write_str("linearizable"),
            Verdict::Violation(cx) => write!(f, "{cx}"),
            Verdict::Unknown { key } => write!(
                f,
                "linearizability: unknown, the search on key {:?} ran out of steps",
                String::from_utf8_lossy(key)
            ),
        }
    }
}

/// `[12, 15] c3 put "k1" "c3-4" -> rev 9`: an operation as a report line.
pub fn describe(op: &Operation) -> String {
    let ret = op
        .ret
        .map_or_else(|| "never".to_string(), |r| r.to_string());
    let text = |b: &[u8]| format!("{:?}", String::from_utf8_lossy(b));
    let input = match &op.input {
        Input::Put { key, value } => format!("put {} {}", text(key), text(value)),
        Input::Get { key } => format!("get {}", text(key)),
        Input::Delete { key } => format!("del {}", text(key)),
        Input::Cas {
            key,
            expected,
            value,
        } => format!(
            "txn if mod({}) == {expected} put {}",
            text(key),
            text(value)
        ),
    };
    let output = match &op.output {
        None => "no answer".to_string(),
        Some(Output::Put { revision }) => format!("rev {revision}"),
        Some(Output::Get { found: None }) => "not found".to_string(),
        Some(Output::Get {
            found: Some((v, r)),
        }) => format!("{} (mod rev {r})", text(v)),
        Some(Output::Delete { deleted, revision }) => format!("{deleted} deleted, rev {revision}"),
        Some(Output::Cas {
            succeeded: true,
            revision,
            ..
        }) => format!("succeeded, rev {revision}"),
        Some(Output::Cas { found: None, .. }) => "failed, not found".to_string(),
        Some(Output::Cas {
            found: Some((v, r)),
            ..
        }) => format!("failed, {} (mod rev {r})", text(v)),
    };
    format!("[{}, {ret}] c{} {input} -> {output}", op.call, op.client)
}

/// Search steps per key before the checker gives up ([`Verdict::Unknown`]).
pub const STEP_BUDGET: u64 = 2_000_000;

/// Checks `history`, key by key, each within `budget` search steps.
pub fn check(history: &History, budget: u64) -> Verdict {
    let mut by_key: BTreeMap<&[u8], Vec<&Operation>> = BTreeMap::new();
    for op in history.operations() {
        by_key.entry(op.input.key()).or_default().push(op);
    }
    for (key, ops) in by_key {
        let ops = prepare(ops);
        match search(&ops, budget) {
            Search::Linearizable => {}
            Search::Exhausted => return Verdict::Unknown { key: key.to_vec() },
            Search::Violation { longest_prefix } => {
                return Verdict::Violation(Counterexample {
                    key: key.to_vec(),
                    operations: ops.iter().map(|p| p.op.clone()).collect(),
                    longest_prefix,
                })
            }
        }
    }
    Verdict::Linearizable
}

/// One operation as the search takes it.
struct Pending<'a> {
    op: &'a Operation,
    /// A put without an answer whose value no get returned.
    unseen: bool,
    /// Among the interchangeable operations of its kind (deletes without an answer; unseen
    /// puts), the one called just before it. In any linearization, two of them placed
    /// against their call order can swap places (neither has a return to respect), so the
    /// search takes them in call order only; else it branches on every subset of them.
    earlier: Option<usize>,
    /// An unanswered write's revision, when a read shows it (see [`revision_seen`]).
    revision: Option<i64>,
    /// A swap whose expected revision an answer shows to be one of the key's changes.
    swaps_a_change: bool,
}

/// What an answered operation `o` tells about an unanswered `pending` one called before it
/// returned: whether it shows `pending`'s value (a get of it), and whether it shows the key
/// present (a delete of 1 key, a swap on a revision no answer accounts for) or missing (a get
/// of nothing, a delete of 0 keys, a swap on revision 0). A swap's failure branch reads as a
/// get does. A swap that held on a revision some answer shows to be another change's cannot
/// have followed an unseen put (see [`KeyState::cas`]), so it shows nothing about one.
fn shows(o: &Operation, pending: &Operation, changes: &BTreeSet<i64>) -> (bool, bool) {
    if o.ret <= Some(pending.call) {
        return (false, false);
    }
    let found = match &o.output {
        Some(Output::Get { found }) | Some(Output::Cas { found, .. }) => found.as_ref(),
        _ => None,
    };
    let missing = match (&o.input, &o.output) {
        (_, Some(Output::Get { found: None })) => true,
        (_, Some(Output::Delete { deleted, .. })) => *deleted == 0,
        (Input::Cas { expected, .. }, Some(Output::Cas { succeeded, .. })) => {
            if *succeeded {
                *expected == 0
            } else {
                found.is_none()
            }
        }
        _ => false,
    };
    let present = match (&o.input, &o.output) {
        (_, Some(Output::Delete { deleted, .. })) => *deleted > 0,
        (
            Input::Cas { expected, .. },
            Some(Output::Cas {
                succeeded: true, ..
            }),
        ) => *expected > 0 && !changes.contains(expected),
        _ => false,
    };
    match &pending.input {
        Input::Put { value, .. } | Input::Cas { value, .. } => {
            (found.is_some_and(|(v, _)| v == value), present)
        }
        Input::Delete { .. } => (false, missing),
        Input::Get { .. } => (false, false),
    }
}

/// The revisions the key's answers show to be one of its changes: a write's own revision, a
/// deletion's, the mod revision a read or a failed swap saw.
fn changes(ops: &[&Operation]) -> BTreeSet<i64> {
    let mut revisions = BTreeSet::new();
    for op in ops {
        match &op.output {
            Some(Output::Put { revision })
            | Some(Output::Delete {
                deleted: 1,
                revision,
            })
            | Some(Output::Cas {
                succeeded: true,
                revision,
                ..
            }) => {
                revisions.insert(*revision);
            }
            Some(Output::Get {
                found: Some((_, r)),
            })
            | Some(Output::Cas {
                found: Some((_, r)),
                ..
            }) => {
                revisions.insert(*r);
            }
            _ => {}
        }
    }
    revisions
}

/// The revision an unanswered write `op` took effect at, when an answer shows it: a read saw
/// its value at that revision, and no other write of the key wrote that value.
fn revision_seen(op: &Operation, ops: &[&Operation]) -> Option<i64> {
    let (Input::Put { value, .. } | Input::Cas { value, .. }) = &op.input else {
        return None;
    };
    let writes = ops.iter().filter(|o| match &o.input {
        Input::Put { value: v, .. } | Input::Cas { value: v, .. } => v == value,
        _ => false,
    });
    if writes.count() != 1 {
        return None;
    }
    let mut seen = ops.iter().filter_map(|o| match &o.output {
        Some(Output::Get {
            found: Some((v, r)),
        })
        | Some(Output::Cas {
            found: Some((v, r)),
            ..
        }) if v == value => Some(*r),
        _ => None,
    });
    let first = seen.next()?;
    seen.all(|r| r == first).then_some(first)
}

/// Prepares one key's operations for the search, dropping the unanswered ones no answer
/// could depend on: each of them is optional (it may never have happened), but every one kept
/// makes the search branch. A read that was never answered told nobody anything. A put
/// without an answer matters only to an answer given after its call that sees its value or
/// the key present; a delete without an answer, only to one that sees the key missing.
/// Without such an answer, no other operation can sit between it and the next change in a
/// linearization, so leaving it out changes no verdict.
fn prepare(ops: Vec<&Operation>) -> Vec<Pending<'_>> {
    let answered: Vec<&Operation> = ops.iter().copied().filter(|o| o.ret.is_some()).collect();
    let changes = changes(&answered);
    let mut kept: Vec<Pending> = Vec::new();
    let (mut last_delete, mut last_unseen) = (None, None);
    for &op in &ops {
        let mut pending = Pending {
            op,
            unseen: false,
            earlier: None,
            revision: None,
            swaps_a_change: matches!(op.input, Input::Cas { expected, .. } if changes.contains(&expected)),
        };
        if op.ret.is_some() {
            kept.push(pending);
            continue;
        }
        let (value, matters) = answered
            .iter()
            .map(|o| shows(o, op, &changes))
            .fold((false, false), |(a, b), (c, d)| (a || c, b || d));
        let chain = match op.input {
            Input::Get { .. } => continue,
            _ if !value && !matters => continue,
            Input::Delete { .. } => &mut last_delete,
            Input::Put { .. } | Input::Cas { .. } if !value => &mut last_unseen,
            Input::Put { .. } | Input::Cas { .. } => &mut None,
        };
        pending.earlier = chain.replace(kept.len());
        pending.unseen = matches!(op.input, Input::Put { .. } | Input::Cas { .. }) && !value;
        pending.revision = value.then(|| revision_seen(op, &ops)).flatten();
        kept.push(pending);
    }
    kept
}

enum Search {
    Linearizable,
    Violation { longest_prefix: usize },
    Exhausted,
}

/// No entry: the end of the list.
const NIL: usize = usize::MAX;
/// The list's head sentinel.
const HEAD: usize = 0;

/// The call and return events of one key's operations, in time order, as a doubly linked list
/// that linearized operations are lifted out of (and put back on backtracking).
struct Events {
    /// Per entry (0 is the head): the operation, and whether it is its call.
    op: Vec<usize>,
    is_call: Vec<bool>,
    /// A call's return entry.
    partner: Vec<usize>,
    next: Vec<usize>,
    prev: Vec<usize>,
}

impl Events {
    fn new(ops: &[Pending]) -> Events {
        // Sorted by time; a pending operation returns after everything, in call order.
        let mut order: Vec<(u64, bool, usize)> = Vec::new();
        for (i, op) in ops.iter().map(|p| p.op).enumerate() {
            order.push((op.call, true, i));
            order.push((op.ret.unwrap_or(u64::MAX), false, i));
        }
        order.sort_by_key(|&(t, call, i)| (t, !call, i));
        let n = order.len() + 1;
        let mut e = Events {
            op: vec![0; n],
            is_call: vec![false; n],
            partner: vec![NIL; n],
            next: (1..=n).map(|i| if i == n { NIL } else { i }).collect(),
            prev: (0..n).map(|i| i.wrapping_sub(1)).collect(),
        };
        let mut call_of = vec![NIL; ops.len()];
        for (slot, &(_, call, i)) in order.iter().enumerate() {
            let entry = slot + 1;
            e.op[entry] = i;
            e.is_call[entry] = call;
            if call {
                call_of[i] = entry;
            } else {
                e.partner[call_of[i]] = entry;
            }
        }
        e
    }

    fn unlink(&mut self, e: usize) {
        let (p, n) = (self.prev[e], self.next[e]);
        self.next[p] = n;
        if n != NIL {
            self.prev[n] = p;
        }
    }

    fn relink(&mut self, e: usize) {
        let (p, n) = (self.prev[e], self.next[e]);
        self.next[p] = e;
        if n != NIL {
            self.prev[n] = e;
        }
    }

    /// Takes call `e` and its return out of the list.
    fn lift(&mut self, e: usize) {
        self.unlink(e);
        self.unlink(self.partner[e]);
    }

    /// Puts them back, in the reverse order.
    fn unlift(&mut self, e: usize) {
        self.relink(self.partner[e]);
        self.relink(e);
    }
}

/// Whether one key's operations linearize (Lowe's algorithm, with Porcupine's cache).
fn search(ops: &[Pending], budget: u64) -> Search {
    let mut events = Events::new(ops);
    let words = ops.len().div_ceil(64);
    let mut linearized = vec![0u64; words];
    let mut state = KeyState::initial();
    let mut seen: BTreeSet<(Vec<u64>, KeyState)> = BTreeSet::new();
    let mut stack: Vec<(usize, KeyState)> = Vec::new();
    let mut longest = 0;
    let mut entry = events.next[HEAD];
    let mut steps = 0;
    while events.next[HEAD] != NIL {
        steps += 1;
        if steps > budget {
            return Search::Exhausted;
        }
        if events.is_call[entry] {
            let i = events.op[entry];
            let bit = |j: usize| linearized[j / 64] & (1 << (j % 64)) != 0;
            let in_turn = ops[i].earlier.is_none_or(bit);
            let after = in_turn.then(|| state.step(&ops[i])).flatten();
            if let Some(after) = after {
                let mut with = linearized.clone();
                with[i / 64] |= 1 << (i % 64);
                if seen.insert((with.clone(), after.clone())) {
                    stack.push((entry, std::mem::replace(&mut state, after)));
                    linearized = with;
                    longest = longest.max(stack.len());
                    events.lift(entry);
                    entry = events.next[HEAD];
                    continue;
                }
            }
            entry = events.next[entry];
        } else {
            // A return whose operation is not linearized yet: undo the latest choice.
            let Some((call, before)) = stack.pop() else {
                return Search::Violation {
                    longest_prefix: longest,
                };
            };
            let i = events.op[call];
            linearized[i / 64] &= !(1 << (i % 64));
            state = before;
            events.unlift(call);
            entry = events.next[call];
        }
    }
    Search::Linearizable
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(k: &str, v: &str) -> Input {
        Input::Put {
            key: k.into(),
            value: v.into(),
        }
    }
    fn get(k: &str) -> Input {
        Input::Get { key: k.into() }
    }
    fn del(k: &str) -> Input {
        Input::Delete { key: k.into() }
    }
    fn put_ok(revision: i64) -> Output {
        Output::Put { revision }
    }
    fn found(v: &str, r: i64) -> Output {
        Output::Get {
            found: Some((v.into(), r)),
        }
    }
    fn missing() -> Output {
        Output::Get { found: None }
    }

    /// Builds a history from (client, input, call, return, output) rows with explicit times:
    /// the events are replayed in time order.
    /// (client, input, call, return, output).
    type Row = (usize, Input, u64, Option<u64>, Option<Output>);

    fn history(rows: &[Row]) -> History {
        let mut events: Vec<(u64, usize, bool)> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            events.push((row.2, i, true));
            if let Some(r) = row.3 {
                events.push((r, i, false));
            }
        }
        events.sort();
        let mut h = History::default();
        let mut handle = vec![0; rows.len()];
        for (_, i, call) in events {
            let (client, input, _, _, output) = &rows[i];
            if call {
                handle[i] = h.call(*client, input.clone());
            } else if let Some(out) = output {
                h.answered(handle[i], out.clone());
            }
        }
        h
    }

    fn verdict(rows: &[Row]) -> Verdict {
        check(&history(rows), STEP_BUDGET)
    }

    #[test]
    fn sequential_put_then_get_is_linearizable() {
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (2, get("x"), 3, Some(4), Some(found("1", 2))),
        ]);
        assert_eq!(v, Verdict::Linearizable);
    }

    /// The classic stale read: a get that starts after a put completed returns the value from
    /// before it.
    #[test]
    fn a_stale_read_after_a_completed_write_is_not_linearizable() {
        let rows = [
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (1, put("x", "2"), 3, Some(4), Some(put_ok(3))),
            (2, get("x"), 5, Some(6), Some(found("1", 2))),
        ];
        let Verdict::Violation(cx) = verdict(&rows) else {
            panic!("stale read accepted");
        };
        assert_eq!(cx.key, b"x");
        assert_eq!(cx.operations.len(), 3);
        assert_eq!(cx.longest_prefix, 2);
        let text = cx.to_string();
        assert!(text.contains("c2 get \"x\" -> \"1\" (mod rev 2)"), "{text}");
    }

    #[test]
    fn a_read_concurrent_with_a_write_may_see_either_value() {
        for seen in [found("1", 2), found("2", 3)] {
            let v = verdict(&[
                (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
                (1, put("x", "2"), 3, Some(6), Some(put_ok(3))),
                (2, get("x"), 4, Some(5), Some(seen)),
            ]);
            assert_eq!(v, Verdict::Linearizable);
        }
    }

    /// Two reads concurrent with one write may not see it "new then old".
    #[test]
    fn reads_may_not_go_back_in_time() {
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (1, put("x", "2"), 3, Some(10), Some(put_ok(3))),
            (2, get("x"), 4, Some(5), Some(found("2", 3))),
            (3, get("x"), 6, Some(7), Some(found("1", 2))),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
    }

    /// A write whose answer never came may take effect at any point after its call, or never.
    #[test]
    fn a_write_without_an_answer_may_or_may_not_have_happened() {
        let lost = (1, put("x", "2"), 3, None, None);
        let early = (1, put("x", "1"), 1, Some(2), Some(put_ok(2)));
        for later in [found("1", 2), found("2", 3)] {
            let v = verdict(&[
                early.clone(),
                lost.clone(),
                (2, get("x"), 20, Some(21), Some(later)),
            ]);
            assert_eq!(v, Verdict::Linearizable);
        }
        // But not before its call.
        let v = verdict(&[
            (2, get("x"), 1, Some(2), Some(found("2", 3))),
            (1, put("x", "2"), 3, None, None),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
        // And once seen, it stays.
        let v = verdict(&[
            early,
            lost,
            (2, get("x"), 20, Some(21), Some(found("2", 3))),
            (2, get("x"), 22, Some(23), Some(found("1", 2))),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
    }

    #[test]
    fn an_acknowledged_write_may_not_be_lost() {
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (2, get("x"), 3, Some(4), Some(missing())),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
    }

    #[test]
    fn deletes_remove_and_count() {
        let deleted = |d, r| Output::Delete {
            deleted: d,
            revision: r,
        };
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (1, del("x"), 3, Some(4), Some(deleted(1, 3))),
            (2, get("x"), 5, Some(6), Some(missing())),
            (2, del("x"), 7, Some(8), Some(deleted(0, 3))),
        ]);
        assert_eq!(v, Verdict::Linearizable);
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(2))),
            (1, del("x"), 3, Some(4), Some(deleted(0, 2))),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
    }

    /// Revisions grow along a key's linearization: two puts answered in one order with their
    /// revisions in the other cannot both be right when they do not overlap.
    #[test]
    fn revisions_must_grow_with_real_time() {
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(2), Some(put_ok(5))),
            (2, put("x", "2"), 3, Some(4), Some(put_ok(4))),
        ]);
        assert!(matches!(v, Verdict::Violation(_)), "{v:?}");
        let v = verdict(&[
            (1, put("x", "1"), 1, Some(4), Some(put_ok(5))),
            (2, put("x", "2"), 2, Some(3), Some(put_ok(4))),
        ]);
        assert_eq!(v, Verdict::Linearizable);
    }

    /// Keys are independent: a violation on one is found among many linearizable others.
    #[test]
    fn histories_are_checked_key_by_key() {
        let mut rows = Vec::new();
        for k in 0..20u64 {
            let key = format!("k{k}");
            let t = k * 10;
            rows.push((
                1,
                put(&key, "a"),
                t + 1,
                Some(t + 2),
                Some(put_ok(2 + k as i64)),
            ));
        }
        rows.push((2, get("k7"), 500, Some(501), Some(found("b", 9))));
        let Verdict::Violation(cx) = verdict(&rows) else {
            panic!("violation on k7 missed");
        };
        assert_eq!(cx.key, b"k7");
    }

    #[test]
    fn failed_operations_and_unanswered_reads_leave_the_history() {
        let mut h = History::default();
        let p = h.call(1, put("x", "1"));
        h.failed(p);
        let g = h.call(2, get("x"));
        let g2 = h.call(3, get("x"));
        h.answered(g2, missing());
        assert_eq!(h.counts(), (1, 1));
        let _ = g;
        assert_eq!(check(&h, STEP_BUDGET), Verdict::Linearizable);
    }

    /// Unanswered writes nobody saw leave the search; those seen make it branch, and a
    /// budget too small gives up honestly.
    #[test]
    fn the_search_is_bounded() {
        let mut rows = Vec::new();
        for c in 0..40u64 {
            rows.push((c as usize, put("x", &format!("v{c}")), c + 1, None, None));
        }
        rows.push((99, get("x"), 100, Some(101), Some(found("v7", 50))));
        assert_eq!(verdict(&rows), Verdict::Linearizable);
        // Every value seen, newest first: the search must find the one order that fits.
        for c in 0..8u64 {
            let t = 200 + 2 * c;
            let v = format!("v{}", 39 - c);
            rows.push((99, get("x"), t, Some(t + 1), Some(found(&v, 60 + c as i64))));
        }
        assert_eq!(verdict(&rows), Verdict::Linearizable);
        let v = check(&history(&rows), 10);
        assert_eq!(v, Verdict::Unknown { key: b"x".to_vec() });
        rows.push((99, get("x"), 300, Some(301), Some(found("v39", 61))));
        assert!(matches!(verdict(&rows), Verdict::Violation(_)));
    }

    /// Deletes without an answer are taken in call order: 30 of them, each needed to explain
    /// one "not found", decide a violation in few steps rather than 2^30.
    #[test]
    fn unanswered_deletes_do_not_branch_on_every_subset() {
        let mut rows = Vec::new();
        for c in 0..30u64 {
            rows.push((c as usize, del("x"), c + 1, None, None));
        }
        for r in 0..30u64 {
            let t = 100 + 4 * r;
            let value = format!("v{r}");
            rows.push((
                50,
                put("x", &value),
                t,
                Some(t + 1),
                Some(put_ok(2 + 2 * r as i64)),
            ));
            rows.push((51, get("x"), t + 2, Some(t + 3), Some(missing())));
        }
        assert_eq!(check(&history(&rows), 100_000), Verdict::Linearizable);
        rows.push((52, get("x"), 1_000, Some(1_001), Some(found("v3", 8))));
        assert!(matches!(
            check(&history(&rows), 100_000),
            Verdict::Violation(_)
        ));
    }

    /// Puts without an answer whose values nobody read are as good as one another: 30 of
    /// them explaining 30 deletes of one key decide quickly either way.
    #[test]
    fn unseen_unanswered_puts_do_not_branch_on_every_subset() {
        let deleted = |r| Output::Delete {
            deleted: 1,
            revision: r,
        };
        let mut rows = Vec::new();
        for c in 0..30u64 {
            rows.push((c as usize, put("x", &format!("v{c}")), c + 1, None, None));
        }
        for r in 0..30u64 {
            let t = 100 + 2 * r;
            rows.push((50, del("x"), t, Some(t + 1), Some(deleted(100 + r as i64))));
        }
        assert_eq!(check(&history(&rows), 100_000), Verdict::Linearizable);
        rows.push((51, del("x"), 1_000, Some(1_001), Some(deleted(200))));
        assert!(matches!(
            check(&history(&rows), 100_000),
            Verdict::Violation(_)
        ));
    }

    #[test]
    fn requests_and_responses_map_to_the_model() {
        use crate::etcd::{DeleteRangeRequest, PutRequest, RangeRequest};
        assert_eq!(
            Input::of(&Request::Put(PutRequest::new("k", "v"))),
            Some(put("k", "v"))
        );
        assert_eq!(
            Input::of(&Request::Range(RangeRequest::key("k"))),
            Some(get("k"))
        );
        assert_eq!(
            Input::of(&Request::DeleteRange(DeleteRangeRequest::key("k"))),
            Some(del("k"))
        );
        assert_eq!(Input::of(&Request::Range(RangeRequest::prefix("k"))), None);
    }

    fn cas(k: &str, expected: i64, v: &str) -> Input {
        Input::Cas {
            key: k.into(),
            expected,
            value: v.into(),
        }
    }
    fn swapped(revision: i64) -> Output {
        Output::Cas {
            succeeded: true,
            revision,
            found: None,
        }
    }
    fn not_swapped(found: Option<(&str, i64)>) -> Output {
        Output::Cas {
            succeeded: false,
            revision: 9,
            found: found.map(|(v, r)| (v.into(), r)),
        }
    }

    /// Compare-and-swap txns (the API server's writes): one that saw the revision it compared
    /// with swaps, a stale one fails and reads what is there; and the classic lost update,
    /// two swaps from one revision both succeeding, is caught, as is a swap refused although
    /// its compare held.
    #[test]
    fn compare_and_swap_txns_linearize_and_lost_updates_are_caught() {
        let base = |rows: &[Row]| {
            let mut all = vec![(1, put("x", "1"), 1, Some(2), Some(put_ok(2)))];
            all.extend_from_slice(rows);
            verdict(&all)
        };
        assert_eq!(
            base(&[
                (1, cas("x", 2, "a"), 3, Some(4), Some(swapped(3))),
                (
                    2,
                    cas("x", 2, "b"),
                    5,
                    Some(6),
                    Some(not_swapped(Some(("a", 3))))
                ),
                (2, get("x"), 7, Some(8), Some(found("a", 3))),
                (3, cas("y", 0, "new"), 9, Some(10), Some(swapped(4))),
            ]),
            Verdict::Linearizable
        );
        let lost = base(&[
            (1, cas("x", 2, "a"), 3, Some(4), Some(swapped(3))),
            (2, cas("x", 2, "b"), 5, Some(6), Some(swapped(4))),
        ]);
        assert!(matches!(lost, Verdict::Violation(_)), "{lost:?}");
        let refused = base(&[(
            1,
            cas("x", 2, "a"),
            3,
            Some(4),
            Some(not_swapped(Some(("1", 2)))),
        )]);
        assert!(matches!(refused, Verdict::Violation(_)), "{refused:?}");
        // A swap without an answer may have happened: a later get of its value is fine.
        assert_eq!(
            base(&[
                (1, cas("x", 2, "a"), 3, None, None),
                (2, get("x"), 5, Some(6), Some(found("a", 3))),
            ]),
            Verdict::Linearizable
        );
        // The request it stands for reads back as the same input.
        let input = cas("x", 2, "a");
        assert_eq!(Input::of(&input.request()), Some(input));
    }

    /// A write without an answer took effect at the revision a read saw its value at: here
    /// before a write answered with a greater revision, so a read after that one must not
    /// see it.
    #[test]
    fn an_unanswered_write_has_the_revision_a_read_saw_it_at() {
        let rows = [
            (1, put("x", "a"), 1, None, None),
            (2, put("x", "b"), 2, Some(3), Some(put_ok(6))),
            (3, get("x"), 4, Some(5), Some(found("a", 5))),
        ];
        assert!(matches!(verdict(&rows), Verdict::Violation(_)));
        let mut fine = rows.clone();
        fine[2].4 = Some(found("a", 7));
        assert_eq!(verdict(&fine), Verdict::Linearizable);
    }

    /// A swap that held on the revision of a put overwritten since (here by a delete) is a
    /// lost update, and a put without an answer whose value nobody saw cannot explain it: the
    /// put's revision would be its own, not the overwritten one's.
    #[test]
    fn an_unseen_put_does_not_explain_a_swap_on_another_writes_revision() {
        let deleted = Output::Delete {
            deleted: 1,
            revision: 3,
        };
        let rows = [
            (1, put("x", "a"), 1, Some(2), Some(put_ok(2))),
            (2, del("x"), 3, Some(4), Some(deleted)),
            (3, put("x", "b"), 5, None, None),
            (4, cas("x", 2, "c"), 6, Some(7), Some(swapped(7))),
        ];
        assert!(matches!(verdict(&rows), Verdict::Violation(_)));
        // On revision 0 (the key absent) it may swap, the put never applied or applied after.
        let mut fine = rows.clone();
        fine[3].1 = cas("x", 0, "c");
        assert_eq!(verdict(&fine), Verdict::Linearizable);
    }

    /// The shape of the histories that used to run out of steps (a class of faults leaves
    /// dozens of writes without an answer): a swap's answer tells only what a get or a
    /// delete's would, so the unanswered writes it cannot depend on leave the search.
    #[test]
    fn a_swap_answered_after_many_unanswered_writes_is_decided_quickly() {
        let mut rows = vec![(0, put("x", "a"), 1, Some(2), Some(put_ok(2)))];
        for c in 1..=30u64 {
            rows.push((c as usize, put("x", &format!("v{c}")), 2 + c, None, None));
            rows.push((c as usize + 30, del("x"), 2 + c, None, None));
        }
        rows.push((70, get("x"), 60, Some(61), Some(found("a", 2))));
        rows.push((71, cas("x", 2, "c"), 62, Some(63), Some(swapped(90))));
        rows.push((72, cas("x", 90, "d"), 64, Some(65), Some(not_swapped(None))));
        rows.push((73, get("x"), 66, Some(67), Some(missing())));
        assert_eq!(check(&history(&rows), 10_000), Verdict::Linearizable);
    }
}
