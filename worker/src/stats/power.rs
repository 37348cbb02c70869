//! `tribunal stats power`: the sample-size table for comparing two groups (two judges, prompt
//! versions or models) — every effect × every wanted power — for a binary effect (two pass
//! rates), a continuous one (two means with a common sd) or standardised effect sizes. The
//! options are [`PowerSpec`]'s own (feature `cli` of `tribunal`) but for the effects, which
//! this command builds from its lists.

use super::Planned;
use clap::Args;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::reliability::kinds::PowerSpec;
use tribunal::reliability::power::Effect;

#[derive(Args)]
pub struct PowerArgs {
    /// Binary effect: group 1's pass rate …
    #[arg(long, allow_negative_numbers = true)]
    p1: Option<f64>,
    /// … against each of these pass rates of group 2 (comma-separated).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    p2: Vec<f64>,
    /// Continuous effect: group 1's mean score …
    #[arg(long, allow_negative_numbers = true)]
    mean1: Option<f64>,
    /// … against each of these means of group 2 …
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    mean2: Vec<f64>,
    /// … with this common standard deviation.
    #[arg(long, allow_negative_numbers = true)]
    sd: Option<f64>,
    /// Or standardised effect sizes (Cohen's d or h) directly.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    effect_size: Vec<f64>,
    #[command(flatten)]
    spec: PowerSpec,
}

pub fn plan(args: PowerArgs) -> anyhow::Result<Planned> {
    let effects: Vec<Effect> = match (args.p1, args.mean1, args.effect_size.is_empty()) {
        (Some(p1), None, true) if !args.p2.is_empty() => args
            .p2
            .iter()
            .map(|&p2| Effect::Proportions { p1, p2 })
            .collect(),
        (None, Some(mean1), true) if !args.mean2.is_empty() => {
            let sd = args
                .sd
                .ok_or_else(|| anyhow::anyhow!("--mean1/--mean2 need --sd"))?;
            args.mean2
                .iter()
                .map(|&mean2| Effect::Means { mean1, mean2, sd })
                .collect()
        }
        (None, None, false) => args
            .effect_size
            .iter()
            .map(|&effect_size| Effect::Standardized { effect_size })
            .collect(),
        _ => anyhow::bail!(
            "expected one kind of effect: --p1 with --p2, --mean1 with --mean2 and --sd, or \
             --effect-size"
        ),
    };
    let spec = PowerSpec {
        effects,
        ..args.spec
    };
    Ok(Planned::new(Analysis::Power(spec), Inputs::new()))
}
