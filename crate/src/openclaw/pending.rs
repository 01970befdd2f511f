//! Requests waiting for their response, each with a deadline on the clock the host passes in.

use crate::id_table::IdTable;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pending {
    pub method: String,
    pub deadline_ms: u64,
}

#[derive(Debug, Default)]
pub struct PendingRequests {
    next_id: u64,
    waiting: IdTable<Pending>,
}

impl PendingRequests {
    /// Register a request; its id is `method-N`, unique for this client's lifetime.
    pub fn start(&mut self, method: &str, now_ms: u64, timeout_ms: u64) -> String {
        self.next_id += 1;
        let id = format!("{method}-{}", self.next_id);
        self.waiting.insert(
            id.clone(),
            Pending {
                method: method.to_string(),
                deadline_ms: now_ms.saturating_add(timeout_ms),
            },
        );
        id
    }

    /// The request `id` answered (None when it is not waiting: late, unknown or answered).
    pub fn finish(&mut self, id: &str) -> Option<Pending> {
        self.waiting.remove(id)
    }

    /// Remove and return the requests whose deadline passed.
    pub fn expire(&mut self, now_ms: u64) -> Vec<(String, Pending)> {
        self.waiting.take_where(|p| p.deadline_ms <= now_ms)
    }

    /// Remove and return every waiting request (the connection is gone).
    pub fn drain(&mut self) -> Vec<(String, Pending)> {
        self.waiting.drain()
    }

    pub fn next_deadline(&self) -> Option<u64> {
        self.waiting.values().map(|p| p.deadline_ms).min()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}
