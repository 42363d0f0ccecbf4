//! The registry client, cache and install plans against the registry on loopback
//! (`tests/fixtures/registry/registry-server.mjs`) serving 32 real server.json documents.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use mcp_manager_core::Scope;
use mcp_manager_registry::install::{self, Answers, Choice};
use mcp_manager_registry::{Listed, Query, Registry, RegistryError, Status};

struct Served {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/registry")
}

fn serve(dir: &Path, extra: &[&str]) -> Served {
    let log = dir.join("requests.log");
    let mut child = Command::new("node")
        .arg(fixtures().join("registry-server.mjs"))
        .arg("--log")
        .arg(&log)
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs the registry");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().strip_prefix("listening ").expect("a port");
    Served {
        child,
        url: format!("http://127.0.0.1:{port}"),
        log,
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

async fn every_page(registry: &Registry, query: Query) -> Vec<Listed> {
    let mut query = query;
    let mut out = Vec::new();
    loop {
        let page = registry.client.list(&query).await.unwrap();
        out.extend(page.servers);
        match page.next_cursor {
            Some(next) => query.cursor = Some(next),
            None => return out,
        }
    }
}

#[test]
fn every_document_is_read_paged_and_searched_and_a_malformed_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &["--malformed"]);
    let registry = Registry::open(&served.url, dir.path()).unwrap();
    runtime().block_on(async {
        let all = every_page(
            &registry,
            Query {
                limit: Some(7),
                ..Query::default()
            },
        )
        .await;
        let valid: Vec<_> = all
            .iter()
            .filter(|l| matches!(l, Listed::Valid { .. }))
            .collect();
        assert!(valid.len() >= 32, "{} valid documents", valid.len());
        let kinds: std::collections::BTreeSet<String> = valid
            .iter()
            .flat_map(|l| match l {
                Listed::Valid { server, .. } => server
                    .packages
                    .iter()
                    .map(|p| p.registry_type.clone())
                    .chain(server.remotes.iter().map(|r| format!("remote {}", r.kind)))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .collect();
        for kind in ["npm", "pypi", "nuget", "oci", "mcpb", "remote streamable-http", "remote sse"] {
            assert!(kinds.contains(kind), "{kind} in {kinds:?}");
        }
        let malformed = all
            .iter()
            .find(|l| l.name() == "io.github.example/malformed")
            .expect("the malformed entry is listed");
        assert!(
            matches!(malformed, Listed::Invalid { problem, .. } if problem.contains("missing field `transport`")),
            "{malformed:?}"
        );
        let refused = registry
            .installable("io.github.example/malformed", None)
            .await
            .unwrap_err();
        assert!(matches!(refused, RegistryError::Invalid { .. }), "{refused}");

        // Paging went through the cursor 7 at a time.
        let log = std::fs::read_to_string(&served.log).unwrap();
        assert!(log.lines().filter(|l| l.contains("cursor=")).count() >= 4, "{log}");

        let found = registry.search("airtable", None).await;
        assert_eq!(found.as_of, None);
        assert_eq!(found.servers.len(), 1, "latest only");
        assert_eq!(found.servers[0].version(), "1.7.3");
        let versions = registry
            .versions("io.github.domdomegg/airtable-mcp-server")
            .await
            .unwrap();
        let numbers: Vec<&str> = versions.iter().map(Listed::version).collect();
        assert_eq!(numbers, vec!["1.7.3", "1.7.2"], "newest first");
        assert!(matches!(
            registry.installable("io.github.nobody/nothing", None).await,
            Err(RegistryError::NotFound { .. })
        ));
    });
}

#[test]
fn the_cache_answers_offline_and_a_refresh_asks_only_for_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let mut served = serve(
        dir.path(),
        &[
            "--delete",
            "io.github.0xsims/rubric-protocol=Moved to another name",
        ],
    );
    let registry = Registry::open(&served.url, dir.path()).unwrap();
    runtime().block_on(async {
        let first = registry.refresh().await.unwrap();
        assert!(!first.incremental);
        assert!(first.held >= 30, "{first:?}");

        // The deleted entry came with the first full refresh? No: the full listing leaves
        // deleted servers out; a refresh after its deletion brings it, marked.
        let client = reqwest_post(
            &served.url,
            "/_control/update",
            r#"{"name":"io.github.domdomegg/time-mcp-pypi","description":"Now newer."}"#,
        );
        client.await;
        std::fs::write(&served.log, "").unwrap();
        let second = registry.refresh().await.unwrap();
        assert!(second.incremental);
        let log = std::fs::read_to_string(&served.log).unwrap();
        assert!(log.contains("updated_since="), "{log}");
        assert!(
            !log.contains("version=latest"),
            "only changes were asked for: {log}"
        );
        assert!(second.changed >= 1 && second.changed < 5, "{second:?}");
        let held = registry.cached("time-mcp-pypi");
        assert_eq!(held.servers[0].version(), "1.0.7");

        let deleted = registry.search("rubric", None).await;
        assert!(
            matches!(&deleted.servers[0], Listed::Valid { official, .. }
                if official.status == Status::Deleted
                    && official.status_message.as_deref() == Some("Moved to another name")),
            "{:?}",
            deleted.servers
        );
        assert!(matches!(
            registry
                .installable("io.github.0xsims/rubric-protocol", None)
                .await,
            Err(RegistryError::Deleted { .. })
        ));

        // The registry goes away: the cache answers, with its time and why.
        let _ = served.child.kill();
        let _ = served.child.wait();
        let offline = registry.search("airtable", None).await;
        assert!(offline.as_of.is_some());
        assert!(
            offline
                .offline
                .as_deref()
                .unwrap_or("")
                .contains("could not be reached"),
            "{offline:?}"
        );
        assert_eq!(
            offline.servers[0].name(),
            "io.github.domdomegg/airtable-mcp-server"
        );
    });
}

async fn reqwest_post(base: &str, path: &str, body: &str) {
    let status = Command::new("curl")
        .args([
            "-s",
            "-o",
            "/dev/null",
            "-X",
            "POST",
            "-d",
            body,
            &format!("{base}{path}"),
        ])
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_failing_registry_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &[]);
    runtime().block_on(async {
        reqwest_post(&served.url, "/_control/fail", r#"{"status":503}"#).await;
        let registry = Registry::open(&served.url, dir.path()).unwrap();
        let err = registry.refresh().await.unwrap_err();
        assert!(
            err.to_string().contains("answered 503")
                && err.to_string().contains("failing on purpose"),
            "{err}"
        );
        assert!(Registry::open("file:///etc/passwd", dir.path()).is_err());
    });
}

#[test]
fn every_choice_of_every_document_gets_its_questions_and_a_plan_or_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let served = serve(dir.path(), &[]);
    let registry = Registry::open(&served.url, dir.path()).unwrap();
    let all = runtime().block_on(every_page(&registry, Query::default()));
    let mut planned = 0;
    for listed in &all {
        let Listed::Valid { server, .. } = listed else {
            continue;
        };
        let choices = (0..server.packages.len() as u32)
            .map(Choice::Package)
            .chain((0..server.remotes.len() as u32).map(Choice::Remote));
        for choice in choices {
            let fields = install::fields(server, choice).unwrap();
            // Every required question answered with a value of its kind.
            let answers = Answers {
                values: fields
                    .iter()
                    .filter(|f| f.secret || (f.required && f.default.is_none()))
                    .map(|f| {
                        if f.secret && f.choices.is_empty() {
                            return (f.key.clone(), format!("s3cret-{}", f.key));
                        }
                        let value = f.choices.first().cloned().unwrap_or_else(|| {
                            match f.format.as_deref() {
                                Some("number") => "1".into(),
                                Some("boolean") => "true".into(),
                                _ => "answer".into(),
                            }
                        });
                        (f.key.clone(), value)
                    })
                    .collect(),
                ..Answers::default()
            };
            match install::plan(
                server,
                choice,
                Scope::Project,
                &answers,
                "x",
                "mcpctl secret-header x",
            ) {
                Ok(plan) => {
                    planned += 1;
                    let text = plan.entry.to_string();
                    assert!(
                        !text.contains("s3cret-"),
                        "{}: a secret reached .mcp.json: {text}",
                        server.name
                    );
                }
                Err(install::InstallError::Unsupported(why)) => {
                    assert!(
                        why.contains("MCPB") || why.contains("serves MCP over"),
                        "{why}"
                    );
                }
                Err(other) => panic!("{} {choice:?}: {other}", server.name),
            }
        }
    }
    assert!(planned >= 30, "{planned} plans");
}
