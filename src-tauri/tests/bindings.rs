//! The committed TypeScript bindings (`ui/src/bindings.ts`) must equal what the Rust command
//! and type definitions generate now; CI fails on drift. To regenerate after changing a
//! command or a type that crosses the boundary:
//! `UPDATE_BINDINGS=1 cargo test --test bindings`.

use std::path::Path;

use mcp_manager_app::{bindings_builder, typescript, BINDINGS_PATH};

#[test]
fn committed_bindings_match_the_rust_definitions() {
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(BINDINGS_PATH);
    let scratch = tempfile::tempdir().expect("a temporary folder");
    let fresh_path = scratch.path().join("bindings.ts");
    bindings_builder()
        .export(typescript(), &fresh_path)
        .expect("the bindings export");
    let fresh = std::fs::read_to_string(&fresh_path).expect("the exported bindings");
    assert!(
        fresh.contains("listServers") && fresh.contains("export type ApiError"),
        "the export must contain the commands and the error type:\n{fresh}"
    );

    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::write(&committed_path, &fresh).expect("writing the bindings");
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == fresh,
        "{BINDINGS_PATH} is out of date with the Rust definitions; regenerate it with \
         `UPDATE_BINDINGS=1 cargo test --test bindings` and commit it"
    );
}
