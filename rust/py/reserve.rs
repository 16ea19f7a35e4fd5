//! The extension's allocator: the system's, with a reserve of memory held for the moment an
//! allocation fails.
//!
//! Rust aborts the process when an allocation fails ("memory allocation of 8 bytes failed"):
//! `std::alloc::set_alloc_error_hook` is unstable, and a global allocator may not unwind. The
//! allocations whose size follows the input are fallible (`try_reserve`: a failure is a
//! `CoreError::OutOfMemory`, a MemoryError in Python), but when memory runs out (an address
//! space capped by `ulimit -v` / RLIMIT_AS, `vm.overcommit_memory=2`, a batch scheduler's
//! limit) any small allocation can fail too: the message of the error itself, a rayon job, a
//! query's scratch buffer. So a reserve of `RESERVE_BYTES` is held (allocated, never touched:
//! address space and commit charge, no resident memory); the first allocation that fails
//! releases it and is tried again, so the work in flight reaches its next fallible
//! reservation, which fails cleanly with room left to report it. Each heavy call takes the
//! reserve back before it starts (`arm`), and a new pool of threads is started with the
//! reserve released (`released`), so that the threads' stacks and thread-local data find room.
//!
//! Besides `borrowed` and `fallible`, this is the crate's only unsafe code.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The reserve: enough for the small allocations of an error's path and of the rayon jobs in
/// flight until their next check, and for a few threads' stacks (2 MiB each). It is headroom
/// taken from the process: a call that fits within 16 MiB of its limit fails instead.
const RESERVE_BYTES: usize = 16 << 20;

const RESERVE_LAYOUT: Layout = match Layout::from_size_align(RESERVE_BYTES, 4096) {
    Ok(layout) => layout,
    Err(_) => panic!("the reserve's layout is valid"),
};

/// The reserve's block, or null when it is not held.
static RESERVE: AtomicPtr<u8> = AtomicPtr::new(null_mut());

/// The system allocator, retried once after the reserve is released.
pub struct ReserveAllocator;

#[global_allocator]
static GLOBAL: ReserveAllocator = ReserveAllocator;

/// Release the reserve; whether it was held.
fn release() -> bool {
    let block = RESERVE.swap(null_mut(), Ordering::AcqRel);
    if block.is_null() {
        return false;
    }
    // SAFETY: `block` was returned by `System.alloc(RESERVE_LAYOUT)` in `arm`, and the swap
    // above took it out of `RESERVE`, so it is freed once, with its layout.
    #[allow(unsafe_code)]
    unsafe {
        System.dealloc(block, RESERVE_LAYOUT)
    };
    // The kernels stop at their next check (ragmeter_core::memory), before the allocations
    // that would find no room left.
    ragmeter_core::memory::mark_exhausted();
    true
}

// SAFETY: every method forwards to `System` with the caller's arguments, which satisfy
// `GlobalAlloc`'s contract as the caller guarantees; a null result is retried once, with the
// same arguments, after the reserve (a block of `System`'s own) is freed. Nothing unwinds.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for ReserveAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        let block = unsafe { System.alloc(layout) };
        if block.is_null() && release() {
            // SAFETY: as for the impl.
            return unsafe { System.alloc(layout) };
        }
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        let block = unsafe { System.alloc_zeroed(layout) };
        if block.is_null() && release() {
            // SAFETY: as for the impl.
            return unsafe { System.alloc_zeroed(layout) };
        }
        block
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for the impl; a failed realloc leaves `ptr` valid, so it is tried again.
        let block = unsafe { System.realloc(ptr, layout, new_size) };
        if block.is_null() && release() {
            // SAFETY: as for the impl.
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        block
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for the impl.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Hold the reserve again (each heavy call starts with it): allocated when it is not held and
/// the system grants it, which clears the mark of an earlier exhaustion; otherwise the call
/// runs without one, and the mark stays.
pub fn arm() {
    rearm();
}

/// `arm`, and whether the reserve is held now (`ragmeter_core::memory`'s checks call it).
fn rearm() -> bool {
    if !RESERVE.load(Ordering::Acquire).is_null() {
        return true;
    }
    // SAFETY: RESERVE_LAYOUT has a non-zero size.
    #[allow(unsafe_code)]
    let block = unsafe { System.alloc(RESERVE_LAYOUT) };
    if block.is_null() {
        // No room for it: an earlier exhaustion stays marked, so the kernels stop at their
        // checks rather than run without a reserve into an abort.
        return false;
    }
    ragmeter_core::memory::set_rearm(rearm);
    ragmeter_core::memory::reset();
    if RESERVE
        .compare_exchange(null_mut(), block, Ordering::AcqRel, Ordering::Acquire)
        .is_err()
    {
        // Another thread armed it meanwhile.
        // SAFETY: `block` was just allocated with RESERVE_LAYOUT and is not shared.
        #[allow(unsafe_code)]
        unsafe {
            System.dealloc(block, RESERVE_LAYOUT)
        };
    }
    true
}

/// Run `f` with the reserve released (starting threads: their stacks and thread-local data
/// are allocated outside this allocator, by the C library, which aborts the process when it
/// finds no room for the thread-local data), then hold it again.
pub fn released<T>(f: impl FnOnce() -> T) -> T {
    let held = RESERVE.swap(null_mut(), Ordering::AcqRel);
    if !held.is_null() {
        // SAFETY: as in `release` (here the memory did not run out: nothing is marked).
        #[allow(unsafe_code)]
        unsafe {
            System.dealloc(held, RESERVE_LAYOUT)
        };
    }
    let result = f();
    arm();
    result
}
