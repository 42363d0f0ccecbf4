//! What Claude Code's view of the tools costs in Claude's context: per tool, per server and
//! for the project, paid upfront and paid when ToolSearch loads a deferred tool.
//!
//! Two ways to count: offline, an estimate ([`estimate`]) with a named tokenizer and an error
//! measured on real Claude counts; with the person's own key, exact through the model API's
//! token counting endpoint ([`exact`]). [`budget`] takes either as a function from a tool
//! definition to its tokens, so the arithmetic is the same for both.

pub mod estimate;

/// What every offline figure is: said wherever an estimate is shown.
/// The figures of [`estimate::MEAN_ERROR_PERCENT`] and [`estimate::MAX_ERROR_PERCENT`].
pub const ESTIMATE_NOTE: &str = "estimate ±12% (o200k_base tokens × 1.21, fitted on 153 real Claude \
     token counts: mean error 11.9%, max 40%); `--exact` counts with the model API";
