//! ragmeter's kernels in pure Rust (no Python types): ranking metrics over CSR arrays, TREC file
//! parsing, edit distance and paired randomisation tests. `cargo test -p ragmeter-core` runs
//! them without a Python interpreter.

pub mod agreement;
pub mod answers;
mod batch;
pub mod bm25;
pub mod cancel;
pub mod compressed;
pub mod csr;
pub mod edit;
pub mod error;
pub mod fusion;
pub mod hybrid;
pub mod memory;
pub mod normalize;
pub mod prepare;
pub mod randomised;
pub mod ranking;
pub mod report;
pub mod signflip;
pub mod table;
pub mod ties;
pub mod trec;
pub mod trec_write;

pub use error::{CoreError, CoreResult};
