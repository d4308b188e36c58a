use chrono::TimeDelta;

use super::at;
use crate::events::*;

#[test]
fn event_types_are_named_as_issue_78_names_them() {
    let names = [
        (EventType::ReleasePublished, "release.published"),
        (EventType::DataStatusChanged, "data_status.changed"),
        (EventType::QuotaThreshold, "quota.threshold"),
        (EventType::KeyExpiring, "key.expiring"),
        (EventType::EndpointDisabled, "webhook.endpoint_disabled"),
    ];
    for (event, name) in names {
        assert_eq!(event.code(), name);
        assert_eq!(EventType::parse(name), Some(event));
    }
    assert_eq!(EventType::ALL.len(), 5);
    for unknown in [
        "",
        "release",
        "Release.Published",
        "release.published ",
        "endpoint_disabled",
    ] {
        assert_eq!(EventType::parse(unknown), None, "{unknown:?}");
    }
}

#[test]
fn an_account_may_have_ten_endpoints() {
    assert!(may_add_endpoint(0));
    assert!(may_add_endpoint(9));
    assert!(!may_add_endpoint(10));
    assert!(!may_add_endpoint(11));
    assert_eq!(MAX_ENDPOINTS_PER_ACCOUNT, 10);
}

#[test]
fn usage_crossing_fifty_eighty_and_a_hundred_percent_is_notified_once_each() {
    let q = 1000;
    assert_eq!(quota_thresholds_crossed(0, 499, q), Vec::<u8>::new());
    assert_eq!(quota_thresholds_crossed(0, 500, q), [50]);
    assert_eq!(quota_thresholds_crossed(499, 500, q), [50]);
    assert_eq!(quota_thresholds_crossed(500, 501, q), Vec::<u8>::new());
    assert_eq!(quota_thresholds_crossed(500, 799, q), Vec::<u8>::new());
    assert_eq!(quota_thresholds_crossed(799, 800, q), [80]);
    assert_eq!(quota_thresholds_crossed(999, 1000, q), [100]);
    assert_eq!(quota_thresholds_crossed(800, 2000, q), [100]);
    assert_eq!(quota_thresholds_crossed(0, 1000, q), [50, 80, 100]);
    assert_eq!(quota_thresholds_crossed(1000, 5000, q), Vec::<u8>::new());
    assert_eq!(quota_thresholds_crossed(600, 100, q), Vec::<u8>::new());
}

#[test]
fn the_thresholds_reached_are_counted_exactly() {
    // 50 %, 80 % and 100 % of 1000 calls are 500, 800 and 1000.
    let q = 1000;
    for (used, reached) in [
        (0, 0),
        (499, 0),
        (500, 1),
        (799, 1),
        (800, 2),
        (999, 2),
        (1000, 3),
        (9000, 3),
    ] {
        assert_eq!(quota_thresholds_reached(used, q), reached, "{used} of {q}");
    }
    // 50 % of 3 is 1.5 calls, 80 % 2.4: 2 calls reach one, 3 all three.
    assert_eq!(quota_thresholds_reached(1, 3), 0);
    assert_eq!(quota_thresholds_reached(2, 3), 1);
    assert_eq!(quota_thresholds_reached(3, 3), 3);
    // A quota of 0 is reached from the start.
    assert_eq!(quota_thresholds_reached(0, 0), 3);
}

#[test]
fn thresholds_are_exact_for_quotas_that_do_not_divide() {
    // 50 % of 3 is 1.5 calls: 2 reach it, 1 does not; 80 % is 2.4 calls.
    assert_eq!(quota_thresholds_crossed(0, 1, 3), Vec::<u8>::new());
    assert_eq!(quota_thresholds_crossed(1, 2, 3), [50]);
    assert_eq!(quota_thresholds_crossed(2, 3, 3), [80, 100]);
    // 80 % of 7 is 5.6 calls.
    assert_eq!(quota_thresholds_crossed(5, 6, 7), [80]);
    // No overflow at the largest counts.
    assert_eq!(quota_thresholds_crossed(0, u64::MAX, u64::MAX), [50, 80, 100]);
    assert_eq!(quota_thresholds_crossed(u64::MAX / 2, u64::MAX / 2 + 1, u64::MAX), [50]);
    // A quota of 0 is never crossed.
    assert_eq!(quota_thresholds_crossed(0, 10, 0), Vec::<u8>::new());
}

#[test]
fn a_key_is_notified_seven_days_and_one_day_before_it_expires_once_each() {
    let expires = at(1_790_000_000);
    let before = |secs: i64| expires - TimeDelta::seconds(secs);
    let day = 86_400;
    assert_eq!(key_notice_due(expires, None, before(8 * day)), None);
    assert_eq!(key_notice_due(expires, None, before(7 * day + 1)), None);
    assert_eq!(
        key_notice_due(expires, None, before(7 * day)),
        Some(KeyNotice::SevenDays)
    );
    assert_eq!(
        key_notice_due(expires, None, before(2 * day)),
        Some(KeyNotice::SevenDays)
    );
    assert_eq!(
        key_notice_due(expires, Some(KeyNotice::SevenDays), before(2 * day)),
        None
    );
    assert_eq!(
        key_notice_due(expires, Some(KeyNotice::SevenDays), before(day + 1)),
        None
    );
    assert_eq!(
        key_notice_due(expires, Some(KeyNotice::SevenDays), before(day)),
        Some(KeyNotice::OneDay)
    );
    assert_eq!(key_notice_due(expires, Some(KeyNotice::OneDay), before(day)), None);
    assert_eq!(key_notice_due(expires, Some(KeyNotice::OneDay), before(2 * day)), None);
    // First seen within a day: the one-day notice only.
    assert_eq!(key_notice_due(expires, None, before(1)), Some(KeyNotice::OneDay));
    // Expired: nothing.
    assert_eq!(key_notice_due(expires, None, expires), None);
    assert_eq!(key_notice_due(expires, None, before(-1)), None);
    assert_eq!(KeyNotice::SevenDays.days(), 7);
    assert_eq!(KeyNotice::OneDay.days(), 1);
}

#[test]
fn deliveries_are_ordered_per_endpoint_and_game() {
    assert_eq!(ordering_key(Lane::Sport("nba")), "sport/nba");
    assert_eq!(ordering_key(Lane::Account), "account");
    assert_eq!(ordering_key(Lane::Test("msg_1")), "test/msg_1");
    assert_ne!(ordering_key(Lane::Sport("nba")), ordering_key(Lane::Sport("nfl")));
    assert_ne!(ordering_key(Lane::Test("msg_1")), ordering_key(Lane::Test("msg_2")));
}

#[test]
fn the_portal_previews_the_first_four_kilobytes_of_a_body() {
    assert_eq!(truncate_body(b""), b"");
    let a = |n: usize| vec![b'a'; n];
    assert_eq!(truncate_body(&a(4095)).len(), 4095);
    assert_eq!(truncate_body(&a(4096)).len(), 4096);
    assert_eq!(truncate_body(&a(4097)), &a(4096)[..]);
    assert_eq!(truncate_body(&a(100_000)).len(), 4096);
}

#[test]
fn a_text_preview_ends_before_a_character_the_cut_would_split() {
    // "é" is 2 bytes, "€" 3: the cut at 4096 falls inside each here.
    let mut e_acute = vec![b'a'; 4095];
    e_acute.extend("é".as_bytes());
    assert_eq!(truncate_body(&e_acute), &e_acute[..4095]);
    let mut euro = vec![b'a'; 4094];
    euro.extend("€ and more".as_bytes());
    assert_eq!(truncate_body(&euro), &euro[..4094]);
    // A character ending at the cut is kept.
    let mut whole = vec![b'a'; 4093];
    whole.extend("€€".as_bytes());
    assert_eq!(truncate_body(&whole), &whole[..4096]);
}

#[test]
fn a_binary_preview_is_cut_at_the_byte() {
    let mut binary = vec![0xff];
    binary.extend(vec![b'a'; 4093]);
    binary.extend("€€".as_bytes());
    assert_eq!(truncate_body(&binary), &binary[..4096]);
}
