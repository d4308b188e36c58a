//! Builds the application from `Settings`. `main.rs` and the integration
//! tests both go through `Application::build`, so tests exercise the same
//! wiring, middleware and error handlers as production.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use actix_web::dev::{ResourceDef, Server};
use actix_web::http::StatusCode;
use actix_web::middleware::{Compress, from_fn};
use actix_web::{App, HttpResponse, HttpServer, web};
use anyhow::Context;
use async_trait::async_trait;
use linecast_core::services::slate::et_date;
use linecast_core::{Clock, FixedClock, SystemClock};
use linecast_store::{ObjectArtifactStore, StoreOptions};
use utoipa_swagger_ui::SwaggerUi;

use crate::error::{ApiError, error_response};
use crate::routes::{edge_picks, health, public_picks, root};
use crate::settings::Settings;
use crate::state::{AppState, Probe};
use crate::{openapi, telemetry};

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A built, bound, not yet running server.
pub struct Application {
    port: u16,
    server: Server,
    pub state: AppState,
}

impl Application {
    pub async fn build(settings: Settings) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&settings.var_dir)
            .with_context(|| format!("creating {}", settings.var_dir.display()))?;
        let clock: Arc<dyn Clock> = match settings.now {
            Some(now) => Arc::new(FixedClock(now)),
            None => Arc::new(SystemClock),
        };
        if settings.demo_data
            && let Some(dir) = local_store_dir(&settings.store_url)
        {
            let today = et_date(clock.now());
            let dir_for_task = dir.clone();
            let generated = tokio::task::spawn_blocking(move || linecast_testkit::ensure_demo_store(&dir_for_task, today))
                .await
                .context("demo data task")?
                .with_context(|| format!("generating demo data into {}", dir.display()))?;
            if generated {
                tracing::info!(dir = %dir.display(), %today, "first run: generated the demo data store");
            }
        }
        let store = Arc::new(
            ObjectArtifactStore::from_url(&settings.store_url, StoreOptions { cache_bytes: settings.cache_bytes, ..StoreOptions::default() })
                .with_context(|| format!("opening store {}", settings.store_url))?,
        );
        let probes: Vec<Arc<dyn Probe>> = vec![Arc::new(StoreProbe(store.clone())), Arc::new(CacheProbe(store.clone()))];
        let state = AppState { store, clock, probes };
        let listener = TcpListener::bind(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let server = run(listener, state.clone())?;
        Ok(Self { port, server, state })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        self.server.await
    }
}

fn local_store_dir(store_url: &str) -> Option<PathBuf> {
    store_url.strip_prefix("file://").map(PathBuf::from)
}

struct StoreProbe(Arc<ObjectArtifactStore>);

#[async_trait]
impl Probe for StoreProbe {
    fn name(&self) -> &'static str {
        "object_storage"
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        self.0.ping().await.map_err(|e| e.to_string())?;
        Ok(serde_json::json!({ "url": self.0.display_url() }))
    }
}

struct CacheProbe(Arc<ObjectArtifactStore>);

#[async_trait]
impl Probe for CacheProbe {
    fn name(&self) -> &'static str {
        "cache"
    }
    async fn check(&self) -> Result<serde_json::Value, String> {
        let stats = self.0.cache_stats();
        Ok(serde_json::json!({
            "kind": "in-process (moka)",
            "entries": stats.entries,
            "weighted_bytes": stats.weighted_bytes,
            "capacity_bytes": stats.capacity_bytes,
        }))
    }
}

fn run(listener: TcpListener, state: AppState) -> anyhow::Result<Server> {
    let doc = openapi::document();
    let templates: Arc<Vec<ResourceDef>> =
        Arc::new(openapi::path_templates(&doc).iter().map(|p| ResourceDef::new(p.as_str())).collect());
    let server = HttpServer::new(move || {
        let templates = templates.clone();
        App::new()
            .app_data(web::Data::new(state.clone()))
            .app_data(json_config())
            .app_data(query_config())
            .app_data(path_config())
            .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
            .wrap(Compress::default())
            .wrap(from_fn(telemetry::log_requests))
            .configure(routes)
            .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", doc.clone()))
            .default_service(web::to(move |req: actix_web::HttpRequest| {
                let templates = templates.clone();
                async move { fallback(&req, &templates) }
            }))
    })
    .listen(listener)?
    .shutdown_timeout(10)
    .run();
    Ok(server)
}

/// Registers every route. Order matters where paths overlap
/// (`/edge-picks/track-record` before `/edge-picks/{date_str}`).
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(root::root)
        .service(health::health)
        .service(health::readiness)
        .service(health::liveness)
        .service(public_picks::public_ml_picks)
        .service(edge_picks::edge_picks)
        .service(edge_picks::track_record)
        .service(edge_picks::edge_picks_for_date);
}

/// Unknown route: 404; a known route with the wrong method: 405. Both in the
/// error shape.
fn fallback(req: &actix_web::HttpRequest, templates: &[ResourceDef]) -> HttpResponse {
    let path = req.path();
    if path == "/docs" {
        return HttpResponse::MovedPermanently().insert_header(("Location", "/docs/")).finish();
    }
    if templates.iter().any(|t| t.is_match(path)) {
        let mut res = error_response(StatusCode::METHOD_NOT_ALLOWED, &format!("Method {} not allowed on {path}", req.method()));
        res.headers_mut().insert(actix_web::http::header::ALLOW, actix_web::http::header::HeaderValue::from_static("GET"));
        return res;
    }
    error_response(StatusCode::NOT_FOUND, &format!("No route for {} {path}", req.method()))
}

fn json_config() -> web::JsonConfig {
    web::JsonConfig::default().limit(MAX_BODY_BYTES).error_handler(|err, _req| {
        use actix_web::error::JsonPayloadError;
        let api = match &err {
            JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                ApiError::PayloadTooLarge(format!("Request body exceeds {MAX_BODY_BYTES} bytes"))
            }
            JsonPayloadError::ContentType => ApiError::BadRequest("Request body must be JSON (Content-Type: application/json)".into()),
            other => ApiError::BadRequest(format!("Invalid JSON body: {other}")),
        };
        api.into()
    })
}

fn query_config() -> web::QueryConfig {
    web::QueryConfig::default().error_handler(|err, _req| ApiError::BadRequest(format!("Invalid query string: {err}")).into())
}

fn path_config() -> web::PathConfig {
    web::PathConfig::default().error_handler(|err, _req| ApiError::BadRequest(format!("Invalid path parameter: {err}")).into())
}
