//! One criterion's cells as a dense system × item grid (NaN where a system has no score for an
//! item), the layout every statistic of the comparison reads.

use super::score_table::ScoreTable;

/// The cells of one criterion.
#[derive(Debug, Clone)]
pub struct ScoreGrid {
    pub n_systems: usize,
    pub n_items: usize,
    /// `score[s * n_items + i]`: the cell's mean over its epochs, or NaN.
    pub score: Vec<f64>,
    /// The cell's human label, or NaN.
    pub human: Vec<f64>,
    /// The cell's index in [`ScoreTable::cells`], or `u32::MAX`.
    pub cell: Vec<u32>,
    /// Whether every score is 0 or 1.
    pub binary: bool,
    /// Whether every human label is 0 or 1 (true when there are none).
    pub human_binary: bool,
}

impl ScoreGrid {
    /// The grid of criterion `c` of `table`.
    pub fn of(table: &ScoreTable, c: usize) -> Self {
        let (n_systems, n_items) = (table.systems.len(), table.items.len());
        let mut grid = Self {
            n_systems,
            n_items,
            score: vec![f64::NAN; n_systems * n_items],
            human: vec![f64::NAN; n_systems * n_items],
            cell: vec![u32::MAX; n_systems * n_items],
            binary: true,
            human_binary: true,
        };
        for k in table.criterion_cells(c) {
            let cell = &table.cells[k];
            let at = cell.system as usize * n_items + cell.item as usize;
            grid.score[at] = cell.mean;
            grid.human[at] = cell.human;
            grid.cell[at] = k as u32;
            grid.binary &= cell.mean == 0.0 || cell.mean == 1.0;
            grid.human_binary &= cell.human.is_nan() || cell.human == 0.0 || cell.human == 1.0;
        }
        grid
    }

    /// System `s`'s row.
    pub fn row(&self, s: usize) -> &[f64] {
        &self.score[s * self.n_items..(s + 1) * self.n_items]
    }

    /// System `s`'s human labels.
    pub fn human_row(&self, s: usize) -> &[f64] {
        &self.human[s * self.n_items..(s + 1) * self.n_items]
    }

    /// The items system `s` has a score for.
    pub fn items_of(&self, s: usize) -> Vec<u32> {
        (0..self.n_items as u32)
            .filter(|&i| self.row(s)[i as usize].is_finite())
            .collect()
    }

    /// Whether system `s` has at least one human label.
    pub fn has_human(&self) -> bool {
        self.human.iter().any(|h| h.is_finite())
    }
}
