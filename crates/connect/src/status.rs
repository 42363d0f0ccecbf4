//! What the UI and `mcpctl` see of a server: a serializable status and the event that
//! carries each change of it. The supervisor's private state holds the live data (the
//! running client, the task); this is its public face.

use serde::Serialize;

/// A server's status. Each variant says what the UI should show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ServerStatus {
    /// Connecting (attempt 1 is the first). Show a spinner.
    Pending { attempt: u32 },
    /// Ready: show the server's name and version; tools, resources and prompts can be used.
    // Boxed: each status event is one slot of the supervisor's broadcast channel, whose 4,096
    // slots are made when a project opens. Unboxed, this variant made a slot about 300 bytes:
    // 1.25 MB before the first event. Boxed, an event is 48 bytes and the slots 0.3 MB.
    Connected(Box<ConnectedInfo>),
    /// Gave up. Show `error` (it includes the stderr tail of a local server) and a Retry
    /// button.
    Failed { error: String },
    /// The server asks for authorization. Show a Log in button.
    NeedsAuth,
    /// Disabled, or a project server nobody approved: never started. Show Enable / Approve.
    Disabled,
}

impl ServerStatus {
    /// Pending is the only state that is not an answer yet.
    pub fn is_settled(&self) -> bool {
        !matches!(self, ServerStatus::Pending { .. })
    }

    /// The word used by `mcpctl status` and in event names.
    pub fn label(&self) -> &'static str {
        match self {
            ServerStatus::Pending { .. } => "pending",
            ServerStatus::Connected(_) => "connected",
            ServerStatus::Failed { .. } => "failed",
            ServerStatus::NeedsAuth => "needs-auth",
            ServerStatus::Disabled => "disabled",
        }
    }
}

/// What the server said about itself when the session started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedInfo {
    pub server_name: String,
    pub server_version: String,
    pub server_title: Option<String>,
    pub protocol_version: String,
    pub instructions: Option<String>,
    pub capabilities: Capabilities,
    /// The protocol era of the session, and how it was found out ("server/discover →
    /// 2026-07-28", "legacy: -32601", "remembered: …").
    pub era: crate::era::Era,
    pub era_evidence: String,
    /// How many tools, resources and prompts the server lists (fetched when it connected, and
    /// again after each `list_changed`); `None` for a list the server does not offer.
    pub counts: ListCounts,
    /// On a 2026-07-28 session, where its `subscriptions/listen` stream stands (show what is
    /// followed live, or why nothing is); `None` in the initialize era.
    pub listening: Option<ListenState>,
}

/// The sizes of a server's lists. `None`: the server lacks that capability, or listing failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ListCounts {
    pub tools: Option<u32>,
    pub resources: Option<u32>,
    pub prompts: Option<u32>,
}

impl ListCounts {
    /// The counts with one list's size replaced.
    pub fn with(self, list: ListKind, count: usize) -> ListCounts {
        let count = Some(u32::try_from(count).unwrap_or(u32::MAX));
        match list {
            ListKind::Tools => ListCounts {
                tools: count,
                ..self
            },
            ListKind::Resources => ListCounts {
                resources: count,
                ..self
            },
            ListKind::Prompts => ListCounts {
                prompts: count,
                ..self
            },
        }
    }
}

/// The server capabilities that decide what may be asked of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub tools: bool,
    pub tools_list_changed: bool,
    pub resources: bool,
    pub resources_subscribe: bool,
    pub resources_list_changed: bool,
    pub prompts: bool,
    pub prompts_list_changed: bool,
    pub logging: bool,
    pub completions: bool,
    /// The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`): calls may be run
    /// as tasks.
    pub tasks: bool,
    /// The Skills extension (SEP-2640, `io.modelcontextprotocol/skills`): the server lists
    /// skills, each loaded with its files checked.
    pub skills: bool,
}

/// One change of one server's status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct StatusEvent {
    pub server: String,
    pub status: ServerStatus,
}

/// Which of a server's lists changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// A server said one of its lists changed; it has been fetched again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ListChanged {
    pub server: String,
    pub list: ListKind,
    /// How many items the list has now.
    pub count: usize,
}

/// One `notifications/progress` of a request.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The supervisor's channel holds 4,096 events from the moment a project opens, so an
    /// event's size is paid 4,096 times over (see `ServerStatus::Connected`).
    #[test]
    fn a_status_event_stays_small() {
        let size = std::mem::size_of::<StatusEvent>();
        eprintln!("a status event: {size} bytes");
        assert!(size <= 64, "a status event takes {size} bytes");
    }
}

/// Where a session's `subscriptions/listen` stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum ListenState {
    /// Nothing to listen for (the server declares no list changes and nothing is followed).
    Idle,
    /// Opening the stream (attempt 1 is the first).
    Opening { attempt: u32 },
    /// The server acknowledged; these are what it will send. `refused`: resources asked for
    /// that its acknowledgment left out.
    Listening {
        lists: Vec<ListKind>,
        resources: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        #[specta(optional)]
        refused: Vec<String>,
    },
    /// No more attempts: why, in words.
    GaveUp { reason: String },
}
