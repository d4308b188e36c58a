//! Which games are "today": the ET calendar day, the served slate when the
//! day's run has not completed, and the `upcoming_only` filter.

use chrono::{DateTime, NaiveDate, Utc};
use linecast_domain::GameKey;

use crate::{ArtifactStore, StoreError};

/// The calendar date in America/New_York at `now`.
/// One definition, shared with the data-status state machine.
pub use linecast_freshness::et_date;

/// The slate that `upcoming_only=true` serves from: today's ET date when
/// today's release manifest says the run completed; otherwise the newest
/// earlier slate whose run completed (so yesterday's games stay visible until
/// today's run lands). With no manifests at all, today's ET date.
pub async fn served_slate(
    store: &dyn ArtifactStore,
    sport: linecast_domain::Sport,
    now: DateTime<Utc>,
) -> Result<NaiveDate, StoreError> {
    let today = et_date(now);
    let dates = match store.release_dates(sport).await {
        Ok(dates) => dates,
        Err(StoreError::NotFound { .. }) => return Ok(today),
        Err(e) => return Err(e),
    };
    let mut candidates: Vec<NaiveDate> = dates.into_iter().filter(|d| *d <= today).collect();
    if candidates.is_empty() {
        return Ok(today);
    }
    candidates.sort_unstable_by(|a, b| b.cmp(a));
    for date in candidates {
        match store.release(sport, date).await {
            Ok(manifest) if manifest.value.run_completed_at.is_some() => return Ok(date),
            Ok(_) | Err(StoreError::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(today)
}

/// Indices of the games to serve, sorted by date then ET time (then teams,
/// so doubleheaders stay distinct and the order is total). With
/// `upcoming_only`, games dated before `slate` are left out.
pub fn select_games<T>(rows: &[T], key: impl Fn(&T) -> &GameKey, slate: NaiveDate, upcoming_only: bool) -> Vec<&T> {
    let mut picked: Vec<&T> = rows.iter().filter(|r| !upcoming_only || key(r).date >= slate).collect();
    picked.sort_by(|a, b| key(a).cmp(key(b)));
    picked
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use chrono::NaiveTime;

    fn key(d: &str, t: &str, away: &str) -> GameKey {
        GameKey::new(
            NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap(),
            NaiveTime::parse_from_str(t, "%H:%M:%S").unwrap(),
            away,
            "home",
        )
    }

    #[test]
    fn a_late_evening_game_stays_on_its_et_date_after_utc_midnight() {
        // 23:30 ET on Nov 21 is 04:30 UTC on Nov 22.
        let now = DateTime::parse_from_rfc3339("2026-11-22T04:30:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(et_date(now).to_string(), "2026-11-21");
        // Summer: EDT is UTC-4.
        let now = DateTime::parse_from_rfc3339("2026-07-05T03:59:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(et_date(now).to_string(), "2026-07-04");
    }

    #[test]
    fn upcoming_only_drops_earlier_dates_and_sorts_by_date_then_time() {
        let rows = vec![
            key("2026-11-22", "19:00:00", "b"),
            key("2026-11-20", "19:00:00", "a"),
            key("2026-11-21", "23:30:00", "c"),
            key("2026-11-21", "13:05:00", "c"),
        ];
        let slate = NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let got: Vec<_> = select_games(&rows, |k| k, slate, true)
            .into_iter()
            .map(|k| (k.date_string(), k.time_string()))
            .collect();
        assert_eq!(
            got,
            [
                ("2026-11-21".to_owned(), "13:05:00".to_owned()),
                ("2026-11-21".to_owned(), "23:30:00".to_owned()),
                ("2026-11-22".to_owned(), "19:00:00".to_owned())
            ]
        );
        assert_eq!(select_games(&rows, |k| k, slate, false).len(), 4);
    }
}
