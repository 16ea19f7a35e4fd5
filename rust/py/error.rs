//! The one place where errors become Python exceptions: core errors (`to_pyerr`) and the input
//! errors the bindings find while reading Python objects. The exception classes are defined in
//! `ragmeter/exceptions.py` (so they carry docstrings and inherit from ValueError) and imported
//! here.

use pyo3::prelude::*;
use ragmeter_core::CoreError;

pyo3::import_exception!(ragmeter.exceptions, InvalidInputError);
pyo3::import_exception!(ragmeter.exceptions, InputTypeError);
pyo3::import_exception!(ragmeter.exceptions, TrecFormatError);

/// Names the query of a per-query error: the bindings know the user's query ids, the core only
/// their positions.
pub trait QueryNamer {
    fn name(&self, query: usize) -> String;
}

/// No query ids at hand: name queries by position.
pub struct ByPosition;

impl QueryNamer for ByPosition {
    fn name(&self, query: usize) -> String {
        format!("at position {query}")
    }
}

pub fn to_pyerr(err: CoreError, names: &dyn QueryNamer) -> PyErr {
    match err {
        CoreError::InvalidArgument { argument, message } => {
            invalid_input(format!("{argument}: {message}"))
        }
        CoreError::Refused { message } => invalid_input(message),
        CoreError::InvalidQuery {
            query,
            query_id,
            message,
        } => {
            let name = query_id.map_or_else(|| names.name(query), |id| format!("'{id}'"));
            invalid_input(format!("query {name}: {message}"))
        }
        err @ CoreError::Format { .. } => format_error(err.to_string()),
        CoreError::OutOfMemory { what } => pyo3::exceptions::PyMemoryError::new_err(format!(
            "not enough memory for {what}: the memory this process may use is exhausted (the \
             machine's, or a limit such as ulimit -v / RLIMIT_AS, a cgroup or a batch \
             scheduler's); free memory or raise the limit, or split the input (fewer queries \
             or documents per call) and combine the results"
        )),
        // The bindings replace it by the exception of the signal that asked for it.
        CoreError::Cancelled => pyo3::exceptions::PyKeyboardInterrupt::new_err("cancelled"),
        CoreError::Io { path, source } => {
            let errno = source.raw_os_error().unwrap_or(0);
            pyo3::exceptions::PyOSError::new_err((
                errno,
                source.to_string(),
                path.display().to_string(),
            ))
        }
    }
}

/// A value the user passed cannot be used (a ValueError subclass).
pub fn invalid_input(message: String) -> PyErr {
    InvalidInputError::new_err(message)
}

/// A value the user passed has the wrong type (a TypeError subclass).
pub fn type_error(message: String) -> PyErr {
    InputTypeError::new_err(message)
}

/// A TREC file has a malformed line (a ValueError subclass).
pub fn format_error(message: String) -> PyErr {
    TrecFormatError::new_err(message)
}
