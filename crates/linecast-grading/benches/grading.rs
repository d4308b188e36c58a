//! Grade + summary, tracking and calibration of a synthetic ncaab-size
//! season (6000 rows), cold: no state is reused between iterations. Target: < 20 ms per season.

use chrono::{Days, NaiveDate, NaiveTime};
use criterion::{Criterion, black_box, criterion_group, criterion_main};
use linecast_domain::{
    GameKey, Lines, ModelColumn, ModelProbs, ModelType, Provenance, SeasonLabel, SeasonRow, SeasonType, Sport,
};
use linecast_grading::{CalibrationSource, calibrate_graded, grade_rows, summarize_graded, track_graded};

/// A deterministic linear congruential generator, so every run grades the
/// same season.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn unit(&mut self) -> f64 {
        self.next() as f64 / f64::from(1u32 << 31)
    }
}

fn season(rows: usize) -> Vec<SeasonRow> {
    let mut rng = Lcg(42);
    let start = NaiveDate::from_ymd_opt(2025, 11, 3).unwrap_or_default();
    (0..rows)
        .map(|i| {
            let date = start + Days::new((i / 40) as u64);
            let key = GameKey::new(
                date,
                NaiveTime::from_hms_opt(19, 0, 0).unwrap_or_default(),
                format!("t{}", rng.next() % 360),
                format!("t{}", rng.next() % 360),
            );
            let mut models = ModelProbs::default();
            for c in ModelColumn::ALL.iter().skip(2) {
                models.set(*c, Some(0.3 + 0.4 * rng.unit()));
            }
            let home = 60.0 + (rng.next() % 40) as f64;
            let away = 60.0 + (rng.next() % 40) as f64;
            let settled = i < rows * 95 / 100;
            SeasonRow {
                key,
                game_id: linecast_domain::GameId::default(),
                season: SeasonLabel::starting(Sport::Ncaab, 2025),
                season_type: SeasonType::Regular,
                away_score: settled.then_some(away),
                home_score: settled.then_some(home),
                stored_outcome: None,
                lines: Lines {
                    home_money_line: Some(-150.0),
                    away_money_line: Some(130.0),
                    home_point_spread: Some(-3.5),
                    away_point_spread: Some(3.5),
                    home_point_spread_line: Some(-110.0),
                    away_point_spread_line: Some(-110.0),
                    over_under: Some(150.0),
                    over_line: Some(-110.0),
                    under_line: Some(-110.0),
                    ..Lines::default()
                },
                models,
                quote_source: Some("closing".into()),
                settlement_status: settled.then(|| "settled".into()),
                provenance: Provenance {
                    model_probability_source: Some("live".into()),
                    ..Provenance::default()
                },
                extras: Vec::new(),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rows = season(6000);
    c.bench_function("grade + summary, 6000-row ncaab season", |b| {
        b.iter(|| {
            let graded = grade_rows(black_box(&rows), Sport::Ncaab, ModelType::WonOnSpread);
            summarize_graded(&rows, &graded, ModelType::WonOnSpread)
        });
    });
    c.bench_function("grade + tracking, 6000-row ncaab season", |b| {
        b.iter(|| {
            let graded = grade_rows(black_box(&rows), Sport::Ncaab, ModelType::WonOnSpread);
            track_graded(&rows, &graded)
        });
    });
    c.bench_function("grade + calibration, 6000-row ncaab season", |b| {
        b.iter(|| {
            let graded = grade_rows(black_box(&rows), Sport::Ncaab, ModelType::WonOnSpread);
            calibrate_graded(
                &rows,
                &graded,
                Sport::Ncaab,
                ModelType::WonOnSpread,
                CalibrationSource::All,
            )
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
