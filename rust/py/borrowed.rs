//! Reading dict items without reference-count traffic.
//!
//! Under the stable ABI (abi3) every incref and decref is a function call: pyo3's dict iterator
//! costs four of them per item, more than the rest of reading a `{doc_id: score}` entry. Here
//! items are visited as borrowed references, and numbers are read from them without a call
//! that could raise. Besides `fallible` (objects made without a panic when memory runs out), this
//! is the crate's only unsafe code.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFloat, PyInt, PyList};
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

/// The value of an exact float, or of an exact int that fits in a C long (rounded as
/// `float(int)` rounds it); None for anything else. It runs no Python code and raises nothing
/// (not even the OverflowError of a larger int, whose creation could run the garbage
/// collector), so it may read borrowed items.
#[allow(unsafe_code)]
pub fn exact_number(value: &Bound<'_, PyAny>) -> Option<f64> {
    if let Some(x) = exact_float(value) {
        Some(x)
    } else if value.is_exact_instance_of::<PyInt>() {
        let mut overflow: std::os::raw::c_int = 0;
        // SAFETY: `value` is a live int and the GIL is held; on an int out of range this
        // function sets `overflow` and returns -1 without setting an exception.
        let int = unsafe { ffi::PyLong_AsLongAndOverflow(value.as_ptr(), &mut overflow) };
        (overflow == 0).then_some(int as f64)
    } else {
        None
    }
}

/// Where a float object keeps its value: right after the object header
/// (`PyFloatObject` is `{ PyObject_HEAD double ob_fval; }`).
const FLOAT_VALUE_OFFSET: usize = std::mem::size_of::<ffi::PyObject>();

/// Whether the value of a float can be read from its object. Every CPython this module loads
/// in lays floats out that way, but the stable ABI does not promise it (only
/// `PyFloat_AsDouble`, a call per number, which was a tenth of the time of reading a
/// `{doc_id: score}` run): it is checked once, against `float.__basicsize__` and against
/// `PyFloat_AsDouble` on probe values, and `PyFloat_AsDouble` is used if the check fails.
static FLOAT_LAYOUT_CHECKED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

#[allow(unsafe_code)]
fn float_layout_checked(py: Python<'_>) -> bool {
    *FLOAT_LAYOUT_CHECKED.get_or_init(|| {
        let basic_size = py
            .get_type::<PyFloat>()
            .getattr("__basicsize__")
            .and_then(|size| size.extract::<usize>())
            .unwrap_or(0);
        basic_size == FLOAT_VALUE_OFFSET + std::mem::size_of::<f64>()
            && [1.5, -2.75e300, 5e-324, -0.0].iter().all(|&x| {
                let probe = PyFloat::new(py, x);
                // SAFETY: `probe` is a live exact float of `basic_size` bytes, so the 8 bytes
                // at FLOAT_VALUE_OFFSET lie inside it.
                let read = unsafe { read_float_value(probe.as_ptr()) };
                read.to_bits() == x.to_bits()
                    && unsafe { ffi::PyFloat_AsDouble(probe.as_ptr()) }.to_bits() == x.to_bits()
            })
    })
}

/// The 8 bytes at `FLOAT_VALUE_OFFSET` of `object`, as an f64.
///
/// # Safety
/// `object` must point to a live exact float whose layout `float_layout_checked` confirmed.
#[allow(unsafe_code)]
unsafe fn read_float_value(object: *mut ffi::PyObject) -> f64 {
    // SAFETY: by the contract above the read is inside the object.
    unsafe {
        object
            .cast::<u8>()
            .add(FLOAT_VALUE_OFFSET)
            .cast::<f64>()
            .read_unaligned()
    }
}

/// The value of `value` if it is an exact float (not a subclass): read from the object when
/// its layout was confirmed, else by `PyFloat_AsDouble`. Runs no Python code.
#[allow(unsafe_code)]
pub fn exact_float(value: &Bound<'_, PyAny>) -> Option<f64> {
    let float = value.cast_exact::<PyFloat>().ok()?;
    if float_layout_checked(value.py()) {
        // SAFETY: `float` is a live exact float and its layout was confirmed.
        Some(unsafe { read_float_value(float.as_ptr()) })
    } else {
        Some(float.value())
    }
}

/// The item of `dict` after `position` (which starts at 0 and is advanced), as owned
/// references; None after the last. A dict changed between calls is read safely (PyDict_Next
/// checks the position against the current table), if not meaningfully.
#[allow(unsafe_code)]
pub fn next_item<'py>(
    dict: &Bound<'py, PyDict>,
    position: &mut ffi::Py_ssize_t,
) -> Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let mut key: *mut ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut ffi::PyObject = std::ptr::null_mut();
    // SAFETY: `dict` is a live dict and the GIL is held; the borrowed references PyDict_Next
    // returns are made owned before anything else runs.
    unsafe {
        if ffi::PyDict_Next(dict.as_ptr(), position, &mut key, &mut value) == 0 {
            return None;
        }
        let py = dict.py();
        Some((
            Borrowed::from_ptr(py, key).to_owned(),
            Borrowed::from_ptr(py, value).to_owned(),
        ))
    }
}

/// Items ahead whose objects `for_each_list_item` asks the CPU to load: the pointers come from
/// the list's own array, so the loads of many objects overlap instead of following one another
/// (on a million short strings each object is a cache miss).
const LIST_PREFETCH_AHEAD: usize = 16;

/// Hint the CPU to load the two cache lines at `ptr` (a short `str` spans them: its text
/// follows a 40-48 byte header). A prefetch never faults and has no effect on the program's
/// meaning.
#[inline(always)]
fn prefetch_object(ptr: *mut ffi::PyObject) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: SSE is part of x86_64; a prefetch only hints the cache, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let bytes = ptr.cast::<i8>().cast_const();
        _mm_prefetch::<_MM_HINT_T0>(bytes);
        _mm_prefetch::<_MM_HINT_T0>(bytes.wrapping_add(64));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
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
    let n = list.len();
    for i in range {
        let index = ffi::Py_ssize_t::try_from(i)
            .map_err(|_| pyo3::exceptions::PyIndexError::new_err("list index out of range"))?;
        let ahead = i + LIST_PREFETCH_AHEAD;
        if ahead < n
            && let Ok(ahead) = ffi::Py_ssize_t::try_from(ahead)
        {
            // SAFETY: as below; the pointer is only used as a prefetch hint. A NULL (the list
            // shrank meanwhile) is prefetched harmlessly; clear the IndexError it set.
            let item = unsafe { ffi::PyList_GetItem(list.as_ptr(), ahead) };
            if item.is_null() {
                let _ = PyErr::take(py);
            } else {
                prefetch_object(item);
            }
        }
        // SAFETY: `list` is a live list and `py` proves the GIL is held. PyList_GetItem returns
        // a borrowed reference, valid while the list keeps the item, or NULL with an
        // IndexError set (a list shortened meanwhile), which becomes an error here.
        let item =
            unsafe { Borrowed::from_ptr_or_err(py, ffi::PyList_GetItem(list.as_ptr(), index)) }?;
        visit(i, item)?;
    }
    Ok(())
}
