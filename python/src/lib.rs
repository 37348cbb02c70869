//! `tribunal._tribunal`: the extension module behind the `tribunal` wheel.
//!
//! Model: an adapter, as Evalica's bindings are — no statistic here. Each function takes JSON
//! text and file bytes from the Python package (`python/py/tribunal`), calls the `tribunal`
//! crate (the registry of analysis kinds, [`tribunal::analysis::run`], the readers) with the
//! GIL released, and hands back JSON text, which the package turns into its result objects.
//!
//! Arguments: an analysis as the spec writes it (`{"analysis": "leaderboard", …settings}`) or a
//! whole spec; files as `(role, name, bytes)`.
//!
//! Returns: JSON text — the kinds and their settings, a spec, a report — and warning lines.
//!
//! Errors: every `tribunal` error is a `TribunalError` (a `ValueError`) whose attributes say
//! where: `source`, `line`, `column`, `field` and `byte` for a located input error, `setting`
//! for a setting out of range; `reason` is `input`, `setting` or `insufficient`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tribunal::analysis::warnings::lines;
use tribunal::analysis::{Analysis, Inputs, Report, Spec};
use tribunal::readers::{convert, detect, ConvertParams, Format, Output};
use tribunal::{Error, Location};

create_exception!(
    _tribunal,
    TribunalError,
    PyValueError,
    "A Tribunal error: bad input (with `source`, `line`, `column`, `field`, `byte`), a setting \
     out of range (`setting`) or too little data; `reason` says which."
);

/// Files handed over from Python: role, file name, bytes.
type Files<'py> = Vec<(String, String, Bound<'py, PyBytes>)>;

/// The `tribunal` error as a `TribunalError` with its location as attributes.
fn raise(py: Python<'_>, error: Error) -> PyErr {
    let err = TribunalError::new_err(error.to_string());
    let value = err.value(py);
    let at = error.location();
    let (reason, setting) = match &error {
        Error::Input { .. } => ("input", None),
        Error::InvalidParam { name, .. } => ("setting", Some(*name)),
        Error::Insufficient(_) => ("insufficient", None),
    };
    let attributes = || -> PyResult<()> {
        value.setattr("reason", reason)?;
        value.setattr("setting", setting)?;
        value.setattr("source", at.map(|l| l.source.clone()))?;
        value.setattr("line", at.filter(|l| l.byte.is_none()).map(|l| l.line))?;
        value.setattr("column", at.and_then(|l| l.column))?;
        value.setattr("field", at.and_then(|l| l.field.clone()))?;
        value.setattr("byte", at.and_then(|l| l.byte))
    };
    match attributes() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}

/// A `tribunal` result as a Python one.
fn checked<T>(py: Python<'_>, result: tribunal::Result<T>) -> PyResult<T> {
    result.map_err(|e| raise(py, e))
}

/// JSON text of `value`.
fn json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `text` as `T`; a mistake is a `TribunalError` about the setting `what`.
fn parsed<T: serde::de::DeserializeOwned>(
    py: Python<'_>,
    text: &str,
    what: &'static str,
) -> PyResult<T> {
    serde_json::from_str(text).map_err(|e| raise(py, Error::param(what, e.to_string())))
}

fn inputs_of(files: &Files<'_>) -> Inputs {
    let mut inputs = Inputs::new();
    for (role, name, bytes) in files {
        inputs.insert(role.as_str(), name.as_str(), bytes.as_bytes().to_vec());
    }
    inputs
}

/// Every analysis kind in the registry's order, as JSON: `[{"name", "settings", "roles":
/// [{"name", "kind", "required"}], "example_inputs": {role: path}}]`, the settings those a form
/// starts from (the defaults), the example inputs files of this repository they run on.
#[pyfunction]
fn kinds() -> PyResult<String> {
    let kinds: Vec<serde_json::Value> = Analysis::each_kind()
        .iter()
        .map(|analysis| {
            let mut settings = serde_json::to_value(analysis)?;
            if let Some(map) = settings.as_object_mut() {
                map.remove("analysis");
            }
            let example_inputs: serde_json::Map<String, serde_json::Value> = analysis
                .example_inputs()
                .iter()
                .map(|(role, path)| ((*role).to_owned(), (*path).into()))
                .collect();
            Ok(serde_json::json!({
                "name": analysis.name(),
                "settings": settings,
                "roles": roles_json(analysis),
                "example_inputs": example_inputs,
            }))
        })
        .collect::<serde_json::Result<_>>()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    json(&kinds)
}

fn roles_json(analysis: &Analysis) -> serde_json::Value {
    analysis
        .roles()
        .iter()
        .map(|role| {
            serde_json::json!({
                "name": role.name,
                "kind": role.kind.as_str(),
                "required": role.required,
            })
        })
        .collect()
}

/// The analysis `analysis` (JSON, `{"analysis": NAME, …settings}`), validated, and the files it
/// reads with these settings, as JSON: `{"analysis": …every setting…, "roles": […]}`.
#[pyfunction]
fn settle(py: Python<'_>, analysis: &str) -> PyResult<String> {
    let analysis: Analysis = parsed(py, analysis, "settings")?;
    checked(py, analysis.validate())?;
    json(&serde_json::json!({ "analysis": analysis, "roles": roles_json(&analysis) }))
}

/// Runs `spec` on `inputs` with the GIL released: the spec, the report and its warning lines.
fn run_spec(py: Python<'_>, spec: Spec, inputs: Inputs) -> PyResult<(String, String, Vec<String>)> {
    let report: Report = checked(py, py.detach(|| tribunal::analysis::run(&spec, &inputs)))?;
    Ok((json(&spec)?, json(&report)?, lines(&report.warnings())))
}

/// Runs the analysis `analysis` (JSON, `{"analysis": NAME, …settings}`) on `files`, as
/// `tribunal stats NAME` does: `(spec, report, warnings)`, the spec and report as JSON.
#[pyfunction]
fn run(
    py: Python<'_>,
    analysis: &str,
    files: Files<'_>,
) -> PyResult<(String, String, Vec<String>)> {
    let analysis: Analysis = parsed(py, analysis, "settings")?;
    checked(py, analysis.validate())?;
    let inputs = inputs_of(&files);
    run_spec(py, Spec::new(analysis, &inputs), inputs)
}

/// Reruns a saved spec (JSON) on `files`, as `tribunal stats run` does: each file must be the
/// one the spec was made on.
#[pyfunction]
fn rerun(py: Python<'_>, spec: &str, files: Files<'_>) -> PyResult<(String, String, Vec<String>)> {
    let spec: Spec = parsed(py, spec, "spec")?;
    run_spec(py, spec, inputs_of(&files))
}

/// Every format `read` knows: `(name, description)`.
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str)> {
    Format::ALL
        .iter()
        .map(|f| (f.as_str(), f.describe()))
        .collect()
}

/// Another tool's file (`name`, `bytes`) as Tribunal's CSV, as `tribunal convert` does: the
/// converted file as JSON (`{"format", "output", "csv", "rows", "records", "warnings"}`).
/// `from_format` is recognised from the file when `None`.
#[pyfunction]
#[pyo3(signature = (name, bytes, from_format=None, to=None, system=None, baseline=None))]
fn read(
    py: Python<'_>,
    name: &str,
    bytes: Bound<'_, PyBytes>,
    from_format: Option<&str>,
    to: Option<&str>,
    system: Option<String>,
    baseline: Option<String>,
) -> PyResult<String> {
    let bytes = bytes.as_bytes();
    let format = match from_format {
        Some(text) => checked(py, Format::parse(text))?,
        None => detect(bytes).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
            let message = format!(
                "not a file of a known tool; give from_format ({})",
                names.join(", ")
            );
            raise(py, Error::input(Location::line(name, 1), message))
        })?,
    };
    let params = ConvertParams {
        baseline,
        system,
        to: checked(py, to.map(Output::parse).transpose())?,
    };
    let converted = checked(py, py.detach(|| convert(format, name, bytes, &params)))?;
    json(&converted)
}

#[pymodule]
fn _tribunal(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("TribunalError", m.py().get_type::<TribunalError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add_function(wrap_pyfunction!(settle, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(rerun, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    Ok(())
}
