//! Route handlers, one module per area, and `register`: the one place that
//! says which routes exist and who may call them. Handlers parse, call a use
//! case and shape the response; they hold no rules of their own.

pub mod account;
pub mod analytics;
pub mod compat;
pub mod data_status;
pub mod datasets;
pub mod edge_picks;
pub mod events;
pub mod health;
pub mod markets;
pub mod odds;
pub mod predictions;
pub mod public_picks;
pub mod results;
pub mod root;
pub mod strategies;

use actix_web::dev::{ServiceFactory, ServiceRequest};
use actix_web::guard;
use actix_web::middleware::{Compress, from_fn};
use utoipa_actix_web::{UtoipaApp, scope};

use crate::auth::Policy;
use crate::auth::anonymous::per_address;
use crate::auth::middleware::{Hold, gate, gate_holding};

/// Registers every route, and with it the OpenAPI document (utoipa-actix-web
/// collects each operation from the same registration).
///
/// Access is decided here, by construction:
/// - the public routes are the ones registered without a gate, and only
///   these: root, health, readiness, liveness, data-status, the
///   public feed, the edge-picks family and signed downloads (`/docs` and
///   `/openapi.json` are added by `startup`). Each sits in a scope of its
///   own prefix, so a wrong method on one is a 405 without a key;
/// - everything else under `/api/v1` sits in a scope wrapped by the access
///   gate. The last scope, `/api/v1` itself, takes every route not placed
///   elsewhere, so a route added without being declared public needs an
///   active subscription, and so does any unknown `/api/v1` path.
///
/// Order matters: actix tries services in registration order and a scope
/// owns every path under its prefix. The data scopes come first because
/// every request pays one prefix match per scope tried before its own
/// (about 3,000 instructions a request when they came after the thirteen
/// public and account scopes; `bench/instructions.sh`).
///
/// Compression is decided here too. Bodies of the read pipeline
/// (`responses::serve`) carry their own coding, gzip and brotli made once
/// per body, so their scopes have no compression layer: a hot read is not
/// negotiated twice. Every scope whose handlers build their body on each
/// request is wrapped in actix's `Compress` (`startup` does the same for
/// the OpenAPI document, Swagger UI and unknown routes). The change stream
/// says `Content-Encoding: identity` and is never compressed.
pub fn register<T>(app: UtoipaApp<T>) -> UtoipaApp<T>
where
    T: ServiceFactory<ServiceRequest, Config = (), Error = actix_web::Error, InitError = ()>,
{
    app
        // The "AI" routes: an active subscription. They carry nearly all the
        // traffic, so they are tried first (each scope tried costs a prefix
        // match); no other scope's prefix overlaps theirs. One scope per
        // first path segment keeps routing to a few candidates per request
        // (actix tries a scope's resources in order).
        .service(
            scope("/api/v1/predictions")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(predictions::predictions),
        )
        // Exports are large downloads: each holds one of its customer's
        // download slots, taken by the gate before the request is counted.
        // The router matches this scope only for the export resource; every
        // other results path goes on to the next scope.
        .service(
            scope("/api/v1/results/{sport}/{model_type}/export")
                .wrap(from_fn(gate_holding(Policy::Subscriber, Hold::Download)))
                .service(results::export),
        )
        .service(
            scope("/api/v1/results")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(results::seasons)
                .service(analytics::team_form_route)
                .service(analytics::rolling_route)
                .service(analytics::density_route)
                .service(results::results),
        )
        .service(
            scope("/api/v1/summary")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(analytics::summary),
        )
        .service(
            scope("/api/v1/models")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(analytics::tracking)
                .service(analytics::calibration),
        )
        .service(
            scope("/api/v1/strategies")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(strategies::replay)
                .service(strategies::strategies),
        )
        .service(
            scope("/api/v1/odds")
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(odds::odds),
        )
        // Public: service identity and probes (never rate-limited, so a load
        // balancer's probes always get through). Each probe is its own
        // scope so a wrong method stays inside it (405 from the fallback)
        // instead of falling through to the gated `/api/v1` scope (401).
        .service(root::root)
        .service(scope("/api/v1/health").service(health::health))
        .service(scope("/api/v1/readiness").service(health::readiness))
        .service(scope("/api/v1/liveness").service(health::liveness))
        // Public data: rate-limited per client address.
        .service(
            scope("/api/v1/public")
                .wrap(from_fn(per_address))
                .service(public_picks::public_ml_picks),
        )
        .service(
            scope("/api/v1/data-status")
                .wrap(Compress::default())
                .wrap(from_fn(per_address))
                .service(data_status::data_status),
        )
        .service(
            scope("/api/v1/edge-picks")
                .wrap(Compress::default())
                .wrap(from_fn(per_address))
                .service(edge_picks::edge_picks)
                .service(edge_picks::track_record)
                .service(edge_picks::edge_picks_for_date),
        )
        .service(
            scope("/api/v1/downloads")
                .wrap(Compress::default())
                .wrap(from_fn(per_address))
                .service(datasets::download),
        )
        // Any valid key: the spec's "any authenticated key" and "key" routes.
        .service(
            scope("/api/v1/markets")
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::AnyKey)))
                .service(markets::markets),
        )
        .service(
            scope("/api/v1/events")
                .wrap(from_fn(gate_holding(Policy::AnyKey, Hold::Stream)))
                .service(events::events),
        )
        .service(
            scope("/api/v1/picks")
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::AnyKey)))
                .service(compat::picks_today)
                .service(compat::picks_performance)
                .service(compat::picks_for_date),
        )
        // Key management comes before the account scope below, whose prefix
        // it shares. Creating a key is an "AI" route (an active
        // subscription); listing, renaming and revoking need only a valid
        // key, so a customer whose subscription lapsed can still clean up.
        // The POST-only scope is tried first; other methods fall through
        // its guard to the any-key scope.
        .service(
            scope("/api/v1/customers/me/api-keys")
                .guard(guard::Post())
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(account::create_key),
        )
        .service(
            scope("/api/v1/customers/me/api-keys")
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::AnyKey)))
                .service(account::list_keys)
                .service(account::rename_key)
                .service(account::revoke_key),
        )
        // The caller's own account and usage stay readable when the
        // subscription lapses.
        .service(
            scope("/api/v1/customers/me")
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::AnyKey)))
                .service(account::me)
                .service(account::usage),
        )
        // Every other `/api/v1` path, known or not: an active subscription.
        // This scope is the default: a route added without a place above
        // lands here and is protected.
        .service(
            scope("/api/v1")
                .wrap(Compress::default())
                .wrap(from_fn(gate(Policy::Subscriber)))
                .service(compat::sports)
                .service(datasets::status)
                .service(datasets::refresh),
        )
}
