//! Every heavy call goes through `run`: it releases the GIL and runs the kernel in ragmeter's own
//! rayon pool, so the kernel's workers never touch Python and a forked child never inherits a
//! pool whose threads it does not have.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use rayon::ThreadPool;

struct CachedPool {
    pid: u32,
    n_threads: usize,
    pool: Arc<ThreadPool>,
}

static POOL: Mutex<Option<CachedPool>> = Mutex::new(None);

/// Threads to use when the caller does not say: `RAGMETER_NUM_THREADS`, else the CPU count.
fn default_threads() -> usize {
    std::env::var("RAGMETER_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn pool_for(n_threads: Option<usize>) -> PyResult<Arc<ThreadPool>> {
    let n_threads = match n_threads {
        Some(0) => {
            return Err(crate::errors::invalid_input(
                "n_threads: must be a positive integer or None (all cores), got 0".to_owned(),
            ));
        }
        Some(n) => n,
        None => default_threads(),
    };
    let pid = std::process::id();
    let mut guard = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(cached) = guard.as_ref()
        && cached.pid == pid
        && cached.n_threads == n_threads
    {
        return Ok(cached.pool.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n_threads)
        .thread_name(|i| format!("ragmeter-{i}"))
        .build()
        .map_err(|e| {
            pyo3::exceptions::PyRuntimeError::new_err(format!("cannot start threads: {e}"))
        })?;
    let pool = Arc::new(pool);
    *guard = Some(CachedPool {
        pid,
        n_threads,
        pool: pool.clone(),
    });
    Ok(pool)
}

/// Run `f` without the GIL inside ragmeter's pool of `n_threads` threads.
pub fn run<T, F>(py: Python<'_>, n_threads: Option<usize>, f: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> T + Send,
{
    let pool = pool_for(n_threads)?;
    Ok(py.detach(|| pool.install(f)))
}
