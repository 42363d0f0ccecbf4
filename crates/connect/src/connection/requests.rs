//! What can be asked of an open session: lists (followed through pagination), reads,
//! prompts, completion, subscriptions, the logging level, and tool calls, which go by our own
//! fast path to a local server or through rmcp, with progress routed to the caller, a
//! cancellation token, the outputSchema check and the URL-elicitation retry.

use super::*;
use serde_json::json;

/// A call's progress notifications on their way to its caller, for as long as the call
/// lasts (also when the caller stops waiting).
struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: rmcp::model::ProgressToken,
}

impl<'a> ProgressRoute<'a> {
    fn open(
        routes: &'a ProgressRoutes,
        token: rmcp::model::ProgressToken,
        sink: tokio::sync::mpsc::UnboundedSender<Progress>,
    ) -> Self {
        routes
            .lock()
            .expect("progress lock")
            .insert(token.clone(), sink);
        ProgressRoute { routes, token }
    }
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes
            .lock()
            .expect("progress lock")
            .remove(&self.token);
    }
}

/// One `tools/call` request of a call (a call may take several: after `input_required`, and
/// after the person visited the URLs a server asked for).
struct Attempt<'a> {
    name: &'a str,
    arguments: Option<&'a serde_json::Map<String, Value>>,
    input: Option<&'a InputRound>,
    timeout: Option<Duration>,
    progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
    /// Declaring the tasks extension.
    as_task: bool,
}

impl Connection {
    /// This session with listings bounded by `timeout` rather than [`super::LIST_TIMEOUT`].
    pub fn with_list_timeout(mut self, timeout: std::time::Duration) -> Connection {
        self.list_timeout = timeout;
        self
    }

    /// `listing`, given up after the session's list timeout.
    async fn bounded<T>(
        &self,
        listing: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, rmcp::ServiceError> {
        let timeout = self.list_timeout;
        tokio::time::timeout(timeout, listing)
            .await
            .unwrap_or(Err(rmcp::ServiceError::Timeout { timeout }))
    }

    /// Tells the server its roots changed (it asks for them again).
    pub async fn roots_changed(&self) -> Result<(), ServiceError> {
        self.note(self.peer.notify_roots_list_changed().await)
    }

    /// The inputSchema of `tool` as last listed (listing once if the tools never were).
    pub async fn tool_schema(&self, tool: &str) -> Option<Value> {
        self.listed_schemas(tool).await.map(|schemas| schemas.input)
    }

    /// `tool`'s schemas from the last `tools/list`, listing once if the tools never were.
    async fn listed_schemas(&self, tool: &str) -> Option<ToolSchemas> {
        let listed = self.schemas.lock().expect("schema lock").is_some();
        if !listed {
            self.list_tools().await.ok()?;
        }
        self.schemas
            .lock()
            .expect("schema lock")
            .as_ref()
            .and_then(|schemas| schemas.get(tool).cloned())
    }

    /// Every tool, following pagination; empty when the server has no tools capability.
    pub async fn list_tools(&self) -> Result<Vec<ToolSummary>, rmcp::ServiceError> {
        if !self.info.capabilities.tools {
            return Ok(Vec::new());
        }
        let tools = self.note(self.bounded(self.peer.list_all_tools()).await)?;
        let listed: Vec<Value> = tools
            .iter()
            .map(|tool| serde_json::to_value(tool).unwrap_or(Value::Null))
            .collect();
        let summaries: Vec<ToolSummary> = listed
            .iter()
            .map(|tool| {
                let value = sanitize::strip_value(tool);
                let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
                let description = text("description");
                ToolSummary {
                    name: text("name").unwrap_or_default(),
                    title: text("title"),
                    description,
                    input_schema: value.get("inputSchema").cloned().unwrap_or(Value::Null),
                    output_schema: value.get("outputSchema").cloned(),
                    annotations: value.get("annotations").cloned(),
                    meta: value.get("_meta").cloned(),
                }
            })
            .collect();
        *self.schemas.lock().expect("schema lock") = Some(
            summaries
                .iter()
                .map(|t| {
                    let schemas = ToolSchemas {
                        input: t.input_schema.clone(),
                        output: t.output_schema.clone(),
                    };
                    (t.name.clone(), schemas)
                })
                .collect(),
        );
        *self.listed.lock().expect("listing lock") = Some(listed);
        Ok(summaries)
    }

    /// Every tool of the last `tools/list` as the server sent it (empty before the first).
    pub fn last_listing_as_sent(&self) -> Vec<Value> {
        self.listed
            .lock()
            .expect("listing lock")
            .clone()
            .unwrap_or_default()
    }

    /// Every tool, listed now, as the server sent it (nothing stripped): the input of each
    /// client's view (`mcp_manager_clients`), which cleans names and text as that client does.
    pub async fn list_tools_as_sent(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        self.list_tools().await?;
        Ok(self.last_listing_as_sent())
    }

    /// Every resource (pagination followed) as sent; empty without the resources capability.
    pub async fn list_resources(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.resources {
            return Ok(Vec::new());
        }
        Ok(to_values(self.note(
            self.bounded(self.peer.list_all_resources()).await,
        )?))
    }

    /// Every resource template as sent; empty without the resources capability.
    pub async fn list_resource_templates(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.resources {
            return Ok(Vec::new());
        }
        Ok(to_values(self.note(
            self.bounded(self.peer.list_all_resource_templates()).await,
        )?))
    }

    /// Every prompt as sent; empty without the prompts capability.
    pub async fn list_prompts(&self) -> Result<Vec<Value>, rmcp::ServiceError> {
        if !self.info.capabilities.prompts {
            return Ok(Vec::new());
        }
        Ok(to_values(
            self.note(self.bounded(self.peer.list_all_prompts()).await)?,
        ))
    }

    /// `resources/read`, the result as sent (a 2026-07-28 server that answers
    /// `input_required` first is answered as a tool call's rounds are).
    pub async fn read_resource(&self, uri: &str) -> Result<Value, rmcp::ServiceError> {
        use rmcp::model::ReadResourceResponse;
        let result = self
            .answering_input(|input| async move {
                let mut params = rmcp::model::ReadResourceRequestParams::new(uri.to_string());
                if let Some(round) = input {
                    params.input_responses = Some(round.responses.into_iter().collect());
                    params.request_state = round.state;
                }
                Ok(match self.peer.read_resource_once(params).await? {
                    ReadResourceResponse::Complete(result) => Ok(result),
                    ReadResourceResponse::InputRequired(asked) => Err(asked),
                    _ => return Err(ServiceError::UnexpectedResponse),
                })
            })
            .await?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    /// Makes a request until it is answered: each `input_required` (2026-07-28) answered as a
    /// tool call's input is (see [`Self::answer_input`]) and the request made again with the
    /// answers and the server's state, at most [`INPUT_ROUNDS`] times. `once` makes one
    /// request: its result, or what the server asked for.
    async fn answering_input<T, A, Fut>(
        &self,
        mut once: impl FnMut(Option<InputRound>) -> Fut,
    ) -> Result<T, ServiceError>
    where
        A: Serialize,
        Fut: std::future::Future<Output = Result<Result<T, A>, ServiceError>>,
    {
        let mut input = None;
        for round in 0..=INPUT_ROUNDS {
            match self.note(once(input.take()).await)? {
                Ok(done) => return Ok(done),
                Err(asked) if round < INPUT_ROUNDS => {
                    let asked = serde_json::to_value(asked).unwrap_or(Value::Null);
                    input = Some(self.answer_input(&asked).await?);
                }
                Err(_) => break,
            }
        }
        Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
            format!("the server still asked for input after {INPUT_ROUNDS} rounds"),
            None,
        )))
    }

    /// `completion/complete` for one argument of a prompt (`ref/prompt`) or resource template
    /// (`ref/resource`); `reference` is the `ref` object as the spec shapes it. Returns the
    /// suggested values.
    pub async fn complete(
        &self,
        reference: Value,
        argument: &str,
        value: &str,
        context: Option<serde_json::Map<String, Value>>,
    ) -> Result<Vec<String>, ServiceError> {
        let mut params = serde_json::json!({
            "ref": reference,
            "argument": { "name": argument, "value": value },
        });
        if let Some(arguments) = context {
            params["context"] = serde_json::json!({ "arguments": arguments });
        }
        let params = serde_json::from_value(params).map_err(|err| {
            ServiceError::McpError(rmcp::ErrorData::invalid_params(err.to_string(), None))
        })?;
        let result = self.note(self.peer.complete(params).await)?;
        let result = serde_json::to_value(result).unwrap_or(Value::Null);
        Ok(result["completion"]["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect())
    }

    /// Follows `uri`: the server will send `notifications/resources/updated` for it. In the
    /// initialize era that is `resources/subscribe`; on a 2026-07-28 session the URI joins the
    /// session's `subscriptions/listen` filter, and this returns once the server acknowledged.
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn subscribe(&self, uri: &str) -> Result<(), ServiceError> {
        if let Some(listener) = &self.listener {
            return listener.follow(uri, true).await.map_err(refused);
        }
        let params = rmcp::model::SubscribeRequestParams::new(uri.to_string());
        self.note(self.peer.subscribe(params).await).map(|_| ())
    }

    /// No more `notifications/resources/updated` for `uri` (`resources/unsubscribe`, or the
    /// URI leaves the `subscriptions/listen` filter).
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ServiceError> {
        if let Some(listener) = &self.listener {
            return listener.follow(uri, false).await.map_err(refused);
        }
        let params = rmcp::model::UnsubscribeRequestParams::new(uri.to_string());
        self.note(self.peer.unsubscribe(params).await).map(|_| ())
    }

    /// The URIs of `notifications/resources/updated` from now on.
    pub fn resource_updates(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.updates.subscribe()
    }

    /// `logging/setLevel` (debug, info, notice, warning, error, critical, alert, emergency).
    #[allow(deprecated)] // legacy in rmcp's newest protocol; what servers speak today
    pub async fn set_log_level(&self, level: &str) -> Result<(), ServiceError> {
        let params =
            serde_json::from_value(serde_json::json!({ "level": level })).map_err(|err| {
                ServiceError::McpError(rmcp::ErrorData::invalid_params(err.to_string(), None))
            })?;
        self.note(self.peer.set_level(params).await).map(|_| ())
    }

    /// `prompts/get` with arguments, the result as sent (after any `input_required` rounds,
    /// as [`Self::read_resource`]).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<Value, rmcp::ServiceError> {
        use rmcp::model::GetPromptResponse;
        let result = self
            .answering_input(|input| {
                let mut params = rmcp::model::GetPromptRequestParams::new(name.to_string());
                params.arguments = arguments.clone();
                if let Some(round) = input {
                    params.input_responses = Some(round.responses.into_iter().collect());
                    params.request_state = round.state;
                }
                async move {
                    Ok(match self.peer.get_prompt_once(params).await? {
                        GetPromptResponse::Complete(result) => Ok(result),
                        GetPromptResponse::InputRequired(asked) => Err(asked),
                        _ => return Err(ServiceError::UnexpectedResponse),
                    })
                }
            })
            .await?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }

    /// Calls a tool. On `timeout` the server gets `notifications/cancelled`.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        self.call_tool_with_progress(name, arguments, timeout, None)
            .await
    }

    /// [`Self::call_tool`], with the call's `notifications/progress` sent to `progress`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        let cancel = CancellationToken::new();
        self.call_tool_as(name, arguments, timeout, progress, cancel, false)
            .await
    }

    /// [`Self::call_tool_with_progress`], given up when `cancel` is cancelled: the server is
    /// told (`notifications/cancelled`, or `tasks/cancel` for a task) and the call ends with
    /// [`ServiceError::Cancelled`] at once. With `as_task`, on a 2026-07-28 session the call
    /// declares the tasks extension, and a task the server makes of it is followed to its end
    /// (see [`super::tasks`]): `timeout` then bounds each request, not the task. In the
    /// initialize era `as_task` changes nothing.
    pub async fn call_tool_as(
        &self,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        timeout: Option<Duration>,
        progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
        cancel: CancellationToken,
        as_task: bool,
    ) -> Result<CallOutcome, rmcp::ServiceError> {
        let as_task = as_task && self.task_capabilities.is_some();
        let _running = Running::count(&self.calls_running);
        let started = Instant::now();
        let mut task = None;
        let mut attempt = 0;
        let mut input: Option<InputRound> = None;
        let mut rounds: Vec<Value> = Vec::new();
        let result = loop {
            let request = Attempt {
                name,
                arguments: arguments.as_ref(),
                input: input.as_ref(),
                timeout,
                progress: progress.clone(),
                as_task,
            };
            let answer = match &self.calls {
                // Dropping the fast path's request sends notifications/cancelled for it.
                Some(calls) => tokio::select! {
                    answer = self.call_directly(calls, request) => answer,
                    _ = cancel.cancelled() => Err(cancelled()),
                },
                None => self.call_through_rmcp(request, &cancel).await,
            };
            let answer = self.note(answer);
            // -32042: the server needs the person to visit URLs first. Ask, and retry (at
            // most URL_ELICITATION_RETRIES times, as Claude Code).
            match answer {
                Err(ServiceError::McpError(error))
                    if error.code.0 == URL_ELICITATION_REQUIRED
                        && attempt < URL_ELICITATION_RETRIES =>
                {
                    attempt += 1;
                    let elicitations = error
                        .data
                        .as_ref()
                        .and_then(|d| d.get("elicitations"))
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default();
                    for elicitation in elicitations {
                        let reply = self.answerer.elicit(&self.server, elicitation).await;
                        if reply.get("action").and_then(Value::as_str) != Some("accept") {
                            return Err(ServiceError::McpError(error));
                        }
                    }
                }
                Ok(value)
                    if value.get("resultType").and_then(Value::as_str)
                        == Some("input_required") =>
                {
                    // 2026-07-28: the server needs input first. Answer, and call again with
                    // the answers and its state (a new request each round).
                    if rounds.len() >= INPUT_ROUNDS {
                        return Err(ServiceError::McpError(rmcp::ErrorData::internal_error(
                            format!("the server still asked for input after {INPUT_ROUNDS} rounds"),
                            None,
                        )));
                    }
                    rounds.push(value.clone());
                    input = Some(self.answer_input(&value).await?);
                }
                Ok(value)
                    if as_task
                        && value.get("resultType").and_then(Value::as_str) == Some("task") =>
                {
                    let (result, run) = self
                        .follow_task(&value, timeout, progress.as_ref(), &cancel)
                        .await?;
                    task = Some(run);
                    break result;
                }
                other => break other?,
            }
        };
        let elapsed_ms = started.elapsed().as_millis() as u64;
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let schema_errors = self.check_output(name, &result, is_error).await;
        Ok(CallOutcome {
            result,
            is_error,
            elapsed_ms,
            schema_errors,
            input_rounds: rounds,
            task,
        })
    }

    /// The answers to an `input_required` result: each of its `inputRequests` answered as the
    /// same request of the initialize era would be (elicitation and sampling by the
    /// answerer, roots from the session's roots).
    pub(super) async fn answer_input(&self, result: &Value) -> Result<InputRound, ServiceError> {
        let requests = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let state = result
            .get("requestState")
            .and_then(Value::as_str)
            .map(str::to_string);
        if requests.is_empty() && state.is_none() {
            return Err(ServiceError::UnexpectedResponse);
        }
        let mut responses = serde_json::Map::new();
        for (key, request) in requests {
            let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
            let answer = match request.get("method").and_then(Value::as_str) {
                Some("elicitation/create") => {
                    let mut answer = self.answerer.elicit(&self.server, params.clone()).await;
                    crate::handler::fill_defaults(&params, &mut answer);
                    answer
                }
                Some("sampling/createMessage") => self
                    .answerer
                    .sample(&self.server, params)
                    .await
                    .map_err(|reason| {
                        ServiceError::McpError(rmcp::ErrorData::invalid_request(reason, None))
                    })?,
                Some("roots/list") => json!({
                    "roots": self.roots.uris().into_iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()
                }),
                other => {
                    return Err(ServiceError::McpError(rmcp::ErrorData::invalid_request(
                        format!(
                            "the server asked for {} as input, which MCP Manager does not answer",
                            other.unwrap_or("a request without a method")
                        ),
                        None,
                    )))
                }
            };
            responses.insert(key, answer);
        }
        Ok(InputRound { responses, state })
    }

    /// One `tools/call` written to a local server's pipe by us; its answer as JSON.
    async fn call_directly(
        &self,
        calls: &crate::stdio::Calls,
        attempt: Attempt<'_>,
    ) -> Result<Value, ServiceError> {
        let id = calls.next_id();
        let _route = attempt.progress.map(|sink| {
            ProgressRoute::open(
                &self.progress,
                crate::stdio::Calls::progress_token(id),
                sink,
            )
        });
        calls
            .call_tool(
                id,
                attempt.name,
                attempt.arguments,
                attempt.input,
                attempt.timeout,
                attempt.as_task,
            )
            .await
    }

    /// One `tools/call` through rmcp's session (remote servers); its answer as JSON.
    async fn call_through_rmcp(
        &self,
        attempt: Attempt<'_>,
        cancel: &CancellationToken,
    ) -> Result<Value, ServiceError> {
        let mut params = CallToolRequestParams::new(attempt.name.to_string());
        if let Some(arguments) = attempt.arguments {
            params = params.with_arguments(arguments.clone());
        }
        if let Some(round) = attempt.input {
            params.input_responses = Some(
                round
                    .responses
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            );
            params.request_state = round.state.clone();
        }
        let options = match attempt.timeout {
            timeout if attempt.as_task => self.task_options(timeout),
            Some(timeout) => PeerRequestOptions::with_timeout(timeout),
            None => PeerRequestOptions::no_options(),
        };
        let request =
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params));
        let handle = self.peer.send_request_with_option(request, options).await?;
        let _route = attempt
            .progress
            .map(|sink| ProgressRoute::open(&self.progress, handle.progress_token.clone(), sink));
        let id = handle.id.clone();
        let answer = tokio::select! {
            answer = handle.await_response() => answer?,
            _ = cancel.cancelled() => {
                let notice = rmcp::model::CancelledNotification::new(
                    rmcp::model::CancelledNotificationParam::new(Some(id), Some(CANCELLED.into())),
                );
                let _ = self
                    .peer
                    .send_notification(rmcp::model::ClientNotification::CancelledNotification(notice))
                    .await;
                return Err(cancelled());
            }
        };
        Ok(match answer {
            rmcp::model::ServerResult::CallToolResult(result) => {
                serde_json::to_value(result).unwrap_or(Value::Null)
            }
            other => serde_json::to_value(other).unwrap_or(Value::Null),
        })
    }

    /// Checks `structuredContent` against the tool's `outputSchema` (fetching the tool list
    /// once if it was never listed).
    async fn check_output(&self, tool: &str, result: &Value, is_error: bool) -> Vec<String> {
        if is_error {
            return Vec::new();
        }
        let Some(schema) = self.listed_schemas(tool).await.and_then(|s| s.output) else {
            return Vec::new();
        };
        let Some(structured) = result.get("structuredContent") else {
            return vec!["the tool declares an outputSchema but sent no structuredContent".into()];
        };
        // The schema and the value both come from the server: patterns run on the `regex`
        // engine, which is linear-time (the default engine backtracks, and a hostile pattern
        // would hold a thread of the app for as long as it likes).
        match jsonschema::options()
            .with_pattern_options(jsonschema::PatternOptions::regex())
            .build(&schema)
        {
            Ok(validator) => validator
                .iter_errors(structured)
                .map(|e| {
                    let at = e.instance_path().to_string();
                    format!("{}: {e}", if at.is_empty() { "/" } else { &at })
                })
                .collect(),
            Err(err) => vec![format!(
                "the tool's outputSchema is not a valid JSON Schema: {err}"
            )],
        }
    }
}

fn to_values<T: Serialize>(items: Vec<T>) -> Vec<Value> {
    items
        .into_iter()
        .map(|item| serde_json::to_value(item).unwrap_or(Value::Null))
        .collect()
}

/// Why a call ended that the person cancelled.
pub const CANCELLED: &str = "cancelled by the person";

/// A request the session could not carry out, in words.
fn refused(reason: String) -> ServiceError {
    ServiceError::McpError(rmcp::ErrorData::invalid_request(reason, None))
}

pub(super) fn cancelled() -> ServiceError {
    ServiceError::Cancelled {
        reason: Some(CANCELLED.into()),
    }
}

/// One tool call under way, counted while it lives (see [`Connection::idle`]).
struct Running(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Running {
    fn count(calls: &std::sync::Arc<std::sync::atomic::AtomicUsize>) -> Running {
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Running(calls.clone())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}
