//! The Line Move signal, worked by hand for each market.

use linecast_domain::{LineField, ModelType};

use super::fixtures::{RowExt, game};
use crate::line_move;

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

#[test]
fn moneyline_move_is_the_change_in_the_home_price_single_price_implied_probability() {
    // Opened +100 (1/2 = 0.5), now −150 (150/250 = 0.6): +0.1 toward home.
    let row = game("2026-11-01", "a", "b")
        .ml(-150.0, 130.0)
        .line(LineField::OpenHomeMoneyLine, 100.0);
    assert!(close(line_move(&row, ModelType::WonOnPoints), 0.1));
    // An opener of 0 is the feeds' placeholder: no opener, no move.
    let placeholder = row.clone().line(LineField::OpenHomeMoneyLine, 0.0);
    assert_eq!(line_move(&placeholder, ModelType::WonOnPoints), None);
    // An invalid recorded price (between −100 and +100) gives no move.
    let invalid = row.line(LineField::HomeMoneyLine, 50.0);
    assert_eq!(line_move(&invalid, ModelType::WonOnPoints), None);
}

#[test]
fn spread_move_is_the_opener_minus_the_recorded_home_spread() {
    // Opened −2.5, now −4: −2.5 − (−4) = +1.5, home got more expensive.
    let row = game("2026-11-01", "a", "b")
        .spread(-4.0, -110.0, -110.0)
        .line(LineField::OpenHomePointSpread, -2.5);
    assert!(close(line_move(&row, ModelType::WonOnSpread), 1.5));
    let no_opener = game("2026-11-01", "a", "b").spread(-4.0, -110.0, -110.0);
    assert_eq!(line_move(&no_opener, ModelType::WonOnSpread), None);
}

#[test]
fn totals_move_is_the_recorded_total_minus_the_opener() {
    // Opened 221, now 218.5: −2.5, toward the under.
    let row = game("2026-11-01", "a", "b")
        .total(218.5, -110.0, -110.0)
        .line(LineField::OpenOverUnder, 221.0);
    assert!(close(line_move(&row, ModelType::OverUnder), -2.5));
    let placeholder = row.line(LineField::OpenOverUnder, 0.0);
    assert_eq!(line_move(&placeholder, ModelType::OverUnder), None);
}
