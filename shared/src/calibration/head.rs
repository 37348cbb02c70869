//! What every calibration head provides: its training data as [`Rows`], its settings as
//! [`HeadParams`]. Cross-validation ([`crate::calibration::cross_validation`]) and the model
//! file's training-data hash ([`crate::calibration::head_file::training_data_hash`]) are
//! written once against these two traits; each head (LS, MN, BTL, BTL2, Plackett–Luce)
//! implements them next to its own types, and its path fit is its `HeadParams::fit_path` (its
//! settings' `fit` is the path of the one γ they hold). The name `Head` is the model file's
//! enum of fitted heads ([`crate::calibration::head_file::Head`]).
//!
//! The contract:
//! - A unit of [`Rows`] is what cross-validation deals into folds: a row (LS, MN, BTL), a pair
//!   (BTL2) or a ranked list (Plackett–Luce). `select(idx)` returns the units at `idx`, in that
//!   order (an index may repeat), with everything that is not per unit (MN's class set) kept
//!   whole, so `select` of all indices in order equals the data.
//! - `write_canonical` feeds the data's canonical bytes to an [`Fnv1a`] hash: the data kind's
//!   name, then every list in field order, each as its length followed by its entries (a nested
//!   list recursively); equal data write equal bytes on every platform (the format is
//!   described in [`crate::calibration::head_file`] and pinned by a Python reference).
//! - `strata`, when it is `Some`, gives one stratum per unit (MN: the human class), and the
//!   folds are stratified by it; `None` (the default) deals units without strata.
//! - [`HeadParams::fit_path`] fits one head per γ, in the order given, on the same data (a
//!   head may share work along the path: one Gram reduction, warm starts); a one-γ path is the
//!   plain fit. [`HeadParams::validation_loss`] is the mean held-out loss that
//!   cross-validation minimises (mean squared error, cross-entropy, log-loss or −log P(order)
//!   per list).

use crate::io::error::{Error, Result};
use crate::math::parallel_rounds::map_rounds;

/// A head's training data: units that can be counted, selected and hashed.
pub trait Rows: Sized {
    /// Number of units (rows, pairs or lists).
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The units at `idx`, in that order.
    fn select(&self, idx: &[usize]) -> Self;

    /// The canonical bytes of the data (see the module documentation).
    fn write_canonical(&self, h: &mut Fnv1a);

    /// A stratum per unit, so that cross-validation folds are stratified; `None` for none.
    fn strata(&self) -> Option<Vec<usize>> {
        None
    }
}

/// A head's settings: they fit the head along a path of γ and score a fitted head on
/// held-out data.
pub trait HeadParams: Sync {
    /// The rows a head fits; `Sync`, so that cross-validation's folds can read them from
    /// several threads at once.
    type Data: Rows + Sync;
    type Fitted;
    /// The γ these settings hold.
    fn gamma(&self) -> f64;
    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParam`](crate::Error) naming the first setting out of range.
    fn validate(&self) -> Result<()>;
    /// Fits at every γ in `gammas`, results in that order.
    fn fit_path(&self, data: &Self::Data, gammas: &[f64]) -> Result<Vec<Self::Fitted>>;
    /// Mean validation loss of a fitted head on held-out data.
    fn validation_loss(fitted: &Self::Fitted, data: &Self::Data) -> Result<f64>;

    /// Cross-validation's work: for each fold of `folds` (`assignment[i]` is unit i's fold),
    /// the validation losses at every γ of `gammas` of the path fitted without that fold.
    /// Each fold's losses must not depend on which other folds are asked for (the app splits
    /// them across web workers). The default refits each training set apart
    /// ([`refit_each_fold`]); a head may share work across folds (LS: one Gram of every row).
    fn held_out_losses(
        &self,
        data: &Self::Data,
        assignment: &[usize],
        folds: &[usize],
        gammas: &[f64],
    ) -> Result<Vec<Vec<f64>>> {
        refit_each_fold(self, data, assignment, folds, gammas)
    }

    /// Fits the head at `gamma` (a path of one γ), after checking the settings.
    fn fit_at(&self, data: &Self::Data, gamma: f64) -> Result<Self::Fitted> {
        self.validate()?;
        self.fit_path(data, &[gamma])?
            .into_iter()
            .next()
            .ok_or_else(|| Error::Insufficient("a fit along one γ returned no head".into()))
    }

    /// Fits the head at the γ these settings hold.
    fn fit(&self, data: &Self::Data) -> Result<Self::Fitted> {
        self.fit_at(data, self.gamma())
    }
}

/// [`HeadParams::held_out_losses`] by a path fit on each fold's training units: the folds are
/// independent, so natively they run on the machine's threads, each fold's losses the same
/// whatever the threads.
pub(crate) fn refit_each_fold<H: HeadParams + ?Sized>(
    head: &H,
    data: &H::Data,
    assignment: &[usize],
    folds: &[usize],
    gammas: &[f64],
) -> Result<Vec<Vec<f64>>> {
    map_rounds(
        folds.len(),
        || (),
        |(), r| {
            let (train, test) = fold_units(assignment, folds[r]);
            let held_out = data.select(&test);
            head.fit_path(&data.select(&train), gammas)?
                .iter()
                .map(|fitted| H::validation_loss(fitted, &held_out))
                .collect()
        },
    )
    .into_iter()
    .collect()
}

/// The units outside fold `f` and those in it, each in order.
pub(crate) fn fold_units(assignment: &[usize], f: usize) -> (Vec<usize>, Vec<usize>) {
    (0..assignment.len()).partition(|&i| assignment[i] != f)
}

/// The entries of `v` at `idx`, in that order: one column of [`Rows::select`].
pub(crate) fn pick<T: Clone>(v: &[T], idx: &[usize]) -> Vec<T> {
    idx.iter().map(|&i| v[i].clone()).collect()
}

/// 64-bit FNV-1a.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub fn write_u64(&mut self, v: u64) {
        self.write(&v.to_le_bytes());
    }

    pub fn write_f64(&mut self, v: f64) {
        let v = if v == 0.0 { 0.0 } else { v };
        self.write(&v.to_bits().to_le_bytes());
    }

    pub fn write_f64s(&mut self, v: &[f64]) {
        self.write_u64(v.len() as u64);
        v.iter().for_each(|&x| self.write_f64(x));
    }

    pub fn write_rows(&mut self, rows: &[Vec<f64>]) {
        self.write_u64(rows.len() as u64);
        rows.iter().for_each(|r| self.write_f64s(r));
    }

    pub fn write_i64s(&mut self, v: &[i64]) {
        self.write_u64(v.len() as u64);
        v.iter().for_each(|&x| self.write(&x.to_le_bytes()));
    }

    pub fn write_str(&mut self, s: &str) {
        self.write_u64(s.len() as u64);
        self.write(s.as_bytes());
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // From the FNV reference test suite: "" and "a" and "foobar".
        let hash = |s: &str| {
            let mut h = Fnv1a::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_eq!(hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn pick_takes_the_entries_in_the_order_asked() {
        assert_eq!(pick(&[10, 11, 12], &[2, 0, 2]), [12, 10, 12]);
        assert!(pick::<f64>(&[1.0], &[]).is_empty());
    }
}
