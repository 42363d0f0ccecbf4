//! The offline estimate stays within the error measured on real Claude counts
//! (`examples/token_error.rs` prints the table). Changing the tokenizer or its constants
//! without measuring again fails here.

use mcp_manager_clients::cost::estimate::{self, Constants};

fn samples() -> Vec<estimate::Sample> {
    let text = include_str!("fixtures/token-corpus.json");
    estimate::samples(&serde_json::from_str(text).expect("the corpus is JSON"))
}

#[test]
fn the_estimate_stays_within_its_measured_error_on_the_corpus() {
    let samples = samples();
    assert!(
        samples.len() >= 150,
        "the corpus holds {} items",
        samples.len()
    );
    let errors = estimate::errors(&samples, &Constants::FITTED);
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    let max = errors.iter().copied().fold(0.0, f64::max);
    assert!(
        mean <= estimate::MEAN_ERROR_PERCENT,
        "mean error {mean:.2}% over the stated {}%",
        estimate::MEAN_ERROR_PERCENT
    );
    assert!(
        max <= estimate::MAX_ERROR_PERCENT,
        "max error {max:.2}% over the stated {}%",
        estimate::MAX_ERROR_PERCENT
    );
}

#[test]
fn the_constants_in_use_are_the_corpus_fit() {
    let fitted = estimate::fit(&samples());
    assert!(
        (fitted.factor - estimate::FACTOR).abs() < 0.01,
        "{fitted:?}"
    );
    assert!(
        (fitted.tool_prompt_auto - estimate::TOOL_PROMPT_AUTO).abs() < 1.0,
        "{fitted:?}"
    );
}

#[test]
fn the_note_names_the_tokenizer_and_the_error() {
    let note = mcp_manager_clients::cost::ESTIMATE_NOTE;
    assert!(note.contains(estimate::TOKENIZER));
    assert!(note.contains(&format!("{}%", estimate::MEAN_ERROR_PERCENT)));
    assert!(note.contains(&format!("{}%", estimate::MAX_ERROR_PERCENT as u64)));
}
