//! The index of games per kept predictions release: what a history entry
//! needs of a game's row, encoded once when the release is kept, so a
//! game's history reads its own index rows and never the archive.
//!
//! Owns the row encoding (a versioned, tab-separated text that gives back
//! the very row the archive's parser read: every number written in Rust's
//! shortest round-trip form) and which games a table indexes. Must not know
//! SQL (the `ReleaseLog` port stores the text as it is).

use std::borrow::Cow;

use chrono::{NaiveDate, NaiveTime};
use linecast_domain::artifacts::{PredictionRow, PredictionTable};
use linecast_domain::{GameKey, LineField, ModelColumn, ModelProbs};

use crate::ports::releases::IndexedGame;

/// The first field of every encoded row: the encoding's version.
const VERSION: &str = "1";

/// The index rows of `table`: one per game, in the table's order.
pub fn index_table(table: &PredictionTable) -> Vec<IndexedGame> {
    table
        .rows
        .iter()
        .enumerate()
        .map(|(i, row)| IndexedGame {
            game_id: row.game_id.as_str().to_owned(),
            ordinal: u32::try_from(i).unwrap_or(u32::MAX),
            row: encode(&table.models_present, row),
        })
        .collect()
}

fn escape(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn unescape(value: &str) -> Option<String> {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                _ => return None,
            });
        } else {
            out.push(c);
        }
    }
    Some(out)
}

fn number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// An encoded number: `Ok(None)` for the empty field, `Err` for text that
/// is no number.
fn read_number(field: &str) -> Result<Option<f64>, std::num::ParseFloatError> {
    if field.is_empty() {
        return Ok(None);
    }
    field.parse::<f64>().map(Some)
}

/// `row` of a release whose header had the model columns `present`.
pub fn encode(present: &[ModelColumn], row: &PredictionRow) -> String {
    let mut fields: Vec<String> = vec![
        VERSION.to_owned(),
        row.key.date.format("%Y-%m-%d").to_string(),
        row.key.time_est.format("%H:%M:%S%.f").to_string(),
        row.key.away_team.as_str().to_owned(),
        row.key.home_team.as_str().to_owned(),
        present.iter().map(|m| m.code()).collect::<Vec<_>>().join(","),
    ];
    fields.extend(LineField::ALL.iter().map(|f| number(row.lines.get(*f))));
    fields.extend(ModelColumn::ALL.iter().map(|m| number(row.models.get(*m))));
    for (name, value) in &row.extras {
        fields.push(name.to_string());
        fields.push(value.clone());
    }
    let mut out = String::new();
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        escape(&mut out, field);
    }
    out
}

/// The row `encoded` holds (its id `game_id`) and the model columns its
/// release's header had; `None` when the text is not an encoded row.
pub fn decode(game_id: &str, encoded: &str) -> Option<(PredictionRow, Vec<ModelColumn>)> {
    // Borrowed fields: only one holding an escape is copied.
    let fields: Vec<Cow<'_, str>> = encoded
        .split('\t')
        .map(|field| {
            if field.contains('\\') {
                unescape(field).map(Cow::Owned)
            } else {
                Some(Cow::Borrowed(field))
            }
        })
        .collect::<Option<_>>()?;
    let lines_at = 6;
    let models_at = lines_at + LineField::ALL.len();
    let extras_at = models_at + ModelColumn::ALL.len();
    if fields.len() < extras_at || fields[0] != VERSION || !(fields.len() - extras_at).is_multiple_of(2) {
        return None;
    }
    // `YYYY-MM-DD` and `HH:MM:SS[.f]`, as `encode` wrote them.
    let date = fields[1].parse::<NaiveDate>().ok()?;
    let time = fields[2].parse::<NaiveTime>().ok()?;
    let present = if fields[5].is_empty() {
        Vec::new()
    } else {
        fields[5]
            .split(',')
            .map(|c| ModelColumn::parse(c).ok())
            .collect::<Option<Vec<_>>>()?
    };
    let mut lines = linecast_domain::Lines::default();
    for (field, raw) in LineField::ALL.iter().zip(&fields[lines_at..models_at]) {
        lines.set(*field, read_number(raw).ok()?);
    }
    let mut models = ModelProbs::default();
    for (column, raw) in ModelColumn::ALL.iter().zip(&fields[models_at..extras_at]) {
        models.set(*column, read_number(raw).ok()?);
    }
    let extras = fields[extras_at..]
        .chunks(2)
        .map(|pair| (std::sync::Arc::from(&*pair[0]), pair[1].clone().into_owned()))
        .collect();
    let row = PredictionRow {
        key: GameKey::new(date, time, &*fields[3], &*fields[4]),
        game_id: game_id.into(),
        lines,
        models,
        extras,
    };
    Some((row, present))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> PredictionRow {
        let mut lines = linecast_domain::Lines::default();
        lines.set(LineField::HomeMoneyLine, Some(-145.0));
        lines.set(LineField::AwayMoneyLine, Some(125.0));
        lines.set(LineField::OpenHomeMoneyLine, Some(-131.5));
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, Some(0.1 + 0.2));
        models.set(ModelColumn::Xgb, Some(0.583_333_333_333_333_4));
        PredictionRow {
            key: GameKey::new(
                NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
                NaiveTime::from_hms_opt(19, 30, 0).unwrap(),
                "New York Knicks",
                "Boston\tCeltics\\",
            ),
            game_id: "nba-20261120-new_york_knicks-boston_celtics".into(),
            lines,
            models,
            extras: vec![
                (std::sync::Arc::from("note"), "a\tb\nc".to_owned()),
                (std::sync::Arc::from("empty"), String::new()),
            ],
        }
    }

    #[test]
    fn a_row_reads_back_equal_with_every_digit_and_the_header_models() {
        let present = vec![ModelColumn::Blend, ModelColumn::Xgb];
        let encoded = encode(&present, &row());
        let (back, models) = decode("nba-20261120-new_york_knicks-boston_celtics", &encoded).unwrap();
        assert_eq!(back, row());
        assert_eq!(back.models.get(ModelColumn::Blend), Some(0.300_000_000_000_000_04));
        assert_eq!(back.lines.get(LineField::OverUnder), None);
        assert_eq!(back.extras[0].1, "a\tb\nc");
        assert_eq!(models, present);
    }

    #[test]
    fn text_that_is_not_an_encoded_row_is_refused() {
        assert!(decode("x", "").is_none());
        assert!(decode("x", "2\t2026-11-20").is_none());
        let mut wrong = encode(&[], &row());
        wrong.push_str("\tdangling");
        assert!(decode("x", &wrong).is_none());
    }
}

/// `Releases` over the index of games, with the memory fakes: releases kept
/// at instants chosen here, every expected value worked out by hand.
#[cfg(test)]
mod releases_tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Arc;

    use bytes::Bytes;
    use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
    use linecast_domain::artifacts::{PredictionRow, PredictionTable};
    use linecast_domain::{GameKey, LineField, ModelColumn, ModelProbs, ModelType, Sport};

    use crate::ports::releases::Series;
    use crate::services::releases::{GameHistory, HistoryError, Releases};
    use crate::testing::{MemoryArchive, MemoryReleaseLog, MemoryStore};

    const SERIES: Series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
    /// 2026-11-20 19:30 ET is 2026-11-21T00:30:00Z (EST, UTC−5).
    const A: &str = "nba-20261120-knicks-celtics";
    const B: &str = "nba-20261120-nets-heat";

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn game(id: &str, date: (i32, u32, u32), start: (u32, u32), away: &str, home: &str, blend: f64) -> PredictionRow {
        let mut lines = linecast_domain::Lines::default();
        lines.set(LineField::HomeMoneyLine, Some(-150.0));
        lines.set(LineField::AwayMoneyLine, Some(130.0));
        let mut models = ModelProbs::default();
        models.set(ModelColumn::Blend, Some(blend));
        PredictionRow {
            key: GameKey::new(
                NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap(),
                NaiveTime::from_hms_opt(start.0, start.1, 0).unwrap(),
                away,
                home,
            ),
            game_id: id.into(),
            lines,
            models,
            extras: Vec::new(),
        }
    }

    fn a(blend: f64) -> PredictionRow {
        game(A, (2026, 11, 20), (19, 30), "knicks", "celtics", blend)
    }

    fn b(blend: f64) -> PredictionRow {
        game(B, (2026, 11, 20), (20, 0), "nets", "heat", blend)
    }

    struct World {
        log: Arc<MemoryReleaseLog>,
        archive: Arc<MemoryArchive>,
        releases: Releases,
    }

    fn world(retention: Option<Duration>) -> World {
        let log = Arc::new(MemoryReleaseLog::new());
        let archive = Arc::new(MemoryArchive::new());
        let releases = Releases::new(log.clone(), archive.clone(), Arc::new(MemoryStore::new()), retention);
        World { log, archive, releases }
    }

    impl World {
        /// A second instance over the same log and archive.
        fn another(&self) -> Releases {
            Releases::new(
                self.log.clone(),
                self.archive.clone(),
                Arc::new(MemoryStore::new()),
                None,
            )
        }

        async fn keep(&self, when: &str, name: &str, rows: Vec<PredictionRow>) -> bool {
            let bytes = format!("version {name}").into_bytes();
            self.archive.register(
                &bytes,
                PredictionTable {
                    sport: Sport::Nba,
                    model_type: ModelType::WonOnPoints,
                    models_present: vec![ModelColumn::Blend],
                    rows,
                },
            );
            self.releases
                .keep(SERIES, at(when), Bytes::from(bytes))
                .await
                .unwrap()
                .1
        }

        /// R1 carries A and B, R2 only B, R3 A and B again.
        async fn three(&self) {
            assert!(self.keep("2026-11-20T12:00:00Z", "r1", vec![a(0.40), b(0.61)]).await);
            assert!(self.keep("2026-11-20T18:00:00Z", "r2", vec![b(0.62)]).await);
            assert!(self.keep("2026-11-20T23:00:00Z", "r3", vec![b(0.63), a(0.45)]).await);
        }
    }

    const NOW: &str = "2026-11-21T06:00:00Z";

    #[tokio::test]
    async fn a_history_plan_reads_no_game_rows_and_changes_with_every_kept_release() {
        let w = world(None);
        w.three().await;
        let first = w
            .releases
            .game_history_plan(A, ModelType::WonOnPoints, at(NOW))
            .await
            .unwrap();
        assert_eq!(w.log.game_reads(), 0, "a plan reads no game rows");
        assert_eq!(first.value.game_id, A);
        let full = w
            .releases
            .game_history(A, ModelType::WonOnPoints, at(NOW))
            .await
            .unwrap();
        assert_eq!(w.log.game_reads(), 1);
        assert_eq!(full.deps, first.deps, "the body a plan keys is the history's");
        // A release that does not carry A still changes A's key: the plan
        // cannot know which games a release carried without reading them.
        assert!(w.keep("2026-11-21T01:00:00Z", "r4", vec![b(0.64)]).await);
        let second = w
            .releases
            .game_history_plan(A, ModelType::WonOnPoints, at(NOW))
            .await
            .unwrap();
        assert_ne!(second.deps, first.deps);
        // Another instance, over the same log, plans the same key.
        let other = w
            .another()
            .game_history_plan(A, ModelType::WonOnPoints, at(NOW))
            .await
            .unwrap();
        assert_eq!(other.deps, second.deps);
        assert!(matches!(
            w.releases
                .game_history_plan("not-a-game", ModelType::WonOnPoints, at(NOW))
                .await,
            Err(HistoryError::Malformed)
        ));
        assert_eq!(w.log.game_reads(), 1);
    }

    async fn history(releases: &Releases, id: &str) -> Result<GameHistory, HistoryError> {
        releases
            .game_history(id, ModelType::WonOnPoints, at(NOW))
            .await
            .map(|d| d.value)
    }

    /// (published_at, BLEND, after_start) of each entry.
    fn summary(h: &GameHistory) -> Vec<(DateTime<Utc>, Option<f64>, bool)> {
        h.entries
            .iter()
            .map(|e| {
                (
                    e.release.published_at,
                    e.row.models.get(ModelColumn::Blend),
                    e.after_start,
                )
            })
            .collect()
    }

    #[tokio::test]
    async fn keeping_indexes_each_game_and_a_history_reads_only_its_own_rows_without_the_archive() {
        let w = world(None);
        w.three().await;
        // Five index rows: A in r1 and r3, B in all three.
        let rows = w.log.index_rows();
        assert_eq!(rows.len(), 5);
        assert_eq!(
            rows.iter()
                .filter(|((_, id, _), _)| id == A)
                .map(|((_, _, t), g)| (*t, g.ordinal))
                .collect::<Vec<_>>(),
            vec![
                (at("2026-11-20T12:00:00Z").timestamp_micros(), 0),
                (at("2026-11-20T23:00:00Z").timestamp_micros(), 1)
            ]
        );
        let h = history(&w.releases, A).await.unwrap();
        assert_eq!(
            summary(&h),
            vec![
                (at("2026-11-20T12:00:00Z"), Some(0.40), false),
                (at("2026-11-20T23:00:00Z"), Some(0.45), false),
            ]
        );
        assert_eq!(h.entries[0].row.lines.get(LineField::HomeMoneyLine), Some(-150.0));
        assert_eq!(h.entries[1].row.key.away_team.as_str(), "knicks");
        assert_eq!(h.entries[0].models, vec![ModelColumn::Implied, ModelColumn::Blend]);
        assert_eq!(h.opening.release.published_at, at("2026-11-20T12:00:00Z"));
        assert_eq!(h.closing, Some(1));
        assert_eq!(h.entries[1].release.game_count, 2);
        assert_eq!(w.archive.reads(), 0, "the history came from the index alone");
    }

    #[tokio::test]
    async fn an_id_no_release_carried_is_unknown_without_reading_the_archive() {
        let w = world(None);
        w.three().await;
        let unknown = history(&w.releases, "nba-20261120-nobody-none").await;
        assert!(matches!(unknown, Err(HistoryError::Unknown)), "{unknown:?}");
        assert!(matches!(
            history(&w.releases, "not a game id").await,
            Err(HistoryError::Malformed)
        ));
        assert_eq!(w.archive.reads(), 0);
    }

    #[tokio::test]
    async fn a_release_at_or_after_the_start_is_listed_after_start_and_never_the_closing() {
        let w = world(None);
        // 2026-11-21 19:00 ET is 2026-11-22T00:00:00Z.
        let c = |blend| {
            game(
                "nba-20261121-bulls-suns",
                (2026, 11, 21),
                (19, 0),
                "bulls",
                "suns",
                blend,
            )
        };
        w.keep("2026-11-21T12:00:00Z", "c1", vec![c(0.50)]).await;
        w.keep("2026-11-21T23:59:59Z", "c2", vec![c(0.52)]).await;
        w.keep("2026-11-22T00:00:00Z", "c3", vec![c(0.90)]).await;
        let h = w
            .releases
            .game_history(
                "nba-20261121-bulls-suns",
                ModelType::WonOnPoints,
                at("2026-11-23T00:00:00Z"),
            )
            .await
            .unwrap();
        let h = &h.value;
        assert_eq!(
            h.entries.iter().map(|e| e.after_start).collect::<Vec<_>>(),
            vec![false, false, true]
        );
        assert_eq!(h.closing, Some(1));
        assert_eq!(h.closing().unwrap().row.models.get(ModelColumn::Blend), Some(0.52));
        assert_eq!(h.opening.row.models.get(ModelColumn::Blend), Some(0.50));
    }

    #[tokio::test]
    async fn a_start_that_moved_later_is_judged_at_its_latest_time() {
        let w = world(None);
        // The first release says 17:00 ET (22:00Z) and is published at
        // 22:30Z; the second moves the start to 20:00 ET (01:00Z next day)
        // and is published at 23:00Z: neither is after the latest start.
        let d = |t, blend| game("nba-20261121-jazz-kings", (2026, 11, 21), t, "jazz", "kings", blend);
        w.keep("2026-11-21T22:30:00Z", "d1", vec![d((17, 0), 0.30)]).await;
        w.keep("2026-11-21T23:00:00Z", "d2", vec![d((20, 0), 0.35)]).await;
        let h = w
            .releases
            .game_history(
                "nba-20261121-jazz-kings",
                ModelType::WonOnPoints,
                at("2026-11-23T00:00:00Z"),
            )
            .await
            .unwrap();
        let h = &h.value;
        assert_eq!(
            h.entries.iter().map(|e| e.after_start).collect::<Vec<_>>(),
            vec![false, false]
        );
        assert_eq!(h.closing, Some(1));
    }

    #[tokio::test]
    async fn pruning_forgets_the_index_rows_with_their_releases() {
        let w = world(Some(Duration::hours(12)));
        w.three().await;
        // Now 2026-11-21T06:30Z: 12 h back is 18:30Z the day before, so r1
        // (12:00Z) and r2 (18:00Z) go, r3 (23:00Z) stays.
        assert_eq!(w.releases.prune(at("2026-11-21T06:30:00Z")).await.unwrap(), 2);
        let rows = w.log.index_rows();
        assert_eq!(rows.len(), 2, "A and B of r3: {rows:?}");
        assert!(
            rows.iter()
                .all(|((_, _, t), _)| *t == at("2026-11-20T23:00:00Z").timestamp_micros())
        );
        let h = history(&w.releases, A).await.unwrap();
        assert_eq!(summary(&h), vec![(at("2026-11-20T23:00:00Z"), Some(0.45), false)]);
        assert_eq!(h.opening.release.published_at, at("2026-11-20T23:00:00Z"));
    }

    #[tokio::test]
    async fn keeping_a_release_again_or_from_another_instance_leaves_the_same_index() {
        let w = world(None);
        w.three().await;
        let before = w.log.index_rows();
        assert!(!w.keep("2026-11-20T12:00:00Z", "r1", vec![a(0.40), b(0.61)]).await);
        let bytes = b"version r3".to_vec();
        let (_, new) = w
            .another()
            .keep(SERIES, at("2026-11-20T23:00:00Z"), Bytes::from(bytes))
            .await
            .unwrap();
        assert!(!new);
        assert_eq!(w.log.index_rows(), before);
        // Indexing again changes nothing either.
        assert_eq!(w.another().index_series(SERIES).await.unwrap(), 0);
        assert_eq!(w.log.index_rows(), before);
    }

    #[tokio::test]
    async fn a_series_kept_before_the_index_is_read_from_the_archive_until_indexed_then_the_same() {
        let w = world(None);
        w.three().await;
        w.log.drop_index();
        let upgraded = w.another();
        let expected = vec![
            (at("2026-11-20T12:00:00Z"), Some(0.40), false),
            (at("2026-11-20T23:00:00Z"), Some(0.45), false),
        ];
        // Not indexed: the history scans the three kept releases.
        let scanned = history(&upgraded, A).await.unwrap();
        assert_eq!(summary(&scanned), expected);
        assert_eq!(scanned.closing, Some(1));
        assert_eq!(w.archive.reads(), 3);
        // The upgrade indexes the three releases (each carries games) ...
        assert_eq!(upgraded.index_all().await.unwrap(), 3);
        assert_eq!(w.log.index_rows().len(), 5);
        assert_eq!(w.archive.reads(), 6);
        // ... and the same history is then read from the index alone.
        let indexed = history(&upgraded, A).await.unwrap();
        assert_eq!(summary(&indexed), expected);
        assert_eq!(indexed.entries[1].row, a(0.45));
        assert_eq!(w.archive.reads(), 6);
    }

    /// The price moves `releases` answer for nba moneyline `season` at `NOW`.
    async fn moves(
        releases: &Releases,
        season: linecast_domain::SeasonLabel,
        from: linecast_grading::calibration::ClvFrom,
    ) -> std::sync::Arc<linecast_grading::calibration::PriceMoves> {
        releases
            .price_moves(Sport::Nba, ModelType::WonOnPoints, season, from, at(NOW))
            .await
            .unwrap()
            .0
    }

    /// CLV's price moves are carried forward: a release newer than every
    /// one read is read alone (one archive read) and moves the standing
    /// forecast, leaving the opening; the result equals a fresh instance's
    /// full read. A release kept out of order (a backfill, older than the
    /// first) is read from the start again and becomes the opening.
    #[tokio::test]
    async fn price_moves_read_a_new_release_alone_and_a_backfill_from_the_start() {
        use linecast_domain::SeasonLabel;
        use linecast_grading::calibration::ClvFrom;
        let w = world(None);
        w.three().await;
        let season = SeasonLabel::containing(Sport::Nba, NaiveDate::from_ymd_opt(2026, 11, 20).unwrap());
        let blend = |m: &linecast_grading::calibration::PriceMoves, id: &str| {
            m[&linecast_domain::GameId::from(id)].models.get(ModelColumn::Blend)
        };
        let first = moves(&w.releases, season, ClvFrom::Opening).await;
        assert_eq!(w.archive.reads(), 3);
        assert_eq!((blend(&first, A), blend(&first, B)), (Some(0.40), Some(0.61)));

        // 2026-11-21T00:00Z: before A's start (00:30Z) and B's (01:00Z).
        assert!(w.keep("2026-11-21T00:00:00Z", "r4", vec![a(0.50), b(0.64)]).await);
        let opening = moves(&w.releases, season, ClvFrom::Opening).await;
        assert_eq!(w.archive.reads(), 4, "only the new release was read");
        assert_eq!((blend(&opening, A), blend(&opening, B)), (Some(0.40), Some(0.61)));
        let forecast = moves(&w.releases, season, ClvFrom::Forecast).await;
        assert_eq!(
            w.archive.reads(),
            4,
            "the other `from` of the same generation reads nothing"
        );
        assert_eq!((blend(&forecast, A), blend(&forecast, B)), (Some(0.50), Some(0.64)));
        let fresh = w.another();
        assert_eq!(*moves(&fresh, season, ClvFrom::Opening).await, *opening);
        assert_eq!(*moves(&fresh, season, ClvFrom::Forecast).await, *forecast);

        // A backfill older than r1: every release is read again.
        let before = w.archive.reads();
        assert!(w.keep("2026-11-20T06:00:00Z", "r0", vec![a(0.30)]).await);
        let backfilled = moves(&w.releases, season, ClvFrom::Opening).await;
        assert_eq!(w.archive.reads() - before, 5);
        assert_eq!((blend(&backfilled, A), blend(&backfilled, B)), (Some(0.30), Some(0.61)));
    }
}
