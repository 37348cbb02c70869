//! The benchmarked workloads, one function each, called by the native timer (`bench-native`)
//! and, compiled to WASM, by the browser timer (`benches/wasm.mjs`). Timing lives in the
//! callers because `std::time::Instant` does not exist in the browser.

use tribunal::battles::{parse_battles, Battles};
use tribunal::bradley_terry::BradleyTerryParams;
use tribunal::leaderboard::bradley_terry_leaderboard;
use tribunal::pairwise::Pairwise;

/// Parse a battles CSV and fit the leaderboard: what a user waits for after picking a file.
/// Returns the top rating so the work cannot be optimised away.
pub fn csv_to_leaderboard(bytes: &[u8]) -> f64 {
    parse_battles("bench.csv", bytes)
        .and_then(|b| bradley_terry_leaderboard("bench.csv", &b, &BradleyTerryParams::default()))
        .map_or(f64::NAN, |lb| lb.ratings[0].elo)
}

/// The Bradley–Terry fit alone, from parsed battles (sufficient statistics + Newton).
pub fn fit_only(battles: &Battles) -> f64 {
    let data = Pairwise::from_battles(battles.n_models(), &battles.battles);
    BradleyTerryParams::default()
        .fit(&data)
        .map_or(f64::NAN, |fit| fit.theta[0])
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use super::*;
    use wasm_bindgen::prelude::*;

    /// Parsed battles held on the WASM side between timed calls.
    #[wasm_bindgen]
    pub struct ParsedBattles(Battles);

    #[wasm_bindgen]
    pub fn bench_csv_to_leaderboard(bytes: &[u8]) -> f64 {
        csv_to_leaderboard(bytes)
    }

    #[wasm_bindgen]
    pub fn bench_parse(bytes: &[u8]) -> Result<ParsedBattles, JsError> {
        parse_battles("bench.csv", bytes)
            .map(ParsedBattles)
            .map_err(|e| JsError::new(&e.to_string()))
    }

    #[wasm_bindgen]
    pub fn bench_fit_only(parsed: &ParsedBattles) -> f64 {
        fit_only(&parsed.0)
    }
}
