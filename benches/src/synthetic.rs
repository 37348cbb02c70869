//! Synthetic benchmark data, written as CSV so that the native timer, the browser timer and the
//! Python references read the very same file.
//!
//! - Battles: [`tribunal::rankings::simulate_battles::simulate_battles`] (ChaCha8, seeded), arena layout.
//! - Ratings (α, κ, GRM): long format `item,rater,score`, drawn from [`SplitMix64`] (a fixed,
//!   dependency-free generator: the same seed gives the same file on every platform). A missing
//!   rating is a row left out.

use tribunal::math::logistic::sigmoid;
use tribunal::rankings::simulate_battles::{simulate_battles, SimulationParams};
use tribunal::Result;

/// The settings of every synthetic battle set: `n_models` strengths evenly spaced on
/// [−1.5, 1.5] (about 520 Elo from last to first), 20 % ties.
pub fn battle_params(n_battles: usize, n_models: usize, seed: u64) -> SimulationParams {
    let step = 3.0 / (n_models.max(2) - 1) as f64;
    SimulationParams {
        theta: (0..n_models).map(|i| -1.5 + step * i as f64).collect(),
        n_battles,
        tie_rate: 0.2,
        seed,
    }
}

/// Simulated battles as an arena-layout CSV (`model_a,model_b,winner`; models `m00`, `m01`, …).
///
/// # Errors
/// Those of [`simulate_battles`] (fewer than two models).
pub fn battles_csv(params: &SimulationParams) -> Result<String> {
    let battles = simulate_battles(params)?;
    let mut csv = String::with_capacity(24 * battles.len() + 24);
    csv.push_str("model_a,model_b,winner\n");
    for b in &battles {
        let winner = if b.y == 1.0 {
            "model_a"
        } else if b.y == 0.0 {
            "model_b"
        } else {
            "tie"
        };
        csv.push_str(&format!("m{:02},m{:02},{winner}\n", b.a, b.b));
    }
    Ok(csv)
}

/// SplitMix64 (Steele, Lea & Flood 2014): a 64-bit generator with a fixed output sequence.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform on [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform on `1..=k`.
    pub fn category(&mut self, k: u32) -> u32 {
        1 + (self.uniform() * f64::from(k)) as u32
    }

    /// Standard normal (Box–Muller, one draw per call).
    pub fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Nominal ratings of `n_items` items by `n_raters` raters on categories 1..=`k`: each item
/// has a true category (uniform); a rater leaves an item unrated with probability `missing`,
/// else gives the true category with probability 0.7 and a uniform category otherwise.
pub fn agreement_csv(n_items: usize, n_raters: usize, k: u32, missing: f64, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut csv = String::from("item,rater,score\n");
    for item in 0..n_items {
        let truth = rng.category(k);
        for rater in 1..=n_raters {
            if rng.uniform() < missing {
                continue;
            }
            let score = if rng.uniform() < 0.7 {
                truth
            } else {
                rng.category(k)
            };
            csv.push_str(&format!("i{item:05},r{rater},{score}\n"));
        }
    }
    csv
}

/// Scores 1..=5 of `n_items` items under `n_variants` prompt variants drawn from a graded
/// response model: θⱼ ~ N(0, 1), α_p = 0.8 + 0.4 p, β_p = (−1.5, −0.5, 0.5, 1.5) + 0.2 (p − 1.5),
/// P(Y ≥ k + 2) = σ(α_p (θⱼ − β_pk)).
pub fn grm_csv(n_items: usize, n_variants: usize, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut csv = String::from("item,rater,score\n");
    for item in 0..n_items {
        let theta = rng.normal();
        for p in 0..n_variants {
            let alpha = 0.8 + 0.4 * p as f64;
            let shift = 0.2 * (p as f64 - 1.5);
            let u = rng.uniform();
            let score = 1 + [-1.5, -0.5, 0.5, 1.5]
                .iter()
                .filter(|&&b| u < sigmoid(alpha * (theta - (b + shift))))
                .count();
            csv.push_str(&format!("i{item:05},v{},{score}\n", p + 1));
        }
    }
    csv
}

/// A calibration CSV (`tribunal::calibration::calibration_data`) of `n` rows with `d`-dimensional
/// embeddings e ~ N(0, I): the human signal is t = e₁ − 0.5·e₂ + 0.25·e₃, which the judge sees
/// compressed, 0.5·t + N(0, 0.5²). `btl`: columns `embedding,p,human` with p = σ(judge) and a
/// human preference ~ Bernoulli(σ(2t)); otherwise LS columns `embedding,score,human` with
/// score = 3 + judge and human = 3 + t + N(0, 0.3²).
pub fn calibration_csv(n: usize, d: usize, btl: bool, seed: u64) -> String {
    let mut rng = SplitMix64::new(seed);
    let mut csv = String::from(if btl {
        "embedding,p,human\n"
    } else {
        "embedding,score,human\n"
    });
    for _ in 0..n {
        let e: Vec<f64> = (0..d).map(|_| rng.normal()).collect();
        let t = e[0] - 0.5 * e[1] + 0.25 * e[2];
        let judge = 0.5 * t + 0.5 * rng.normal();
        let cells: Vec<String> = e.iter().map(|x| format!("{x:.5}")).collect();
        let (signal, human) = if btl {
            let human = if rng.uniform() < sigmoid(2.0 * t) {
                1.0
            } else {
                0.0
            };
            (sigmoid(judge), human)
        } else {
            (3.0 + judge, 3.0 + t + 0.3 * rng.normal())
        };
        csv.push_str(&format!("{},{signal:.6},{human:.6}\n", cells.join(" ")));
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_fixed_and_in_range() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        assert_eq!(a.next_u64(), b.next_u64());
        assert!((0..1000).all(|_| (1..=5).contains(&a.category(5))));
        assert_eq!(
            agreement_csv(50, 3, 4, 0.2, 1),
            agreement_csv(50, 3, 4, 0.2, 1)
        );
        let grm = grm_csv(20, 4, 3);
        assert_eq!(grm.lines().count(), 1 + 20 * 4);
        assert!(grm
            .lines()
            .skip(1)
            .all(|l| matches!(l.rsplit(',').next(), Some("1" | "2" | "3" | "4" | "5"))));
    }

    #[test]
    fn battle_csv_round_trips_through_the_parser() {
        let params = battle_params(500, 6, 1);
        let csv = battles_csv(&params).unwrap();
        let parsed = tribunal::rankings::battles::parse_battles("x.csv", csv.as_bytes()).unwrap();
        let simulated = simulate_battles(&params).unwrap();
        assert_eq!(parsed.battles.len(), 500);
        for (p, s) in parsed.battles.iter().zip(&simulated) {
            assert_eq!(p.y, s.y);
            assert_eq!(parsed.models[p.a], format!("m{:02}", s.a));
            assert_eq!(parsed.models[p.b], format!("m{:02}", s.b));
        }
    }
}
