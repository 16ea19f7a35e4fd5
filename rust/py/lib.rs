//! `ragmeter._core`: the private native module. It converts Python inputs to flat Rust data,
//! releases the GIL around the kernels of `ragmeter-core`, and maps their errors. Users import
//! `ragmeter`, never this module.

mod agreement;
mod answers;
mod bm25;
mod borrowed;
mod columns;
mod edit;
mod error;
mod fallible;
mod fusion;
mod fusion_files;
mod hybrid;
mod normalize;
mod pipeline;
mod prepare;
mod randomised;
mod ranking;
mod reserve;
mod signflip;
mod strings;
mod table;
mod threads;
mod trec;

use pyo3::prelude::*;

/// Number of threads a kernel call with `n_threads` runs on (None: `RAGMETER_NUM_THREADS` or
/// all cores).
#[pyfunction]
#[pyo3(signature = (n_threads=None))]
fn pool_threads(py: Python<'_>, n_threads: Option<usize>) -> PyResult<usize> {
    threads::run(py, n_threads, rayon::current_num_threads)
}

#[pymodule]
mod _core {
    #[allow(non_upper_case_globals)]
    #[pymodule_export]
    const __version__: &str = env!("CARGO_PKG_VERSION");

    /// The most threads one call may use (`n_threads`, `RAGMETER_NUM_THREADS`).
    #[allow(non_upper_case_globals)]
    #[pymodule_export]
    const MAX_THREADS: usize = crate::threads::MAX_THREADS;

    /// trec_eval's floor of a value in a geometric mean (`MIN_GEO_MEAN`).
    #[pymodule_export]
    const MIN_GEO_MEAN: f64 = ragmeter_core::ranking::MIN_GEO_MEAN;

    #[pymodule_export]
    use super::pool_threads;
    #[pymodule_export]
    use crate::ranking::{Measures, PreparedRankings, measure_kernels, trec_order};

    #[pymodule_export]
    use crate::columns::{
        Columns, ValueTable, geometric_mean_of, sequential_column_sums, sequential_sum_of,
    };

    #[pymodule_export]
    use crate::prepare::{prepare_rankings, prepare_rankings_in_order};

    #[pymodule_export]
    use crate::trec::{prepare_trec, read_trec};

    #[pymodule_export]
    use crate::table::{max_decompressed_bytes, prepare_tables, read_table_dict};

    #[pymodule_export]
    use crate::edit::{edit_backend, edit_count, edit_one_to_many, edit_pairwise, edit_rank};

    #[pymodule_export]
    use crate::answers::{
        answer_scores, bleu_from_stats, bleu_stats, bleu_tokens, claim_recall, no_answer_scores,
        pattern_match_scores, porter_stem, rouge_scores, sentence_bleu,
    };

    #[pymodule_export]
    use crate::normalize::normalize_text;

    #[pymodule_export]
    use crate::signflip::{
        bootstrap_mean_differences, bootstrap_pairs, sign_flip_pairs, sign_flip_test,
    };

    #[pymodule_export]
    use crate::agreement::{rank_biased_overlap, top_k_overlaps};

    #[pymodule_export]
    use crate::randomised::{randomised_tukey, westfall_young};

    #[pymodule_export]
    use crate::bm25::{bm25_idf, bm25_postings, bm25_top_k};

    #[pymodule_export]
    use crate::hybrid::{dense_top_k, hybrid_fuse};

    #[pymodule_export]
    use crate::fusion::{
        FusedRows, FusionRuns, fuse_prepared, fuse_runs, fusion_method_table,
        fusion_parameter_table, prepare_fusion_runs, train_fusion,
    };

    #[pymodule_export]
    use crate::fusion_files::{
        FusedTrecChunks, FusionFiles, fuse_files, fused_rows_trec_chunks, fused_trec_chunks,
        index_fusion_files, train_fusion_files,
    };
}
