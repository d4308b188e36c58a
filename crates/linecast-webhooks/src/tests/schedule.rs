use std::time::Duration;

use super::at;
use crate::schedule::*;

const NOW: i64 = 1_790_000_000;

fn response(status: u16) -> Outcome {
    Outcome::Response {
        status,
        retry_after: None,
    }
}

fn asking(status: u16, secs: u64) -> Outcome {
    Outcome::Response {
        status,
        retry_after: Some(Duration::from_secs(secs)),
    }
}

fn retry_in_millis(millis: i64) -> Decision {
    Decision::RetryAt(at(NOW) + chrono::TimeDelta::milliseconds(millis))
}

#[test]
fn the_timeout_is_fifteen_seconds() {
    assert_eq!(TIMEOUT, Duration::from_secs(15));
}

#[test]
fn the_unjittered_delays_are_the_specifications_nine() {
    let delays: Vec<Option<Duration>> = (1..=10).map(|attempt| delay(attempt, 0.5)).collect();
    let expected = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400].map(|s| Some(Duration::from_secs(s)));
    assert_eq!(delays[..9], expected);
    assert_eq!(delays[9], None);
    assert_eq!(delay(11, 0.5), None);
    assert_eq!(delay(u32::MAX, 0.5), None);
    // An attempt counted from 0 by mistake is taken as the first.
    assert_eq!(delay(0, 0.5), Some(Duration::from_secs(5)));
}

#[test]
fn jitter_spreads_a_delay_over_eighty_to_one_hundred_and_twenty_percent() {
    assert_eq!(delay(1, 0.0), Some(Duration::from_secs(4)));
    assert_eq!(delay(1, 0.75), Some(Duration::from_millis(5_500)));
    assert_eq!(delay(1, 0.25), Some(Duration::from_millis(4_500)));
    // floor(0.999 × 400) = 399: 119.9 % of 5 min.
    assert_eq!(delay(2, 0.999), Some(Duration::from_millis(359_700)));
    assert_eq!(delay(9, 0.0), Some(Duration::from_secs(69_120)));
    // Draws outside [0, 1] are clamped.
    assert_eq!(delay(1, 1.5), Some(Duration::from_secs(6)));
    assert_eq!(delay(1, -1.0), Some(Duration::from_secs(4)));
}

#[test]
fn a_2xx_is_delivered_whatever_the_attempt() {
    for status in [200, 201, 204, 299] {
        assert_eq!(next_attempt(1, response(status), at(NOW), 0.5), Decision::Delivered);
        assert_eq!(next_attempt(10, response(status), at(NOW), 0.5), Decision::Delivered);
    }
}

#[test]
fn a_410_disables_the_endpoint() {
    assert_eq!(next_attempt(1, response(410), at(NOW), 0.5), Decision::Disable);
    assert_eq!(next_attempt(10, response(410), at(NOW), 0.5), Decision::Disable);
    assert_eq!(next_attempt(3, asking(410, 60), at(NOW), 0.5), Decision::Disable);
}

#[test]
fn other_statuses_timeouts_and_failed_connections_are_retried_on_the_schedule() {
    for outcome in [
        response(199),
        response(300),
        response(301),
        response(400),
        response(404),
        response(409),
        response(411),
        response(500),
        Outcome::Timeout,
        Outcome::ConnectFailed,
    ] {
        assert_eq!(
            next_attempt(1, outcome, at(NOW), 0.5),
            retry_in_millis(5_000),
            "{outcome:?}"
        );
        assert_eq!(
            next_attempt(4, outcome, at(NOW), 0.0),
            retry_in_millis(5_760_000),
            "{outcome:?}"
        );
        assert_eq!(next_attempt(10, outcome, at(NOW), 0.5), Decision::Failed, "{outcome:?}");
    }
}

#[test]
fn retry_after_on_a_429_or_503_slows_the_retry_up_to_a_day() {
    assert_eq!(next_attempt(1, asking(429, 60), at(NOW), 0.5), retry_in_millis(60_000));
    assert_eq!(next_attempt(1, asking(503, 60), at(NOW), 0.5), retry_in_millis(60_000));
    // Never sooner than the schedule.
    assert_eq!(next_attempt(2, asking(503, 10), at(NOW), 0.5), retry_in_millis(300_000));
    assert_eq!(next_attempt(1, asking(429, 0), at(NOW), 0.5), retry_in_millis(5_000));
    // Capped at 24 h.
    assert_eq!(
        next_attempt(1, asking(429, 48 * 3600), at(NOW), 0.5),
        retry_in_millis(86_400_000)
    );
    assert_eq!(
        next_attempt(1, asking(429, 86_401), at(NOW), 0.5),
        retry_in_millis(86_400_000)
    );
    // The last delay jittered up is longer than the cap, and wins.
    assert_eq!(
        next_attempt(9, asking(429, 48 * 3600), at(NOW), 0.999),
        retry_in_millis(103_593_600)
    );
    // It still uses up an attempt.
    assert_eq!(next_attempt(10, asking(503, 60), at(NOW), 0.5), Decision::Failed);
    // Without Retry-After, the schedule.
    assert_eq!(next_attempt(1, response(429), at(NOW), 0.5), retry_in_millis(5_000));
}

#[test]
fn retry_after_on_another_status_is_ignored() {
    for status in [500, 502, 504, 400] {
        assert_eq!(
            next_attempt(1, asking(status, 60), at(NOW), 0.5),
            retry_in_millis(5_000)
        );
    }
}

#[test]
fn retry_after_is_read_as_seconds_or_an_http_date() {
    let now = at(1_445_412_470); // 2015-10-21T07:27:50Z
    assert_eq!(parse_retry_after("120", now), Some(Duration::from_secs(120)));
    assert_eq!(parse_retry_after(" 120 ", now), Some(Duration::from_secs(120)));
    assert_eq!(parse_retry_after("0", now), Some(Duration::ZERO));
    assert_eq!(parse_retry_after("99999999999999999999999", now), Some(Duration::MAX));
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now),
        Some(Duration::from_secs(10))
    );
    assert_eq!(
        parse_retry_after("Wednesday, 21-Oct-15 07:28:00 GMT", now),
        Some(Duration::from_secs(10))
    );
    assert_eq!(
        parse_retry_after("Wed Oct 21 07:28:00 2015", now),
        Some(Duration::from_secs(10))
    );
    // A date already past is no wait.
    assert_eq!(
        parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now),
        Some(Duration::ZERO)
    );
    for unreadable in ["", " ", "-5", "1.5", "soon", "12s"] {
        assert_eq!(parse_retry_after(unreadable, now), None, "{unreadable:?}");
    }
}

#[test]
fn failures_lasting_five_days_disable_the_endpoint() {
    let five_days = 5 * 24 * 3600;
    assert!(disables_endpoint(at(NOW - five_days), at(NOW)));
    assert!(disables_endpoint(at(NOW - five_days - 1), at(NOW)));
    assert!(!disables_endpoint(at(NOW - five_days + 1), at(NOW)));
    assert!(!disables_endpoint(at(NOW), at(NOW)));
    assert!(!disables_endpoint(at(NOW + 10), at(NOW)));
}
