//! The config file as docs/configuration.md documents it: every setting of
//! its table, under the variable's name without `LINECAST_` in lower case,
//! written into one `linecast.toml` with a value other than the default,
//! is read by the server's own loading (`Settings::load_from`, what
//! `Settings::load` does with `LINECAST_CONFIG`) and takes effect. The list
//! of settings is the documentation's table, so a setting documented
//! without a key that works fails here; the values and what each must do
//! are written here, by hand.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use linecast_api::settings::{LogFormat, Settings};
use linecast_core::ports::billing::PlanGrant;

/// The documented variables: the first cell of each row of the table under
/// `| Variable | Default | Meaning |`, with its row.
fn documented_settings() -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/configuration.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if line.starts_with("| Variable | Default | Meaning |") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        let first = line.split('|').nth(1).unwrap().trim();
        if let Some(name) = first.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
            rows.push((name.to_owned(), line.to_owned()));
        }
    }
    assert!(
        rows.len() > 30,
        "the settings table of {} was not found",
        path.display()
    );
    rows
}

/// The documented key of a variable: its name without `LINECAST_`, in
/// lower case.
fn key_of(name: &str) -> String {
    name.strip_prefix("LINECAST_").unwrap_or(name).to_lowercase()
}

type Check = Box<dyn Fn(&Settings)>;

/// For each setting: a TOML value unlike its default, and what the loaded
/// settings must then hold.
fn values(var: &Path) -> BTreeMap<&'static str, (String, Check)> {
    let mut v: BTreeMap<&'static str, (String, Check)> = BTreeMap::new();
    let mut add = |name: &'static str, toml: &str, check: Check| {
        v.insert(name, (toml.to_owned(), check));
    };
    let secs = Duration::from_secs_f64;
    add(
        "LINECAST_BIND",
        r#""127.0.0.1:18123""#,
        Box::new(|s| assert_eq!(s.bind, "127.0.0.1:18123".parse::<SocketAddr>().unwrap())),
    );
    let var_dir = var.to_path_buf();
    add(
        "LINECAST_VAR_DIR",
        &format!("{:?}", var.display().to_string()),
        Box::new(move |s| assert_eq!(s.var_dir, var_dir)),
    );
    add(
        "LINECAST_DATABASE_URL",
        r#""sqlite:///srv/linecast/accounts.db?mode=rwc""#,
        Box::new(|s| assert_eq!(s.database_url, "sqlite:///srv/linecast/accounts.db?mode=rwc")),
    );
    add("LINECAST_MIGRATE", "true", Box::new(|s| assert!(s.migrate)));
    add(
        "LINECAST_STORE_URL",
        r#""file:///srv/linecast/store""#,
        Box::new(|s| assert_eq!(s.store_url, "file:///srv/linecast/store")),
    );
    add(
        "LINECAST_REDIS_URL",
        r#""rediss://:pw@10.0.0.3:6378""#,
        Box::new(|s| assert_eq!(s.redis_url.as_deref(), Some("rediss://:pw@10.0.0.3:6378"))),
    );
    add(
        "LINECAST_REDIS_CA_FILE",
        r#""/etc/linecast/redis/server-ca.pem""#,
        Box::new(|s| {
            assert_eq!(
                s.redis_ca_file,
                Some(PathBuf::from("/etc/linecast/redis/server-ca.pem"))
            );
        }),
    );
    add(
        "LINECAST_REDIS_NAMESPACE",
        r#""from-the-file""#,
        Box::new(|s| assert_eq!(s.redis_namespace, "from-the-file")),
    );
    add(
        "LINECAST_SIGNING_KEY",
        r#""a-signing-key-from-the-file""#,
        Box::new(|s| assert_eq!(s.signing_key.as_deref(), Some("a-signing-key-from-the-file"))),
    );
    add(
        "LINECAST_NOW",
        r#""2026-11-21T17:00:00Z""#,
        Box::new(|s| assert_eq!(s.now.unwrap().to_rfc3339(), "2026-11-21T17:00:00+00:00")),
    );
    add(
        "LINECAST_LOG_FORMAT",
        r#""json""#,
        Box::new(|s| assert_eq!(s.log_format, LogFormat::Json)),
    );
    add(
        "LINECAST_CACHE_BYTES",
        "33554432",
        Box::new(|s| assert_eq!(s.cache_bytes, 32 * 1024 * 1024)),
    );
    add(
        "LINECAST_SPOOL_BYTES",
        "268435456",
        Box::new(|s| assert_eq!(s.spool_bytes, 256 * 1024 * 1024)),
    );
    // Demo mode asked for, so that LINECAST_AUTH_DISABLED is honoured.
    add("LINECAST_DEMO", "true", Box::new(|s| assert!(s.demo)));
    add(
        "LINECAST_PUBLIC_RATE",
        "10",
        Box::new(|s| assert_eq!(s.public_rate_per_second, 10)),
    );
    add(
        "LINECAST_CLIENT_IP_HEADER",
        r#""X-Forwarded-For""#,
        Box::new(|s| assert_eq!(s.client_ip_header.as_deref(), Some("X-Forwarded-For"))),
    );
    add(
        "LINECAST_TRUSTED_PROXY_CIDRS",
        r#""10.0.0.0/8,::1/128""#,
        Box::new(|s| {
            let ip = |t: &str| t.parse::<IpAddr>().unwrap();
            let trusted = |t: &str| s.trusted_proxy_cidrs.iter().any(|r| r.contains(ip(t)));
            assert!(trusted("10.9.8.7") && trusted("::1"));
            assert!(!trusted("11.0.0.1") && !trusted("::2"));
        }),
    );
    add(
        "LINECAST_TRUSTED_PROXIES",
        "2",
        Box::new(|s| assert_eq!(s.trusted_proxies, 2)),
    );
    add("LINECAST_RATE_BURST", "7", Box::new(|s| assert_eq!(s.rate_burst, 7)));
    add(
        "LINECAST_AUTH_FAILURE_RATE",
        "3",
        Box::new(|s| assert_eq!(s.auth_failure_rate, 3)),
    );
    add(
        "LINECAST_AUTH_FAILURE_BURST",
        "9",
        Box::new(|s| assert_eq!(s.auth_failure_burst, 9)),
    );
    add(
        "LINECAST_MAX_KEYS_PER_CUSTOMER",
        "4",
        Box::new(|s| assert_eq!(s.max_keys_per_customer, 4)),
    );
    add(
        "LINECAST_WATCH_INTERVAL",
        "0.5",
        Box::new(move |s| assert_eq!(s.watch_interval, secs(0.5))),
    );
    add(
        "LINECAST_MAX_STREAMS_PER_CUSTOMER",
        "6",
        Box::new(|s| assert_eq!(s.max_streams_per_customer, 6)),
    );
    add(
        "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
        "3",
        Box::new(|s| assert_eq!(s.heavy.max_downloads_per_customer, 3)),
    );
    add(
        "LINECAST_STALL_TIMEOUT_SECS",
        "2.5",
        Box::new(move |s| assert_eq!(s.heavy.stall_timeout, secs(2.5))),
    );
    add(
        "LINECAST_BODY_TIMEOUT_SECS",
        "1.5",
        Box::new(move |s| assert_eq!(s.heavy.body_timeout, secs(1.5))),
    );
    add(
        "LINECAST_HEAVY_THREADS",
        "3",
        Box::new(|s| assert_eq!(s.heavy.heavy_threads, 3)),
    );
    add(
        "LINECAST_MAX_CONNECTIONS",
        "900",
        Box::new(|s| assert_eq!(s.heavy.max_connections, 900)),
    );
    add(
        "LINECAST_DATABASE_TIMEOUT_MS",
        "1500",
        Box::new(|s| assert_eq!(s.database_timeout, Duration::from_millis(1500))),
    );
    add("LINECAST_REDIS_LEASES", "false", Box::new(|s| assert!(!s.redis_leases)));
    add(
        "LINECAST_REDIS_TIMEOUT_MS",
        "750",
        Box::new(|s| assert_eq!(s.redis_timeout, Duration::from_millis(750))),
    );
    add(
        "LINECAST_DB_OUTAGE_GRACE_SECS",
        "45.5",
        Box::new(|s| assert_eq!(s.db_outage_grace, Duration::from_millis(45_500))),
    );
    // The older name is read only without the newer one (settings' unit
    // tests read it alone); in one file with both, the newer wins.
    add(
        "LINECAST_USAGE_STALE_AFTER_MS",
        "20000",
        Box::new(|s| assert_eq!(s.db_outage_grace, Duration::from_millis(45_500))),
    );
    add(
        "LINECAST_SHUTDOWN_TIMEOUT_SECS",
        "7",
        Box::new(|s| assert_eq!(s.shutdown_timeout, 7)),
    );
    add(
        "LINECAST_RELEASE_RETENTION_DAYS",
        "90",
        Box::new(|s| assert_eq!(s.release_retention_days, Some(90))),
    );
    add(
        "LINECAST_REQUEST_LOG_DAYS",
        "3",
        Box::new(|s| assert_eq!(s.request_log_days, 3)),
    );
    add(
        "LINECAST_STORE_TIMEOUT_SECS",
        "1.5",
        Box::new(move |s| assert_eq!(s.store_timeout, secs(1.5))),
    );
    add(
        "LINECAST_DRAIN_GRACE_SECS",
        "0.5",
        Box::new(move |s| assert_eq!(s.drain_grace, secs(0.5))),
    );
    add(
        "LINECAST_METRICS_BIND",
        r#""127.0.0.1:9101""#,
        Box::new(|s| assert_eq!(s.metrics_bind, Some("127.0.0.1:9101".parse().unwrap()))),
    );
    add(
        "LINECAST_PUBLIC_URL",
        r#""https://api.example.com""#,
        Box::new(|s| {
            assert_eq!(s.public_url, "https://api.example.com");
            assert_eq!(s.portal_origin.as_deref(), Some("https://api.example.com"));
        }),
    );
    add(
        "LINECAST_MARKETS",
        r#""kalshi""#,
        Box::new(|s| assert_eq!(s.markets_source, "kalshi")),
    );
    add(
        "LINECAST_KALSHI_BASE_URL",
        r#""https://kalshi.example.com/trade-api/v2""#,
        Box::new(|s| {
            assert_eq!(
                s.kalshi_base_url.as_deref(),
                Some("https://kalshi.example.com/trade-api/v2")
            );
        }),
    );
    add(
        "LINECAST_PRIMARY_BOOK",
        r#""house_book""#,
        Box::new(|s| assert_eq!(s.primary_book.key.as_str(), "house_book")),
    );
    add(
        "LINECAST_PRIMARY_BOOK_TITLE",
        r#""House Book""#,
        Box::new(|s| assert_eq!(s.primary_book.title, "House Book")),
    );
    add(
        "LINECAST_WEBHOOK_ALLOW_LOOPBACK",
        "true",
        Box::new(|s| assert!(s.webhooks.allow_loopback)),
    );
    add(
        "LINECAST_WEBHOOK_ATTEMPT_DAYS",
        "7",
        Box::new(|s| assert_eq!(s.webhooks.attempt_days, 7)),
    );
    add(
        "LINECAST_WEBHOOK_INTERVAL",
        "0.5",
        Box::new(|s| assert_eq!(s.webhooks.interval, std::time::Duration::from_millis(500))),
    );
    add(
        "LINECAST_WEBHOOK_TIMEOUT_SECS",
        "10",
        Box::new(|s| assert_eq!(s.webhooks.timeout, std::time::Duration::from_secs(10))),
    );
    add(
        "LINECAST_WEBHOOK_SCHEDULE_SCALE",
        "0.5",
        Box::new(|s| assert!((s.webhooks.schedule_scale - 0.5).abs() < 1e-12)),
    );
    add(
        "LINECAST_STRIPE_WEBHOOK_SECRETS",
        r#""whsec_0123456789abcdef0123,whsec_fedcba9876543210fedc""#,
        Box::new(|s| {
            assert_eq!(format!("{:?}", s.stripe_webhook_secrets), "WebhookSecrets(2 redacted)");
        }),
    );
    add(
        "LINECAST_STRIPE_PLANS",
        r#""price_ai_monthly=ai:500""#,
        Box::new(|s| {
            assert_eq!(
                s.stripe_plans.grant(Some("price_ai_monthly"), None),
                Some(&PlanGrant {
                    plan: "ai".to_owned(),
                    monthly_limit: Some(500)
                })
            );
        }),
    );
    add(
        "LINECAST_STRIPE_LIVEMODE",
        "true",
        Box::new(|s| assert!(s.stripe_livemode)),
    );
    add(
        "LINECAST_STRIPE_API_KEY",
        r#""sk_test_0123456789abcdefghij""#,
        Box::new(|s| {
            assert_eq!(
                s.stripe_api_key,
                Some(linecast_stripe::ApiKey::parse("sk_test_0123456789abcdefghij").unwrap())
            );
            assert_eq!(format!("{:?}", s.stripe_api_key), "Some(ApiKey(redacted))");
        }),
    );
    add(
        "LINECAST_STRIPE_API_BASE",
        r#""http://127.0.0.1:12111""#,
        Box::new(|s| assert_eq!(s.stripe_api_base.as_deref(), Some("http://127.0.0.1:12111"))),
    );
    add(
        "LINECAST_STRIPE_PRICE_TEXT",
        r#""EUR 39.00 a month""#,
        Box::new(|s| assert_eq!(s.stripe_price_text.as_deref(), Some("EUR 39.00 a month"))),
    );
    add("LINECAST_AUTH_DISABLED", "true", Box::new(|s| assert!(!s.auth_enabled)));
    add(
        "RUST_LOG",
        r#""warn,linecast_api=debug""#,
        Box::new(|s| assert_eq!(s.log_filter.as_deref(), Some("warn,linecast_api=debug"))),
    );
    v
}

#[test]
fn every_documented_setting_works_under_its_documented_key_in_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let var = dir.path().join("var-from-file");
    let documented = documented_settings();
    let mut values = values(&var);
    let mut text = String::new();
    for (name, row) in &documented {
        if row.contains("not read from the file") {
            assert!(
                !values.contains_key(name.as_str()),
                "{name} is documented as not read from the file"
            );
            continue;
        }
        let (value, _) = values
            .get(name.as_str())
            .unwrap_or_else(|| panic!("{name} is documented: give it a value in this test"));
        writeln!(text, "{} = {value}", key_of(name)).unwrap();
    }
    let documented_names: Vec<&str> = documented.iter().map(|(n, _)| n.as_str()).collect();
    values.retain(|name, _| !documented_names.contains(name));
    assert!(
        values.is_empty(),
        "no longer documented: {:?}",
        values.keys().collect::<Vec<_>>()
    );

    let config = dir.path().join("linecast.toml");
    std::fs::write(&config, &text).unwrap();
    // Nothing from the environment: every value is the file's.
    let settings = Settings::load_from(&config, |_| None).unwrap_or_else(|e| panic!("{e}\n{text}"));
    for (name, (_, check)) in self::values(&var) {
        if documented_names.contains(&name) {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&settings)));
            assert!(
                outcome.is_ok(),
                "{name} (`{}` in the file) did not take effect",
                key_of(name)
            );
        }
    }
}

/// A setting the docs say is not read from the file is refused there,
/// rather than silently ignored; so is a key naming nothing.
#[test]
fn a_key_the_documentation_does_not_give_stops_the_start_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("linecast.toml");
    let env_only: Vec<String> = documented_settings()
        .into_iter()
        .filter(|(_, row)| row.contains("not read from the file"))
        .map(|(name, _)| key_of(&name))
        .collect();
    assert!(env_only.contains(&"port".to_owned()), "{env_only:?}");
    for key in env_only
        .iter()
        .map(String::as_str)
        .chain(["public_rate_per_second", "linecast_bind"])
    {
        std::fs::write(&config, format!("{key} = \"1\"\n")).unwrap();
        let err = Settings::load_from(&config, |_| None).unwrap_err();
        assert_eq!(err.name, "LINECAST_CONFIG", "{key}");
        assert!(err.reason.contains(&format!("unknown key '{key}'")), "{key}: {err}");
    }
}

/// The environment wins over the file, key by key.
#[test]
fn the_environment_wins_over_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("linecast.toml");
    std::fs::write(&config, "public_rate = 10\nrate_burst = 7\ndemo = true\n").unwrap();
    let settings = Settings::load_from(&config, |k| (k == "LINECAST_PUBLIC_RATE").then(|| "4".to_owned())).unwrap();
    assert_eq!((settings.public_rate_per_second, settings.rate_burst), (4, 7));
}
