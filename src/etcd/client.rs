//! The etcd client API, as `clientv3` sees a cluster: each call goes to one member (the
//! endpoint) and advances virtual time until the answer arrives or the command timeout
//! passes, as a real client waits. Writes go through Raft and are answered by the member that
//! proposed them once it applies them; linearizable reads wait for a ReadIndex; serializable
//! reads are served from the member's own store at once.

use super::cluster::{Cluster, REQUEST_TIMEOUT_MS};
use super::member::{Member, Proposal, SERVER_VERSION};
use super::{etcd_id, peer_url};
use crate::base::{Index, MemberId, Millis, Term};
use crate::mvcc::{self, AlarmAction, AlarmRequest, AlarmType, LeaseTimeToLive, MvccError};
/// The client's request and response types. As clientv3 re-exports etcdserverpb's messages,
/// the client API speaks the store's own, so a client (the kube-apiserver) imports them from
/// here and never reaches into `mvcc`.
pub use crate::mvcc::{
    prefix_bounds, prefix_range_end, AlarmMember, Compare, CompareResult, CompareTarget,
    DeleteRangeRequest, DeleteRangeResponse, Event, EventType, KeyValue, LeaseId, PutRequest,
    PutResponse, RangeRequest, RangeResponse, Request, RequestOp, Response, ResponseOp, SortOrder,
    SortTarget, TxnRequest, TxnResponse, WatchId, WatchRequest, WatchResponse,
};
use crate::sim::SimError;
use std::fmt;

/// Wall-clock milliseconds at virtual time 0 (2026-01-01T00:00:00Z), for lease ids and dates.
pub const EPOCH_UNIX_MS: u64 = 1_767_225_600_000;

/// The response header every etcd answer carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub cluster_id: u64,
    pub member_id: u64,
    pub revision: i64,
    pub raft_term: Term,
}

/// A Raft entry: (index, term).
pub type EntryId = (Index, Term);

/// A key-value request sent with [`Cluster::send_kv`] and not answered yet.
#[derive(Clone, Debug, PartialEq)]
pub struct InFlightKv {
    /// The member the client talks to.
    pub endpoint: MemberId,
    /// What was asked (a read is served from it once its index is applied).
    pub request: Request,
    waiting: Waiting,
}

/// What the answer to an [`InFlightKv`] waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    /// Nothing: a serializable read is served from the member's store as it is.
    Serializable,
    /// The ReadIndex of this read context, applied on the member.
    ReadIndex(u64),
    /// The member's apply of the proposal with this request id.
    Apply(u64),
}

impl InFlightKv {
    fn new(endpoint: MemberId, request: Request, waiting: Waiting) -> InFlightKv {
        InFlightKv {
            endpoint,
            request,
            waiting,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply<T> {
    pub header: Header,
    pub body: T,
}

/// Why a request failed, as the client sees it. `Display` is what etcdctl prints after
/// `Error: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientError {
    /// No answer before the command timeout (a dead member, no leader, no quorum).
    DeadlineExceeded,
    /// The server refused or failed the request.
    Server(MvccError),
    /// etcdserver: no leader (streams that require a leader, member status).
    NoLeader,
    /// etcdserver: bad leader transferee.
    BadLeaderTransferee,
    /// A member id that the cluster does not know (member remove/promote).
    MemberNotFound,
    /// etcdserver: can only promote a learner member which is in sync with leader.
    LearnerNotReady,
    /// etcdserver: member not a learner.
    NotALearner,
    /// etcdserver: Peer URLs already exists.
    PeerUrlExists,
    /// etcdserver: unhealthy cluster / other refusals of the simulator.
    Refused(String),
    /// A request over gRPC's send limit: refused by the client before it is sent.
    MessageTooLarge { bytes: usize },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::DeadlineExceeded => f.write_str("context deadline exceeded"),
            ClientError::Server(e) => write!(f, "{e}"),
            ClientError::NoLeader => f.write_str("etcdserver: no leader"),
            ClientError::BadLeaderTransferee => f.write_str("etcdserver: bad leader transferee"),
            ClientError::MemberNotFound => f.write_str("etcdserver: member not found"),
            ClientError::LearnerNotReady => f.write_str(
                "etcdserver: can only promote a learner member which is in sync with leader",
            ),
            ClientError::NotALearner => {
                f.write_str("etcdserver: can only promote a learner member")
            }
            ClientError::PeerUrlExists => f.write_str("etcdserver: Peer URLs already exists"),
            ClientError::Refused(why) => f.write_str(why),
            // Not one of etcd's errors: clientv3 gives gRPC's status as it is.
            ClientError::MessageTooLarge { .. } => write!(
                f,
                "rpc error: code = {} desc = {}",
                self.grpc_code(),
                self.desc()
            ),
        }
    }
}

impl ClientError {
    /// The gRPC status code name, for the client's zap warning line.
    pub fn grpc_code(&self) -> &'static str {
        match self {
            ClientError::DeadlineExceeded => "DeadlineExceeded",
            ClientError::Server(e) => match e {
                MvccError::Compacted | MvccError::FutureRevision => "OutOfRange",
                MvccError::NoSpace => "ResourceExhausted",
                MvccError::KeyNotFound | MvccError::LeaseNotFound => "NotFound",
                MvccError::LeaseExists => "FailedPrecondition",
                _ => "InvalidArgument",
            },
            ClientError::NoLeader => "Unavailable",
            ClientError::BadLeaderTransferee => "FailedPrecondition",
            ClientError::MemberNotFound => "NotFound",
            ClientError::LearnerNotReady | ClientError::NotALearner => "FailedPrecondition",
            ClientError::PeerUrlExists => "FailedPrecondition",
            ClientError::Refused(_) => "Unknown",
            ClientError::MessageTooLarge { .. } => "ResourceExhausted",
        }
    }

    /// The gRPC status message (what the client's warning line quotes after `desc =`).
    pub fn desc(&self) -> String {
        match self {
            ClientError::MessageTooLarge { bytes } => format!(
                "trying to send message larger than max ({bytes} vs. {})",
                mvcc::MAX_CALL_SEND_BYTES
            ),
            other => other.to_string(),
        }
    }
}

/// One member as `member list` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberEntry {
    pub id: u64,
    pub name: String,
    pub peer_urls: Vec<String>,
    pub client_urls: Vec<String>,
    pub is_learner: bool,
}

impl MemberEntry {
    /// etcd prints "unstarted" for a member that has not published its attributes yet.
    pub fn started(&self) -> bool {
        !self.name.is_empty()
    }
}

/// `endpoint status`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndpointStatus {
    pub header: Header,
    pub version: &'static str,
    pub db_size: u64,
    pub db_size_in_use: u64,
    /// The leader's etcd id (0 when there is none).
    pub leader: u64,
    pub raft_index: Index,
    pub raft_term: Term,
    pub raft_applied_index: Index,
    pub is_learner: bool,
    pub errors: Vec<String>,
}

impl Cluster {
    /// A member's etcd id (its identity's).
    pub fn etcd_id_of(&self, id: MemberId) -> u64 {
        self.process(id)
            .map_or_else(|| etcd_id(id), |m| m.identity.etcd_id)
    }

    pub fn member_by_etcd_id(&self, etcd_member: u64) -> Option<MemberId> {
        self.member_ids()
            .into_iter()
            .find(|m| self.etcd_id_of(*m) == etcd_member)
    }

    /// Every member's client endpoint, in member order: the list a client of the whole
    /// cluster is given (kube-apiserver's `--etcd-servers`, the console's etcdctl without
    /// `--endpoints`).
    pub fn client_endpoints(&self) -> Vec<MemberId> {
        self.member_ids()
    }

    /// Whether a new connection to the member succeeds: a stopped member's port is closed and
    /// a paused one never finishes the HTTP/2 handshake, so clientv3's balancer (which picks
    /// only READY SubConns) passes over both.
    pub fn accepts_connections(&self, ep: MemberId) -> bool {
        self.is_running(ep) && !self.is_paused(ep)
    }

    /// The first of `endpoints` a new client reaches (none when every one is down). A request
    /// then goes there even if that member is cut off from the others: the connection is
    /// fine, only the answer never comes, and clientv3 retries no deadline.
    pub fn first_reachable(&self, endpoints: &[MemberId]) -> Option<MemberId> {
        endpoints
            .iter()
            .copied()
            .find(|m| self.accepts_connections(*m))
    }

    /// Resolves an endpoint, failing as a dead address does (after the timeout).
    fn reachable(&mut self, ep: MemberId, timeout_ms: Millis) -> Result<(), ClientError> {
        if !self.accepts_connections(ep) {
            self.run_for(timeout_ms);
            return Err(ClientError::DeadlineExceeded);
        }
        Ok(())
    }

    /// The header a member puts on its answers.
    pub fn header(&self, ep: MemberId, revision: i64) -> Header {
        let raft_term = self.node(ep).map_or(0, |n| n.term());
        let (cluster_id, member_id) = self
            .process(ep)
            .map_or((0, 0), |m| (m.identity.cluster_id, m.identity.etcd_id));
        Header {
            cluster_id,
            member_id,
            revision,
            raft_term,
        }
    }

    fn member_mut<R>(
        &mut self,
        ep: MemberId,
        f: impl FnOnce(&mut Member, &mut crate::sim::Ctx<crate::raft::Message>) -> R,
    ) -> Option<R> {
        self.with_process(ep, f)
    }

    /// Sends a key-value request (get, put, del, txn, compaction, lease grant/revoke, alarm)
    /// to `ep`. Reads are linearizable unless `serializable`.
    pub fn kv(
        &mut self,
        ep: MemberId,
        req: Request,
        serializable: bool,
        timeout_ms: Millis,
    ) -> Result<Reply<Response>, ClientError> {
        self.kv_entry(ep, req, serializable, timeout_ms)
            .map(|(reply, _)| reply)
    }

    /// [`Cluster::kv`], also telling which Raft entry (index, term) carried a write.
    pub fn kv_entry(
        &mut self,
        ep: MemberId,
        req: Request,
        serializable: bool,
        timeout_ms: Millis,
    ) -> Result<(Reply<Response>, Option<EntryId>), ClientError> {
        let bytes = mvcc::grpc_request_bytes(&req);
        if bytes > mvcc::MAX_CALL_SEND_BYTES {
            return Err(ClientError::MessageTooLarge { bytes });
        }
        mvcc::validate(&req).map_err(ClientError::Server)?;
        self.reachable(ep, timeout_ms)?;
        let sent = self.send_kv(ep, req, serializable)?;
        self.run_until_cond(timeout_ms, |c| c.kv_answered(&sent));
        self.finish_kv(sent)
    }

    /// Sends a key-value request without waiting for its answer, as an asynchronous client
    /// does (several of them in flight at once: the random simulation's concurrent clients).
    /// Poll [`Cluster::kv_answered`] as the world runs, then [`Cluster::finish_kv`] takes the
    /// answer, or gives up on the request (the client's deadline passed) if none came. An
    /// endpoint that takes no connection fails at once, having changed nothing.
    pub fn send_kv(
        &mut self,
        ep: MemberId,
        req: Request,
        serializable: bool,
    ) -> Result<InFlightKv, ClientError> {
        mvcc::validate(&req).map_err(ClientError::Server)?;
        if !self.accepts_connections(ep) {
            return Err(ClientError::DeadlineExceeded);
        }
        let read_only = match &req {
            Request::Range(_) => true,
            Request::Txn(t) => mvcc::txn_is_read_only(t),
            _ => false,
        };
        if read_only && serializable {
            return Ok(InFlightKv::new(ep, req, Waiting::Serializable));
        }
        if read_only {
            let ctx_id = self.member_mut(ep, |m, ctx| {
                let id = m.next_request_id();
                m.begin_read(id, ctx);
                id
            });
            let ctx_id = ctx_id.ok_or(ClientError::DeadlineExceeded)?;
            return Ok(InFlightKv::new(ep, req, Waiting::ReadIndex(ctx_id)));
        }
        if let Some(Err(e)) = self.process(ep).map(|m| m.store.check_quota(&req)) {
            self.raise_nospace(ep);
            return Err(ClientError::Server(e));
        }
        if mvcc::raft_request_bytes(&req) > mvcc::MAX_REQUEST_BYTES {
            return Err(ClientError::Server(MvccError::RequestTooLarge));
        }
        let id = self.member_mut(ep, |m, ctx| {
            let id = m.next_request_id();
            m.submit(
                &Proposal::Kv {
                    id,
                    request: req.clone(),
                },
                ctx,
            );
            id
        });
        let id = id.ok_or(ClientError::DeadlineExceeded)?;
        Ok(InFlightKv::new(ep, req, Waiting::Apply(id)))
    }

    /// etcd's `quotaAlarmer`: a request the quota refuses before it is proposed raises the
    /// NOSPACE alarm for the member it reached (through Raft), unless that member raised it.
    fn raise_nospace(&mut self, ep: MemberId) {
        let Some(m) = self.process(ep) else {
            return;
        };
        let me = m.identity.etcd_id;
        let alarms = m.store.alarms();
        if alarms
            .iter()
            .any(|a| a.member_id == me && a.alarm == AlarmType::Nospace)
        {
            return;
        }
        let request = Request::Alarm(AlarmRequest {
            action: AlarmAction::Activate,
            member_id: me,
            alarm: AlarmType::Nospace,
        });
        // Id 0: nobody waits for its answer (etcd's alarmer does, this client need not).
        self.member_mut(ep, |m, ctx| m.submit(&Proposal::Kv { id: 0, request }, ctx));
    }

    /// Whether the answer to `sent` is there (a write applied by its member, a linearizable
    /// read's index applied, a serializable read at once).
    pub fn kv_answered(&self, sent: &InFlightKv) -> bool {
        let Some(m) = self.process(sent.endpoint) else {
            return false;
        };
        match sent.waiting {
            Waiting::Serializable => true,
            Waiting::ReadIndex(ctx_id) => m.read_ready(ctx_id),
            Waiting::Apply(id) => self.has_response(sent.endpoint, id),
        }
    }

    /// The answer to `sent`, or `DeadlineExceeded` (and the request withdrawn where it still
    /// can be) when it has not come: the client's context ends here.
    pub fn finish_kv(
        &mut self,
        sent: InFlightKv,
    ) -> Result<(Reply<Response>, Option<EntryId>), ClientError> {
        let ep = sent.endpoint;
        let answered = self.kv_answered(&sent);
        match sent.waiting {
            Waiting::Serializable | Waiting::ReadIndex(_) => {
                if let Waiting::ReadIndex(ctx_id) = sent.waiting {
                    self.member_mut(ep, |m, _| m.end_read(ctx_id));
                }
                if !answered {
                    return Err(ClientError::DeadlineExceeded);
                }
                let now = self.now();
                let result = self
                    .process(ep)
                    .map(|m| local_read(&m.store, &sent.request, now))
                    .ok_or(ClientError::DeadlineExceeded)?;
                let response = result.map_err(ClientError::Server)?;
                let reply = Reply {
                    header: self.header(ep, response.revision()),
                    body: response,
                };
                Ok((reply, None))
            }
            Waiting::Apply(id) => self.finish_write(ep, id),
        }
    }

    fn has_response(&self, ep: MemberId, id: u64) -> bool {
        self.process(ep).is_some_and(|m| m.has_response(id))
    }

    fn finish_write(
        &mut self,
        ep: MemberId,
        id: u64,
    ) -> Result<(Reply<Response>, Option<EntryId>), ClientError> {
        let answer = self.member_mut(ep, |m, _| m.take_response(id)).flatten();
        if answer.is_none() {
            self.member_mut(ep, |m, _| m.cancel(id));
        }
        match answer {
            Some((Ok(response), index, term)) => Ok((
                Reply {
                    header: self.header(ep, response.revision()),
                    body: response,
                },
                Some((index, term)),
            )),
            Some((Err(e), _, _)) => Err(ClientError::Server(e)),
            None => Err(ClientError::DeadlineExceeded),
        }
    }

    // ----- leases -------------------------------------------------------------------------

    /// Grants a lease; the id is chosen as etcd's server does (member id bits + time).
    pub fn lease_grant(
        &mut self,
        ep: MemberId,
        ttl_s: i64,
        timeout_ms: Millis,
    ) -> Result<Reply<Response>, ClientError> {
        let id = self.member_mut(ep, |m, ctx| {
            let counter = m.next_request_id() & 0xff;
            let unix_ms = EPOCH_UNIX_MS + ctx.now;
            ((m.identity.etcd_id & 0xffff) << 48) | (((unix_ms << 8) + counter) & 0xffff_ffff_ffff)
        });
        let id = id.unwrap_or(0) as i64;
        self.kv(
            ep,
            Request::LeaseGrant(mvcc::LeaseGrantRequest { id, ttl_s }),
            false,
            timeout_ms,
        )
    }

    pub fn lease_revoke(
        &mut self,
        ep: MemberId,
        id: LeaseId,
        timeout_ms: Millis,
    ) -> Result<Reply<Response>, ClientError> {
        self.kv(
            ep,
            Request::LeaseRevoke(mvcc::LeaseRevokeRequest { id }),
            false,
            timeout_ms,
        )
    }

    /// One keep-alive: the leader renews the lease (outside Raft); returns the new TTL.
    pub fn lease_keep_alive_once(
        &mut self,
        ep: MemberId,
        id: LeaseId,
        timeout_ms: Millis,
    ) -> Result<Reply<i64>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let leader = self.leader_for(ep, timeout_ms)?;
        let now = self.now();
        let ttl = self
            .member_mut(leader, |m, _| m.store.lease_renew(id, now))
            .ok_or(ClientError::DeadlineExceeded)?;
        let ttl = ttl.map_err(ClientError::Server)?;
        Ok(Reply {
            header: self.header(ep, self.revision_of(ep)),
            body: ttl,
        })
    }

    pub fn lease_time_to_live(
        &mut self,
        ep: MemberId,
        id: LeaseId,
        keys: bool,
        timeout_ms: Millis,
    ) -> Result<Reply<LeaseTimeToLive>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let leader = self.leader_for(ep, timeout_ms)?;
        let now = self.now();
        let ttl = self
            .process(leader)
            .map(|m| m.store.lease_time_to_live(id, keys, now))
            .ok_or(ClientError::DeadlineExceeded)?;
        Ok(Reply {
            header: self.header(ep, self.revision_of(ep)),
            body: ttl,
        })
    }

    pub fn lease_list(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Reply<Vec<LeaseId>>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let leader = self.leader_for(ep, timeout_ms)?;
        let leases = self
            .process(leader)
            .map(|m| m.store.leases())
            .unwrap_or_default();
        Ok(Reply {
            header: self.header(ep, self.revision_of(ep)),
            body: leases,
        })
    }

    /// The leader as `ep` knows it, waiting (up to the timeout) for one to be known.
    fn leader_for(&mut self, ep: MemberId, timeout_ms: Millis) -> Result<MemberId, ClientError> {
        let known = |c: &Cluster| {
            c.node(ep)
                .and_then(|n| n.leader())
                .filter(|l| c.is_running(*l))
        };
        if known(self).is_none() {
            self.run_until_cond(timeout_ms, |c| known(c).is_some());
        }
        known(self).ok_or(ClientError::DeadlineExceeded)
    }

    /// A member's store revision (0 if it is not running): what a page shows of its store
    /// without listing it.
    pub fn revision_of(&self, ep: MemberId) -> i64 {
        self.process(ep).map_or(0, |m| m.store.revision())
    }

    // ----- watch --------------------------------------------------------------------------

    /// Watches on `ep` for `duration_ms`, the world alone letting time pass: every response
    /// that arrives meanwhile. Requires a leader, as etcdctl's watches do (`WithRequireLeader`).
    pub fn watch(
        &mut self,
        ep: MemberId,
        req: WatchRequest,
        duration_ms: Millis,
    ) -> Result<Vec<WatchResponse>, ClientError> {
        let mut stream = self.start_watch(ep, req, duration_ms)?;
        while !stream.collect(self) {
            let has = |c: &Cluster| {
                c.process(ep)
                    .is_some_and(|m| m.store.watches_with_responses().contains(&stream.id))
            };
            self.run_until_cond(stream.end_ms - self.now(), has);
        }
        Ok(stream.finish(self))
    }

    /// Opens a watch on `ep` that streams for `duration_ms`; its responses are read as time
    /// passes ([`WatchStream::collect`]).
    pub fn start_watch(
        &mut self,
        ep: MemberId,
        req: WatchRequest,
        duration_ms: Millis,
    ) -> Result<WatchStream, ClientError> {
        self.reachable(ep, REQUEST_TIMEOUT_MS)?;
        if self.node(ep).and_then(|n| n.leader()).is_none() {
            return Err(ClientError::NoLeader);
        }
        let id = self
            .member_mut(ep, |m, _| m.store.watch(req))
            .ok_or(ClientError::DeadlineExceeded)?;
        Ok(WatchStream {
            ep,
            id,
            end_ms: self.now() + duration_ms,
            responses: Vec::new(),
        })
    }

    // ----- maintenance and cluster ----------------------------------------------------------

    /// The members, from `ep`'s applied configuration and published attributes.
    pub fn member_list(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Reply<Vec<MemberEntry>>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let member = self.process(ep).ok_or(ClientError::DeadlineExceeded)?;
        let node = member.node().ok_or(ClientError::DeadlineExceeded)?;
        let conf = node.conf_at(
            node.log()
                .applied
                .max(node.log().committed.min(node.log().last_index())),
        );
        let mut entries: Vec<MemberEntry> = conf
            .members()
            .into_iter()
            .map(|id| {
                let (name, client_urls) =
                    member.attrs.published.get(&id).cloned().unwrap_or_default();
                let peer_urls = self
                    .process(id)
                    .map_or_else(|| vec![peer_url(id)], |m| m.identity.peer_urls.clone());
                MemberEntry {
                    id: self.etcd_id_of(id),
                    name,
                    peer_urls,
                    client_urls,
                    is_learner: conf.learners.contains(&id),
                }
            })
            .collect();
        entries.sort_by_key(|e| e.id);
        let mut header = self.header(ep, 0);
        header.revision = 0; // member responses carry no revision
        Ok(Reply {
            header,
            body: entries,
        })
    }

    pub fn endpoint_status(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Reply<EndpointStatus>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let member = self.process(ep).ok_or(ClientError::DeadlineExceeded)?;
        let node = member.node().ok_or(ClientError::DeadlineExceeded)?;
        let db = member.store.db_size();
        let leader = node.leader().map_or(0, |l| self.etcd_id_of(l));
        let mut errors: Vec<String> = member
            .store
            .alarms()
            .iter()
            .map(|a| format!("memberID:{} alarm:{} ", a.member_id, a.alarm.name()))
            .collect();
        if node.leader().is_none() {
            errors.push("etcdserver: no leader".into());
        }
        let status = EndpointStatus {
            header: self.header(ep, member.store.revision()),
            version: SERVER_VERSION,
            db_size: db.size_bytes,
            db_size_in_use: db.in_use_bytes,
            leader,
            raft_index: node.log().last_index(),
            raft_term: node.term(),
            raft_applied_index: node.log().applied,
            is_learner: node.conf().learners.contains(&ep),
            errors,
        };
        Ok(Reply {
            header: status.header,
            body: status,
        })
    }

    /// `endpoint health`: a linearizable read of key "health"; healthy if it succeeds and
    /// no alarm is raised. Returns how long it took (virtual).
    pub fn endpoint_health(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Millis, ClientError> {
        let start = self.now();
        let req = Request::Range(mvcc::RangeRequest::key(b"health".to_vec()));
        match self.kv(ep, req, false, timeout_ms) {
            Ok(_) | Err(ClientError::Server(MvccError::KeyNotFound)) => {}
            Err(e) => return Err(e),
        }
        if let Some(alarm) = self
            .process(ep)
            .and_then(|m| m.store.alarms().first().copied())
        {
            return Err(ClientError::Refused(format!(
                "Active Alarm(s): {}",
                alarm.alarm.name()
            )));
        }
        Ok(self.now() - start)
    }

    pub fn hash_kv(
        &mut self,
        ep: MemberId,
        rev: i64,
        timeout_ms: Millis,
    ) -> Result<Reply<mvcc::HashKv>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let hash = self
            .process(ep)
            .map(|m| m.store.hash_kv(rev))
            .ok_or(ClientError::DeadlineExceeded)?;
        let hash = hash.map_err(ClientError::Server)?;
        Ok(Reply {
            header: self.header(ep, hash.revision),
            body: hash,
        })
    }

    pub fn compact(
        &mut self,
        ep: MemberId,
        rev: i64,
        physical: bool,
        timeout_ms: Millis,
    ) -> Result<Reply<Response>, ClientError> {
        let req = Request::Compaction(mvcc::CompactionRequest {
            revision: rev,
            physical,
        });
        self.kv(ep, req, false, timeout_ms)
    }

    pub fn defrag(&mut self, ep: MemberId, timeout_ms: Millis) -> Result<(), ClientError> {
        self.reachable(ep, timeout_ms)?;
        self.member_mut(ep, |m, _| m.store.defrag())
            .ok_or(ClientError::DeadlineExceeded)
    }

    pub fn alarm_list(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Vec<AlarmMember>, ClientError> {
        let req = Request::Alarm(AlarmRequest {
            action: AlarmAction::Get,
            member_id: 0,
            alarm: AlarmType::None,
        });
        match self.kv(ep, req, false, timeout_ms)?.body {
            Response::Alarm(a) => Ok(a.alarms),
            _ => Ok(Vec::new()),
        }
    }

    /// Disarms every raised alarm; returns the ones disarmed.
    pub fn alarm_disarm(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Vec<AlarmMember>, ClientError> {
        let mut disarmed = Vec::new();
        for alarm in self.alarm_list(ep, timeout_ms)? {
            let req = Request::Alarm(AlarmRequest {
                action: AlarmAction::Deactivate,
                member_id: alarm.member_id,
                alarm: alarm.alarm,
            });
            if let Response::Alarm(a) = self.kv(ep, req, false, timeout_ms)?.body {
                disarmed.extend(a.alarms);
            }
        }
        Ok(disarmed)
    }

    /// `move-leader`: the endpoint must be the leader (etcdctl finds it); the target a voter.
    pub fn move_leader(
        &mut self,
        ep: MemberId,
        target_etcd_id: u64,
        timeout_ms: Millis,
    ) -> Result<(), ClientError> {
        self.reachable(ep, timeout_ms)?;
        let target = self
            .member_by_etcd_id(target_etcd_id)
            .ok_or(ClientError::BadLeaderTransferee)?;
        let leader = self.leader().ok_or(ClientError::NoLeader)?;
        if leader == target {
            return Ok(());
        }
        let voter = self
            .node(leader)
            .is_some_and(|n| n.conf().voters.contains(&target));
        if !voter {
            return Err(ClientError::BadLeaderTransferee);
        }
        self.transfer_leader(target)
            .map_err(|e| ClientError::Refused(e.to_string()))?;
        if self.run_until_cond(timeout_ms, |c| c.leader() == Some(target)) {
            Ok(())
        } else {
            Err(ClientError::DeadlineExceeded)
        }
    }

    /// `member add`: proposes the change (a new, empty process is started for it, as an
    /// operator would start etcd with `--initial-cluster-state existing`).
    pub fn member_add(
        &mut self,
        ep: MemberId,
        learner: bool,
        timeout_ms: Millis,
    ) -> Result<Reply<MemberEntry>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let id = self.add_member(learner).map_err(sim_to_client)?;
        self.run_until_cond(timeout_ms, |c| {
            c.node(ep)
                .is_some_and(|n| n.conf_at(n.log().applied).contains(id))
        });
        let entry = MemberEntry {
            id: self.etcd_id_of(id),
            name: String::new(),
            peer_urls: vec![peer_url(id)],
            client_urls: Vec::new(),
            is_learner: learner,
        };
        Ok(Reply {
            header: self.header(ep, 0),
            body: entry,
        })
    }

    pub fn member_remove(
        &mut self,
        ep: MemberId,
        etcd_member: u64,
        timeout_ms: Millis,
    ) -> Result<Reply<()>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let id = self
            .member_by_etcd_id(etcd_member)
            .filter(|m| !self.is_removed(*m))
            .ok_or(ClientError::MemberNotFound)?;
        self.remove_member(id).map_err(sim_to_client)?;
        Ok(Reply {
            header: self.header(ep, 0),
            body: (),
        })
    }

    pub fn member_promote(
        &mut self,
        ep: MemberId,
        etcd_member: u64,
        timeout_ms: Millis,
    ) -> Result<Reply<()>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        let id = self
            .member_by_etcd_id(etcd_member)
            .ok_or(ClientError::MemberNotFound)?;
        let leader = self.leader().ok_or(ClientError::NoLeader)?;
        let node = self.node(leader).ok_or(ClientError::NoLeader)?;
        if !node.conf().learners.contains(&id) {
            return Err(ClientError::NotALearner);
        }
        // etcd only promotes a learner whose log is at least 90% of the leader's.
        let caught_up = node
            .leader_state()
            .and_then(|s| s.progress().get(&id))
            .is_some_and(|pr| pr.match_index as f64 >= node.log().last_index() as f64 * 0.9);
        if !caught_up {
            return Err(ClientError::LearnerNotReady);
        }
        self.promote(id).map_err(sim_to_client)?;
        self.run_until_cond(timeout_ms, |c| {
            c.node(ep)
                .is_some_and(|n| n.conf_at(n.log().applied).voters.contains(&id))
        });
        Ok(Reply {
            header: self.header(ep, 0),
            body: (),
        })
    }

    /// `snapshot save`: the member's state machine image (a db file), with its status.
    pub fn snapshot_save(
        &mut self,
        ep: MemberId,
        timeout_ms: Millis,
    ) -> Result<Vec<u8>, ClientError> {
        self.reachable(ep, timeout_ms)?;
        self.process(ep)
            .map(|m| m.store.encode())
            .ok_or(ClientError::DeadlineExceeded)
    }
}

/// What `check perf` measured: the latency of every write (virtual milliseconds) and how long
/// the whole run took.
#[derive(Clone, Debug, PartialEq)]
pub struct PerfReport {
    pub latencies_ms: Vec<Millis>,
    pub elapsed_ms: Millis,
    pub failed: u64,
}

impl PerfReport {
    /// Writes per second, as etcd's report computes it (requests / total time).
    pub fn throughput(&self) -> f64 {
        self.latencies_ms.len() as f64 * 1000.0 / self.elapsed_ms.max(1) as f64
    }

    pub fn slowest_s(&self) -> f64 {
        self.latencies_ms.iter().copied().max().unwrap_or(0) as f64 / 1000.0
    }

    /// Population standard deviation of the latencies, in seconds.
    pub fn stddev_s(&self) -> f64 {
        let n = self.latencies_ms.len().max(1) as f64;
        let mean = self.latencies_ms.iter().sum::<Millis>() as f64 / n;
        let var = self
            .latencies_ms
            .iter()
            .map(|l| (*l as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        var.sqrt() / 1000.0
    }
}

/// Puts a slice of a load sends at most: `--load xl` sends 15,000 a second, and a page that
/// runs the load in slices must get its frame back between them.
pub const PERF_PUTS_PER_SLICE: u64 = 128;

/// `etcdctl check perf`'s load while it runs: `rate` puts a second for its duration, spread
/// evenly, under `prefix` (as etcdctl's rate-limited clients do), each answered by the member
/// that proposed it. Latencies come from the simulated network and disks, so a slow fsync
/// shows here as it does on a real machine. It runs in slices ([`PerfLoad::run`]) and ends
/// with the prefix deleted ([`PerfLoad::finish`]).
#[derive(Clone, Debug)]
pub struct PerfLoad {
    ep: MemberId,
    rate: u64,
    prefix: Vec<u8>,
    start: Millis,
    duration_ms: Millis,
    total: u64,
    sent: u64,
    /// Requests sent and not yet answered, and when each was sent.
    pending: Vec<(u64, Millis)>,
    report: PerfReport,
}

impl Cluster {
    /// Starts `check perf`'s load on `ep`, if it can be reached.
    pub fn start_perf(
        &mut self,
        ep: MemberId,
        rate: u64,
        duration_ms: Millis,
        prefix: &[u8],
    ) -> Result<PerfLoad, ClientError> {
        self.reachable(ep, REQUEST_TIMEOUT_MS)?;
        let total = rate * duration_ms / 1000;
        Ok(PerfLoad {
            ep,
            rate: rate.max(1),
            prefix: prefix.to_vec(),
            start: self.now(),
            duration_ms,
            total,
            sent: 0,
            pending: Vec::new(),
            report: PerfReport {
                latencies_ms: Vec::with_capacity(total.min(1 << 20) as usize),
                elapsed_ms: 0,
                failed: 0,
            },
        })
    }
}

impl PerfLoad {
    /// The member the load writes through.
    pub fn member(&self) -> MemberId {
        self.ep
    }

    /// When its last put is due: the load ends then, or a little later with the answers.
    pub fn planned_end_ms(&self) -> Millis {
        self.start + self.duration_ms
    }

    /// When it gives up on the answers still owed.
    fn deadline(&self) -> Millis {
        self.planned_end_ms() + REQUEST_TIMEOUT_MS
    }

    fn over(&self, w: &Cluster) -> bool {
        (self.sent >= self.total && self.pending.is_empty()) || w.now() >= self.deadline()
    }

    /// Runs the load until it is over (true), or until it has let time pass beyond
    /// `slice_end` or sent [`PERF_PUTS_PER_SLICE`] puts. It stops only between its own steps,
    /// so a load run in slices does exactly what one run at once does.
    pub fn run(&mut self, clock: &mut dyn Clock, slice_end: Millis) -> bool {
        let (mut sent, mut advanced) = (0, false);
        while !self.over(clock.world()) {
            let now = clock.world().now();
            if sent == PERF_PUTS_PER_SLICE || (advanced && now > slice_end) {
                return false;
            }
            let next_send = self.start + self.sent * 1000 / self.rate;
            if self.sent < self.total && now >= next_send {
                self.send(clock.world());
                sent += 1;
                continue;
            }
            let until = if self.sent < self.total {
                next_send
            } else {
                self.deadline()
            };
            // Each moment something happens, so that an answer is timed when it comes.
            let next = clock.next_moment().filter(|t| *t <= until);
            clock.advance_until(next.unwrap_or(until).max(now));
            advanced = true;
            self.collect(clock.world());
        }
        true
    }

    fn send(&mut self, w: &mut Cluster) {
        let mut key = self.prefix.clone();
        key.extend_from_slice(format!("{:08}", self.sent % 10_000).as_bytes());
        let request = Request::Put(mvcc::PutRequest::new(key, vec![b'v'; 256]));
        let submitted = w.member_mut(self.ep, |m, ctx| {
            let id = m.next_request_id();
            m.submit(&Proposal::Kv { id, request }, ctx);
            id
        });
        match submitted {
            Some(id) => self.pending.push((id, w.now())),
            None => self.report.failed += 1,
        }
        self.sent += 1;
    }

    /// Takes the answers that came in.
    fn collect(&mut self, w: &mut Cluster) {
        let now = w.now();
        let ep = self.ep;
        let report = &mut self.report;
        self.pending.retain(|&(id, at)| {
            if !w.has_response(ep, id) {
                return true;
            }
            match w.member_mut(ep, |m, _| m.take_response(id)).flatten() {
                Some((Ok(_), _, _)) => report.latencies_ms.push(now - at),
                _ => report.failed += 1,
            }
            false
        });
    }

    /// Gives up on the answers still owed and deletes the prefix: what the load measured.
    pub fn finish(mut self, w: &mut Cluster) -> Result<PerfReport, ClientError> {
        self.report.failed += self.pending.len() as u64;
        for (id, _) in self.pending {
            w.member_mut(self.ep, |m, _| m.cancel(id));
        }
        self.report.elapsed_ms = w.now() - self.start;
        let cleanup = mvcc::DeleteRangeRequest {
            key: self.prefix.clone(),
            range_end: mvcc::prefix_range_end(&self.prefix),
            prev_kv: false,
        };
        w.kv(
            self.ep,
            Request::DeleteRange(cleanup),
            false,
            REQUEST_TIMEOUT_MS,
        )?;
        Ok(self.report)
    }
}

/// How work on the world lets virtual time pass: the world alone, or a session in which
/// Kubernetes acts meanwhile (`console`'s).
pub trait Clock {
    fn world(&mut self) -> &mut Cluster;
    /// The next moment anything happens, if anything is due.
    fn next_moment(&self) -> Option<Millis>;
    /// Handles everything due up to `t`, and moves the clock there.
    fn advance_until(&mut self, t: Millis);
}

impl Clock for Cluster {
    fn world(&mut self) -> &mut Cluster {
        self
    }

    fn next_moment(&self) -> Option<Millis> {
        self.next_event_time()
    }

    fn advance_until(&mut self, t: Millis) {
        self.run_until(t);
    }
}

/// A watch while it streams: its responses so far. Whoever lets time pass (the world alone,
/// or a session with Kubernetes acting) reads them with [`WatchStream::collect`].
#[derive(Clone, Debug)]
pub struct WatchStream {
    ep: MemberId,
    id: WatchId,
    end_ms: Millis,
    responses: Vec<WatchResponse>,
}

impl WatchStream {
    /// When the stream stops (its client's duration).
    pub fn end_ms(&self) -> Millis {
        self.end_ms
    }

    /// Reads the responses sent so far; whether the stream is over (its time is up, the
    /// server canceled it, or its member stopped).
    pub fn collect(&mut self, w: &mut Cluster) -> bool {
        let batch = w
            .member_mut(self.ep, |m, _| m.store.take_watch_responses(self.id))
            .unwrap_or_default();
        let canceled = batch.iter().any(|r| r.canceled);
        self.responses.extend(batch);
        canceled || w.now() >= self.end_ms || !w.is_running(self.ep)
    }

    /// Closes the watch: every response it got, in order.
    pub fn finish(self, w: &mut Cluster) -> Vec<WatchResponse> {
        w.member_mut(self.ep, |m, _| m.store.cancel_watch(self.id));
        self.responses
    }
}

/// Serves a read-only request from a member's own store (no Raft entry, as in etcd).
fn local_read(store: &mvcc::Store, req: &Request, now: Millis) -> Result<Response, MvccError> {
    match req {
        Request::Range(r) => store.range(r).map(Response::Range),
        // A read-only txn changes nothing; run it on a copy so the store is untouched.
        other => store.clone().apply(other, now),
    }
}

fn sim_to_client(e: SimError) -> ClientError {
    match e {
        SimError::NoLeader => ClientError::DeadlineExceeded,
        other => ClientError::Refused(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etcd::ClusterConfig;
    use crate::mvcc::{PutRequest, RangeRequest};

    fn cluster(n: usize, seed: u64) -> Cluster {
        let mut c = ClusterConfig::new(n, seed).build();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        c
    }

    fn revision(c: &Cluster) -> i64 {
        c.processes()
            .map(|(_, m)| m.store.revision())
            .max()
            .unwrap_or(0)
    }

    /// `check perf --load xl` in a page's slices (issue 15: no command holds the page): each
    /// slice sends at most its share of puts, and the load measures, writes and deletes
    /// exactly what it does run at once.
    #[test]
    fn a_load_in_slices_sends_at_most_its_share_and_ends_as_at_once() {
        let mut whole = cluster(3, 7);
        let ep = whole.ready_leader().unwrap();
        let mut sliced = whole.clone();
        let mut load = whole.start_perf(ep, 15_000, 1_000, b"/p/").unwrap();
        while !load.run(&mut whole, Millis::MAX) {}
        let at_once = load.finish(&mut whole).unwrap();
        assert_eq!(at_once.latencies_ms.len(), 15_000);

        let mut load = sliced.start_perf(ep, 15_000, 1_000, b"/p/").unwrap();
        let (base, mut slices) = (revision(&sliced), 0);
        loop {
            let slice_end = sliced.now() + 50;
            let over = load.run(&mut sliced, slice_end);
            slices += 1;
            // What k slices wrote, they sent.
            let written = revision(&sliced) - base;
            assert!(
                written <= slices * PERF_PUTS_PER_SLICE as i64,
                "{written} in {slices}"
            );
            if over {
                break;
            }
        }
        assert!(
            slices >= 15_000 / PERF_PUTS_PER_SLICE as i64,
            "{slices} slices"
        );
        assert_eq!(load.finish(&mut sliced).unwrap(), at_once);
        assert_eq!(sliced.now(), whole.now());
        assert_eq!(sliced.trace_hash(), whole.trace_hash());
        assert_eq!(revision(&sliced), revision(&whole));
    }

    fn put(
        c: &mut Cluster,
        ep: MemberId,
        k: &str,
        v: &str,
    ) -> Result<Reply<Response>, ClientError> {
        c.kv(
            ep,
            Request::Put(PutRequest::new(
                k.as_bytes().to_vec(),
                v.as_bytes().to_vec(),
            )),
            false,
            REQUEST_TIMEOUT_MS,
        )
    }

    #[test]
    fn a_write_over_1_5_mib_is_refused_as_etcd_refuses_it() {
        let mut c = cluster(3, 1);
        let ep = c.leader().expect("leader");
        let big = "x".repeat(mvcc::MAX_REQUEST_BYTES);
        let err = put(&mut c, ep, "big", &big).expect_err("over the limit");
        assert_eq!(err.to_string(), "etcdserver: request is too large");
        assert_eq!(err.grpc_code(), "InvalidArgument");
        let revision = c.process(ep).map(|m| m.store.revision());
        assert!(
            put(&mut c, ep, "big", &big[..1024 * 1024]).is_ok(),
            "1 MiB fits"
        );
        assert_eq!(
            c.process(ep).map(|m| m.store.revision()),
            revision.map(|r| r + 1),
            "only the write that fits made a revision"
        );
    }

    fn get(
        c: &mut Cluster,
        ep: MemberId,
        k: &str,
        serializable: bool,
    ) -> Result<Vec<u8>, ClientError> {
        let reply = c.kv(
            ep,
            Request::Range(RangeRequest::key(k.as_bytes().to_vec())),
            serializable,
            REQUEST_TIMEOUT_MS,
        )?;
        match reply.body {
            Response::Range(r) => Ok(r.kvs.first().map(|kv| kv.value.clone()).unwrap_or_default()),
            other => panic!("{other:?}"),
        }
    }

    /// Regression (found by the random clients' histories, seed 30 of `client_histories`):
    /// a network that duplicated a follower's forwarded proposal made the leader append it
    /// twice, so one put was applied at two revisions and one delete answered "0 deleted"
    /// (its second apply). etcd's transport never duplicates a proposal; the simulator's no
    /// longer does either, whatever it does to other messages.
    #[test]
    fn a_forwarded_proposal_is_applied_once_on_a_duplicating_network() {
        let mut config = ClusterConfig::new(3, 30);
        config.net.duplicate = 1.0;
        let mut c = config.build();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        let leader = c.leader().unwrap();
        let follower = c.member_ids().into_iter().find(|m| *m != leader).unwrap();
        let before = put(&mut c, follower, "k", "v").unwrap().header.revision;
        c.run_for(1_000);
        let reply = c
            .kv(
                leader,
                Request::Range(RangeRequest::key(b"k".to_vec())),
                false,
                REQUEST_TIMEOUT_MS,
            )
            .unwrap();
        let Response::Range(r) = reply.body else {
            panic!("{reply:?}");
        };
        assert_eq!(r.kvs[0].version, 1, "the put was applied more than once");
        assert_eq!(r.kvs[0].mod_revision, before);
    }

    #[test]
    fn writes_through_any_member_are_read_everywhere() {
        let mut c = cluster(3, 11);
        let leader = c.leader().unwrap();
        let follower = c.member_ids().into_iter().find(|m| *m != leader).unwrap();
        let reply = put(&mut c, follower, "foo", "bar").unwrap();
        assert_eq!(
            reply.header.revision, 2,
            "a fresh store is at revision 1; one put makes 2"
        );
        assert_eq!(reply.header.member_id, c.etcd_id_of(follower));
        assert!(reply.header.raft_term >= 2);
        for m in c.member_ids() {
            assert_eq!(
                get(&mut c, m, "foo", false).unwrap(),
                b"bar",
                "linearizable on {m}"
            );
        }
        // The raft index counts etcd's own entries too: 3 bootstrap configurations, the
        // leader's empty entry, 3 publishes, the cluster version, then the put.
        let status = c.endpoint_status(leader, REQUEST_TIMEOUT_MS).unwrap().body;
        assert_eq!(status.raft_index, 9);
        assert_eq!(status.leader, c.etcd_id_of(leader));
    }

    #[test]
    fn without_quorum_writes_and_linearizable_reads_time_out_but_serializable_reads_work() {
        let mut c = cluster(3, 12);
        let leader = c.leader().unwrap();
        put(&mut c, leader, "k", "v1").unwrap();
        let others: Vec<MemberId> = c
            .member_ids()
            .into_iter()
            .filter(|m| *m != leader)
            .collect();
        let survivor = others[0];
        c.run_for(500);
        c.kill(leader).unwrap();
        c.kill(others[1]).unwrap();
        let t0 = c.now();
        assert_eq!(
            put(&mut c, survivor, "k", "v2"),
            Err(ClientError::DeadlineExceeded)
        );
        assert_eq!(
            c.now() - t0,
            REQUEST_TIMEOUT_MS,
            "the client waited its whole timeout"
        );
        assert_eq!(
            get(&mut c, survivor, "k", false),
            Err(ClientError::DeadlineExceeded)
        );
        assert_eq!(get(&mut c, survivor, "k", true).unwrap(), b"v1");
        assert_eq!(
            put(&mut c, leader, "k", "v3"),
            Err(ClientError::DeadlineExceeded),
            "a dead endpoint"
        );
        // Quorum back: writes work again.
        c.restart(leader).unwrap();
        assert!(c.run_until_cond(30_000, |c| c.ready_leader().is_some()));
        assert!(put(&mut c, survivor, "k", "v4").is_ok());
        // The write that timed out waiting for a leader never reached Raft: k went v1 -> v4.
        let reply = c
            .kv(
                survivor,
                Request::Range(RangeRequest::key(b"k".to_vec())),
                false,
                REQUEST_TIMEOUT_MS,
            )
            .unwrap();
        let Response::Range(r) = reply.body else {
            panic!()
        };
        assert_eq!(
            (r.kvs[0].value.as_slice(), r.kvs[0].version),
            (&b"v4"[..], 2)
        );
    }

    #[test]
    fn leases_expire_on_the_leader_and_delete_their_keys_in_one_revision() {
        let mut c = cluster(3, 13);
        let leader = c.leader().unwrap();
        let Response::LeaseGrant(grant) =
            c.lease_grant(leader, 2, REQUEST_TIMEOUT_MS).unwrap().body
        else {
            panic!()
        };
        assert_eq!(grant.ttl_s, 2);
        for k in ["a", "b"] {
            let mut p = PutRequest::new(k.as_bytes().to_vec(), b"x".to_vec());
            p.lease = grant.id;
            c.kv(leader, Request::Put(p), false, REQUEST_TIMEOUT_MS)
                .unwrap();
        }
        let rev_before = c.process(leader).unwrap().store.revision();
        c.run_for(4_000);
        for m in c.member_ids() {
            assert_eq!(get(&mut c, m, "a", true).unwrap(), b"", "expired on {m}");
            assert_eq!(c.process(m).unwrap().store.revision(), rev_before + 1);
        }
    }

    #[test]
    fn watch_sees_puts_as_they_commit() {
        let mut c = cluster(1, 14);
        let ep = MemberId(1);
        put(&mut c, ep, "w", "0").unwrap();
        let req = WatchRequest {
            key: b"w".to_vec(),
            ..WatchRequest::default()
        };
        // A put made meanwhile by the same cluster shows up in the stream.
        let events = c
            .watch(
                ep,
                WatchRequest {
                    start_revision: 2,
                    ..req
                },
                2_000,
            )
            .unwrap();
        let n: usize = events.iter().map(|r| r.events.len()).sum();
        assert_eq!(n, 1, "history from revision 2: the first put");
    }
}
