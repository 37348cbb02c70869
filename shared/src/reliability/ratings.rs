//! Ratings: scores that raters (LLM judges or people) gave to items, in long CSV format, and
//! their item × rater matrix.
//!
//! Schema (recognised by the header row; column order is free):
//!
//! | column      | required | meaning                                                        |
//! |-------------|----------|----------------------------------------------------------------|
//! | `item`      | yes      | the rated unit (an output, a prompt–response pair)             |
//! | `rater`     | yes      | who rated it: a judge (model, run, repeat) or a person         |
//! | `score`     | yes      | the rating; empty means missing and the row is skipped         |
//! | `variant`   | no       | the prompt variant, order (`ab`/`ba`) or run the rating is from |
//! | `criterion` | no       | the rubric criterion the score is for                          |
//! | any other   | no       | a slice column (topic, length, difficulty…), kept as text      |
//!
//! The column names are those of [`Columns`] (the defaults above): a file in another layout is
//! read by naming its columns, e.g. LLMFAO's crowd votes `id,worker,winner` with
//! `item = id, rater = worker, score = winner`. A file with a single rater and no rater column
//! (one judge's verdicts) is read with [`Columns::default_rater`], the rater of every row.
//!
//! Scores are read on one of two scales ([`ScoreScale`]): **numeric** (every score must parse
//! as a finite number; anything else is a located error) or **nominal** (any non-empty label).
//! Nominal labels are coded 0, 1, … in the order of [`RatingsParams::categories`] when given
//! (so named ordinal scales such as `bad,ok,good` keep their order), otherwise in ascending
//! byte order of the labels found, so a file's codes do not depend on its row order.
//!
//! [`Ratings::matrix`] selects one criterion, one variant and optionally slice values, and
//! builds the item × rater matrix with `None` for missing ratings; a rater scoring the same
//! item twice within a selection is a located error naming both lines.
//!
//! [`Ratings::variant_matrix`] builds the item × variant matrix of one rater and criterion
//! (prompt variants or repeats as the columns), the input of the graded response model and of
//! self-consistency; [`Ratings::check_whole_scores`] and [`RatingMatrix::whole_scores`] turn
//! scores into the whole numbers [`crate::reliability::irt::irt_grm`] fits.
//!
//! Errors: [`Error::Input`] with source, line, column and field for an empty file, a header
//! without the item, rater and score columns (saying so when it looks semicolon- or
//! tab-separated), duplicate header names, a quoted field that is never closed (where it
//! begins), a ragged row, invalid UTF-8, an empty `item`/`rater`/`variant`/`criterion`, a
//! non-numeric score on the numeric scale, a label outside the declared categories, or a score
//! that is not a whole number ≥ 0 where one is needed; lines are those an editor shows, whatever
//! the line endings (`\r\n` included); [`Error::Insufficient`] for a file without ratings, or a
//! variant matrix of a file without variants; [`Error::InvalidParam`] for inconsistent settings
//! (empty, padded or repeated column names included) or a selection naming an unknown rater,
//! criterion, variant or slice column.

use crate::io::csv_row::csv_error;
use crate::io::csv_row::{header_names, open, with_separator_hint};
use crate::io::error::{Error, Location, Result};
use crate::rankings::battles::ModelIndex;
use crate::reliability::irt::irt_grm::RatingMatrix as GrmMatrix;
use serde::{Deserialize, Serialize};

/// How scores are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "snake_case")]
pub enum ScoreScale {
    /// Numbers (binary 0/1, Likert 1–5, continuous 0–1): order and distance are meaningful.
    #[default]
    Numeric,
    /// Labels (`pass`/`fail`, `A`/`B`/`tie`): only equality is meaningful, unless
    /// [`RatingsParams::categories`] orders them.
    Nominal,
}

/// Settings for reading a ratings CSV.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct RatingsParams {
    /// How scores are read.
    #[cfg_attr(feature = "cli", arg(long, value_enum, default_value_t = ScoreScale::Numeric))]
    pub scale: ScoreScale,
    /// Nominal scale only: the allowed labels, in scale order, comma-separated. `None`: every
    /// label found, sorted.
    #[cfg_attr(feature = "cli", arg(long, value_delimiter = ','))]
    pub categories: Option<Vec<String>>,
}

/// The header names of a ratings file's columns, and the rater of a file without a rater
/// column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
#[serde(default)]
pub struct Columns {
    /// Column holding the rated item.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Columns::default().item))]
    pub item: String,
    /// Column holding the rater.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Columns::default().rater))]
    pub rater: String,
    /// Column holding the score.
    #[cfg_attr(feature = "cli", arg(long, default_value_t = Columns::default().score))]
    pub score: String,
    /// Column holding the prompt variant, order or repeat (optional in the files).
    #[cfg_attr(
        feature = "cli",
        arg(long = "variant-column", id = "variant_column", default_value_t = Columns::default().variant)
    )]
    pub variant: String,
    /// Column holding the rubric criterion (optional in the files).
    #[cfg_attr(
        feature = "cli",
        arg(long = "criterion-column", id = "criterion_column", default_value_t = Columns::default().criterion)
    )]
    pub criterion: String,
    /// The rater of every row when the file has no rater column (a single judge's verdicts).
    /// `None`: the rater column is required. Unused when the file has a rater column.
    #[cfg_attr(feature = "cli", arg(skip))]
    pub default_rater: Option<String>,
}

impl Columns {
    /// The columns a ratings file with this header most likely means: for each of item, rater
    /// and score the first header name (case aside) among its usual names — `item`, `id`,
    /// `question_id`, `prompt_id`, `item_id`; `rater`, `worker`, `annotator`, `judge`,
    /// `annotator_id`, `user`; `score`, `winner`, `label`, `rating`, `verdict`, `grade` — so
    /// LLMFAO's `id,worker,winner` and Chatbot Arena's `question_id,judge,winner` are found; a
    /// role none of whose names appears keeps its default.
    pub fn guess(header: &[String]) -> Self {
        let find = |names: &[&str], default: String| {
            names
                .iter()
                .find_map(|n| header.iter().find(|h| h.trim().eq_ignore_ascii_case(n)))
                .map_or(default, |h| h.trim().to_owned())
        };
        let d = Self::default();
        Self {
            item: find(
                &["item", "id", "question_id", "prompt_id", "item_id"],
                d.item,
            ),
            rater: find(
                &[
                    "rater",
                    "worker",
                    "annotator",
                    "judge",
                    "annotator_id",
                    "user",
                ],
                d.rater,
            ),
            score: find(
                &["score", "winner", "label", "rating", "verdict", "grade"],
                d.score,
            ),
            ..Self::default()
        }
    }
}

impl Default for Columns {
    fn default() -> Self {
        Self {
            item: "item".into(),
            rater: "rater".into(),
            score: "score".into(),
            variant: "variant".into(),
            criterion: "criterion".into(),
            default_rater: None,
        }
    }
}

impl Columns {
    /// Checks the names: non-empty, without surrounding spaces, all different.
    pub fn validate(&self) -> Result<()> {
        let names = [
            ("item", &self.item),
            ("rater", &self.rater),
            ("score", &self.score),
            ("variant", &self.variant),
            ("criterion", &self.criterion),
        ];
        for (i, &(what, name)) in names.iter().enumerate() {
            if name.trim().is_empty() || name.trim() != name {
                return Err(Error::param(
                    "columns",
                    format!(
                        "expected a non-empty {what} column name without surrounding spaces, \
                         found `{name}`"
                    ),
                ));
            }
            if let Some((other, _)) = names[..i].iter().find(|(_, n)| *n == name) {
                return Err(Error::param(
                    "columns",
                    format!("`{name}` is named as both the {other} and the {what} column"),
                ));
            }
        }
        match &self.default_rater {
            Some(r) if r.trim().is_empty() || r.trim() != r => Err(Error::param(
                "default_rater",
                format!("expected a non-empty rater name without surrounding spaces, found `{r}`"),
            )),
            _ => Ok(()),
        }
    }
}

impl RatingsParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<()> {
        let Some(categories) = &self.categories else {
            return Ok(());
        };
        if self.scale == ScoreScale::Numeric {
            return Err(Error::param(
                "categories",
                "categories name the labels of a nominal scale; the numeric scale reads numbers",
            ));
        }
        if categories.is_empty() {
            return Err(Error::param(
                "categories",
                "expected at least one label, found none",
            ));
        }
        for (i, label) in categories.iter().enumerate() {
            if label.trim().is_empty() || label.trim() != label {
                return Err(Error::param(
                    "categories",
                    format!(
                        "expected non-empty labels without surrounding spaces, found `{label}`"
                    ),
                ));
            }
            if categories[..i].contains(label) {
                return Err(Error::param(
                    "categories",
                    format!("the label `{label}` is listed twice"),
                ));
            }
        }
        Ok(())
    }

    /// Parses a ratings CSV with the default column names. `source` names the input in error
    /// messages.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn parse(&self, source: &str, bytes: &[u8]) -> Result<Ratings> {
        self.parse_columns(&Columns::default(), source, bytes)
    }

    /// Parses a ratings CSV whose columns are named by `columns`.
    ///
    /// # Errors
    /// See the module documentation.
    pub fn parse_columns(&self, columns: &Columns, source: &str, bytes: &[u8]) -> Result<Ratings> {
        self.validate()?;
        columns.validate()?;
        let (mut reader, headers) = open(source, bytes)?;
        let names = header_names(
            source,
            &headers,
            &format!(
                "`{}`, `{}` and `{}`",
                columns.item, columns.rater, columns.score
            ),
        )?;
        let find = |name: &str| names.iter().position(|h| *h == name);
        let header_error = || {
            Error::input(
                Location::line(source, 1),
                with_separator_hint(
                    format!(
                        "expected a header with `{}`, `{}` and `{}` (optionally `{}`, `{}` and \
                         slice columns), found `{}`",
                        columns.item,
                        columns.rater,
                        columns.score,
                        columns.variant,
                        columns.criterion,
                        names.join(",")
                    ),
                    &headers,
                ),
            )
        };
        let (Some(i_item), Some(i_score)) = (find(&columns.item), find(&columns.score)) else {
            return Err(header_error());
        };
        let i_rater = find(&columns.rater);
        // Without a rater column every row is the default rater's.
        let fixed_rater: &str = match (i_rater, columns.default_rater.as_deref()) {
            (None, None) => return Err(header_error()),
            (_, fixed) => fixed.unwrap_or_default(),
        };
        let i_variant = find(&columns.variant);
        let i_criterion = find(&columns.criterion);
        let slice_cols: Vec<usize> = (0..names.len())
            .filter(|&i| {
                ![Some(i_item), i_rater, Some(i_score), i_variant, i_criterion].contains(&Some(i))
            })
            .collect();

        let mut items = ModelIndex::default();
        let mut raters = ModelIndex::default();
        let mut variants = ModelIndex::default();
        let mut criteria = ModelIndex::default();
        let mut labels = ModelIndex::default();
        let mut rows = Vec::new();
        let mut empty_scores = 0;
        // One record, read into again and again: no allocation per row.
        let mut record = csv::StringRecord::new();
        while reader
            .read_record(&mut record)
            .map_err(|e| csv_error(source, &e))?
        {
            let line = record.position().map_or(0, csv::Position::line);
            let raw = |i: usize| record.get(i).unwrap_or("").trim();
            let cell = |i: usize| -> Result<&str> {
                let value = raw(i);
                if value.is_empty() {
                    Err(Error::input(
                        Location::field(source, line, i + 1, names[i]),
                        "expected a value, found an empty field",
                    ))
                } else {
                    Ok(value)
                }
            };
            let item = cell(i_item)?;
            let rater = match i_rater {
                Some(i) => cell(i)?,
                None => fixed_rater,
            };
            let variant = i_variant.map(cell).transpose()?;
            let criterion = i_criterion.map(cell).transpose()?;
            let score = raw(i_score);
            if score.is_empty() {
                empty_scores += 1;
                continue;
            }
            let score_location = || Location::field(source, line, i_score + 1, names[i_score]);
            let value = match (self.scale, &self.categories) {
                (ScoreScale::Numeric, _) => match score.parse::<f64>() {
                    Ok(v) if v.is_finite() => v,
                    _ => {
                        return Err(Error::input(
                            score_location(),
                            format!(
                                "expected a number (the scale is numeric), found `{score}`; \
                                 read labels with the nominal scale"
                            ),
                        ))
                    }
                },
                (ScoreScale::Nominal, Some(categories)) => {
                    match categories.iter().position(|c| c == score) {
                        Some(code) => code as f64,
                        None => {
                            return Err(Error::input(
                                score_location(),
                                format!(
                                    "expected one of the categories `{}`, found `{score}`",
                                    categories.join("`, `")
                                ),
                            ))
                        }
                    }
                }
                (ScoreScale::Nominal, None) => labels.id(score) as f64,
            };
            rows.push(Rating {
                item: items.id(item),
                rater: raters.id(rater),
                value,
                variant: variant.map(|v| variants.id(v)),
                criterion: criterion.map(|c| criteria.id(c)),
                slices: slice_cols.iter().map(|&i| raw(i).to_owned()).collect(),
                line,
            });
        }
        if rows.is_empty() {
            return Err(Error::Insufficient(format!(
                "{source}: the file has a header but no ratings ({empty_scores} rows with an \
                 empty score)"
            )));
        }
        let categories = match (self.scale, &self.categories) {
            (ScoreScale::Numeric, _) => Vec::new(),
            (ScoreScale::Nominal, Some(categories)) => categories.clone(),
            (ScoreScale::Nominal, None) => {
                // Recode labels from first appearance to sorted order.
                let mut order: Vec<usize> = (0..labels.names.len()).collect();
                order.sort_by(|&a, &b| labels.names[a].cmp(&labels.names[b]));
                let mut code = vec![0.0; order.len()];
                for (rank, &first_seen) in order.iter().enumerate() {
                    code[first_seen] = rank as f64;
                }
                for row in &mut rows {
                    row.value = code[row.value as usize];
                }
                order.iter().map(|&i| labels.names[i].clone()).collect()
            }
        };
        Ok(Ratings {
            source: source.to_owned(),
            columns: columns.clone(),
            scale: self.scale,
            items: items.names,
            raters: raters.names,
            variants: variants.names,
            criteria: criteria.names,
            categories,
            slice_columns: slice_cols.iter().map(|&i| names[i].to_owned()).collect(),
            ratings: rows,
            empty_scores,
        })
    }
}

/// One rating. Indices point into the name lists of [`Ratings`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub item: usize,
    pub rater: usize,
    /// The score: the number itself on the numeric scale, the category code (index into
    /// [`Ratings::categories`]) on the nominal scale.
    pub value: f64,
    pub variant: Option<usize>,
    pub criterion: Option<usize>,
    /// The values of the slice columns, in the order of [`Ratings::slice_columns`].
    pub slices: Vec<String>,
    /// The row's line in the source, for error messages.
    pub line: u64,
}

/// A parsed ratings file. Names are numbered in order of first appearance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratings {
    pub source: String,
    /// The column names the file was read with.
    pub columns: Columns,
    pub scale: ScoreScale,
    pub items: Vec<String>,
    pub raters: Vec<String>,
    /// Empty when the file has no `variant` column.
    pub variants: Vec<String>,
    /// Empty when the file has no `criterion` column.
    pub criteria: Vec<String>,
    /// Nominal scale: the label of each code. Empty on the numeric scale.
    pub categories: Vec<String>,
    pub slice_columns: Vec<String>,
    pub ratings: Vec<Rating>,
    /// Rows skipped because their score was empty (missing ratings).
    pub empty_scores: usize,
}

/// Which ratings go into a matrix.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Selection {
    /// Required when the file has more than one criterion.
    pub criterion: Option<String>,
    /// Required when the file has more than one variant.
    pub variant: Option<String>,
    /// Keep only rows whose slice column (first) has the value (second); all must match.
    pub slices: Vec<(String, String)>,
}

/// Scores as an item × rater matrix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatingMatrix {
    pub items: Vec<String>,
    /// The columns: raters, or the variants of [`Ratings::variant_matrix`].
    pub raters: Vec<String>,
    /// `values[i][r]`: rater `r`'s score of item `i`, `None` where missing.
    pub values: Vec<Vec<Option<f64>>>,
}

impl RatingMatrix {
    /// The column of the rater called `name`.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the raters there are when `name` is not one of them.
    pub fn rater_index(&self, name: &str) -> Result<usize> {
        self.raters.iter().position(|r| r == name).ok_or_else(|| {
            Error::param(
                "rater",
                format!(
                    "expected one of the raters `{}`, found `{name}`",
                    self.raters.join("`, `")
                ),
            )
        })
    }

    /// The scores of raters `a` and `b` on the items both rated, in item order.
    pub fn paired(&self, a: usize, b: usize) -> (Vec<f64>, Vec<f64>) {
        self.values
            .iter()
            .filter_map(|row| match (row.get(a), row.get(b)) {
                (Some(Some(x)), Some(Some(y))) => Some((*x, *y)),
                _ => None,
            })
            .unzip()
    }

    /// Number of ratings present.
    pub fn n_ratings(&self) -> usize {
        self.values.iter().flatten().filter(|v| v.is_some()).count()
    }

    /// The matrix with whole-number scores, for [`crate::reliability::irt::irt_grm`].
    ///
    /// # Errors
    /// [`Error::InvalidParam`] naming the item and column of a score that is not a whole
    /// number ≥ 0 ([`Ratings::check_whole_scores`] locates it in the file).
    pub fn whole_scores(&self) -> Result<GrmMatrix> {
        let rows = self
            .items
            .iter()
            .zip(&self.values)
            .map(|(item, row)| {
                row.iter()
                    .zip(&self.raters)
                    .map(|(v, column)| match v {
                        None => Ok(None),
                        Some(x) => whole(*x).map(Some).ok_or_else(|| {
                            Error::param(
                                "values",
                                format!(
                                    "item `{item}`, column `{column}`: expected a whole-number \
                                     score ≥ 0, found {x}"
                                ),
                            )
                        }),
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<Vec<_>>>()?;
        GrmMatrix::from_rows(&rows)
    }
}

impl Ratings {
    /// A score as the file wrote it, for messages: on the nominal scale the label of its code
    /// (`pass`, not `1`), on the numeric scale the number. A value that is no category's code
    /// is written as the number.
    pub fn score_text(&self, value: f64) -> String {
        let label = (self.scale == ScoreScale::Nominal && value >= 0.0 && value.fract() == 0.0)
            .then(|| self.categories.get(value as usize))
            .flatten();
        match label {
            Some(label) => label.clone(),
            None => value.to_string(),
        }
    }

    /// The distinct values of slice column `column`, sorted.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when the file has no such column.
    pub fn slice_values(&self, column: &str) -> Result<Vec<String>> {
        let c = self.slice_column(column)?;
        let mut values: Vec<String> = self.ratings.iter().map(|r| r.slices[c].clone()).collect();
        values.sort();
        values.dedup();
        Ok(values)
    }

    fn slice_column(&self, column: &str) -> Result<usize> {
        self.slice_columns
            .iter()
            .position(|c| c == column)
            .ok_or_else(|| {
                Error::param(
                    "slices",
                    format!(
                        "expected one of the slice columns `{}`, found `{column}`",
                        self.slice_columns.join("`, `")
                    ),
                )
            })
    }

    /// The item × rater matrix of the selected ratings. Items and raters appear in order of
    /// first appearance among the selected rows.
    ///
    /// # Errors
    /// [`Error::InvalidParam`] when the selection names an unknown criterion, variant or slice
    /// column, or leaves a choice open that the file requires (several criteria or variants);
    /// [`Error::Input`] at the second of two rows where a rater scores the same item;
    /// [`Error::Insufficient`] when no rating is selected.
    pub fn matrix(&self, selection: &Selection) -> Result<RatingMatrix> {
        let criterion = choose("criterion", &self.criteria, selection.criterion.as_deref())?;
        let variant = choose("variant", &self.variants, selection.variant.as_deref())?;
        let slices = selection
            .slices
            .iter()
            .map(|(column, value)| Ok((self.slice_column(column)?, value.as_str())))
            .collect::<Result<Vec<_>>>()?;

        let keep = |r: &Rating| {
            r.criterion == criterion
                && r.variant == variant
                && slices.iter().all(|&(c, v)| r.slices[c] == v)
        };
        let describe = || {
            let mut wanted: Vec<String> = Vec::new();
            if let Some(c) = criterion {
                wanted.push(format!("criterion `{}`", self.criteria[c]));
            }
            if let Some(v) = variant {
                wanted.push(format!("variant `{}`", self.variants[v]));
            }
            for (column, value) in &selection.slices {
                wanted.push(format!("{column} = `{value}`"));
            }
            if wanted.is_empty() {
                "any score".to_owned()
            } else {
                wanted.join(", ")
            }
        };
        let duplicate = |rater: &str, item: &str, line: u64| {
            format!(
                "rater `{rater}` already scored item `{item}` on line {line}: expected one score \
                 per item and rater within a criterion and variant"
            )
        };
        self.build(keep, |r| Some(r.rater), &self.raters, describe, duplicate)
    }

    /// The item × variant matrix of one rater's scores on one criterion: the prompt variants
    /// (or repeats) are the columns, named in `raters` of the result. `rater` and `criterion`
    /// are required when the file holds several. Items and variants appear in order of first
    /// appearance among the selected rows.
    ///
    /// # Errors
    /// [`Error::Insufficient`] when the file has no variant column or no rating is selected;
    /// [`Error::InvalidParam`] for an unknown rater or criterion, or a choice left open;
    /// [`Error::Input`] at the second of two rows where the rater scores the same item under
    /// the same variant.
    pub fn variant_matrix(
        &self,
        rater: Option<&str>,
        criterion: Option<&str>,
    ) -> Result<RatingMatrix> {
        if self.variants.is_empty() {
            return Err(Error::Insufficient(format!(
                "{}: the ratings have no `{}` column: expected the prompt variant (or repeat) of \
                 each rating",
                self.source, self.columns.variant
            )));
        }
        let rater = choose("rater", &self.raters, rater)?;
        let criterion = choose("criterion", &self.criteria, criterion)?;
        let rater_name = rater.map_or("", |r| self.raters[r].as_str());
        let keep = |r: &Rating| Some(r.rater) == rater && r.criterion == criterion;
        let describe = || {
            let mut wanted = format!("rater `{rater_name}`");
            if let Some(c) = criterion {
                wanted.push_str(&format!(", criterion `{}`", self.criteria[c]));
            }
            wanted
        };
        let duplicate = |variant: &str, item: &str, line: u64| {
            format!(
                "rater `{rater_name}` already scored item `{item}` under variant `{variant}` on \
                 line {line}: expected one score per item and variant within a rater and \
                 criterion"
            )
        };
        self.build(keep, |r| r.variant, &self.variants, describe, duplicate)
    }

    /// Builds an item × column matrix from the rows `keep` selects, each in the column
    /// `column(row)` (an index into `names`).
    fn build(
        &self,
        keep: impl Fn(&Rating) -> bool,
        column: impl Fn(&Rating) -> Option<usize>,
        names: &[String],
        describe: impl FnOnce() -> String,
        duplicate: impl Fn(&str, &str, u64) -> String,
    ) -> Result<RatingMatrix> {
        // Item and column ids are dense (0.. the names' count): the matrix's row and column of
        // each are looked up by index, `NONE` until first seen.
        const NONE: usize = usize::MAX;
        let mut item_row = vec![NONE; self.items.len()];
        let mut column_of = vec![NONE; names.len()];
        let mut items = Vec::new();
        let mut columns = Vec::new();
        let mut cells: Vec<(usize, usize, f64, u64)> = Vec::new();
        for r in self.ratings.iter().filter(|r| keep(r)) {
            let Some(c) = column(r) else { continue };
            if item_row[r.item] == NONE {
                item_row[r.item] = items.len();
                items.push(self.items[r.item].clone());
            }
            if column_of[c] == NONE {
                column_of[c] = columns.len();
                columns.push(names[c].clone());
            }
            cells.push((item_row[r.item], column_of[c], r.value, r.line));
        }
        if cells.is_empty() {
            return Err(Error::Insufficient(format!(
                "{}: no ratings with {}",
                self.source,
                describe()
            )));
        }
        let mut values = vec![vec![None; columns.len()]; items.len()];
        let width = columns.len();
        let mut first_line = vec![0u64; width * items.len()];
        for (i, j, value, line) in cells {
            if values[i][j].is_some() {
                return Err(Error::input(
                    Location::line(&self.source, line),
                    duplicate(&columns[j], &items[i], first_line[i * width + j]),
                ));
            }
            values[i][j] = Some(value);
            first_line[i * width + j] = line;
        }
        Ok(RatingMatrix {
            items,
            raters: columns,
            values,
        })
    }

    /// Checks that every score is a whole number ≥ 0 (always so on the nominal scale, whose
    /// scores are category codes), as the graded response model needs.
    ///
    /// # Errors
    /// [`Error::Input`] at the first row whose score is not.
    pub fn check_whole_scores(&self) -> Result<()> {
        match self.ratings.iter().find(|r| whole(r.value).is_none()) {
            None => Ok(()),
            Some(r) => Err(Error::input(
                Location {
                    source: self.source.clone(),
                    line: r.line,
                    column: None,
                    field: Some(self.columns.score.clone()),
                    byte: None,
                },
                format!(
                    "expected a whole-number score ≥ 0 (the graded response model fits ordered \
                     categories), found {}",
                    r.value
                ),
            )),
        }
    }
}

/// `value` as a whole number ≥ 0, if it is one.
fn whole(value: f64) -> Option<u32> {
    (value >= 0.0 && value <= f64::from(u32::MAX) && value.fract() == 0.0).then_some(value as u32)
}

/// Resolves an optional column value (criterion or variant) to its index.
fn choose(what: &'static str, names: &[String], wanted: Option<&str>) -> Result<Option<usize>> {
    match (wanted, names.len()) {
        (None, 0) => Ok(None),
        (None, 1) => Ok(Some(0)),
        (None, _) => Err(Error::param(
            what,
            format!(
                "the ratings hold several values of `{what}` (`{}`): choose one",
                names.join("`, `")
            ),
        )),
        (Some(w), _) => names.iter().position(|n| n == w).map(Some).ok_or_else(|| {
            Error::param(
                what,
                format!(
                    "expected one of `{}`, found `{w}`",
                    if names.is_empty() {
                        format!("(the file has no `{what}` column)")
                    } else {
                        names.join("`, `")
                    }
                ),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(text: &str) -> Result<Ratings> {
        RatingsParams::default().parse("r.csv", text.as_bytes())
    }

    #[test]
    fn guessed_columns_of_llmfao_arena_and_unknown_headers() {
        let header = |h: &str| h.split(',').map(str::to_owned).collect::<Vec<_>>();
        let llmfao = Columns::guess(&header(
            "id,prompt,model_x,model_y,worker,winner,left,right",
        ));
        assert_eq!(
            (
                llmfao.item.as_str(),
                llmfao.rater.as_str(),
                llmfao.score.as_str()
            ),
            ("id", "worker", "winner")
        );
        let arena = Columns::guess(&header("question_id,model_a,model_b,Judge,winner,turn"));
        assert_eq!(
            (
                arena.item.as_str(),
                arena.rater.as_str(),
                arena.score.as_str()
            ),
            ("question_id", "Judge", "winner")
        );
        // `item` is preferred to `id` when both are there; unknown names keep the defaults.
        let both = Columns::guess(&header("id,item,rater,score"));
        assert_eq!(both.item, "item");
        assert_eq!(Columns::guess(&header("a,b,c")), Columns::default());
    }

    fn input_error(result: Result<impl std::fmt::Debug>) -> (Location, String) {
        match result {
            Err(Error::Input { location, message }) => (location, message),
            other => panic!("expected an input error, got {other:?}"),
        }
    }

    #[test]
    fn numeric_matrix_with_missing_values_and_slices() {
        let r = numeric(
            "item,rater,score,topic\n\
             q1,judge,4,code\nq1,human,5,code\nq2,judge,2,math\nq3,human,1,math\nq3,judge,,math\n",
        )
        .unwrap();
        assert_eq!(r.slice_columns, ["topic"]);
        assert_eq!(r.empty_scores, 1);
        let m = r.matrix(&Selection::default()).unwrap();
        assert_eq!(m.items, ["q1", "q2", "q3"]);
        assert_eq!(m.raters, ["judge", "human"]);
        assert_eq!(
            m.values,
            [
                vec![Some(4.0), Some(5.0)],
                vec![Some(2.0), None],
                vec![None, Some(1.0)]
            ]
        );
        assert_eq!(m.paired(0, 1), (vec![4.0], vec![5.0]));
        assert_eq!(m.n_ratings(), 4);
        let math = r
            .matrix(&Selection {
                slices: vec![("topic".into(), "math".into())],
                ..Default::default()
            })
            .unwrap();
        assert_eq!(math.items, ["q2", "q3"]);
        assert_eq!(r.slice_values("topic").unwrap(), ["code", "math"]);
        assert!(r.slice_values("length").is_err());
    }

    #[test]
    fn nominal_codes_are_sorted_or_follow_declared_categories() {
        let text = "item,rater,score\n1,a,pass\n1,b,fail\n2,a,na\n";
        let sorted = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: None,
        }
        .parse("r.csv", text.as_bytes())
        .unwrap();
        assert_eq!(sorted.categories, ["fail", "na", "pass"]);
        let codes: Vec<f64> = sorted.ratings.iter().map(|r| r.value).collect();
        assert_eq!(codes, [2.0, 0.0, 1.0]);
        let declared = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: Some(vec!["fail".into(), "pass".into(), "na".into()]),
        };
        let d = declared.parse("r.csv", text.as_bytes()).unwrap();
        let codes: Vec<f64> = d.ratings.iter().map(|r| r.value).collect();
        assert_eq!(codes, [1.0, 0.0, 2.0]);
        let (loc, msg) = input_error(declared.parse("r.csv", b"item,rater,score\n1,a,maybe\n"));
        assert_eq!(loc, Location::field("r.csv", 2, 3, "score"));
        assert!(msg.contains("found `maybe`"), "{msg}");
    }

    #[test]
    fn non_numeric_score_on_numeric_scale_is_located() {
        let (loc, msg) = input_error(numeric("rater,item,score\nj,1,3\nj,2,good\n"));
        assert_eq!(loc, Location::field("r.csv", 3, 3, "score"));
        assert!(msg.contains("expected a number"), "{msg}");
        assert!(msg.contains("found `good`"), "{msg}");
        let (loc, _) = input_error(numeric("item,rater,score\n1,j,inf\n"));
        assert_eq!(loc.line, 2);
    }

    #[test]
    fn header_row_and_field_errors() {
        let (loc, msg) = input_error(numeric("item,judge,score\n1,a,1\n"));
        assert_eq!(loc.line, 1);
        assert!(msg.contains("`item`, `rater` and `score`"), "{msg}");
        let (loc, msg) = input_error(numeric("item,rater,score,item\n1,a,1,2\n"));
        assert_eq!(loc, Location::field("r.csv", 1, 4, "item"));
        assert!(msg.contains("twice"), "{msg}");
        let (loc, _) = input_error(numeric("item,rater,score\n1,,1\n"));
        assert_eq!(loc, Location::field("r.csv", 2, 2, "rater"));
        let (loc, msg) = input_error(numeric("item,rater,score\n1,a,1\n2,a\n"));
        assert_eq!(loc.line, 3);
        assert!(msg.contains("expected 3 fields"), "{msg}");
        let (loc, msg) = input_error(numeric(""));
        assert_eq!(loc.line, 1);
        assert!(msg.contains("empty"), "{msg}");
        assert!(matches!(
            numeric("item,rater,score\n1,a,\n"),
            Err(Error::Insufficient(_))
        ));
        let (loc, _) =
            input_error(RatingsParams::default().parse("r.csv", b"item,rater,score\n1,a\xff,1\n"));
        assert_eq!((loc.line, loc.column), (2, Some(2)));
    }

    #[test]
    fn selections_of_criteria_and_variants() {
        let r = numeric(
            "item,rater,score,criterion,variant\n\
             1,j,1,coverage,ab\n1,j,0,format,ab\n1,j,1,coverage,ba\n2,j,0,coverage,ab\n",
        )
        .unwrap();
        assert_eq!(r.criteria, ["coverage", "format"]);
        assert!(matches!(
            r.matrix(&Selection::default()),
            Err(Error::InvalidParam {
                name: "criterion",
                ..
            })
        ));
        let pick = |c: &str, v: &str| {
            r.matrix(&Selection {
                criterion: Some(c.into()),
                variant: Some(v.into()),
                slices: vec![],
            })
        };
        let m = pick("coverage", "ab").unwrap();
        assert_eq!(m.values, [vec![Some(1.0)], vec![Some(0.0)]]);
        assert!(matches!(
            pick("tone", "ab"),
            Err(Error::InvalidParam {
                name: "criterion",
                ..
            })
        ));
        assert!(matches!(pick("format", "ba"), Err(Error::Insufficient(_))));
    }

    #[test]
    fn duplicate_rating_names_both_lines() {
        let r = numeric("item,rater,score\n1,a,1\n2,a,1\n1,a,2\n").unwrap();
        let (loc, msg) = input_error(r.matrix(&Selection::default()));
        assert_eq!(loc, Location::line("r.csv", 4));
        assert!(msg.contains("on line 2"), "{msg}");
    }

    #[test]
    fn settings_are_checked() {
        let bad = RatingsParams {
            scale: ScoreScale::Numeric,
            categories: Some(vec!["a".into()]),
        };
        assert!(bad.validate().is_err());
        let dup = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: Some(vec!["a".into(), "a".into()]),
        };
        assert!(dup.validate().is_err());
        let m = RatingMatrix {
            items: vec!["x".into()],
            raters: vec!["a".into()],
            values: vec![vec![Some(1.0)]],
        };
        assert_eq!(m.rater_index("a").unwrap(), 0);
        assert!(m.rater_index("b").is_err());
    }

    fn llmfao_columns(default_rater: Option<&str>) -> Columns {
        Columns {
            item: "id".into(),
            rater: "worker".into(),
            score: "winner".into(),
            default_rater: default_rater.map(String::from),
            ..Default::default()
        }
    }

    #[test]
    fn columns_are_mapped_by_name() {
        let nominal = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: None,
        };
        let crowd = "id,prompt,worker,winner\n0,8,58,tie\n0,8,14,right\n1,8,58,left\n";
        let r = nominal
            .parse_columns(&llmfao_columns(None), "crowd.csv", crowd.as_bytes())
            .unwrap();
        assert_eq!(r.items, ["0", "1"]);
        assert_eq!(r.raters, ["58", "14"]);
        assert_eq!(r.categories, ["left", "right", "tie"]);
        assert_eq!(r.slice_columns, ["prompt"]);
        assert_eq!(r.columns.score, "winner");
        let m = r.matrix(&Selection::default()).unwrap();
        assert_eq!(
            m.values,
            [vec![Some(2.0), Some(1.0)], vec![Some(0.0), None]]
        );
        // The default names no longer apply, and the header error names the mapped ones.
        let (loc, msg) = input_error(nominal.parse("crowd.csv", crowd.as_bytes()));
        assert_eq!(loc.line, 1);
        assert!(msg.contains("`item`, `rater` and `score`"), "{msg}");
        let (loc, msg) = input_error(nominal.parse_columns(
            &llmfao_columns(None),
            "r.csv",
            b"item,rater,score\n1,a,x\n",
        ));
        assert_eq!(loc.line, 1);
        assert!(msg.contains("`id`, `worker` and `winner`"), "{msg}");
        // A bad score is located under the mapped column's name.
        let (loc, _) = input_error(RatingsParams::default().parse_columns(
            &llmfao_columns(None),
            "crowd.csv",
            crowd.as_bytes(),
        ));
        assert_eq!(loc, Location::field("crowd.csv", 2, 4, "winner"));
    }

    #[test]
    fn a_file_without_a_rater_column_has_the_default_rater() {
        let judge = "id,winner\n0,left\n1,tie\n";
        let nominal = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: Some(vec!["left".into(), "right".into(), "tie".into()]),
        };
        let r = nominal
            .parse_columns(&llmfao_columns(Some("gpt4")), "gpt4.csv", judge.as_bytes())
            .unwrap();
        assert_eq!(r.raters, ["gpt4"]);
        let m = r.matrix(&Selection::default()).unwrap();
        assert_eq!(m.values, [vec![Some(0.0)], vec![Some(2.0)]]);
        // Without a default the rater column is required.
        let (loc, msg) =
            input_error(nominal.parse_columns(&llmfao_columns(None), "gpt4.csv", judge.as_bytes()));
        assert_eq!(loc.line, 1);
        assert!(msg.contains("`worker`"), "{msg}");
        // With a rater column, the column is read and the default unused.
        let crowd = "id,worker,winner\n0,7,left\n";
        let r = nominal
            .parse_columns(&llmfao_columns(Some("gpt4")), "c.csv", crowd.as_bytes())
            .unwrap();
        assert_eq!(r.raters, ["7"]);
    }

    #[test]
    fn column_names_are_checked() {
        let same = Columns {
            rater: "item".into(),
            ..Default::default()
        };
        assert!(matches!(
            same.validate(),
            Err(Error::InvalidParam {
                name: "columns",
                ..
            })
        ));
        let padded = Columns {
            score: " score".into(),
            ..Default::default()
        };
        assert!(padded.validate().is_err());
        let empty_rater = Columns {
            default_rater: Some(String::new()),
            ..Default::default()
        };
        assert!(RatingsParams::default()
            .parse_columns(&empty_rater, "r.csv", b"item,score\n1,1\n")
            .is_err());
        assert!(Columns::default().validate().is_ok());
    }

    #[test]
    fn variant_matrix_of_one_rater() {
        let r = numeric(
            "item,rater,score,variant,criterion\n\
             1,j,4,plain,overall\n1,j,5,typo,overall\n2,j,2,plain,overall\n\
             1,k,1,plain,overall\n3,j,3,typo,overall\n",
        )
        .unwrap();
        let m = r.variant_matrix(Some("j"), None).unwrap();
        assert_eq!(m.items, ["1", "2", "3"]);
        assert_eq!(m.raters, ["plain", "typo"]);
        assert_eq!(
            m.values,
            [
                vec![Some(4.0), Some(5.0)],
                vec![Some(2.0), None],
                vec![None, Some(3.0)]
            ]
        );
        assert!(matches!(
            r.variant_matrix(None, None),
            Err(Error::InvalidParam { name: "rater", .. })
        ));
        assert!(r.variant_matrix(Some("nobody"), None).is_err());
        let grm = m.whole_scores().unwrap();
        assert_eq!((grm.n_items(), grm.n_variants()), (3, 2));
        assert_eq!(grm.get(0, 1), Some(5));
        assert_eq!(grm.get(1, 1), None);
        r.check_whole_scores().unwrap();

        let twice = numeric("item,rater,score,variant\n1,j,1,a\n1,j,2,a\n").unwrap();
        let (loc, msg) = input_error(twice.variant_matrix(None, None));
        assert_eq!(loc, Location::line("r.csv", 3));
        assert!(msg.contains("under variant `a` on line 2"), "{msg}");
        let flat = numeric("item,rater,score\n1,j,1\n").unwrap();
        assert!(matches!(
            flat.variant_matrix(None, None),
            Err(Error::Insufficient(_))
        ));
    }

    #[test]
    fn whole_scores_are_checked_and_located() {
        let r = numeric("item,rater,score,variant\n1,j,1,a\n2,j,2.5,a\n3,j,-1,a\n").unwrap();
        let (loc, msg) = input_error(r.check_whole_scores());
        assert_eq!((loc.line, loc.field.as_deref()), (3, Some("score")));
        assert!(msg.contains("found 2.5"), "{msg}");
        let m = r.variant_matrix(None, None).unwrap();
        match m.whole_scores() {
            Err(Error::InvalidParam { message, .. }) => {
                assert!(message.contains("item `2`, column `a`"), "{message}")
            }
            other => panic!("expected an invalid-value error, got {other:?}"),
        }
    }

    #[test]
    fn crlf_rows_keep_their_editor_lines() {
        let lf = "item,rater,score\n1,a,1\n2,a,2\n3,a,good\n";
        for text in [lf.to_owned(), lf.replace('\n', "\r\n")] {
            let (loc, msg) = input_error(numeric(&text));
            assert_eq!(loc, Location::field("r.csv", 4, 3, "score"), "{text:?}");
            assert!(msg.contains("found `good`"), "{msg}");
        }
        let twice = numeric("item,rater,score\r\n1,a,1\r\n2,a,1\r\n1,a,2\r\n").unwrap();
        let (loc, msg) = input_error(twice.matrix(&Selection::default()));
        assert_eq!(loc, Location::line("r.csv", 4));
        assert!(msg.contains("on line 2"), "{msg}");
        let (loc, _) = input_error(numeric("item,rater,score\r\n1,a,1\r\n2,a\r\n"));
        assert_eq!(loc.line, 3);
        // Line breaks inside a quoted field are the field's own.
        let r = numeric("item,rater,score\r\n\"q\r\n1\",a,1\r\n2,a,1\r\n").unwrap();
        assert_eq!(r.items, ["q\r\n1", "2"]);
        assert_eq!(r.ratings[1].line, 4);
    }

    #[test]
    fn separators_quotes_and_repeated_columns_say_what_to_do() {
        let (loc, msg) = input_error(numeric("item;rater;score\n1;a;1\n"));
        assert_eq!(loc, Location::line("r.csv", 1));
        assert!(
            msg.starts_with("the header looks semicolon-separated (found `item;rater;score`)"),
            "{msg}"
        );
        let (_, msg) = input_error(numeric("item\trater\tscore\n1\ta\t1\n"));
        assert!(msg.contains("looks tab-separated"), "{msg}");
        let (_, msg) = input_error(numeric("item;rater,score\n1;a,1\n"));
        assert!(msg.contains("expected a header with `item`"), "{msg}");
        assert!(msg.contains("looks semicolon-separated"), "{msg}");
        let (loc, msg) = input_error(numeric("item,rater,score\n1,a,1\n2,\"b,2\n3,c,3\n"));
        assert_eq!(loc, Location::field("r.csv", 3, 2, "rater"));
        assert!(msg.contains("never closed"), "{msg}");
        let (loc, msg) = input_error(numeric("item,rater,score,rater\n1,a,1,b\n"));
        assert_eq!(loc, Location::field("r.csv", 1, 4, "rater"));
        assert!(msg.contains("twice"), "{msg}");
    }

    #[test]
    fn scores_are_written_as_the_file_wrote_them() {
        let nominal = RatingsParams {
            scale: ScoreScale::Nominal,
            categories: None,
        }
        .parse("r.csv", b"item,rater,score\n1,a,pass\n2,a,fail\n")
        .unwrap();
        assert_eq!(nominal.score_text(1.0), "pass");
        assert_eq!(nominal.score_text(0.0), "fail");
        assert_eq!(nominal.score_text(2.0), "2");
        let numeric = numeric("item,rater,score\n1,a,4.5\n").unwrap();
        assert_eq!(numeric.score_text(4.5), "4.5");
        assert_eq!(numeric.score_text(1.0), "1");
    }
}
