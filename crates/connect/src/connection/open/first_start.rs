//! The first start of a local server whose era is not known: `initialize` on one process, and
//! `server/discover` asked beside it once the session is open.
//!
//! Over stdio nothing but an answer tells the eras apart, and real servers of the era before
//! answer a `server/discover` sent first in three ways: an error (-32601, at once), leaving
//! (servers built on rmcp exit on any request before `initialize`), or nothing at all (the
//! Python SDK of spring 2025 breaks its session on the unknown request and waits for its
//! stdin to close). A probe on the one process pays a restart for the second kind and rmcp's
//! fixed 10 s for the third; a probe in a second process started at the same moment (what the
//! TypeScript SDK 2.x does behind `'auto'`) has the two processes share the CPU while both
//! start: 1.2 to 1.5 times a start whose era is remembered on two cores. So the first start is
//! one process, as every start of Claude Code:
//!
//! - It is sent `initialize`. Every server of the era before answers it, silent ones included,
//!   and a slow start (a first `npx` download) is only waited for: no clock runs on an era.
//! - A server of 2026-07-28 only refuses it with -32022 and the versions it serves; the same
//!   process, still running, is then sent `server/discover` ([`Kept`] gives the pipes back
//!   from rmcp's failed handshake). Evidence: "initialize → -32022, then 2026-07-28".
//! - A server that answered `initialize` is of the era before *for this session*. Whether it
//!   also speaks 2026-07-28 (a dual-era server) is asked once it is open, in a second process
//!   at a lower CPU priority whose stderr and messages are its own ([`StdioStart::ask_beside`]),
//!   and the answer is remembered for the next start: a result is "server/discover →
//!   2026-07-28", an error "legacy: -32601", an exit "legacy: the server exited (status s) on
//!   server/discover", and a probe that caught up with the `initialize` start's CPU time and
//!   sleeps is "legacy: no answer to server/discover within N ms". Where no memory is kept
//!   (`mcpctl`, which would end before the answer), nothing is asked beside.
//!
//! A server that fails at start therefore fails once and shows its stderr once. One that cannot
//! run twice at once (a lock, a port) runs once for its session; only the question asked beside
//! it can fail, and then the verdict is the era before, which it speaks. An entry's
//! `"protocol"` key skips all this.

use super::super::*;
use super::{Failed, Opened, Opening};
use crate::era::{Era, Handshake, Verdict};
use rmcp::ClientServiceExt;
use std::sync::{Arc, OnceLock};

/// How often the process asked beside is looked at while it is silent.
const LOOK_EVERY: Duration = Duration::from_millis(20);
/// Looks in a row that find it idle, after it caught up, before its silence counts.
const IDLE_LOOKS: u32 = 2;
/// Where CPU time cannot be read: the least time the process asked beside is given (it starts
/// while the session works, at a lower priority); twice the time `initialize` took comes on top.
pub const BESIDE_FLOOR: Duration = Duration::from_secs(1);
/// The process asked beside yields the CPU to the servers that start for their sessions.
#[cfg(target_os = "linux")]
const BESIDE_NICENESS: libc::c_int = 10;

/// How the silence of the process asked beside is judged.
///
/// It does the same work the `initialize` start did to answer, so it has caught up when it has
/// used about as much CPU time (three quarters of it, at least: its whole process group, `npx`
/// and the server it starts) as the other had when it answered. Caught up and idle (asleep,
/// with no CPU time, for [`IDLE_LOOKS`] looks in a row) means it waits for something it will
/// not get: silence. A process that is merely behind is still using CPU time, and is waited
/// for until `until`. Where CPU time cannot be read (not Linux), `until` decides.
struct Silence {
    until: tokio::time::Instant,
    /// The CPU time the `initialize` start's group had used when it answered.
    target: Option<u64>,
    last: Option<u64>,
    idle: u32,
}

impl Silence {
    /// Whether the silence of the process group `probe` leads is judged now (looking at it
    /// once more).
    fn over(&mut self, probe: Option<u32>) -> bool {
        if tokio::time::Instant::now() >= self.until {
            return true;
        }
        let (Some(target), Some(probe)) = (self.target, probe) else {
            return false;
        };
        let Some(usage) = group_cpu(probe) else {
            return false;
        };
        let caught_up = usage.ticks * 4 >= target * 3;
        self.idle = match self.last {
            Some(last) if caught_up && usage.asleep && !usage.leaving && usage.ticks == last => {
                self.idle + 1
            }
            _ => 0,
        };
        self.last = Some(usage.ticks);
        self.idle >= IDLE_LOOKS
    }
}
/// What the processes of the group `group` leads have done so far: their CPU time, in clock
/// ticks, and whether every one of them sleeps (waits for input or a timer: state `S`),
/// rather than runs or waits for the CPU (`R`) or the disk (`D`).
#[cfg(target_os = "linux")]
fn group_cpu(group: u32) -> Option<Usage> {
    let mut usage = Usage {
        ticks: 0,
        asleep: true,
        leaving: false,
    };
    let mut found = false;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime …": the name may hold spaces and parentheses, so count after the last ')'.
        let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<u32>().ok()) != Some(group) {
            continue;
        }
        let ticks = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        usage.ticks += ticks(11) + ticks(12);
        usage.asleep &= threads_asleep(&entry.path());
        usage.leaving |= fields.first() == Some(&"Z");
        found = true;
    }
    found.then_some(usage)
}

/// Whether every thread of the process at `/proc/<pid>` sleeps (or it is a zombie): a runtime
/// waiting for its stdin sleeps in all its threads, one still starting runs in some.
#[cfg(target_os = "linux")]
fn threads_asleep(process: &std::path::Path) -> bool {
    let Ok(threads) = std::fs::read_dir(process.join("task")) else {
        return false;
    };
    threads.flatten().all(|thread| {
        std::fs::read_to_string(thread.path().join("stat"))
            .ok()
            .and_then(|stat| {
                let after = &stat[stat.rfind(')')? + 1..];
                after
                    .split_whitespace()
                    .next()
                    .map(|state| state == "S" || state == "Z")
            })
            .unwrap_or(true)
    })
}

#[cfg(not(target_os = "linux"))]
fn group_cpu(_group: u32) -> Option<Usage> {
    None
}

/// See [`group_cpu`].
#[derive(Clone, Copy)]
struct Usage {
    ticks: u64,
    asleep: bool,
    /// A process of the group has exited and is not yet reaped: its end is on its way to us.
    leaving: bool,
}

/// A transport that hands itself back when rmcp drops it: rmcp's `initialize` that a server of
/// 2026-07-28 only refused with -32022 drops its transport (without closing it), and the same
/// process, pipes and all, is then sent `server/discover`.
struct Kept<T> {
    inner: Option<T>,
    home: Arc<std::sync::Mutex<Option<T>>>,
}

impl<T> Kept<T> {
    fn new(inner: T) -> (Kept<T>, Arc<std::sync::Mutex<Option<T>>>) {
        let home = Arc::new(std::sync::Mutex::new(None));
        let kept = Kept {
            inner: Some(inner),
            home: home.clone(),
        };
        (kept, home)
    }

    fn inner(&mut self) -> &mut T {
        self.inner
            .as_mut()
            .expect("a kept transport is whole until dropped")
    }
}

impl<T> Drop for Kept<T> {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            *self.home.lock().expect("kept transport lock") = Some(inner);
        }
    }
}

impl<T> rmcp::transport::Transport<RoleClient> for Kept<T>
where
    T: rmcp::transport::Transport<RoleClient>,
{
    type Error = T::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: rmcp::model::ClientJsonRpcMessage,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner().send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::model::ServerJsonRpcMessage> {
        self.inner().receive().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner().close().await
    }
}

/// Whether rmcp's `initialize` was refused with -32022 by a server that lists 2026-07-28.
fn refused_for_modern(err: &rmcp::service::ClientInitializeError) -> bool {
    let rmcp::service::ClientInitializeError::JsonRpcError(data) = err else {
        return false;
    };
    data.code == rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        && data
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array)
            .is_some_and(|list| list.iter().any(|v| v == Era::Modern.as_str()))
}

/// What starting a local server takes, owned, so that a start can run as a task of its own.
#[derive(Clone)]
pub(super) struct StdioStart {
    handler: Handler,
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    project: std::path::PathBuf,
    timeout: Duration,
    /// A start to ask `server/discover` beside a session: at a lower priority, its messages in
    /// no protocol log.
    beside: bool,
}

/// How a start ended.
type Outcome = Result<Opened, Failed>;

impl StdioStart {
    pub(super) fn new(
        handler: Handler,
        command: &str,
        args: &[String],
        env: &[(String, String)],
        opening: &Opening<'_>,
    ) -> StdioStart {
        StdioStart {
            handler,
            command: command.to_string(),
            args: args.to_vec(),
            env: env.to_vec(),
            project: opening.project.to_path_buf(),
            timeout: opening.limits.connect,
            beside: false,
        }
    }

    /// Starts the process and opens a session on it with `handshake`, its stderr into
    /// `stderr`. A failure says how the process ended and what it said.
    /// [`Handshake::Probe`] is `initialize`, then `server/discover` on the same process when
    /// `initialize` is refused with -32022 by a server that serves 2026-07-28.
    pub(super) async fn run(self, handshake: Handshake, stderr: StderrLog) -> Outcome {
        self.run_noting(handshake, stderr, None).await
    }

    /// [`StdioStart::run`], noting the process's id in `pid` once it is started.
    async fn run_noting(
        self,
        handshake: Handshake,
        stderr: StderrLog,
        pid: Option<Arc<OnceLock<u32>>>,
    ) -> Outcome {
        let StdioStart {
            mut handler,
            command,
            args,
            env,
            project,
            timeout,
            beside,
        } = self;
        let mut cmd = server_process(command.as_ref(), &args, &env, &project);
        if beside {
            handler.protocol = None;
            #[cfg(target_os = "linux")]
            // SAFETY: setpriority(2) is async-signal-safe and touches no memory of the parent.
            unsafe {
                cmd.pre_exec(|| {
                    libc::setpriority(libc::PRIO_PROCESS, 0, BESIDE_NICENESS);
                    Ok(())
                });
            }
        }
        let mut child = cmd.spawn().map_err(|source| {
            Failed::Other(ConnectError::Spawn {
                command: command.clone(),
                source,
            })
        })?;
        if let (Some(noted), Some(id)) = (&pid, child.id()) {
            let _ = noted.set(id);
        }
        let pid = child.id();
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let collector = child
            .stderr
            .take()
            .map(|pipe| tokio::spawn(stderr.clone().collect(pipe)));
        let process = Process::watch(child, pid);
        let transport =
            crate::stdio::Lines::new(stdout, stdin, MAX_MESSAGE, handler.protocol.clone());
        let calls = transport.calls();
        let (transport, probe) = crate::era::witness(transport);
        // The handshake that failed, if one did: `initialize` before a -32022.
        let mut step = handshake;
        let started = tokio::time::timeout(timeout, async {
            if handshake != Handshake::Probe {
                return handler
                    .serve_with_lifecycle(transport, super::lifecycle(handshake))
                    .await;
            }
            step = Handshake::Initialize;
            let (kept, home) = Kept::new(transport);
            let first = handler
                .clone()
                .serve_with_lifecycle(kept, super::lifecycle(Handshake::Initialize))
                .await;
            let back = home.lock().expect("kept transport lock").take();
            match (first, back) {
                (Err(err), Some(transport)) if refused_for_modern(&err) => {
                    step = Handshake::Discover;
                    handler
                        .serve_with_lifecycle(transport, super::lifecycle(step))
                        .await
                }
                (first, _) => first,
            }
        })
        .await;
        let service = match started {
            Ok(Ok(service)) => service,
            Ok(Err(err)) => {
                // The process may be on its way out: give it, and the stderr reader, a
                // moment, so the message can say how it ended and what it said. One that
                // answered with an error is not.
                let answered = matches!(err, rmcp::service::ClientInitializeError::JsonRpcError(_));
                let moment = Duration::from_millis(if answered { 0 } else { 500 });
                let status = process.wait_for_exit(moment).await;
                if let Some(collector) = collector.filter(|_| !answered) {
                    let _ = tokio::time::timeout(moment, collector).await;
                }
                let exited = process.has_exited();
                // Ended in the background: what happened is known now.
                tokio::spawn(async move { process.terminate().await });
                let tail = stderr.tail(20);
                let closed = matches!(
                    err,
                    rmcp::service::ClientInitializeError::ConnectionClosed(_)
                        | rmcp::service::ClientInitializeError::TransportError { .. }
                );
                let gone = if exited {
                    Some(format!(
                        "the server exited ({})",
                        exit_detail(status, "").trim_end_matches("; no output on stderr")
                    ))
                } else if closed {
                    Some("the server closed its pipe".to_string())
                } else {
                    None
                };
                let error = match &err {
                    _ if exited => ConnectError::Exited {
                        detail: exit_detail(status, &tail),
                    },
                    rmcp::service::ClientInitializeError::ConnectionClosed(_) => {
                        ConnectError::Exited {
                            detail: format!("stdout closed; {}", stderr_or_nothing(&tail)),
                        }
                    }
                    other => ConnectError::Initialize {
                        message: plain(&other.to_string()),
                        stderr: tail,
                    },
                };
                return Err(Failed::of(step, &err, error, gone));
            }
            Err(_) => {
                process.terminate().await;
                return Err(Failed::Other(ConnectError::Timeout {
                    timeout,
                    stderr: stderr.tail(20),
                }));
            }
        };
        Ok(Opened {
            service,
            process: Some(process),
            calls: Some(calls),
            probe,
            late: None,
            settled: true,
        })
    }

    /// Opens the session of a first start, with its evidence; see the module's documentation.
    /// `beside`: ask `server/discover` in a second process once the session is open, the answer
    /// in [`Opened::late`] for the next start.
    pub(super) async fn first(
        self,
        stderr: &StderrLog,
        beside: bool,
    ) -> Result<(Opened, String), Failed> {
        let began = tokio::time::Instant::now();
        let pid = Arc::new(OnceLock::new());
        let mut opened = self
            .clone()
            .run_noting(Handshake::Probe, stderr.clone(), Some(pid.clone()))
            .await?;
        let took = began.elapsed();
        if opened.probe.sent() {
            let evidence = format!("initialize → -32022, then {}", Era::Modern.as_str());
            return Ok((opened, evidence));
        }
        let answered = format!("legacy: initialize answered in {} ms", took.as_millis());
        if !beside {
            opened.settled = false;
            return Ok((opened, answered));
        }
        let spent = pid
            .get()
            .copied()
            .and_then(group_cpu)
            .map(|usage| usage.ticks);
        opened.late = Some(self.ask_beside(took, spent));
        Ok((
            opened,
            format!("{answered}; server/discover is asked beside it, for the next start"),
        ))
    }

    /// Asks `server/discover` of a second process while the session runs, and says what it
    /// answered: the verdict for the next start. `took`: how long `initialize` took; `spent`:
    /// the CPU time its process group had used when it answered. The question is dropped when
    /// nobody waits for the answer any more.
    fn ask_beside(
        mut self,
        took: Duration,
        spent: Option<u64>,
    ) -> tokio::sync::oneshot::Receiver<Verdict> {
        self.beside = true;
        let (mut tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let began = tokio::time::Instant::now();
            let timeout = self.timeout;
            let pid = Arc::new(OnceLock::new());
            let mut probe = tokio::spawn(self.run_noting(
                Handshake::Discover,
                StderrLog::default(),
                Some(pid.clone()),
            ));
            // Where CPU time is read, silence is judged by it alone (a process at a lower
            // priority on a busy machine may take long to catch up; the start's own timeout
            // still holds); elsewhere, by the clock.
            let until = match spent {
                Some(_) => began + timeout,
                None => began + took * 2 + BESIDE_FLOOR,
            };
            let mut silence = Silence {
                until,
                target: spent,
                last: None,
                idle: 0,
            };
            let outcome = loop {
                tokio::select! {
                    joined = &mut probe => break Some(joined),
                    _ = tx.closed() => {
                        probe.abort();
                        return;
                    }
                    _ = tokio::time::sleep(LOOK_EVERY) => {
                        if silence.over(pid.get().copied()) {
                            // Dropping the start ends its process.
                            probe.abort();
                            break None;
                        }
                    }
                }
            };
            let verdict = match outcome {
                Some(Ok(Ok(opened))) => {
                    let evidence = opened.probe_evidence();
                    let era = if evidence.starts_with("server/discover") {
                        Era::Modern
                    } else {
                        Era::Legacy
                    };
                    // Dropping the session ends the process.
                    Verdict { era, evidence }
                }
                Some(Ok(Err(refusal))) => Verdict {
                    era: Era::Legacy,
                    evidence: legacy_evidence(&refusal, began.elapsed(), took),
                },
                Some(Err(lost)) => Verdict {
                    era: Era::Legacy,
                    evidence: format!("legacy: server/discover was not asked ({lost})"),
                },
                None => Verdict {
                    era: Era::Legacy,
                    evidence: silent(began.elapsed(), took),
                },
            };
            let _ = tx.send(verdict);
        });
        rx
    }
}

/// The evidence for the era before, from how the probe failed.
pub(super) fn legacy_evidence(refusal: &Failed, waited: Duration, took: Duration) -> String {
    match refusal {
        Failed::Refused { code, .. } => format!("legacy: {code}"),
        Failed::GoneOnProbe { why, .. } => format!("legacy: {why} on server/discover"),
        Failed::Other(ConnectError::Timeout { .. }) => silent(waited, took),
        Failed::Unsupported { .. } => "legacy: server/discover offered no version in common".into(),
        Failed::Other(error) => format!("legacy: server/discover failed ({error})"),
    }
}

/// "no answer to server/discover within N ms".
fn silent(waited: Duration, initialize_took: Duration) -> String {
    format!(
        "legacy: no answer to server/discover within {} ms (initialize answered in {} ms)",
        waited.as_millis(),
        initialize_took.as_millis()
    )
}
