//! Season-store parse time (the cost paid once per object version) and the
//! cached read path (paid on every request).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use linecast_core::ArtifactStore;
use linecast_domain::{ModelType, SeasonLabel, Sport};
use linecast_store::{ObjectArtifactStore, StoreOptions, parse};
use object_store::path::Path;
use object_store::{ObjectStoreExt, PutPayload};

/// The largest season store under `fixtures/store/seasons`, if generated.
fn largest_fixture_season() -> Option<(String, Sport, ModelType, SeasonLabel, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/store");
    let mut best: Option<(u64, String)> = None;
    for sport in std::fs::read_dir(root.join("seasons")).ok()? {
        for model in std::fs::read_dir(sport.ok()?.path()).ok()? {
            for file in std::fs::read_dir(model.ok()?.path()).ok()? {
                let path = file.ok()?.path();
                let size = std::fs::metadata(&path).ok()?.len();
                let key = path.strip_prefix(&root).ok()?.to_string_lossy().into_owned();
                if best.as_ref().is_none_or(|(s, _)| size > *s) {
                    best = Some((size, key));
                }
            }
        }
    }
    let (_, key) = best?;
    let parts: Vec<&str> = key.split('/').collect();
    let sport = Sport::parse(parts[1]).ok()?;
    let model = ModelType::parse(parts[2]).ok()?;
    let label = SeasonLabel::parse(sport, parts[3].strip_suffix(".csv")?).ok()?;
    let bytes = std::fs::read(root.join(&key)).ok()?;
    Some((key, sport, model, label, bytes))
}

/// A full-size mlb season: 2,430 games with every contract column and two extras.
fn synthetic_mlb_season() -> Vec<u8> {
    let mut out = String::from(
        "date,time_est,season,season_type,away_team,home_team,away_score,home_score,over,home_money_line,away_money_line,open_home_money_line,open_away_money_line,home_point_spread,away_point_spread,home_point_spread_line,away_point_spread_line,open_home_point_spread,open_away_point_spread,over_under,open_over_under,over_line,under_line,BLEND,IMPLIED,CATB,RF,LGB,LOGR,XGB,XT,quote_source,settlement_status,model_probability_source,model_training_through,model_reconstruction_method,forecast_source,forecast_run,forecast_published_at,home_rest_days,travel_km\n",
    );
    for i in 0..2430u32 {
        let day = 1 + i / 15;
        let (month, dom) = (4 + day / 28, 1 + day % 28);
        writeln!(
            out,
            "2025-{month:02}-{dom:02},19:{:02}:00,2025,regular,team_{},team_{},4,5,1,-150,130,-145,125,-1.5,1.5,120,-140,-1.5,1.5,8.5,8,-110,-110,0.5512,0.5601,0.54,0.55,0.56,0.53,0.57,0.52,closing,settled,live,,,live,mlb-2025-r1,2025-04-01T13:00:00Z,1,800",
            i % 15,
            i % 30,
            (i + 1) % 30
        )
        .unwrap();
    }
    out.into_bytes()
}

fn bench(c: &mut Criterion) {
    if let Some((key, sport, model, label, bytes)) = largest_fixture_season() {
        let name = format!("parse largest fixture season ({key}, {} bytes)", bytes.len());
        c.bench_function(&name, |b| {
            b.iter(|| parse::season(&key, sport, model, label, black_box(&bytes)).unwrap());
        });
    }

    let mlb = synthetic_mlb_season();
    let label = SeasonLabel::parse(Sport::Mlb, "2025").unwrap();
    let key = "seasons/mlb/over_under/2025.csv";
    c.bench_function(
        &format!("parse synthetic mlb season (2430 rows, {} bytes)", mlb.len()),
        |b| {
            b.iter(|| parse::season(key, Sport::Mlb, ModelType::OverUnder, label, black_box(&mlb)).unwrap());
        },
    );

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let options = StoreOptions {
        version_ttl: Duration::from_hours(1),
        ..StoreOptions::default()
    };
    let store = ObjectArtifactStore::from_url("memory://", options).unwrap();
    rt.block_on(
        store
            .object_store()
            .put(&Path::from(key), PutPayload::from(mlb.clone())),
    )
    .unwrap();
    rt.block_on(store.season(Sport::Mlb, ModelType::OverUnder, label))
        .unwrap();
    c.bench_function("cached season read (version within TTL)", |b| {
        b.iter(|| {
            rt.block_on(store.season(Sport::Mlb, ModelType::OverUnder, label))
                .unwrap()
        });
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
