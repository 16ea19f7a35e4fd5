//! Every heavy call goes through `run` or `spawn`: the kernel runs in ragmeter's own rayon
//! pool, never touches Python, and the GIL is released whenever the caller waits for it; a
//! forked child never inherits a pool whose threads it does not have.

use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use pyo3::prelude::*;
use ragmeter_core::cancel::Cancel;
use rayon::ThreadPool;

struct CachedPool {
    pid: u32,
    n_threads: usize,
    pool: Arc<ThreadPool>,
}

/// Pools kept at once: calls use `n` and `n - 1` threads; a few more sizes are kept for callers
/// that vary `n_threads`.
const MAX_POOLS: usize = 4;

/// Pools by size (a call that reads while the pool works uses one thread fewer than a call that
/// waits for it), for the current process only.
static POOLS: Mutex<Vec<CachedPool>> = Mutex::new(Vec::new());

/// The most threads one call may ask for (`n_threads` or `RAGMETER_NUM_THREADS`): with at most
/// `MAX_POOLS` pools kept, no more than a bounded number of threads ever lives in the process.
pub const MAX_THREADS: usize = 256;

/// Threads to use when the caller does not say: `RAGMETER_NUM_THREADS`, else the CPU count
/// (at most `MAX_THREADS`).
fn default_threads() -> PyResult<usize> {
    match std::env::var("RAGMETER_NUM_THREADS") {
        Ok(value) => match value.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
            _ => Err(crate::error::invalid_input(format!(
                "RAGMETER_NUM_THREADS: must be an integer from 1 to {MAX_THREADS}, got {:?}; \
                 unset it to use every core",
                value.chars().take(40).collect::<String>()
            ))),
        },
        Err(_) => Ok(cpu_count()),
    }
}

/// The CPU count (at most `MAX_THREADS`), asked once per process: `available_parallelism`
/// reads the cgroup quota files on Linux (~25 us a call, more than a small evaluation costs).
fn cpu_count() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
    })
}

/// The number of threads a call with `n_threads` uses.
pub fn resolve(n_threads: Option<usize>) -> PyResult<usize> {
    match n_threads {
        Some(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        Some(n) => Err(crate::error::invalid_input(format!(
            "n_threads: must be an integer from 1 to {MAX_THREADS} or None (all cores), got {n}"
        ))),
        None => default_threads(),
    }
}

fn pool_for(n_threads: Option<usize>) -> PyResult<Arc<ThreadPool>> {
    crate::reserve::arm();
    let n_threads = resolve(n_threads)?;
    let pid = std::process::id();
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    // A forked child inherits the parent's list but not its threads.
    pools.retain(|cached| cached.pid == pid);
    if let Some(at) = pools
        .iter()
        .position(|cached| cached.n_threads == n_threads)
    {
        // Least recently used last out: the pool used now moves to the end.
        let cached = pools.remove(at);
        let pool = cached.pool.clone();
        pools.push(cached);
        return Ok(pool);
    }
    let pool = crate::reserve::released(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n_threads)
            .thread_name(|i| format!("ragmeter-{i}"))
            .build()
    })
    .map_err(|e| {
        pyo3::exceptions::PyMemoryError::new_err(format!(
            "cannot start {n_threads} threads ({e}): not enough memory for their stacks, or \
             a limit on the threads of this user; free memory, or use fewer threads \
             (n_threads=1 or RAGMETER_NUM_THREADS=1)"
        ))
    })?;
    let pool = Arc::new(pool);
    if pools.len() >= MAX_POOLS {
        // The least recently used pool is dropped: its threads end once their work is done
        // (work still running there keeps its pool alive through its own `Arc`), so callers
        // that vary `n_threads` keep at most `MAX_POOLS` pools of threads alive.
        pools.remove(0);
    }
    pools.push(CachedPool {
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

/// Work started in ragmeter's pool by `spawn`, to be collected with `wait`.
pub struct Pending<T> {
    result: std::sync::mpsc::Receiver<std::thread::Result<T>>,
}

/// Start `f` in ragmeter's pool of `n_threads` threads and return at once, so the calling
/// thread can read the next inputs (with the GIL) while the pool works on these: on two cores
/// reading and computing then overlap instead of taking turns.
pub fn spawn<T, F>(n_threads: Option<usize>, f: F) -> PyResult<Pending<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let pool = pool_for(n_threads)?;
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    let inner = pool.clone();
    pool.spawn(move || {
        // A panic must reach the caller as an error, not abort the process in the pool.
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || inner.install(f)));
        let _ = sender.send(result);
    });
    Ok(Pending { result: receiver })
}

impl<T: Send> Pending<T> {
    /// The result of the spawned work; the GIL is released while it is awaited.
    pub fn wait(self, py: Python<'_>) -> PyResult<T> {
        let receiver = self.result;
        match py.detach(move || receiver.recv()) {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(panic)) => {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a worker thread panicked".to_owned());
                Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "internal error in ragmeter's core (please report it): {message}"
                )))
            }
            Err(_) => Err(pyo3::exceptions::PyRuntimeError::new_err(
                "internal error in ragmeter's core: a worker thread ended without a result",
            )),
        }
    }
}

/// Run the core work `f` in ragmeter's pool of `n_threads` threads without the GIL, and turn
/// its error into the Python exception that `crate::error` maps it to, naming queries with
/// `names`. Every binding that calls into `ragmeter-core` goes through here (as polars'
/// bindings go through `enter_polars`), so no call holds the GIL while the core works and no
/// core error escapes unmapped.
pub fn enter_core<T, F>(
    py: Python<'_>,
    n_threads: Option<usize>,
    names: &dyn crate::error::QueryNamer,
    f: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> ragmeter_core::CoreResult<T> + Send,
{
    run(py, n_threads, f)?.map_err(|e| crate::error::to_pyerr(e, names))
}

/// How often a long kernel's caller looks for a signal (Ctrl-C) while it waits.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// `enter_core` for the long kernels (resampling tests): the calling thread waits without the
/// GIL, takes it back every `SIGNAL_CHECK` to run the signal handlers (`PyErr_CheckSignals`:
/// only on the main thread, where Ctrl-C is delivered), and when one raises (a
/// `KeyboardInterrupt`) sets the kernel's `Cancel`, waits for the kernel to stop at its next
/// block of resamples and raises that exception. A run of 10^8 resamples thus stops within a
/// block's time instead of running to its end.
pub fn enter_core_interruptible<T, F>(
    py: Python<'_>,
    n_threads: Option<usize>,
    names: &dyn crate::error::QueryNamer,
    f: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Cancel) -> ragmeter_core::CoreResult<T> + Send,
{
    let pool = pool_for(n_threads)?;
    let cancel = Cancel::new();
    let mut signal: Option<PyErr> = None;
    let outcome = py.detach(|| {
        let (sender, receiver) = std::sync::mpsc::channel();
        let cancel = &cancel;
        let signal = &mut signal;
        pool.in_place_scope(move |scope| {
            scope.spawn(move |_| {
                // A panic must reach the caller as an error, not end the scope with it.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(cancel)));
                let _ = sender.send(result);
            });
            loop {
                match receiver.recv_timeout(SIGNAL_CHECK) {
                    Ok(result) => return Some(result),
                    Err(RecvTimeoutError::Timeout) => {
                        if signal.is_none()
                            && let Err(error) = Python::attach(|py| py.check_signals())
                        {
                            *signal = Some(error);
                            cancel.cancel();
                        }
                    }
                    Err(RecvTimeoutError::Disconnected) => return None,
                }
            }
        })
    });
    if let Some(error) = signal {
        return Err(error);
    }
    match outcome {
        Some(Ok(result)) => result.map_err(|e| crate::error::to_pyerr(e, names)),
        Some(Err(panic)) => {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a worker thread panicked".to_owned());
            Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error in ragmeter's core (please report it): {message}"
            )))
        }
        None => Err(pyo3::exceptions::PyRuntimeError::new_err(
            "internal error in ragmeter's core: a worker thread ended without a result",
        )),
    }
}
