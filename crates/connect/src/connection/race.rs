//! The first start of a local server whose era is not known: two starts side by side.
//!
//! Over stdio nothing but an answer tells the eras apart, and real servers of the era before
//! answer a `server/discover` in three ways: an error (-32601, at once), leaving (servers
//! built on rmcp exit on any request before `initialize`), or nothing at all (the Python SDK
//! of spring 2025 breaks its session on the unknown request and waits for its stdin to
//! close). A probe on the one process paid a restart for the second kind and rmcp's fixed
//! 10 s for the third. So the server is started twice at once, as the TypeScript SDK 2.x
//! does behind its `'auto'`: one process is sent `initialize`, the other `server/discover`.
//!
//! - The probe answers with a result: the 2026-07-28 era, on the probe's process (the
//!   `initialize` one is ended), whatever the other did: a modern-only server refuses
//!   `initialize` with -32022 and is reached all the same.
//! - The probe answers with an error or its process leaves: the era before, on the
//!   `initialize` process, with the code or the exit status as evidence.
//! - The `initialize` process answered and the probe is still silent: it is given
//!   [`grace`] (an eighth of the time `initialize` took, at least [`GRACE_FLOOR`]; a server of
//!   2026-07-28 started at the same moment answers about as soon), then the era before
//!   ("no answer to server/discover within N ms"). The probe's process lives on until it
//!   answers or its own time is up, and a late result is remembered for the next start
//!   ([`Opened::late`]): the verdict of a moment is not kept for ever.
//!
//! A slow start (a first `npx` download) is not mistaken for an era: no clock runs until the
//! `initialize` process has answered. Each process writes its stderr into a log of its own and
//! only the one kept is forwarded into the server's log, so a server that fails at start shows
//! its stderr once. A server that cannot run twice at once (a lock, a port) makes one of the
//! two fail: when the `initialize` start fails while the probe's process ran on (it answered
//! an error, or is silent), it is started once more alone, after a line in its stderr that
//! says so; when the -32022 one's probe failed, the probe is made once more alone. An entry's
//! `"protocol"` key skips all this.

use super::open::{Failed, Opened, Opening};
use super::*;
use crate::era::{Era, Handshake, Verdict};
use rmcp::ClientServiceExt;
use std::sync::{Arc, OnceLock};

/// How often the probe's process is looked at while it is silent.
const LOOK_EVERY: Duration = Duration::from_millis(20);
/// Looks in a row that find it idle, after it caught up, before its silence counts.
const IDLE_LOOKS: u32 = 2;
/// Where CPU time is not known: the least time the probe is given after `initialize` answered.
pub const GRACE_FLOOR: Duration = Duration::from_millis(100);
/// The least time the probe's process is given, while it works, after the `initialize` start's
/// process left.
const GONE_FLOOR: Duration = Duration::from_secs(1);

/// How the probe's silence is judged once the `initialize` start answered.
///
/// Both processes did the same work to get there, so the probe's process has caught up when it
/// has used about as much CPU time (three quarters of it, at least: its whole process group,
/// `npx` and the server it starts) as the other had when it answered (the one that answered
/// went on working a little: its answer, our `notifications/initialized`). Caught up and idle (asleep, with no CPU time, for
/// [`IDLE_LOOKS`] looks in a row) means it waits for something it will not get: silence. A process that is merely
/// behind (the two shared the CPU with the other servers starting) is still using CPU time,
/// and is waited for, at most as long again as `initialize` took. Where CPU time cannot be
/// read (not Linux), [`grace`] decides.
struct Silence {
    since: tokio::time::Instant,
    /// The latest the probe is waited for.
    until: tokio::time::Instant,
    /// The CPU time the `initialize` start's group had used when it answered, and the probe's
    /// process group.
    measure: Option<(u64, u32)>,
    last: Option<u64>,
    idle: u32,
}

impl Silence {
    /// `gone`: the `initialize` start failed because its process left. Its CPU time is gone
    /// with it, so the probe's process is judged by being idle alone, for at least
    /// [`GONE_FLOOR`]: a server that fails at start fails in the probe's process too, only
    /// later when the two shared the CPU, and starting it again would show its failure twice.
    fn begin(
        answered: tokio::time::Instant,
        took: Duration,
        initialize: Option<u32>,
        probe: Option<u32>,
        gone: bool,
    ) -> Silence {
        let used = initialize
            .and_then(group_cpu)
            .map(|used| used.ticks)
            .or(gone.then_some(0));
        let measure = match (used, probe) {
            (Some(used), Some(probe)) => Some((used, probe)),
            _ => None,
        };
        let until = match measure {
            Some(_) if gone => answered + took.max(GONE_FLOOR),
            Some(_) => answered + took.max(GRACE_FLOOR),
            None => answered + grace(took),
        };
        Silence {
            since: answered,
            until,
            measure,
            last: None,
            idle: 0,
        }
    }

    /// When to look again.
    fn next_look(&self) -> tokio::time::Instant {
        match self.measure {
            Some(_) => (tokio::time::Instant::now() + LOOK_EVERY).min(self.until),
            None => self.until,
        }
    }

    /// Whether the silence is judged now (looking at the probe's process once more).
    fn over(&mut self) -> bool {
        let now = tokio::time::Instant::now();
        if now >= self.until {
            return true;
        }
        let Some((target, probe)) = self.measure else {
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
        self.idle >= IDLE_LOOKS && now > self.since
    }
}

/// Where CPU time is not known: how long the probe is given after the `initialize` start
/// answered `after` its start.
pub fn grace(after: Duration) -> Duration {
    (after / 4).max(GRACE_FLOOR)
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

/// What starting a local server takes, owned, so that a start can run as a task of its own.
#[derive(Clone)]
pub(super) struct StdioStart {
    handler: Handler,
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    project: std::path::PathBuf,
    timeout: Duration,
}

/// How one of the two starts ended.
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
        }
    }

    /// Starts the process and opens a session on it with `handshake`, its stderr into
    /// `stderr`. A failure says how the process ended and what it said.
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
            handler,
            command,
            args,
            env,
            project,
            timeout,
        } = self;
        let mut cmd = server_process(command.as_ref(), &args, &env, &project);
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
        let started = tokio::time::timeout(
            timeout,
            handler.serve_with_lifecycle(transport, super::open::lifecycle(handshake)),
        )
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
                return Err(Failed::of(handshake, &err, error, gone));
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
        })
    }

    /// Opens the session in the era the race finds, with its evidence; see the module's
    /// documentation. `main` is the server's stderr log.
    pub(super) async fn race(self, main: &StderrLog) -> Result<(Opened, String), Failed> {
        let began = tokio::time::Instant::now();
        let mark = main.mark();
        let initialize_log = StderrLog::default();
        initialize_log.forward_to(main);
        let probe_log = StderrLog::default();
        let (initialize_pid, probe_pid) = (Arc::new(OnceLock::new()), Arc::new(OnceLock::new()));
        let mut initialize = tokio::spawn(self.clone().run_noting(
            Handshake::Initialize,
            initialize_log.clone(),
            Some(initialize_pid.clone()),
        ));
        let mut probe = tokio::spawn(self.clone().run_noting(
            Handshake::Discover,
            probe_log.clone(),
            Some(probe_pid.clone()),
        ));
        let mut initialized: Option<(Outcome, Duration)> = None;
        let mut probed: Option<Outcome> = None;
        // Once `initialize` answered: how the probe's silence is judged.
        let mut waiting: Option<Silence> = None;
        loop {
            if let (Some((outcome, took)), None, None) = (&initialized, &probed, &waiting) {
                if !matches!(outcome, Err(Failed::Unsupported { .. })) {
                    waiting = Some(Silence::begin(
                        began + *took,
                        *took,
                        initialize_pid.get().copied(),
                        probe_pid.get().copied(),
                        matches!(outcome, Err(failed) if left(failed)),
                    ));
                }
            }
            let late = waiting.as_mut().is_some_and(Silence::over);
            match decide(&initialized, &probed, late) {
                Next::Wait => {
                    wait_one(
                        &mut initialize,
                        &mut probe,
                        &mut initialized,
                        &mut probed,
                        began,
                        waiting.as_ref().map(Silence::next_look),
                    )
                    .await
                }
                Next::Modern => {
                    initialize.abort();
                    drop(initialized.take());
                    initialize_log.stop_forwarding();
                    main.cut_back_to(mark);
                    probe_log.forward_to(main);
                    let Some(Ok(opened)) = probed else {
                        unreachable!("decided on it")
                    };
                    let evidence = opened.probe_evidence();
                    return Ok((opened, evidence));
                }
                Next::Legacy => {
                    let Some((Ok(mut opened), took)) = initialized else {
                        unreachable!("decided on it")
                    };
                    let evidence = match probed.take() {
                        Some(Err(refusal)) => legacy_evidence(&refusal, began.elapsed(), took),
                        Some(Ok(_)) => unreachable!("decided on it"),
                        None => {
                            opened.late = Some(settle_late(probe));
                            silent(began.elapsed(), took)
                        }
                    };
                    return Ok((opened, evidence));
                }
                Next::ProbeAgain => {
                    main.note(AGAIN);
                    let opened = self.run(Handshake::Discover, main.clone()).await?;
                    let evidence = format!("initialize → -32022, then {}", Era::Modern.as_str());
                    return Ok((opened, evidence));
                }
                Next::InitializeAgain => {
                    probe.abort();
                    ended(probe_pid.get().copied()).await;
                    let took = initialized
                        .as_ref()
                        .map(|(_, took)| *took)
                        .unwrap_or_default();
                    let evidence = match &probed {
                        Some(Err(refusal)) => legacy_evidence(refusal, began.elapsed(), took),
                        _ => silent(began.elapsed(), took),
                    };
                    initialize_log.stop_forwarding();
                    main.note(AGAIN);
                    let opened = self.run(Handshake::Initialize, main.clone()).await?;
                    return Ok((opened, format!("{evidence}; started again alone")));
                }
                Next::Fail => {
                    probe.abort();
                    let Some((Err(failed), _)) = initialized else {
                        unreachable!("decided on it")
                    };
                    return Err(failed.plain());
                }
            }
        }
    }
}

/// What the race does next.
enum Next {
    Wait,
    /// The probe's session is kept.
    Modern,
    /// The `initialize` session is kept.
    Legacy,
    /// A server of 2026-07-28 only whose probe failed on its own: probed once more, alone.
    ProbeAgain,
    /// The `initialize` start failed while the probe's process ran on: once more, alone.
    InitializeAgain,
    /// The `initialize` start's failure is the server's.
    Fail,
}

/// The race's rules, on what each start has come to (`late`: the probe's grace is over).
fn decide(initialized: &Option<(Outcome, Duration)>, probed: &Option<Outcome>, late: bool) -> Next {
    let Some((initialize, _)) = initialized else {
        return match probed {
            Some(Ok(_)) => Next::Modern,
            _ => Next::Wait,
        };
    };
    match (initialize, probed) {
        (_, Some(Ok(_))) => Next::Modern,
        (Ok(_), Some(Err(_))) => Next::Legacy,
        (Ok(_), None) if late => Next::Legacy,
        (Err(Failed::Unsupported { .. }), Some(Err(_))) => Next::ProbeAgain,
        (Err(failed), Some(Err(Failed::Refused { .. }))) if left(failed) => Next::InitializeAgain,
        (Err(failed), None) if late && left(failed) => Next::InitializeAgain,
        (Err(Failed::Unsupported { .. }), None) => Next::Wait,
        (Err(_), Some(Err(_))) => Next::Fail,
        (Err(_), None) if late => Next::Fail,
        (_, None) => Next::Wait,
    }
}

/// The `initialize` start's process ended or closed its pipe.
fn left(failed: &Failed) -> bool {
    matches!(
        failed,
        Failed::GoneOnProbe { .. } | Failed::Other(ConnectError::Exited { .. })
    )
}

/// Waits until no process of `group` is left (the one started beside must be gone before a
/// server that cannot run twice starts again), at most [`TERM_GRACE`] twice.
async fn ended(group: Option<u32>) {
    let Some(group) = group else { return };
    let until = tokio::time::Instant::now() + TERM_GRACE * 2;
    while group_cpu(group).is_some() && tokio::time::Instant::now() < until {
        tokio::time::sleep(LOOK_EVERY).await;
    }
    #[cfg(not(target_os = "linux"))]
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// The line between two starts in a server's stderr.
pub const AGAIN: &str =
    "── MCP Manager: started again, alone (the first start ran beside its era probe) ──";

/// Waits for the next of: either start ending, or `deadline`.
async fn wait_one(
    initialize: &mut tokio::task::JoinHandle<Outcome>,
    probe: &mut tokio::task::JoinHandle<Outcome>,
    initialized: &mut Option<(Outcome, Duration)>,
    probed: &mut Option<Outcome>,
    began: tokio::time::Instant,
    deadline: Option<tokio::time::Instant>,
) {
    let joined = |result: Result<Outcome, tokio::task::JoinError>| {
        result.unwrap_or_else(|err| {
            Err(Failed::Other(ConnectError::Initialize {
                message: format!("the start was lost: {err}"),
                stderr: String::new(),
            }))
        })
    };
    let far = tokio::time::Instant::now() + Duration::from_secs(3600);
    tokio::select! {
        result = &mut *initialize, if initialized.is_none() => {
            *initialized = Some((joined(result), began.elapsed()));
        }
        result = &mut *probe, if probed.is_none() => {
            *probed = Some(joined(result));
        }
        _ = tokio::time::sleep_until(deadline.unwrap_or(far)), if deadline.is_some() => {}
    }
}

/// The evidence for the era before, from how the probe failed.
fn legacy_evidence(refusal: &Failed, waited: Duration, took: Duration) -> String {
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

/// Lets the probe's process run on, and says what it answers, if anything, before its time
/// is up: a result is the 2026-07-28 era after all, for the next start.
fn settle_late(probe: tokio::task::JoinHandle<Outcome>) -> tokio::sync::oneshot::Receiver<Verdict> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let began = tokio::time::Instant::now();
        if let Ok(Ok(opened)) = probe.await {
            let _ = tx.send(Verdict {
                era: Era::Modern,
                evidence: format!(
                    "{} (answered {} ms late)",
                    opened.probe_evidence(),
                    began.elapsed().as_millis()
                ),
            });
            // Dropping the session ends the process.
        }
    });
    rx
}
