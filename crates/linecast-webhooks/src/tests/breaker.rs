use std::time::Duration;

use super::at;
use crate::breaker::*;

const T: i64 = 1_790_000_000;

fn failed(times: u32, now: i64) -> Breaker {
    let mut breaker = Breaker::new();
    for _ in 0..times {
        breaker.failure(at(now));
    }
    breaker
}

#[test]
fn a_new_breaker_is_closed_and_lets_attempts_through() {
    let mut breaker = Breaker::default();
    assert_eq!(breaker, Breaker::new());
    assert_eq!(breaker.state(), State::Closed { failures: 0 });
    assert!(breaker.allow(at(T)));
    assert!(breaker.allow(at(T)));
}

#[test]
fn four_failures_in_a_row_keep_it_closed_and_the_fifth_opens_it_for_a_minute() {
    let mut breaker = failed(4, T);
    assert_eq!(breaker.state(), State::Closed { failures: 4 });
    assert!(breaker.allow(at(T)));
    breaker.failure(at(T));
    assert_eq!(breaker.state(), State::Open { until: at(T + 60) });
    assert!(!breaker.allow(at(T)));
    assert!(!breaker.allow(at(T + 59)));
    assert_eq!(breaker.state(), State::Open { until: at(T + 60) });
}

#[test]
fn a_success_forgets_the_failures_counted() {
    let mut breaker = failed(4, T);
    breaker.success();
    assert_eq!(breaker.state(), State::Closed { failures: 0 });
    for _ in 0..4 {
        breaker.failure(at(T));
    }
    assert_eq!(breaker.state(), State::Closed { failures: 4 });
}

#[test]
fn after_the_cool_down_one_probe_goes_out_and_nothing_else() {
    let mut breaker = failed(5, T);
    assert!(breaker.allow(at(T + 60)));
    assert_eq!(breaker.state(), State::HalfOpen);
    assert!(!breaker.allow(at(T + 61)));
    assert!(!breaker.allow(at(T + 10_000)));
}

#[test]
fn a_successful_probe_closes_the_breaker_and_resets_the_cool_down() {
    let mut breaker = failed(5, T);
    assert!(breaker.allow(at(T + 60)));
    breaker.failure(at(T + 61));
    assert_eq!(
        breaker.state(),
        State::Open {
            until: at(T + 61 + 120)
        }
    );
    assert!(breaker.allow(at(T + 181)));
    breaker.success();
    assert_eq!(breaker.state(), State::Closed { failures: 0 });
    assert!(breaker.allow(at(T + 182)));
    for _ in 0..5 {
        breaker.failure(at(T + 200));
    }
    assert_eq!(breaker.state(), State::Open { until: at(T + 260) });
}

#[test]
fn each_failed_probe_doubles_the_cool_down_up_to_an_hour() {
    let mut breaker = failed(5, T);
    let mut now = T + 60;
    let mut waits = Vec::new();
    for _ in 0..8 {
        assert!(breaker.allow(at(now)));
        breaker.failure(at(now));
        let State::Open { until } = breaker.state() else {
            panic!("a failed probe opens the breaker")
        };
        waits.push((until - at(now)).num_seconds());
        now = until.timestamp();
    }
    assert_eq!(waits, [120, 240, 480, 960, 1920, 3600, 3600, 3600]);
}

#[test]
fn a_late_failure_while_open_changes_nothing() {
    let mut breaker = failed(5, T);
    breaker.failure(at(T + 30));
    assert_eq!(breaker.state(), State::Open { until: at(T + 60) });
    assert!(breaker.allow(at(T + 60)));
    breaker.failure(at(T + 60));
    assert_eq!(breaker.state(), State::Open { until: at(T + 180) });
}

#[test]
fn the_cool_down_is_a_minute_doubled_per_trip_at_most_an_hour() {
    let secs = |trips| cool_down(trips).as_secs();
    assert_eq!(secs(0), 60);
    assert_eq!(secs(1), 60);
    assert_eq!(secs(2), 120);
    assert_eq!(secs(3), 240);
    assert_eq!(secs(6), 1920);
    assert_eq!(secs(7), 3600);
    assert_eq!(secs(8), 3600);
    assert_eq!(secs(u32::MAX), 3600);
    assert_eq!(cool_down(1), Duration::from_secs(60));
}
