//! The demo event stream: seeded simulated battles among six fictional models, which the
//! worker stores and streams so a page can show events arriving live.

use tribunal::rankings::simulate_battles::{simulate_battles, SimulationParams};

/// The demo's models and their true strengths θ.
pub const DEMO_MODELS: [(&str, f64); 6] = [
    ("Aurora", 1.2),
    ("Basalt", 0.6),
    ("Cobalt", 0.2),
    ("Dune", -0.1),
    ("Ember", -0.6),
    ("Fjord", -1.3),
];

/// Most battles one demo request may ask for.
pub const MAX_DEMO_BATTLES: u32 = 10_000;
/// Longest pause between demo events.
pub const MAX_DEMO_INTERVAL_MS: u32 = 5_000;

/// One demo battle.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DemoBattle {
    pub model_a: &'static str,
    pub model_b: &'static str,
    pub y: f64,
}

/// The battles of a demo run with `seed`, or a message saying why the request is refused.
pub fn demo_battles(seed: u64, count: u32, interval_ms: u32) -> Result<Vec<DemoBattle>, String> {
    if count == 0 || count > MAX_DEMO_BATTLES {
        return Err(format!(
            "a demo streams 1 to {MAX_DEMO_BATTLES} battles, {count} were asked for"
        ));
    }
    if interval_ms > MAX_DEMO_INTERVAL_MS {
        return Err(format!(
            "the demo interval is at most {MAX_DEMO_INTERVAL_MS} ms, {interval_ms} were asked for"
        ));
    }
    let params = SimulationParams {
        theta: DEMO_MODELS.iter().map(|&(_, t)| t).collect(),
        n_battles: count as usize,
        tie_rate: 0.1,
        seed,
    };
    let battles = simulate_battles(&params).map_err(|e| e.to_string())?;
    Ok(battles
        .into_iter()
        .map(|b| DemoBattle {
            model_a: DEMO_MODELS[b.a].0,
            model_b: DEMO_MODELS[b.b].0,
            y: b.y,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_and_bounded() {
        let a = demo_battles(7, 50, 0).unwrap();
        assert_eq!(a, demo_battles(7, 50, 0).unwrap());
        assert_ne!(a, demo_battles(8, 50, 0).unwrap());
        assert!(demo_battles(7, 0, 0).is_err());
        assert!(demo_battles(7, MAX_DEMO_BATTLES + 1, 0).is_err());
        assert!(demo_battles(7, 1, MAX_DEMO_INTERVAL_MS + 1).is_err());
    }
}
