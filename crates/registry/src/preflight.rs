//! Before a package starts: what a stdio entry will fetch, whether that is fixed, and what the
//! registry says of it.
//!
//! An entry that runs `npx`, `pnpm dlx`, `bunx`, `uvx`, `pipx run` or `docker run` downloads
//! what it runs at start, and without a version it runs whatever was published last: a server
//! approved today can be another program tomorrow, and no listing of its tools will have
//! changed before it starts. [`package_of`] reads the package, its version and whether that
//! version is fixed from the entry's words, as the runner reads them. [`running_version`] reads
//! which version the running server really is, from the files of its own processes (a
//! package's `package.json`, a Python distribution's `dist-info`), so "Pin to the version
//! running now" pins what was tried, not what the registry serves next. [`check_registry`]
//! finds the package in an MCP registry: the version's status (deprecated or deleted, with the
//! registry's message), a newer version and what it asks for that this one did not, and its
//! `postInstallInstructions`, which are text to read, never a command to run. Offline, the
//! cache answers for what it holds and the rest is said to be unchecked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::model::{Argument, Listed, Official, Package, ServerJson, Status};
use crate::Registry;

/// Where a package comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Npm,
    Pypi,
    Oci,
}

impl Ecosystem {
    /// The `registryType` of a `server.json` package.
    fn registry_type(self) -> &'static str {
        match self {
            Ecosystem::Npm => "npm",
            Ecosystem::Pypi => "pypi",
            Ecosystem::Oci => "oci",
        }
    }
}

/// The package a stdio entry fetches and runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PackageRef {
    /// `npx`, `pnpm dlx`, `bunx`, `uvx`, `pipx run` or `docker run`.
    pub runner: String,
    pub ecosystem: Ecosystem,
    /// The package (npm, PyPI) or image (OCI, without tag or digest).
    pub name: String,
    /// The version, tag or digest asked for, as written (`latest`, `^1.2`, `1.2.3`); `None`
    /// when none is.
    pub version: Option<String>,
    /// Whether the words fix what is fetched: one exact version (npm, PyPI) or a digest (OCI),
    /// of this package and of every other one it fetches, and no option this does not know.
    pub pinned: bool,
    /// Which argument names it (0-based, in the entry's `args`).
    pub arg: u32,
    /// That argument as written.
    pub spec: String,
    /// Other packages the runner fetches beside it (`-p b`, `uvx --with x`), as written.
    pub also: Vec<String>,
    /// Options of the runner this does not know, as written: what they do to what is fetched
    /// is not known, so the entry is not called pinned.
    pub unknown_options: Vec<String>,
}

/// How a runner reads its options before the package.
struct Grammar {
    /// Options that take the next word as their value.
    with_value: &'static [&'static str],
    /// Options that take no value.
    flags: &'static [&'static str],
    /// Options whose value is the package run (`-p`, `--from`, `--spec`); the first names it.
    package: &'static [&'static str],
    /// Options whose value is another package fetched beside it (`--with`).
    beside: &'static [&'static str],
    /// Options that make the runner run a shell line instead of a package.
    shell: &'static [&'static str],
    /// Single-letter options may be joined (`-it`, `-ie VAR`): docker's.
    clusters: bool,
}

const NPX: Grammar = Grammar {
    with_value: &[
        "--prefix",
        "--loglevel",
        "--registry",
        "--cache",
        "--userconfig",
        "-w",
        "--workspace",
        "--node-options",
        "--script-shell",
        "--globalconfig",
    ],
    flags: &[
        "-y",
        "--yes",
        "--no",
        "-q",
        "--quiet",
        "-s",
        "--silent",
        "--no-install",
        "--ignore-existing",
        "--prefer-offline",
        "--offline",
        "--prefer-online",
        "--verbose",
        "-d",
        "--foreground-scripts",
        "--ignore-scripts",
        "--legacy-peer-deps",
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
        "--include-workspace-root",
        "--workspaces",
        "-ws",
    ],
    package: &["-p", "--package"],
    beside: &[],
    shell: &["-c", "--call"],
    clusters: false,
};
const PNPM_DLX: Grammar = Grammar {
    with_value: &["--allow-build", "--reporter", "--dir", "-C"],
    flags: &["-s", "--silent", "--offline", "--prefer-offline"],
    package: &["--package"],
    beside: &[],
    shell: &["-c", "--shell-mode"],
    clusters: false,
};
const BUNX: Grammar = Grammar {
    with_value: &[],
    flags: &["--bun", "--no-install", "--silent", "--verbose"],
    package: &["-p", "--package"],
    beside: &[],
    shell: &[],
    clusters: false,
};
const UVX: Grammar = Grammar {
    with_value: &[
        "--with-editable",
        "--with-requirements",
        "--python",
        "-p",
        "--index",
        "--index-url",
        "-i",
        "--extra-index-url",
        "--default-index",
        "-c",
        "--constraints",
        "--overrides",
        "--python-preference",
        "--cache-dir",
        "--directory",
        "--project",
        "--find-links",
        "-f",
        "--env-file",
        "--config-file",
        "--exclude-newer",
        "--index-strategy",
        "--keyring-provider",
        "--resolution",
        "--prerelease",
        "--color",
    ],
    flags: &[
        "--offline",
        "--refresh",
        "-q",
        "--quiet",
        "-v",
        "--verbose",
        "--isolated",
        "-n",
        "--no-cache",
        "--no-config",
        "--managed-python",
        "--no-managed-python",
        "--no-python-downloads",
        "--native-tls",
        "--upgrade",
        "-U",
        "--reinstall",
        "--no-build",
        "--no-progress",
        "--no-env-file",
        "--lfs",
        "--compile-bytecode",
    ],
    package: &["--from"],
    beside: &["--with", "-w"],
    shell: &[],
    clusters: false,
};
const PIPX_RUN: Grammar = Grammar {
    with_value: &[
        "--python",
        "--pip-args",
        "--index-url",
        "-i",
        "--backend",
        "--fetch-python",
    ],
    flags: &[
        "--no-cache",
        "--verbose",
        "-v",
        "-q",
        "--quiet",
        "--system-site-packages",
        "--pypackages",
    ],
    package: &["--spec"],
    beside: &[],
    shell: &[],
    clusters: false,
};
const DOCKER_RUN: Grammar = Grammar {
    with_value: &[
        "-e",
        "--env",
        "--env-file",
        "-v",
        "--volume",
        "--mount",
        "--name",
        "--network",
        "--net",
        "-p",
        "--publish",
        "-w",
        "--workdir",
        "-u",
        "--user",
        "--entrypoint",
        "-l",
        "--label",
        "--platform",
        "-h",
        "--hostname",
        "--add-host",
        "--cpus",
        "-m",
        "--memory",
        "--pull",
        "--restart",
        "--log-driver",
        "--log-opt",
        "--device",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--tmpfs",
        "--ulimit",
        "--dns",
        "--dns-search",
        "--dns-option",
        "--gpus",
        "--ipc",
        "--pid",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--group-add",
        "--runtime",
        "--volumes-from",
        "-a",
        "--attach",
        "--cidfile",
        "--expose",
        "--label-file",
        "--ip",
        "--ip6",
        "-c",
        "--cpu-shares",
        "--sysctl",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-timeout",
        "--health-start-period",
        "--link",
        "--pids-limit",
        "--memory-swap",
        "--memory-reservation",
        "--kernel-memory",
        "--oom-score-adj",
        "--blkio-weight",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--cpu-period",
        "--cpu-quota",
        "--storage-opt",
        "--userns",
        "--uts",
        "--cgroup-parent",
        "--cgroupns",
        "--mac-address",
        "--network-alias",
        "--domainname",
        "--isolation",
        "--annotation",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-write-bps",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--memory-swappiness",
        "--detach-keys",
        "--link-local-ip",
    ],
    flags: &[
        "-i",
        "--interactive",
        "-t",
        "--tty",
        "-d",
        "--detach",
        "--rm",
        "--init",
        "--privileged",
        "--read-only",
        "-P",
        "--publish-all",
        "--no-healthcheck",
        "--oom-kill-disable",
        "--disable-content-trust",
        "-q",
        "--quiet",
    ],
    package: &[],
    beside: &[],
    shell: &[],
    clusters: true,
};

/// Reads the package an entry runs, or `None` when it runs no package this knows.
pub fn package_of(command: &str, args: &[String]) -> Option<PackageRef> {
    let program = Path::new(command)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let program = program.trim_end_matches(".cmd").trim_end_matches(".exe");
    let first = |word: &str| args.first().is_some_and(|a| a == word);
    match program {
        "npx" => read("npx", Ecosystem::Npm, &NPX, args, 0),
        "pnpx" => read("pnpm dlx", Ecosystem::Npm, &PNPM_DLX, args, 0),
        "pnpm" if first("dlx") => read("pnpm dlx", Ecosystem::Npm, &PNPM_DLX, args, 1),
        "bunx" => read("bunx", Ecosystem::Npm, &BUNX, args, 0),
        "bun" if first("x") => read("bunx", Ecosystem::Npm, &BUNX, args, 1),
        "uvx" => read("uvx", Ecosystem::Pypi, &UVX, args, 0),
        "uv" if first("tool") && args.get(1).is_some_and(|a| a == "run") => {
            read("uvx", Ecosystem::Pypi, &UVX, args, 2)
        }
        "pipx" if first("run") => read("pipx run", Ecosystem::Pypi, &PIPX_RUN, args, 1),
        "docker" | "podman" if first("run") => {
            read("docker run", Ecosystem::Oci, &DOCKER_RUN, args, 1)
        }
        _ => None,
    }
}

/// An option as read: the index of the word that holds its value (its own when it has none or
/// is written `--flag=value`), the option, and its value.
type Seen = (usize, String, Option<String>);

/// The options before the first plain word, as `grammar` reads them: each option, the index
/// of that first word, and the options it does not know (taken to have no value).
fn options(
    args: &[String],
    from: usize,
    grammar: &Grammar,
) -> (Vec<Seen>, Option<usize>, Vec<String>) {
    let (mut seen, mut unknown) = (Vec::new(), Vec::new());
    let takes = |flag: &str| {
        grammar.with_value.contains(&flag)
            || grammar.package.contains(&flag)
            || grammar.beside.contains(&flag)
    };
    let known =
        |flag: &str| takes(flag) || grammar.flags.contains(&flag) || grammar.shell.contains(&flag);
    let mut i = from;
    while i < args.len() {
        let word = &args[i];
        if word == "--" {
            return (seen, (i + 1 < args.len()).then_some(i + 1), unknown);
        }
        if !word.starts_with('-') || word == "-" {
            return (seen, Some(i), unknown);
        }
        if let Some((flag, value)) = word.split_once('=') {
            if !known(flag) {
                unknown.push(word.clone());
            }
            seen.push((i, flag.to_string(), Some(value.to_string())));
        } else if takes(word) {
            seen.push((i + 1, word.clone(), args.get(i + 1).cloned()));
            i += 1;
        } else if known(word) {
            seen.push((i, word.clone(), None));
        } else if grammar.clusters && !word.starts_with("--") && word.len() > 2 {
            // `-it`, `-ie VAR`: every letter a flag, the last one perhaps taking the value.
            let letters: Vec<String> = word[1..].chars().map(|c| format!("-{c}")).collect();
            let (last, rest) = letters.split_last().unwrap_or((&letters[0], &[]));
            if rest.iter().all(|l| grammar.flags.contains(&l.as_str())) && known(last) {
                if takes(last) {
                    seen.push((i + 1, last.clone(), args.get(i + 1).cloned()));
                    i += 1;
                } else {
                    seen.push((i, word.clone(), None));
                }
            } else {
                unknown.push(word.clone());
            }
        } else {
            unknown.push(word.clone());
        }
        i += 1;
    }
    (seen, None, unknown)
}

/// Reads an entry of one runner: its package, what else it fetches, whether all is pinned.
fn read(
    runner: &str,
    ecosystem: Ecosystem,
    grammar: &Grammar,
    args: &[String],
    from: usize,
) -> Option<PackageRef> {
    let (seen, first, unknown_options) = options(args, from, grammar);
    if seen
        .iter()
        .any(|(_, flag, _)| grammar.shell.contains(&flag.as_str()))
    {
        return None; // a shell line, not a package
    }
    let mut named = seen
        .iter()
        .filter(|(_, flag, _)| grammar.package.contains(&flag.as_str()));
    let (arg, spec) = match named.next() {
        Some((i, _, Some(spec))) => (*i, spec.clone()),
        Some((_, _, None)) => return None,
        None => (first?, args[first?].clone()),
    };
    let mut also: Vec<String> = named.filter_map(|(_, _, v)| v.clone()).collect();
    also.extend(
        seen.iter()
            .filter(|(_, flag, _)| grammar.beside.contains(&flag.as_str()))
            .filter_map(|(_, _, v)| v.clone()),
    );
    let pinned_spec = |spec: &str| match ecosystem {
        Ecosystem::Npm => {
            split_npm(spec).is_some_and(|(_, v)| v.as_deref().is_some_and(exact_semver))
        }
        Ecosystem::Pypi => split_python(spec).is_some_and(|(_, _, pinned)| pinned),
        Ecosystem::Oci => split_image(spec).2,
    };
    let (name, version) = match ecosystem {
        Ecosystem::Npm => split_npm(&spec)?,
        Ecosystem::Pypi => split_python(&spec).map(|(n, v, _)| (n, v))?,
        Ecosystem::Oci => {
            let (name, version, _) = split_image(&spec);
            (name, version)
        }
    };
    Some(PackageRef {
        runner: runner.into(),
        ecosystem,
        pinned: pinned_spec(&spec)
            && also.iter().all(|a| pinned_spec(a))
            && unknown_options.is_empty(),
        name,
        version,
        arg: arg as u32,
        spec,
        also,
        unknown_options,
    })
}

/// `@scope/name@version` or `name@version` into its parts; `None` for what is not a registry
/// package (a path, a URL, `github:owner/repo`, a tarball).
fn split_npm(spec: &str) -> Option<(String, Option<String>)> {
    let (scope, rest) = match spec.strip_prefix('@') {
        Some(rest) => ("@", rest),
        None => ("", spec),
    };
    let (name, version) = match rest.split_once('@') {
        Some((name, version)) => (name, Some(version.to_string())),
        None => (rest, None),
    };
    let name = format!("{scope}{name}");
    let plain = |s: &str| {
        !s.is_empty()
            && !s.starts_with('.')
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~'))
    };
    let ok = match name.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(s, n)| plain(s) && plain(n)),
        None => plain(&name),
    };
    ok.then_some((name, version.filter(|v| !v.is_empty())))
}

/// One semantic version and nothing else: `1.2.3`, `1.2.3-beta.1`, `1.2.3+build.5` (not a
/// range such as `1.2.3-0||>=9`, not a tag such as `latest`).
fn exact_semver(version: &str) -> bool {
    let (rest, build) = match version.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (version, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let identifiers = |s: &str| {
        s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    };
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && pre.is_none_or(identifiers)
        && build.is_none_or(identifiers)
}

/// `name`, `name==1.2`, `name@1.2`, `name[extra]>=1`: the name, what is asked for, and whether
/// that is one version.
fn split_python(spec: &str) -> Option<(String, Option<String>, bool)> {
    if spec.contains("://") || spec.starts_with("git+") || spec.contains('/') {
        return None;
    }
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let name = &spec[..end];
    if name.is_empty() {
        return None;
    }
    let mut rest = &spec[end..];
    if rest.starts_with('[') {
        rest = rest.split_once(']').map(|(_, r)| r).unwrap_or("");
    }
    let rest = rest.trim();
    let one = |v: &str| {
        !v.is_empty()
            && v != "latest"
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+' | '!'))
    };
    let (version, pinned) = if let Some(v) = rest.strip_prefix("==") {
        (Some(v.to_string()), one(v))
    } else if let Some(v) = rest.strip_prefix('@') {
        (Some(v.to_string()), one(v))
    } else if rest.is_empty() {
        (None, false)
    } else {
        (Some(rest.to_string()), false)
    };
    Some((name.to_string(), version, pinned))
}

/// `[registry/]name[:tag][@digest]`: the name, the tag or digest, and whether a digest fixes it.
fn split_image(spec: &str) -> (String, Option<String>, bool) {
    let (image, digest) = match spec.split_once('@') {
        Some((image, digest)) => (image, Some(digest.to_string())),
        None => (spec, None),
    };
    // A tag follows the last `:` after the last `/` (a `:` before it is a registry's port).
    let slash = image.rfind('/').map(|i| i + 1).unwrap_or(0);
    let (name, tag) = match image[slash..].rfind(':') {
        Some(i) => (
            &image[..slash + i],
            Some(image[slash + i + 1..].to_string()),
        ),
        None => (image, None),
    };
    let pinned = digest.is_some();
    (name.to_string(), digest.or(tag), pinned)
}

/// The argument that asks for exactly `version` of `package`, as its runner writes it.
pub fn pinned_spec(package: &PackageRef, version: &str) -> String {
    match package.ecosystem {
        Ecosystem::Npm => format!("{}@{version}", package.name),
        Ecosystem::Pypi if package.spec.contains("==") || package.runner == "pipx run" => {
            format!("{}=={version}", package.name)
        }
        Ecosystem::Pypi => format!("{}@{version}", package.name),
        Ecosystem::Oci => format!("{}@{version}", package.name),
    }
}

/// The entry's arguments with `package` asked for at exactly `version` (an option written
/// `--package=spec` keeps its option).
pub fn pinned_args(args: &[String], package: &PackageRef, version: &str) -> Vec<String> {
    let mut out = args.to_vec();
    if let Some(word) = out.get_mut(package.arg as usize) {
        let spec = pinned_spec(package, version);
        *word = match word.split_once('=') {
            Some((option, _)) if option.starts_with('-') => format!("{option}={spec}"),
            _ => spec,
        };
    }
    out
}

/// The version of `package` that the server running as process `pid` (the leader of its own
/// process group) really runs: read from the files its processes run. `None` when it cannot
/// be told (not Linux, a container, a process that has ended).
pub fn running_version(pid: u32, package: &PackageRef) -> Option<String> {
    if package.ecosystem == Ecosystem::Oci {
        return None;
    }
    group_command_lines(pid)
        .iter()
        .flatten()
        .filter(|word| word.starts_with('/'))
        .find_map(|word| match package.ecosystem {
            Ecosystem::Npm => npm_version_at(Path::new(word), &package.name),
            Ecosystem::Pypi => python_version_at(Path::new(word), &package.name),
            Ecosystem::Oci => None,
        })
}

/// The command lines of every process of the group `pid` leads.
fn group_command_lines(pid: u32) -> Vec<Vec<String>> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            // `pid (comm) state ppid pgrp …`: the name may hold spaces and parentheses.
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    s.get(s.rfind(')')? + 1..)?
                        .split_whitespace()
                        .nth(2)?
                        .parse::<u32>()
                        .ok()
                })
                == Some(pid)
        })
        .filter_map(|p| std::fs::read(format!("/proc/{p}/cmdline")).ok())
        .map(|bytes| {
            bytes
                .split(|b| *b == 0)
                .filter(|w| !w.is_empty())
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect()
        })
        .collect()
}

/// The version in the `package.json` named `name` that holds `file` (a `.bin` link is followed
/// to the package it belongs to).
fn npm_version_at(file: &Path, name: &str) -> Option<String> {
    let real = file.canonicalize().ok()?;
    let mut dir: Option<&Path> = real.parent();
    while let Some(d) = dir {
        let manifest = d.join("package.json");
        if let Some(doc) = small_json(&manifest) {
            if doc.get("name").and_then(|n| n.as_str()) == Some(name) {
                return doc.get("version")?.as_str().map(str::to_string);
            }
        }
        if d.file_name().is_some_and(|n| n == "node_modules") {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// The version of distribution `name` installed in the environment whose `bin` holds `file`
/// (`<env>/bin/python`, `<env>/bin/<script>`): its `<name>-<version>.dist-info`.
fn python_version_at(file: &Path, name: &str) -> Option<String> {
    let env = file.parent().filter(|b| b.ends_with("bin"))?.parent()?;
    let wanted = normalized(name);
    let lib = std::fs::read_dir(env.join("lib")).ok()?;
    for python in lib.flatten() {
        let site = python.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = file_name.strip_suffix(".dist-info") else {
                continue;
            };
            if let Some((dist, version)) = stem.rsplit_once('-') {
                if normalized(dist) == wanted {
                    return Some(version.to_string());
                }
            }
        }
    }
    None
}

/// PEP 503's normal form of a distribution name.
fn normalized(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// A JSON file of a package, read only when it is a small regular file.
fn small_json(path: &PathBuf) -> Option<serde_json::Value> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

/// What the registry says of a package.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RegistryVerdict {
    /// The registry asked.
    pub registry: String,
    /// The registry's name of the server that publishes this package; `None` when none does.
    pub server: Option<String>,
    /// The published version this entry runs (the one pinned or running), when it is listed.
    pub version: Option<String>,
    /// That version's status, or the latest's when the version is not known.
    pub status: Status,
    pub status_message: Option<String>,
    /// A newer version than the one run, and what it asks for differently.
    pub newer: Option<NewerVersion>,
    /// The publisher's instructions for after installing: text, never run.
    pub post_install_instructions: Option<String>,
    /// What could not be checked, and why (the registry could not be reached; only the cache
    /// answered, as of its time).
    pub unchecked: Vec<String>,
}

/// A newer version and how its required settings differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct NewerVersion {
    pub version: String,
    /// Settings it requires that the version run did not.
    pub new_required: Vec<String>,
    /// Settings the version run required that it no longer has.
    pub removed: Vec<String>,
    /// Its publisher's instructions for after installing it: text, never run.
    pub post_install_instructions: Option<String>,
}

/// Whether `package` of `server` is the one the entry runs.
fn publishes(server: &ServerJson, package: &PackageRef) -> Option<Package> {
    server
        .packages
        .iter()
        .find(|p| {
            p.registry_type
                .eq_ignore_ascii_case(package.ecosystem.registry_type())
                && same_package(&p.identifier, package)
        })
        .cloned()
}

fn same_package(identifier: &str, package: &PackageRef) -> bool {
    match package.ecosystem {
        Ecosystem::Npm => identifier == package.name,
        Ecosystem::Pypi => normalized(identifier) == normalized(&package.name),
        Ecosystem::Oci => {
            let bare = |s: &str| -> String {
                let s = s.split('@').next().unwrap_or(s);
                let slash = s.rfind('/').map(|i| i + 1).unwrap_or(0);
                let s = match s[slash..].rfind(':') {
                    Some(i) => &s[..slash + i],
                    None => s,
                };
                let s = s.strip_prefix("docker.io/").unwrap_or(s);
                s.strip_prefix("library/").unwrap_or(s).to_string()
            };
            bare(identifier) == bare(&package.name)
        }
    }
}

/// The settings a package requires: its required environment variables and arguments, by
/// name, those with a fixed value left out (they are not asked for).
fn required(package: &Package) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for var in &package.environment_variables {
        if var.input.is_required && var.input.value.is_none() {
            out.insert(var.name.clone());
        }
    }
    for arg in package
        .package_arguments
        .iter()
        .chain(&package.runtime_arguments)
    {
        let input = arg.input();
        if input.is_required && input.value.is_none() {
            out.insert(match arg {
                Argument::Named { name, .. } => name.clone(),
                Argument::Positional { value_hint, .. } => {
                    value_hint.clone().unwrap_or_else(|| "an argument".into())
                }
            });
        }
    }
    out
}

/// Finds `package` in `registry` and says what it says of `version` (the version pinned or
/// running). Online, the cache is brought up to date first and every version of the server
/// is read; offline, the cache answers and the verdict says what it could not check.
pub async fn check_registry(
    registry: &Registry,
    package: &PackageRef,
    version: Option<&str>,
) -> RegistryVerdict {
    let mut verdict = RegistryVerdict {
        registry: registry.client.base().to_string(),
        server: None,
        version: None,
        status: Status::Active,
        status_message: None,
        newer: None,
        post_install_instructions: None,
        unchecked: Vec::new(),
    };
    // The kept copy is brought up to date when it is older than a few minutes; the versions
    // of the server found are read from the registry every time.
    let kept = registry.cache.load().refreshed_at;
    let recent = kept
        .as_deref()
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(at).ok())
        .is_some_and(|at| {
            chrono::Utc::now().signed_duration_since(at) < chrono::Duration::minutes(10)
        });
    let offline = if recent {
        None
    } else {
        registry.refresh().await.err()
    };
    if let Some(err) = &offline {
        let stored = registry.cache.load();
        verdict.unchecked.push(match &stored.refreshed_at {
            Some(at) if !stored.servers.is_empty() => format!(
                "{err}. What follows is from the copy kept on {at}: a newer version or status since then, and the status of any version but the latest, are not checked."
            ),
            _ => format!(
                "{err}. No copy of it is kept here, so the package's status, newer versions and instructions are not checked."
            ),
        });
    }
    let find = |listed: &[Listed]| {
        listed.iter().find_map(|listed| match listed {
            Listed::Valid { server, official } => publishes(server, package)
                .map(|_| (server.name.clone(), (server.clone(), official.clone()))),
            Listed::Invalid { .. } => None,
        })
    };
    let mut found = find(&registry.cache.load().search(""));
    if found.is_none() && offline.is_none() {
        // A refresh keeps what can be installed; a deleted server is found by the registry's
        // own search, by the last word of the package's name.
        let word = package.name.rsplit('/').next().unwrap_or(&package.name);
        let listing = registry.search(word, None).await;
        found = find(&listing.servers);
    }
    let Some((name, latest_cached)) = found else {
        return verdict;
    };
    verdict.server = Some(name.clone());
    let versions: Vec<(ServerJson, Official)> = if offline.is_none() {
        match registry.versions(&name).await {
            Ok(all) => all
                .into_iter()
                .filter_map(|l| match l {
                    Listed::Valid { server, official } => Some((server, official)),
                    Listed::Invalid { .. } => None,
                })
                .collect(),
            Err(err) => {
                let at = registry.cache.load().refreshed_at.unwrap_or_default();
                verdict.unchecked.push(format!(
                    "{err}. What follows is from the copy kept on {at}: a newer version or status since then, and the status of any version but the latest, are not checked."
                ));
                vec![latest_cached]
            }
        }
    } else {
        vec![latest_cached]
    };
    let all_versions_known = verdict.unchecked.is_empty();
    let package_version = |s: &ServerJson| publishes(s, package).and_then(|p| p.version);
    let run = version.and_then(|v| {
        versions
            .iter()
            .find(|(s, _)| package_version(s).as_deref() == Some(v))
    });
    let latest = versions
        .iter()
        .find(|(_, o)| o.is_latest)
        .or_else(|| versions.first());
    let (shown, official) = match (run, latest) {
        (Some(run), _) => run,
        (None, Some(latest)) => latest,
        (None, None) => return verdict,
    };
    if version.is_some() && run.is_none() && all_versions_known {
        verdict.unchecked.push(format!(
            "version {} is not among the versions the registry lists for {name}",
            version.unwrap_or_default()
        ));
    }
    verdict.version = run.and_then(|(s, _)| package_version(s));
    verdict.status = official.status;
    verdict.status_message = official.status_message.clone();
    verdict.post_install_instructions = shown.post_install_instructions.clone();
    if let (Some((run_doc, _)), Some((latest_doc, _))) = (run, latest) {
        if latest_doc.version != run_doc.version {
            let before = publishes(run_doc, package)
                .map(|p| required(&p))
                .unwrap_or_default();
            let after = publishes(latest_doc, package)
                .map(|p| required(&p))
                .unwrap_or_default();
            verdict.newer = Some(NewerVersion {
                version: package_version(latest_doc).unwrap_or_else(|| latest_doc.version.clone()),
                new_required: after.difference(&before).cloned().collect(),
                removed: before.difference(&after).cloned().collect(),
                post_install_instructions: latest_doc.post_install_instructions.clone(),
            });
        }
    }
    verdict
}

/// Everything said of one entry before (or while) its package runs.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Preflight {
    pub server: String,
    pub package: PackageRef,
    /// The version the running server really is, when it runs and that can be told.
    pub running: Option<String>,
    /// The entry's arguments pinned to [`Self::running`], when that differs from what is
    /// written: what "Pin to the version running now" saves.
    pub pin_args: Option<Vec<String>>,
    pub registry: RegistryVerdict,
}

/// The preflight of the stdio entry `server` (`command`, `args`), running as process `pid`
/// when it runs; `None` when it runs no package this knows.
pub async fn preflight(
    registry: &Registry,
    server: &str,
    command: &str,
    args: &[String],
    pid: Option<u32>,
) -> Option<Preflight> {
    let package = package_of(command, args)?;
    let running = pid.and_then(|pid| running_version(pid, &package));
    let pin_args = running
        .as_deref()
        .filter(|v| !(package.pinned && package.version.as_deref() == Some(*v)))
        .map(|v| pinned_args(args, &package, v));
    let asked = if package.pinned {
        package.version.clone()
    } else {
        running.clone()
    };
    let verdict = check_registry(registry, &package, asked.as_deref()).await;
    Some(Preflight {
        server: server.to_string(),
        package,
        running,
        pin_args,
        registry: verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> (String, Vec<String>) {
        let mut all: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let command = all.remove(0);
        (command, all)
    }

    fn of(line: &str) -> Option<PackageRef> {
        let (command, args) = words(line);
        package_of(&command, &args)
    }

    #[test]
    fn each_runner_names_its_package_and_says_whether_one_version_is_fixed() {
        for (line, name, version, pinned, arg) in [
            (
                "npx -y @modelcontextprotocol/server-everything",
                "@modelcontextprotocol/server-everything",
                None,
                false,
                1,
            ),
            (
                "npx -y @scope/pkg@latest stdio",
                "@scope/pkg",
                Some("latest"),
                false,
                1,
            ),
            ("npx --yes pkg@^1.2.0", "pkg", Some("^1.2.0"), false, 1),
            ("/usr/bin/npx -y pkg@1.2.3", "pkg", Some("1.2.3"), true, 1),
            (
                "npx -p pkg@2.0.0-beta.1 pkg-bin",
                "pkg",
                Some("2.0.0-beta.1"),
                true,
                1,
            ),
            ("npx --package=pkg@3.0.0 bin", "pkg", Some("3.0.0"), true, 0),
            ("pnpm dlx pkg@1.0.0", "pkg", Some("1.0.0"), true, 1),
            ("pnpx pkg", "pkg", None, false, 0),
            ("bunx pkg@next", "pkg", Some("next"), false, 0),
            ("uvx mcp-server-time", "mcp-server-time", None, false, 0),
            (
                "uvx mcp-server-time@2026.10.19 --local-timezone UTC",
                "mcp-server-time",
                Some("2026.10.19"),
                true,
                0,
            ),
            (
                "uvx --python 3.12 mcp-server-git==2026.10.19",
                "mcp-server-git",
                Some("2026.10.19"),
                true,
                2,
            ),
            (
                "uvx --from mcp-server-fetch>=1 mcp-server-fetch",
                "mcp-server-fetch",
                Some(">=1"),
                false,
                1,
            ),
            (
                "uv tool run mcp-server-time@latest",
                "mcp-server-time",
                Some("latest"),
                false,
                2,
            ),
            ("pipx run --spec pkg==1.0 pkg", "pkg", Some("1.0"), true, 2),
            (
                "docker run -i --rm -e TOKEN mcp/github",
                "mcp/github",
                None,
                false,
                5,
            ),
            (
                "docker run -i --rm ghcr.io/o/img:latest",
                "ghcr.io/o/img",
                Some("latest"),
                false,
                3,
            ),
            (
                "docker run -i localhost:5000/img:1.2",
                "localhost:5000/img",
                Some("1.2"),
                false,
                2,
            ),
            (
                "docker run -i img@sha256:abc",
                "img",
                Some("sha256:abc"),
                true,
                2,
            ),
        ] {
            let found = of(line).unwrap_or_else(|| panic!("{line}: a package"));
            assert_eq!(
                (
                    found.name.as_str(),
                    found.version.as_deref(),
                    found.pinned,
                    found.arg
                ),
                (name, version, pinned, arg),
                "{line}"
            );
        }
        // What else is fetched, ranges that look like versions, options not known.
        for (line, name, also, pinned) in [
            ("npx -y pkg@1.2.3-0||>=9.0.0", "pkg", vec![], false),
            ("npx --package=a@1.0.0 -p b bbin", "a", vec!["b"], false),
            ("npx -p a@1.0.0 -p b@2.0.0 bbin", "a", vec!["b@2.0.0"], true),
            (
                "pnpm dlx --package a@1.0.0 --package b b",
                "a",
                vec!["b"],
                false,
            ),
            ("uvx --with evil pkg==1.0.0", "pkg", vec!["evil"], false),
            ("npx --prefix cowsay@1.0.0 evil", "evil", vec![], false),
            ("npx --loglevel warn realpkg@1.0.0", "realpkg", vec![], true),
            ("npx --some-new-flag pkg@1.0.0", "pkg", vec![], false),
            (
                "docker run --pids-limit 5 img@sha256:abc",
                "img",
                vec![],
                true,
            ),
            ("docker run -ie VAR=x img@sha256:abc", "img", vec![], true),
            ("docker run --made-up img@sha256:abc", "img", vec![], false),
        ] {
            let found = of(line).unwrap_or_else(|| panic!("{line}: a package"));
            assert_eq!(
                (
                    found.name.as_str(),
                    found.also.iter().map(String::as_str).collect::<Vec<_>>(),
                    found.pinned
                ),
                (name, also, pinned),
                "{line}"
            );
        }
        for line in [
            "node server.js",
            "npx -c 'echo hi'",
            "npx ./local-folder",
            "npx github:owner/repo",
            "uvx git+https://github.com/o/r",
            "docker ps",
            "npx -y",
        ] {
            assert_eq!(of(line), None, "{line}");
        }
    }

    #[test]
    fn a_pin_is_written_as_its_runner_reads_it() {
        for (line, version, pinned) in [
            ("npx -y @scope/pkg@latest", "1.2.3", "@scope/pkg@1.2.3"),
            (
                "uvx mcp-server-time",
                "2026.10.19",
                "mcp-server-time@2026.10.19",
            ),
            (
                "uvx mcp-server-git==1",
                "2026.10.19",
                "mcp-server-git==2026.10.19",
            ),
            ("pipx run pkg", "1.0", "pkg==1.0"),
            ("docker run -i img:latest", "sha256:abc", "img@sha256:abc"),
        ] {
            assert_eq!(pinned_spec(&of(line).unwrap(), version), pinned, "{line}");
        }
        let (command, args) = words("npx --yes --package=pkg@latest pkg-bin --flag");
        let package = package_of(&command, &args).unwrap();
        assert_eq!(
            pinned_args(&args, &package, "3.1.0"),
            ["--yes", "--package=pkg@3.1.0", "pkg-bin", "--flag"]
        );
    }
}
