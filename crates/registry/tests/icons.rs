//! A registry server's icon, fetched by the app over https and given to the window as a
//! `data:` URL (the window's CSP loads no remote image): against an https server on loopback.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

struct Killed(Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Icons over https on loopback (a certificate made for the test, trusted through
/// SSL_CERT_FILE as a real one would be): an image comes back as a `data:` URL; a page, an
/// image over 256 KiB and a redirect to http do not.
#[test]
fn an_icon_over_https_becomes_a_data_url_and_nothing_else_does() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let made = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
        .arg("-keyout")
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .unwrap();
    assert!(made.status.success());
    let script = r#"
        const https = require("node:https"); const fs = require("node:fs");
        const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
        https.createServer({ cert: fs.readFileSync(process.argv[1]), key: fs.readFileSync(process.argv[2]) }, (req, res) => {
          if (req.url === "/icon.png") { res.writeHead(200, { "content-type": "image/png" }); return res.end(png); }
          if (req.url === "/huge.png") { res.writeHead(200, { "content-type": "image/png" }); return res.end(Buffer.alloc(300 * 1024)); }
          if (req.url === "/page") { res.writeHead(200, { "content-type": "text/html" }); return res.end("<script>alert(1)</script>"); }
          res.writeHead(302, { location: "http://127.0.0.1:9/icon.png" }); res.end();
        }).listen(0, "127.0.0.1", function () { console.log("listening " + this.address().port); });
    "#;
    let mut child = Command::new("node")
        .args(["-e", script])
        .arg(&cert)
        .arg(&key)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("listening ").unwrap().to_string();
    let _server = Killed(child);
    // Trusted the way a certificate authority is, for this process only (this test binary
    // holds one test, so nothing else reads the environment meanwhile).
    std::env::set_var("SSL_CERT_FILE", &cert);
    let client = mcp_manager_registry::Client::new("http://127.0.0.1:9").unwrap();
    let at = |path: &str| format!("https://localhost:{port}{path}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let icon = client.icon(&at("/icon.png")).await.unwrap();
        assert_eq!(icon, "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==");
        let page = client.icon(&at("/page")).await.unwrap_err();
        assert!(
            page.to_string().contains("not an image (text/html)"),
            "{page}"
        );
        let huge = client.icon(&at("/huge.png")).await.unwrap_err();
        assert!(huge.to_string().contains("larger than 256 KiB"), "{huge}");
        let moved = client.icon(&at("/elsewhere")).await.unwrap_err();
        assert!(moved.to_string().contains("not an image"), "{moved}");
    });
}

/// A document on a registry on the internet names its icon on the person's own network
/// (here loopback, where a listener counts who comes): the icon is not fetched, as the
/// doctor would not fetch it, and nothing connects.
#[test]
fn an_icon_on_the_persons_network_is_not_fetched_for_a_registry_on_the_internet() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let client = mcp_manager_registry::Client::new("https://registry.example.org").unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let refused = runtime
        .block_on(client.icon(&format!("https://127.0.0.1:{port}/icon.png")))
        .unwrap_err();
    assert!(
        listener.accept().is_err(),
        "the app connected to 127.0.0.1:{port} for a document's icon ({refused})"
    );
    assert!(
        refused.to_string().contains("the icon is not fetched")
            && refused
                .to_string()
                .contains("private, loopback or link-local"),
        "{refused}"
    );
    for inside in [
        "https://169.254.169.254/latest/meta-data",
        "https://metadata.google.internal/icon.png",
        "https://[fd00::1]/icon.png",
    ] {
        let refused = runtime.block_on(client.icon(inside)).unwrap_err();
        assert!(
            refused.to_string().contains("the icon is not fetched"),
            "{inside}: {refused}"
        );
    }
}
