//! Which addresses a document from the network may make MCP Manager fetch.
//!
//! A server's metadata names other documents (RFC 9728 `resource_metadata`, RFC 8414
//! `authorization_servers`) and a registry's `server.json` names icons; each is a URL its
//! author chose. Fetching one from the person's computer must not let that author probe the
//! person's network: a public document never makes us reach loopback, private or link-local
//! addresses, or a cloud metadata endpoint (169.254.169.254, `metadata.google.internal`).
//! This is rmcp's policy for OAuth discovery; the doctor follows it for the documents it
//! reads and the registry for icons, so both sit here, below the crates that use them.
//!
//! The address is judged as written (an IP literal or a name), not as resolved: a name that
//! resolves to a private address is not caught here.

use std::net::IpAddr;

use url::{Host, Url};

/// Why a URL may not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchRefused {
    #[error("not a URL ({0})")]
    NotAUrl(String),
    #[error("not an http(s) address")]
    NotHttp,
    #[error("it would leave https for http")]
    LeavesHttps,
    #[error("it is an address on a private, loopback or link-local network (or a cloud metadata endpoint) that the server is not on")]
    Internal,
}

/// Whether `candidate`, named by the document served at `named_by`, may be fetched; the URL
/// to fetch (a relative candidate is joined to `named_by`). The document's own origin is
/// fine; otherwise http(s) only, never from https down to http, and hosts that are not on
/// the internet only when `named_by` is itself on this computer.
pub fn may_fetch(named_by: &Url, candidate: &str) -> Result<Url, FetchRefused> {
    let url = Url::parse(candidate)
        .or_else(|_| named_by.join(candidate))
        .map_err(|err| FetchRefused::NotAUrl(err.to_string()))?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return Err(FetchRefused::NotHttp);
    }
    if url.origin() == named_by.origin() {
        return Ok(url);
    }
    if named_by.scheme() == "https" && url.scheme() != "https" {
        return Err(FetchRefused::LeavesHttps);
    }
    let host = url.host().expect("checked");
    if !is_internal(&host)
        || (named_by.host().is_some_and(|h| is_loopback(&h)) && is_loopback(&host))
    {
        return Ok(url);
    }
    Err(FetchRefused::Internal)
}

/// Loopback, private, link-local, shared (100.64/10), unspecified, broadcast and multicast
/// addresses, `localhost` and cloud metadata names.
pub fn is_internal(host: &Host<&str>) -> bool {
    let ip: IpAddr = match host {
        Host::Ipv4(ip) => (*ip).into(),
        Host::Ipv6(ip) => (*ip).into(),
        Host::Domain(name) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            return name == "localhost"
                || name.ends_with(".localhost")
                || [
                    "metadata",
                    "metadata.google.internal",
                    "metadata.azure.internal",
                ]
                .contains(&name.as_str());
        }
    };
    match ip {
        IpAddr::V4(ip) => {
            ip.is_private()
                || ip.is_loopback()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.is_multicast()
                || ip.octets()[0] == 0
                || (ip.octets()[0] == 100 && (64..=127).contains(&ip.octets()[1]))
        }
        IpAddr::V6(ip) => {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || ip.is_multicast()
                || (first & 0xffc0) == 0xfe80
                || (first & 0xfe00) == 0xfc00
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| v4.is_private() || v4.is_loopback() || v4.is_link_local())
        }
    }
}

fn is_loopback(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(name) => *name == "localhost" || name.ends_with(".localhost"),
        Host::Ipv4(ip) => ip.is_loopback(),
        Host::Ipv6(ip) => ip.is_loopback(),
    }
}
