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
