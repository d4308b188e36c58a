//! Test databases: a SQLite file in a temporary folder, or a fresh
//! PostgreSQL schema so concurrent runs never see each other's rows.

use sea_orm::{ConnectionTrait, Database};

/// A SQLite database file that lives as long as the value.
pub struct TestDb {
    pub url: String,
    _dir: tempfile::TempDir,
}

impl TestDb {
    /// A file in a folder that does not exist yet, so `connect` must create it.
    pub fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("linecast.db");
        Self {
            url: format!("sqlite://{}?mode=rwc", path.display()),
            _dir: dir,
        }
    }
}

/// A PostgreSQL schema created for one test.
pub struct PgSchema {
    pub url: String,
    base: String,
    schema: String,
}

impl PgSchema {
    /// `None` (and a note on stderr) when `LINECAST_TEST_DATABASE_URL` is unset.
    pub async fn create() -> Option<Self> {
        let Ok(base) = std::env::var("LINECAST_TEST_DATABASE_URL") else {
            assert!(
                std::env::var_os("LINECAST_REQUIRE_EXTERNAL").is_none(),
                "LINECAST_TEST_DATABASE_URL is not set but LINECAST_REQUIRE_EXTERNAL asks for the PostgreSQL suite"
            );
            eprintln!("LINECAST_TEST_DATABASE_URL is not set: PostgreSQL suite skipped");
            return None;
        };
        let schema = format!("t_{:016x}", rand::random::<u64>());
        let admin = Database::connect(base.as_str()).await.unwrap();
        admin
            .execute_unprepared(&format!("CREATE SCHEMA {schema}"))
            .await
            .unwrap();
        admin.close().await.unwrap();
        let sep = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{sep}options[search_path]={schema}");
        Some(Self { url, base, schema })
    }

    /// Drops the schema after a passing test (a failing one leaves it for inspection).
    pub async fn drop_schema(self) {
        let admin = Database::connect(self.base.as_str()).await.unwrap();
        admin
            .execute_unprepared(&format!("DROP SCHEMA {} CASCADE", self.schema))
            .await
            .unwrap();
        admin.close().await.unwrap();
    }
}
