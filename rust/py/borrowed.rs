//! Reading dict items without reference-count traffic.
//!
//! Under the stable ABI (abi3) every incref and decref is a function call: pyo3's dict iterator
//! costs four of them per item, more than the rest of reading a `{doc_id: score}` entry. Here
//! items are visited as borrowed references. This is the crate's only unsafe code.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::{Borrowed, ffi};

/// Call `visit(key, value)` for every item of `dict`.
///
/// `visit` gets borrowed references: it must take owned ones (`Borrowed::to_owned`) before it
/// runs any Python code (a `__float__`, a `__repr__` of a user object), since such code could
/// remove the item from the dict and free it. `PyDict_Next` itself stays memory-safe if the
/// dict is changed that way: it re-checks its position against the current table on every call.
#[allow(unsafe_code)]
pub fn for_each_item<'py>(
    dict: &Bound<'py, PyDict>,
    mut visit: impl FnMut(Borrowed<'_, 'py, PyAny>, Borrowed<'_, 'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    let py = dict.py();
    let mut position: ffi::Py_ssize_t = 0;
    let mut key: *mut ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut ffi::PyObject = std::ptr::null_mut();
    // SAFETY: `dict` is a live dict and `py` proves the GIL is held. PyDict_Next returns
    // borrowed, non-null references, valid until the dict is next modified; by the contract
    // above `visit` does not modify it while it holds them.
    while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut position, &mut key, &mut value) } != 0 {
        let (key, value) = unsafe { (Borrowed::from_ptr(py, key), Borrowed::from_ptr(py, value)) };
        visit(key, value)?;
    }
    Ok(())
}

/// Call `visit(i, item)` for the items `range` of `list`, as borrowed references, under the
/// same contract as `for_each_item`: `visit` takes owned references before it runs Python code.
#[allow(unsafe_code)]
pub fn for_each_list_item<'py>(
    list: &Bound<'py, PyList>,
    range: std::ops::Range<usize>,
    mut visit: impl FnMut(usize, Borrowed<'_, 'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    let py = list.py();
    for i in range {
        let index = ffi::Py_ssize_t::try_from(i)
            .map_err(|_| pyo3::exceptions::PyIndexError::new_err("list index out of range"))?;
        // SAFETY: `list` is a live list and `py` proves the GIL is held. PyList_GetItem returns
        // a borrowed reference, valid while the list keeps the item, or NULL with an
        // IndexError set (a list shortened meanwhile), which becomes an error here.
        let item =
            unsafe { Borrowed::from_ptr_or_err(py, ffi::PyList_GetItem(list.as_ptr(), index)) }?;
        visit(i, item)?;
    }
    Ok(())
}
