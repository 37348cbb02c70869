//! The range checks that settings share, each naming the setting and what was found: a level
//! or probability in (0, 1), a tolerance that is a finite number above 0, an iteration count of
//! at least 1. A statistic's `validate` calls these instead of writing the comparison again.

use crate::io::error::{Error, Result};

/// `value` lies strictly between 0 and 1 (an error level α, a power, a level).
///
/// # Errors
/// [`Error::InvalidParam`] naming `name`, for NaN too.
pub fn in_open_unit(name: &'static str, value: f64) -> Result<()> {
    if value > 0.0 && value < 1.0 {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("expected a value in (0, 1), found {value}"),
        ))
    }
}

/// `value` is a finite number above 0 (a tolerance, a width).
///
/// # Errors
/// [`Error::InvalidParam`] naming `name`, for NaN and ∞ too.
pub fn positive(name: &'static str, value: f64) -> Result<()> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err(Error::param(
            name,
            format!("expected a finite number > 0, found {value}"),
        ))
    }
}

/// `value` is at least 1 (an iteration count, a number of rounds).
///
/// # Errors
/// [`Error::InvalidParam`] naming `name`.
pub fn at_least_one(name: &'static str, value: usize) -> Result<()> {
    if value >= 1 {
        Ok(())
    } else {
        Err(Error::param(name, "expected at least 1, found 0"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_the_setting_and_refuses_the_edges() {
        assert!(in_open_unit("alpha", 0.05).is_ok());
        for bad in [0.0, 1.0, -0.1, f64::NAN] {
            let message = in_open_unit("alpha", bad).unwrap_err().to_string();
            assert!(
                message.contains("alpha") && message.contains("(0, 1)"),
                "{message}"
            );
        }
        assert!(positive("tol", 1e-9).is_ok());
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(positive("tol", bad)
                .unwrap_err()
                .to_string()
                .contains("tol"));
        }
        assert!(at_least_one("max_iter", 1).is_ok());
        assert!(at_least_one("max_iter", 0)
            .unwrap_err()
            .to_string()
            .contains("max_iter"));
    }
}
