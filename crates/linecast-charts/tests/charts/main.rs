//! The charts seen from outside: figures in, SVG out, the same bytes for
//! the same figures (`snapshots/`, rewritten by `UPDATE_SNAPSHOTS=1`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bars;
mod reliability;

use std::path::PathBuf;

/// Asserts `svg` is the snapshot `name`, or rewrites it under
/// `UPDATE_SNAPSHOTS=1`.
pub fn assert_snapshot(name: &str, svg: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/charts/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, svg).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    assert!(
        expected == svg,
        "{name} differs from its snapshot; review and run with UPDATE_SNAPSHOTS=1"
    );
}
