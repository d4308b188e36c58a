//! The committed fixture store and the generator's determinism.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use linecast_demo::{GenOptions, Profile, ensure_demo_store, generate, write_dir};

use crate::{fixture_options, small};

const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/store");

fn read_tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let key = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(key, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("linecast-demo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn regenerating_the_small_fixture_is_byte_identical_to_the_committed_store() {
    let committed = read_tree(Path::new(FIXTURE_DIR));
    let generated: BTreeMap<String, Vec<u8>> = generate(&fixture_options(), &mut |_| {}).into_iter().collect();
    // The named books' objects (`books/`) are new: a committed store
    // regenerated before them has none, and is otherwise unchanged by them
    // (`digest.rs` pins that). Once the store is regenerated with them, they
    // are compared like every other object.
    let has_books = committed.keys().any(|k| k.starts_with("books/"));
    let generated: BTreeMap<String, Vec<u8>> = generated
        .into_iter()
        .filter(|(k, _)| has_books || !k.starts_with("books/"))
        .collect();
    let committed_keys: Vec<_> = committed.keys().collect();
    let generated_keys: Vec<_> = generated.keys().collect();
    assert_eq!(
        committed_keys, generated_keys,
        "fixtures/store has other objects than the generator; regenerate it (see fixtures/README.md)"
    );
    for (key, bytes) in &generated {
        assert!(
            &committed[key] == bytes,
            "{key} differs from the committed fixture; regenerate it (see fixtures/README.md)"
        );
    }
}

#[test]
fn two_runs_with_the_same_options_are_identical_and_another_seed_differs() {
    let a = small(7, "2026-11-15");
    let b = small(7, "2026-11-15");
    assert!(a == b);
    let c = small(8, "2026-11-15");
    assert_eq!(a.keys().collect::<Vec<_>>(), c.keys().collect::<Vec<_>>());
    assert!(a["seasons/nba/won_on_points/2025-26.csv"] != c["seasons/nba/won_on_points/2025-26.csv"]);
    // Team tables and the catalog do not depend on the seed.
    assert!(a["teams/nba.csv"] == c["teams/nba.csv"]);
}

#[test]
fn progress_is_reported_once_per_planned_step() {
    let opts = fixture_options();
    let mut steps = Vec::new();
    generate(&opts, &mut |s| steps.push(s.to_owned()));
    assert_eq!(steps.len() as u64, linecast_demo::planned_steps(&opts));
    assert!(steps.contains(&"nba 2026-27".to_owned()));
}

#[test]
fn write_dir_puts_every_object_at_its_key_and_leaves_no_temp_files() {
    let dir = scratch_dir("write");
    let objects = vec![
        ("a/b/c.csv".to_owned(), b"x\n".to_vec()),
        ("top.json".to_owned(), b"{}".to_vec()),
    ];
    write_dir(&dir, &objects).unwrap();
    let tree = read_tree(&dir);
    assert_eq!(tree.len(), 2);
    assert_eq!(tree["a/b/c.csv"], b"x\n");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ensure_demo_store_leaves_a_non_empty_directory_alone() {
    let dir = scratch_dir("ensure");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("keep.txt"), b"mine").unwrap();
    let now = fixture_options().today.and_hms_opt(17, 0, 0).unwrap().and_utc();
    let generated = ensure_demo_store(&dir, now).unwrap();
    assert!(!generated);
    assert_eq!(read_tree(&dir).len(), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_small_store_stays_under_three_megabytes() {
    let total: usize = small(7, "2026-11-15").values().map(Vec::len).sum();
    assert!(total < 3_000_000, "{total} bytes");
    assert_eq!(
        GenOptions {
            profile: Profile::Small,
            ..fixture_options()
        },
        fixture_options()
    );
}

/// Every `YYYY-MM-DD?HH:MM:SS` instant written in `text` (`T` or a space
/// between date and time), read as UTC. A held game (`date time away@home`,
/// an ET start, not an instant) is followed by a space and is left out.
fn instants(text: &str) -> Vec<chrono::NaiveDateTime> {
    let b = text.as_bytes();
    let shape = |w: &[u8]| {
        w.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T' || *c == b' ',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        })
    };
    (0..b.len().saturating_sub(18))
        .filter(|&i| shape(&b[i..i + 19]) && b.get(i + 19) != Some(&b' '))
        .filter_map(|i| {
            let t = text[i..i + 19].replace(' ', "T");
            chrono::NaiveDateTime::parse_from_str(&t, "%Y-%m-%dT%H:%M:%S").ok()
        })
        .collect()
}

#[test]
fn no_generated_instant_lies_after_the_wall_clock_it_was_generated_at() {
    // Early on the fixture date (ET), before the day's planned release
    // (13:30 UTC), odds updates (12:00 to 14:59) and market captures (15:05).
    let now = fixture_options().today.and_hms_opt(9, 15, 0).unwrap().and_utc();
    let opts = GenOptions {
        not_after: Some(now),
        ..fixture_options()
    };
    let objects = generate(&opts, &mut |_| {});
    let mut today_seen = 0;
    for (key, bytes) in &objects {
        let text = String::from_utf8_lossy(bytes);
        for at in instants(&text) {
            assert!(at <= now.naive_utc(), "{key}: {at} is after {now}");
            today_seen += usize::from(at.date() == now.date_naive());
        }
    }
    assert!(today_seen > 0, "today's release, odds and captures are stamped");
    // Without the cap the plan is kept: the same objects hold later times.
    let planned = generate(&fixture_options(), &mut |_| {});
    let later = planned
        .iter()
        .flat_map(|(_, bytes)| instants(&String::from_utf8_lossy(bytes)))
        .filter(|at| *at > now.naive_utc())
        .count();
    assert!(later > 0);
}
