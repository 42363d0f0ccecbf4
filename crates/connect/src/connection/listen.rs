//! List changes and resource updates on a 2026-07-28 session: `subscriptions/listen`.
//!
//! The stateless protocol has no session for a server to send notifications on, so a client
//! that wants them opens a long-lived `subscriptions/listen` request naming what it wants
//! (the lists whose `listChanged` the server declares, and the resources followed) and the
//! server answers with notifications tagged with that request's id until either side ends it.
//! What arrives is passed on exactly as the initialize era's notifications are: a list change
//! to the connection's list-change stream (the supervisor fetches the list again; rmcp drops
//! its cached copy of the list first, so a `ttlMs` never hides a change), a resource update to
//! the followers of that URI.
//!
//! One [`Listener`] per modern session, a task that the connection owns (dropping the
//! connection ends it). A stream that ends is opened again, after 250 ms doubling to 8 s; a
//! stream that stayed open for [`STEADY`] counts as healthy again. After [`REOPENS`] short-
//! lived or refused attempts in a row, or at once when the server does not know the method,
//! it gives up and says why ([`ListenState::GaveUp`]): the session goes on without live
//! changes, which is the server's fault and shows as its own state, never the app's. After a
//! reopening, every list followed is fetched again, since changes in the gap were not heard.
//! Following a resource, or no longer following it, opens the stream again with the new
//! filter.

use std::time::{Duration, Instant};

use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::service::ServiceError;
use tokio::sync::{mpsc, watch};

use crate::status::{Capabilities, ListKind, ListenState};

/// Attempts in a row that fail (or end before [`STEADY`]) before listening is given up.
pub const REOPENS: u32 = 6;
/// How long a stream must stay open to count as healthy again.
pub const STEADY: Duration = Duration::from_secs(30);
/// How long [`Listener::follow`] waits for the server to acknowledge a new filter.
const ACK_WAIT: Duration = Duration::from_secs(10);

/// What a listener needs of its session.
pub(crate) struct Sinks {
    pub(crate) changes: mpsc::UnboundedSender<ListKind>,
    pub(crate) updates: tokio::sync::broadcast::Sender<String>,
}

/// The `subscriptions/listen` of one modern session.
pub(crate) struct Listener {
    wanted: watch::Sender<SubscriptionFilter>,
    state: watch::Receiver<ListenState>,
    _task: tokio_util::sync::DropGuard,
}

impl Listener {
    /// Starts listening for the list changes `capabilities` declares.
    pub(crate) fn start(
        peer: rmcp::Peer<rmcp::RoleClient>,
        capabilities: Capabilities,
        sinks: Sinks,
    ) -> Listener {
        let mut lists = SubscriptionFilter::default();
        lists.tools_list_changed = capabilities.tools_list_changed.then_some(true);
        lists.prompts_list_changed = capabilities.prompts_list_changed.then_some(true);
        lists.resources_list_changed = capabilities.resources_list_changed.then_some(true);
        let (wanted, wanted_rx) = watch::channel(lists);
        let (state_tx, state) = watch::channel(ListenState::Idle);
        let stop = tokio_util::sync::CancellationToken::new();
        let task = Task {
            peer,
            wanted: wanted_rx,
            state: state_tx,
            sinks,
        };
        let token = stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = task.run() => {}
                _ = token.cancelled() => {}
            }
        });
        Listener {
            wanted,
            state,
            _task: stop.drop_guard(),
        }
    }

    /// Where listening stands now.
    pub(crate) fn state(&self) -> ListenState {
        self.state.borrow().clone()
    }

    /// Each change of where listening stands.
    pub(crate) fn changes(&self) -> watch::Receiver<ListenState> {
        self.state.clone()
    }

    /// Adds (`follow`) or removes a resource from the filter, and waits until the server
    /// acknowledged the new stream: Err in words when it refused the resource or listening
    /// is given up.
    pub(crate) async fn follow(&self, uri: &str, follow: bool) -> Result<(), String> {
        self.wanted.send_modify(|filter| {
            let mut uris = filter.resource_subscriptions.take().unwrap_or_default();
            uris.retain(|u| u != uri);
            if follow {
                uris.push(uri.to_string());
            }
            filter.resource_subscriptions = (!uris.is_empty()).then_some(uris);
        });
        let mut state = self.state.clone();
        let answered = async move {
            let mut answer = None;
            let _ = state
                .wait_for(|state| {
                    answer = follow_answer(state, uri, follow);
                    answer.is_some()
                })
                .await;
            answer.unwrap_or_else(|| Err("the session ended".into()))
        };
        tokio::time::timeout(ACK_WAIT, answered)
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the server did not acknowledge subscriptions/listen for {uri} within {}",
                    super::seconds(ACK_WAIT)
                ))
            })
    }
}

struct Task {
    peer: rmcp::Peer<rmcp::RoleClient>,
    wanted: watch::Receiver<SubscriptionFilter>,
    state: watch::Sender<ListenState>,
    sinks: Sinks,
}

/// How one stream ended.
enum Ended {
    /// The filter changed: open again at once, not counted.
    Refiltered,
    /// It ended by itself (or could not be opened): why.
    Dropped(String),
    /// The server does not listen at all.
    Refused(String),
}

impl Task {
    async fn run(mut self) {
        let mut failures = 0u32;
        let mut reopened = false;
        loop {
            let filter = self.wanted.borrow_and_update().clone();
            if is_empty(&filter) {
                self.state.send_replace(ListenState::Idle);
                if self.wanted.changed().await.is_err() {
                    return;
                }
                continue;
            }
            self.state.send_replace(ListenState::Opening {
                attempt: failures + 1,
            });
            let opened = Instant::now();
            let ended = self.listen(filter, reopened).await;
            if self.peer.is_transport_closed() {
                return;
            }
            let reason = match ended {
                Ended::Refiltered => continue,
                Ended::Refused(reason) => {
                    self.state.send_replace(ListenState::GaveUp { reason });
                    return;
                }
                Ended::Dropped(reason) => reason,
            };
            reopened = true;
            failures = if opened.elapsed() >= STEADY {
                1
            } else {
                failures + 1
            };
            if failures >= REOPENS {
                self.state.send_replace(ListenState::GaveUp {
                    reason: format!(
                        "subscriptions/listen ended {REOPENS} times in a row; the last time: \
                         {reason}. List changes are not followed until the server reconnects"
                    ),
                });
                return;
            }
            let pause = Duration::from_millis(250 * (1 << (failures - 1).min(5)));
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                // A new filter is worth trying at once.
                changed = self.wanted.changed() => if changed.is_err() { return },
            }
        }
    }

    /// One stream, from opening to its end.
    async fn listen(&mut self, filter: SubscriptionFilter, reopened: bool) -> Ended {
        let peer = self.peer.clone();
        let mut subscription = tokio::select! {
            opened = peer.listen(filter.clone()) => match opened {
                Ok(subscription) => subscription,
                Err(ServiceError::McpError(error)) if error.code.0 == -32601 => {
                    return Ended::Refused(
                        "the server does not offer subscriptions/listen (-32601): list changes \
                         are not followed"
                            .into(),
                    )
                }
                Err(err) => return Ended::Dropped(super::plain(&err.to_string())),
            },
            _ = self.wanted.changed() => return Ended::Refiltered,
        };
        let accepted = subscription.acknowledged().clone();
        let lists = kinds(&accepted);
        let resources = accepted.resource_subscriptions.clone().unwrap_or_default();
        let refused = filter
            .resource_subscriptions
            .unwrap_or_default()
            .into_iter()
            .filter(|uri| !resources.contains(uri))
            .collect();
        self.state.send_replace(ListenState::Listening {
            lists: lists.clone(),
            resources,
            refused,
        });
        if reopened {
            // What changed while no stream was open was never heard.
            for list in &lists {
                let _ = self.sinks.changes.send(*list);
            }
        }
        loop {
            tokio::select! {
                next = subscription.next() => match next {
                    Ok(Some(notification)) => self.pass_on(notification),
                    Ok(None) => {
                        return Ended::Dropped(match subscription.end() {
                            Some(rmcp::service::SubscriptionEnd::Graceful(_)) => "the server ended the stream".into(),
                            Some(rmcp::service::SubscriptionEnd::Cancelled) => "the server cancelled the stream".into(),
                            Some(rmcp::service::SubscriptionEnd::Lagged { capacity }) => format!("more than {capacity} notifications were waiting"),
                            _ => "the stream was closed".into(),
                        })
                    }
                    Err(err) => return Ended::Dropped(super::plain(&err.to_string())),
                },
                _ = self.wanted.changed() => {
                    let _ = subscription.cancel_with_reason(Some("the filter changed".into())).await;
                    return Ended::Refiltered;
                }
            }
        }
    }

    fn pass_on(&self, notification: ServerNotification) {
        match notification {
            ServerNotification::ToolListChangedNotification(_) => {
                let _ = self.sinks.changes.send(ListKind::Tools);
            }
            ServerNotification::PromptListChangedNotification(_) => {
                let _ = self.sinks.changes.send(ListKind::Prompts);
            }
            ServerNotification::ResourceListChangedNotification(_) => {
                let _ = self.sinks.changes.send(ListKind::Resources);
            }
            ServerNotification::ResourceUpdatedNotification(update) => {
                let _ = self.sinks.updates.send(update.params.uri);
            }
            _ => {}
        }
    }
}

/// Whether the stream, as it stands, answers a wish to follow (or no longer follow) `uri`:
/// `None` while that is not known yet.
fn follow_answer(state: &ListenState, uri: &str, follow: bool) -> Option<Result<(), String>> {
    match state {
        ListenState::GaveUp { reason } => Some(Err(reason.clone())),
        ListenState::Listening { refused, .. } if follow && refused.iter().any(|u| u == uri) => {
            Some(Err(format!(
                "the server acknowledged subscriptions/listen without {uri}: it does not send \
                 updates for that resource"
            )))
        }
        ListenState::Listening { resources, .. } => {
            (resources.iter().any(|u| u == uri) == follow).then_some(Ok(()))
        }
        ListenState::Idle => (!follow).then_some(Ok(())),
        ListenState::Opening { .. } => None,
    }
}

fn is_empty(filter: &SubscriptionFilter) -> bool {
    kinds(filter).is_empty()
        && filter
            .resource_subscriptions
            .as_ref()
            .is_none_or(|uris| uris.is_empty())
}

/// The lists a filter opts in to.
fn kinds(filter: &SubscriptionFilter) -> Vec<ListKind> {
    [
        (filter.tools_list_changed, ListKind::Tools),
        (filter.resources_list_changed, ListKind::Resources),
        (filter.prompts_list_changed, ListKind::Prompts),
    ]
    .into_iter()
    .filter(|(on, _)| *on == Some(true))
    .map(|(_, kind)| kind)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follow_is_answered_by_the_acknowledgment_that_names_the_resource_or_leaves_it_out() {
        let listening = |resources: &[&str], refused: &[&str]| ListenState::Listening {
            lists: vec![],
            resources: resources.iter().map(|s| s.to_string()).collect(),
            refused: refused.iter().map(|s| s.to_string()).collect(),
        };
        let uri = "x://a";
        assert_eq!(
            follow_answer(&ListenState::Opening { attempt: 1 }, uri, true),
            None
        );
        assert_eq!(
            follow_answer(&listening(&[], &[]), uri, true),
            None,
            "the stream of the old filter says nothing yet"
        );
        assert_eq!(
            follow_answer(&listening(&[uri], &[]), uri, true),
            Some(Ok(()))
        );
        let refused = follow_answer(&listening(&[], &[uri]), uri, true).unwrap();
        assert!(refused.unwrap_err().contains("without x://a"));
        assert_eq!(
            follow_answer(&listening(&[], &[]), uri, false),
            Some(Ok(()))
        );
        assert_eq!(follow_answer(&ListenState::Idle, uri, false), Some(Ok(())));
        let gave_up = ListenState::GaveUp {
            reason: "no".into(),
        };
        assert_eq!(follow_answer(&gave_up, uri, true), Some(Err("no".into())));
    }

    #[test]
    fn a_filter_names_its_lists_and_is_empty_without_lists_or_resources() {
        let mut filter = SubscriptionFilter::default();
        assert!(is_empty(&filter));
        filter.resource_subscriptions = Some(vec![]);
        assert!(
            is_empty(&filter),
            "an empty list of resources follows nothing"
        );
        filter.prompts_list_changed = Some(true);
        filter.tools_list_changed = Some(false);
        assert_eq!(kinds(&filter), vec![ListKind::Prompts]);
        assert!(!is_empty(&filter));
    }
}
