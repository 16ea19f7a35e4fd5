//! The one error type of the core. Every fallible kernel returns `CoreError`; the bindings map
//! each variant to a Python exception in exactly one place (`rust/py/errors.rs`).

use std::path::PathBuf;

/// What went wrong, with enough context for a message that tells the user what to do.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// An argument has a value the kernel cannot use (wrong length, out of range, ...).
    #[error("{argument}: {message}")]
    InvalidArgument {
        argument: &'static str,
        message: String,
    },
    /// An input the core refuses, said in full by `message` (which names what is refused).
    #[error("{message}")]
    Refused { message: String },
    /// One query's input breaks a rule (duplicate document, mixed id types, ...).
    /// `query` is the position of the query in the call, so the bindings can name it with the
    /// user's id; `query_id` is set when the core itself knows the id (TREC files).
    #[error("query #{query}: {message}")]
    InvalidQuery {
        query: usize,
        query_id: Option<String>,
        message: String,
    },
    /// A line of a TREC run or qrels file could not be read.
    #[error("{}:{line}: {message}", path.display())]
    Format {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A buffer whose size follows the input could not be reserved: the input is too big for
    /// the memory left (a MemoryError in Python, never an abort).
    #[error("not enough memory for {what}")]
    OutOfMemory { what: String },
    /// The caller asked the kernel to stop (`cancel::Cancel`): Ctrl-C in the bindings.
    #[error("cancelled")]
    Cancelled,
    /// The operating system refused to read or write a file.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl CoreError {
    pub fn argument(argument: &'static str, message: impl Into<String>) -> Self {
        CoreError::InvalidArgument {
            argument,
            message: message.into(),
        }
    }

    pub fn query(query: usize, message: impl Into<String>) -> Self {
        CoreError::InvalidQuery {
            query,
            query_id: None,
            message: message.into(),
        }
    }
}

pub type CoreResult<T> = Result<T, CoreError>;
