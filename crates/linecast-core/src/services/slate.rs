//! The slate: which games are "today" (the ET calendar day, the served slate
//! when the day's run has not completed, the `upcoming_only` filter), and the
//! use cases that read it: the predictions and odds slates, the public pick
//! feed and its pick rule, and the legacy picks family (always empty: no
//! validated betting selector is active).
//!
//! What a game is worth to a bettor (no-vig probability, EV) is decided
//! here; how it is written (rounding, American-odds text, labels) is the
//! API's presentation and must not come back here.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use linecast_domain::artifacts::{OddsRow, PredictionRow, PredictionTable, TeamTable};
use linecast_domain::odds::{AmericanOdds, ev_percent, no_vig_from_raw};
use linecast_domain::{GameKey, ModelColumn, ModelType, PublicMarket, Side, Sport};

use crate::ports::releases::KeptRelease;
use crate::{ArtifactStore, Deps, Derived, StoreError, Versioned};

/// The calendar date in America/New_York at `now`.
/// One definition, shared with the data-status state machine.
use linecast_domain::time::et_date;

/// The slate that `upcoming_only=true` serves from: today's ET date when
/// today's release manifest says the run completed; otherwise the newest
/// earlier slate whose run completed (so yesterday's games stay visible until
/// today's run lands). With no manifests at all, today's ET date.
pub async fn served_slate(
    store: &dyn ArtifactStore,
    sport: linecast_domain::Sport,
    now: DateTime<Utc>,
) -> Result<NaiveDate, StoreError> {
    slate_judged(store, sport, now, false).await
}

/// [`served_slate`] as it was at a past `instant`: a run counts as
/// completed only if it had completed by then.
pub async fn served_slate_at(
    store: &dyn ArtifactStore,
    sport: linecast_domain::Sport,
    instant: DateTime<Utc>,
) -> Result<NaiveDate, StoreError> {
    slate_judged(store, sport, instant, true).await
}

async fn slate_judged(
    store: &dyn ArtifactStore,
    sport: linecast_domain::Sport,
    now: DateTime<Utc>,
    completed_by_now: bool,
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
            Ok(manifest)
                if manifest
                    .value
                    .run_completed_at
                    .is_some_and(|at| !completed_by_now || at <= now) =>
            {
                return Ok(date);
            }
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

/// The model columns served: the artifact's plus IMPLIED (always
/// recomputed from the current prices), in catalog order.
pub fn served_models(present: &[ModelColumn]) -> Vec<ModelColumn> {
    ModelColumn::ALL
        .iter()
        .copied()
        .filter(|c| *c == ModelColumn::Implied || present.contains(c))
        .collect()
}

/// One served model column of a game: the artifact's cell, except IMPLIED,
/// which is the no-vig probability of the positive side from both current
/// prices (unrounded; `None` when one side is missing or not a price).
pub fn model_probability(row: &PredictionRow, model_type: ModelType, column: ModelColumn) -> Option<f64> {
    if column == ModelColumn::Implied {
        let (pos, neg) = row.lines.side_prices(model_type);
        no_vig_from_raw(pos, neg)
    } else {
        row.models.get(column)
    }
}

/// EV in percent of each side at its current price, from BLEND (`1 − BLEND`
/// for the negative side), unrounded: `(negative, positive)`. `None` without
/// BLEND or a valid American price.
pub fn expected_values(row: &PredictionRow, model_type: ModelType) -> (Option<f64>, Option<f64>) {
    let blend = row.models.get(ModelColumn::Blend);
    let (pos_price, neg_price) = row.lines.side_prices(model_type);
    let ev = |p: Option<f64>, price: Option<f64>| Some(ev_percent(p?, AmericanOdds::new(price?).ok()?));
    (ev(blend.map(|b| 1.0 - b), neg_price), ev(blend, pos_price))
}

/// The predictions of one sport and market, and the slate they are served for.
#[derive(Debug, Clone)]
pub struct PredictionSlate {
    pub sport: Sport,
    pub model_type: ModelType,
    pub predictions: Versioned<PredictionTable>,
    /// The served slate with `upcoming_only`, otherwise today's ET date.
    pub slate_date: NaiveDate,
    pub upcoming_only: bool,
    /// The kept release served, for an `as_of` read (`None`: the current
    /// object).
    pub release: Option<KeptRelease>,
}

impl PredictionSlate {
    /// The games served, sorted by date then ET time.
    pub fn games(&self) -> Vec<&PredictionRow> {
        select_games(
            &self.predictions.value.rows,
            |r| &r.key,
            self.slate_date,
            self.upcoming_only,
        )
    }

    /// The model columns every game carries (IMPLIED and the artifact's).
    pub fn models(&self) -> Vec<ModelColumn> {
        served_models(&self.predictions.value.models_present)
    }

    /// What the served games depend on: the artifact's version and, for the
    /// slate view, the slate date (the whole artifact depends on no date).
    pub fn deps(&self) -> Deps {
        let mut deps = Deps::new().object(&self.predictions.version);
        if let Some(release) = &self.release {
            deps = deps.release(release);
        }
        if self.upcoming_only {
            deps.param("slate", self.slate_date)
        } else {
            deps.param("slate", "all")
        }
    }
}

/// The odds of one sport and the served slate date.
#[derive(Debug, Clone)]
pub struct OddsSlate {
    pub sport: Sport,
    pub odds: Versioned<Vec<OddsRow>>,
    pub slate_date: NaiveDate,
    /// The kept release served, for an `as_of` read.
    pub release: Option<KeptRelease>,
    /// The instant the slate is judged at (now, or the `as_of` instant):
    /// which of its games have started.
    pub judged_at: DateTime<Utc>,
}

/// A game's scheduled start as a UTC instant (its ET date and time).
pub fn scheduled_start(key: &GameKey) -> Option<DateTime<Utc>> {
    linecast_domain::time::et_instant(key.date, key.time_est)
}

/// Whether the game `key` names had started at `at`: its scheduled start
/// is at or before it.
pub fn started_at(key: &GameKey, at: DateTime<Utc>) -> bool {
    scheduled_start(key).is_some_and(|start| start <= at)
}

impl OddsSlate {
    /// How many of the artifact's games had started at `judged_at`: the
    /// served body depends on it (each game says whether it has started).
    pub fn started_count(&self) -> usize {
        self.odds
            .value
            .iter()
            .filter(|r| started_at(&r.key, self.judged_at))
            .count()
    }

    /// Every game of the artifact, sorted by date then ET time.
    pub fn games(&self) -> Vec<&OddsRow> {
        select_games(&self.odds.value, |r| &r.key, self.slate_date, false)
    }

    /// The newest `last_updated` of the games; `None` with no games.
    pub fn last_updated(&self) -> Option<NaiveDateTime> {
        self.odds.value.iter().map(|r| r.last_updated).max()
    }
}

/// The free feed's slate: the predictions of the market, the league's team
/// table (`None` when the store has none: names degrade to slugs) and the
/// slate served.
#[derive(Debug, Clone)]
pub struct PublicSlate {
    pub market: PublicMarket,
    pub slate: PredictionSlate,
    pub teams: Option<Versioned<TeamTable>>,
}

/// The public pick of one game, from BLEND.
#[derive(Debug, Clone, PartialEq)]
pub struct PublicPick<'a> {
    pub row: &'a PredictionRow,
    /// BLEND probability of the positive side (home, or over).
    pub blend: f64,
    /// The picked side; `None` when BLEND is exactly 0.5.
    pub side: Option<Side>,
    /// The picked side's BLEND probability (0.5 with no pick), unrounded.
    pub confidence: f64,
    /// The picked side's current price when it is a valid American price.
    pub price: Option<f64>,
    /// The spread of the picked side (the away spread falls back to the
    /// negated home spread), or the total; `None` for moneyline and no pick.
    pub points: Option<f64>,
    /// The picked side's no-vig probability; `None` with a one-sided price or no pick.
    pub implied: Option<f64>,
}

impl PublicPick<'_> {
    /// The picked team's slug: home for the positive side, away for the
    /// negative one (totals pick no team).
    pub fn team(&self) -> Option<&str> {
        match self.side? {
            Side::Positive => Some(&self.row.key.home_team),
            Side::Negative => Some(&self.row.key.away_team),
        }
    }
}

/// The public pick rule: a game without BLEND is left out; BLEND above 0.5
/// picks the positive side (home, or over), below 0.5 the negative side,
/// exactly 0.5 picks nothing.
pub fn public_pick(row: &PredictionRow, model_type: ModelType) -> Option<PublicPick<'_>> {
    let blend = row.models.get(ModelColumn::Blend)?;
    let side = if blend > 0.5 {
        Some(Side::Positive)
    } else if blend < 0.5 {
        Some(Side::Negative)
    } else {
        None
    };
    let Some(side) = side else {
        return Some(PublicPick {
            row,
            blend,
            side: None,
            confidence: 0.5,
            price: None,
            points: None,
            implied: None,
        });
    };
    let l = &row.lines;
    let (pos_price, neg_price) = l.side_prices(model_type);
    let (price, other) = match side {
        Side::Positive => (pos_price, neg_price),
        Side::Negative => (neg_price, pos_price),
    };
    let points = match model_type {
        ModelType::WonOnPoints => None,
        ModelType::WonOnSpread => match side {
            Side::Positive => l.home_point_spread,
            Side::Negative => l.away_point_spread.or(l.home_point_spread.map(|p| -p)),
        },
        ModelType::OverUnder => l.over_under,
    };
    Some(PublicPick {
        row,
        blend,
        side: Some(side),
        confidence: if side == Side::Positive { blend } else { 1.0 - blend },
        price: price.filter(|p| AmericanOdds::new(*p).is_ok()),
        points,
        implied: no_vig_from_raw(price, other),
    })
}

impl PublicSlate {
    /// The picks of the served games, in slate order (games without BLEND left out).
    pub fn picks(&self) -> Vec<PublicPick<'_>> {
        self.slate
            .games()
            .into_iter()
            .filter_map(|row| public_pick(row, self.slate.model_type))
            .collect()
    }
}

/// A listing of the legacy picks family (`/picks`, `/edge-picks`): no
/// validated betting selector is active, so it never holds a pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoPicks {
    /// The date asked for (today's ET date for `/picks/today`); `None` for
    /// the undated edge-picks listing.
    pub date: Option<NaiveDate>,
}

/// The slate use cases over the artifact store.
pub struct Slate {
    store: Arc<dyn ArtifactStore>,
}

impl Slate {
    pub fn new(store: Arc<dyn ArtifactStore>) -> Self {
        Self { store }
    }

    /// The slate date a request at `now` is served for: the served slate
    /// with `upcoming_only`; otherwise today's ET date, reading no release
    /// manifest (so an unreadable one fails only the slate view).
    async fn slate_date(&self, sport: Sport, upcoming_only: bool, now: DateTime<Utc>) -> Result<NaiveDate, StoreError> {
        if upcoming_only {
            served_slate(self.store.as_ref(), sport, now).await
        } else {
            Ok(et_date(now))
        }
    }

    /// `/predictions`: the artifact first (a missing one is `NotFound`
    /// whatever the manifests say), then the slate date.
    pub async fn predictions(
        &self,
        sport: Sport,
        model_type: ModelType,
        upcoming_only: bool,
        now: DateTime<Utc>,
    ) -> Result<Derived<PredictionSlate>, StoreError> {
        let predictions = self.store.predictions(sport, model_type).await?;
        let slate_date = self.slate_date(sport, upcoming_only, now).await?;
        let slate = PredictionSlate {
            sport,
            model_type,
            predictions,
            slate_date,
            upcoming_only,
            release: None,
        };
        let deps = slate.deps();
        Ok(Derived::new(slate, deps))
    }

    /// `/odds`: the artifact, then the served slate date.
    pub async fn odds(&self, sport: Sport, now: DateTime<Utc>) -> Result<Derived<OddsSlate>, StoreError> {
        let odds = self.store.odds(sport).await?;
        let slate_date = served_slate(self.store.as_ref(), sport, now).await?;
        let slate = OddsSlate {
            sport,
            odds,
            slate_date,
            release: None,
            judged_at: now,
        };
        let deps = Deps::new()
            .object(&slate.odds.version)
            .param("slate", slate_date)
            .param("started", slate.started_count());
        Ok(Derived::new(slate, deps))
    }

    /// The public feed: the market's predictions slate, then the team table
    /// (a missing one degrades names to slugs and never fails the feed; an
    /// unreadable one does).
    pub async fn public_picks(
        &self,
        sport: Sport,
        market: PublicMarket,
        upcoming_only: bool,
        now: DateTime<Utc>,
    ) -> Result<Derived<PublicSlate>, StoreError> {
        let Derived { value: slate, deps } = self.predictions(sport, market.model_type(), upcoming_only, now).await?;
        let (teams, deps) = match self.store.teams(sport).await {
            Ok(teams) => {
                let deps = deps.object(&teams.version);
                (Some(teams), deps)
            }
            Err(StoreError::NotFound { object }) => {
                tracing::warn!(%object, "team table missing; the public feed serves slugs");
                (None, deps.absent(object))
            }
            Err(e) => return Err(e),
        };
        Ok(Derived::new(PublicSlate { market, slate, teams }, deps))
    }

    /// `/picks/today`: today's ET date, no picks.
    pub fn picks_today(&self, now: DateTime<Utc>) -> NoPicks {
        NoPicks {
            date: Some(et_date(now)),
        }
    }

    /// `/picks/{date}` and the edge-picks listings: the date asked for, no picks.
    pub fn picks_for(&self, date: Option<NaiveDate>) -> NoPicks {
        NoPicks { date }
    }
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

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "exact values are the point of these tests")]
mod service_tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::testing::MemoryStore;
    use chrono::NaiveTime;
    use linecast_domain::artifacts::{ReleaseArtifacts, ReleaseManifest, SlateKind, TeamRow};
    use linecast_domain::{Lines, ModelProbs};

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    fn at(rfc3339: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(rfc3339).unwrap().with_timezone(&Utc)
    }

    /// 10:00 ET on Nov 22 (EST is UTC-5).
    fn now() -> DateTime<Utc> {
        at("2026-11-22T15:00:00Z")
    }

    fn row(d: u32, time: &str, away: &str, blend: Option<f64>, lines: Lines) -> PredictionRow {
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, blend);
        models.set(ModelColumn::Xgb, Some(0.55));
        PredictionRow {
            key: GameKey::new(day(d), NaiveTime::parse_from_str(time, "%H:%M").unwrap(), away, "bos"),
            game_id: linecast_domain::GameId::default(),
            lines,
            models,
            extras: Vec::new(),
        }
    }

    fn moneyline(home: f64, away: f64) -> Lines {
        Lines {
            home_money_line: Some(home),
            away_money_line: Some(away),
            ..Lines::default()
        }
    }

    fn table(model_type: ModelType, rows: Vec<PredictionRow>) -> PredictionTable {
        PredictionTable {
            sport: Sport::Nba,
            model_type,
            models_present: vec![ModelColumn::Blend, ModelColumn::Xgb],
            rows,
        }
    }

    fn manifest(d: u32, completed: bool) -> ReleaseManifest {
        ReleaseManifest {
            sport: Sport::Nba,
            slate_date: day(d),
            release_id: format!("r{d}"),
            run_started_at: Some(at("2026-11-01T00:00:00Z")),
            run_completed_at: completed.then(|| at("2026-11-01T01:00:00Z")),
            slate: SlateKind::Active,
            source_as_of: None,
            artifacts: ReleaseArtifacts::default(),
            markets: std::collections::BTreeMap::new(),
        }
    }

    fn three_days() -> Arc<MemoryStore> {
        let store = Arc::new(MemoryStore::new());
        store.put_predictions(
            Sport::Nba,
            ModelType::WonOnPoints,
            table(
                ModelType::WonOnPoints,
                vec![
                    row(22, "19:00", "nyk", Some(0.6), moneyline(-200.0, 150.0)),
                    row(20, "19:00", "mia", Some(0.6), moneyline(-200.0, 150.0)),
                    row(21, "19:30", "chi", Some(0.6), moneyline(-200.0, 150.0)),
                ],
            ),
        );
        store
    }

    fn served_dates(slate: &PredictionSlate) -> Vec<String> {
        slate.games().iter().map(|r| r.key.date_string()).collect()
    }

    #[tokio::test]
    async fn yesterdays_slate_is_served_until_todays_run_completes() {
        let store = three_days();
        store.put_release(Sport::Nba, day(21), manifest(21, true));
        store.put_release(Sport::Nba, day(22), manifest(22, false));
        let slate = Slate::new(store.clone());
        let served = slate
            .predictions(Sport::Nba, ModelType::WonOnPoints, true, now())
            .await
            .unwrap()
            .value;
        assert_eq!(served.slate_date, day(21));
        assert_eq!(served_dates(&served), ["2026-11-21", "2026-11-22"]);
        store.put_release(Sport::Nba, day(22), manifest(22, true));
        let served = slate
            .predictions(Sport::Nba, ModelType::WonOnPoints, true, now())
            .await
            .unwrap()
            .value;
        assert_eq!(served.slate_date, day(22));
        assert_eq!(served_dates(&served), ["2026-11-22"]);
    }

    #[tokio::test]
    async fn the_whole_artifact_is_served_in_order_without_reading_a_manifest() {
        let store = three_days();
        store.put_release(Sport::Nba, day(22), manifest(22, false));
        let reads_before = store.reads();
        let served = Slate::new(store.clone())
            .predictions(Sport::Nba, ModelType::WonOnPoints, false, now())
            .await
            .unwrap()
            .value;
        assert_eq!(store.reads() - reads_before, 1, "only the predictions were read");
        assert_eq!(served.slate_date, day(22));
        assert_eq!(served_dates(&served), ["2026-11-20", "2026-11-21", "2026-11-22"]);
        assert_eq!(
            served.models(),
            [ModelColumn::Implied, ModelColumn::Blend, ModelColumn::Xgb]
        );
    }

    #[tokio::test]
    async fn missing_predictions_are_not_found_whatever_the_manifests_say() {
        let store = Arc::new(MemoryStore::new());
        store.put_release(Sport::Nba, day(22), manifest(22, true));
        let err = Slate::new(store)
            .predictions(Sport::Nba, ModelType::OverUnder, true, now())
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
    }

    #[tokio::test]
    async fn the_odds_slate_keeps_every_game_sorted_and_reports_the_newest_update() {
        let store = Arc::new(MemoryStore::new());
        let odds_row = |d: u32, away: &str, updated: &str| OddsRow {
            match_id: format!("m-{away}"),
            key: GameKey::new(day(d), NaiveTime::from_hms_opt(19, 0, 0).unwrap(), away, "bos"),
            game_id: linecast_domain::GameId::default(),
            lines: moneyline(-110.0, -110.0),
            last_updated: NaiveDateTime::parse_from_str(updated, "%Y-%m-%d %H:%M:%S").unwrap(),
        };
        store.put_odds(
            Sport::Nba,
            vec![
                odds_row(22, "nyk", "2026-11-22 12:00:00"),
                odds_row(20, "mia", "2026-11-22 14:30:00"),
            ],
        );
        let served = Slate::new(store).odds(Sport::Nba, now()).await.unwrap().value;
        assert_eq!(served.slate_date, day(22));
        let ids: Vec<&str> = served.games().iter().map(|r| r.match_id.as_str()).collect();
        assert_eq!(ids, ["m-mia", "m-nyk"]);
        assert_eq!(served.last_updated().unwrap().to_string(), "2026-11-22 14:30:00");
    }

    #[test]
    fn implied_is_the_no_vig_home_probability_and_ev_prices_each_side_from_blend() {
        let r = row(22, "19:00", "nyk", Some(0.6), moneyline(-200.0, 150.0));
        assert_eq!(
            model_probability(&r, ModelType::WonOnPoints, ModelColumn::Implied),
            Some(0.625)
        );
        assert_eq!(
            model_probability(&r, ModelType::WonOnPoints, ModelColumn::Xgb),
            Some(0.55)
        );
        let (away, home) = expected_values(&r, ModelType::WonOnPoints);
        let six = |x: Option<f64>| x.map(|v| (v * 1e6).round() / 1e6);
        // Away: 0.4 × 2.5 − 1 = 0; home: 0.6 × 1.5 − 1 = −0.1.
        assert_eq!(six(away), Some(0.0));
        assert_eq!(six(home), Some(-10.0));
        let no_price = row(22, "19:00", "nyk", Some(0.6), moneyline(-200.0, 50.0));
        assert_eq!(expected_values(&no_price, ModelType::WonOnPoints).0, None);
        assert_eq!(
            model_probability(&no_price, ModelType::WonOnPoints, ModelColumn::Implied),
            None
        );
    }

    #[test]
    fn blend_above_one_half_picks_the_home_side_at_its_price_with_its_no_vig_probability() {
        let r = row(22, "19:00", "nyk", Some(0.6), moneyline(-200.0, 150.0));
        let pick = public_pick(&r, ModelType::WonOnPoints).unwrap();
        assert_eq!(pick.side, Some(Side::Positive));
        assert_eq!(pick.team(), Some("bos"));
        assert_eq!(pick.confidence, 0.6);
        assert_eq!(pick.price, Some(-200.0));
        assert_eq!(pick.points, None);
        assert_eq!(pick.implied, Some(0.625));
    }

    #[test]
    fn blend_below_one_half_picks_the_away_spread_falling_back_to_the_negated_home_spread() {
        let lines = Lines {
            home_point_spread: Some(-3.5),
            home_point_spread_line: Some(-110.0),
            away_point_spread_line: Some(-110.0),
            ..Lines::default()
        };
        let r = row(22, "19:00", "nyk", Some(0.25), lines);
        let pick = public_pick(&r, ModelType::WonOnSpread).unwrap();
        assert_eq!(pick.side, Some(Side::Negative));
        assert_eq!(pick.team(), Some("nyk"));
        assert_eq!(pick.confidence, 0.75);
        assert_eq!(pick.points, Some(3.5));
        assert_eq!(pick.price, Some(-110.0));
        assert_eq!(pick.implied, Some(0.5));
    }

    #[test]
    fn a_total_pick_carries_the_total_and_an_invalid_price_is_no_price() {
        let lines = Lines {
            over_under: Some(224.5),
            over_line: Some(50.0),
            under_line: Some(-110.0),
            ..Lines::default()
        };
        let r = row(22, "19:00", "nyk", Some(0.7), lines);
        let pick = public_pick(&r, ModelType::OverUnder).unwrap();
        assert_eq!(pick.side, Some(Side::Positive));
        assert_eq!(pick.points, Some(224.5));
        assert_eq!(pick.price, None);
        assert_eq!(pick.implied, None);
    }

    #[test]
    fn blend_of_exactly_one_half_picks_nothing_and_a_game_without_blend_is_left_out() {
        let r = row(22, "19:00", "nyk", Some(0.5), moneyline(-200.0, 150.0));
        let pick = public_pick(&r, ModelType::WonOnPoints).unwrap();
        assert_eq!(pick.side, None);
        assert_eq!(pick.team(), None);
        assert_eq!(pick.confidence, 0.5);
        assert_eq!((pick.price, pick.implied), (None, None));
        let r = row(22, "19:00", "nyk", None, moneyline(-200.0, 150.0));
        assert!(public_pick(&r, ModelType::WonOnPoints).is_none());
    }

    #[tokio::test]
    async fn a_missing_team_table_degrades_the_feed_but_an_unreadable_one_fails_it() {
        let store = Arc::new(MemoryStore::new());
        store.put_predictions(
            Sport::Nba,
            ModelType::WonOnPoints,
            table(
                ModelType::WonOnPoints,
                vec![
                    row(22, "19:00", "nyk", Some(0.6), moneyline(-200.0, 150.0)),
                    row(22, "20:00", "mia", None, moneyline(-200.0, 150.0)),
                ],
            ),
        );
        let slate = Slate::new(store.clone());
        let read = slate
            .public_picks(Sport::Nba, PublicMarket::Moneyline, true, now())
            .await
            .unwrap();
        let (feed, without_teams) = (read.value, read.deps);
        assert!(feed.teams.is_none());
        assert_eq!(feed.slate.model_type, ModelType::WonOnPoints);
        assert_eq!(feed.picks().len(), 1, "the game without BLEND is left out");
        store.put_teams(
            Sport::Nba,
            TeamTable {
                teams: vec![TeamRow {
                    slug: "bos".into(),
                    display_name: "Boston Celtics".into(),
                    abbreviation: "BOS".into(),
                }],
            },
        );
        let read = slate
            .public_picks(Sport::Nba, PublicMarket::Moneyline, true, now())
            .await
            .unwrap();
        assert_ne!(read.deps, without_teams, "names depend on the team table");
        assert_eq!(read.value.teams.unwrap().value.teams.len(), 1);
        store.fail_with(StoreError::Unavailable { reason: "down".into() });
        assert!(
            slate
                .public_picks(Sport::Nba, PublicMarket::Moneyline, true, now())
                .await
                .is_err()
        );
    }

    #[test]
    fn todays_legacy_picks_listing_is_dated_by_the_et_calendar() {
        let slate = Slate::new(Arc::new(MemoryStore::new()));
        assert_eq!(
            slate.picks_today(at("2026-11-22T04:30:00Z")),
            NoPicks { date: Some(day(21)) }
        );
        assert_eq!(slate.picks_for(None), NoPicks { date: None });
    }
}
