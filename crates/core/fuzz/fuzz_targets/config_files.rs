//! Any bytes as a configuration file: parsing, reading every scope's shape, `${...}`
//! expansion, JSONC stripping and re-rendering must never panic, and a file that parses must
//! survive a render-and-parse round trip unchanged.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use mcp_manager_core::config::document::{parse, render, Layout};
use mcp_manager_core::config::entry::servers_at;
use mcp_manager_core::config::expand::{expand_config, expand_str};
use mcp_manager_core::config::interop::strip_jsonc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let path = Path::new("fuzz.json");
    let lookup = |name: &str| (name.len() % 3 == 0).then(|| name.repeat(2));
    let mut missing = Vec::new();
    let _ = expand_str(text, &lookup, "fuzz", &mut missing);
    let _ = strip_jsonc(text);
    if let Ok(value) = parse(path, text) {
        let layout = Layout::of(text);
        let again = parse(path, &render(&value, &layout)).expect("rendered JSON parses");
        assert_eq!(again, value, "render then parse is lossless");
        for keys in [&["mcpServers"][..], &["projects", "/p", "mcpServers"]] {
            if let Ok(entries) = servers_at(path, &value, keys) {
                for (_, entry) in entries {
                    if let Ok(config) = entry {
                        let _ = config.target();
                        let _ = config.content_hash();
                        let _ = expand_config(&config, &lookup);
                    }
                }
            }
        }
    }
});
