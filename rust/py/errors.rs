#![allow(dead_code)] // used by the ranking bindings that land next
//! The one place where core errors become Python exceptions. The exception classes are defined
//! in `ragmeter/exceptions.py` (so they carry docstrings and inherit from ValueError/OSError) and
//! imported here.

use pyo3::prelude::*;
use ragmeter_core::CoreError;

pyo3::import_exception!(ragmeter.exceptions, InvalidInputError);
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
            InvalidInputError::new_err(format!("{argument}: {message}"))
        }
        CoreError::InvalidQuery { query, message } => {
            InvalidInputError::new_err(format!("query {}: {message}", names.name(query)))
        }
        err @ CoreError::Format { .. } => TrecFormatError::new_err(err.to_string()),
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
