//! Every resampling kernel stops at its next block once its `Cancel` is set, and gives the
//! plain kernel's result when it is not. (An integration test: `cancel` is read by the
//! kernels, so its own unit tests may not read them back: no module cycle in the core.)

use ragmeter_core::cancel::Cancel;
use ragmeter_core::error::{CoreError, CoreResult};
use ragmeter_core::randomised::{self, MaxStatistic};
use ragmeter_core::signflip::{self, Alternative::TwoSided, SignFlipMethod, SystemValues};

#[test]
fn every_resampling_kernel_stops_when_asked_and_agrees_when_not() {
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
    let run = |c: &Cancel| signflip::bootstrap_mean_differences_cancellable(&d, 2, 20, 3000, 5, c);
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
