//! The settlement rule (docs/decisions.md, "One settlement rule"): a final
//! is disputed, pending or provisional exactly as its `settlement_status`
//! spells it; anything else, null included, is settled; the count is per
//! status over the rows given.

use linecast_domain::SeasonRow;

use super::fixtures::game;
use crate::settlement::{Settlement, Unsettled};

fn with_status(status: Option<&str>) -> SeasonRow {
    let mut row = game("2026-11-01", "away", "home");
    row.settlement_status = status.map(Into::into);
    row
}

#[test]
fn each_status_is_read_exactly_as_spelled() {
    assert_eq!(Settlement::of(&with_status(Some("disputed"))), Settlement::Disputed);
    assert_eq!(Settlement::of(&with_status(Some("pending"))), Settlement::Pending);
    assert_eq!(
        Settlement::of(&with_status(Some("provisional"))),
        Settlement::Provisional
    );
    for settled in [None, Some("settled"), Some("Disputed"), Some(""), Some("void")] {
        assert_eq!(
            Settlement::of(&with_status(settled)),
            Settlement::Settled,
            "{settled:?}"
        );
    }
}

#[test]
fn unsettled_finals_are_counted_per_status() {
    // 1 disputed, 2 pending, 3 provisional, 2 settled (one null).
    let statuses = [
        Some("pending"),
        Some("provisional"),
        Some("disputed"),
        None,
        Some("provisional"),
        Some("settled"),
        Some("pending"),
        Some("provisional"),
    ];
    let rows: Vec<SeasonRow> = statuses.iter().map(|s| with_status(*s)).collect();
    assert_eq!(
        Unsettled::of(&rows),
        Unsettled {
            disputed: 1,
            pending: 2,
            provisional: 3,
        }
    );
    assert_eq!(Unsettled::of(&rows[3..4]), Unsettled::default());
}
