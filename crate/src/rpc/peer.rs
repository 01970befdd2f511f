//! One side of a JSON-RPC connection, sans I/O: it numbers the requests this side sends and keeps
//! each (with what the caller wants back with its response) until the response comes, the
//! deadline passes or the caller cancels it. Incoming requests and notifications are handed to
//! the caller to dispatch; the same peer can be client and server at once.

use super::{parse, Id, Malformed, Message, RpcError, REQUEST_CANCELLED};
use crate::id_table::IdTable;
use serde_json::Value;

/// What one incoming message means for this side.
#[derive(Debug, PartialEq)]
pub enum Incoming<T> {
    /// Answer it with [`super::reply`] (or an unknown method with
    /// [`RpcError::method_not_found`]).
    Request {
        id: Id,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// The answer to a request this side sent, with the context kept for it.
    Response {
        id: Id,
        method: String,
        context: T,
        result: Result<Value, RpcError>,
    },
    /// A response to nothing pending: late (its request timed out or was cancelled) or unknown.
    Unmatched(Id),
    /// Not a message; send `reply` back when there is one.
    Malformed(Option<Value>),
}

/// A request given up on at its deadline.
#[derive(Debug, PartialEq)]
pub struct Expired<T> {
    pub id: Id,
    pub method: String,
    pub context: T,
}

impl<T> Expired<T> {
    /// The error the request ends with, for whoever waited on it.
    pub fn error(&self) -> RpcError {
        RpcError::new(REQUEST_CANCELLED, format!("{} timed out", self.method))
    }
}

struct Pending<T> {
    id: Id,
    method: String,
    context: T,
    /// Milliseconds on the caller's clock; None waits for ever.
    deadline: Option<f64>,
}

pub struct Peer<T> {
    next_id: u64,
    /// By the id as written (a string in quotes), so a number and a string that spell the same differ.
    pending: IdTable<Pending<T>>,
}

impl<T> Default for Peer<T> {
    fn default() -> Self {
        Peer {
            next_id: 0,
            pending: IdTable::new(),
        }
    }
}

impl<T> Peer<T> {
    pub fn new() -> Peer<T> {
        Peer::default()
    }

    /// One incoming message (not a batch).
    pub fn receive(&mut self, message: Value) -> Incoming<T> {
        match parse(message) {
            Ok(Message::Request { id, method, params }) => Incoming::Request { id, method, params },
            Ok(Message::Notification { method, params }) => Incoming::Notification { method, params },
            Ok(Message::Response { id, result }) => match self.pending.remove(&id.to_string()) {
                Some(pending) => Incoming::Response {
                    id,
                    method: pending.method,
                    context: pending.context,
                    result,
                },
                None => Incoming::Unmatched(id),
            },
            Err(Malformed { reply }) => Incoming::Malformed(reply),
        }
    }

    /// A request to send, numbered by this peer and kept with `context` until its response, its
    /// deadline (on the clock [`expire`](Self::expire) is given) or [`cancel`](Self::cancel).
    pub fn request(&mut self, method: &str, params: Value, context: T, deadline_ms: Option<f64>) -> (Id, Value) {
        self.next_id += 1;
        let id = Id::Number(self.next_id.into());
        let message = super::request(&id, method, params);
        self.pending.insert(
            id.to_string(),
            Pending {
                id: id.clone(),
                method: method.to_string(),
                context,
                deadline: deadline_ms,
            },
        );
        (id, message)
    }

    /// Stop waiting for `id`: its context, if it was pending. A response that still comes is
    /// [`Incoming::Unmatched`]. (Telling the other side is the protocol's own notification.)
    pub fn cancel(&mut self, id: &Id) -> Option<T> {
        self.pending.remove(&id.to_string()).map(|p| p.context)
    }

    /// The requests whose deadline is at or before `now_ms`, removed, oldest first.
    pub fn expire(&mut self, now_ms: f64) -> Vec<Expired<T>> {
        self.pending
            .take_where(|p| p.deadline.is_some_and(|d| d <= now_ms))
            .into_iter()
            .map(|(_, pending)| Expired {
                id: pending.id,
                method: pending.method,
                context: pending.context,
            })
            .collect()
    }

    /// The earliest deadline still pending, for the caller's timer.
    pub fn next_deadline(&self) -> Option<f64> {
        self.pending.values().filter_map(|p| p.deadline).reduce(f64::min)
    }

    pub fn is_pending(&self, id: &Id) -> bool {
        self.pending.contains_key(&id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_response_comes_back_with_the_context_of_its_request() {
        let mut peer = Peer::new();
        let (id, message) = peer.request("session/new", json!({"cwd": "/w"}), "new", None);
        assert_eq!(
            message,
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/w"}})
        );
        let incoming = peer.receive(json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}}));
        assert_eq!(
            incoming,
            Incoming::Response {
                id: id.clone(),
                method: "session/new".into(),
                context: "new",
                result: Ok(json!({"sessionId": "s"}))
            }
        );
        // Answered once: a second response is not matched.
        assert_eq!(
            peer.receive(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            Incoming::Unmatched(id)
        );
    }

    #[test]
    fn requests_time_out_on_the_clock_given_and_late_answers_are_unmatched() {
        let mut peer = Peer::new();
        let (slow, _) = peer.request("a", Value::Null, 1, Some(1_000.0));
        let (patient, _) = peer.request("b", Value::Null, 2, None);
        assert_eq!(peer.next_deadline(), Some(1_000.0));
        assert!(peer.expire(999.0).is_empty());
        let expired = peer.expire(1_000.0);
        assert_eq!(
            expired,
            [Expired {
                id: slow.clone(),
                method: "a".into(),
                context: 1
            }]
        );
        assert_eq!(expired[0].error().code, REQUEST_CANCELLED);
        assert!(peer.is_pending(&patient) && !peer.is_pending(&slow));
        assert_eq!(
            peer.receive(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            Incoming::Unmatched(slow)
        );
    }

    #[test]
    fn a_cancelled_request_gives_its_context_back_once() {
        let mut peer = Peer::new();
        let (id, _) = peer.request("session/prompt", Value::Null, "turn", None);
        assert_eq!(peer.cancel(&id), Some("turn"));
        assert_eq!(peer.cancel(&id), None);
    }

    #[test]
    fn the_same_peer_serves_requests_from_the_other_side() {
        let mut peer: Peer<()> = Peer::new();
        let Incoming::Request { id, method, .. } =
            peer.receive(json!({"jsonrpc": "2.0", "id": "x", "method": "fs/read_text_file"}))
        else {
            panic!("a request");
        };
        assert_eq!(method, "fs/read_text_file");
        assert_eq!(
            super::super::reply(&id, Err(RpcError::method_not_found(&method)))["error"]["code"],
            super::super::METHOD_NOT_FOUND
        );
        assert!(matches!(
            peer.receive(json!({"jsonrpc": "2.0", "id": [], "method": "x"})),
            Incoming::Malformed(Some(_))
        ));
    }
}
