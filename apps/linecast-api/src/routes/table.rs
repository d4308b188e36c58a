//! The route table: every endpoint, declared once. A row says the method,
//! the path template, who may call it (`Access`), how its response is
//! served (`Serving`) and which handler answers it; the handler's
//! `#[operation(...)]` attribute is its OpenAPI operation, placed at this
//! row's path under this row's method. Everything else is derived from the rows:
//!
//! - the dispatcher (`routes::dispatch`): which row a request reaches, the
//!   access it is checked against, the 404 and the 405 with its `Allow`;
//! - the OpenAPI document (`openapi::document`), in this order;
//! - the read pipeline's route name and `Cache-Control` (`Endpoint::name`,
//!   `Serving::cache_control`), and whether a body is compressed;
//! - what the modules below the table are handed at start-up, since they
//!   name no row: the log's redaction of secret path segments
//!   ([`redaction`]) and the rows the portal's pages speak of
//!   ([`portal_rows`]).
//!
//! Adding an endpoint: one row here and one handler (see
//! docs/architecture.md, "Add an endpoint").

use actix_web::http::Method;
use linecast_core::services::access::Policy;

pub use crate::endpoint::{Access, Endpoint, Hold, Operation, Serving};
use crate::endpoint::{NO_STORE, PRIVATE, PUBLIC, REVALIDATE};

/// Declares the rows: `NAME = METHOD "path", access, serving, module::handler;`.
/// The operation id is the handler's name; its OpenAPI operation is the
/// `#[operation(...)]` on the handler, except for `Page` and `Description`
/// rows, which the document does not list and whose handlers declare none.
macro_rules! endpoints {
    ($($row:ident = $method:ident $path:literal, $access:expr, $serving:ident $(($cache:ident))?, $module:ident :: $handler:ident;)*) => {
        $(
            pub const $row: Endpoint = Endpoint {
                method: Method::$method,
                path: $path,
                access: $access,
                serving: $serving $(($cache))?,
                name: stringify!($handler),
                route: || actix_web::web::route().to(super::$module::$handler),
                operation: endpoints!(@operation $serving, $module, $handler),
            };
        )*
        /// Every endpoint, in the order of the OpenAPI document.
        pub static ENDPOINTS: &[&Endpoint] = &[$(&$row),*];
    };
    (@operation Page, $module:ident, $handler:ident) => { None };
    (@operation Description, $module:ident, $handler:ident) => { None };
    (@operation $serving:ident, $module:ident, $handler:ident) => {
        pastey::paste! {
            Some(Operation {
                operation: <super::$module::[<__path_ $handler>] as utoipa::Path>::operation,
                tags: <super::$module::[<__path_ $handler>] as utoipa::__dev::Tags<'static>>::tags,
                schemas: <super::$module::[<__path_ $handler>] as utoipa::__dev::SchemaReferences>::schemas,
            })
        }
    };
}

use Access::{Key, KeyHolding, Open, PerAddress, Session, StripeSignature};
use Policy::{AnyKey, Subscriber};
use Serving::{Description, Fresh, Page, Read, Stream, Write};

endpoints! {
    // Model data: an active subscription.
    PREDICTIONS = GET "/api/v1/predictions/{sport}/{model_type}", Key(Subscriber), Read(PRIVATE), predictions::predictions;
    PREDICTIONS_HISTORY_EXPORT = GET "/api/v1/predictions/{sport}/{model_type}/history/export", KeyHolding(Subscriber, Hold::Download), Read(PRIVATE), predictions::history_export;
    // An export holds one of its customer's download slots until its last byte.
    RESULTS_EXPORT = GET "/api/v1/results/{sport}/{model_type}/export", KeyHolding(Subscriber, Hold::Download), Read(PRIVATE), results::results_export;
    RESULT_SEASONS = GET "/api/v1/results/{sport}/{model_type}/seasons", Key(Subscriber), Read(PRIVATE), results::result_seasons;
    TEAM_FORM = GET "/api/v1/results/{sport}/{model_type}/team-form", Key(Subscriber), Read(PRIVATE), analytics::team_form;
    ROLLING = GET "/api/v1/results/{sport}/{model_type}/rolling", Key(Subscriber), Read(PRIVATE), analytics::rolling;
    DENSITY = GET "/api/v1/results/{sport}/{model_type}/density", Key(Subscriber), Read(PRIVATE), analytics::density;
    RESULTS = GET "/api/v1/results/{sport}/{model_type}", Key(Subscriber), Read(PRIVATE), results::results;
    SUMMARY = GET "/api/v1/summary/{sport}/{model_type}", Key(Subscriber), Read(PRIVATE), analytics::summary;
    TRACKING = GET "/api/v1/models/{sport}/{model_type}/tracking", Key(Subscriber), Read(PRIVATE), analytics::model_tracking;
    CALIBRATION = GET "/api/v1/models/{sport}/{model_type}/calibration", Key(Subscriber), Read(PRIVATE), analytics::model_calibration;
    STRATEGY_REPLAY = GET "/api/v1/strategies/{sport}/{model_type}/replay/{strategy_id}", Key(Subscriber), Read(PRIVATE), strategies::strategy_replay;
    STRATEGIES = GET "/api/v1/strategies/{sport}/{model_type}", Key(Subscriber), Read(PRIVATE), strategies::strategies;
    ODDS = GET "/api/v1/odds/{sport}", Key(Subscriber), Read(PRIVATE), odds::odds;
    ODDS_BOOKS = GET "/api/v1/odds/{sport}/books", Key(Subscriber), Read(PRIVATE), books::odds_books;
    GAME_HISTORY = GET "/api/v1/games/{game_id}/history", Key(Subscriber), Read(PRIVATE), games::game_history;
    GAME_ODDS_HISTORY = GET "/api/v1/games/{game_id}/odds-history", Key(Subscriber), Read(PRIVATE), books::game_odds_history;
    // Service identity and probes: open, never limited.
    ROOT = GET "/", Open, Fresh(REVALIDATE), root::root;
    HEALTH = GET "/api/v1/health", Open, Fresh(NO_STORE), health::health;
    READINESS = GET "/api/v1/readiness", Open, Fresh(NO_STORE), health::readiness;
    LIVENESS = GET "/api/v1/liveness", Open, Fresh(NO_STORE), health::liveness;
    // Public data: within the per-address limit.
    PUBLIC_ML_PICKS = GET "/api/v1/public/ml-picks/{sport}/{market}", PerAddress, Read(PUBLIC), public_picks::public_ml_picks;
    PUBLIC_LEDGER = GET "/api/v1/public/ledger", PerAddress, Read(PUBLIC), ledger::public_ledger;
    PUBLIC_LEDGER_DAY = GET "/api/v1/public/ledger/{date}", PerAddress, Read(PUBLIC), ledger::public_ledger_day;
    PUBLIC_SCORECARD = GET "/api/v1/public/scorecard/{sport}/{model_type}", PerAddress, Read(PUBLIC), scorecard::public_scorecard;
    DATA_STATUS = GET "/api/v1/data-status/{sport}", PerAddress, Fresh(REVALIDATE), data_status::data_status;
    EDGE_PICKS = GET "/api/v1/edge-picks", PerAddress, Fresh(REVALIDATE), edge_picks::edge_picks;
    TRACK_RECORD = GET "/api/v1/edge-picks/track-record", PerAddress, Fresh(REVALIDATE), edge_picks::edge_picks_track_record;
    EDGE_PICKS_FOR_DATE = GET "/api/v1/edge-picks/{date_str}", PerAddress, Fresh(REVALIDATE), edge_picks::edge_picks_for_date;
    DOWNLOAD = GET "/api/v1/downloads/{token}", PerAddress, Fresh(NO_STORE), datasets::download;
    // Any valid key.
    MARKETS = GET "/api/v1/markets/{sport}", Key(AnyKey), Fresh(PRIVATE), markets::markets;
    EVENTS = GET "/api/v1/events", KeyHolding(AnyKey, Hold::Stream), Stream, events::events;
    PICKS_TODAY = GET "/api/v1/picks/today", Key(AnyKey), Fresh(PRIVATE), compat::picks_today;
    PICKS_PERFORMANCE = GET "/api/v1/picks/performance", Key(AnyKey), Fresh(PRIVATE), compat::picks_performance;
    PICKS_FOR_DATE = GET "/api/v1/picks/{date}", Key(AnyKey), Fresh(PRIVATE), compat::picks_for_date;
    // Keys: creating one needs an active subscription; listing, renaming
    // and revoking only a valid key, so a lapsed customer can clean up.
    CREATE_API_KEY = POST "/api/v1/customers/me/api-keys", Key(Subscriber), Write, account::create_api_key;
    LIST_API_KEYS = GET "/api/v1/customers/me/api-keys", Key(AnyKey), Fresh(NO_STORE), account::list_api_keys;
    RENAME_API_KEY = PATCH "/api/v1/customers/me/api-keys/rename", Key(AnyKey), Write, account::rename_api_key;
    REVOKE_API_KEY = DELETE "/api/v1/customers/me/api-keys/{api_key}", Key(AnyKey), Write, account::revoke_api_key;
    // The caller's own account stays readable when the subscription lapses.
    GET_ME = GET "/api/v1/customers/me", Key(AnyKey), Fresh(NO_STORE), account::get_me;
    GET_USAGE = GET "/api/v1/customers/me/usage", Key(AnyKey), Fresh(NO_STORE), account::get_usage;
    // Webhooks: creating an endpoint, rotating its secret, sending a test
    // and queueing deliveries again need an active subscription; reading,
    // changing and deleting only a valid key, so a lapsed customer can
    // turn them off.
    CREATE_WEBHOOK_ENDPOINT = POST "/api/v1/webhooks/endpoints", Key(Subscriber), Write, webhooks::create_endpoint;
    LIST_WEBHOOK_ENDPOINTS = GET "/api/v1/webhooks/endpoints", Key(AnyKey), Fresh(NO_STORE), webhooks::list_endpoints;
    GET_WEBHOOK_ENDPOINT = GET "/api/v1/webhooks/endpoints/{endpoint_id}", Key(AnyKey), Fresh(NO_STORE), webhooks::get_endpoint;
    UPDATE_WEBHOOK_ENDPOINT = PATCH "/api/v1/webhooks/endpoints/{endpoint_id}", Key(AnyKey), Write, webhooks::update_endpoint;
    DELETE_WEBHOOK_ENDPOINT = DELETE "/api/v1/webhooks/endpoints/{endpoint_id}", Key(AnyKey), Write, webhooks::delete_endpoint;
    ROTATE_WEBHOOK_SECRET = POST "/api/v1/webhooks/endpoints/{endpoint_id}/rotate-secret", Key(Subscriber), Write, webhooks::rotate_secret;
    TEST_WEBHOOK_ENDPOINT = POST "/api/v1/webhooks/endpoints/{endpoint_id}/test", Key(Subscriber), Write, webhooks::test_endpoint;
    WEBHOOK_ATTEMPTS = GET "/api/v1/webhooks/endpoints/{endpoint_id}/attempts", Key(AnyKey), Fresh(NO_STORE), webhooks::attempts;
    RECOVER_WEBHOOK_ENDPOINT = POST "/api/v1/webhooks/endpoints/{endpoint_id}/recover", Key(Subscriber), Write, webhooks::recover;
    RESEND_WEBHOOK_DELIVERY = POST "/api/v1/webhooks/deliveries/{delivery_id}/resend", Key(Subscriber), Write, webhooks::resend;
    SPORTS = GET "/api/v1/sports", Key(Subscriber), Fresh(PRIVATE), compat::sports;
    DATASET_STATUS = GET "/api/v1/service-sports-data/status", Key(Subscriber), Fresh(NO_STORE), datasets::dataset_status;
    DATASET_REFRESH = POST "/api/v1/service-sports-data/refresh", Key(Subscriber), Write, datasets::dataset_refresh;
    // Billing: Stripe's signature over the raw body, never a key.
    STRIPE_WEBHOOK = POST "/billing/stripe/webhook", StripeSignature, Write, billing::stripe_webhook;
    // The customer portal: HTML pages signed in by session (never a key,
    // never counted), and the public status page. Not in the OpenAPI document.
    PORTAL_HOME = GET "/portal", Open, Page(NO_STORE), portal::home;
    PORTAL_SIGN_IN = POST "/portal/sign-in", Open, Page(NO_STORE), portal::sign_in;
    PORTAL_LINK = GET "/portal/link/{token}", Open, Page(NO_STORE), portal_link::show;
    PORTAL_LINK_USE = POST "/portal/link/{token}", Open, Page(NO_STORE), portal_link::use_link;
    PORTAL_SIGN_OUT = POST "/portal/sign-out", Session(AnyKey), Page(NO_STORE), portal::sign_out;
    PORTAL_OVERVIEW = GET "/portal/overview", Session(AnyKey), Page(NO_STORE), portal::overview;
    PORTAL_QUALITY = GET "/portal/quality", Session(AnyKey), Page(NO_STORE), portal_quality::quality;
    PORTAL_QUALITY_DIAGRAM = GET "/portal/quality/diagram.svg", Session(AnyKey), Page(NO_STORE), portal_quality::diagram;
    PORTAL_DATA = GET "/portal/data", Session(AnyKey), Page(NO_STORE), portal_data::data;
    PORTAL_DATA_REFRESH = POST "/portal/data/refresh", Session(Subscriber), Page(NO_STORE), portal_data::refresh;
    PORTAL_REQUESTS = GET "/portal/requests", Session(AnyKey), Page(NO_STORE), portal_requests::requests;
    PORTAL_REQUESTS_CSV = GET "/portal/requests.csv", Session(AnyKey), Page(NO_STORE), portal_requests::requests_csv;
    PORTAL_KEYS = GET "/portal/keys", Session(AnyKey), Page(NO_STORE), portal_keys::keys;
    // Every portal form answers 303 to a GET; a new key is shown once by
    // the Keys page's next GET, through a one-time server-side flash.
    PORTAL_CREATE_KEY = POST "/portal/keys/create", Session(Subscriber), Page(NO_STORE), portal_keys::create_key;
    PORTAL_RENAME_KEY = POST "/portal/keys/rename", Session(AnyKey), Page(NO_STORE), portal_keys::rename_key;
    PORTAL_CONFIRM_REVOKE = GET "/portal/keys/revoke", Session(AnyKey), Page(NO_STORE), portal_keys::confirm_revoke;
    PORTAL_REVOKE_KEY = POST "/portal/keys/revoke", Session(AnyKey), Page(NO_STORE), portal_keys::revoke_key;
    PORTAL_ROLL_KEY = POST "/portal/keys/roll", Session(Subscriber), Page(NO_STORE), portal_keys::roll_key;
    PORTAL_WEBHOOKS = GET "/portal/webhooks", Session(AnyKey), Page(NO_STORE), portal_webhooks::webhooks;
    PORTAL_WEBHOOKS_CREATE = POST "/portal/webhooks/create", Session(Subscriber), Page(NO_STORE), portal_webhooks::create_webhook;
    PORTAL_WEBHOOKS_TEST = POST "/portal/webhooks/test", Session(Subscriber), Page(NO_STORE), portal_webhooks::test_webhook;
    PORTAL_WEBHOOKS_ROTATE = POST "/portal/webhooks/rotate", Session(Subscriber), Page(NO_STORE), portal_webhooks::rotate_webhook;
    PORTAL_WEBHOOKS_ENABLE = POST "/portal/webhooks/enable", Session(AnyKey), Page(NO_STORE), portal_webhooks::enable_webhook;
    PORTAL_WEBHOOKS_DELETE = POST "/portal/webhooks/delete", Session(AnyKey), Page(NO_STORE), portal_webhooks::delete_webhook;
    PORTAL_WEBHOOKS_RECOVER = POST "/portal/webhooks/recover", Session(Subscriber), Page(NO_STORE), portal_webhooks::recover_webhook;
    PORTAL_WEBHOOKS_RESEND = POST "/portal/webhooks/resend", Session(Subscriber), Page(NO_STORE), portal_webhooks::resend_webhook;
    PORTAL_BILLING = GET "/portal/billing", Session(AnyKey), Page(NO_STORE), portal_billing::billing;
    PORTAL_BILLING_SUBSCRIBE = POST "/portal/billing/subscribe", Session(AnyKey), Page(NO_STORE), portal_billing::subscribe;
    PORTAL_BILLING_MANAGE = POST "/portal/billing/manage", Session(AnyKey), Page(NO_STORE), portal_billing::manage;
    PORTAL_CSS = GET "/portal/static/portal.css", Open, Page(PUBLIC), portal::stylesheet;
    PORTAL_COPY_JS = GET "/portal/static/copy.js", Open, Page(PUBLIC), portal::copy_script;
    PORTAL_QUALITY_JS = GET "/portal/static/quality.js", Open, Page(PUBLIC), portal::quality_script;
    STATUS_PAGE = GET "/status", PerAddress, Page(PUBLIC), portal::status;
    SCORECARD_PAGE = GET "/scorecard", PerAddress, Page(PUBLIC), scorecard::page;
    // The API's description: the OpenAPI document and Swagger UI reading it.
    OPENAPI = GET "/openapi.json", Open, Description(REVALIDATE), docs::openapi;
    DOCS = GET "/docs", Open, Description(REVALIDATE), docs::docs;
    DOCS_INDEX = GET "/docs/", Open, Description(REVALIDATE), docs::swagger_ui_index;
    DOCS_FILE = GET "/docs/{*file}", Open, Description(REVALIDATE), docs::swagger_ui_file;
}

/// Where the fail-closed rule applies: a path under this prefix that no
/// row declares needs an active subscription before it is a 404.
pub const GATED_PREFIX: &str = "/api/v1";

/// What the log masks in a path: the secret segments of these rows'
/// templates (`telemetry::Redaction`), handed to telemetry at start-up.
pub fn redaction() -> crate::telemetry::Redaction {
    crate::telemetry::Redaction::of(ENDPOINTS.iter().map(|row| row.path))
}

/// The rows the portal's pages speak of besides their own, handed to the
/// portal at start-up: this table names the portal's handlers, so the
/// portal names no row.
pub fn portal_rows() -> crate::portal::Rows {
    crate::portal::Rows {
        every: ENDPOINTS,
        calibration: &CALIBRATION,
        create_key: &PORTAL_CREATE_KEY,
        data_refresh: &PORTAL_DATA_REFRESH,
        scorecard: &SCORECARD_PAGE,
        webhooks_create: &PORTAL_WEBHOOKS_CREATE,
    }
}

/// The portal's own pages, from their rows: the portal spells no path.
pub fn portal_links() -> crate::state::PortalLinks {
    crate::state::PortalLinks {
        home: PORTAL_HOME.path,
        overview: PORTAL_OVERVIEW.path,
        sign_in_link: PORTAL_LINK.path,
        keys: PORTAL_KEYS.path,
        confirm_revoke: PORTAL_CONFIRM_REVOKE.path,
        data: PORTAL_DATA.path,
        quality_diagram: PORTAL_QUALITY_DIAGRAM.path,
        webhooks: PORTAL_WEBHOOKS.path,
        requests_csv: PORTAL_REQUESTS_CSV.path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_method_and_path_is_declared_once_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for row in ENDPOINTS {
            assert!(seen.insert((row.method.clone(), row.path)), "{row:?} declared twice");
            assert!(names.insert(row.name), "{} named twice", row.name);
        }
    }

    #[test]
    fn each_portal_link_is_a_page_a_browser_can_open() {
        let links = portal_links();
        for link in [
            links.home,
            links.overview,
            links.sign_in_link,
            links.keys,
            links.confirm_revoke,
            links.data,
            links.quality_diagram,
            links.webhooks,
            links.requests_csv,
        ] {
            assert!(link.starts_with("/portal"), "{link}");
            assert!(
                ENDPOINTS.iter().any(|row| row.path == link
                    && row.method == Method::GET
                    && matches!(row.serving, Serving::Page(_))),
                "{link} is no GET page of the table"
            );
        }
    }

    #[test]
    fn each_rows_operation_is_documented_at_its_path_under_its_method() {
        let doc = serde_json::to_value(crate::openapi::document()).unwrap_or_default();
        for row in ENDPOINTS {
            if row.operation.is_none() {
                assert!(
                    matches!(row.serving, Serving::Page(_) | Serving::Description(_)),
                    "{row:?}"
                );
                continue;
            }
            let methods = &doc["paths"][row.path];
            let method = row.method.as_str().to_ascii_lowercase();
            assert_eq!(methods[&method]["operationId"], row.name, "{row:?}: {methods}");
        }
    }

    #[test]
    fn only_identity_probes_and_public_data_are_open_to_a_caller_without_a_key() {
        let open: Vec<&str> = ENDPOINTS
            .iter()
            .filter(|r| matches!(r.access, Access::Open | Access::PerAddress))
            .map(|r| r.path)
            .collect();
        assert_eq!(
            open,
            [
                "/",
                "/api/v1/health",
                "/api/v1/readiness",
                "/api/v1/liveness",
                "/api/v1/public/ml-picks/{sport}/{market}",
                "/api/v1/public/ledger",
                "/api/v1/public/ledger/{date}",
                "/api/v1/public/scorecard/{sport}/{model_type}",
                "/api/v1/data-status/{sport}",
                "/api/v1/edge-picks",
                "/api/v1/edge-picks/track-record",
                "/api/v1/edge-picks/{date_str}",
                "/api/v1/downloads/{token}",
                "/portal",
                "/portal/sign-in",
                "/portal/link/{token}",
                "/portal/link/{token}",
                "/portal/static/portal.css",
                "/portal/static/copy.js",
                "/portal/static/quality.js",
                "/status",
                "/scorecard",
                "/openapi.json",
                "/docs",
                "/docs/",
                "/docs/{*file}",
            ]
        );
    }

    /// The webhook is the one row authenticated by Stripe's signature, and it
    /// sits outside `/api/v1`, where an unknown path needs a key.
    #[test]
    fn only_the_stripe_webhook_is_signed_and_it_is_outside_the_api() {
        let signed: Vec<(&Method, &str)> = ENDPOINTS
            .iter()
            .filter(|r| r.access == Access::StripeSignature)
            .map(|r| (&r.method, r.path))
            .collect();
        assert_eq!(signed, [(&Method::POST, "/billing/stripe/webhook")]);
        assert!(!signed[0].1.starts_with(GATED_PREFIX));
    }

    /// The masked segments come from the table: every template with a
    /// `{token}` is covered, none is listed by hand.
    #[test]
    fn every_token_template_of_the_table_is_masked() {
        let redaction = redaction();
        let with_token: Vec<&str> = ENDPOINTS
            .iter()
            .map(|row| row.path)
            .filter(|path| path.contains("{token}"))
            .collect();
        assert!(with_token.len() >= 3, "{with_token:?}");
        for template in with_token {
            let path = template.replace("{token}", "s3cr3t").replace(['{', '}'], "");
            let logged = redaction.path(&path);
            assert!(!logged.contains("s3cr3t"), "{template}: {logged}");
        }
    }

    #[test]
    fn writes_are_never_gets_and_streams_hold_a_stream_slot() {
        for row in ENDPOINTS {
            let page = matches!(row.serving, Serving::Page(_));
            assert_eq!(
                row.serving == Serving::Write || (page && row.method != Method::GET),
                row.method != Method::GET,
                "{row:?}"
            );
            if page {
                assert!(
                    row.path == "/status" || row.path == "/scorecard" || row.path.starts_with("/portal"),
                    "{row:?}: pages live under /portal, but the two public ones"
                );
            }
            if matches!(row.access, Access::Session(_)) {
                assert!(
                    page,
                    "{row:?}: a session signs in the portal's pages only, never the API"
                );
            }
            if row.serving == Serving::Stream {
                assert!(matches!(row.access, Access::KeyHolding(_, Hold::Stream)), "{row:?}");
            }
        }
    }
}
