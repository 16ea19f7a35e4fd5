//! Python objects made without a panic when memory runs out.
//!
//! pyo3's `PyString::new`, `PyDict::new` and the conversions of numbers panic when CPython
//! returns NULL. When that NULL means the memory is exhausted (a `read_run` of a file whose
//! dict does not fit), the panic's own allocation fails too and Rust aborts the process
//! ("memory allocation of N bytes failed"). These constructors return CPython's MemoryError
//! instead, which the caller propagates: the objects made so far are released on the way out.
//! Besides `borrowed`, this is the crate's only unsafe code.

use pyo3::exceptions::PyMemoryError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A new `str` holding `text`, or CPython's error (MemoryError).
#[allow(unsafe_code)]
pub fn string<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    // A Rust `str` is never longer than isize::MAX bytes, so the length fits Py_ssize_t.
    let length = text.len() as ffi::Py_ssize_t;
    // SAFETY: the GIL is held (`py`); PyUnicode_FromStringAndSize reads exactly `length` bytes
    // of `text`, valid UTF-8 that outlives the call, and returns a new reference or NULL with
    // an exception set, which from_owned_ptr_or_err turns into Err.
    unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyUnicode_FromStringAndSize(text.as_ptr().cast(), length),
        )
    }
}

/// `error`, with `message()` as its text when it is a MemoryError (CPython's has none): what
/// did not fit and what to do. The objects made before were released when it was raised.
pub fn explain_memory_error(
    py: Python<'_>,
    error: PyErr,
    message: impl FnOnce() -> String,
) -> PyErr {
    if error.is_instance_of::<PyMemoryError>(py) {
        PyMemoryError::new_err(message())
    } else {
        error
    }
}

/// A new `float`, or CPython's error (MemoryError).
#[allow(unsafe_code)]
pub fn float(py: Python<'_>, value: f64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: the GIL is held; PyFloat_FromDouble returns a new reference or NULL with an
    // exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyFloat_FromDouble(value)) }
}

/// A new `int`, or CPython's error (MemoryError).
#[allow(unsafe_code)]
pub fn int(py: Python<'_>, value: i64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: the GIL is held; PyLong_FromLongLong returns a new reference or NULL with an
    // exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyLong_FromLongLong(value)) }
}

/// A new empty `dict`, or CPython's error (MemoryError).
#[allow(unsafe_code)]
pub fn dict(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    // SAFETY: the GIL is held; PyDict_New returns a new reference to a dict or NULL with an
    // exception set, so the unchecked cast of a non-NULL result is to its true type.
    unsafe {
        let object = Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())?;
        Ok(object.cast_into_unchecked::<PyDict>())
    }
}
