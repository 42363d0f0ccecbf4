//! The window's events, fetched by the page rather than pushed into it.
//!
//! Tauri delivers an event by evaluating a script in the page, and registers each of the page's
//! listeners the same way; WebKit hands the app's process every evaluated script's result as a
//! JavaScriptCore value, so the app's own process loads and keeps JavaScriptCore's code for
//! that alone. Measured on the debug build, idle with one server: 5.3 MiB of JavaScriptCore in
//! the app's process with the page listening, 2.6 MiB (the empty window's) without, and 4 MiB
//! of PSS in all. So every event the window is sent is kept here instead, numbered, in a bounded
//! queue, and the page asks for the ones after the last it saw with one call that waits until
//! there is one (`next_events`): no script is ever evaluated in the page.
//!
//! The events are the same typed events as before (`tauri_specta::Event`, their names and
//! payloads in `ui/src/bindings.ts`), in the order they were sent.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::Notify;

/// How many events are kept for a page that has not asked for them yet. A page that falls
/// further behind (frozen for that long) is told it missed some, and reads everything again.
const KEPT: usize = 4096;

/// How long one `next_events` call waits for an event before it answers with none.
pub const WAIT: Duration = Duration::from_secs(25);

/// One event sent to the window.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct FedEvent {
    /// Its place among every event sent since the app started.
    pub seq: u32,
    /// The event's name, as `tauri_specta` names it (`server-status-changed`).
    pub name: String,
    /// The event's payload, typed in `ui/src/bindings.ts` by the event of that name.
    #[specta(type = specta_typescript::Unknown)]
    pub payload: serde_json::Value,
}

/// The answer to `next_events`: the events after a place, and the place after them.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct FedEvents {
    pub events: Vec<FedEvent>,
    /// Where to ask from next time.
    pub next: u32,
    /// Events after the place asked for were dropped before being asked for: whatever the
    /// page shows may be stale, and is to be read again.
    pub missed: bool,
}

/// Sends `event` to the window of `app` (the app's [`Feed`]).
pub fn send<R: tauri::Runtime, E: tauri_specta::Event + Serialize>(
    app: &impl tauri::Manager<R>,
    event: &E,
) {
    app.state::<Feed>().send(event);
}

#[derive(Default)]
struct Queue {
    next: u32,
    kept: VecDeque<FedEvent>,
}

/// Every event sent to the window, for the page to fetch. Owned by Tauri's state.
#[derive(Default)]
pub struct Feed {
    queue: Mutex<Queue>,
    arrived: Notify,
}

impl Feed {
    /// Sends `event` to the window.
    pub fn send<E: tauri_specta::Event + Serialize>(&self, event: &E) {
        match serde_json::to_value(event) {
            Ok(payload) => self.push(E::NAME, payload),
            Err(err) => eprintln!("mcp-manager: could not send {}: {err}", E::NAME),
        }
    }

    fn push(&self, name: &str, payload: serde_json::Value) {
        {
            let mut queue = self.queue.lock().expect("feed lock");
            let seq = queue.next;
            queue.next = queue.next.wrapping_add(1);
            queue.kept.push_back(FedEvent {
                seq,
                name: name.to_string(),
                payload,
            });
            if queue.kept.len() > KEPT {
                queue.kept.pop_front();
            }
        }
        self.arrived.notify_waiters();
    }

    /// The place of the next event to be sent: a page that starts listening asks from here.
    pub fn cursor(&self) -> u32 {
        self.queue.lock().expect("feed lock").next
    }

    /// The events from place `from` on, waiting up to `wait` for one when there is none yet.
    pub async fn after(&self, from: u32, wait: Duration) -> FedEvents {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            // Armed before the queue is read: an event sent in between still wakes this.
            let arrived = self.arrived.notified();
            tokio::pin!(arrived);
            arrived.as_mut().enable();
            let answer = self.read(from);
            if !answer.events.is_empty() || answer.missed {
                return answer;
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return answer;
            }
        }
    }

    fn read(&self, from: u32) -> FedEvents {
        let queue = self.queue.lock().expect("feed lock");
        // How far `from` is behind the next event; beyond what is kept, some were dropped.
        let behind = queue.next.wrapping_sub(from) as usize;
        if behind > queue.kept.len() {
            return FedEvents {
                events: queue.kept.iter().cloned().collect(),
                next: queue.next,
                missed: true,
            };
        }
        FedEvents {
            events: queue
                .kept
                .iter()
                .skip(queue.kept.len() - behind)
                .cloned()
                .collect(),
            next: queue.next,
            missed: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
    struct Pinged(u32);

    #[tokio::test]
    async fn a_page_gets_the_events_sent_after_its_place_in_order() {
        let feed = Feed::default();
        feed.send(&Pinged(1));
        let from = feed.cursor();
        feed.send(&Pinged(2));
        feed.send(&Pinged(3));
        let got = feed.after(from, Duration::from_millis(10)).await;
        assert!(!got.missed);
        assert_eq!(
            got.events
                .iter()
                .map(|e| e.payload.clone())
                .collect::<Vec<_>>(),
            vec![2, 3]
        );
        assert!(got.events.iter().all(|e| e.name == "pinged"));
        assert_eq!(got.next, from + 2);
        let none = feed.after(got.next, Duration::from_millis(10)).await;
        assert!(none.events.is_empty() && !none.missed);
        assert_eq!(none.next, got.next);
    }

    #[tokio::test]
    async fn a_page_waiting_is_answered_when_an_event_is_sent() {
        let feed = std::sync::Arc::new(Feed::default());
        let from = feed.cursor();
        let waiting = tokio::spawn({
            let feed = feed.clone();
            async move { feed.after(from, Duration::from_secs(20)).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        feed.send(&Pinged(7));
        let got = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("answered at once")
            .unwrap();
        assert_eq!(got.events.len(), 1);
        assert_eq!(got.events[0].payload, 7);
    }

    #[tokio::test]
    async fn a_page_too_far_behind_is_told_it_missed_some() {
        let feed = Feed::default();
        let from = feed.cursor();
        for i in 0..(KEPT as u32 + 10) {
            feed.send(&Pinged(i));
        }
        let got = feed.after(from, Duration::from_millis(10)).await;
        assert!(got.missed);
        assert_eq!(got.events.len(), KEPT);
        assert_eq!(got.events[0].payload, 10);
        // From the oldest kept on, nothing was missed.
        let from_oldest = feed
            .after(got.events[0].seq, Duration::from_millis(10))
            .await;
        assert!(!from_oldest.missed);
        assert_eq!(from_oldest.events.len(), KEPT);
    }
}
