//! Times the phases of evaluating a TREC run: `cargo run --release --example trec_phases -- QRELS RUN`.
use std::path::Path;
use std::time::Instant;

use ragmeter_core::prepare::Duplicates;
use ragmeter_core::ranking::{Metric, MetricKind, evaluate};
use ragmeter_core::trec::{TrecKind, join_and_prepare, parse, read};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (qrels_path, run_path) = (Path::new(&args[1]), Path::new(&args[2]));
    let t = Instant::now();
    let qrels_bytes = read(qrels_path).unwrap();
    let run_bytes = read(run_path).unwrap();
    let read_time = t.elapsed();
    let t = Instant::now();
    let qrels = parse(&qrels_bytes, TrecKind::Qrels, qrels_path).unwrap();
    let qrels_time = t.elapsed();
    let t = Instant::now();
    let run = parse(&run_bytes, TrecKind::Run, run_path).unwrap();
    let run_time = t.elapsed();
    let t = Instant::now();
    let joined = join_and_prepare(&qrels, &run, Duplicates::Raise, None).unwrap();
    let prepare_time = t.elapsed();
    let t = Instant::now();
    let metrics = [
        Metric::new(MetricKind::Ndcg, Some(10)).unwrap(),
        Metric::new(MetricKind::AveragePrecision, None).unwrap(),
    ];
    let values = evaluate(
        joined.prepared.hits.view(),
        joined.prepared.judged_positive.view(),
        &metrics,
        1.0,
    )
    .unwrap();
    let eval_time = t.elapsed();
    eprintln!(
        "read {read_time:?} qrels {qrels_time:?} run {run_time:?} prepare {prepare_time:?} evaluate {eval_time:?} ({} values)",
        values.len()
    );
}
