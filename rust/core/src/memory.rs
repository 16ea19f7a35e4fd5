//! Whether the memory ran out during a call. The bindings' allocator holds a reserve and
//! releases it when an allocation fails (`rust/py/reserve.rs`), so that the failing allocation
//! and the few after it succeed; it marks the memory exhausted then, and the long kernels look
//! at the mark between their phases, blocks and queries (`check`): when the allocator cannot
//! take its reserve back by then, they stop with `CoreError::OutOfMemory` (a MemoryError in
//! Python) before their next allocations, which would find no room left and abort the
//! process.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::error::{CoreError, CoreResult};

static EXHAUSTED: AtomicBool = AtomicBool::new(false);

/// How the allocator takes its reserve back (set once by the bindings): true when it holds
/// one again, so the memory is no longer exhausted.
static REARM: OnceLock<fn() -> bool> = OnceLock::new();

/// Register how the allocator takes its reserve back (the bindings do, once).
pub fn set_rearm(rearm: fn() -> bool) {
    let _ = REARM.set(rearm);
}

/// The memory ran out (the allocator's reserve was released to satisfy an allocation).
pub fn mark_exhausted() {
    EXHAUSTED.store(true, Ordering::Relaxed);
}

/// A call starts with its reserve held again: forget an earlier exhaustion.
pub fn reset() {
    EXHAUSTED.store(false, Ordering::Relaxed);
}

/// `Err(CoreError::OutOfMemory { what })` once the memory ran out during this call, unless
/// the allocator can take its reserve back now (the memory freed since makes room for it).
pub fn check(what: impl FnOnce() -> String) -> CoreResult<()> {
    if !EXHAUSTED.load(Ordering::Relaxed) {
        return Ok(());
    }
    if REARM.get().is_some_and(|rearm| rearm()) {
        EXHAUSTED.store(false, Ordering::Relaxed);
        return Ok(());
    }
    Err(CoreError::OutOfMemory { what: what() })
}

/// A copy of `bytes` in a new vector, or `CoreError::OutOfMemory` naming `what`.
pub fn try_to_vec(bytes: &[u8], what: &str) -> CoreResult<Vec<u8>> {
    let mut copy = Vec::new();
    copy.try_reserve_exact(bytes.len())
        .map_err(|_| CoreError::OutOfMemory {
            what: what.to_owned(),
        })?;
    copy.extend_from_slice(bytes);
    Ok(copy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_exhaustion_is_an_out_of_memory_error_until_reset() {
        // The only test touching the global mark (tests run in parallel threads).
        assert!(check(|| unreachable!()).is_ok());
        mark_exhausted();
        assert!(matches!(
            check(|| "the run".to_owned()),
            Err(CoreError::OutOfMemory { what }) if what == "the run"
        ));
        reset();
        assert!(check(|| unreachable!()).is_ok());
        assert_eq!(try_to_vec(b"q1", "ids").unwrap(), b"q1");
    }
}
