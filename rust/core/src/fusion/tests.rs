//! The fusion kernels against naive references.

use super::score::merge_sort;
use super::*;
use proptest::prelude::*;

fn rows(queries: &[&[(&str, f64)]]) -> RunRows {
    let mut run = RunRows::new();
    for docs in queries {
        for (id, s) in *docs {
            run.push_doc(id.as_bytes(), *s);
        }
        run.end_query();
    }
    run
}

fn query(fused: &Fused, q: usize) -> Vec<(String, f64)> {
    fused
        .row(q)
        .map(|i| {
            (
                String::from_utf8(fused.id(i).to_vec()).unwrap(),
                fused.scores[i],
            )
        })
        .collect()
}

#[test]
fn every_declared_method_builds_from_its_parameters() {
    let mut names: Vec<&str> = METHODS.iter().map(|m| m.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), METHODS.len(), "a method is declared twice");
    for m in METHODS {
        let mut args = Args::new();
        let mut give = |name: &str| {
            let value = match param_kind(name).expect("a declared parameter") {
                ParamKind::Number => Value::Number(0.5),
                ParamKind::Count => Value::Count(2),
                ParamKind::PerRun => Value::PerRun(vec![0.5, 0.5]),
                ParamKind::PerRunVectors => Value::PerRunVectors(vec![vec![0.5], vec![0.5]]),
            };
            args.set(name, value).unwrap();
        };
        m.parameters.iter().for_each(|p| give(p.0));
        if let Some(learns) = &m.learns {
            give(learns.parameter);
            m.training(&args).unwrap();
        }
        let method = m.method(&args).unwrap();
        let a = rows(&[&[("a", 1.0), ("b", 0.5)]]);
        let b = rows(&[&[("b", 2.0), ("c", 1.0)]]);
        let fused = fuse(&[a, b], Norm::MinMax, &method).unwrap();
        assert_eq!(fused.row(0).len(), 3, "{}", m.name);
    }
}

#[test]
fn a_method_without_its_parameter_is_an_error_naming_it() {
    let err = declaration("rbc")
        .unwrap()
        .method(&Args::new())
        .unwrap_err();
    assert!(err.to_string().contains("phi"), "{err}");
    // A declared default fills in.
    let rrf = declaration("rrf").unwrap().method(&Args::new()).unwrap();
    assert!(matches!(rrf, Method::Rrf { k } if k == 60.0));
    assert!(declaration("fuse_everything").is_err());
}

#[test]
fn rrf_of_two_runs() {
    let a = rows(&[&[("d1", 3.0), ("d2", 2.0)]]);
    let b = rows(&[&[("d2", 9.0), ("d3", 1.0)]]);
    let fused = fuse(&[a, b], Norm::None, &Method::Rrf { k: 60.0 }).unwrap();
    let got = query(&fused, 0);
    assert_eq!(got[0].0, "d2");
    assert!((got[0].1 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-15);
    // d1 is first in run a (1/61), d3 second in run b (1/62).
    assert_eq!(got[1].0, "d1");
    assert_eq!(got[2].0, "d3");
}

#[test]
fn ties_break_by_doc_id_descending() {
    let a = rows(&[&[("a", 1.0), ("b", 1.0), ("c", 1.0)]]);
    let b = rows(&[&[]]);
    let fused = fuse(&[a, b], Norm::None, &Method::CombSum).unwrap();
    let ids: Vec<String> = query(&fused, 0).into_iter().map(|d| d.0).collect();
    assert_eq!(ids, ["c", "b", "a"]);
}

#[test]
fn non_finite_score_is_an_error_naming_run_and_document() {
    let a = rows(&[&[("a", f64::NAN)]]);
    let b = rows(&[&[("a", 1.0)]]);
    let err = fuse(&[b, a], Norm::None, &Method::CombSum).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("run 1") && text.contains("'a'") && text.contains("NaN"));
}

#[test]
fn a_document_listed_twice_in_one_run_is_an_error() {
    let a = rows(&[&[("a", 1.0), ("b", 2.0), ("a", 3.0)]]);
    let b = rows(&[&[("a", 1.0)]]);
    let err = FusionInput::new(&[b, a]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("run 1") && text.contains("'a'") && text.contains("twice"));
}

#[test]
fn score_of_key_inverts_descending_key() {
    for s in [
        0.0,
        -0.0,
        1.5,
        -1.5,
        f64::MIN_POSITIVE,
        -1e-310,
        f64::MAX,
        f64::MIN,
    ] {
        assert_eq!(score_of_key(descending_key(s)).to_bits(), s.to_bits());
    }
}

#[test]
fn the_order_of_a_run_s_documents_does_not_change_the_fusion() {
    let a = rows(&[&[("a", 1.0), ("b", 2.0), ("c", 2.0), ("d", 0.5)]]);
    let a_reversed = rows(&[&[("d", 0.5), ("c", 2.0), ("b", 2.0), ("a", 1.0)]]);
    let b = rows(&[&[("c", 9.0), ("e", 1.0)]]);
    for method in [Method::Rrf { k: 60.0 }, Method::CombMnz, Method::BordaFuse] {
        for norm in [Norm::None, Norm::MinMax, Norm::Sum, Norm::Rank] {
            let x = fuse(&[a.clone(), b.clone()], norm, &method).unwrap();
            let y = fuse(&[a_reversed.clone(), b.clone()], norm, &method).unwrap();
            assert_eq!(query(&x, 0), query(&y, 0), "{method:?} {norm:?}");
        }
    }
}

#[test]
fn weights_count_is_checked() {
    let a = rows(&[&[("a", 1.0)]]);
    let b = rows(&[&[("a", 1.0)]]);
    let err = fuse(&[a, b], Norm::None, &Method::Wsum { weights: vec![1.0] }).unwrap_err();
    assert!(err.to_string().contains("1 values for 2 runs"));
}

#[test]
fn merge_sort_handles_a_cycle_without_panicking() {
    // a > b, b > c, c > a: a cyclic "order".
    let rank = |x: usize| x;
    let before = |x: usize, y: usize| (rank(x) + 1) % 3 != rank(y);
    let mut items = vec![0, 1, 2];
    let mut buffer = vec![0; 3];
    merge_sort(&mut items, &mut buffer, &before);
    let mut sorted = items.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, [0, 1, 2]);
}

/// A naive CombMNZ over dicts, the reference for the kernel.
fn naive_mnz(runs: &[Vec<(String, f64)>]) -> Vec<(String, f64)> {
    let mut acc: std::collections::BTreeMap<String, (f64, usize)> = Default::default();
    for run in runs {
        for (d, s) in run {
            let e = acc.entry(d.clone()).or_insert((0.0, 0));
            e.0 += s;
            e.1 += 1;
        }
    }
    let mut out: Vec<(String, f64)> = acc
        .into_iter()
        .map(|(d, (s, k))| (d, s * k as f64))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| b.0.cmp(&a.0)));
    out
}

/// RRF by its definition: each run's documents by normalised score in trec order, 1 / (k +
/// position) summed, the fused list in trec order.
fn naive_rrf(runs: &[Vec<(String, f64)>], k: f64, min_max: bool) -> Vec<(String, f64)> {
    let mut sums: std::collections::BTreeMap<String, f64> = Default::default();
    for run in runs {
        let (lo, hi) = run
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| {
                (a.min(d.1), b.max(d.1))
            });
        let mut docs: Vec<(String, f64)> = run
            .iter()
            .map(|(d, s)| {
                let v = if min_max {
                    (s - lo) / (hi - lo).max(MIN_DENOMINATOR)
                } else {
                    *s
                };
                (d.clone(), v)
            })
            .collect();
        docs.sort_by(|a, b| trec_cmp((a.0.as_bytes(), a.1), (b.0.as_bytes(), b.1)));
        for (p, (d, _)) in docs.iter().enumerate() {
            *sums.entry(d.clone()).or_insert(0.0) += 1.0 / (k + p as f64 + 1.0);
        }
    }
    let mut out: Vec<(String, f64)> = sums.into_iter().collect();
    out.sort_by(|a, b| trec_cmp((a.0.as_bytes(), a.1), (b.0.as_bytes(), b.1)));
    out
}

proptest! {
    #[test]
    fn sort_keyed_is_trec_cmp_order(
        items in prop::collection::vec(
            ("[a-c]{0,2}", prop::sample::select(vec![
                -0.0, 0.0, 1.0, -1.0, 0.5, 1e-310, -1e-310, 3.0e300, -3.0e300,
                f64::MIN_POSITIVE, 2.0, 2.0000000000000004,
            ])), 0..40)
    ) {
        let docs: Vec<(&[u8], f64)> = items.iter().map(|(d, s)| (d.as_bytes(), *s)).collect();
        let mut expected = docs.clone();
        expected.sort_by(|a, b| trec_cmp(*a, *b));
        let mut keyed: Vec<(u64, u32)> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (descending_key(d.1), i as u32))
            .collect();
        sort_keyed(&mut keyed, |i| docs[i as usize].0);
        prop_assert_eq!(keyed.len(), expected.len());
        for (&(key, i), e) in keyed.iter().zip(&expected) {
            prop_assert_eq!(docs[i as usize].0, e.0);
            prop_assert_eq!(score_of_key(key).to_bits(), e.1.to_bits());
        }
    }

    #[test]
    fn rrf_matches_its_definition(
        runs in prop::collection::vec(
            prop::collection::btree_map("[a-f]{1,2}", -5i32..5, 1..8), 2..4),
        min_max in any::<bool>(),
    ) {
        let runs: Vec<Vec<(String, f64)>> = runs
            .into_iter()
            .map(|m| m.into_iter().map(|(d, s)| (d, f64::from(s))).collect())
            .collect();
        let rows_: Vec<RunRows> = runs
            .iter()
            .map(|r| {
                let docs: Vec<(&str, f64)> = r.iter().map(|(d, s)| (d.as_str(), *s)).collect();
                rows(&[&docs])
            })
            .collect();
        let norm = if min_max { Norm::MinMax } else { Norm::None };
        let fused = fuse(&rows_, norm, &Method::Rrf { k: 60.0 }).unwrap();
        prop_assert_eq!(query(&fused, 0), naive_rrf(&runs, 60.0, min_max));
    }
}

proptest! {
    #[test]
    fn comb_mnz_matches_a_naive_reference(
        runs in prop::collection::vec(
            prop::collection::btree_map("[a-f]{1,2}", -5i32..5, 0..8), 2..4)
    ) {
        let runs: Vec<Vec<(String, f64)>> = runs
            .into_iter()
            .map(|m| m.into_iter().map(|(d, s)| (d, f64::from(s))).collect())
            .collect();
        let rows_: Vec<RunRows> = runs
            .iter()
            .map(|r| {
                let docs: Vec<(&str, f64)> = r.iter().map(|(d, s)| (d.as_str(), *s)).collect();
                rows(&[&docs])
            })
            .collect();
        let fused = fuse(&rows_, Norm::None, &Method::CombMnz).unwrap();
        prop_assert_eq!(query(&fused, 0), naive_mnz(&runs));
    }
}
