//! The release log: one row per series and publication instant (to the
//! microsecond), whichever instance records first; read back oldest first;
//! forgotten before a cutoff.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use linecast_core::ports::releases::{KeptRelease, ReleaseLog, Series};
use linecast_db::SeaAccounts;
use linecast_domain::{ModelType, Sport};

fn release(series: Series, at: &str, digest: char) -> KeptRelease {
    KeptRelease {
        series,
        published_at: DateTime::parse_from_rfc3339(at).unwrap().with_timezone(&Utc),
        digest: digest.to_string().repeat(64),
        game_count: 12,
        size: 2_048,
    }
}

const NBA_ML: Series = Series::Predictions(Sport::Nba, ModelType::WonOnPoints);
const NBA_ODDS: Series = Series::Odds(Sport::Nba);

pub async fn a_release_is_recorded_once_by_whichever_instance_comes_first(url: String) {
    let a = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let b = Arc::new(SeaAccounts::connect(&url).await.unwrap());
    let r = release(NBA_ML, "2026-11-20T14:00:00.123456Z", 'a');
    let (first, second) = tokio::join!(a.record(&r), b.record(&r));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert!(first ^ second, "exactly one records it: {first} {second}");
    assert!(!a.record(&r).await.unwrap());
    let kept = b.releases(NBA_ML).await.unwrap();
    assert_eq!(kept, [r], "read back equal, to the microsecond");
}

pub async fn releases_read_back_oldest_first_per_series_and_are_forgotten_before_a_cutoff(url: String) {
    let db = SeaAccounts::connect(&url).await.unwrap();
    let late = release(NBA_ML, "2026-11-21T10:00:00Z", 'c');
    let early = release(NBA_ML, "2026-11-20T10:00:00Z", 'b');
    let odds = release(NBA_ODDS, "2026-11-20T11:00:00Z", 'd');
    let other = release(
        Series::Predictions(Sport::Nba, ModelType::OverUnder),
        "2026-11-20T12:00:00Z",
        'e',
    );
    for r in [&late, &early, &odds, &other] {
        assert!(db.record(r).await.unwrap());
    }
    assert_eq!(db.releases(NBA_ML).await.unwrap(), [early.clone(), late.clone()]);
    assert_eq!(db.releases(NBA_ODDS).await.unwrap(), [odds]);
    let forgotten = db
        .forget_before(late.published_at - Duration::microseconds(1))
        .await
        .unwrap();
    assert_eq!(forgotten.len(), 3, "{forgotten:?}");
    assert_eq!(db.releases(NBA_ML).await.unwrap(), [late]);
    assert!(db.releases(NBA_ODDS).await.unwrap().is_empty());
}
