//! Cancellation of long kernels. The caller keeps a `Cancel` and sets it (the bindings do when
//! Ctrl-C is pressed while a kernel runs); the resampling loops look at it between blocks of
//! resamples (a batch of 1,024 sign vectors, bootstrap draws or permutations, or 4,096
//! enumerated patterns) and return `CoreError::Cancelled`, so an interrupted call ends within
//! a block's time instead of running to its last resample.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{CoreError, CoreResult};

/// A flag the caller sets to stop a kernel early; the kernel only reads it.
#[derive(Debug, Default)]
pub struct Cancel(AtomicBool);

static NEVER: Cancel = Cancel(AtomicBool::new(false));

impl Cancel {
    pub fn new() -> Self {
        Cancel(AtomicBool::new(false))
    }

    /// A flag nobody sets: for callers that never cancel.
    pub fn never() -> &'static Cancel {
        &NEVER
    }

    /// Ask the kernel reading this flag to stop at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the kernel was asked to stop (one relaxed load: cheap enough per block).
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(CoreError::Cancelled)` once the kernel was asked to stop.
    pub fn check(&self) -> CoreResult<()> {
        if self.is_cancelled() {
            Err(CoreError::Cancelled)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_clear_until_it_is_set() {
        let cancel = Cancel::new();
        assert!(cancel.check().is_ok());
        cancel.cancel();
        assert!(matches!(cancel.check(), Err(CoreError::Cancelled)));
        assert!(!Cancel::never().is_cancelled());
    }
}
