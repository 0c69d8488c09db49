//! Which chunk a reader thread reads next, and when it waits: the one decision of the
//! parallel readers (text and XML) that depends on how the threads are scheduled.
//!
//! Readers claim chunks in order. How far ahead of the consumer they get decides which
//! guess each chunk is read with (the consumer refreshes the guess as it goes), and so how
//! many chunks it can use: that share is a matter of the machine's scheduling, measured by
//! `bench/logs.sh`, never asserted by a test. Tests choose a [`Schedule`] that fixes it.

/// How reader threads may run ahead of the consumer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Schedule {
    /// As fast as they can, at most a window of chunks ahead of the consumer: what the
    /// readers do outside tests.
    #[default]
    Free,
    /// Chunk `k` is claimed only once the consumer is done with every chunk before it: each
    /// chunk is read with the freshest guess there can be, whatever the scheduler does.
    /// Nothing runs in parallel; for tests of the guesses.
    Lockstep,
    /// Every chunk is read before the consumer takes any: each is read with the first
    /// guess (the stalest a free schedule could give). For tests of the fallbacks.
    AllAhead,
}

/// What a reader thread does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// Read this chunk (it is now claimed).
    Read(usize),
    /// Wait until the consumer moves.
    Wait,
    /// Nothing is left to claim, or the readers were stopped.
    Stop,
}

/// The claims of the reader threads of one log (kept under one lock with its condition
/// variable: the consumer's moves wake the waiting threads).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claims {
    /// The next chunk to claim (chunk 0 is read before the threads start).
    pub next: usize,
    /// Chunks the consumer has taken.
    pub taken: usize,
    /// Chunks the consumer is done with: their state is known, the guess refreshed.
    pub settled: usize,
}

impl Default for Claims {
    fn default() -> Self {
        Self {
            next: 1,
            taken: 0,
            settled: 0,
        }
    }
}

impl Claims {
    /// The next step of a reader thread, for a log of `chunks` chunks, readers at most
    /// `window` chunks ahead of the consumer (with [`Schedule::Free`]), and `stopped` when
    /// the readers were told to stop. A [`Claim::Read`] claims the chunk.
    pub fn claim(
        &mut self,
        chunks: usize,
        window: usize,
        schedule: Schedule,
        stopped: bool,
    ) -> Claim {
        let k = self.next;
        if k >= chunks || stopped {
            return Claim::Stop;
        }
        let allowed = match schedule {
            Schedule::Free => k < self.taken.saturating_add(window),
            Schedule::Lockstep => k <= self.settled,
            Schedule::AllAhead => true,
        };
        if !allowed {
            return Claim::Wait;
        }
        self.next += 1;
        Claim::Read(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claims until a thread would wait or stop.
    fn claim_all(c: &mut Claims, chunks: usize, window: usize, s: Schedule) -> Vec<usize> {
        let mut got = Vec::new();
        while let Claim::Read(k) = c.claim(chunks, window, s, false) {
            got.push(k);
        }
        got
    }

    #[test]
    fn a_free_schedule_claims_in_order_within_the_window() {
        let mut c = Claims::default();
        assert_eq!(claim_all(&mut c, 100, 4, Schedule::Free), [1, 2, 3]);
        assert_eq!(c.claim(100, 4, Schedule::Free, false), Claim::Wait);
        // The consumer takes chunks 0 and 1: two more may be claimed.
        c.taken = 2;
        assert_eq!(claim_all(&mut c, 100, 4, Schedule::Free), [4, 5]);
        // Settling does not matter to it.
        c.settled = 50;
        assert_eq!(c.claim(100, 4, Schedule::Free, false), Claim::Wait);
        c.taken = 99;
        assert_eq!(
            claim_all(&mut c, 100, 4, Schedule::Free),
            (6..100).collect::<Vec<_>>()
        );
        assert_eq!(c.claim(100, 4, Schedule::Free, false), Claim::Stop);
    }

    #[test]
    fn lockstep_claims_a_chunk_only_after_the_one_before_is_settled() {
        // Chunk 0 is the consumer's; chunk 1 waits until it is settled, even once taken.
        let mut c = Claims {
            taken: 1,
            ..Claims::default()
        };
        assert_eq!(c.claim(10, 4, Schedule::Lockstep, false), Claim::Wait);
        c.settled = 1;
        assert_eq!(claim_all(&mut c, 10, 4, Schedule::Lockstep), [1]);
        c.taken = 2;
        assert_eq!(c.claim(10, 4, Schedule::Lockstep, false), Claim::Wait);
        c.settled = 2;
        assert_eq!(claim_all(&mut c, 10, 4, Schedule::Lockstep), [2]);
    }

    #[test]
    fn all_ahead_claims_everything_at_once() {
        let mut c = Claims::default();
        assert_eq!(
            claim_all(&mut c, 10, 4, Schedule::AllAhead),
            (1..10).collect::<Vec<_>>()
        );
        assert_eq!(c.claim(10, 4, Schedule::AllAhead, false), Claim::Stop);
    }

    #[test]
    fn a_stop_wins_over_everything() {
        for s in [Schedule::Free, Schedule::Lockstep, Schedule::AllAhead] {
            let mut c = Claims {
                next: 3,
                taken: 3,
                settled: 3,
            };
            assert_eq!(c.claim(10, 4, s, true), Claim::Stop);
            assert_eq!(c.next, 3, "nothing claimed");
        }
        // A log of one chunk has nothing to claim.
        assert_eq!(
            Claims::default().claim(1, 4, Schedule::Free, false),
            Claim::Stop
        );
    }
}
