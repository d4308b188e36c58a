//! The adapters a server is built on, from `Settings`: the store, the
//! accounts database, the limiter, the slot registry and the key relay.

use std::sync::Arc;

use anyhow::Context;
use linecast_core::ports::key_relay::KeyRelay;
use linecast_core::ports::limits::Limiter;
use linecast_core::services::slots::{InProcessSlots, SlotRegistry};
use linecast_core::{Accounts, Clock, FixedClock, SystemClock, UsageMeter};
use linecast_db::{PinnedAccounts, SeaAccounts};
use linecast_domain::time::et_date;
use linecast_limits::{
    InProcessLimiter, LeasedRedisLimiter, RedisEndpoint, RedisKeyRelay, RedisLimiter, RedisSlots, SlotLeases,
};
use linecast_signer::HmacSigner;
use linecast_store::{ObjectArtifactStore, StoreOptions};

use crate::settings::Settings;

/// The raw adapters behind the services. Handlers never see these (they
/// get `AppState`); the integration tests use them to seed and inspect the
/// database, the limiter's buffer and download tokens.
#[derive(Clone)]
pub struct Adapters {
    pub accounts: Arc<dyn Accounts>,
    pub usage: Arc<dyn UsageMeter>,
    pub limiter: Arc<dyn Limiter>,
    /// Counts each customer's open streams and large downloads: in process,
    /// or across the instances through Redis.
    pub slots: Arc<dyn SlotRegistry>,
    /// The embedded store's download-token signer.
    pub signer: Arc<HmacSigner>,
    /// The portal's sessions.
    pub sessions: Arc<dyn linecast_core::ports::sessions::PortalSessions>,
    /// Key records passed between the instances through Redis, for one cut
    /// off from the database (none without Redis).
    pub key_relay: Option<Arc<dyn KeyRelay>>,
}

/// `LINECAST_REDIS_URL` with the CA of `LINECAST_REDIS_CA_FILE`, if any.
pub(super) fn redis_endpoint(settings: &Settings) -> anyhow::Result<Option<RedisEndpoint>> {
    let Some(url) = &settings.redis_url else {
        return Ok(None);
    };
    let endpoint = RedisEndpoint::new(url.as_str());
    Ok(Some(match &settings.redis_ca_file {
        Some(path) => endpoint
            .with_ca_file(path)
            .map_err(|e| anyhow::anyhow!("invalid setting LINECAST_REDIS_CA_FILE: {e}"))?,
        None => endpoint,
    }))
}

/// A failed Redis connection, with what to do about an untrusted certificate.
pub(super) fn redis_error(what: &str, e: &linecast_core::ports::limits::LimitsError) -> anyhow::Error {
    let text = e.to_string();
    if text.contains("TLS certificate is not trusted") {
        anyhow::anyhow!(
            "{what}: {text}; set LINECAST_REDIS_CA_FILE to the CA certificate (PEM) that signed the server's certificate"
        )
    } else {
        anyhow::anyhow!("{what}: {text}")
    }
}

pub(super) async fn build_limiter(settings: &Settings, usage: Arc<dyn UsageMeter>) -> anyhow::Result<Arc<dyn Limiter>> {
    Ok(match redis_endpoint(settings)? {
        Some(redis) if settings.redis_leases => Arc::new(
            LeasedRedisLimiter::connect(redis, usage, settings.redis_namespace.clone(), settings.redis_timeout)
                .await
                .map_err(|e| redis_error("connecting to Redis", &e))?,
        ),
        Some(redis) => Arc::new(
            RedisLimiter::connect_with_timeout(redis, usage, settings.redis_namespace.clone(), settings.redis_timeout)
                .await
                .map_err(|e| redis_error("connecting to Redis", &e))?,
        ),
        None => Arc::new(InProcessLimiter::new(usage)),
    })
}

/// The registry of stream and download slots: shared through Redis when
/// Redis is configured (with the heartbeat that renews this instance's
/// leases), else this instance's own.
pub(super) async fn build_slots(
    settings: &Settings,
) -> anyhow::Result<(Arc<dyn SlotRegistry>, Option<linecast_limits::Flusher>)> {
    Ok(match redis_endpoint(settings)? {
        Some(redis) => {
            let slots = Arc::new(
                RedisSlots::connect(
                    redis,
                    settings.redis_namespace.clone(),
                    settings.redis_timeout,
                    SlotLeases::DEFAULT,
                )
                .await
                .map_err(|e| redis_error("connecting to Redis for the stream and download slots", &e))?,
            );
            let heartbeat = slots.spawn_heartbeat();
            (slots, Some(heartbeat))
        }
        None => (Arc::new(InProcessSlots::new()), None),
    })
}

/// The key relay between the instances: through Redis when Redis is
/// configured, else none (one instance has no other to hear from).
pub(super) async fn build_key_relay(settings: &Settings) -> anyhow::Result<Option<Arc<dyn KeyRelay>>> {
    let Some(redis) = redis_endpoint(settings)? else {
        return Ok(None);
    };
    let relay = RedisKeyRelay::connect(redis, settings.redis_namespace.clone(), settings.redis_timeout)
        .await
        .map_err(|e| redis_error("connecting to Redis for the key relay", &e))?;
    Ok(Some(Arc::new(relay)))
}

/// The first step: the var folder, the clock, the mode said in the log,
/// and in demo mode the demo data generated into an empty local store.
pub(super) async fn prepare(settings: &Settings) -> anyhow::Result<Arc<dyn Clock>> {
    std::fs::create_dir_all(&settings.var_dir).with_context(|| format!("creating {}", settings.var_dir.display()))?;
    let clock: Arc<dyn Clock> = match (&settings.manual_clock, settings.now) {
        (Some(manual), _) => manual.clone(),
        (None, Some(now)) => Arc::new(FixedClock(now)),
        (None, None) => Arc::new(SystemClock),
    };
    if settings.demo {
        tracing::info!(
            "demo mode: demo data and a demo customer are created when absent (configure a database or store URL for production)"
        );
    } else {
        tracing::info!("production mode: nothing is generated; an empty store is reported down");
    }
    if settings.demo
        && let Some(dir) = local_store_dir(&settings.store_url)
    {
        let now = clock.now();
        let today = et_date(now);
        let dir_for_task = dir.clone();
        let generated = tokio::task::spawn_blocking(move || linecast_demo::ensure_demo_store(&dir_for_task, now))
            .await
            .context("demo data task")?
            .with_context(|| format!("generating demo data into {}", dir.display()))?;
        if generated {
            tracing::info!(dir = %dir.display(), %today, "first run: generated the demo data store");
            crate::demo::note_generation(&settings.var_dir, now)?;
        }
    }
    Ok(clock)
}

/// The artifact store, its parsed artifacts cached in their share of the
/// memory budget.
pub(super) fn open_store(settings: &Settings) -> anyhow::Result<Arc<ObjectArtifactStore>> {
    Ok(Arc::new(
        ObjectArtifactStore::from_url(
            &settings.store_url,
            StoreOptions {
                cache_bytes: linecast_core::memory::Budget::new(settings.cache_bytes).artifacts(),
                version_ttl: settings.freshness_windows.version_ttl,
                timeout: settings.store_timeout,
                ..StoreOptions::default()
            },
        )
        .with_context(|| format!("opening store {}", settings.store_url))?,
    ))
}

/// The accounts database: the folder of a SQLite file made, connected,
/// its schema checked (or migrated, in demo mode or when asked).
pub(super) async fn open_accounts(settings: &Settings) -> anyhow::Result<Arc<PinnedAccounts>> {
    if let Some(path) = settings.database_url.strip_prefix("sqlite://")
        && let Some(parent) = std::path::Path::new(path.split('?').next().unwrap_or(path)).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    let pool = SeaAccounts::open_with_timeout(&settings.database_url, settings.database_timeout)
        .await
        .map_err(|e| anyhow::anyhow!("connecting to the accounts database: {e}"))?;
    crate::migrations::prepare(pool.connection(), settings.demo || settings.migrate).await?;
    Ok(Arc::new(
        PinnedAccounts::new(pool, tokio::runtime::Handle::current()).with_timeout(settings.database_timeout),
    ))
}

impl Adapters {
    /// The database as its ports, the limiter and slot registry, and the
    /// download-token signer (`LINECAST_SIGNING_KEY`, else a random key).
    pub(super) fn new(
        settings: &Settings,
        db: &Arc<PinnedAccounts>,
        limiter: Arc<dyn Limiter>,
        slots: Arc<dyn SlotRegistry>,
        key_relay: Option<Arc<dyn KeyRelay>>,
    ) -> Self {
        Self {
            accounts: db.clone(),
            usage: db.clone(),
            limiter,
            slots,
            key_relay,
            signer: Arc::new(match &settings.signing_key {
                Some(secret) => HmacSigner::new(secret.as_bytes(), settings.public_url.clone()),
                None => HmacSigner::with_random_secret(settings.public_url.clone()),
            }),
            sessions: db.clone(),
        }
    }
}

/// Warnings about settings that work but are likely mistakes, written
/// once logging has started (settings are read before).
pub(super) fn warn_of_settings(settings: &Settings) {
    if settings.redis_url.is_some() && settings.signing_key.is_none() {
        // Redis means several instances; each would sign download links
        // with its own random key, which the others refuse.
        tracing::warn!(
            "LINECAST_REDIS_URL is set without LINECAST_SIGNING_KEY: each instance signs download links with its own random key, so a link signed by one is refused by the others; set one LINECAST_SIGNING_KEY for all instances"
        );
    }
    if !settings.auth_enabled {
        tracing::warn!("LINECAST_AUTH_DISABLED is set (demo mode only): every endpoint is open and unlimited");
    }
}

/// The folder of a `file://` store (none for a bucket).
fn local_store_dir(store_url: &str) -> Option<std::path::PathBuf> {
    store_url.strip_prefix("file://").map(std::path::PathBuf::from)
}
