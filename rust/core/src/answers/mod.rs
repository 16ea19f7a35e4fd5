//! Answer metrics: generated answers scored against reference answers (or reference claims),
//! one value per answer, the answers of a batch in order. References arrive as CSR rows:
//! `offsets[i]..offsets[i + 1]` into a flat list of strings.
//!
//! * `pairs`: exact match, token F1 (SQuAD), ANLS, edit similarity and substring match
//!   (FlashRAG's `Sub_ExactMatch`, BERGEN's `Match`), best reference counting;
//! * `patterns`: regular-expression gold answers (CuratedTREC) and the no-answer patterns;
//! * `rouge` (with `porter`, the Porter stemmer): ROUGE-N and ROUGE-L as `rouge-score` computes
//!   them;
//! * `bleu`: BLEU as `sacrebleu` computes it (13a tokeniser, smoothing, signature);
//! * `claims`: claim recall, the share of reference claims an answer covers.
//!
//! The normalisations are `crate::normalize`'s; every module reads them from there.

pub mod bleu;
pub mod claims;
mod lcs;
pub mod pairs;
pub mod patterns;
pub mod porter;
pub mod rouge;
mod rows;

pub use pairs::{AnswerMetric, answer_scores, token_f1};
