//! Tauri commands: one line each, into `mcp_manager_core::api` or the hosted
//! [`LiveProject`](mcp_manager_connect::project::LiveProject).

use mcp_manager_apps::AppOpening;
use mcp_manager_collections::surface::SurfaceDiff;
use mcp_manager_collections::{AddedCase, Case, CaseReport, CollectionView};
use mcp_manager_connect::asks::{PendingAsk, Reply};
use mcp_manager_connect::param_headers::DroppedTool;
use mcp_manager_connect::project::clients::{ProjectBudget, ServerClientView};
use mcp_manager_connect::project::pins::PinCheck;
use mcp_manager_connect::project::surface::SurfaceChange;
use mcp_manager_connect::project::{
    LoginSummary, OAuthActivity, ResourceLists, ServerTools, StderrTail, ToolCallView, ToolView,
};
use mcp_manager_connect::protocol_log::LoggedMessage;
use mcp_manager_connect::{Progress, StatusEvent};
use mcp_manager_core::api::{self, ImportPreview, RecentProject, Written};
use mcp_manager_core::config::draft::{self, DraftCheck, EntryRef, KeyValue, ServerDraft};
use mcp_manager_core::config::folder::{self, FolderTrust};
use mcp_manager_core::config::interop::{Client, ExportReport};
use mcp_manager_core::config::permissions::{Rule, RuleInForce, SettingsFile};
use mcp_manager_core::config::profiles;
use mcp_manager_core::config::review::{self, ServerReview};
use mcp_manager_core::secrets::Secret;
use mcp_manager_core::{ApiError, Approval, Scope, ServerList};
use mcp_manager_doctor::Checkup;
use mcp_manager_guard::quarantine::QuarantineChoice;
use mcp_manager_history::SurfaceRecord;
use mcp_manager_history::{CallFilter, CallRecord};
use mcp_manager_oauth::claude_store::LoginStore;
use mcp_manager_registry::preflight::Preflight;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use crate::Context;

/// Every configured server by scope, with the problems met reading the files.
#[tauri::command]
#[specta::specta]
pub async fn list_servers(context: State<'_, Context>) -> Result<ServerList, ApiError> {
    Ok(api::list_servers(context.project().locations()))
}

/// Each server's status now; later changes arrive as `server-status-changed` events.
#[tauri::command]
#[specta::specta]
pub async fn server_statuses(context: State<'_, Context>) -> Result<Vec<StatusEvent>, ApiError> {
    Ok(context.project().statuses())
}

/// Starts a server again (stops it first when it runs).
#[tauri::command]
#[specta::specta]
pub async fn restart_server(context: State<'_, Context>, name: String) -> Result<(), ApiError> {
    context.project().restart(&name).await
}

/// Turns a Claude Code plugin on or off (`enabledPlugins` of the settings file chosen).
#[tauri::command]
#[specta::specta]
pub async fn set_plugin_enabled(
    context: State<'_, Context>,
    id: String,
    enabled: bool,
    settings: SettingsFile,
) -> Result<Written, ApiError> {
    Ok(api::set_plugin_enabled(
        context.project().locations(),
        &id,
        enabled,
        settings,
    )?)
}

/// Enables or disables a server for this project (Claude Code's `disabledMcpServers`).
#[tauri::command]
#[specta::specta]
pub async fn set_server_enabled(
    context: State<'_, Context>,
    name: String,
    enabled: bool,
) -> Result<Written, ApiError> {
    Ok(api::set_enabled(
        context.project().locations(),
        &name,
        enabled,
    )?)
}

/// Approves or rejects a project server (in `.claude/settings.local.json`).
#[tauri::command]
#[specta::specta]
pub async fn set_server_approval(
    context: State<'_, Context>,
    name: String,
    approve: bool,
) -> Result<Approval, ApiError> {
    Ok(api::set_approval(
        context.project().locations(),
        &name,
        approve,
    )?)
}

/// Whether the project folder is trusted, and what trusting it would write and enable.
#[tauri::command]
#[specta::specta]
pub async fn folder_trust(context: State<'_, Context>) -> Result<FolderTrust, ApiError> {
    Ok(folder::folder_trust(context.project().locations()))
}

/// Trusts the project folder as Claude Code's trust dialog does (`~/.claude.json`).
#[tauri::command]
#[specta::specta]
pub async fn trust_folder(context: State<'_, Context>) -> Result<FolderTrust, ApiError> {
    Ok(api::trust_folder(context.project().locations())?)
}

/// A project server's whole entry and what in it deserves a look, for the Approve dialog.
#[tauri::command]
#[specta::specta]
pub async fn review_server(
    context: State<'_, Context>,
    name: String,
) -> Result<ServerReview, ApiError> {
    Ok(review::review(context.project().locations(), &name)?)
}

/// Approves every project server, now and later (`enableAllProjectMcpServers`).
#[tauri::command]
#[specta::specta]
pub async fn approve_all_project_servers(
    context: State<'_, Context>,
) -> Result<Vec<String>, ApiError> {
    Ok(api::approve_all_project_servers(
        context.project().locations(),
    )?)
}

/// Forgets this project's approvals and rejections, as `claude mcp reset-project-choices`.
#[tauri::command]
#[specta::specta]
pub async fn reset_project_choices(
    context: State<'_, Context>,
) -> Result<api::ResetChoices, ApiError> {
    Ok(api::reset_project_choices(context.project().locations())?)
}

/// Removes a server entry from one scope.
#[tauri::command]
#[specta::specta]
pub async fn remove_server(
    context: State<'_, Context>,
    name: String,
    scope: Scope,
) -> Result<Written, ApiError> {
    Ok(api::remove_server(
        context.project().locations(),
        &name,
        Some(scope),
    )?)
}

/// What a local server has written to stderr (the last 64 KiB).
#[tauri::command]
#[specta::specta]
pub async fn server_stderr(
    context: State<'_, Context>,
    name: String,
) -> Result<StderrTail, ApiError> {
    Ok(context.project().stderr(&name))
}

/// The form for an existing entry (values that look like secrets come without their value).
#[tauri::command]
#[specta::specta]
pub async fn server_draft(
    context: State<'_, Context>,
    entry: EntryRef,
) -> Result<ServerDraft, ApiError> {
    Ok(draft::draft_of(context.project().locations(), &entry)?)
}

/// Checks a form as typed: problems by field, warnings, and the diff a save would write.
#[tauri::command]
#[specta::specta]
pub async fn check_server_draft(
    context: State<'_, Context>,
    draft: ServerDraft,
    original: Option<EntryRef>,
) -> Result<DraftCheck, ApiError> {
    Ok(draft::check(
        context.project().locations(),
        &draft,
        original.as_ref(),
    ))
}

/// Saves a form: adds the server, or replaces `original` (moving it when the scope changed).
#[tauri::command]
#[specta::specta]
pub async fn save_server_draft(
    context: State<'_, Context>,
    draft: ServerDraft,
    original: Option<EntryRef>,
) -> Result<Vec<String>, ApiError> {
    Ok(draft::save(
        context.project().locations(),
        &draft,
        original.as_ref(),
    )?)
}

/// A server's JSON-RPC messages after `after` (0: every one kept), oldest first.
#[tauri::command]
#[specta::specta]
pub async fn protocol_log(
    context: State<'_, Context>,
    name: String,
    after: u32,
) -> Result<Vec<LoggedMessage>, ApiError> {
    Ok(context.project().protocol_log(&name, after))
}

/// Streams a server's new messages (after `after`) to `on_messages` until unfollowed;
/// returns the id to unfollow with.
#[tauri::command]
#[specta::specta]
pub async fn follow_protocol_log(
    context: State<'_, Context>,
    name: String,
    after: u32,
    on_messages: Channel<Vec<LoggedMessage>>,
) -> Result<u32, ApiError> {
    context.follow_protocol_log(&name, after, on_messages)
}

/// Stops a follower started by `follow_protocol_log`.
#[tauri::command]
#[specta::specta]
pub async fn unfollow_protocol_log(context: State<'_, Context>, id: u32) -> Result<(), ApiError> {
    context.unfollow_protocol_log(id);
    Ok(())
}

/// The projects Claude Code knows (`~/.claude.json`) whose folder still exists.
#[tauri::command]
#[specta::specta]
pub async fn recent_projects(context: State<'_, Context>) -> Result<Vec<RecentProject>, ApiError> {
    Ok(api::recent_projects(context.project().locations()))
}

/// Opens another project: the current servers stop, the new project's start.
#[tauri::command]
#[specta::specta]
pub async fn open_project(
    app: AppHandle,
    context: State<'_, Context>,
    folder: String,
) -> Result<(), ApiError> {
    context.open_folder(&app, &folder).await
}

/// What importing another client's servers into `scope` would do. Values that look like
/// secrets are masked; nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn plan_import(
    context: State<'_, Context>,
    client: Client,
    scope: Scope,
) -> Result<ImportPreview, ApiError> {
    Ok(api::import_preview(
        context.project().locations(),
        client,
        scope,
    )?)
}

/// Imports another client's servers into `scope`, with the values of its `${input:…}`s.
#[tauri::command]
#[specta::specta]
pub async fn apply_import(
    context: State<'_, Context>,
    client: Client,
    scope: Scope,
    inputs: Vec<KeyValue>,
) -> Result<Vec<String>, ApiError> {
    Ok(api::import_servers(
        context.project().locations(),
        client,
        scope,
        &inputs,
    )?)
}

/// Writes the servers this project uses into another client's file.
#[tauri::command]
#[specta::specta]
pub async fn export_servers(
    context: State<'_, Context>,
    client: Client,
) -> Result<ExportReport, ApiError> {
    Ok(api::export_masked(context.project().locations(), client)?)
}

/// Logs in to a remote server in the person's browser, then starts it with the new token.
#[tauri::command]
#[specta::specta]
pub async fn log_in(context: State<'_, Context>, name: String) -> Result<LoginSummary, ApiError> {
    context.project().log_in(&name).await
}

/// Forgets a server's tokens (revoking them where offered) and starts it again without them.
#[tauri::command]
#[specta::specta]
pub async fn log_out(context: State<'_, Context>, name: String) -> Result<bool, ApiError> {
    context.project().log_out(&name).await
}

/// Gives up a login that waits for the browser; whether one was waiting.
#[tauri::command]
#[specta::specta]
pub async fn cancel_login(context: State<'_, Context>, name: String) -> Result<bool, ApiError> {
    Ok(context.project().cancel_login(&name))
}

/// Keeps a server's login in MCP Manager's keychain or in Claude Code's store from now on.
#[tauri::command]
#[specta::specta]
pub async fn set_login_store(
    context: State<'_, Context>,
    name: String,
    store: LoginStore,
) -> Result<(), ApiError> {
    context.project().set_login_store(&name, store).await
}

/// Forgets the client registration kept for a server: its next login registers a new client.
#[tauri::command]
#[specta::specta]
pub async fn forget_registration(
    context: State<'_, Context>,
    name: String,
) -> Result<(), ApiError> {
    context.project().forget_registration(&name).await
}

/// A remote server's login phase, stored token (no value) and recorded OAuth exchanges.
#[tauri::command]
#[specta::specta]
pub async fn oauth_activity(
    context: State<'_, Context>,
    name: String,
) -> Result<OAuthActivity, ApiError> {
    context.project().oauth_activity(&name).await
}

/// A connected server's tools, as it lists them now (schemas as JSON text).
#[tauri::command]
#[specta::specta]
pub async fn list_tools(
    context: State<'_, Context>,
    name: String,
) -> Result<Vec<ToolView>, ApiError> {
    context.project().tools(&name).await
}

/// A connected server's tools as the server lists them and as Claude Code sends them to its
/// model (upfront, deferred or dropped, and why).
#[tauri::command]
#[specta::specta]
pub async fn client_view(
    context: State<'_, Context>,
    name: String,
) -> Result<ServerClientView, ApiError> {
    context.project().client_view(&name).await
}

/// What the connected servers' tools cost in Claude's context as Claude Code loads them:
/// estimated, or counted by the model API with the person's key when `exact`.
#[tauri::command]
#[specta::specta]
pub async fn project_budget(
    context: State<'_, Context>,
    exact: bool,
) -> Result<ProjectBudget, ApiError> {
    context.project().budget(exact).await
}

/// Which MCP servers and tools Claude Code's sessions called over the last `days` days (in
/// this project's folder, or in `all` folders), how the calls ended and how its connections
/// went, from its own records.
#[tauri::command]
#[specta::specta]
pub async fn claude_code_usage(
    context: State<'_, Context>,
    days: u32,
    all: bool,
) -> Result<mcp_manager_usage::UsageReport, ApiError> {
    context.usage(days, all).await
}

/// The tools a connected server listed that are not offered, with why (read after
/// `list_tools`).
#[tauri::command]
#[specta::specta]
pub async fn dropped_tools(
    context: State<'_, Context>,
    name: String,
) -> Result<Vec<DroppedTool>, ApiError> {
    context.project().dropped_tools(&name)
}

/// Calls a tool with `arguments_json` (a JSON object as text), its progress streamed to
/// `on_progress`; `call_id` (the window's number for it) cancels it with `cancel_call`;
/// `as_task` offers the server to run it as a task. The exchange comes back as sent.
#[tauri::command]
#[specta::specta]
pub async fn call_tool(
    context: State<'_, Context>,
    name: String,
    tool: String,
    arguments_json: String,
    call_id: u32,
    as_task: bool,
    on_progress: Channel<Progress>,
) -> Result<ToolCallView, ApiError> {
    context
        .call_tool(&name, &tool, &arguments_json, call_id, as_task, on_progress)
        .await
}

/// Cancels a running call (the server is sent `notifications/cancelled`); whether it ran.
#[tauri::command]
#[specta::specta]
pub async fn cancel_call(context: State<'_, Context>, call_id: u32) -> Result<bool, ApiError> {
    Ok(context.project().cancel_call(call_id))
}

/// The calls kept in the history, newest first, as `filter` narrows them.
#[tauri::command]
#[specta::specta]
pub async fn call_history(
    context: State<'_, Context>,
    filter: CallFilter,
) -> Result<Vec<CallRecord>, ApiError> {
    context.project().calls(&filter).await
}

/// Saves a kept call under a name (`None` forgets the name); whether it exists.
#[tauri::command]
#[specta::specta]
pub async fn name_call(
    context: State<'_, Context>,
    id: u32,
    name: Option<String>,
) -> Result<bool, ApiError> {
    context.project().name_call(id, name.as_deref()).await
}

/// Claude Code's permission rule in force for a tool (or a whole server), and where it is.
#[tauri::command]
#[specta::specta]
pub async fn tool_rule(
    context: State<'_, Context>,
    name: String,
    tool: Option<String>,
) -> Result<RuleInForce, ApiError> {
    Ok(api::tool_rule(
        context.project().locations(),
        &name,
        tool.as_deref(),
    ))
}

/// Writes Allow / Ask / Deny (or removes the rule: `None`) into one settings file.
#[tauri::command]
#[specta::specta]
pub async fn set_tool_rule(
    context: State<'_, Context>,
    name: String,
    tool: Option<String>,
    rule: Option<Rule>,
    file: SettingsFile,
) -> Result<RuleInForce, ApiError> {
    Ok(api::set_tool_rule(
        context.project().locations(),
        &name,
        tool.as_deref(),
        rule,
        file,
    )?)
}

/// A connected server's resources and resource templates (JSON text, as listed).
#[tauri::command]
#[specta::specta]
pub async fn list_resources(
    context: State<'_, Context>,
    name: String,
) -> Result<ResourceLists, ApiError> {
    context.project().resources(&name).await
}

/// Reads a resource: the ReadResourceResult as JSON text.
#[tauri::command]
#[specta::specta]
pub async fn read_resource(
    context: State<'_, Context>,
    name: String,
    uri: String,
) -> Result<String, ApiError> {
    context.project().read_resource(&name, &uri).await
}

/// A connected server's skills (the Skills extension), without reading a file.
#[tauri::command]
#[specta::specta]
pub async fn list_skills(
    context: State<'_, Context>,
    name: String,
) -> Result<Vec<mcp_manager_connect::skills::SkillEntry>, ApiError> {
    context.project().skills(&name).await
}

/// The skills Claude Code loads from disk (the person's, the project's, the plugins'),
/// read-only.
#[tauri::command]
#[specta::specta]
pub fn disk_skills(
    context: State<'_, Context>,
) -> Vec<mcp_manager_core::config::skills::DiskSkill> {
    mcp_manager_core::config::skills::disk_skills(context.project().locations())
}

/// Loads one of a server's skills, each file checked against its published digest and size.
#[tauri::command]
#[specta::specta]
pub async fn load_skill(
    context: State<'_, Context>,
    name: String,
    uri: String,
) -> Result<mcp_manager_connect::skills::LoadedSkill, ApiError> {
    context.project().load_skill(&name, &uri).await
}

/// A connected server's prompts (JSON text, as listed).
#[tauri::command]
#[specta::specta]
pub async fn list_prompts(context: State<'_, Context>, name: String) -> Result<String, ApiError> {
    context.project().prompts(&name).await
}

/// Gets a prompt with its arguments (a JSON object as text): the GetPromptResult as JSON text.
#[tauri::command]
#[specta::specta]
pub async fn get_prompt(
    context: State<'_, Context>,
    name: String,
    prompt: String,
    arguments_json: String,
) -> Result<String, ApiError> {
    context
        .project()
        .get_prompt(&name, &prompt, &arguments_json)
        .await
}

/// Suggestions for a prompt argument being typed, the others given so far as context.
#[tauri::command]
#[specta::specta]
pub async fn complete_argument(
    context: State<'_, Context>,
    name: String,
    prompt: String,
    argument: String,
    value: String,
    context_json: String,
) -> Result<Vec<String>, ApiError> {
    context
        .project()
        .complete_prompt_argument(&name, &prompt, &argument, &value, &context_json)
        .await
}

/// Checks a server step by step (the doctor), up to the first step that fails.
#[tauri::command]
#[specta::specta]
pub async fn examine_server(
    context: State<'_, Context>,
    name: String,
) -> Result<Checkup, ApiError> {
    mcp_manager_doctor::examine_in(&context.project(), &name).await
}

/// Opens the authorization page of the login that waits for the browser, in the browser.
#[tauri::command]
#[specta::specta]
pub async fn open_login_page(
    app: AppHandle,
    context: State<'_, Context>,
    name: String,
) -> Result<(), ApiError> {
    crate::open::login_page(&app, &context.project(), &name).await
}

/// Saves a call's result (JSON text) as a file in the app's data folder; returns its path.
#[tauri::command]
#[specta::specta]
pub async fn save_result(
    app: AppHandle,
    name: String,
    tool: String,
    result_json: String,
) -> Result<String, ApiError> {
    crate::open::save_result(&app, &name, &tool, &result_json)
}

/// Opens a saved result (a file of the results folder, nothing else) in its default app.
#[tauri::command]
#[specta::specta]
pub async fn open_saved_result(app: AppHandle, path: String) -> Result<(), ApiError> {
    crate::open::saved_result(&app, &path)
}

/// Opens the file a server entry is written in with the person's default application.
#[tauri::command]
#[specta::specta]
pub async fn open_config_file(
    app: AppHandle,
    context: State<'_, Context>,
    name: String,
    scope: Scope,
) -> Result<(), ApiError> {
    crate::open::config_file(&app, &context.project(), &name, scope)
}

/// Copies a server entry, as written, to another scope under the same name.
#[tauri::command]
#[specta::specta]
pub async fn copy_server(
    context: State<'_, Context>,
    name: String,
    from: Scope,
    to: Scope,
) -> Result<Written, ApiError> {
    Ok(api::copy_server(
        context.project().locations(),
        &name,
        from,
        to,
    )?)
}

/// Keeps a remote server's OAuth client secret in the OS keychain (never in a file).
#[tauri::command]
#[specta::specta]
pub async fn store_client_secret(
    context: State<'_, Context>,
    name: String,
    secret: String,
) -> Result<(), ApiError> {
    api::store_client_secret(context.project().locations(), &name, Secret::new(secret))
}

/// The place of the next event sent to the window: a page that starts listening asks for the
/// events from here (see `src-tauri/feed.rs`).
#[tauri::command]
#[specta::specta]
pub fn events_cursor(feed: State<'_, crate::feed::Feed>) -> u32 {
    feed.cursor()
}

/// The events sent to the window from place `from` on, in order; waits up to 25 s for one.
#[tauri::command]
#[specta::specta]
pub async fn next_events(
    feed: State<'_, crate::feed::Feed>,
    from: u32,
) -> Result<crate::feed::FedEvents, ApiError> {
    Ok(feed.after(from, crate::feed::WAIT).await)
}

/// The window painted its first list of servers (start-up is measured up to here), with the
/// moments of its start on its clock, which says `now` (`performance.now()`).
#[tauri::command]
#[specta::specta]
pub async fn window_ready(
    context: State<'_, Context>,
    marks: Vec<crate::startup::WindowMark>,
    now: f64,
) -> Result<(), ApiError> {
    context.window_ready(&marks, now);
    Ok(())
}

/// The window's first list of servers as the page made it (its elements, attributes and
/// text, as data), kept for the next start with the same list (kept_paint.rs). Failing to
/// keep it costs that start some milliseconds and nothing else: the page sends it and moves on.
#[tauri::command]
#[specta::specta]
pub async fn keep_first_paint(
    kept: State<'_, std::sync::Arc<crate::kept_paint::KeptPaint>>,
    frame: Vec<crate::kept_paint::KeptNode>,
) -> Result<(), ApiError> {
    Ok(kept.keep(&frame)?)
}

/// What the servers ask of the person now (elicitation, sampling), oldest first; changes
/// arrive as `asks-changed` events.
#[tauri::command]
#[specta::specta]
pub async fn pending_asks(context: State<'_, Context>) -> Result<Vec<PendingAsk>, ApiError> {
    Ok(context.asks().pending())
}

/// The person's reply to a server's request.
#[tauri::command]
#[specta::specta]
pub async fn answer_ask(
    context: State<'_, Context>,
    id: u32,
    reply: Reply,
) -> Result<(), ApiError> {
    context.answer_ask(id, reply)
}

/// Declines (or, for sampling, refuses) every request of `server` that waits; how many.
#[tauri::command]
#[specta::specta]
pub async fn decline_all_asks(
    context: State<'_, Context>,
    server: String,
) -> Result<u32, ApiError> {
    Ok(u32::try_from(context.asks().decline_all(&server)).unwrap_or(u32::MAX))
}

/// Opens the page a URL-mode elicitation asks for in the browser, then accepts it.
#[tauri::command]
#[specta::specta]
pub async fn open_ask_url(
    app: AppHandle,
    context: State<'_, Context>,
    id: u32,
) -> Result<(), ApiError> {
    crate::open::ask_url(&app, &context, id)
}

/// Subscribes to a resource; `on_update` gets its URI on each change. Returns the id to
/// unfollow with.
#[tauri::command]
#[specta::specta]
pub async fn follow_resource(
    context: State<'_, Context>,
    name: String,
    uri: String,
    on_update: Channel<String>,
) -> Result<u32, ApiError> {
    context.follow_resource(&name, &uri, on_update).await
}

/// Unsubscribes from a resource followed with `follow_resource`.
#[tauri::command]
#[specta::specta]
pub async fn unfollow_resource(context: State<'_, Context>, id: u32) -> Result<(), ApiError> {
    context.unfollow_resource(id).await
}

/// Saves one content of a resource read (its blob decoded) in the results folder; its path.
#[tauri::command]
#[specta::specta]
pub async fn save_resource(
    app: AppHandle,
    name: String,
    content: String,
) -> Result<String, ApiError> {
    crate::open::save_resource(&app, &name, &content)
}

/// Opens a saved resource with the person's default application.
#[tauri::command]
#[specta::specta]
pub async fn open_saved_resource(app: AppHandle, path: String) -> Result<(), ApiError> {
    crate::open::saved_result(&app, &path)
}

/// Sets a server's logging level (`logging/setLevel`).
#[tauri::command]
#[specta::specta]
pub async fn set_log_level(
    context: State<'_, Context>,
    name: String,
    level: String,
) -> Result<(), ApiError> {
    context.project().set_log_level(&name, &level).await
}

/// The folders the servers are told they may work in.
#[tauri::command]
#[specta::specta]
pub async fn roots(context: State<'_, Context>) -> Result<Vec<String>, ApiError> {
    Ok(context.project().roots())
}

/// Replaces the roots (absolute paths of existing folders); every live server is told.
#[tauri::command]
#[specta::specta]
pub async fn set_roots(
    context: State<'_, Context>,
    folders: Vec<String>,
) -> Result<Vec<String>, ApiError> {
    context.project().set_roots(&folders).await
}

/// The tools of every connected server, by server.
#[tauri::command]
#[specta::specta]
pub async fn all_tools(context: State<'_, Context>) -> Result<Vec<ServerTools>, ApiError> {
    Ok(context.project().all_tools().await)
}

/// Prepares the App of `tool` of server `name`: its view, what it declares, and, once the
/// person allowed Apps of that server, its session and the relay's one-time URL.
#[tauri::command]
#[specta::specta]
pub async fn open_app(
    context: State<'_, Context>,
    name: String,
    tool: String,
) -> Result<AppOpening, ApiError> {
    context.open_app(&name, &tool).await
}

/// The person allows Apps of server `name` to reach `origins`, each list for its own use (as
/// shown to them).
#[tauri::command]
#[specta::specta]
pub async fn allow_apps(
    context: State<'_, Context>,
    name: String,
    origins: mcp_manager_apps::Origins,
) -> Result<(), ApiError> {
    context.allow_apps(&name, origins)
}

/// A `tools/call` an App asked for: refused unless its own server lists the tool as callable
/// by Apps. The CallToolResult as JSON text.
#[tauri::command]
#[specta::specta]
pub async fn app_call_tool(
    context: State<'_, Context>,
    session: String,
    tool: String,
    arguments_json: String,
) -> Result<String, ApiError> {
    context
        .app_call_tool(&session, &tool, &arguments_json)
        .await
}

/// A `resources/read` an App asked for, of its own server (JSON text).
#[tauri::command]
#[specta::specta]
pub async fn app_read_resource(
    context: State<'_, Context>,
    session: String,
    uri: String,
) -> Result<String, ApiError> {
    context.app_read_resource(&session, &uri).await
}

/// `resources/list` (or the templates) of an App's own server (JSON text).
#[tauri::command]
#[specta::specta]
pub async fn app_list_resources(
    context: State<'_, Context>,
    session: String,
    templates: bool,
) -> Result<String, ApiError> {
    context.app_list_resources(&session, templates).await
}

/// Opens a link an App asked for, after the person's click: http and https only.
#[tauri::command]
#[specta::specta]
pub async fn app_open_link(
    app: AppHandle,
    context: State<'_, Context>,
    session: String,
    url: String,
) -> Result<(), ApiError> {
    context.app_open_link(&app, &session, &url)
}

/// Ends an App's session: nothing it asks is answered after.
#[tauri::command]
#[specta::specta]
pub async fn close_app(context: State<'_, Context>, session: String) -> Result<(), ApiError> {
    context.close_app(&session);
    Ok(())
}

/// The project's collections and the private ones, with their cases.
#[tauri::command]
#[specta::specta]
pub async fn collections(context: State<'_, Context>) -> Result<Vec<CollectionView>, ApiError> {
    Ok(context.collections())
}

/// Keeps a call (its arguments, and its result or why it failed) as a case of collection
/// `collection` (shared: the project's folder; else private), made when new.
#[tauri::command]
#[specta::specta]
#[allow(clippy::too_many_arguments)]
pub async fn add_to_collection(
    context: State<'_, Context>,
    collection: String,
    shared: bool,
    case_name: Option<String>,
    server: String,
    tool: String,
    arguments_json: String,
    result_json: Option<String>,
    failure: Option<String>,
) -> Result<AddedCase, ApiError> {
    context
        .add_to_collection(
            &collection,
            shared,
            case_name.as_deref(),
            &server,
            &tool,
            &arguments_json,
            result_json.as_deref(),
            failure.as_deref(),
        )
        .await
}

/// Keeps call `id` of the history as a case of collection `collection`.
#[tauri::command]
#[specta::specta]
pub async fn add_history_call_to_collection(
    context: State<'_, Context>,
    id: u32,
    collection: String,
    shared: bool,
    case_name: Option<String>,
) -> Result<AddedCase, ApiError> {
    context
        .add_history_call_to_collection(id, &collection, shared, case_name.as_deref())
        .await
}

/// Runs case `only` of the collection at `path`, that collection, or (no path) every one.
#[tauri::command]
#[specta::specta]
pub async fn run_collections(
    context: State<'_, Context>,
    path: Option<String>,
    only: Option<String>,
) -> Result<Vec<CaseReport>, ApiError> {
    context
        .run_collections(path.as_deref(), only.as_deref())
        .await
}

/// Replaces case `name` of the collection at `path` (its expectations edited).
#[tauri::command]
#[specta::specta]
pub async fn update_case(
    context: State<'_, Context>,
    path: String,
    name: String,
    updated: Case,
) -> Result<(), ApiError> {
    context.update_case(&path, &name, updated)
}

/// Takes `result_json` as case `name`'s new snapshot.
#[tauri::command]
#[specta::specta]
pub async fn accept_snapshot(
    context: State<'_, Context>,
    path: String,
    name: String,
    result_json: String,
) -> Result<(), ApiError> {
    context.accept_snapshot(&path, &name, &result_json)
}

/// Removes case `name` from the collection at `path`.
#[tauri::command]
#[specta::specta]
pub async fn remove_case(
    context: State<'_, Context>,
    path: String,
    name: String,
) -> Result<(), ApiError> {
    context.remove_case(&path, &name)
}

/// The servers whose surface (tools, schemas, resources, prompts) changed while this project
/// was open.
#[tauri::command]
#[specta::specta]
pub async fn surface_changes(context: State<'_, Context>) -> Result<Vec<SurfaceChange>, ApiError> {
    Ok(context.surface_changes())
}

/// Every server's last check against the tools pinned when it was approved.
#[tauri::command]
#[specta::specta]
pub async fn pin_checks(context: State<'_, Context>) -> Result<Vec<PinCheck>, ApiError> {
    Ok(context.pin_checks())
}

/// Before a package starts: what server `name` will fetch, whether its version is pinned,
/// the version running now, and the registry's word on it (`None`: it runs no package).
#[tauri::command]
#[specta::specta]
pub async fn package_preflight(
    context: State<'_, Context>,
    name: String,
) -> Result<Option<Preflight>, ApiError> {
    context.preflight(&name).await
}

/// Accepts what server `name` serves now for `tool` (every change when `None`).
#[tauri::command]
#[specta::specta]
pub async fn accept_change(
    app: AppHandle,
    context: State<'_, Context>,
    name: String,
    tool: Option<String>,
) -> Result<PinCheck, ApiError> {
    context.accept_change(&app, &name, tool.as_deref()).await
}

/// Pins what server `name` serves now.
#[tauri::command]
#[specta::specta]
pub async fn pin_now(
    app: AppHandle,
    context: State<'_, Context>,
    name: String,
) -> Result<PinCheck, ApiError> {
    context.pin_now(&app, &name).await
}

/// Where a changed tool of server `name` (of every server when `None`) is denied in Claude
/// Code until accepted; `file` `None` turns it off.
#[tauri::command]
#[specta::specta]
pub async fn set_quarantine(
    app: AppHandle,
    context: State<'_, Context>,
    name: Option<String>,
    file: Option<SettingsFile>,
) -> Result<(), ApiError> {
    context.set_quarantine(&app, name.as_deref(), file).await
}

/// Where a changed tool is denied, for every server and per server.
#[tauri::command]
#[specta::specta]
pub async fn quarantine_choice(context: State<'_, Context>) -> Result<QuarantineChoice, ApiError> {
    context.quarantine_choice()
}

/// The surfaces of server `name` kept in the history, newest first.
#[tauri::command]
#[specta::specta]
pub async fn surface_history(
    context: State<'_, Context>,
    name: String,
) -> Result<Vec<SurfaceRecord>, ApiError> {
    context.surface_history(&name).await
}

/// What changed in server `name` from surface `from` to `to` (default: the newest).
#[tauri::command]
#[specta::specta]
pub async fn surface_diff(
    context: State<'_, Context>,
    name: String,
    from: u32,
    to: Option<u32>,
) -> Result<SurfaceDiff, ApiError> {
    context.surface_diff(&name, from, to).await
}

/// Removes every call of the history that is not saved under a name.
#[tauri::command]
#[specta::specta]
pub async fn clear_history(
    context: State<'_, Context>,
) -> Result<mcp_manager_history::Cleared, ApiError> {
    context.clear_history().await
}

/// The MCP registry the browser reads, and where that comes from.
#[tauri::command]
#[specta::specta]
pub async fn registry_setting(
    context: State<'_, Context>,
) -> Result<crate::registry::RegistrySetting, ApiError> {
    Ok(context.registry_setting())
}

/// Sets the registry the browser reads (empty: the official one).
#[tauri::command]
#[specta::specta]
pub async fn set_registry(
    context: State<'_, Context>,
    url: String,
) -> Result<crate::registry::RegistrySetting, ApiError> {
    context.set_registry(&url)
}

/// The cached listing, instantly and offline, filtered by `search`.
#[tauri::command]
#[specta::specta]
pub async fn registry_cached(
    context: State<'_, Context>,
    search: String,
) -> Result<mcp_manager_registry::Listing, ApiError> {
    context.registry_cached(&search)
}

/// One page of the registry's search (the cache, with its time and why, when it fails).
#[tauri::command]
#[specta::specta]
pub async fn registry_search(
    context: State<'_, Context>,
    search: String,
    cursor: Option<String>,
) -> Result<mcp_manager_registry::Listing, ApiError> {
    context.registry_search(&search, cursor).await
}

/// Brings the cached listing up to date (only what changed since the last refresh).
#[tauri::command]
#[specta::specta]
pub async fn registry_refresh(
    context: State<'_, Context>,
) -> Result<mcp_manager_registry::Refreshed, ApiError> {
    context.registry_refresh().await
}

/// Every version of a server, newest first.
#[tauri::command]
#[specta::specta]
pub async fn registry_versions(
    context: State<'_, Context>,
    name: String,
) -> Result<Vec<mcp_manager_registry::Listed>, ApiError> {
    context.registry_versions(&name).await
}

/// The questions of one package or remote of one version.
#[tauri::command]
#[specta::specta]
pub async fn registry_install_form(
    context: State<'_, Context>,
    name: String,
    version: String,
    choice: mcp_manager_registry::install::Choice,
) -> Result<mcp_manager_registry::InstallForm, ApiError> {
    context.registry_install_form(&name, &version, choice).await
}

/// The entry an install would write, as a draft for the editor (which shows the diff).
#[tauri::command]
#[specta::specta]
pub async fn registry_install_draft(
    context: State<'_, Context>,
    name: String,
    version: String,
    choice: mcp_manager_registry::install::Choice,
    scope: Scope,
    entry_name: String,
    answers: mcp_manager_registry::install::Answers,
) -> Result<mcp_manager_registry::InstallDraft, ApiError> {
    context
        .registry_install_draft(&name, &version, choice, scope, &entry_name, &answers)
        .await
}

/// After the entry is saved: a remote's secret headers to the OS keychain.
#[tauri::command]
#[specta::specta]
pub async fn registry_keep_headers(
    context: State<'_, Context>,
    name: String,
    version: String,
    choice: mcp_manager_registry::install::Choice,
    entry_name: String,
    answers: mcp_manager_registry::install::Answers,
) -> Result<Vec<String>, ApiError> {
    context
        .registry_keep_headers(&name, &version, choice, &entry_name, &answers)
        .await
}

/// A pasted snippet (`claude mcp add …`, `{"mcpServers": …}`, …) as drafts of the form.
#[tauri::command]
#[specta::specta]
pub async fn paste_snippet(
    context: State<'_, Context>,
    text: String,
    scope: Scope,
) -> Result<mcp_manager_core::config::snippet::PastedDrafts, ApiError> {
    context.paste_snippet(&text, scope)
}

/// A registry document's repository or website link, in the browser (http(s) only).
#[tauri::command]
#[specta::specta]
pub async fn open_registry_link(
    app: AppHandle,
    context: State<'_, Context>,
    url: String,
) -> Result<(), ApiError> {
    context.open_registry_link(&app, &url)
}

/// A registry server's icon as a `data:` URL (https only, images only, at most 256 KiB), so
/// that the window loads no remote image itself.
#[tauri::command]
#[specta::specta]
pub async fn registry_icon(context: State<'_, Context>, url: String) -> Result<String, ApiError> {
    context.registry_icon(&url).await
}

/// The project's profiles (named sets of servers) and its servers as they are now.
#[tauri::command]
#[specta::specta]
pub async fn profiles(context: State<'_, Context>) -> Result<profiles::Profiles, ApiError> {
    Ok(profiles::list(context.project().locations())?)
}

/// Saves a profile of `servers` (and tools it denies), privately or in the project's
/// `.mcp-profiles.json`.
#[tauri::command]
#[specta::specta]
pub async fn save_profile(
    context: State<'_, Context>,
    name: String,
    servers: Vec<String>,
    denied_tools: Vec<String>,
    shared: bool,
) -> Result<profiles::Profile, ApiError> {
    Ok(profiles::save(
        context.project().locations(),
        &name,
        &servers,
        &denied_tools,
        shared,
    )?)
}

/// Deletes a profile.
#[tauri::command]
#[specta::specta]
pub async fn delete_profile(context: State<'_, Context>, name: String) -> Result<(), ApiError> {
    Ok(profiles::delete(context.project().locations(), &name)?)
}

/// What applying a profile would change; nothing is written.
#[tauri::command]
#[specta::specta]
pub async fn plan_profile(
    context: State<'_, Context>,
    name: String,
) -> Result<profiles::ProfilePlan, ApiError> {
    Ok(profiles::plan(context.project().locations(), &name)?)
}

/// Applies a profile: exactly its servers enabled for the project.
#[tauri::command]
#[specta::specta]
pub async fn apply_profile(
    context: State<'_, Context>,
    name: String,
) -> Result<profiles::ProfilePlan, ApiError> {
    Ok(profiles::apply(context.project().locations(), &name)?)
}

/// Puts the project's servers back as they were before the last apply.
#[tauri::command]
#[specta::specta]
pub async fn undo_profile(context: State<'_, Context>) -> Result<profiles::Undone, ApiError> {
    Ok(profiles::undo(context.project().locations())?)
}

/// Writes a profile for `claude --mcp-config FILE --strict-mcp-config`; the command line.
#[tauri::command]
#[specta::specta]
pub async fn launch_profile(
    context: State<'_, Context>,
    name: String,
) -> Result<profiles::Launch, ApiError> {
    Ok(profiles::launch(
        context.project().locations(),
        &name,
        None,
    )?)
}

/// The servers subagents name or define in their files' frontmatter, with what Claude Code
/// does with each.
#[tauri::command]
#[specta::specta]
pub async fn subagents(
    context: State<'_, Context>,
) -> Result<mcp_manager_core::config::agents::Agents, ApiError> {
    let locations = context.project().locations().clone();
    let configured = mcp_manager_usage::configured(&locations);
    Ok(mcp_manager_core::config::agents::list(
        &locations,
        &configured,
    ))
}

/// The agents (the person's and the project's) a server can move into.
#[tauri::command]
#[specta::specta]
pub async fn agent_names(context: State<'_, Context>) -> Result<Vec<String>, ApiError> {
    Ok(mcp_manager_core::config::agent_moves::agent_names(
        context.project().locations(),
    ))
}

/// Moves a local, project or user server into an agent's frontmatter.
#[tauri::command]
#[specta::specta]
pub async fn move_into_agent(
    context: State<'_, Context>,
    server: String,
    agent: String,
) -> Result<mcp_manager_core::config::agent_moves::Moved, ApiError> {
    Ok(mcp_manager_core::config::agent_moves::move_into(
        context.project().locations(),
        &server,
        &agent,
    )?)
}

/// Moves an agent's own server out of its frontmatter into `scope`.
#[tauri::command]
#[specta::specta]
pub async fn move_out_of_agent(
    context: State<'_, Context>,
    agent: String,
    server: String,
    scope: Scope,
) -> Result<mcp_manager_core::config::agent_moves::Moved, ApiError> {
    Ok(mcp_manager_core::config::agent_moves::move_out(
        context.project().locations(),
        &agent,
        &server,
        scope,
    )?)
}

/// Every login held for the open project's configuration: where each is kept, its issuer and
/// scopes, when it expires, its last refresh and when the keeper refreshes it next.
#[tauri::command]
#[specta::specta]
pub async fn list_logins(
    context: State<'_, Context>,
) -> Result<Vec<mcp_manager_connect::keeper::Login>, ApiError> {
    Ok(context.logins().await)
}

/// Refreshes a server's login now.
#[tauri::command]
#[specta::specta]
pub async fn refresh_login(
    app: tauri::AppHandle,
    context: State<'_, Context>,
    name: String,
) -> Result<mcp_manager_connect::keeper::Login, ApiError> {
    context.refresh_login(&app, &name).await
}

/// Moves a server's login to the other store (MCP Manager's keychain, or Claude Code's).
#[tauri::command]
#[specta::specta]
pub async fn move_login(
    app: tauri::AppHandle,
    context: State<'_, Context>,
    name: String,
    store: LoginStore,
) -> Result<(), ApiError> {
    context.move_login(&app, &name, store).await
}

/// The keeper's settings: what closing the window does, starting at login, the tray.
#[tauri::command]
#[specta::specta]
pub async fn keeper_settings(
    app: tauri::AppHandle,
    context: State<'_, Context>,
) -> Result<crate::keeper::KeeperView, ApiError> {
    Ok(context.keeper_view(&app))
}

/// What closing the window does from now on: keep the keeper running in the tray, quit, or ask.
#[tauri::command]
#[specta::specta]
pub async fn set_keep_running(
    context: State<'_, Context>,
    keep: Option<bool>,
) -> Result<(), ApiError> {
    context.set_keep_running(keep)
}

/// Whether the keeper refreshes logins kept in Claude Code's store too (while no Claude Code
/// runs).
#[tauri::command]
#[specta::specta]
pub async fn set_refresh_claude_code(
    context: State<'_, Context>,
    on: bool,
) -> Result<(), ApiError> {
    context.set_refresh_claude_code(on)
}

/// Starts the app at login, in the tray, or no longer.
#[tauri::command]
#[specta::specta]
pub async fn set_start_at_login(context: State<'_, Context>, on: bool) -> Result<(), ApiError> {
    context.set_start_at_login(on)
}

/// The person's answer to the first close: keep running in the tray (`keep`) or quit.
#[tauri::command]
#[specta::specta]
pub async fn answer_close(
    app: tauri::AppHandle,
    keep: bool,
    remember: bool,
) -> Result<(), ApiError> {
    crate::keeper::answer_close(&app, keep, remember).await
}
