//! The tie-aware kernels against their definition: the mean of the measure over every order
//! of the tied documents, enumerated (at most 8 tied documents per case, so at most 8!
//! orders), the measure computed straight from its definition on each order.

use super::*;
use crate::prepare::{Doc, Duplicates, QueryInput, RankingInput, RankingOptions, prepare};
use proptest::prelude::*;

/// Straight from the definitions, on the grades of a ranking in order (None: not judged) and
/// all judged grades: P@k, recall@k, RR@k, AP@k, nDCG@k (k: None the whole ranking).
fn naive(kernel: &str, ranked: &[Option<f64>], judged: &[f64], k: Option<usize>, t: f64) -> f64 {
    let r = judged.iter().filter(|g| **g >= t).count();
    let depth = k.unwrap_or(usize::MAX).min(ranked.len());
    let rel = |i: usize| ranked[i].is_some_and(|g| g >= t);
    let rel_within = |d: usize| (0..d).filter(|&i| rel(i)).count() as f64;
    match kernel {
        "precision" => rel_within(depth) / k.unwrap() as f64,
        "recall" if r == 0 => f64::NAN,
        "recall" => rel_within(depth) / r as f64,
        "reciprocal_rank" => (0..depth)
            .find(|&i| rel(i))
            .map_or(0.0, |i| 1.0 / (i + 1) as f64),
        "average_precision" if r == 0 => f64::NAN,
        "average_precision" => {
            (0..depth)
                .filter(|&i| rel(i))
                .map(|i| rel_within(i + 1) / (i + 1) as f64)
                .sum::<f64>()
                / r as f64
        }
        "ndcg" => {
            let gain = |g: Option<f64>| g.filter(|g| *g > 0.0).unwrap_or(0.0);
            let dcg: f64 = (0..depth)
                .map(|i| gain(ranked[i]) / ((i + 2) as f64).log2())
                .sum();
            let mut ideal: Vec<f64> = judged.iter().copied().filter(|g| *g > 0.0).collect();
            ideal.sort_by(|a, b| b.total_cmp(a));
            let idcg: f64 = ideal
                .iter()
                .take(k.unwrap_or(usize::MAX))
                .enumerate()
                .map(|(i, g)| g / ((i + 2) as f64).log2())
                .sum();
            if idcg > 0.0 { dcg / idcg } else { f64::NAN }
        }
        _ => unreachable!(),
    }
}

/// Every permutation of `items` (Heap's algorithm), each passed to `visit`.
fn permutations<T: Clone>(items: &mut Vec<T>, n: usize, visit: &mut dyn FnMut(&[T])) {
    if n <= 1 {
        visit(items);
        return;
    }
    for i in 0..n - 1 {
        permutations(items, n - 1, visit);
        let j = if n.is_multiple_of(2) { i } else { 0 };
        items.swap(j, n - 1);
    }
    permutations(items, n - 1, visit);
}

/// Every order of the groups' documents (the groups in order, each permuted): `visit` gets
/// the grades of each order.
fn orders(
    groups: &[Vec<Option<f64>>],
    prefix: &mut Vec<Option<f64>>,
    visit: &mut dyn FnMut(&[Option<f64>]),
) {
    let Some((first, rest)) = groups.split_first() else {
        visit(prefix);
        return;
    };
    let mut group = first.clone();
    let n = group.len();
    permutations(&mut group, n, &mut |order| {
        let len = prefix.len();
        prefix.extend_from_slice(order);
        orders(rest, prefix, visit);
        prefix.truncate(len);
    });
}

/// The expected value by enumeration: the ranking in trec_eval's order, cut at `max_docs`,
/// its tied documents in every order.
fn by_enumeration(
    kernel: &str,
    ranking: &[(String, f64)],
    grades: &[(String, f64)],
    k: Option<usize>,
    t: f64,
    max_docs: Option<usize>,
) -> f64 {
    let mut sorted: Vec<Doc<'_>> = ranking.iter().map(|(id, s)| (id.as_bytes(), *s)).collect();
    sorted.sort_by(|a, b| crate::prepare::trec_order(*a, *b));
    sorted.truncate(max_docs.unwrap_or(usize::MAX));
    let grade_of = |id: &[u8]| grades.iter().find(|g| g.0.as_bytes() == id).map(|g| g.1);
    let mut groups: Vec<Vec<Option<f64>>> = Vec::new();
    for (i, d) in sorted.iter().enumerate() {
        if i > 0 && sorted[i - 1].1 == d.1 {
            groups.last_mut().unwrap().push(grade_of(d.0));
        } else {
            groups.push(vec![grade_of(d.0)]);
        }
    }
    let judged: Vec<f64> = grades.iter().map(|g| g.1).collect();
    let (mut sum, mut count) = (0.0, 0usize);
    orders(&groups, &mut Vec::new(), &mut |order| {
        sum += naive(kernel, order, &judged, k, t);
        count += 1;
    });
    sum / count as f64
}

fn tie_aware(
    kernel: &str,
    ranking: &[(String, f64)],
    grades: &[(String, f64)],
    k: Option<usize>,
    t: f64,
    max_docs: Option<usize>,
    judged_only: bool,
) -> f64 {
    let ranking: Vec<Doc<'_>> = ranking.iter().map(|(id, s)| (id.as_bytes(), *s)).collect();
    let judged: Vec<Doc<'_>> = grades.iter().map(|(id, g)| (id.as_bytes(), *g)).collect();
    let opts = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs,
        all_judged: judged_only,
        ties: true,
    };
    let input = QueryInput {
        judged: &judged,
        ranking: RankingInput::Scored(&ranking),
    };
    let prepared = prepare(&[input], opts, 0).unwrap();
    let measure = Measure::new(&format!("{kernel}_ta"), k, &[], None, None).unwrap();
    let options = EvaluationOptions {
        threshold: t,
        judged_only,
    };
    evaluate(&prepared, &[measure], options).unwrap()[0]
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

const KERNELS: [&str; 5] = [
    "precision",
    "recall",
    "reciprocal_rank",
    "average_precision",
    "ndcg",
];

#[test]
fn a_ranking_without_ties_gives_the_measures_own_values() {
    // Distinct scores: each tie-aware value is the value of the measure, to the last bit.
    let ranking: Vec<(String, f64)> = (0..6).map(|i| (format!("d{i}"), i as f64)).collect();
    let grades: Vec<(String, f64)> = vec![
        ("d5".into(), 0.5),
        ("d3".into(), 2.0),
        ("d0".into(), 1.0),
        ("x".into(), 3.0),
    ];
    for kernel in KERNELS {
        for k in [Some(1), Some(3), Some(10), None] {
            if (kernel == "precision" || kernel == "recall") && k.is_none() {
                continue;
            }
            let ta = tie_aware(kernel, &ranking, &grades, k, 1.0, None, false);
            let docs: Vec<Doc<'_>> = ranking.iter().map(|(id, s)| (id.as_bytes(), *s)).collect();
            let judged: Vec<Doc<'_>> = grades.iter().map(|(id, g)| (id.as_bytes(), *g)).collect();
            let opts = RankingOptions {
                duplicates: Duplicates::Raise,
                max_docs: None,
                all_judged: false,
                ties: false,
            };
            let input = QueryInput {
                judged: &judged,
                ranking: RankingInput::Scored(&docs),
            };
            let prepared = prepare(&[input], opts, 0).unwrap();
            let measure = Measure::new(kernel, k, &[], None, None).unwrap();
            let options = EvaluationOptions {
                threshold: 1.0,
                judged_only: false,
            };
            let plain = evaluate(&prepared, &[measure], options).unwrap()[0];
            assert_eq!(ta.to_bits(), plain.to_bits(), "{kernel} {k:?}");
        }
    }
}

#[test]
fn hand_computed_ties() {
    // Three documents tied, one relevant (trec_eval's E1 example): trec_eval ranks it third
    // (RR 1/3); over the 3 orders it is first, second or third: (1 + 1/2 + 1/3) / 3.
    let ranking: Vec<(String, f64)> = ["a", "b", "c"]
        .iter()
        .map(|d| (d.to_string(), 1.0))
        .collect();
    let grades = vec![("a".to_string(), 1.0)];
    let rr = tie_aware("reciprocal_rank", &ranking, &grades, None, 1.0, None, false);
    assert!(close(rr, (1.0 + 0.5 + 1.0 / 3.0) / 3.0), "{rr}");
    // P@1: the relevant document is first in one order of three.
    let p1 = tie_aware("precision", &ranking, &grades, Some(1), 1.0, None, false);
    assert!(close(p1, 1.0 / 3.0), "{p1}");
    // nDCG: each position holds the gain 1 / 3 on average.
    let ndcg = tie_aware("ndcg", &ranking, &grades, None, 1.0, None, false);
    let want = (1.0 + 1.0 / 3f64.log2() + 0.5) / 3.0;
    assert!(close(ndcg, want), "{ndcg} {want}");
    // A ranking given in order has no ties: the measure's own value.
    let ids: Vec<&[u8]> = vec![b"c", b"b", b"a"];
    let judged: Vec<Doc<'_>> = vec![(b"a", 1.0)];
    let opts = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        all_judged: false,
        ties: true,
    };
    let input = QueryInput {
        judged: &judged,
        ranking: RankingInput::Ordered(&ids),
    };
    let prepared = prepare(&[input], opts, 0).unwrap();
    let measure = Measure::new("reciprocal_rank_ta", None, &[], None, None).unwrap();
    let options = EvaluationOptions {
        threshold: 1.0,
        judged_only: false,
    };
    assert_eq!(
        evaluate(&prepared, &[measure], options).unwrap()[0],
        1.0 / 3.0
    );
}

#[test]
fn rankings_prepared_without_ties_are_refused() {
    let ids: Vec<&[u8]> = vec![b"a"];
    let judged: Vec<Doc<'_>> = vec![(b"a", 1.0)];
    let opts = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        all_judged: false,
        ties: false,
    };
    let input = QueryInput {
        judged: &judged,
        ranking: RankingInput::Ordered(&ids),
    };
    let prepared = prepare(&[input], opts, 0).unwrap();
    let measure = Measure::new("ndcg_ta", None, &[], None, None).unwrap();
    let options = EvaluationOptions {
        threshold: 1.0,
        judged_only: false,
    };
    let err = evaluate(&prepared, &[measure], options).unwrap_err();
    assert!(err.to_string().contains("groups of tied scores"), "{err}");
}

/// A ranking (ids and scores) and judgments (ids and grades).
type Case = (Vec<(String, f64)>, Vec<(String, f64)>);

/// A ranking of up to 11 documents with scores among a few values (so with ties), and
/// judgments of some of them (and of documents not ranked), grades among integers,
/// fractions, 0 and negative ones.
fn case() -> impl Strategy<Value = Case> {
    let score = prop_oneof![
        Just(0.0),
        Just(-0.0),
        Just(1.0),
        Just(2.5),
        Just(3.0),
        Just(-1.0)
    ];
    let grade = prop_oneof![
        Just(None),
        Just(None),
        Just(Some(0.0)),
        Just(Some(1.0)),
        Just(Some(2.0)),
        Just(Some(0.5)),
        Just(Some(1.75)),
        Just(Some(-1.0)),
    ];
    (
        proptest::collection::vec((score, grade), 0..11),
        proptest::collection::vec(
            prop_oneof![Just(0.0), Just(1.0), Just(3.0), Just(0.25)],
            0..3,
        ),
    )
        .prop_map(|(docs, unranked)| {
            let mut ranking = Vec::new();
            let mut grades = Vec::new();
            for (i, (score, grade)) in docs.into_iter().enumerate() {
                let id = format!("d{i}");
                if let Some(g) = grade {
                    grades.push((id.clone(), g));
                }
                ranking.push((id, score));
            }
            for (i, g) in unranked.into_iter().enumerate() {
                grades.push((format!("u{i}"), g));
            }
            (ranking, grades)
        })
}

/// The documents in groups of two or more tied scores, after the `max_docs` cut.
fn tied_documents(ranking: &[(String, f64)], max_docs: Option<usize>) -> usize {
    // -0.0 and 0.0 tie.
    let mut scores: Vec<f64> = ranking
        .iter()
        .map(|d| if d.1 == 0.0 { 0.0 } else { d.1 })
        .collect();
    scores.sort_by(|a, b| b.total_cmp(a));
    scores.truncate(max_docs.unwrap_or(usize::MAX));
    let mut tied = 0;
    let mut i = 0;
    while i < scores.len() {
        let n = scores[i..].iter().take_while(|&&s| s == scores[i]).count();
        if n > 1 {
            tied += n;
        }
        i += n;
    }
    tied
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn tie_aware_kernels_equal_the_mean_over_all_orders(
        (ranking, grades) in case(),
        k in prop_oneof![Just(None), Just(Some(1usize)), Just(Some(2)), Just(Some(4)), Just(Some(20))],
        t in prop_oneof![Just(1.0), Just(0.5), Just(2.0)],
        max_docs in prop_oneof![Just(None), Just(None), Just(Some(3usize)), Just(Some(6))],
    ) {
        prop_assume!(tied_documents(&ranking, max_docs) <= 8);
        for kernel in KERNELS {
            let k = if k.is_none() && (kernel == "precision" || kernel == "recall") {
                Some(5)
            } else {
                k
            };
            let want = by_enumeration(kernel, &ranking, &grades, k, t, max_docs);
            let got = tie_aware(kernel, &ranking, &grades, k, t, max_docs, false);
            prop_assert!(close(got, want), "{} k={:?} t={}: {} != {}", kernel, k, t, got, want);
        }
    }

    /// With judged_docs_only (trec_eval -J), the unjudged documents leave the ranking first:
    /// the mean over the orders of the tied judged documents.
    #[test]
    fn tie_aware_kernels_on_judged_documents_only(
        (ranking, grades) in case(),
        k in prop_oneof![Just(None), Just(Some(1usize)), Just(Some(3))],
    ) {
        let judged: Vec<(String, f64)> = ranking
            .iter()
            .filter(|(id, _)| grades.iter().any(|(g, grade)| g == id && *grade >= 0.0))
            .cloned()
            .collect();
        prop_assume!(tied_documents(&judged, None) <= 8);
        for kernel in KERNELS {
            let k = if k.is_none() && (kernel == "precision" || kernel == "recall") {
                Some(2)
            } else {
                k
            };
            let want = by_enumeration(kernel, &judged, &grades, k, 1.0, None);
            let got = tie_aware(kernel, &ranking, &grades, k, 1.0, None, true);
            prop_assert!(close(got, want), "{} k={:?}: {} != {}", kernel, k, got, want);
        }
    }
}
