//! Runs `linecast-admin` in a fresh temporary folder with its own database,
//! and opens the same database in process when a test needs to look inside.

use std::path::Path;
use std::process::{Command, Output};

use linecast_db::SeaAccounts;
use serde_json::Value;
use tempfile::TempDir;

/// A temporary folder, used as the working directory and for the database.
pub struct Admin {
    dir: TempDir,
    database_url: String,
}

/// What one run printed and how it ended.
pub struct Run {
    pub ok: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr: {}", self.stdout, self.stderr))
    }
}

impl Admin {
    /// A folder with a database that `linecast-admin migrate` has made.
    pub fn new() -> Self {
        let admin = Self::unmigrated();
        admin.ok(&["migrate"]);
        admin
    }

    /// A folder whose database does not exist yet.
    pub fn unmigrated() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let database_url = format!("sqlite://{}?mode=rwc", dir.path().join("accounts.db").display());
        Self { dir, database_url }
    }

    /// The database's URL.
    pub fn database_url(&self) -> &str {
        &self.database_url
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Runs the binary with the database in `LINECAST_DATABASE_URL`.
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_with(args, &[("LINECAST_DATABASE_URL", &self.database_url)])
    }

    /// Runs the binary with only the given `LINECAST_*` variables set.
    pub fn run_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_linecast-admin"));
        cmd.args(args).current_dir(self.dir.path());
        for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("LINECAST_")) {
            cmd.env_remove(key);
        }
        cmd.envs(env.iter().copied());
        to_run(&cmd.output().unwrap())
    }

    /// Runs and insists on success.
    pub fn ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert!(
            run.ok,
            "{args:?} failed:\nstdout: {}\nstderr: {}",
            run.stdout, run.stderr
        );
        run
    }

    /// Runs with `--json`, insists on success and parses stdout.
    pub fn json(&self, args: &[&str]) -> Value {
        let mut with_json = args.to_vec();
        with_json.push("--json");
        self.ok(&with_json).json()
    }

    /// Runs and insists on failure with a message on stderr.
    pub fn fails(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert!(!run.ok, "{args:?} should have failed but printed:\n{}", run.stdout);
        assert!(!run.stderr.trim().is_empty(), "{args:?} failed without a message");
        run
    }

    /// Creates `email` with defaults and returns its id.
    pub fn customer(&self, email: &str) -> i64 {
        self.json(&["customers", "create", "--email", email, "--name", "Test Customer"])["customer_id"]
            .as_i64()
            .unwrap()
    }

    /// The same database, opened in process.
    pub async fn db(&self) -> SeaAccounts {
        SeaAccounts::connect(&self.database_url).await.unwrap()
    }
}

fn to_run(out: &Output) -> Run {
    Run {
        ok: out.status.success(),
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
