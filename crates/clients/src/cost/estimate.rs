//! The offline estimate: OpenAI's `o200k_base` BPE (compiled in through `tiktoken-rs`),
//! scaled to Claude by a factor and fixed overheads fitted on real Claude counts.
//!
//! Anthropic's current tokenizer is not public, so no offline count can be exact. What we can
//! do is say how wrong it is: `tests/fixtures/token-corpus.json` holds real requests (text and
//! custom tools) with the input tokens the model API answered, recorded by public projects'
//! HTTP cassettes; `examples/token_error.rs` fits the constants below on it and prints the
//! error, and `tests/token_error.rs` fails if the estimate leaves the bound it measured.
//!
//! The request is read as the model reads it: every tool as its JSON definition (`name`,
//! `description`, `input_schema`), every text of the system and the messages, a fixed
//! per-request part, and once any tool is present, the tool-use system prompt Anthropic adds
//! (its size depends on `tool_choice`).

use std::sync::OnceLock;

use serde_json::Value;

use crate::claude_code::SentTool;

/// The tokenizer the estimate counts with.
pub const TOKENIZER: &str = "o200k_base";

/// Claude tokens per `o200k_base` token, fitted on the corpus.
pub const FACTOR: f64 = 1.2122;
/// Tokens every request costs (role markers, the turn's frame), fitted on the corpus.
pub const BASE: f64 = 6.3;
/// The tool-use system prompt with `tool_choice` `auto`, `none` or none given: paid once as
/// soon as one tool is in the request. Fitted on the corpus.
pub const TOOL_PROMPT_AUTO: f64 = 435.6;
/// The same with `tool_choice` `any` or `tool`.
pub const TOOL_PROMPT_ANY: f64 = 422.3;

/// The measured error of [`estimate_request`] on the corpus (mean, max), in percent.
pub const MEAN_ERROR_PERCENT: f64 = 11.9;
pub const MAX_ERROR_PERCENT: f64 = 40.0;

fn bpe() -> &'static tiktoken_rs::CoreBPE {
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("the compiled-in o200k_base ranks load"))
}

/// `o200k_base` tokens of `text`.
pub fn bpe_tokens(text: &str) -> u64 {
    bpe().encode_ordinary(text).len() as u64
}

fn scaled(tokens: u64) -> u64 {
    (tokens as f64 * FACTOR).round() as u64
}

/// What a tool definition costs in the request's `tools`, estimated.
pub fn tool(tool: &SentTool) -> u64 {
    scaled(bpe_tokens(&definition_text(tool)))
}

/// What a deferred tool costs: its name on a line of the system text that lists the tools
/// ToolSearch can load (see `deferred_names` in `tests/judge.rs`).
pub fn deferred_name(name: &str) -> u64 {
    scaled(bpe_tokens(&format!("{name}\n")))
}

/// The tool-use system prompt paid once when any tool loads (Claude Code sends `tool_choice`
/// unset, i.e. `auto`).
pub fn tool_prompt() -> u64 {
    TOOL_PROMPT_AUTO.round() as u64
}

/// A tool's definition as the request carries it: compact JSON, keys in the order sent.
pub fn definition_text(tool: &SentTool) -> String {
    serde_json::to_string(tool).expect("a tool serializes")
}

/// `o200k_base` tokens of what a model API request says: its tools' definitions, its system
/// text and its messages' texts (a tool call as its name and input, a tool result as its
/// text). Returns the tokens and whether the request has tools.
pub fn request_bpe_tokens(request: &Value) -> (u64, bool) {
    let mut tokens = 0;
    let tools = request
        .get("tools")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for tool in tools {
        let definition = serde_json::json!({
            "name": tool.get("name"),
            "description": tool.get("description").and_then(Value::as_str).unwrap_or(""),
            "input_schema": tool.get("input_schema"),
        });
        tokens += bpe_tokens(&definition.to_string());
    }
    let mut texts = Vec::new();
    match request.get("system") {
        Some(Value::String(text)) => texts.push(text.clone()),
        Some(Value::Array(blocks)) => texts.extend(blocks.iter().filter_map(block_text)),
        _ => {}
    }
    for message in request
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match message.get("content") {
            Some(Value::String(text)) => texts.push(text.clone()),
            Some(Value::Array(blocks)) => texts.extend(blocks.iter().filter_map(block_text)),
            _ => {}
        }
    }
    tokens += texts.iter().map(|t| bpe_tokens(t)).sum::<u64>();
    (tokens, !tools.is_empty())
}

fn block_text(block: &Value) -> Option<String> {
    match block.get("type").and_then(Value::as_str)? {
        "text" => block
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_string),
        "tool_use" => Some(format!(
            "{}{}",
            block.get("name").and_then(Value::as_str).unwrap_or(""),
            block.get("input").cloned().unwrap_or(Value::Null)
        )),
        "tool_result" => match block.get("content") {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(parts)) => Some(
                parts
                    .iter()
                    .filter_map(block_text)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            _ => Some(String::new()),
        },
        _ => None,
    }
}

/// Whether a request's `tool_choice` is `any` or `tool` (a smaller tool-use prompt).
pub fn forces_a_tool(request: &Value) -> bool {
    matches!(
        request.pointer("/tool_choice/type").and_then(Value::as_str),
        Some("any" | "tool")
    )
}

/// The estimated input tokens of a whole request, with the given constants.
pub fn estimate_request_with(request: &Value, constants: &Constants) -> f64 {
    let (tokens, has_tools) = request_bpe_tokens(request);
    let prompt = match (has_tools, forces_a_tool(request)) {
        (false, _) => 0.0,
        (true, false) => constants.tool_prompt_auto,
        (true, true) => constants.tool_prompt_any,
    };
    constants.base + prompt + constants.factor * tokens as f64
}

/// The estimated input tokens of a whole request.
pub fn estimate_request(request: &Value) -> u64 {
    estimate_request_with(request, &Constants::FITTED).round() as u64
}

/// The estimate's constants: [`Constants::FITTED`] is what the library uses; the example fits
/// new ones on the corpus.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Constants {
    pub factor: f64,
    pub base: f64,
    pub tool_prompt_auto: f64,
    pub tool_prompt_any: f64,
}

impl Constants {
    pub const FITTED: Constants = Constants {
        factor: FACTOR,
        base: BASE,
        tool_prompt_auto: TOOL_PROMPT_AUTO,
        tool_prompt_any: TOOL_PROMPT_ANY,
    };
}

/// One corpus item: a real request and the input tokens the model API answered.
#[derive(Debug, Clone)]
pub struct Sample {
    pub source: String,
    pub model: String,
    pub request: Value,
    pub input_tokens: u64,
}

/// The items of `tests/fixtures/token-corpus.json`.
pub fn samples(corpus: &Value) -> Vec<Sample> {
    corpus["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            Some(Sample {
                source: item["source"].as_str()?.to_string(),
                model: item["model"].as_str()?.to_string(),
                request: item["request"].clone(),
                input_tokens: item["input_tokens"].as_u64()?,
            })
        })
        .collect()
}

/// The estimate's relative error on each sample, in percent, with `constants`.
pub fn errors(samples: &[Sample], constants: &Constants) -> Vec<f64> {
    samples
        .iter()
        .map(|s| {
            let estimate = estimate_request_with(&s.request, constants).round();
            let real = s.input_tokens as f64;
            (estimate - real).abs() / real * 100.0
        })
        .collect()
}

/// Constants that minimise the squared relative error on `samples` (weighted least squares
/// over `base + tool_prompt + factor × o200k tokens`).
pub fn fit(samples: &[Sample]) -> Constants {
    let mut normal = [[0.0f64; 5]; 4];
    for s in samples {
        let (tokens, has_tools) = request_bpe_tokens(&s.request);
        let forced = forces_a_tool(&s.request);
        let row = [
            1.0,
            f64::from(u8::from(has_tools && !forced)),
            f64::from(u8::from(has_tools && forced)),
            tokens as f64,
        ];
        let y = s.input_tokens as f64;
        let weight = 1.0 / (y * y);
        for i in 0..4 {
            for j in 0..4 {
                normal[i][j] += weight * row[i] * row[j];
            }
            normal[i][4] += weight * row[i] * y;
        }
    }
    let solved = solve(normal);
    Constants {
        base: solved[0],
        tool_prompt_auto: solved[1],
        tool_prompt_any: solved[2],
        factor: solved[3],
    }
}

/// Gauss-Jordan elimination with partial pivoting on an augmented 4×5 matrix.
fn solve(mut m: [[f64; 5]; 4]) -> [f64; 4] {
    for col in 0..4 {
        let pivot = (col..4)
            .max_by(|a, b| m[*a][col].abs().total_cmp(&m[*b][col].abs()))
            .unwrap_or(col);
        m.swap(col, pivot);
        let lead = m[col][col];
        if lead.abs() < f64::EPSILON {
            continue;
        }
        for cell in &mut m[col][col..] {
            *cell /= lead;
        }
        let pivot_row = m[col];
        for (at, row) in m.iter_mut().enumerate() {
            if at != col {
                let f = row[col];
                for (cell, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                    *cell -= f * p;
                }
            }
        }
    }
    [m[0][4], m[1][4], m[2][4], m[3][4]]
}
