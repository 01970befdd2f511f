//! The frame `seq` of one connection: contiguous for broadcast events, so a repeat is a
//! duplicate to drop and a jump means frames were lost (the gateway drops events for slow
//! clients), which calls for a resync from history.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqCheck {
    /// The next frame (or the first of the connection).
    InOrder,
    /// Already seen: drop it.
    Duplicate,
    /// Frames `expected..received` never came; this one is kept.
    Gap { expected: u64, received: u64 },
}

#[derive(Debug, Default)]
pub struct SeqTracker {
    last: Option<u64>,
}

impl SeqTracker {
    pub fn check(&mut self, seq: u64) -> SeqCheck {
        match self.last {
            Some(last) if seq <= last => SeqCheck::Duplicate,
            Some(last) if seq > last.saturating_add(1) => {
                self.last = Some(seq);
                SeqCheck::Gap {
                    expected: last + 1,
                    received: seq,
                }
            }
            _ => {
                self.last = Some(seq);
                SeqCheck::InOrder
            }
        }
    }

    /// A new connection counts from scratch.
    pub fn reset(&mut self) {
        self.last = None;
    }
}
