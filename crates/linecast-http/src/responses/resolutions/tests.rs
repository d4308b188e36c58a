#![allow(clippy::unwrap_used)]

use super::*;

fn body(text: &str) -> Arc<Rendered> {
    Arc::new(Rendered::from_json(bytes::Bytes::from(text.to_owned())))
}

fn date(day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, 11, day).unwrap()
}

fn key(route: &str, params: &(impl Hash + ?Sized), day: u32) -> Box<[u8]> {
    let mut key = Vec::new();
    write_key(&mut key, route, params, date(day));
    key.into_boxed_slice()
}

#[test]
fn a_resolution_is_served_for_one_ttl_then_not() {
    let memo = Resolutions::new(Duration::from_secs(1));
    let t0 = Instant::now();
    memo.put_at(key("predictions", &("nba", true), 23), body("a"), t0);
    let hit = |at: Duration| memo.get_at(&key("predictions", &("nba", true), 23), t0 + at);
    assert_eq!(hit(Duration::ZERO).unwrap().json().as_ref(), b"a");
    assert!(hit(Duration::from_millis(999)).is_some());
    assert!(hit(Duration::from_secs(1)).is_none(), "expired at exactly one TTL");
}

#[test]
fn every_input_of_the_key_tells_resolutions_apart() {
    let memo = Resolutions::new(Duration::from_mins(1));
    let t0 = Instant::now();
    memo.put_at(key("predictions", &("nba", true), 23), body("a"), t0);
    let at = |k: Box<[u8]>| memo.get_at(&k, t0);
    assert!(at(key("predictions", &("nba", true), 23)).is_some());
    assert!(at(key("predictions", &("nba", false), 23)).is_none(), "parameters");
    assert!(at(key("predictions", &("nba", true), 24)).is_none(), "ET date");
    assert!(at(key("results", &("nba", true), 23)).is_none(), "route");
}

#[test]
fn the_public_get_and_put_agree_and_a_zero_ttl_keeps_nothing() {
    let memo = Resolutions::new(Duration::from_mins(1));
    memo.put("odds", &("nhl",), date(23), body("b"));
    assert_eq!(memo.get("odds", &("nhl",), date(23)).unwrap().json().as_ref(), b"b");
    memo.clear();
    assert!(memo.get("odds", &("nhl",), date(23)).is_none());

    let off = Resolutions::new(Duration::ZERO);
    off.put("odds", &("nhl",), date(23), body("b"));
    assert!(off.get("odds", &("nhl",), date(23)).is_none());
    assert_eq!(off.len(), 0);
}

#[test]
fn expired_entries_are_swept_by_a_later_store_so_they_hold_no_body() {
    let memo = Resolutions::new(Duration::from_secs(1));
    let t0 = Instant::now();
    let old = body("old");
    memo.put_at(key("a", &1, 23), old.clone(), t0);
    memo.put_at(key("b", &2, 23), body("b"), t0 + Duration::from_millis(600));
    assert_eq!(memo.len(), 2, "no sweep within a TTL of the last");
    memo.put_at(key("c", &3, 23), body("c"), t0 + Duration::from_millis(1_500));
    assert_eq!(memo.len(), 2, "a expired and was swept; b and c stay");
    assert_eq!(Arc::strong_count(&old), 1, "the memo let go of the expired body");
}

#[test]
fn the_memo_never_holds_more_than_its_bound() {
    let memo = Resolutions::new(Duration::from_mins(1));
    let t0 = Instant::now();
    let shared = body("x");
    for i in 0..=MAX_ENTRIES {
        memo.put_at(key("r", &i, 23), shared.clone(), t0);
    }
    assert!(memo.len() <= MAX_ENTRIES, "{}", memo.len());
    assert!(
        memo.get_at(&key("r", &MAX_ENTRIES, 23), t0).is_some(),
        "the newest is kept"
    );
}

/// The key is the parameters' `Hash` stream, so it must tell apart values
/// whose parts only differ in where one ends and the next begins, and
/// values of the closed sets a route is parameterized by.
#[test]
fn parameters_that_differ_only_in_their_boundaries_get_different_keys() {
    use linecast_domain::{ModelType, Sport};
    let pairs = [
        (key("r", &("ab", "c"), 23), key("r", &("a", "bc"), 23)),
        (key("r", &(Some(""), "x"), 23), key("r", &(None::<&str>, "x"), 23)),
        (
            key("r", &(vec![1_u8, 2], vec![3_u8]), 23),
            key("r", &(vec![1_u8], vec![2_u8, 3]), 23),
        ),
        (key("ro", &("ute",), 23), key("r", &("oute",), 23)),
        (
            key("r", &(Sport::Nba, ModelType::OverUnder), 23),
            key("r", &(Sport::Nba, ModelType::WonOnPoints), 23),
        ),
        (key("r", &(Sport::Nba, true), 23), key("r", &(Sport::Nhl, true), 23)),
        (key("r", &(1_u32, 0_u32), 23), key("r", &(0_u32, 256_u32), 23)),
    ];
    for (i, (a, b)) in pairs.iter().enumerate() {
        assert_ne!(a, b, "pair {i}");
    }
    // Equal values write equal keys, however they were built.
    assert_eq!(
        key("r", &(String::from("nba"), Some(3_u8)), 23),
        key("r", &("nba", Some(3_u8)), 23)
    );
}
