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

    /// Waits for the request to `/callback`, answers it, and returns its URL.
    async fn receive(&self) -> Result<String, OAuthError> {
        loop {
            let (mut stream, _) = self
                .listener
                .accept()
                .await
                .map_err(|err| OAuthError::Callback(err.to_string()))?;
            let mut buffer = vec![0u8; 16 * 1024];
            let mut read = 0;
            // The request line and headers; the redirect is a GET with no body.
            while read < buffer.len() {
                let n = match tokio::time::timeout(
                    Duration::from_secs(10),
                    stream.read(&mut buffer[read..]),
                )
                .await
                {
                    Ok(Ok(n)) => n,
                    _ => 0,
                };
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
                .unwrap_or("");
            if !target.starts_with("/callback") {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            }
            let url = format!("http://localhost:{}{target}", self.port);
            let refused = url::Url::parse(&url).ok().and_then(|parsed| {
                let get = |key: &str| {
                    parsed
                        .query_pairs()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| v.into_owned())
                };
                get("error").map(|error| match get("error_description") {
                    Some(description) => format!("{error}: {description}"),
                    None => error,
                })
            });
            let page = match &refused {
                None => PAGE.replace("{title}", "Logged in").replace(
                    "{text}",
                    "You are logged in. You can close this tab and return to MCP Manager.",
                ),
                Some(reason) => PAGE.replace("{title}", "Login failed").replace(
                    "{text}",
                    &format!(
                        "The server refused the login ({}). Return to MCP Manager to try again.",
                        html_escape(reason)
                    ),
                ),
            };
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
            let _ = stream.shutdown().await;
            return match refused {
                None => Ok(url),
                Some(reason) => Err(OAuthError::Refused(reason)),
            };
        }
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
        format!("http://localhost:{}/callback", self.port)
    }

    async fn authorize(&self, url: &str, recorder: &Recorder) -> Result<String, OAuthError> {
        // A browser that does not open is no reason to give up: the person can copy the URL.
        let opened = match self.opener {
            Opener::System => {
                let shown = url.to_string();
                tokio::task::spawn_blocking(move || webbrowser::open(&shown))
                    .await
                    .is_ok_and(|opened| opened.is_ok())
            }
            Opener::Print => false,
        };
        if !opened {
            eprintln!("Open this URL in your browser to log in:\n{url}");
        }
        recorder.set_phase(Phase::WaitingForBrowser {
            url: url.to_string(),
            opened,
        });
        tokio::select! {
            received = tokio::time::timeout(self.timeout, self.receive()) => {
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
        crate::oauth::trace::journal("browser-test").begin(crate::oauth::TraceKind::Login)
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
        assert!(redirect.starts_with("http://localhost:") && redirect.ends_with("/callback"));
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
            .authorize("https://as.example/authorize", &recorder())
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
            .authorize("https://as.example/authorize", &recorder())
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
        let journal = crate::oauth::trace::journal("browser-phase-test");
        let recorder = journal.begin(crate::oauth::TraceKind::Login);
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
