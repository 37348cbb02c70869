//! Plain words for the technical terms the pages use: each term once, with a one-line
//! explanation ([`TERMS`]); the `/glossary` page lists them all ([`GlossaryPage`]), and a term
//! on a page ([`term`]) is a link to its entry whose explanation shows on hover and on keyboard
//! focus (CSS, from its `data-tip`).

use leptos::prelude::*;

/// A term: its anchor in the glossary, the words pages show, and what it means.
pub struct Term {
    pub id: &'static str,
    pub name: &'static str,
    pub meaning: &'static str,
}

/// Every term, in the glossary's order.
pub const TERMS: &[Term] = &[
    Term { id: "bradley-terry", name: "Bradley–Terry", meaning: "A model of pairwise battles: each model has a strength, and the chance that one beats another grows with the difference of their strengths. Elo ratings are its strengths on a familiar scale." },
    Term { id: "elo", name: "Elo", meaning: "A rating scale for Bradley–Terry strengths: 400 points apart means the stronger model wins 10 times out of 11." },
    Term { id: "interval", name: "Confidence interval", meaning: "The range of values the data cannot rule out at the stated coverage (95 %: across many repeats of the study, 95 % of such ranges contain the true value)." },
    Term { id: "bootstrap", name: "Bootstrap", meaning: "Redoing the computation on many resamples of the data (drawn with replacement, from a stated seed) to see how much the result moves: the spread gives the interval." },
    Term { id: "sandwich", name: "Sandwich standard error", meaning: "A standard error that stays honest when the model is not exactly right (also called robust or Huber–White); stacked: the same for several fits estimated together." },
    Term { id: "ci-aware-ranks", name: "Ranks with intervals", meaning: "Each model's best and worst rank that its interval allows (LMArena's ranking): models whose intervals overlap share ranks." },
    Term { id: "p-value", name: "p-value", meaning: "How often a difference at least this large would appear by chance if there were no real difference; small (below 0.05) means chance is an unlikely explanation. Shown as p < 0.001 when smaller." },
    Term { id: "holm", name: "Holm / Benjamini–Hochberg correction", meaning: "p-values adjusted for testing many pairs at once, so that some pair looking different by luck is not read as a finding." },
    Term { id: "mde", name: "Minimum detectable effect", meaning: "The smallest difference the data had an 80 % chance of detecting: a difference not found may still be smaller than this." },
    Term { id: "cluster", name: "Cluster", meaning: "Items that belong together (the same prompt, template or document): their errors move together, so the intervals count them as one unit." },
    Term { id: "kappa", name: "Cohen's κ", meaning: "Agreement between two raters beyond what chance alone would give: 1 perfect, 0 no better than chance." },
    Term { id: "alpha", name: "Krippendorff's α", meaning: "Agreement among any number of raters, with missing ratings allowed, beyond chance: 1 perfect, 0 chance, below 0 systematic disagreement." },
    Term { id: "irt", name: "IRT (item response theory)", meaning: "A model of ratings in which each item has a difficulty and each rater a severity and a sharpness; it separates what the items are from how the judge rates them." },
    Term { id: "soft-elo", name: "Soft-Elo", meaning: "A leaderboard fitted to the judge's probabilities (how sure it is) rather than its hard verdicts (Quantitative LLM Judges)." },
    Term { id: "beta", name: "β (the judge's sharpness)", meaning: "How strongly the judge's score predicts the humans' verdict: σ(β·s) is the probability of a win given the judge's score s." },
    Term { id: "held-out", name: "Held-out error", meaning: "The judge's Elo error on models it never saw while being fitted (MAE: the mean absolute difference from the humans' Elo)." },
    Term { id: "conformal", name: "Split conformal interval", meaning: "An interval for a new model's rating whose coverage is guaranteed from held-out errors alone, with no assumption about their shape." },
    Term { id: "calibration-head", name: "Calibration head", meaning: "A small model fitted on a judge's outputs (and its rationale's embedding) to map them onto human labels: least squares (ls), multinomial (mn), Bradley–Terry–Luce pairwise (btl, btl2) or Plackett–Luce rankings (pl)." },
    Term { id: "gamma", name: "γ (regularisation)", meaning: "How strongly a calibration head is pulled towards the plain judge; chosen by cross-validation." },
    Term { id: "ppi", name: "PPI (prediction-powered inference)", meaning: "Estimates that use a judge's labels on everything and human labels on a sample: the humans keep the estimate unbiased, the judge narrows its interval (Angelopoulos et al. 2023)." },
    Term { id: "lambda", name: "λ (the judge's weight)", meaning: "How much PPI leans on the judge's labels: tuned from the data, 0 when the judge tells nothing (then PPI is the humans' estimate alone)." },
    Term { id: "label-plan", name: "Label plan", meaning: "Which battles to send to people next: a seeded draw that favours the battles whose label would shrink the intervals most." },
    Term { id: "style-control", name: "Style control", meaning: "The leaderboard refitted with answer length and formatting as extra predictors, so a model's rating reflects what is left once style is held fixed (LMArena)." },
    Term { id: "length-control", name: "Length-controlled win rate", meaning: "The win rate a model would have against the baseline if their answers were the same length (AlpacaEval 2)." },
    Term { id: "cyclic-triad", name: "Cyclic triad", meaning: "Three models whose verdicts go round in a circle: A beat B, B beat C, and C beat A. No ranking can agree with all three; coin-flip verdicts make a quarter of all triads cyclic." },
    Term { id: "self-preference", name: "Self-preference", meaning: "A judge favouring answers of its own model family beyond what people prefer." },
    Term { id: "label-model", name: "Label model", meaning: "A model that weighs several cheap judging programs by how accurate they seem, learnt from where they agree and disagree (data programming); compared with majority vote." },
    Term { id: "committee", name: "Committee", meaning: "The set of judging programs whose votes the label model combines." },
    Term { id: "routing", name: "Routing", meaning: "Sending only the pairs the cheap programs disagree on to the expensive LLM judge." },
    Term { id: "position-bias", name: "Position bias", meaning: "A pairwise judge preferring the answer in one position (first or second) whatever it says." },
    Term { id: "ece", name: "ECE (expected calibration error)", meaning: "How far a judge's stated probabilities are from how often it is right: the predictions are put in bins, and the gaps between each bin's mean prediction and its observed frequency are averaged, weighted by the bin's size. 0 is perfectly calibrated." },
    Term { id: "head-ls", name: "ls head", meaning: "Least squares: a linear map from the judge's score and the embedding to a numeric human score." },
    Term { id: "head-mn", name: "mn head", meaning: "Multinomial: the judge's probabilities over K labels, adjusted by the embedding, to the human's label." },
    Term { id: "head-btl", name: "btl head", meaning: "Bradley–Terry–Luce: the judge's probability that the first answer wins, adjusted by the pair's embedding, to the humans' share of votes for it." },
    Term { id: "head-btl2", name: "btl2 head", meaning: "Bradley–Terry–Luce from two separate ratings: each answer's own score and embedding, compared, to the humans' share of votes for the first." },
    Term { id: "head-pl", name: "pl head", meaning: "Plackett–Luce: each answer of a list scored from its score and embedding, so that the humans' ranking of the list is most likely." },
    Term { id: "signal-posterior", name: "posterior (routing signal)", meaning: "Escalate the pairs where the label model is least sure of its label first." },
    Term { id: "signal-vote_variance", name: "vote variance (routing signal)", meaning: "Escalate the pairs where the judging programs' votes disagree most first." },
    Term { id: "signal-query_length", name: "query length (routing signal)", meaning: "Escalate the pairs with the longest question first: a baseline that uses no vote." },
    Term { id: "signal-response_length", name: "response length (routing signal)", meaning: "Escalate the pairs with the longest answers first: a baseline that uses no vote." },
    Term { id: "signal-random", name: "random (routing signal)", meaning: "Escalate pairs in a seeded random order: what any useful signal must beat." },
    Term { id: "signal-oracle", name: "oracle (routing signal)", meaning: "Escalate exactly the pairs the programs get wrong first, which needs the answers: the best any signal could do." },
    Term { id: "cascade", name: "Selective judging, cascade", meaning: "A judge decides only the items it is confident on, with a confidence threshold chosen on human-labelled items so that its agreement with people there is at least the stated level, with a stated probability; the items it abstains on go to the next (stronger) judge, and finally to people (Trust or Escalate, Jung et al. 2025)." },
    Term { id: "p-s", name: "p_s", meaning: "The judge's probability for the first answer of a pair, from its output tokens." },
];

/// The term with anchor `id`.
fn find(id: &str) -> Option<&'static Term> {
    TERMS.iter().find(|t| t.id == id)
}

/// `words` on a page, linked to the glossary's entry `id`, whose meaning shows on hover and
/// focus.
pub fn term(id: &str, words: impl IntoView + 'static) -> impl IntoView {
    let meaning = find(id).map_or("", |t| t.meaning);
    view! { <a class="term" href=format!("/glossary#{id}") data-tip=meaning>{words}</a> }
}

/// `/glossary`: every term with its meaning.
#[component]
pub fn GlossaryPage() -> impl IntoView {
    view! {
        <section id="glossary" class="card">
            <h2>"Glossary"</h2>
            <p class="hint">"The words the pages use, each in a line. On a page, a term with a dotted underline shows its meaning when pointed at or reached by keyboard, and links here."</p>
            <dl>
                {TERMS.iter().map(|t| view! {
                    <dt id=t.id>{t.name}</dt>
                    <dd>{t.meaning}</dd>
                }).collect_view()}
            </dl>
        </section>
    }
}
