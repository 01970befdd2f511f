//! When to reconnect, as a pure function of why the socket closed and how many tries failed:
//! exponential backoff (1 s base, doubling, 30 s cap, 10 tries, the count reset by a successful
//! handshake), nothing after a manual disconnect or a fatal refusal, and the announced restart
//! delay after a `shutdown` event.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    pub base_ms: u64,
    pub cap_ms: u64,
    pub max_tries: u32,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            base_ms: 1_000,
            cap_ms: 30_000,
            max_tries: 10,
        }
    }
}

impl Backoff {
    /// The wait before reconnect try number `tries_made + 1`, or None once `max_tries` were
    /// made.
    pub fn delay_ms(&self, tries_made: u32) -> Option<u64> {
        if tries_made >= self.max_tries {
            return None;
        }
        let factor = 1u64.checked_shl(tries_made).unwrap_or(u64::MAX);
        Some(self.base_ms.saturating_mul(factor).min(self.cap_ms))
    }
}

/// Why the socket is gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseCause {
    /// The user disconnected.
    Manual,
    /// The gateway announced a shutdown (`shutdown` event), maybe with the time it expects to
    /// be back.
    Shutdown { restart_expected_ms: Option<u64> },
    /// The gateway refused the handshake in a way retrying cannot fix.
    Fatal,
    /// The gateway asked to be retried later (still starting): at least that long, and the
    /// try counts as failed.
    RetryAfter { ms: u64 },
    /// Connect again at once, speaking what the gateway asked for (not a failure).
    Renegotiate,
    /// The connection failed or dropped.
    Lost,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reconnect {
    After {
        ms: u64,
    },
    /// Give up: the connection is in error until the user connects again.
    GiveUp,
    /// Stay disconnected (manual or fatal).
    Stop,
}

/// The next step after a close. `tries_made` is how many reconnect tries were made since the
/// last successful handshake (a planned restart or a renegotiation makes none).
pub fn next_step(backoff: &Backoff, cause: &CloseCause, tries_made: u32) -> Reconnect {
    match cause {
        CloseCause::Manual | CloseCause::Fatal => Reconnect::Stop,
        // A planned restart is no failure: wait as announced, then go on as usual.
        CloseCause::Shutdown {
            restart_expected_ms: Some(ms),
        } => Reconnect::After {
            ms: (*ms).max(backoff.base_ms),
        },
        CloseCause::Renegotiate => Reconnect::After { ms: 0 },
        CloseCause::RetryAfter { ms } => match backoff.delay_ms(tries_made) {
            Some(delay) => Reconnect::After {
                ms: delay.max((*ms).min(backoff.cap_ms)),
            },
            None => Reconnect::GiveUp,
        },
        CloseCause::Shutdown { .. } | CloseCause::Lost => match backoff.delay_ms(tries_made) {
            Some(ms) => Reconnect::After { ms },
            None => Reconnect::GiveUp,
        },
    }
}
