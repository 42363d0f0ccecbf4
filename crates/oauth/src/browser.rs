//! The "browser" of a login: where the authorization URL is shown and how the redirect back
//! is received.
//!
//! [`Loopback`] is the product's: a listener on `localhost` (a fixed port when the server's
//! `oauth.callbackPort` says so, else an ephemeral one) and the person's own browser, opened
//! with the `webbrowser` crate (which honours `$BROWSER`) or, with `--no-browser`, the URL
//! printed for them to open. The listener answers the redirect with a small success or failure
//! page and hands the full callback URL to the login.
//!
//! [`Headless`] is the conformance client's: it sends one GET to the authorization URL without
//! following redirects and reads the callback from `Location`. Everything else in the login is
//! the same code.

use std::time::Duration;

use async_trait::async_trait;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::trace::{Phase, Recorder};
use super::OAuthError;

/// Shows the person an authorization URL and brings back where it redirected to.
#[async_trait]
pub trait Browser: Send + Sync {
    /// The redirect URI to register and send; loopback only.
    fn redirect_uri(&self) -> String;
    /// Resolves with the full URL the authorization server redirected to. While it waits for
    /// the person, `recorder`'s login is in [`Phase::WaitingForBrowser`].
    async fn authorize(&self, url: &str, recorder: &Recorder) -> Result<String, OAuthError>;
}

/// How a [`Loopback`] shows the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// The system browser (`$BROWSER` when set).
    System,
    /// Printed on stderr for the person to open.
    Print,
    /// The system browser, and on stderr the URL and what is awaited, as `claude mcp login`
    /// tells it on a terminal.
    Terminal,
}

/// A loopback listener plus the person's browser.
pub struct Loopback {
    listener: TcpListener,
    port: u16,
    opener: Opener,
    timeout: Duration,
    cancel: CancellationToken,
}

/// How long a login waits for the person by default.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

impl Loopback {
    /// Listens on `localhost` at `port`, or an ephemeral port when `None`.
    pub async fn bind(port: Option<u16>, opener: Opener) -> Result<Loopback, OAuthError> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|err| match port {
                Some(port) => OAuthError::Callback(format!(
                    "cannot listen on localhost:{port} for the login redirect: {err}"
                )),
                None => OAuthError::Callback(format!("cannot listen on localhost: {err}")),
            })?;
        let port = listener
            .local_addr()
            .map_err(|err| OAuthError::Callback(err.to_string()))?
            .port();
        Ok(Loopback {
            listener,
            port,
            opener,
            timeout: LOGIN_TIMEOUT,
            cancel: CancellationToken::new(),
        })
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Ends a waiting [`Browser::authorize`] with [`OAuthError::Cancelled`] when `cancel` is.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Cancelling this token ends a waiting [`Browser::authorize`] with [`OAuthError::Cancelled`].
    pub fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Waits for the redirect of this login to `/callback`, answers it, and returns its URL.
    ///
    /// Any local program can send requests to the listener, so it believes only the redirect
    /// that carries this login's `state` (RFC 6749 §10.12): a request without it, or with
    /// another, is answered 400 and the listener goes on waiting; an `error=` counts only with
    /// the right `state` too. Connections are served at once each on its own task, with
    /// [`HEADER_DEADLINE`] to send their headers, so a connection left open holds up nothing.
    async fn receive(&self, state: Option<&str>) -> Result<String, OAuthError> {
        let (arrived, mut arrivals) = tokio::sync::mpsc::channel(16);
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (stream, _) = accepted.map_err(|err| OAuthError::Callback(err.to_string()))?;
                    let arrived = arrived.clone();
                    tokio::spawn(async move {
                        if let Ok(Some(request)) = tokio::time::timeout(HEADER_DEADLINE, read_request_line(stream)).await {
                            let _ = arrived.send(request).await;
                        }
                    });
                }
                Some((mut stream, target)) = arrivals.recv() => {
                    match self.judge(&target, state) {
                        Verdict::NotHere => {
                            answer(&mut stream, "404 Not Found", None).await;
                        }
                        Verdict::Foreign => {
                            let page = PAGE.replace("{title}", "Not this login").replace(
                                "{text}",
                                "This request does not belong to the login in progress, so it was ignored. Finish the login in the tab MCP Manager opened.",
                            );
                            answer(&mut stream, "400 Bad Request", Some(&page)).await;
                        }
                        Verdict::Refused(reason) => {
                            let page = PAGE.replace("{title}", "Login failed").replace(
                                "{text}",
                                &format!(
                                    "The server refused the login ({}). Return to MCP Manager to try again.",
                                    html_escape(&reason)
                                ),
                            );
                            answer(&mut stream, "200 OK", Some(&page)).await;
                            return Err(OAuthError::Refused(reason));
                        }
                        Verdict::Ours(url) => {
                            let page = PAGE.replace("{title}", "Logged in").replace(
                                "{text}",
                                "You are logged in. You can close this tab and return to MCP Manager.",
                            );
                            answer(&mut stream, "200 OK", Some(&page)).await;
                            return Ok(url);
                        }
                    }
                }
            }
        }
    }

    /// What a request to the listener is, given the `state` this login sent.
    fn judge(&self, target: &str, state: Option<&str>) -> Verdict {
        if !(target == "/callback" || target.starts_with("/callback?")) {
            return Verdict::NotHere;
        }
        let url = format!("{}{}", self.origin(), target);
        let Ok(parsed) = url::Url::parse(&url) else {
            return Verdict::Foreign;
        };
        let get = |key: &str| {
            parsed
                .query_pairs()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.into_owned())
        };
        if state.is_some_and(|state| get("state").as_deref() != Some(state)) {
            return Verdict::Foreign;
        }
        match get("error") {
            Some(error) => {
                let reason = match get("error_description") {
                    Some(description) => format!("{error}: {description}"),
                    None => error,
                };
                Verdict::Refused(reason)
            }
            None => Verdict::Ours(url),
        }
    }

    /// `http://127.0.0.1:PORT`: the address the listener really has (RFC 8252 §8.3 prefers
    /// the loopback IP literal to `localhost`, which may resolve elsewhere).
    fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// How long a connection to the login listener has to send its request line and headers.
pub const HEADER_DEADLINE: Duration = Duration::from_secs(5);

enum Verdict {
    /// Not `/callback`.
    NotHere,
    /// A callback without this login's `state`.
    Foreign,
    /// This login's callback with an `error`: why.
    Refused(String),
    /// This login's callback.
    Ours(String),
}

/// Reads a request's line and headers (up to 16 KiB); its target, with the stream to answer.
async fn read_request_line(
    mut stream: tokio::net::TcpStream,
) -> Option<(tokio::net::TcpStream, String)> {
    let mut buffer = vec![0u8; 16 * 1024];
    let mut read = 0;
    while read < buffer.len() {
        let n = stream.read(&mut buffer[read..]).await.ok()?;
        if n == 0 {
            break;
        }
        read += n;
        if buffer[..read].windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let request = String::from_utf8_lossy(&buffer[..read]);
    let target = request
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("GET "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or("")
        .to_string();
    Some((stream, target))
}

async fn answer(stream: &mut tokio::net::TcpStream, status: &str, page: Option<&str>) {
    let page = page.unwrap_or("");
    let response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// A login page must be a web page: `https`, or `http` on the loopback interface. Anything
/// else from the server's metadata (`file:`, `javascript:`, a custom scheme that starts a
/// program) is never handed to the system's opener or printed as a link to follow.
pub fn check_login_page(url: &str) -> Result<(), OAuthError> {
    let parsed = url::Url::parse(url).map_err(|err| {
        OAuthError::Config(format!("the login page address is not a URL ({err})"))
    })?;
    let loopback = parsed.host().is_some_and(|host| match host {
        url::Host::Domain(name) => name == "localhost",
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    });
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        scheme => Err(OAuthError::Config(format!(
            "the authorization server's login page is a {scheme}: address, not https (or http on this computer); it was not opened. Its metadata is wrong or hostile: tell its operator"
        ))),
    }
}

const PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title} · MCP Manager</title>\
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}</style></head>\
<body><h1>{title}</h1><p>{text}</p></body></html>";

fn html_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[async_trait]
impl Browser for Loopback {
    fn redirect_uri(&self) -> String {
        format!("{}/callback", self.origin())
    }

    async fn authorize(&self, url: &str, recorder: &Recorder) -> Result<String, OAuthError> {
        check_login_page(url)?;
        let state = url::Url::parse(url).ok().and_then(|parsed| {
            parsed
                .query_pairs()
                .find(|(k, _)| k == "state")
                .map(|(_, v)| v.into_owned())
        });
        // A browser that does not open is no reason to give up: the person can copy the URL.
        let opened = match self.opener {
            Opener::System | Opener::Terminal => {
                let shown = url.to_string();
                tokio::task::spawn_blocking(move || webbrowser::open(&shown))
                    .await
                    .is_ok_and(|opened| opened.is_ok())
            }
            Opener::Print => false,
        };
        if self.opener == Opener::Terminal {
            eprintln!(
                "{}\n  {url}\n\nWaiting for the authorization in your browser… (up to {} minutes; Ctrl-C cancels)",
                if opened {
                    "Your browser was opened to log in. If it did not open, visit:"
                } else {
                    "Open this URL in your browser to log in:"
                },
                self.timeout.as_secs().div_ceil(60)
            );
        } else if !opened {
            eprintln!("Open this URL in your browser to log in:\n{url}");
        }
        recorder.set_phase(Phase::WaitingForBrowser {
            url: url.to_string(),
            opened,
        });
        tokio::select! {
            received = tokio::time::timeout(self.timeout, self.receive(state.as_deref())) => {
                received.map_err(|_| OAuthError::TimedOut(self.timeout))?
            }
            _ = self.cancel.cancelled() => Err(OAuthError::Cancelled),
        }
    }
}

/// The conformance client's browser: one GET, no redirects followed, the callback from
/// `Location`.
pub struct Headless {
    redirect_uri: String,
}

impl Headless {
    pub fn new(redirect_uri: impl Into<String>) -> Self {
        Headless {
            redirect_uri: redirect_uri.into(),
        }
    }
}

#[async_trait]
impl Browser for Headless {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.clone()
    }

    async fn authorize(&self, url: &str, _: &Recorder) -> Result<String, OAuthError> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| OAuthError::Browser(err.to_string()))?;
        let response = client
            .get(url)
            .send()
            .await
            .map_err(|err| OAuthError::Browser(err.to_string()))?;
        response
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|value| value.to_str().ok())
            .map(str::to_string)
            .ok_or_else(|| {
                OAuthError::Browser(format!(
                    "the authorization endpoint answered {} without a redirect",
                    response.status()
                ))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// What a browser does at the redirect: GET the callback, read the page.
    async fn visit(url: &str) -> String {
        let parsed = url::Url::parse(url).unwrap();
        let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", parsed.port().unwrap()))
            .await
            .unwrap();
        let path = &url[url.find("/callback").unwrap()..];
        let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut page = String::new();
        stream.read_to_string(&mut page).await.unwrap();
        page
    }

    fn recorder() -> Recorder {
        crate::trace::journal("browser-test").begin(crate::TraceKind::Login)
    }

    async fn listening() -> Loopback {
        Loopback::bind(None, Opener::Print)
            .await
            .unwrap()
            .with_timeout(Duration::from_secs(5))
    }

    #[tokio::test]
    async fn the_redirect_gets_a_success_page_and_its_url_is_returned() {
        let browser = listening().await;
        let redirect = browser.redirect_uri();
        assert!(
            redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"),
            "the address really bound (RFC 8252 §8.3): {redirect}"
        );
        let visited = tokio::spawn(async move {
            // A stray request first (a favicon) does not end the wait.
            let base = redirect.trim_end_matches("/callback").to_string();
            let port = url::Url::parse(&base).unwrap().port().unwrap();
            let mut stray = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .unwrap();
            stray
                .write_all(b"GET /favicon.ico HTTP/1.1\r\n\r\n")
                .await
                .unwrap();
            visit(&format!("{redirect}?code=abc&state=xyz")).await
        });
        let url = browser
            .authorize("https://as.example/authorize?state=xyz", &recorder())
            .await
            .unwrap();
        assert!(url.ends_with("/callback?code=abc&state=xyz"), "{url}");
        let page = visited.await.unwrap();
        assert!(
            page.starts_with("HTTP/1.1 200") && page.contains("Logged in"),
            "{page}"
        );
    }

    #[tokio::test]
    async fn a_refusal_gets_a_failure_page_and_says_why() {
        let browser = listening().await;
        let redirect = browser.redirect_uri();
        let visited = tokio::spawn(async move {
            visit(&format!(
                "{redirect}?error=access_denied&error_description=%3Cb%3Enope%3C%2Fb%3E&state=x"
            ))
            .await
        });
        let err = browser
            .authorize("https://as.example/authorize?state=x", &recorder())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, OAuthError::Refused(r) if r == "access_denied: <b>nope</b>"),
            "{err}"
        );
        let page = visited.await.unwrap();
        assert!(
            page.contains("Login failed") && page.contains("&lt;b&gt;nope"),
            "escaped: {page}"
        );
    }

    #[tokio::test]
    async fn forged_callbacks_and_silent_connections_do_not_end_or_stall_the_login() {
        let browser = listening().await;
        let redirect = browser.redirect_uri();
        let port = url::Url::parse(&redirect).unwrap().port().unwrap();
        let forged = tokio::spawn(async move {
            // A connection that never sends its headers, held open the whole time.
            let silent = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .unwrap();
            // A local program forging an error, then a code, without this login's state.
            let error = visit(&format!("{redirect}?error=access_denied")).await;
            let wrong = visit(&format!("{redirect}?code=stolen&state=guess")).await;
            let none = visit(&format!("{redirect}?code=stolen")).await;
            // Then the person's real redirect.
            let real = visit(&format!("{redirect}?code=real&state=s3")).await;
            drop(silent);
            (error, wrong, none, real)
        });
        let started = std::time::Instant::now();
        let url = browser
            .authorize(
                "https://as.example/authorize?client_id=c&state=s3",
                &recorder(),
            )
            .await
            .unwrap();
        assert!(url.ends_with("?code=real&state=s3"), "{url}");
        assert!(
            started.elapsed() < HEADER_DEADLINE,
            "the silent connection held nothing up"
        );
        let (error, wrong, none, real) = forged.await.unwrap();
        for page in [error, wrong, none] {
            assert!(
                page.starts_with("HTTP/1.1 400") && page.contains("does not belong to the login"),
                "{page}"
            );
        }
        assert!(real.contains("Logged in"), "{real}");
    }

    #[test]
    fn only_web_pages_are_login_pages() {
        for url in [
            "https://as.example/authorize?x=1",
            "http://127.0.0.1:8080/authorize",
            "http://localhost/authorize",
            "http://[::1]:9/authorize",
        ] {
            assert!(check_login_page(url).is_ok(), "{url}");
        }
        for url in [
            "file:///etc/passwd?response_type=code",
            "javascript:alert(1)",
            "http://as.example/authorize",
            "vscode://evil/authorize",
            "smb://host/share",
            "not a url",
        ] {
            assert!(check_login_page(url).is_err(), "{url}");
        }
    }

    #[tokio::test]
    async fn a_login_page_of_another_scheme_is_never_opened() {
        let browser = listening().await;
        let err = browser
            .authorize("file:///etc/passwd?response_type=code&state=s", &recorder())
            .await
            .unwrap_err();
        assert!(err.to_string().contains("file: address"), "{err}");
    }

    #[tokio::test]
    async fn a_login_nobody_completes_times_out_and_one_can_be_cancelled() {
        let browser = Loopback::bind(None, Opener::Print)
            .await
            .unwrap()
            .with_timeout(Duration::from_millis(200));
        let err = browser
            .authorize("https://as.example/authorize", &recorder())
            .await
            .unwrap_err();
        assert!(matches!(err, OAuthError::TimedOut(_)), "{err}");

        let browser = listening().await;
        let cancel = browser.cancel_token();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            cancel.cancel();
        });
        let err = browser
            .authorize("https://as.example/authorize", &recorder())
            .await
            .unwrap_err();
        assert!(matches!(err, OAuthError::Cancelled), "{err}");
    }

    #[tokio::test]
    async fn while_it_waits_the_login_shows_the_url_and_whether_a_browser_took_it() {
        let browser = listening().await;
        let journal = crate::trace::journal("browser-phase-test");
        let recorder = journal.begin(crate::TraceKind::Login);
        let cancel = browser.cancel_token();
        let waiting = tokio::spawn({
            let journal = std::sync::Arc::clone(&journal);
            async move {
                loop {
                    if let Some(phase) = journal.login_phase() {
                        cancel.cancel();
                        return phase;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        });
        let err = browser
            .authorize("https://as.example/authorize?x=1", &recorder)
            .await
            .unwrap_err();
        assert!(matches!(err, OAuthError::Cancelled), "{err}");
        assert_eq!(
            waiting.await.unwrap(),
            Phase::WaitingForBrowser {
                url: "https://as.example/authorize?x=1".into(),
                opened: false,
            },
            "printed, not opened: the window offers the URL to copy"
        );
    }

    #[tokio::test]
    async fn a_fixed_port_that_is_taken_is_a_clear_error() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let err = Loopback::bind(Some(port), Opener::Print)
            .await
            .err()
            .unwrap();
        assert!(
            err.to_string().contains(&format!("localhost:{port}")),
            "{err}"
        );
    }
}
