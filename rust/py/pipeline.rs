//! The one read-while-compute loop of the bindings: Python inputs are read batch by batch on
//! the calling thread (which must hold the GIL to read them) while ragmeter's pool, without the
//! GIL, works on the batch read before. Dict rankings (`prepare`), Arrow tables (`table`) and
//! the edit-distance and answer kernels (`edit`, `answers`) all go through `pipelined`.
//!
//! A batch is cut into parts that are worked on independently, in any order, by any thread;
//! their results are passed on in order. While the calling thread reads batch k + 1, the pool's
//! workers take the parts of batch k; then the calling thread, without the GIL, takes what is
//! left of them like a worker. Every thread is busy until the end, which on two cores is what
//! makes many small inputs fast: one worker computes while this thread reads, and neither
//! waits for the other. `n_threads` counts the calling thread: the pool gets `n_threads - 1`
//! workers. A batch marked `inline` (too little work to hand out: a thread hand-off costs tens
//! of microseconds) is worked on by the calling thread alone, with the GIL.
//!
//! The GIL is released while this thread works, so another thread that changes the inputs
//! meanwhile gets an error or mixed results: don't.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;

use crate::threads;

/// One batch read from the Python inputs.
pub struct Batch<In> {
    /// What the parts are computed from (owned: the pool works on it without the GIL).
    pub input: In,
    /// Number of parts; `work(&input, part)` is called once for each part in `0..parts`.
    pub parts: usize,
    /// Work on the calling thread, with the GIL (a small batch).
    pub inline: bool,
}

/// What a reader of batches returns: the next batch, or None after the last.
pub type NextBatch<In> = PyResult<Option<Batch<In>>>;

/// Read batches with `read` until it returns None, compute `work(&input, part)` for every part
/// of every batch, and pass the results to `collect` in order (batch by batch, part by part).
///
/// `read` gets back the input of a batch whose work is done, when there is one, so it can
/// reuse its buffers: a reader that allocated new ones per batch pays for growing them again
/// and for the page faults of fresh memory, on the calling thread, which is the one that
/// limits the speed.
///
/// A read error is reported after the results of the batches read before it (so the first
/// error in input order is the one raised when an earlier batch's work fails too).
pub fn pipelined<In, Out>(
    py: Python<'_>,
    n_threads: Option<usize>,
    mut read: impl FnMut(Option<In>) -> NextBatch<In>,
    work: impl Fn(&In, usize) -> Out + Send + Sync + 'static,
    mut collect: impl FnMut(Out) -> PyResult<()>,
) -> PyResult<()>
where
    In: Send + Sync + 'static,
    Out: Send + Sync + 'static,
{
    let workers = threads::resolve(n_threads)? - 1;
    let work: PartWorker<In, Out> = Arc::new(work);
    let mut in_flight: Option<InFlight<In, Out>> = None;
    let mut done: Option<In> = None;
    loop {
        let batch = match read(done.take()) {
            Ok(Some(batch)) => batch,
            Ok(None) => break,
            Err(err) => {
                if let Some(previous) = in_flight.take() {
                    previous.finish(py, &work, &mut collect)?;
                }
                return Err(err);
            }
        };
        if let Some(previous) = in_flight.take() {
            done = Some(previous.finish(py, &work, &mut collect)?);
        }
        let shared = Arc::new(SharedBatch::new(batch.input, batch.parts));
        let pending = if batch.inline || workers == 0 {
            Vec::new()
        } else {
            (0..workers.min(batch.parts))
                .map(|_| {
                    let (shared, work) = (shared.clone(), work.clone());
                    threads::spawn(Some(workers), move || shared.work(&*work))
                })
                .collect::<PyResult<_>>()?
        };
        if batch.inline {
            shared.work(&*work);
        }
        in_flight = Some(InFlight { shared, pending });
    }
    if let Some(last) = in_flight {
        last.finish(py, &work, &mut collect)?;
    }
    Ok(())
}

/// How `pipelined` computes one part of a batch.
type PartWorker<In, Out> = Arc<dyn Fn(&In, usize) -> Out + Send + Sync>;

/// One batch being worked on: its input, the next part to claim, and each part's result.
struct SharedBatch<In, Out> {
    input: In,
    next_part: AtomicUsize,
    results: Vec<OnceLock<Out>>,
}

impl<In, Out> SharedBatch<In, Out> {
    fn new(input: In, parts: usize) -> Self {
        SharedBatch {
            input,
            next_part: AtomicUsize::new(0),
            results: (0..parts).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Claim and compute parts until none is left (called by every thread on the batch).
    fn work(&self, work: &(impl Fn(&In, usize) -> Out + ?Sized)) {
        loop {
            let part = self.next_part.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.results.get(part) else {
                return;
            };
            let _ = slot.set(work(&self.input, part));
        }
    }
}

/// A batch handed to the pool's workers.
struct InFlight<In, Out> {
    shared: Arc<SharedBatch<In, Out>>,
    pending: Vec<threads::Pending<()>>,
}

impl<In, Out> InFlight<In, Out>
where
    In: Send + Sync,
    Out: Send + Sync,
{
    /// Help the workers (without the GIL), wait for them, and pass the results on in order;
    /// give back the batch's input.
    fn finish(
        self,
        py: Python<'_>,
        work: &PartWorker<In, Out>,
        collect: &mut impl FnMut(Out) -> PyResult<()>,
    ) -> PyResult<In> {
        let shared = &self.shared;
        py.detach(|| shared.work(&**work));
        for worker in self.pending {
            worker.wait(py)?;
        }
        let internal = |what: &str| {
            pyo3::exceptions::PyRuntimeError::new_err(format!(
                "internal error in ragmeter's core (please report it): {what}"
            ))
        };
        let shared = Arc::into_inner(self.shared)
            .ok_or_else(|| internal("a batch is still shared after its workers ended"))?;
        for result in shared.results {
            collect(
                result
                    .into_inner()
                    .ok_or_else(|| internal("a part was not computed"))?,
            )?;
        }
        Ok(shared.input)
    }
}
