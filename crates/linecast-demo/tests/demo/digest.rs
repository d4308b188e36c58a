//! The named-books work (issue 77) adds `books/{sport}.csv` and nothing
//! else: every other object of `generate()` stays byte-identical. The
//! digests below were printed before the books were added.

use std::collections::BTreeMap;

use linecast_demo::window_releases;
use linecast_domain::Sport;

use crate::{fixture_options, fixture_store, small};

/// FNV-1a 64 over every object's key and bytes, in key order, leaving out
/// the `books/` objects.
fn digest(store: &BTreeMap<String, Vec<u8>>) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (key, bytes) in store.iter().filter(|(k, _)| !k.starts_with("books/")) {
        for b in key.bytes().chain([0]).chain(bytes.iter().copied()).chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

#[test]
fn every_object_but_the_books_is_byte_identical_to_before_the_books() {
    let fixture = digest(fixture_store());
    let other = digest(&small(42, "2026-11-21"));
    println!("fixture {fixture:016x} small(42, 2026-11-21) {other:016x}");
    assert_eq!(fixture, PINNED_FIXTURE, "fixture store digest {fixture:016x}");
    assert_eq!(other, PINNED_SMALL, "small(42) digest {other:016x}");
}

#[test]
fn every_window_release_but_the_books_is_byte_identical_to_before_the_books() {
    let mut objects = BTreeMap::new();
    for sport in [Sport::Nba, Sport::Nhl] {
        for (key, at, bytes) in window_releases(&fixture_options(), sport) {
            objects.insert(format!("{key}@{}", at.timestamp()), bytes);
        }
    }
    let window = digest(&objects);
    println!("window {window:016x}");
    assert_eq!(window, PINNED_WINDOW, "window digest {window:016x}");
}

const PINNED_FIXTURE: u64 = 0xd1b7_ec97_5a52_4929;
const PINNED_SMALL: u64 = 0x00e2_3e3d_bf9b_9630;
const PINNED_WINDOW: u64 = 0x6d76_1c16_1492_49fd;
