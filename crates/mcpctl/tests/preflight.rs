//! `mcpctl preflight`: before a package starts, against the registry on loopback (real
//! `server.json` documents, plus a newer version of our own), online and offline; and
//! `--pin` on real `npx` and `uvx` entries, which fetch from npm and PyPI and are pinned to the
//! version that really ran.

#[path = "../../connect/tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::{json, Value};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

struct Spawned(Child);

impl Drop for Spawned {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The registry on loopback with `extra` flags, and its address.
fn registry(extra: &[&str]) -> (Spawned, String) {
    let mut child = Command::new("node")
        .arg(repo("tests/fixtures/registry/registry-server.mjs"))
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("listening ")
        .expect("a port")
        .to_string();
    (Spawned(child), format!("http://127.0.0.1:{port}"))
}

struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    project: PathBuf,
}

impl Sandbox {
    /// A home whose `~/.claude.json` holds `servers` (user scope).
    fn new(servers: Value) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, project) = (root.join("home"), root.join("project"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(
            home.join(".claude.json"),
            serde_json::to_string_pretty(&json!({ "mcpServers": servers })).unwrap(),
        )
        .unwrap();
        Sandbox {
            _dir: dir,
            root,
            home,
            project,
        }
    }

    fn mcpctl(&self, registry: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_mcpctl"))
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"))
            .env("MCP_MANAGER_REGISTRY", registry)
            .env("MCP_TIMEOUT", "60000")
            .output()
            .expect("mcpctl runs")
    }

    fn entry(&self, name: &str) -> Value {
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(self.home.join(".claude.json")).unwrap())
                .unwrap();
        file["mcpServers"][name].clone()
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn stdio(command: &str, args: &[&str]) -> Value {
    json!({"type": "stdio", "command": command, "args": args, "env": {}})
}

/// Our own next release of the real airtable-mcp-server document: it requires a base id, no
/// longer an API key, and asks the person to run a command after installing.
fn next_airtable(dir: &Path, marker: &Path) -> PathBuf {
    let seed: Value = serde_json::from_str(
        &std::fs::read_to_string(repo("tests/fixtures/registry/seed.json")).unwrap(),
    )
    .unwrap();
    let mut doc = seed
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.get("server").unwrap_or(d).clone())
        .find(|d| d["name"] == "io.github.domdomegg/airtable-mcp-server" && d["version"] == "1.7.3")
        .expect("the real document");
    doc["version"] = json!("1.8.0");
    doc["postInstallInstructions"] = json!(format!(
        "Create a personal access token.\nThen run: touch {}",
        marker.display()
    ));
    for package in doc["packages"].as_array_mut().unwrap() {
        if package["registryType"] == "npm" {
            package["version"] = json!("1.8.0");
            package["environmentVariables"] = json!([
                {"name": "AIRTABLE_BASE_ID", "isRequired": true, "description": "The base"}
            ]);
        }
    }
    let path = dir.join("airtable-1.8.0.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn preflight_reads_each_runner_and_what_the_registry_says_online_and_offline() {
    let box_ = Sandbox::new(json!({
        "air-pinned": stdio("npx", &["-y", "airtable-mcp-server@1.7.2"]),
        "air-latest": stdio("npx", &["-y", "airtable-mcp-server@latest"]),
        "time-py": stdio("uvx", &["time-mcp-pypi==1.0.6"]),
        "air-image": stdio("docker", &["run", "-i", "--rm", "-e", "AIRTABLE_API_KEY", "docker.io/domdomegg/airtable-mcp-server:1.7.2"]),
        "local": stdio("node", &["server.js"]),
    }));
    let marker = box_.root.join("instructions-ran");
    let next = next_airtable(&box_.root, &marker);
    let (live, url) = registry(&[
        "--publish",
        next.to_str().unwrap(),
        "--deprecate",
        "io.github.domdomegg/airtable-mcp-server=Moved to io.github.domdomegg/airtable",
        "--delete",
        "io.github.domdomegg/time-mcp-pypi=Removed by its publisher",
    ]);

    let out = box_.mcpctl(&url, &["--json", "preflight"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "something needs a look: {}",
        text(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by = |name: &str| -> Value {
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["server"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {report}"))
    };
    assert!(
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["server"] != "local"),
        "an entry that runs no package has nothing to check"
    );

    let pinned = by("air-pinned");
    assert_eq!(pinned["package"]["name"], "airtable-mcp-server");
    assert_eq!(pinned["package"]["pinned"], true);
    let verdict = &pinned["registry"];
    assert_eq!(verdict["server"], "io.github.domdomegg/airtable-mcp-server");
    assert_eq!(verdict["version"], "1.7.2");
    assert_eq!(verdict["status"], "deprecated");
    assert_eq!(
        verdict["statusMessage"],
        "Moved to io.github.domdomegg/airtable"
    );
    assert_eq!(
        verdict["newer"],
        json!({"version": "1.8.0", "newRequired": ["AIRTABLE_BASE_ID"], "removed": ["AIRTABLE_API_KEY"],
            "postInstallInstructions": format!("Create a personal access token.\nThen run: touch {}", marker.display())})
    );
    assert_eq!(verdict["unchecked"], json!([]));

    let latest = by("air-latest");
    assert_eq!(latest["package"]["pinned"], false);
    assert_eq!(latest["package"]["version"], "latest");
    assert!(latest["registry"]["postInstallInstructions"]
        .as_str()
        .unwrap()
        .contains("Create a personal access token"));

    let python = by("time-py");
    assert_eq!(python["package"]["ecosystem"], "pypi");
    assert_eq!(python["package"]["pinned"], true);
    assert_eq!(python["registry"]["status"], "deleted");
    assert_eq!(
        python["registry"]["statusMessage"],
        "Removed by its publisher"
    );

    let image = by("air-image");
    assert_eq!(image["package"]["ecosystem"], "oci");
    assert_eq!(image["package"]["version"], "1.7.2");
    assert_eq!(
        image["package"]["pinned"], false,
        "a tag can be moved: only a digest is fixed"
    );
    assert_eq!(
        image["registry"]["server"],
        "io.github.domdomegg/airtable-mcp-server"
    );

    // The words, and the instructions as text: nothing of them runs.
    let said = text(&box_.mcpctl(&url, &["preflight"]));
    for words in [
        "air-latest: npx fetches airtable-mcp-server from npm, \"latest\" (not pinned: not one version; what is published next runs next)",
        "air-pinned: npx fetches airtable-mcp-server from npm, version 1.7.2 (pinned)",
        "registry: io.github.domdomegg/airtable-mcp-server 1.7.2 is DEPRECATED: Moved to io.github.domdomegg/airtable",
        "a newer version: 1.8.0; it requires AIRTABLE_BASE_ID; it no longer takes AIRTABLE_API_KEY",
        "after installing, its publisher says (text, not run):",
        "is DELETED: Removed by its publisher",
    ] {
        assert!(said.contains(words), "{words:?} in:\n{said}");
    }
    assert!(!marker.exists(), "post-install instructions are never run");

    // Offline: the copy kept answers for what it holds, and says what it cannot.
    drop(live);
    let out = box_.mcpctl(&url, &["--json", "preflight", "air-pinned"]);
    let offline: Value = serde_json::from_slice(&out.stdout).unwrap();
    let verdict = &offline["servers"][0]["registry"];
    assert_eq!(verdict["server"], "io.github.domdomegg/airtable-mcp-server");
    let unchecked = verdict["unchecked"].to_string();
    assert!(
        unchecked.contains("could not be reached") && unchecked.contains("the copy kept on"),
        "{unchecked}"
    );
    // With no copy kept at all, nothing is claimed.
    let fresh = Sandbox::new(json!({"air": stdio("npx", &["-y", "airtable-mcp-server@1.7.2"])}));
    let said = text(&fresh.mcpctl(&url, &["preflight"]));
    assert!(
        said.contains("No copy of it is kept here, so the package's status, newer versions and instructions are not checked"),
        "{said}"
    );
    assert!(!said.contains("not published in the registry"), "{said}");
}

/// A cache of npm's and one of uv's that outlive the run, so a second run fetches nothing.
fn caches() -> (String, String) {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    (
        dir.join("npm-cache").display().to_string(),
        dir.join("uv-cache").display().to_string(),
    )
}

/// The version of `package` the cache's `package.json` says, found without our code.
fn cached_npm_version(cache: &Path, package: &str) -> Option<String> {
    for run in std::fs::read_dir(cache.join("_npx")).ok()?.flatten() {
        let manifest = run
            .path()
            .join("node_modules")
            .join(package)
            .join("package.json");
        if let Ok(text) = std::fs::read_to_string(manifest) {
            let doc: Value = serde_json::from_str(&text).ok()?;
            return doc["version"].as_str().map(str::to_string);
        }
    }
    None
}

#[test]
fn pin_to_the_version_running_now_on_real_npx_and_uvx_entries() {
    let (npm_cache, uv_cache) = caches();
    let uvx = repo("tests/reference/python/current/bin/uvx");
    assert!(uvx.exists(), "uvx is missing: run `scripts/setup test`");
    let box_ = Sandbox::new(json!({
        "everything": {"type": "stdio", "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-everything", "stdio"],
            "env": {"npm_config_cache": npm_cache}},
        "time": {"type": "stdio", "command": uvx, "args": ["mcp-server-time@latest"],
            "env": {"UV_CACHE_DIR": uv_cache, "UV_PYTHON_DOWNLOADS": "never"}},
    }));
    let offline = "http://127.0.0.1:9";

    let out = box_.mcpctl(offline, &["--json", "preflight", "everything", "--pin"]);
    assert!(out.status.success(), "{}", text(&out));
    let pinned: Value = serde_json::from_slice(&out.stdout).unwrap();
    let version = pinned["version"]
        .as_str()
        .expect("the version that ran")
        .to_string();
    assert_eq!(
        Some(version.clone()),
        cached_npm_version(
            Path::new(&npm_cache),
            "@modelcontextprotocol/server-everything"
        ),
        "the version npx fetched and ran"
    );
    assert_eq!(
        box_.entry("everything")["args"],
        json!([
            "-y",
            format!("@modelcontextprotocol/server-everything@{version}"),
            "stdio"
        ])
    );
    let diff = pinned["changes"][0]["lines"].to_string();
    assert!(
        diff.contains(&format!("server-everything@{version}")),
        "the diff shown: {diff}"
    );

    let out = box_.mcpctl(offline, &["--json", "preflight", "time", "--pin"]);
    assert!(out.status.success(), "{}", text(&out));
    let pinned: Value = serde_json::from_slice(&out.stdout).unwrap();
    let version = pinned["version"]
        .as_str()
        .expect("the version that ran")
        .to_string();
    assert!(
        version.chars().next().is_some_and(|c| c.is_ascii_digit()),
        "{version}"
    );
    assert_eq!(
        box_.entry("time")["args"],
        json!([format!("mcp-server-time@{version}")])
    );

    // Both are pinned now, and say so; pinning again changes nothing.
    let said = text(&box_.mcpctl(offline, &["preflight"]));
    assert!(
        said.contains(
            "everything: npx fetches @modelcontextprotocol/server-everything from npm, version"
        ),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "time: uvx fetches mcp-server-time from PyPI, version {version} (pinned)"
        )),
        "{said}"
    );
    let again = text(&box_.mcpctl(offline, &["preflight", "time", "--pin"]));
    assert!(again.contains("is already pinned to"), "{again}");

    // Claude Code runs the pinned entries.
    let out = support::claude_cli()
        .args(["mcp", "list"])
        .current_dir(&box_.project)
        .env("HOME", &box_.home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("MCP_TIMEOUT", "60000")
        .output()
        .unwrap();
    let listed = text(&out);
    assert!(
        listed.contains("everything: npx -y @modelcontextprotocol/server-everything@")
            && listed.matches("✔ Connected").count() == 2,
        "{listed}"
    );
}
