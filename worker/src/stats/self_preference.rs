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

/// The battles and the settings, whose options `SelfPreferenceParams` derives.
#[derive(Args)]
pub struct SelfPreferenceArgs {
    #[command(flatten)]
    battles: JudgedBattles,
    #[command(flatten)]
    params: SelfPreferenceParams,
}

pub fn plan(args: SelfPreferenceArgs) -> anyhow::Result<Planned> {
    let (inputs, key) = args.battles.inputs()?;
    let spec = SelfPreferenceSpec {
        key,
        self_preference: args.params,
    };
    Ok(Planned::new(Analysis::SelfPreference(spec), inputs))
}
