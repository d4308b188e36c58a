use super::at;
use crate::close::*;

const START: i64 = 1_800_000_000;

fn timeline(points: &[(i64, &'static str)]) -> Vec<Captured<&'static str>> {
    points
        .iter()
        .map(|(secs, value)| Captured {
            captured_at: at(*secs),
            value: *value,
        })
        .collect()
}

fn closing(points: &[(i64, &'static str)], now: i64) -> (Result<&'static str, NoCloseReason>, bool) {
    let t = timeline(points);
    let c = close(&t, at(START), at(now));
    (c.quote.map(|q| q.value), c.provisional)
}

fn opened(points: &[(i64, &'static str)]) -> Result<&'static str, NoCloseReason> {
    opening(&timeline(points), at(START)).map(|q| q.value)
}

#[test]
fn the_reasons_have_snake_case_codes() {
    assert_eq!(NoCloseReason::NoQuotes.code(), "no_quotes");
    assert_eq!(
        NoCloseReason::NeverQuotedBeforeStart.code(),
        "never_quoted_before_start"
    );
}

#[test]
fn the_close_is_the_last_quote_strictly_before_the_start() {
    let points = [
        (START - 3600, "open"),
        (START - 60, "last"),
        (START - 600, "middle"),
        (START, "at start"),
        (START + 60, "in play"),
    ];
    assert_eq!(closing(&points, START + 7200), (Ok("last"), false));
    assert_eq!(opened(&points), Ok("open"));
    // One second before the start counts; the start itself does not.
    let points = [(START - 1, "just before"), (START, "at start")];
    assert_eq!(closing(&points, START + 1), (Ok("just before"), false));
    assert_eq!(
        opened(&[(START, "at start"), (START - 1, "just before")]),
        Ok("just before")
    );
}

#[test]
fn the_close_is_provisional_until_the_start() {
    let points = [(START - 3600, "open"), (START - 1800, "latest")];
    assert_eq!(closing(&points, START - 1000), (Ok("latest"), true));
    assert_eq!(closing(&points, START - 1), (Ok("latest"), true));
    assert_eq!(closing(&points, START), (Ok("latest"), false));
    assert_eq!(closing(&[], START - 1), (Err(NoCloseReason::NoQuotes), true));
}

#[test]
fn a_book_that_never_quoted_before_the_start_has_no_close_and_says_why() {
    assert_eq!(closing(&[], START + 10), (Err(NoCloseReason::NoQuotes), false));
    assert_eq!(opened(&[]), Err(NoCloseReason::NoQuotes));
    let late = [(START, "at start"), (START + 60, "in play")];
    assert_eq!(
        closing(&late, START + 100),
        (Err(NoCloseReason::NeverQuotedBeforeStart), false)
    );
    assert_eq!(opened(&late), Err(NoCloseReason::NeverQuotedBeforeStart));
    assert_eq!(
        closing(&[(START, "at start")], START + 100),
        (Err(NoCloseReason::NeverQuotedBeforeStart), false)
    );
}

#[test]
fn equal_capture_instants_close_on_the_last_received_and_open_on_the_first() {
    let points = [
        (START - 500, "first"),
        (START - 500, "second"),
        (START - 100, "third"),
        (START - 100, "fourth"),
    ];
    assert_eq!(closing(&points, START + 1).0, Ok("fourth"));
    assert_eq!(opened(&points), Ok("first"));
}
