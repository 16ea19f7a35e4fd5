//! Binding of the text normalisers (`ragmeter_core::normalize`).

use pyo3::prelude::*;
use ragmeter_core::normalize::{Normalization, normalize};

use crate::error::{ByPosition, to_pyerr};
use crate::strings::backed_str;

pub fn normalization(name: &str) -> PyResult<Normalization> {
    Normalization::from_name(name).map_err(|e| to_pyerr(e, &ByPosition))
}

/// `text` normalised by `"none"`, `"basic"` or `"squad"`.
#[pyfunction]
pub fn normalize_text(text: &Bound<'_, PyAny>, normalize_name: &str) -> PyResult<String> {
    let how = normalization(normalize_name)?;
    let text = backed_str(
        text.clone(),
        &|| "text".to_owned(),
        "normalisers take one str",
    )?;
    Ok(normalize(&text, how))
}
