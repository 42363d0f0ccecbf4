//! Prints the offline token estimate's error on real Claude counts:
//! `cargo run -p mcp-manager-clients --example token_error`.
//!
//! The corpus is `tests/fixtures/token-corpus.json` (requests recorded by public projects'
//! HTTP cassettes, with the input tokens the model API answered). The table shows the error
//! of the constants the library uses, per model and overall, and the constants a new fit on
//! the corpus would give.

use mcp_manager_clients::cost::estimate::{self, Constants};

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/token-corpus.json"
    );
    let text = std::fs::read_to_string(path).expect("the corpus is readable");
    let corpus: serde_json::Value = serde_json::from_str(&text).expect("the corpus is JSON");
    let samples = estimate::samples(&corpus);
    let fitted = estimate::fit(&samples);
    println!(
        "corpus: {} requests with real input token counts; tokenizer: {}",
        samples.len(),
        estimate::TOKENIZER
    );
    println!(
        "fit now: factor {:.4}, base {:.1}, tool prompt auto {:.1}, any/tool {:.1}",
        fitted.factor, fitted.base, fitted.tool_prompt_auto, fitted.tool_prompt_any
    );
    println!(
        "in use:  factor {:.4}, base {:.1}, tool prompt auto {:.1}, any/tool {:.1}",
        estimate::FACTOR,
        estimate::BASE,
        estimate::TOOL_PROMPT_AUTO,
        estimate::TOOL_PROMPT_ANY
    );
    println!();
    println!(
        "{:<28} {:>6} {:>10} {:>10}",
        "model", "items", "mean err", "max err"
    );
    let mut models: Vec<&str> = samples.iter().map(|s| s.model.as_str()).collect();
    models.sort();
    models.dedup();
    let row = |label: &str, constants: &Constants, filter: &dyn Fn(&estimate::Sample) -> bool| {
        let chosen: Vec<estimate::Sample> = samples.iter().filter(|s| filter(s)).cloned().collect();
        let errors = estimate::errors(&chosen, constants);
        let mean = errors.iter().sum::<f64>() / errors.len().max(1) as f64;
        let max = errors.iter().copied().fold(0.0, f64::max);
        println!(
            "{label:<28} {:>6} {:>9.2}% {:>9.2}%",
            chosen.len(),
            mean,
            max
        );
    };
    for model in &models {
        row(model, &Constants::FITTED, &|s| s.model == *model);
    }
    row("with tools", &Constants::FITTED, &|s| {
        s.request
            .get("tools")
            .is_some_and(|t| t.as_array().is_some_and(|a| !a.is_empty()))
    });
    row("all (constants in use)", &Constants::FITTED, &|_| true);
    row("all (fit now)", &fitted, &|_| true);
    let raw = Constants {
        factor: 1.0,
        base: 0.0,
        tool_prompt_auto: 0.0,
        tool_prompt_any: 0.0,
    };
    row("all (raw o200k, no fit)", &raw, &|_| true);
    if std::env::args().any(|a| a == "--worst") {
        let errors = estimate::errors(&samples, &fitted);
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by(|a, b| errors[*b].total_cmp(&errors[*a]));
        for i in order.into_iter().take(12) {
            let s = &samples[i];
            let (tokens, tools) = estimate::request_bpe_tokens(&s.request);
            println!(
                "{:>6.2}% real {:>6} o200k {:>6} tools {} {} {}",
                errors[i], s.input_tokens, tokens, tools, s.model, s.source
            );
        }
    }
    println!();
    println!("{}", mcp_manager_clients::cost::ESTIMATE_NOTE);
}
