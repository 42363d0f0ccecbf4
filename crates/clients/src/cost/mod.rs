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
pub const ESTIMATE_NOTE: &str =
    "estimate ±12% (o200k_base tokens × 1.21, fitted on 153 real Claude \
     token counts: mean error 11.9%, max 40%); `--exact` counts with the model API";

pub mod exact;

use serde::Serialize;

use crate::claude_code::{text, Knobs, SentTool, ToolSearch, View, UPFRONT_DESCRIPTION};

/// The context window `auto` deferral takes its percentage of: Claude Code's `nDt` (200,000;
/// a 1M-context model's window is not modelled).
pub const CONTEXT_WINDOW: u64 = 200_000;

/// How tokens are counted: the estimate or the model API's exact counts.
pub struct Counting<'a> {
    /// A tool definition's tokens in the request's `tools`.
    pub tool: &'a dyn Fn(&SentTool) -> u64,
    /// A deferred tool's name line in the system text.
    pub name: &'a dyn Fn(&str) -> u64,
    /// The tool-use system prompt, paid once when any tool is present.
    pub overhead: u64,
    /// What counts: the tokenizer's name and how exact it is.
    pub tokenizer: String,
    pub exact: bool,
}

impl Counting<'static> {
    /// The offline estimate ([`estimate`]).
    pub fn estimate() -> Counting<'static> {
        Counting {
            tool: &estimate::tool,
            name: &estimate::deferred_name,
            overhead: estimate::tool_prompt(),
            tokenizer: ESTIMATE_NOTE.into(),
            exact: false,
        }
    }
}

/// One tool's cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCost {
    pub server: String,
    pub name: String,
    /// Its definition in `tools` (description cut at 4,096).
    pub upfront: u64,
    /// Its definition once ToolSearch loads it (description cut at 16,384).
    pub loaded: u64,
    /// Its name in the list of deferred tools.
    pub name_only: u64,
    /// Whether Claude Code defers it: then the project pays `nameOnly` upfront.
    pub deferred: bool,
}

/// One server's cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCost {
    pub server: String,
    /// Paid upfront as Claude Code loads it: full definitions of tools that load upfront,
    /// the names of deferred ones.
    pub upfront: u64,
    /// Every tool loaded.
    pub loaded: u64,
    pub deferred_tools: usize,
    pub upfront_tools: usize,
    /// The project's upfront cost with this server turned off.
    pub without: u64,
}

/// `ENABLE_TOOL_SEARCH=auto:N`: Claude Code's decision, made again for each set of servers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoDecision {
    pub percent: u8,
    pub context_window: u64,
    /// `floor(window × percent / 100)`.
    pub threshold: u64,
    /// The deferrable tools' definitions, counted with the tool-use prompt, less
    /// [`crate::claude_code::AUTO_COUNT_OVERHEAD`].
    pub deferrable_tokens: u64,
    /// Whether they pass the threshold, so that the deferrable tools are deferred.
    pub deferred: bool,
}

/// The project's cost in Claude's context.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// The tokenizer and its error, or the exact counter.
    pub tokenizer: String,
    pub exact: bool,
    /// The tool-use system prompt (paid once; Claude Code pays it anyway for its own tools).
    pub overhead: u64,
    /// Upfront, every server together (overhead not included).
    pub total_upfront: u64,
    /// Every tool loaded.
    pub total_loaded: u64,
    pub tool_search: ToolSearch,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoDecision>,
    /// Heaviest upfront first.
    pub servers: Vec<ServerCost>,
    /// Heaviest (loaded) first.
    pub tools: Vec<ToolCost>,
}

/// The budget of Claude Code's `views` of the project's servers, counted by `counting`.
pub fn budget(views: &[View], knobs: &Knobs, counting: &Counting) -> Budget {
    let upfront_at = knobs.max_description_length.unwrap_or(UPFRONT_DESCRIPTION);
    // Each tool's three costs and whether Claude Code could defer it.
    let per_view: Vec<Vec<(ToolCost, bool)>> = views
        .iter()
        .map(|view| {
            let deferred: ahash::AHashSet<&str> =
                view.deferred.iter().map(String::as_str).collect();
            view.sent
                .iter()
                .map(|tool| {
                    let deferrable = deferred.contains(tool.name.as_str());
                    let loaded = (counting.tool)(tool);
                    // A description short enough for both cuts is the same definition twice:
                    // counted once.
                    let upfront = match text::cut(&tool.description, upfront_at) {
                        Some(description) => (counting.tool)(&SentTool {
                            description,
                            ..tool.clone()
                        }),
                        None => loaded,
                    };
                    let cost = ToolCost {
                        server: view.server.clone(),
                        name: tool.name.clone(),
                        upfront,
                        loaded,
                        name_only: (counting.name)(&tool.name),
                        deferred: deferrable,
                    };
                    (cost, deferrable)
                })
                .collect()
        })
        .collect();
    let decide = |skip: Option<usize>| -> Option<AutoDecision> {
        let ToolSearch::Auto { percent } = knobs.tool_search else {
            return None;
        };
        let deferrable: u64 = per_view
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .flat_map(|(_, tools)| tools.iter().filter(|(_, d)| *d).map(|(t, _)| t.loaded))
            .sum();
        let counted = if deferrable == 0 {
            0
        } else {
            deferrable + counting.overhead
        };
        // Claude Code's own decision (judged in tests/judge.rs), on this count.
        let decided = crate::claude_code::auto_deferral(
            percent,
            crate::claude_code::ToolsMeasure::Count(counted),
            CONTEXT_WINDOW,
        );
        Some(AutoDecision {
            percent,
            context_window: CONTEXT_WINDOW,
            threshold: decided.threshold,
            deferrable_tokens: decided.measured,
            deferred: decided.defers,
        })
    };
    let upfront_of = |skip: Option<usize>| -> u64 {
        let defer = decide(skip).is_none_or(|d| d.deferred);
        per_view
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != skip)
            .flat_map(|(_, tools)| tools.iter())
            .map(|(t, d)| if *d && defer { t.name_only } else { t.upfront })
            .sum()
    };
    let auto = decide(None);
    let defer = auto.as_ref().is_none_or(|d| d.deferred);
    let mut servers = Vec::new();
    let mut tools = Vec::new();
    for (i, view) in views.iter().enumerate() {
        let mut server = ServerCost {
            server: view.server.clone(),
            upfront: 0,
            loaded: 0,
            deferred_tools: 0,
            upfront_tools: 0,
            without: upfront_of(Some(i)),
        };
        for (cost, deferrable) in &per_view[i] {
            let deferred = *deferrable && defer;
            server.loaded += cost.loaded;
            if deferred {
                server.upfront += cost.name_only;
                server.deferred_tools += 1;
            } else {
                server.upfront += cost.upfront;
                server.upfront_tools += 1;
            }
            tools.push(ToolCost {
                deferred,
                ..cost.clone()
            });
        }
        servers.push(server);
    }
    servers.sort_by(|a, b| b.upfront.cmp(&a.upfront).then(a.server.cmp(&b.server)));
    tools.sort_by(|a, b| b.loaded.cmp(&a.loaded).then(a.name.cmp(&b.name)));
    Budget {
        tokenizer: counting.tokenizer.clone(),
        exact: counting.exact,
        overhead: counting.overhead,
        total_upfront: upfront_of(None),
        total_loaded: tools.iter().map(|t| t.loaded).sum(),
        tool_search: knobs.tool_search,
        auto,
        servers,
        tools,
    }
}

/// The budget of `views` counted exactly by `counter`: every tool's definition as loaded and
/// as sent upfront (a description cut shorter), and every name, through the model API.
pub async fn exact_budget(
    views: &[View<'_>],
    knobs: &Knobs,
    counter: &exact::Counter,
) -> Result<Budget, exact::CountError> {
    let tools: Vec<SentTool> = views.iter().flat_map(|v| v.sent.iter().cloned()).collect();
    let upfront_at = knobs.max_description_length.unwrap_or(UPFRONT_DESCRIPTION);
    let mut all = tools.clone();
    for tool in &tools {
        if let Some(description) = text::cut(&tool.description, upfront_at) {
            all.push(SentTool {
                description,
                ..tool.clone()
            });
        }
    }
    let names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    let counts = counter.counts(&all, &names).await?;
    let counting = Counting {
        tool: &|t| counts.tool(t),
        name: &|n| counts.name(n),
        overhead: counts.overhead,
        tokenizer: format!(
            "exact: the model API's count_tokens for {}",
            counter.model()
        ),
        exact: true,
    };
    Ok(budget(views, knobs, &counting))
}
