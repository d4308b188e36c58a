//! The HTTP server: the listener, the actix service and its limits.

use std::net::TcpListener;
use std::sync::Arc;

use actix_http::{HttpService, Protocol};
use actix_service::{IntoServiceFactory, ServiceFactoryExt, fn_service, map_config};
use actix_web::body::MessageBody;
use actix_web::dev::Server;
use actix_web::dev::{AppConfig, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::{App, web};

use crate::stall::StallGuard;
use anyhow::Context;

use crate::error::ApiError;
use crate::routes;
use crate::settings::Settings;
use crate::state::AppState;
use crate::{openapi, telemetry};

/// Largest accepted request body.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The server, bound to `LINECAST_BIND` (not yet running), and its port.
pub(super) fn listen(settings: &Settings, state: &AppState) -> anyhow::Result<(u16, Server)> {
    let doc = openapi::served(&settings.public_url);
    let listener = TcpListener::bind(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
    let port = listener.local_addr()?.port();
    let hsts = settings.public_url.starts_with("https://");
    let server = run(
        listener,
        state.clone(),
        &doc,
        settings.heavy,
        settings.shutdown_timeout,
        hsts,
    )?;
    Ok((port, server))
}

/// The server's worker threads: one per core.
pub(super) fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

pub(super) fn run(
    listener: TcpListener,
    state: AppState,
    doc: &utoipa::openapi::OpenApi,
    heavy: crate::settings::HeavyReads,
    shutdown_timeout_secs: u64,
    hsts: bool,
) -> anyhow::Result<Server> {
    let document = rendered_document(doc)?;
    // What the log and the dispatcher's refusals mask in a path, from the
    // route table's templates: made once, shared by the workers.
    let redaction = web::Data::new(routes::table::redaction());
    let app = move || {
        app(
            state.clone(),
            document.clone(),
            redaction.clone(),
            heavy.body_timeout,
            hsts,
        )
    };
    let addr = listener.local_addr()?;
    let workers = workers();
    // The cap is over all workers; each accepts its share.
    let per_worker = heavy.max_connections.div_ceil(workers).max(1);
    let stall = heavy.stall_timeout;
    // What `HttpServer` assembles, with one difference: each accepted
    // socket is wrapped in a `StallGuard`, so a response the client stops
    // reading is ended after the stall timeout (`crate::stall`). Stop
    // signals are `Application::run_until_stopped`'s (readiness fails for
    // the drain grace first), not actix's.
    let builder = server_builder(workers, per_worker, shutdown_timeout_secs);
    // A graceful stop also closes idle keep-alive connections (and ends
    // keep-alive on busy ones after their request), as `HttpServer` does,
    // so the drain does not wait out the keep-alive timeout.
    let stopping = builder.graceful_shutdown_signal();
    let server = builder
        .listen("linecast", listener, move || {
            let stopping = stopping.clone();
            let http = HttpService::build()
                .graceful_shutdown_signal(move || {
                    let stopping = stopping.clone();
                    async move { stopping.notified().await }
                })
                // Idle keep-alive connections outlive a load balancer's idle
                // timeout (60 s on the common ones), so the proxy, not the
                // server, closes them: a server closing first races the
                // proxy's next request on that connection. A request head
                // may take 30 s (actix's 5 s refused slow but honest clients
                // on a loaded host with 408s; docs/decisions.md, "Connection cap and timeouts").
                .keep_alive(KEEP_ALIVE)
                .client_request_timeout(REQUEST_HEAD_TIMEOUT)
                // A client that closes its side is gone: its response (an
                // event stream, a download) ends now and gives back its slot,
                // instead of when a write next fails.
                .h1_allow_half_closed(false)
                .local_addr(addr)
                .finish(map_config(
                    app()
                        .into_factory()
                        .map_err(|err: actix_web::Error| err.error_response()),
                    move |()| AppConfig::__priv_test_new(false, addr.to_string(), addr),
                ));
            fn_service(move |io: actix_rt::net::TcpStream| {
                let peer = io.peer_addr().ok();
                std::future::ready(Ok::<_, actix_http::error::DispatchError>((
                    StallGuard::new(io, stall, peer),
                    Protocol::Http1,
                    peer,
                )))
            })
            .and_then(http)
        })?
        .run();
    Ok(server)
}

/// The application each worker serves: the OpenAPI document, the state,
/// what the route table hands down (the rows the portal's pages speak of,
/// the log's redaction of paths), the extractors' error handlers and the
/// body limit, every request going to the route table's dispatcher, under
/// telemetry and, served over https, HSTS.
pub(super) fn app(
    state: AppState,
    document: Arc<crate::responses::Rendered>,
    redaction: web::Data<telemetry::Redaction>,
    body_timeout: std::time::Duration,
    hsts: bool,
) -> App<
    impl ServiceFactory<
        ServiceRequest,
        Config = (),
        Response = ServiceResponse<impl MessageBody>,
        Error = actix_web::Error,
        InitError = (),
    >,
> {
    let gate = state.gate.clone();
    App::new()
        .app_data(web::Data::new(routes::docs::OpenApiDocument(document)))
        .app_data(web::Data::new(state))
        .app_data(web::Data::new(routes::table::portal_rows()))
        .app_data(redaction.clone())
        .app_data(json_config())
        .app_data(query_config())
        .app_data(path_config())
        .app_data(web::PayloadConfig::new(MAX_BODY_BYTES))
        // Every request is answered by the route table's dispatcher, inside
        // its context. Served over https (the public URL says so):
        // browsers keep to https for a year. Not for subdomains, which are
        // the operator's.
        .wrap(telemetry::RequestContext {
            hsts: hsts.then(|| actix_web::http::header::HeaderValue::from_static(HSTS)),
            answers: routes::dispatch::Dispatcher::new(gate, body_timeout, redaction.clone()),
            redaction,
        })
}

/// The `Retry-After` of a refusal for the download cap: a download in
/// flight either finishes or is cut by the stall timeout; a few seconds is
/// a fair first wait.
pub const DOWNLOAD_RETRY_AFTER_SECS: u64 = 5;

/// `Strict-Transport-Security` when `LINECAST_PUBLIC_URL` is https.
pub const HSTS: &str = "max-age=31536000";

/// How long an idle connection is kept open.
pub const KEEP_ALIVE: std::time::Duration = std::time::Duration::from_secs(75);

/// How long a client may take to send a request's head.
pub const REQUEST_HEAD_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

pub(super) fn json_config() -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(MAX_BODY_BYTES)
        .error_handler(|err, _req| {
            use actix_web::error::JsonPayloadError;
            let api = match &err {
                JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                    ApiError::PayloadTooLarge(format!("Request body exceeds {MAX_BODY_BYTES} bytes"))
                }
                JsonPayloadError::ContentType => {
                    ApiError::BadRequest("Request body must be JSON (Content-Type: application/json)".into())
                }
                other => ApiError::BadRequest(format!("Invalid JSON body: {other}")),
            };
            api.into()
        })
}

pub(super) fn query_config() -> web::QueryConfig {
    web::QueryConfig::default()
        .error_handler(|err, _req| ApiError::BadRequest(format!("Invalid query string: {err}")).into())
}

pub(super) fn path_config() -> web::PathConfig {
    web::PathConfig::default()
        .error_handler(|err, _req| ApiError::BadRequest(format!("Invalid path parameter: {err}")).into())
}

/// The OpenAPI document as rendered bytes (ETag, gzip and brotli made
/// once), served like every other body.
fn rendered_document(doc: &utoipa::openapi::OpenApi) -> anyhow::Result<Arc<crate::responses::Rendered>> {
    let rendered =
        crate::responses::Rendered::new(doc).map_err(|e| anyhow::anyhow!("rendering the OpenAPI document: {e}"))?;
    Ok(Arc::new(rendered))
}

/// The server's `workers`, each accepting at most `per_worker`
/// connections, waiting `shutdown_timeout_secs` for requests in flight at
/// a stop, and taking no signals of its own.
fn server_builder(workers: usize, per_worker: usize, shutdown_timeout_secs: u64) -> actix_server::ServerBuilder {
    actix_server::Server::build()
        .workers(workers)
        .max_concurrent_connections(per_worker)
        .shutdown_timeout(shutdown_timeout_secs)
        .disable_signals()
}
