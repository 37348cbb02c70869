//! The pages of the analyses a page of [`KindPage`] holds: the prediction-powered leaderboard
//! (with its label budget and label plan), what a judge is worth, style control,
//! self-preference, transitivity, length-controlled win rates, the items a comparison needs (power) and
//! judge cascades with a guaranteed agreement. Each is its settings form — the fields of
//! the kind's settings, with the same defaults as `tribunal stats` — and its example.

use crate::fields::{number_field, text_field, Bounds};
use crate::format::given;
use crate::kind_page::{Example, KindPage};
use leptos::prelude::*;
use tribunal::analysis::Analysis;
use tribunal::math::resample::BootstrapParams;
use tribunal::ppi::judge_value::JudgeValueParams;
use tribunal::ppi::label_plan::LabelPlanParams;
use tribunal::ppi::ppi_bootstrap::Resampling;
use tribunal::ppi::ppi_report::PpiParams;
use tribunal::rankings::kinds::{SelfPreferenceSpec, StyleSpec};
use tribunal::rankings::length_control::LengthControlParams;
use tribunal::rankings::self_preference::SelfPreferenceParams;
use tribunal::rankings::style_control::StyleControlParams;
use tribunal::rankings::transitivity::TransitivityParams;
use tribunal::reliability::kinds::PowerSpec;
use tribunal::reliability::power::{Alternative, Effect};
use tribunal::selective::cascade::CascadeParams;

/// The number in a field left blank for "none": `Ok(None)` when blank.
fn optional_number(label: &str, text: &str) -> Result<Option<f64>, String> {
    given(text)
        .map(|t| {
            t.parse::<f64>()
                .map_err(|_| format!("{label}: expected a number or nothing, found `{t}`"))
        })
        .transpose()
}

/// A comma-separated list's items.
fn list(text: &str) -> Vec<String> {
    text.split(',').filter_map(given).collect()
}

/// The settings checked as the spec checks them.
fn checked(analysis: Analysis) -> Result<Analysis, String> {
    analysis.validate().map_err(|e| e.to_string())?;
    Ok(analysis)
}

/// `/ppi`: win rates and a leaderboard from the judge's labels on every battle and human labels
/// on some, with the labels a target width takes and the battles to label next.
#[component]
pub fn PpiPage() -> impl IntoView {
    let defaults = PpiParams::default();
    let alpha = RwSignal::new(defaults.alpha);
    let target_width = RwSignal::new(String::new());
    let plan_labels = RwSignal::new(String::new());
    let rounds = RwSignal::new(0_usize);
    let seed = RwSignal::new(0_u64);
    let reference = RwSignal::new(String::new());
    let analysis = Memo::new(move |_| {
        let plan =
            optional_number("Labels to plan", &plan_labels.get())?.map(|labels| LabelPlanParams {
                labels: labels.max(0.0).round() as usize,
                seed: seed.get(),
                ..LabelPlanParams::default()
            });
        checked(Analysis::Ppi(PpiParams {
            alpha: alpha.get(),
            target_width: optional_number("Target width", &target_width.get())?,
            bootstrap: (rounds.get() > 0).then(|| Resampling {
                rounds: rounds.get(),
                seed: seed.get(),
            }),
            reference: given(&reference.get()),
            plan,
            ..PpiParams::default()
        }))
    });
    let on_example = Callback::new(move |()| {
        target_width.set("0.2".to_owned());
        plan_labels.set("100".to_owned());
    });
    view! {
        <KindPage id="ppi" method="ppi" heading="Leaderboard from a judge and a few human labels (PPI)"
            about="Each model's win rate and Bradley–Terry rating from a judge's label on every battle and human labels on some: prediction-powered inference (Angelopoulos et al. 2023, with the judge's weight tuned to the data) keeps the humans' accuracy and narrows their intervals by as much as the judge agrees with them. A file with columns model_a,model_b,judge,human — judge and human are the share won by model_a (1, 0, ½ for a tie), human left blank where no person labelled. The report says how many human labels a target width takes with the judge and without, and which battles to label next."
            example=Example { what: "GPT-4's verdicts on LLMFAO's 2,139 pairs, with the crowd's mean preference on 300 of them — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0).", files: &[("battles", "ppi-llmfao-battles.csv")] }
            analysis on_example>
            {number_field("ppi-alpha", "Error level α (coverage 1 − α)", Bounds { min: "0.001", max: Some("0.5"), step: "0.01" }, alpha)}
            {text_field("ppi-target-width".to_owned(), "Target interval width (optional)", target_width)}
            {text_field("ppi-plan-labels".to_owned(), "Labels to plan (optional)", plan_labels)}
            {number_field("ppi-rounds", "Bootstrap rounds (0: none)", Bounds::from("0", "100"), rounds)}
            {number_field("ppi-seed", "Seed", Bounds::from("0", "1"), seed)}
            {text_field("ppi-reference".to_owned(), "Reference model (optional)", reference)}
        </KindPage>
    }
}

/// `/judge-value`: what a judge is worth, from the battles both it and people labelled.
#[component]
pub fn JudgeValuePage() -> impl IntoView {
    let defaults = JudgeValueParams::default();
    let alpha = RwSignal::new(defaults.alpha);
    let worth_rho = RwSignal::new(defaults.worth_rho);
    let analysis = Memo::new(move |_| {
        checked(Analysis::JudgeValue(JudgeValueParams {
            alpha: alpha.get(),
            worth_rho: worth_rho.get(),
        }))
    });
    view! {
        <KindPage id="judge-value" method="ppi" heading="What a judge is worth"
            about="From the battles that both the judge and people labelled: how often they agree, their correlation, how many human labels each judge label is worth in a prediction-powered leaderboard, and the most any correction of the judge could save. Same file as the PPI page: model_a,model_b,judge,human, human blank where unlabelled."
            example=Example { what: "SmolLM2-135M (Tribunal's bundled judge) on 248 LLMFAO pairs, the crowd's mean preference kept on half of them: a small judge, worth little — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0).", files: &[("battles", "judge-value-smollm2.csv")] }
            analysis on_example=Callback::new(|()| {})>
            {number_field("judge-value-alpha", "Error level α", Bounds { min: "0.001", max: Some("0.5"), step: "0.01" }, alpha)}
            {number_field("judge-value-rho", "Correlation below which the judge is not worth running", Bounds { min: "0", max: Some("1"), step: "0.05" }, worth_rho)}
        </KindPage>
    }
}

/// `/style`: the leaderboard with answer style held fixed, beside the raw one.
#[component]
pub fn StylePage() -> impl IntoView {
    let defaults = StyleSpec::default();
    let reg = RwSignal::new(defaults.style.reg);
    let level = RwSignal::new(defaults.style.level);
    let rounds = RwSignal::new(0_usize);
    let seed = RwSignal::new(0_u64);
    let key = RwSignal::new(defaults.key);
    let columns = RwSignal::new(String::new());
    let analysis = Memo::new(move |_| {
        checked(Analysis::Style(StyleSpec {
            style: StyleControlParams {
                reg: reg.get(),
                level: level.get(),
                bootstrap: (rounds.get() > 0).then(|| BootstrapParams {
                    rounds: rounds.get(),
                    seed: seed.get(),
                    level: level.get(),
                }),
                ..StyleControlParams::default()
            },
            key: key.get().trim().to_owned(),
            columns: list(&columns.get()),
        }))
    });
    let on_example = Callback::new(move |()| {
        rounds.set(20);
        seed.set(1);
    });
    view! {
        <KindPage id="style" method="style-control" heading="Leaderboard with style held fixed"
            about="Does a model win because its answers are better, or because they are longer and use more headers, lists and bold text? The Bradley–Terry leaderboard refitted with those style differences as covariates (as LMArena's style control), beside the raw one, with each style effect per standard deviation. Battles (model_a,model_b,winner) with the answers' texts in a pairs file joined on a key column — or with your own numeric feature columns in the battles file."
            example=Example { what: "the LLMFAO crowd's 8,931 votes, the answers' styles measured on its pairs' texts — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0).", files: &[("battles", "crowd-comparisons.csv"), ("answers", "pairs.csv")] }
            analysis on_example>
            {number_field("style-reg", "Ridge penalty on the style effects", Bounds { min: "0", max: None, step: "0.001" }, reg)}
            {number_field("style-level", "Interval coverage", Bounds { min: "0.5", max: Some("0.999"), step: "0.01" }, level)}
            {number_field("style-rounds", "Bootstrap rounds (0: none)", Bounds::from("0", "10"), rounds)}
            {number_field("style-seed", "Seed", Bounds::from("0", "1"), seed)}
            {text_field("style-key".to_owned(), "Key column joining battles to answers", key)}
            {text_field("style-columns".to_owned(), "Feature columns of the battles file (when no answers file)", columns)}
        </KindPage>
    }
}

/// `/self-preference`: whether a judge favours its own model family beyond the humans.
#[component]
pub fn SelfPreferencePage() -> impl IntoView {
    let example = SelfPreferenceSpec::default();
    let key = RwSignal::new("id".to_owned());
    let family = RwSignal::new(String::new());
    let level = RwSignal::new(example.self_preference.level);
    let analysis = Memo::new(move |_| {
        checked(Analysis::SelfPreference(SelfPreferenceSpec {
            key: given(&key.get()),
            self_preference: SelfPreferenceParams {
                family: list(&family.get()),
                level: level.get(),
            },
        }))
    });
    let on_example = Callback::new(move |()| {
        key.set("id".to_owned());
        family.set("GPT 4, GPT 3.5 Turbo, GPT 3.5 Turbo (16k)".to_owned());
    });
    view! {
        <KindPage id="self-preference" method="self-preference" heading="Does the judge prefer its own family?"
            about="Whether a judge rates its own models (its family) higher than people do: the judge's and the humans' verdicts on the same battles, the family's win rate under each and the gap with its interval. Either two battles files (the humans' and the judge's, joined on a key column) or one file with columns model_a,model_b,judge,human (leave the key blank)."
            example=Example { what: "GPT-4 judging LLMFAO's pairs, against the crowd's votes, for the GPT family — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0).", files: &[("human", "crowd-comparisons.csv"), ("judge", "gpt4-crowd-comparisons.csv")] }
            analysis on_example>
            {text_field("self-preference-key".to_owned(), "Key column joining the two files (blank: one file)", key)}
            {text_field("self-preference-family".to_owned(), "The judge's family (comma-separated model names)", family)}
            {number_field("self-preference-level", "Interval coverage", Bounds { min: "0.5", max: Some("0.999"), step: "0.01" }, level)}
        </KindPage>
    }
}

/// `/transitivity`: how often a judge's verdicts go round in a circle.
#[component]
pub fn TransitivityPage() -> impl IntoView {
    let defaults = TransitivityParams::default();
    let group = RwSignal::new(String::new());
    let rounds = RwSignal::new(defaults.bootstrap.rounds);
    let seed = RwSignal::new(defaults.bootstrap.seed);
    let level = RwSignal::new(defaults.bootstrap.level);
    let analysis = Memo::new(move |_| {
        checked(Analysis::Transitivity(TransitivityParams {
            group: given(&group.get()),
            bootstrap: BootstrapParams {
                rounds: rounds.get(),
                seed: seed.get(),
                level: level.get(),
            },
            ..defaults.clone()
        }))
    });
    let on_example = Callback::new(move |()| group.set("prompt".to_owned()));
    view! {
        <KindPage id="transitivity" method="cyclic-triad" heading="Do the judge's verdicts go in circles?"
            about="A judge that says A beats B, B beats C and C beats A on the same prompt has no ranking in mind; a leaderboard fitted to its verdicts hides that. Within each prompt (or over all battles), each pair's majority verdict is taken, and every three models whose three pairs are decided are checked: the share that go round in a circle, beside the quarter that coin flips would give, with a bootstrap interval over prompts, each model's share and the cycles by name. Battles: model_a,model_b,winner (or left,right,winner), with a prompt column to look within prompts."
            example=Example { what: "GPT-3.5 Turbo's verdicts on LLMFAO's 2,139 pairs, within each of its 13 prompts (GPT-4's verdicts on the same pairs are cyclic 1 % of the time, the crowd's majorities 5 %) — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0).", files: &[("battles", "gpt3-crowd-comparisons.csv")] }
            analysis on_example>
            {text_field("transitivity-group".to_owned(), "Column grouping the battles, e.g. prompt (blank: all as one, no interval)", group)}
            {number_field("transitivity-rounds", "Bootstrap rounds (0: none)", Bounds::from("0", "10"), rounds)}
            {number_field("transitivity-seed", "Seed", Bounds::from("0", "1"), seed)}
            {number_field("transitivity-level", "Interval coverage", Bounds { min: "0.5", max: Some("0.999"), step: "0.01" }, level)}
        </KindPage>
    }
}

/// `/length-control`: AlpacaEval's length-controlled win rates against a baseline.
#[component]
pub fn LengthControlPage() -> impl IntoView {
    let defaults = LengthControlParams::default();
    let baseline = RwSignal::new(String::new());
    let level = RwSignal::new(defaults.level);
    let analysis = Memo::new(move |_| {
        checked(Analysis::LengthControl(LengthControlParams {
            baseline: given(&baseline.get()),
            level: level.get(),
        }))
    });
    view! {
        <KindPage id="length-control" method="length-control" heading="Win rates with answer length controlled"
            about="Judges favour longer answers. AlpacaEval 2's length-controlled win rate asks how often each model would beat the baseline if their answers were the same length: a regression of each verdict on the model and the length difference, read at a difference of zero. Battles against one baseline with the answers' lengths: model_a,model_b,winner (or score, P(a) − P(b)),length_a,length_b."
            example=Example { what: "AlpacaEval 2's annotations of three FuseChat models' 805 answers each against GPT-4 Turbo's (gpt4_1106_preview) — from AlpacaEval (github.com/tatsu-lab/alpaca_eval, Apache-2.0).", files: &[("battles", "lc-alpaca-eval.csv")] }
            analysis on_example=Callback::new(|()| {})>
            {text_field("length-control-baseline".to_owned(), "Baseline model (blank: the one in every battle)", baseline)}
            {number_field("length-control-level", "Interval coverage", Bounds { min: "0.5", max: Some("0.999"), step: "0.01" }, level)}
        </KindPage>
    }
}

/// `/power`: how many items each group needs to detect a difference of pass rates.
#[component]
pub fn PowerPage() -> impl IntoView {
    let p1 = RwSignal::new("0.7".to_owned());
    let p2 = RwSignal::new("0.8".to_owned());
    let powers = RwSignal::new("0.8".to_owned());
    let alpha = RwSignal::new(0.05);
    let numbers = |label: &str, text: &str| -> Result<Vec<f64>, String> {
        text.split(',')
            .filter_map(given)
            .map(|t| {
                t.parse::<f64>().map_err(|_| {
                    format!("{label}: expected numbers separated by commas, found `{t}`")
                })
            })
            .collect()
    };
    let analysis = Memo::new(move |_| {
        let p1 = numbers("Pass rate of A", &p1.get())?;
        let [p1] = p1[..] else {
            return Err("Pass rate of A: expected one number".to_owned());
        };
        let effects = numbers("Pass rates of B", &p2.get())?
            .into_iter()
            .map(|p2| Effect::Proportions { p1, p2 })
            .collect();
        checked(Analysis::Power(PowerSpec {
            effects,
            powers: numbers("Powers", &powers.get())?,
            alpha: alpha.get(),
            ratio: 1.0,
            alternative: Alternative::TwoSided,
        }))
    });
    let on_example = Callback::new(move |()| {
        p1.set("0.6".to_owned());
        p2.set("0.5, 0.55".to_owned());
        powers.set("0.8, 0.9".to_owned());
    });
    view! {
        <KindPage id="power" method="mde" heading="How many items to compare two systems"
            about="Before running an evaluation: how many items each system needs for a two-sided test at level α to detect a difference of pass rates with the stated power (Cohen's h; the same numbers as statsmodels). Reads no file."
            example=Example { what: "A pass rate of 0.6 against 0.5 and 0.55, at 80 % and 90 % power.", files: &[] }
            analysis on_example>
            {text_field("power-p1".to_owned(), "Pass rate of A", p1)}
            {text_field("power-p2".to_owned(), "Pass rates of B (comma-separated)", p2)}
            {text_field("power-powers".to_owned(), "Powers (comma-separated)", powers)}
            {number_field("power-alpha", "Level α", Bounds { min: "0.001", max: Some("0.5"), step: "0.01" }, alpha)}
        </KindPage>
    }
}

/// `/cascade`: judges that keep the items they are confident on, with a guaranteed agreement
/// with people, and hand the rest on.
#[component]
pub fn CascadePage() -> impl IntoView {
    let defaults = CascadeParams::default();
    let tiers = RwSignal::new(String::new());
    let alpha = RwSignal::new(defaults.alpha);
    let delta = RwSignal::new(defaults.delta);
    let share = RwSignal::new(defaults.calibration_share);
    let seed = RwSignal::new(defaults.seed);
    let start = RwSignal::new(String::new());
    let analysis = Memo::new(move |_| {
        let start_kept = optional_number("Start the test at", &start.get())?;
        checked(Analysis::Cascade(CascadeParams {
            tiers: list(&tiers.get()),
            alpha: alpha.get(),
            delta: delta.get(),
            calibration_share: share.get(),
            seed: seed.get(),
            start_kept: start_kept.map(|n| n.max(0.0).round() as usize),
            ..CascadeParams::default()
        }))
    });
    let on_example = Callback::new(move |()| {
        tiers.set("smollm2, gpt-3.5, gpt-4".to_owned());
        alpha.set(0.35);
    });
    view! {
        <KindPage id="cascade" method="cascade" heading="Trust a judge only where it is reliable"
            about="Run a cheap judge first and keep its verdicts only where it is confident enough; hand the rest to a stronger judge, and finally to people. Each judge's confidence threshold is set on items people labelled, so that on the items the judges keep their agreement with people is at least 1 − α, with probability 1 − δ (Trust or Escalate, Jung et al. 2025); held-out labelled items show the agreement reached and how many items the judges decided, against each judge alone. A file with a row per item and judge: item,judge,verdict,confidence,human (human blank where no one labelled; optional cost and split columns)."
            example=Example { what: "LLMFAO's pairs judged by SmolLM2-135M (Tribunal's bundled judge, its probability as confidence), GPT-3.5 and GPT-4 (one verdict each, no confidence), against the crowd's plurality winner — from LLMFAO (github.com/dustalov/llmfao, CC BY 4.0). At 65 % agreement only GPT-4 can be trusted, and then on every pair.", files: &[("judgments", "cascade-llmfao.csv")] }
            analysis on_example>
            {text_field("cascade-tiers".to_owned(), "Judges in order, cheapest first (comma-separated; blank: as in the file)", tiers)}
            {number_field("cascade-alpha", "Disagreement allowed α (agreement ≥ 1 − α)", Bounds { min: "0.001", max: Some("0.999"), step: "0.01" }, alpha)}
            {number_field("cascade-delta", "Chance δ that the guarantee fails", Bounds { min: "0.001", max: Some("0.5"), step: "0.01" }, delta)}
            {number_field("cascade-share", "Share of labelled items that set the thresholds", Bounds { min: "0.05", max: Some("1"), step: "0.05" }, share)}
            {number_field("cascade-seed", "Seed of the split", Bounds::from("0", "1"), seed)}
            {text_field("cascade-start".to_owned(), "Start each test at this many kept items (blank: automatic)", start)}
        </KindPage>
    }
}
