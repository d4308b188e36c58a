//! The demo's past week: earlier versions of a predictions or odds object,
//! one every [`PAST_EVERY`] back over [`PAST_SPAN`], whose probabilities,
//! prices and lines walk back from the current version, so `as_of` and a
//! game's history have movement to show from the first run. Every instant
//! lies before `now`.

use chrono::{DateTime, Duration, DurationRound, Utc};

use crate::rng::{Rng, fnv};

/// How often a past version was published.
pub const PAST_EVERY: Duration = Duration::hours(2);
/// How far back the past versions reach.
pub const PAST_SPAN: Duration = Duration::days(7);

/// What a column of a predictions or odds CSV holds, for the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Walk {
    /// A model probability (an upper-case column such as BLEND).
    Probability,
    /// An American price of the current line.
    Price,
    /// The current total.
    Total,
    /// The away team's current spread (the home spread mirrors it).
    AwaySpread,
    HomeSpread,
    /// The odds' `last_updated` stamp (`YYYY-MM-DD HH:MM:SS`, UTC).
    Stamp,
    /// Anything else (keys, openers, extras): kept.
    Kept,
}

fn walk_of(name: &str) -> Walk {
    let model = !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    match name {
        _ if model => Walk::Probability,
        _ if name.starts_with("open_") => Walk::Kept,
        "over_under" => Walk::Total,
        "away_point_spread" => Walk::AwaySpread,
        "home_point_spread" => Walk::HomeSpread,
        "last_updated" => Walk::Stamp,
        _ if name.ends_with("_line") => Walk::Price,
        _ => Walk::Kept,
    }
}

/// The versions of the object `key` (current bytes `current`) published
/// every [`PAST_EVERY`] before `now` over [`PAST_SPAN`], newest first.
/// Deterministic in `seed`, `key` and the current bytes.
pub fn past_versions(key: &str, current: &[u8], now: DateTime<Utc>, seed: u64) -> Vec<(DateTime<Utc>, Vec<u8>)> {
    let Ok(text) = std::str::from_utf8(current) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let walks: Vec<Walk> = header.split(',').map(walk_of).collect();
    let mut rows: Vec<Vec<String>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect();
    let mut rng = Rng::stream(seed, &format!("past {key} {}", fnv(text)));
    let newest = now.duration_trunc(Duration::minutes(1)).unwrap_or(now);
    let steps = PAST_SPAN.num_seconds() / PAST_EVERY.num_seconds();
    let mut out = Vec::new();
    for k in 1..=steps {
        let at = newest - PAST_EVERY * i32::try_from(k).unwrap_or(i32::MAX);
        for row in &mut rows {
            step_back(row, &walks, at, &mut rng);
        }
        let mut body = String::with_capacity(text.len());
        body.push_str(header);
        body.push('\n');
        for row in &rows {
            body.push_str(&row.join(","));
            body.push('\n');
        }
        out.push((at, body.into_bytes()));
    }
    out
}

/// One step of the walk back in time for one row.
fn step_back(row: &mut [String], walks: &[Walk], at: DateTime<Utc>, rng: &mut Rng) {
    let move_spread = rng.chance(0.08);
    let spread_step = if rng.chance(0.5) { 0.5 } else { -0.5 };
    for (cell, walk) in row.iter_mut().zip(walks) {
        if cell.is_empty() {
            continue;
        }
        match walk {
            Walk::Probability => {
                if let Ok(p) = cell.parse::<f64>() {
                    let moved = (p + 0.006 * rng.normal()).clamp(0.02, 0.98);
                    *cell = format!("{moved:.4}");
                }
            }
            Walk::Price => {
                if let Ok(price) = cell.parse::<f64>() {
                    *cell = format!("{}", walk_price(price, rng));
                }
            }
            Walk::Total => {
                if rng.chance(0.08)
                    && let Ok(total) = cell.parse::<f64>()
                {
                    let moved = total + if rng.chance(0.5) { 0.5 } else { -0.5 };
                    *cell = format!("{moved}");
                }
            }
            Walk::AwaySpread | Walk::HomeSpread => {
                if move_spread && let Ok(points) = cell.parse::<f64>() {
                    let step = if *walk == Walk::AwaySpread {
                        spread_step
                    } else {
                        -spread_step
                    };
                    *cell = format!("{}", points + step);
                }
            }
            Walk::Stamp => {
                let stamp = at.format("%Y-%m-%d %H:%M:%S").to_string();
                if stamp < *cell {
                    *cell = stamp;
                }
            }
            Walk::Kept => {}
        }
    }
}

/// An American price moved by a few cents, staying on its side (a price
/// between -100 and +100 does not exist).
fn walk_price(price: f64, rng: &mut Rng) -> i64 {
    #[expect(clippy::cast_possible_truncation, reason = "American prices are small whole numbers")]
    let moved = (price + (4.0 * rng.normal()).round()) as i64;
    if price >= 100.0 {
        moved.max(100)
    } else {
        moved.min(-100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> DateTime<Utc> {
        DateTime::parse_from_rfc3339("2026-11-21T17:03:30Z")
            .unwrap()
            .with_timezone(&Utc)
    }

    const PREDICTIONS: &str = "date,time_est,away_team,home_team,away_money_line,home_money_line,open_away_money_line,open_home_money_line,BLEND,CATB\n\
2026-11-21,19:30:00,a,b,117,-140,107,-128,0.5973,\n";

    #[test]
    fn a_week_of_versions_every_two_hours_all_before_now_that_move_and_keep_what_is_fixed() {
        let versions = past_versions("predictions/nba/won_on_points.csv", PREDICTIONS.as_bytes(), now(), 42);
        assert_eq!(versions.len(), 84);
        assert_eq!(
            versions[0].0,
            DateTime::parse_from_rfc3339("2026-11-21T15:03:00Z").unwrap()
        );
        assert_eq!(
            versions[83].0,
            DateTime::parse_from_rfc3339("2026-11-14T17:03:00Z").unwrap()
        );
        let mut blends = std::collections::BTreeSet::new();
        for (at, bytes) in &versions {
            assert!(*at < now());
            let text = String::from_utf8(bytes.clone()).unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next().unwrap(), PREDICTIONS.lines().next().unwrap());
            let cells: Vec<&str> = lines.next().unwrap().split(',').collect();
            assert_eq!(&cells[..4], ["2026-11-21", "19:30:00", "a", "b"]);
            assert_eq!(&cells[6..8], ["107", "-128"], "openers never move");
            assert_eq!(cells[9], "", "an empty cell stays empty");
            for price in &cells[4..6] {
                let price: i64 = price.parse().unwrap();
                assert!(price >= 100 || price <= -100, "{price}");
            }
            let blend: f64 = cells[8].parse().unwrap();
            assert!((0.02..=0.98).contains(&blend));
            blends.insert(cells[8].to_owned());
        }
        assert!(blends.len() > 40, "the probabilities move: {}", blends.len());
        assert_eq!(
            versions,
            past_versions("predictions/nba/won_on_points.csv", PREDICTIONS.as_bytes(), now(), 42)
        );
    }

    #[test]
    fn a_price_never_lands_between_minus_and_plus_one_hundred() {
        let mut rng = Rng::new(7);
        for start in [-101.0, 101.0, -105.0, 105.0, 100.0, -100.0] {
            let mut price = start;
            for _ in 0..500 {
                let moved = walk_price(price, &mut rng);
                assert!(moved >= 100 || moved <= -100, "{price} -> {moved}");
                #[expect(clippy::cast_precision_loss, reason = "small prices")]
                {
                    price = moved as f64;
                }
            }
        }
    }
}
