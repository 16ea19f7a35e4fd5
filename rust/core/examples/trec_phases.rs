//! Times the phases of evaluating a TREC run: `cargo run --release --example trec_phases -- QRELS RUN`.
use std::path::Path;
use std::time::Instant;

use ragmeter_core::prepare::{Duplicates, RankingOptions};
use ragmeter_core::ranking::{EvaluationOptions, Measure, evaluate};
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
    let opts = RankingOptions {
        duplicates: Duplicates::Raise,
        max_docs: None,
        all_judged: false,
        ties: false,
    };
    let joined = join_and_prepare(&qrels, &run, opts).unwrap();
    let prepare_time = t.elapsed();
    let t = Instant::now();
    let measures = [
        Measure::new("ndcg", Some(10), &[], None, None).unwrap(),
        Measure::new("average_precision", None, &[], None, None).unwrap(),
    ];
    let options = EvaluationOptions {
        threshold: 1.0,
        judged_only: false,
    };
    let values = evaluate(&joined.prepared, &measures, options).unwrap();
    let eval_time = t.elapsed();
    eprintln!(
        "read {read_time:?} qrels {qrels_time:?} run {run_time:?} prepare {prepare_time:?} evaluate {eval_time:?} ({} values)",
        values.len()
    );
}
