//! `tribunal stats power`: the sample-size table for comparing two groups (two judges, prompt
//! versions or models) — every effect × every wanted power — for a binary effect (two pass
//! rates), a continuous one (two means with a common sd) or standardised effect sizes.

use super::Planned;
use clap::Args;
use tribunal::analysis::{Analysis, Inputs};
use tribunal::reliability::kinds::PowerSpec;
use tribunal::reliability::power::{Alternative, Effect, PowerParams};

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
    /// Significance level α.
    #[arg(long, default_value_t = PowerParams::default().alpha, allow_negative_numbers = true)]
    alpha: f64,
    /// Wanted powers (comma-separated).
    #[arg(long, value_delimiter = ',', default_values_t = [0.8, 0.9], allow_hyphen_values = true)]
    power: Vec<f64>,
    /// n₂ / n₁.
    #[arg(long, default_value_t = PowerParams::default().ratio, allow_negative_numbers = true)]
    ratio: f64,
    /// `two-sided`, `larger` (group 1 above group 2) or `smaller`.
    #[arg(long, default_value = "two-sided")]
    alternative: String,
}

pub fn plan(args: PowerArgs) -> anyhow::Result<Planned> {
    let alternative = match args.alternative.as_str() {
        "two-sided" => Alternative::TwoSided,
        "larger" => Alternative::Larger,
        "smaller" => Alternative::Smaller,
        other => anyhow::bail!(
            "--alternative: expected `two-sided`, `larger` or `smaller`, found `{other}`"
        ),
    };
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
        powers: args.power,
        alpha: args.alpha,
        ratio: args.ratio,
        alternative,
    };
    Ok(Planned::new(Analysis::Power(spec), Inputs::new()))
}
