//! Command-line values of settings whose type has no text form of its own (feature `cli`): a
//! pair of names `A,B` and a pair of numbers `LO,HI`, as the settings structs' derived options
//! read them.

/// `A,B` → two non-empty names (spaces around each trimmed).
///
/// # Errors
/// Anything but two non-empty names separated by one comma.
pub fn two_names(text: &str) -> Result<(String, String), String> {
    match text.split(',').map(str::trim).collect::<Vec<_>>()[..] {
        [a, b] if !a.is_empty() && !b.is_empty() => Ok((a.to_owned(), b.to_owned())),
        _ => Err(format!("expected two names `A,B`, found `{text}`")),
    }
}

/// `LO,HI` → two numbers.
///
/// # Errors
/// Anything but two numbers separated by one comma.
pub fn two_numbers(text: &str) -> Result<(f64, f64), String> {
    let (a, b) = two_names(text)?;
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err(format!("expected two numbers `LO,HI`, found `{text}`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_read_and_anything_else_is_refused_with_what_was_found() {
        assert_eq!(two_names(" a , b"), Ok(("a".into(), "b".into())));
        assert!(two_names("a").unwrap_err().contains("`a`"));
        assert!(two_names("a,").is_err());
        assert!(two_names("a,b,c").is_err());
        assert_eq!(two_numbers("-1,2.5"), Ok((-1.0, 2.5)));
        assert!(two_numbers("1,x").unwrap_err().contains("LO,HI"));
    }
}
