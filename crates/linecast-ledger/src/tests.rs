//! The chain rule against roots computed independently: every expected
//! root below is the SHA-256 of the bytes docs/payloads.md ("Ledger")
//! describes, computed with Python's `hashlib` from the text written out
//! here and pasted in, never with this crate's code.
#![allow(clippy::unwrap_used)]

use super::*;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn date(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn entry(published_at: &str, series: &str, digest: char) -> Entry {
    Entry {
        published_at: at(published_at),
        series: series.to_owned(),
        digest: digest.to_string().repeat(64),
    }
}

fn a() -> Entry {
    entry("2026-11-12T14:00:00.123456Z", "nba/predictions/won_on_points", 'a')
}
fn b() -> Entry {
    entry("2026-11-12T14:00:00.123456Z", "nba/odds", 'b')
}
fn c() -> Entry {
    entry("2026-11-12T09:30:00Z", "nfl/odds", 'c')
}
/// Published on the 11th, recorded after the 11th... was sealed: late.
fn d() -> Entry {
    entry("2026-11-11T23:59:59.999Z", "nhl/predictions/spread", 'd')
}
fn e() -> Entry {
    entry("2026-11-14T00:00:00Z", "nba/odds", 'e')
}
fn f() -> Entry {
    entry("2026-11-15T23:59:59.000001Z", "mlb/odds", 'f')
}

/// sha256("0"*64 + "\n" + line(c) + line(b) + line(a)).
const ROOT_12: &str = "0fe0e304eac15f965bff503d7b2bd8c141b8cb4ea7b45104cdac8d3340cde1d3";
/// sha256(ROOT_12 + "\n"): a day without releases.
const ROOT_13: &str = "c09322d03cbe31a9fb8fa6fac5ca13f1f8052e266efa29c61ecc11c18223c9dc";
/// sha256(ROOT_13 + "\n" + line(e)).
const ROOT_14: &str = "18ce800344a8fdd681ac5da140d61126290bbaf5fece9e0e257b31c498639126";
/// sha256(ROOT_14 + "\n" + line(f) + line(d)): its release, then the late one.
const ROOT_15: &str = "373654c735255534bb18a9859a9d25eab9a4671cc90f3ec791a6eaf9e6e9c9b8";

#[test]
fn a_line_is_the_exact_instant_the_series_and_the_digest_tab_separated() {
    assert_eq!(
        a().line(),
        format!(
            "2026-11-12T14:00:00.123456Z\tnba/predictions/won_on_points\t{}\n",
            "a".repeat(64)
        )
    );
    assert_eq!(
        c().line(),
        format!("2026-11-12T09:30:00Z\tnfl/odds\t{}\n", "c".repeat(64))
    );
    assert_eq!(d().day(), date("2026-11-11"));
    assert_eq!(f().day(), date("2026-11-15"));
}

#[test]
fn a_day_is_ordered_by_instant_then_series_then_digest() {
    let mut list = vec![a(), c(), b()];
    order(&mut list);
    assert_eq!(list, [c(), b(), a()]);
    let mut same = vec![
        entry("2026-11-12T14:00:00Z", "nba/odds", '2'),
        entry("2026-11-12T14:00:00Z", "nba/odds", '1'),
    ];
    order(&mut same);
    assert_eq!(same[0].digest, "1".repeat(64));
    // An instant, not its text: `…00.5Z` sorts after `…00Z`.
    let mut text = vec![
        entry("2026-11-12T14:00:00.5Z", "a", '1'),
        entry("2026-11-12T14:00:00Z", "b", '2'),
    ];
    order(&mut text);
    assert_eq!(text[0].series, "b");
}

#[test]
fn roots_are_the_hashes_of_the_documented_bytes() {
    assert_eq!(GENESIS, "0".repeat(64));
    assert_eq!(root(GENESIS, &[c(), b(), a()], &[]), ROOT_12);
    assert_eq!(root(ROOT_12, &[], &[]), ROOT_13);
    assert_eq!(root(ROOT_13, &[e()], &[]), ROOT_14);
    assert_eq!(root(ROOT_14, &[f()], &[d()]), ROOT_15);
    // Order and the previous root are part of the bytes.
    assert_ne!(root(GENESIS, &[a(), b(), c()], &[]), ROOT_12);
    assert_ne!(root(ROOT_13, &[], &[e()]), ROOT_15);
}

#[test]
fn sealing_orders_the_lists_and_a_changed_list_no_longer_verifies() {
    let day = Day::seal(date("2026-11-12"), GENESIS, vec![a(), b(), c()], Vec::new());
    assert_eq!(day.releases, [c(), b(), a()]);
    assert_eq!(day.root, ROOT_12);
    assert_eq!(day.previous, GENESIS);
    assert_eq!(day.count(), 3);
    assert!(day.verifies());
    let mut changed = day.clone();
    changed.releases[1].digest = "0".repeat(64);
    assert!(!changed.verifies());
    let late = Day::seal(date("2026-11-15"), ROOT_14, vec![f()], vec![d()]);
    assert_eq!((late.root.as_str(), late.count()), (ROOT_15, 2));
}

#[test]
fn a_day_is_sealed_an_hour_after_it_ends() {
    assert_eq!(start(date("2026-11-14")), at("2026-11-14T00:00:00Z"));
    assert_eq!(last_sealable(at("2026-11-15T01:00:00Z")), date("2026-11-14"));
    assert_eq!(last_sealable(at("2026-11-15T00:59:59.999999Z")), date("2026-11-13"));
    assert_eq!(last_sealable(at("2026-11-15T23:59:59Z")), date("2026-11-14"));
}

#[test]
fn the_first_sealing_starts_at_the_oldest_release_and_seals_every_day_through_the_last_due() {
    let pending = vec![e(), a(), f(), c(), b()];
    let days = plan(None, pending, at("2026-11-15T01:00:00Z"));
    let dates: Vec<NaiveDate> = days.iter().map(|d| d.date).collect();
    assert_eq!(dates, [date("2026-11-12"), date("2026-11-13"), date("2026-11-14")]);
    let roots: Vec<&str> = days.iter().map(|d| d.root.as_str()).collect();
    assert_eq!(roots, [ROOT_12, ROOT_13, ROOT_14]);
    assert_eq!(days[0].previous, GENESIS);
    assert_eq!(days[1].previous, ROOT_12);
    assert!(days[1].releases.is_empty() && days[1].late.is_empty());
    assert_eq!(days[2].releases, [e()]);
    assert!(days.iter().all(|d| d.late.is_empty()));
}

#[test]
fn a_release_recorded_after_its_day_was_sealed_is_late_in_the_next_day_sealed() {
    let days = plan(
        Some((date("2026-11-14"), ROOT_14)),
        vec![f(), d()],
        at("2026-11-16T01:00:00Z"),
    );
    assert_eq!(days.len(), 1);
    assert_eq!(days[0].date, date("2026-11-15"));
    assert_eq!(days[0].previous, ROOT_14);
    assert_eq!((days[0].releases.clone(), days[0].late.clone()), (vec![f()], vec![d()]));
    assert_eq!(days[0].root, ROOT_15);
    // Published on the sealed day itself, recorded after its sealing: late too.
    let g = entry("2026-11-14T23:59:00Z", "nba/odds", 'g');
    let days = plan(
        Some((date("2026-11-14"), ROOT_14)),
        vec![f(), g.clone()],
        at("2026-11-16T01:00:00Z"),
    );
    assert_eq!((days[0].releases.clone(), days[0].late.clone()), (vec![f()], vec![g]));
}

#[test]
fn nothing_is_sealed_before_a_day_is_due() {
    // The 15th is not due until 01:00 on the 16th: f and the late d wait.
    assert!(
        plan(
            Some((date("2026-11-14"), ROOT_14)),
            vec![f(), d()],
            at("2026-11-16T00:59:00Z")
        )
        .is_empty()
    );
    // Nothing kept: nothing to seal.
    assert!(plan(None, Vec::new(), at("2026-11-16T01:00:00Z")).is_empty());
    // A first sealing whose releases are all of today: nothing due.
    assert!(plan(None, vec![f()], at("2026-11-15T23:00:00Z")).is_empty());
}

#[test]
fn days_without_releases_are_sealed_so_a_past_day_never_gains_a_root() {
    let days = plan(
        Some((date("2026-11-12"), ROOT_12)),
        Vec::new(),
        at("2026-11-14T01:00:00Z"),
    );
    let sealed: Vec<(NaiveDate, &str)> = days.iter().map(|d| (d.date, d.root.as_str())).collect();
    assert_eq!(sealed, [(date("2026-11-13"), ROOT_13)]);
    // A later sealing chains from there and keeps today's release pending.
    let next = plan(
        Some((date("2026-11-13"), ROOT_13)),
        vec![e(), f()],
        at("2026-11-15T01:00:00Z"),
    );
    assert_eq!(next.len(), 1);
    assert_eq!((next[0].root.as_str(), next[0].releases.clone()), (ROOT_14, vec![e()]));
}
