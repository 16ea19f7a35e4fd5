//! Kernels against naive definitions and the providers' algorithms written out.

use super::gains::*;
use super::*;
use crate::csr::RowsBuf;
use proptest::prelude::*;

/// Straight from the definitions, over the full list of grades of the ranking.
fn naive(ranked: &[f64], judged: &[f64], measure: &Measure, t: f64) -> f64 {
    let r = judged.iter().filter(|g| **g >= t).count();
    let k = measure.cutoff.unwrap_or(ranked.len().max(1));
    let top = &ranked[..k.min(ranked.len())];
    let rel_in = |xs: &[f64]| xs.iter().filter(|g| **g >= t).count() as f64;
    let div_r = |x: f64| if r == 0 { f64::NAN } else { x / r as f64 };
    match measure.kind {
        Kind::Precision => rel_in(top) / k as f64,
        Kind::Recall => div_r(rel_in(top)),
        Kind::Success => (rel_in(top) > 0.0) as u8 as f64,
        Kind::ReciprocalRank => top
            .iter()
            .position(|g| *g >= t)
            .map_or(0.0, |i| 1.0 / (i + 1) as f64),
        Kind::AveragePrecision => {
            let mut s = 0.0;
            for i in 0..top.len() {
                if top[i] >= t {
                    s += rel_in(&top[..=i]) / (i + 1) as f64;
                }
            }
            div_r(s)
        }
        Kind::RPrecision => div_r(rel_in(&ranked[..r.min(ranked.len())])),
        Kind::Ndcg(None) => {
            let dcg: f64 = top
                .iter()
                .enumerate()
                .filter(|(_, g)| **g > 0.0)
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            let mut ideal: Vec<f64> = judged.iter().copied().filter(|g| *g > 0.0).collect();
            ideal.sort_by(|a, b| b.partial_cmp(a).unwrap());
            let kk = measure.cutoff.unwrap_or(ideal.len());
            let idcg: f64 = ideal
                .iter()
                .take(kk)
                .enumerate()
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            if idcg > 0.0 { dcg / idcg } else { f64::NAN }
        }
        _ => unreachable!(),
    }
}

/// A prepared query from the grades of a ranking (0: unjudged) and all judged grades.
fn prepared_of(ranked: &[f64], judged: &[f64], all_judged: bool) -> Prepared {
    let mut hits = RowsBuf::default();
    hits.push_row(
        ranked
            .iter()
            .enumerate()
            .filter(|(_, g)| **g > 0.0 || (all_judged && **g != 0.0))
            .map(|(i, g)| Hit {
                rank: (i + 1) as u32,
                grade: *g,
            }),
    );
    let mut judged_positive = RowsBuf::default();
    judged_positive.push_row(judged.iter().copied().filter(|g| *g > 0.0));
    Prepared {
        hits,
        judged_positive,
        retrieved: vec![ranked.len() as u32],
        judged_count: vec![judged.len() as u32],
        judged_negative: vec![judged.iter().filter(|g| **g < 0.0).count() as u32],
        all_judged,
        subtopics: None,
        ties: None,
    }
}

fn eval_one(ranked: &[f64], judged: &[f64], measure: &Measure, t: f64) -> f64 {
    let p = prepared_of(ranked, judged, measure.needs_all_judged());
    let options = EvaluationOptions {
        threshold: t,
        judged_only: false,
    };
    evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
}

fn m(kernel: &str, k: Option<usize>) -> Measure {
    Measure::new(kernel, k, &[], None, None).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() < 1e-12
}

fn common(k: usize) -> Vec<Measure> {
    let mut out = vec![];
    for kernel in [
        "precision",
        "recall",
        "success",
        "reciprocal_rank",
        "average_precision",
        "ndcg",
    ] {
        out.push(m(kernel, Some(k)));
    }
    for kernel in [
        "reciprocal_rank",
        "average_precision",
        "r_precision",
        "ndcg",
    ] {
        out.push(m(kernel, None));
    }
    out
}

#[test]
fn hand_computed_values() {
    // E8: three relevant, run d1 > x, k = 10.
    let ranked = [1.0, 0.0];
    let judged = [1.0, 1.0, 1.0];
    let v = |kernel, k| eval_one(&ranked, &judged, &m(kernel, k), 1.0);
    assert!(close(v("precision", Some(10)), 0.1));
    assert!(close(v("recall", Some(10)), 1.0 / 3.0));
    assert!(close(v("average_precision", None), 1.0 / 3.0));
    assert!((v("ndcg", Some(10)) - 0.4693).abs() < 5e-5);
    // E11: 4 relevant, run d1 > x > d2.
    let ap = eval_one(
        &[1.0, 0.0, 1.0],
        &[1.0; 4],
        &m("average_precision", None),
        1.0,
    );
    assert!(close(ap, (1.0 + 2.0 / 3.0) / 4.0));
    let ap2 = eval_one(
        &[1.0, 0.0, 1.0],
        &[1.0; 4],
        &m("average_precision", Some(2)),
        1.0,
    );
    assert!(close(ap2, 0.25));
    // E2: grades d1=1, d2=3, d3=2, run d1 > d2 > x: linear nDCG@3 = 0.6075.
    let ndcg = eval_one(&[1.0, 3.0, 0.0], &[1.0, 3.0, 2.0], &m("ndcg", Some(3)), 1.0);
    assert!((ndcg - 0.6075).abs() < 5e-5, "{ndcg}");
}

#[test]
fn judgment_based_measures_by_hand() {
    // Ranking: rel, nonrel (judged 0), unjudged (absent), rel, in-pool unjudged (-1).
    // Judged: two relevant retrieved, one relevant not retrieved, two non-relevant (one
    // retrieved), one -1.
    let ranked = [1.0, -0.5, 0.0, 1.0, -1.0];
    let judged = [1.0, 1.0, 1.0, 0.0, 0.0, -1.0];
    // prepared_of keeps grade -0.5 as a negative (unjudged) hit: use a real zero grade.
    let mut p = prepared_of(&ranked, &judged, true);
    p.hits.values[1].grade = 0.0;
    let run = |kernel: &str| {
        let measure = m(kernel, None);
        let options = EvaluationOptions {
            threshold: 1.0,
            judged_only: false,
        };
        evaluate(&p, &[measure], options).unwrap()[0]
    };
    // bpref: R=3, judged non-relevant = 2; first rel: 1, second rel (1 nonrel above): 1 - 1/2.
    assert!(close(run("bpref"), (1.0 + 0.5) / 3.0));
    assert!(close(run("num_nonrel_judged_ret"), 1.0));
    // set measures over 5 retrieved, 2 relevant retrieved, R = 3.
    assert!(close(run("set_precision"), 2.0 / 5.0));
    assert!(close(run("set_recall"), 2.0 / 3.0));
    assert!(close(run("set_map"), 4.0 / 15.0));
}

#[test]
fn empty_sums_are_positive_zero() {
    for measure in common(5) {
        let v = eval_one(&[0.0, 0.0], &[1.0], &measure, 1.0);
        assert!(v == 0.0 && v.is_sign_positive(), "{measure:?}: {v}");
    }
}

#[test]
fn undefined_values_are_nan() {
    assert!(eval_one(&[0.0], &[], &m("recall", Some(5)), 1.0).is_nan());
    assert_eq!(eval_one(&[0.0], &[], &m("precision", Some(5)), 1.0), 0.0);
    assert!(eval_one(&[0.0], &[0.0], &m("bpref", None), 1.0).is_nan());
}

#[test]
fn rejects_bad_arguments() {
    assert!(Measure::new("precision", None, &[], None, None).is_err());
    assert!(Measure::new("ndcg", Some(0), &[], None, None).is_err());
    assert!(Measure::new("r_precision", Some(3), &[], None, None).is_err());
    assert!(Measure::new("nope", None, &[], None, None).is_err());
    assert!(Measure::new("set_f", None, &[], None, None).is_err());
    assert!(Measure::new("rbp", None, &[1.5], None, None).is_err());
    assert!(Measure::new("bpref", None, &[], Some(vec![(1, 2.0)]), None).is_err());
    assert!(Measure::new("g", None, &[], Some(vec![(-1, 2.0)]), None).is_err());
    let p = prepared_of(&[], &[], false);
    let measures = [m("ndcg", None)];
    for t in [0.0, f64::NAN] {
        let options = EvaluationOptions {
            threshold: t,
            judged_only: false,
        };
        assert!(evaluate(&p, &measures, options).is_err());
    }
}

#[test]
fn every_kernel_name_builds() {
    for name in kernel_names() {
        let declared = kernels::kernel(name).unwrap();
        let k = (declared.cutoff != kernels::Cutoff::Refused).then_some(5);
        let values: Vec<f64> = match &declared.params {
            // Increasing: min_rel < max_rel where a kernel reads them.
            kernels::Params::Exactly(n)
            | kernels::Params::ExactlyWithGains(n)
            | kernels::Params::AtLeast(n) => (0..*n).map(|i| 0.25 * (i + 1) as f64).collect(),
            _ => vec![],
        };
        assert!(Measure::new(name, k, &values, None, None).is_ok(), "{name}");
    }
}

#[test]
fn glibc_merge_sort_keeps_equal_elements_in_order() {
    let mut items = [(1, 0.5), (2, 0.7), (0, 0.0)];
    glibc_merge_sort(&mut items, |a, b| (a.1 - b.1) as i32);
    assert_eq!(items, [(1, 0.5), (2, 0.7), (0, 0.0)]);
    let mut items = [3.0, 1.0, 2.0, 0.0, 5.0];
    glibc_merge_sort(&mut items, |a, b| (a - b) as i32);
    assert_eq!(items, [0.0, 1.0, 2.0, 3.0, 5.0]);
}

proptest! {
    #[test]
    fn matches_naive_definitions(
        ranked in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0), Just(-1.0)], 0..40),
        extra_judged in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0)], 0..10),
        k in 1usize..50,
        t in prop_oneof![Just(1.0), Just(2.0), Just(0.5)],
    ) {
        // Judged grades: every ranked document's grade (unjudged docs have grade 0) plus
        // documents that were not retrieved.
        let judged: Vec<f64> = ranked.iter().copied().chain(extra_judged.iter().copied()).collect();
        for measure in common(k) {
            let fast = eval_one(&ranked, &judged, &measure, t);
            let slow = naive(&ranked, &judged, &measure, t);
            prop_assert!(close(fast, slow), "{measure:?}: {fast} vs {slow}");
        }
    }

    /// The gain-table nDCG with default gains is the linear-gain nDCG, on integer grades.
    #[test]
    fn gain_table_ndcg_equals_linear_ndcg(
        ranked in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(3.0)], 0..30),
        extra_judged in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(4.0)], 0..10),
    ) {
        let judged: Vec<f64> = ranked.iter().copied().chain(extra_judged.iter().copied()).collect();
        let linear = eval_one(&ranked, &judged, &m("ndcg", None), 1.0);
        let table = eval_one(&ranked, &judged, &Measure::new("ndcg", None, &[], Some(vec![]), None).unwrap(), 1.0);
        prop_assert!((linear.is_nan() && table.is_nan()) || (linear - table).abs() < 1e-12, "{linear} vs {table}");
    }
}

/// A prepared query from a ranking of judgments (None: unjudged) and the judged grades of
/// documents that were not retrieved.
fn prepared_with(ranked: &[Option<f64>], unretrieved: &[f64], all_judged: bool) -> Prepared {
    let mut hits = RowsBuf::default();
    hits.push_row(ranked.iter().enumerate().filter_map(|(i, g)| match g {
        Some(g) if *g > 0.0 || all_judged => Some(Hit {
            rank: (i + 1) as u32,
            grade: *g,
        }),
        _ => None,
    }));
    let judged: Vec<f64> = ranked
        .iter()
        .flatten()
        .chain(unretrieved)
        .copied()
        .collect();
    let mut judged_positive = RowsBuf::default();
    judged_positive.push_row(judged.iter().copied().filter(|g| *g > 0.0));
    Prepared {
        hits,
        judged_positive,
        retrieved: vec![ranked.len() as u32],
        judged_count: vec![judged.len() as u32],
        judged_negative: vec![judged.iter().filter(|g| **g < 0.0).count() as u32],
        all_judged,
        subtopics: None,
        ties: None,
    }
}

fn value_of(ranked: &[Option<f64>], unretrieved: &[f64], measure: &Measure, t: f64) -> f64 {
    let p = prepared_with(ranked, unretrieved, measure.needs_all_judged());
    let options = EvaluationOptions {
        threshold: t,
        judged_only: false,
    };
    evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
}

/// The new kernels straight from their providers' code: full grade vectors, no hits.
fn naive_provider(ranked: &[Option<f64>], unretrieved: &[f64], measure: &Measure, t: f64) -> f64 {
    let grade = |i: usize| ranked[i].unwrap_or(0.0).max(0.0);
    let n = ranked.len();
    let k = measure.cutoff.unwrap_or(n).min(n);
    let mut positive: Vec<f64> = ranked
        .iter()
        .flatten()
        .chain(unretrieved)
        .copied()
        .filter(|g| *g > 0.0)
        .collect();
    positive.sort_by(|a, b| b.total_cmp(a));
    let relevant = positive.iter().filter(|g| **g >= t).count();
    match &measure.kind {
        Kind::Err => {
            if positive.is_empty() {
                return f64::NAN;
            }
            let (mut score, mut decay) = (0.0, 1.0);
            for i in 0..k {
                let r = (2f64.powf(grade(i).min(4.0)) - 1.0) / 16.0;
                score += r * decay / (i + 1) as f64;
                decay *= 1.0 - r;
            }
            score
        }
        Kind::NdcgExp | Kind::NdcgBurges | Kind::DcgBurges => {
            let gain = |g: f64| match measure.kind {
                Kind::NdcgExp => 2f64.powf(g) - 1.0,
                _ if g >= t => 2f64.powf(g) - 1.0,
                _ => 0.0,
            };
            let dcg: f64 = (0..k)
                .map(|i| gain(grade(i)) / ((i + 2) as f64).log2())
                .sum();
            let kk = measure.cutoff.unwrap_or(usize::MAX);
            let ideal: f64 = positive
                .iter()
                .take(kk)
                .enumerate()
                .map(|(i, g)| gain(*g) / ((i + 2) as f64).log2())
                .sum();
            match measure.kind {
                Kind::DcgBurges => dcg,
                _ if ideal > 0.0 => dcg / ideal,
                _ => f64::NAN,
            }
        }
        Kind::RbpGraded(p) => (0..k)
            .map(|i| (1.0 - p) * p.powi(i as i32) * grade(i))
            .sum(),
        Kind::RbpGradedResidual(p) => {
            let unjudged: f64 = (0..k)
                .filter(|&i| ranked[i].is_none())
                .map(|i| (1.0 - p) * p.powi(i as i32))
                .sum();
            unjudged + p.powi(measure.cutoff.unwrap_or(n) as i32)
        }
        Kind::Judged => {
            if k == 0 {
                f64::NAN
            } else {
                (0..k).filter(|&i| ranked[i].is_some()).count() as f64 / k as f64
            }
        }
        Kind::Accuracy => {
            // ir_measures' accuracy provider, line by line.
            let mut nonrels = vec![0usize];
            for g in ranked.iter().take(k) {
                if g.unwrap_or(0.0) >= t {
                    nonrels.push(*nonrels.last().unwrap());
                } else {
                    *nonrels.last_mut().unwrap() += 1;
                }
            }
            let last = *nonrels.last().unwrap();
            if nonrels.len() < 2 || last == 0 {
                return f64::NAN;
            }
            let above: usize = nonrels[..nonrels.len() - 1].iter().sum();
            1.0 - above as f64 / (last as f64 * (nonrels.len() - 1) as f64)
        }
        Kind::F1 => {
            if relevant == 0 {
                return f64::NAN;
            }
            let depth = measure.cutoff.unwrap_or(n);
            let hits = (0..k).filter(|&i| ranked[i].unwrap_or(0.0) >= t).count() as f64;
            let (p, r) = (hits / depth as f64, hits / relevant as f64);
            if depth == 0 || p + r == 0.0 {
                0.0
            } else {
                2.0 * p * r / (p + r)
            }
        }
        Kind::Cwl(model, gains) => {
            // cwl_eval's c vector over 1000 ranks, then W and the expected utility.
            let g: Vec<f64> = (0..CWL_DEPTH)
                .map(|i| match (i < n, gains) {
                    (false, _) => 0.0,
                    (true, _) if ranked[i].is_none() => 0.0,
                    (true, CwlGains::Binary) => f64::from(u8::from(grade(i) >= t)),
                    (true, CwlGains::Scaled { min_rel, max_rel }) => {
                        (grade(i).clamp(*min_rel, *max_rel) - min_rel) / (max_rel - min_rel)
                    }
                })
                .collect();
            let kk = measure.cutoff.unwrap_or(CWL_DEPTH) as f64;
            let mut cum = 0.0;
            let c: Vec<f64> = g
                .iter()
                .enumerate()
                .map(|(i, &gi)| {
                    cum += gi;
                    let r = (i + 1) as f64;
                    match model {
                        CwlModel::Rbp(p) => *p,
                        CwlModel::Sdcg if r < kk => (r + 1.0).log2() / (r + 2.0).log2(),
                        CwlModel::Nerr8 if r < kk => 1.0 - gi,
                        CwlModel::Nerr9 if r < kk => r / (r + 1.0) * (1.0 - gi),
                        CwlModel::Sdcg | CwlModel::Nerr8 | CwlModel::Nerr9 => 0.0,
                        CwlModel::Nerr10(p) => p * (1.0 - gi),
                        CwlModel::Nerr11(tt) => {
                            ((r + 2.0 * tt - 1.0) / (r + 2.0 * tt)).powi(2) * (1.0 - gi)
                        }
                        CwlModel::Inst(tt) => {
                            let ti = tt - cum;
                            ((r + tt + ti - 1.0) / (r + tt + ti)).powi(2)
                        }
                        CwlModel::Insq(tt) => ((r + 2.0 * tt - 1.0) / (r + 2.0 * tt)).powi(2),
                        CwlModel::Bpm(tt) => f64::from(u8::from(cum < *tt && r < kk)),
                    }
                })
                .collect();
            let mut reach = vec![1.0; CWL_DEPTH];
            for i in 1..CWL_DEPTH {
                reach[i] = reach[i - 1] * c[i - 1];
            }
            let total: f64 = reach.iter().sum();
            (0..CWL_DEPTH).map(|i| reach[i] / total * g[i]).sum()
        }
        Kind::Compat(p, normalize) => {
            // ir_measures' compat provider with sets (documents named by rank, the
            // unretrieved ones by a negative index).
            let ranking: Vec<i64> = (0..n as i64).collect();
            let mut ideal: Vec<(f64, i64)> = ranked
                .iter()
                .enumerate()
                .filter_map(|(i, g)| g.filter(|g| *g > 0.0).map(|g| (g, i as i64)))
                .chain(
                    unretrieved
                        .iter()
                        .enumerate()
                        .filter(|(_, g)| **g > 0.0)
                        .map(|(j, g)| (*g, -1 - j as i64)),
                )
                .collect();
            ideal.sort_by(|a, b| {
                b.0.total_cmp(&a.0)
                    .then((a.1 < 0).cmp(&(b.1 < 0)))
                    .then(a.1.cmp(&b.1))
            });
            let ideal: Vec<i64> = ideal.into_iter().map(|x| x.1).collect();
            let depth = n.max(ideal.len());
            let rbo = |a: &[i64], b: &[i64]| {
                let (mut sa, mut sb) = (
                    std::collections::HashSet::new(),
                    std::collections::HashSet::new(),
                );
                let (mut score, mut norm, mut w) = (0.0, 0.0, 1.0);
                for i in 0..depth {
                    if i < a.len() {
                        sa.insert(a[i]);
                    }
                    if i < b.len() {
                        sb.insert(b[i]);
                    }
                    score += w * sa.intersection(&sb).count() as f64 / (i + 1) as f64;
                    norm += w;
                    w *= p;
                }
                if depth == 0 { 0.0 } else { score / norm }
            };
            let score = rbo(&ranking, &ideal);
            let best = rbo(&ideal, &ideal);
            if *normalize && best > 0.0 {
                score / best
            } else {
                score
            }
        }
        _ => unreachable!(),
    }
}

fn provider_kernels(k: usize) -> Vec<Measure> {
    let mk = |kernel: &str, cutoff: Option<usize>, params: &[f64]| {
        Measure::new(kernel, cutoff, params, None, None).unwrap()
    };
    let mut out = vec![];
    for cutoff in [Some(k), None] {
        for kernel in [
            "err",
            "ndcg_exp",
            "judged",
            "accuracy",
            "f1",
            "dcg_burges",
            "ndcg_burges",
        ] {
            out.push(mk(kernel, cutoff, &[]));
        }
        out.push(mk("rbp_graded", cutoff, &[0.8]));
        out.push(mk("rbp_graded_residual", cutoff, &[0.7]));
    }
    for kernel in ["sdcg", "nerr8", "nerr9"] {
        out.push(mk(kernel, Some(k), &[0.0, 4.0]));
        out.push(mk(kernel, Some(k), &[1.0, 3.0]));
    }
    for (kernel, x) in [
        ("nerr10", 0.9),
        ("nerr11", 2.0),
        ("inst", 1.0),
        ("insq", 3.0),
    ] {
        out.push(mk(kernel, None, &[x, 0.0, 4.0]));
        out.push(mk(kernel, None, &[x, -1.0, 2.0]));
    }
    out.push(mk("bpm", Some(k), &[2.0, 0.0, 3.0]));
    out.push(mk("rbp_binary", None, &[0.8]));
    out.push(mk("compat", None, &[0.95, 1.0]));
    out.push(mk("compat", None, &[0.8, 0.0]));
    out
}

proptest! {
    /// ir_measures' and ranx's kernels equal the providers' definitions written plainly.
    #[test]
    fn provider_kernels_match_naive_definitions(
        ranked in proptest::collection::vec(prop_oneof![Just(None), Just(Some(-1.0)), Just(Some(0.0)), Just(Some(1.0)), Just(Some(2.0)), Just(Some(3.0)), Just(Some(4.0)), Just(Some(6.0))], 0..40),
        unretrieved in proptest::collection::vec(prop_oneof![Just(0.0), Just(1.0), Just(2.0), Just(4.0), Just(-1.0)], 0..10),
        k in 1usize..50,
        t in prop_oneof![Just(1.0), Just(2.0), Just(0.5)],
    ) {
        for measure in provider_kernels(k) {
            let fast = value_of(&ranked, &unretrieved, &measure, t);
            let slow = naive_provider(&ranked, &unretrieved, &measure, t);
            let ok = (fast.is_nan() && slow.is_nan()) || (fast - slow).abs() <= 1e-12 * slow.abs().max(1.0);
            prop_assert!(ok, "{measure:?}: {fast} vs {slow}");
        }
    }
}

#[test]
fn cwl_measures_read_1000_ranks() {
    // A relevant document at rank 1001 changes nothing; at rank 1000 it counts.
    let mut ranked = vec![None; 1001];
    ranked[1000] = Some(4.0);
    let insq = Measure::new("insq", None, &[1.0, 0.0, 4.0], None, None).unwrap();
    assert_eq!(value_of(&ranked, &[], &insq, 1.0), 0.0);
    ranked[999] = Some(4.0);
    assert!(value_of(&ranked, &[], &insq, 1.0) > 0.0);
}

/// A query with diversity judgments: `ranked` holds the judged document index at each
/// rank (None: unjudged), `judgments` (doc, subtopic, grade) triples of `n_docs` docs.
fn diversity_value(
    ranked: &[Option<u32>],
    judgments: &[(u32, u32, f64)],
    n_docs: usize,
    measure: &Measure,
    t: f64,
) -> f64 {
    let mut hits = RowsBuf::default();
    hits.push_row(ranked.iter().enumerate().filter_map(|(i, d)| {
        d.map(|d| Hit {
            rank: (i + 1) as u32,
            grade: f64::from(d) + 1.0,
        })
    }));
    let mut subtopics = RowsBuf::default();
    subtopics.push_row(
        judgments
            .iter()
            .map(|&(doc, subtopic, grade)| SubtopicGrade {
                doc,
                subtopic,
                grade,
            }),
    );
    let mut judged_positive = RowsBuf::default();
    judged_positive.push_row((1..=n_docs).map(|d| d as f64));
    let p = Prepared {
        hits,
        judged_positive,
        retrieved: vec![ranked.len() as u32],
        judged_count: vec![n_docs as u32],
        judged_negative: vec![0],
        all_judged: true,
        subtopics: Some(subtopics),
        ties: None,
    };
    let options = EvaluationOptions {
        threshold: t,
        judged_only: false,
    };
    evaluate(&p, std::slice::from_ref(measure), options).unwrap()[0]
}

/// ndeval's measures written from its definitions with sets, without normalisation
/// shortcuts: subtopic recall, intent-aware precision and alpha-nDCG (greedy ideal by
/// repeated full rescoring).
fn naive_diversity(
    ranked: &[Option<u32>],
    judgments: &[(u32, u32, f64)],
    n_docs: usize,
    measure: &Measure,
    t: f64,
) -> f64 {
    use std::collections::BTreeSet;
    let rel = |d: u32| -> BTreeSet<u32> {
        judgments
            .iter()
            .filter(|j| j.0 == d && j.2 >= t)
            .map(|j| j.1)
            .collect()
    };
    let all: BTreeSet<u32> = (0..n_docs as u32).flat_map(rel).collect();
    let a = all.len() as f64;
    if all.is_empty() {
        return f64::NAN;
    }
    let k = measure.cutoff.unwrap();
    let run: Vec<BTreeSet<u32>> = ranked
        .iter()
        .take(k)
        .map(|d| d.map(rel).unwrap_or_default())
        .collect();
    let Kind::Diversity(which, alpha, _) = measure.kind else {
        unreachable!()
    };
    let score_of = |list: &[BTreeSet<u32>], i: usize| -> f64 {
        list[i]
            .iter()
            .map(|s| (1.0 - alpha).powi(list[..i].iter().filter(|x| x.contains(s)).count() as i32))
            .sum()
    };
    let dcg = |list: &[BTreeSet<u32>]| -> f64 {
        (0..list.len())
            .map(|i| score_of(list, i) / ((i + 2) as f64).log2())
            .sum()
    };
    match which {
        Diversity::StRecall => run.iter().flatten().collect::<BTreeSet<_>>().len() as f64 / a,
        Diversity::PIa => run.iter().map(|s| s.len()).sum::<usize>() as f64 / (k as f64 * a),
        Diversity::AlphaNdcg => {
            let mut ideal: Vec<BTreeSet<u32>> = vec![];
            let mut left: Vec<u32> = (0..n_docs as u32).collect();
            while ideal.len() < k && !left.is_empty() {
                let mut best = (0, -1.0);
                for (i, &d) in left.iter().enumerate() {
                    let mut with = ideal.clone();
                    with.push(rel(d));
                    let score = score_of(&with, ideal.len());
                    if score >= best.1 {
                        best = (i, score);
                    }
                }
                ideal.push(rel(left.remove(best.0)));
            }
            let run_dcg = dcg(&run);
            if run_dcg == 0.0 {
                0.0
            } else {
                run_dcg / dcg(&ideal)
            }
        }
        _ => unreachable!(),
    }
}

proptest! {
    #[test]
    fn diversity_kernels_match_naive_definitions(
        n_docs in 1usize..8,
        judgments in proptest::collection::vec((0u32..8, 0u32..4, prop_oneof![Just(0.0), Just(1.0), Just(2.0)]), 0..20),
        ranked in proptest::collection::vec(prop_oneof![Just(None), (0u32..8).prop_map(Some)], 0..12),
        k in 1usize..15,
        alpha in prop_oneof![Just(0.5), Just(0.0), Just(1.0), Just(0.3)],
        t in prop_oneof![Just(1.0), Just(2.0)],
    ) {
        // Documents are 0..n_docs, each judged at most once per subtopic, ranked at most once.
        let mut seen = std::collections::BTreeSet::new();
        let judgments: Vec<(u32, u32, f64)> = judgments
            .into_iter()
            .filter(|j| (j.0 as usize) < n_docs && seen.insert((j.0, j.1)))
            .collect();
        let mut placed = std::collections::BTreeSet::new();
        let ranked: Vec<Option<u32>> = ranked
            .into_iter()
            .filter(|d| d.is_none_or(|d| (d as usize) < n_docs && placed.insert(d)))
            .collect();
        for kernel in ["st_recall", "p_ia", "alpha_ndcg"] {
            let params: &[f64] = if kernel == "alpha_ndcg" { &[alpha] } else { &[] };
            let measure = Measure::new(kernel, Some(k), params, None, None).unwrap();
            let fast = diversity_value(&ranked, &judgments, n_docs, &measure, t);
            let slow = naive_diversity(&ranked, &judgments, n_docs, &measure, t);
            let ok = (fast.is_nan() && slow.is_nan()) || (fast - slow).abs() < 1e-12;
            prop_assert!(ok, "{kernel}: {fast} vs {slow}");
        }
    }
}

#[test]
fn the_judged_set_comes_from_the_declaration() {
    // The kernels that read judged non-relevant or unjudged documents, as before the table.
    for name in ["bpref", "infap", "num_nonrel_judged_ret", "rbp_residual"] {
        assert!(
            Measure::new(
                name,
                None,
                if name == "rbp_residual" { &[0.5] } else { &[] },
                None,
                None
            )
            .unwrap()
            .needs_all_judged(),
            "{name}"
        );
    }
    assert!(m("unjudged", Some(5)).needs_all_judged());
    assert!(m("judged", None).needs_all_judged());
    assert!(!m("ndcg", Some(5)).needs_all_judged());
    assert!(
        !Measure::new("ndcg", None, &[], Some(vec![]), None)
            .unwrap()
            .needs_all_judged()
    );
    assert!(
        Measure::new("ndcg", None, &[], Some(vec![(0, 1.0)]), None)
            .unwrap()
            .needs_all_judged()
    );
    assert!(
        !Measure::new("sdcg", Some(5), &[0.0, 4.0], None, None)
            .unwrap()
            .needs_all_judged()
    );
    assert!(
        Measure::new("sdcg", Some(5), &[-1.0, 4.0], None, None)
            .unwrap()
            .needs_all_judged()
    );
    assert!(
        Measure::new("inst", None, &[2.0, -1.0, 4.0], None, None)
            .unwrap()
            .needs_all_judged()
    );
    assert!(Measure::new("inst", None, &[-1.0, 0.0, 4.0], None, None).is_err());
    assert!(
        Measure::new("alpha_ndcg", Some(5), &[0.5], None, None)
            .unwrap()
            .reads_subtopics()
    );
}
