//! `tribunal stats self-preference`: whether a judge favours its own model family more than the
//! humans' ratings of those models predict ([`tribunal::rankings::self_preference`]): β in
//! log-odds and Elo points with its interval and test, the effect on the family's win rate, and
//! the raw shares beside it.
//!
//! Input: either one scored-battles CSV (`--input`) or a human battles CSV and a judge battles
//! CSV joined on a key column (`--human`, `--judge`, `--key`; LLMFAO's pair `id`).

use super::study::JudgedBattles;
use super::Planned;
use clap::Args;
use tribunal::analysis::Analysis;
use tribunal::rankings::kinds::SelfPreferenceSpec;
use tribunal::rankings::self_preference::SelfPreferenceParams;

#[derive(Args)]
pub struct SelfPreferenceArgs {
    #[command(flatten)]
    battles: JudgedBattles,
    /// The judge's own models as the battles name them (comma-separated).
    #[arg(long, value_delimiter = ',', required = true)]
    family: Vec<String>,
    /// Coverage of the intervals.
    #[arg(long, default_value_t = SelfPreferenceParams::default().level, allow_negative_numbers = true)]
    level: f64,
}

pub fn plan(args: SelfPreferenceArgs) -> anyhow::Result<Planned> {
    let (inputs, key) = args.battles.inputs()?;
    let spec = SelfPreferenceSpec {
        key,
        self_preference: SelfPreferenceParams {
            family: args.family,
            level: args.level,
        },
    };
    Ok(Planned::new(Analysis::SelfPreference(spec), inputs))
}
