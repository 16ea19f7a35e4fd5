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

    #[test]
    fn every_resampling_kernel_stops_when_asked_and_agrees_when_not() {
        use crate::randomised::{self, MaxStatistic};
        use crate::signflip::{self, Alternative::TwoSided, SignFlipMethod, SystemValues};
        let sampled = SignFlipMethod::Sampled {
            n_resamples: 5000,
            seed: 3,
        };
        let d: Vec<f64> = (0..40).map(|i| f64::from(i % 7) - 2.5).collect();
        let values: Vec<f64> = (0..60).map(|i| f64::from(i % 11) / 10.0).collect();
        let systems = SystemValues {
            values: &values,
            n_systems: 3,
            n_metrics: 1,
            n_queries: 20,
        };
        let pairs = [(0, 1), (0, 2)];
        let stopped = Cancel::new();
        stopped.cancel();
        let clear = Cancel::new();
        let cancelled = |r: CoreResult<()>| matches!(r, Err(CoreError::Cancelled));
        for method in [sampled, SignFlipMethod::Exact] {
            let run = |c: &Cancel| {
                signflip::sign_flip_test_cancellable(&d[..20], 1, 20, method, TwoSided, c)
                    .map(|r| r.counts)
            };
            assert!(cancelled(run(&stopped).map(drop)));
            let plain = signflip::sign_flip_test(&d[..20], 1, 20, method, TwoSided).unwrap();
            assert_eq!(run(&clear).unwrap(), plain.counts);
            let run = |c: &Cancel| {
                signflip::sign_flip_pairs_cancellable(systems, &pairs, method, TwoSided, c)
                    .map(|r| r.counts)
            };
            assert!(cancelled(run(&stopped).map(drop)));
            let plain = signflip::sign_flip_pairs(systems, &pairs, method, TwoSided).unwrap();
            assert_eq!(run(&clear).unwrap(), plain.counts);
            let run = |c: &Cancel| {
                randomised::westfall_young_cancellable(&d, 2, 20, MaxStatistic::T, method, c)
                    .map(|r| r.raw)
            };
            assert!(cancelled(run(&stopped).map(drop)));
            let plain = randomised::westfall_young(&d, 2, 20, MaxStatistic::T, method).unwrap();
            assert_eq!(run(&clear).unwrap(), plain.raw);
        }
        let scores: Vec<f64> = (0..24).map(|i| f64::from(i * 7 % 5)).collect();
        let run = |c: &Cancel| {
            randomised::randomised_tukey_cancellable(&scores, 8, 3, sampled, c).map(|r| r.counts)
        };
        assert!(cancelled(run(&stopped).map(drop)));
        let plain = randomised::randomised_tukey(&scores, 8, 3, sampled).unwrap();
        assert_eq!(run(&clear).unwrap(), plain.counts);
        let run =
            |c: &Cancel| signflip::bootstrap_mean_differences_cancellable(&d, 2, 20, 3000, 5, c);
        assert!(cancelled(run(&stopped).map(drop)));
        let plain = signflip::bootstrap_mean_differences(&d, 2, 20, 3000, 5).unwrap();
        assert_eq!(run(&clear).unwrap(), plain);
        let run = |c: &Cancel| {
            signflip::bootstrap_pairs_cancellable(systems, &pairs, 3000, 5, 0.95, TwoSided, c)
                .map(|r| r.counts)
        };
        assert!(cancelled(run(&stopped).map(drop)));
        let plain = signflip::bootstrap_pairs(systems, &pairs, 3000, 5, 0.95, TwoSided).unwrap();
        assert_eq!(run(&clear).unwrap(), plain.counts);
    }
}
