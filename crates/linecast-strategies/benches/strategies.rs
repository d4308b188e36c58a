//! All sixteen strategies under both accountings over a synthetic ~6000-row
//! season, cold (no cache): target < 20 ms for the whole batch per market.

use std::hint::black_box;

use chrono::{Days, NaiveDate, NaiveTime};
use criterion::{Criterion, criterion_group, criterion_main};
use linecast_domain::{
    GameKey, Lines, ModelColumn, ModelProbs, ModelType, Provenance, SeasonLabel, SeasonRow, SeasonType, Sport,
};
use linecast_strategies::{Accounting, leaderboard, replay};

/// A small deterministic generator (xorshift) so the bench needs no rand.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn price(&mut self) -> f64 {
        let p = (self.next() * 300.0).round();
        if p < 100.0 { -(100.0 + p) } else { p }
    }
}

fn season(n: usize) -> Vec<SeasonRow> {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let start = NaiveDate::from_ymd_opt(2025, 10, 20).unwrap_or_default();
    let label = SeasonLabel::parse(Sport::Nba, "2025-26").ok();
    (0..n)
        .map(|i| {
            let date = start.checked_add_days(Days::new((i / 12) as u64)).unwrap_or(start);
            let time = NaiveTime::from_hms_opt(12 + (i % 10) as u32, 0, 0).unwrap_or_default();
            let mut models = ModelProbs::default();
            models.set(ModelColumn::Blend, Some(0.3 + g.next() * 0.4));
            let spread = ((g.next() - 0.5) * 24.0).round() / 2.0;
            let total = 200.0 + (g.next() * 60.0).round() / 2.0;
            let mut row = SeasonRow {
                key: GameKey::new(date, time, format!("away_{}", i % 30), format!("home_{}", (i + 7) % 30)),
                game_id: linecast_domain::GameId::default(),
                season: label.unwrap_or_else(|| SeasonLabel::containing(Sport::Nba, date)),
                season_type: SeasonType::Regular,
                away_score: Some((90.0 + g.next() * 40.0).round()),
                home_score: Some((90.0 + g.next() * 40.0).round()),
                stored_outcome: Some(u8::from(g.next() > 0.5)),
                lines: Lines::default(),
                models,
                quote_source: Some("closing".into()),
                settlement_status: Some(if g.next() > 0.05 { "settled" } else { "pending" }.into()),
                provenance: Provenance::default(),
                extras: Vec::new(),
            };
            let l = &mut row.lines;
            l.home_money_line = Some(g.price());
            l.away_money_line = Some(g.price());
            l.open_home_money_line = Some(g.price());
            l.home_point_spread = Some(spread);
            l.away_point_spread = Some(-spread);
            l.open_home_point_spread = Some(spread + ((g.next() - 0.5) * 4.0).round() / 2.0);
            l.home_point_spread_line = Some(-110.0);
            l.away_point_spread_line = Some(-110.0);
            l.over_under = Some(total);
            l.open_over_under = Some(total + ((g.next() - 0.5) * 4.0).round() / 2.0);
            l.over_line = Some(g.price());
            l.under_line = Some(-110.0);
            row
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let rows = season(6000);
    for mt in [ModelType::WonOnPoints, ModelType::WonOnSpread, ModelType::OverUnder] {
        c.bench_function(&format!("leaderboard_16x2_accountings_6000_rows_{mt}"), |b| {
            b.iter(|| {
                for acc in Accounting::ALL {
                    black_box(leaderboard(black_box(&rows), Sport::Nba, mt, acc));
                }
            });
        });
    }
    c.bench_function("replay_one_strategy_6000_rows_won_on_spread", |b| {
        b.iter(|| {
            black_box(replay(
                black_box(&rows),
                Sport::Nba,
                ModelType::WonOnSpread,
                Accounting::RecordedV2,
                "hybrid-pb-pb",
            ))
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
