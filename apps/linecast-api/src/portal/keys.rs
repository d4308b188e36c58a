//! The portal's Keys page: the customer's keys, masked, and the forms that
//! create, rename, revoke and roll them. Every rule (the name rules, the
//! cap, the audit lines, the roll's grace) is core's `Keys`, the same use
//! cases the API's key routes call; this module only reads forms and
//! renders pages. A new key is shown once, in the body of the POST that made
//! it (`no-store`, never in a URL or a redirect, never logged).

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Duration, Utc};
use linecast_core::AccountsError;
use linecast_core::services::keys::{Grace, IssuedKey, KeyError, MAX_NAME_CHARS};

use super::html::{error_page, page, see_other};
use super::session::SignedIn;
use crate::routes::table;
use crate::state::AppState;

/// Where the portal's audit lines say a change came from.
const ORIGIN: &str = "portal";

/// The expiries offered when creating a key: form value, label, length.
const EXPIRIES: [(&str, &str, Option<i64>); 4] = [
    ("never", "Never", None),
    ("30d", "In 30 days", Some(30)),
    ("90d", "In 90 days", Some(90)),
    ("365d", "In 1 year", Some(365)),
];

struct KeyRow {
    id: i64,
    name: String,
    masked: String,
    created: String,
    last_used: String,
    expires: String,
    /// `active`, `expired` or `revoked`.
    state: &'static str,
    usable: bool,
    revoked: bool,
    /// The key this session was signed in with.
    current: bool,
}

#[derive(Template)]
#[template(path = "portal/keys.html")]
struct KeysPage {
    csrf: String,
    keys: Vec<KeyRow>,
    max_active: Option<usize>,
    active: usize,
    can_create: bool,
    max_name: usize,
    expiries: Vec<(&'static str, &'static str)>,
    /// Form value, label, whether it is the one chosen at first.
    graces: Vec<(&'static str, &'static str, bool)>,
}

#[derive(Template)]
#[template(path = "portal/key_created.html")]
struct CreatedPage {
    csrf: String,
    /// The full key: on this page only, once.
    key: String,
    name: String,
    masked: String,
    expires: String,
    /// For a roll: the old key's mask and when it stops.
    replaced: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "portal/key_revoke.html")]
struct ConfirmRevokePage {
    csrf: String,
    id: i64,
    name: String,
    masked: String,
    current: bool,
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

fn grace_label(grace: Grace) -> &'static str {
    match grace {
        Grace::Now => "Now (revoke the old key at once)",
        Grace::OneHour => "After 1 hour",
        Grace::OneDay => "After 24 hours",
    }
}

/// A submitted form's fields (the session gate has already read the body
/// and checked its CSRF token).
pub struct Fields(Vec<(String, String)>);

impl actix_web::FromRequest for Fields {
    type Error = actix_web::Error;
    type Future = futures::future::LocalBoxFuture<'static, Result<Self, actix_web::Error>>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        let body = web::Bytes::from_request(req, payload);
        Box::pin(async move {
            let body = body.await?;
            Ok(Self(url::form_urlencoded::parse(&body).into_owned().collect()))
        })
    }
}

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The key the form names; `None` when it names none.
    fn key_id(&self) -> Option<i64> {
        self.get("key_id").and_then(|v| v.trim().parse().ok())
    }
}

/// A refused key operation as a page: the API's rules, said for people.
fn refused(err: KeyError) -> HttpResponse {
    match err {
        KeyError::InvalidName => error_page(
            StatusCode::BAD_REQUEST,
            "A key name must be 1 to 100 printable characters (no control characters, line breaks or bidi overrides).",
        ),
        KeyError::LimitReached { max } => error_page(
            StatusCode::BAD_REQUEST,
            &format!(
                "Key limit reached: you may hold at most {max} active API keys. Revoke one before creating another."
            ),
        ),
        KeyError::NotFound | KeyError::Accounts(AccountsError::NotFound) => {
            error_page(StatusCode::NOT_FOUND, "That key is not among your keys.")
        }
        KeyError::Unusable => error_page(
            StatusCode::BAD_REQUEST,
            "That key is revoked or expired, so it cannot be rolled. Create a new key instead.",
        ),
        KeyError::Ambiguous { .. } | KeyError::BadReference | KeyError::OwnKey => {
            error_page(StatusCode::BAD_REQUEST, "That key cannot be changed here.")
        }
        KeyError::Accounts(e) => {
            tracing::warn!(error = %e, "portal keys: accounts");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again in a moment.",
            )
        }
    }
}

/// Creating keys (and so rolling them) needs an active subscription, as in
/// the API; listing, renaming and revoking do not.
fn may_not_create(signed: &SignedIn) -> Option<HttpResponse> {
    (!signed.0.entry.1.api_subscription_status.grants_access()).then(|| {
        error_page(
            StatusCode::FORBIDDEN,
            "Creating or rolling a key needs an active subscription. Your keys can still be renamed and revoked.",
        )
    })
}

fn no_key() -> HttpResponse {
    error_page(StatusCode::BAD_REQUEST, "The form did not say which key.")
}

/// `GET /portal/keys`: the customer's keys, masked, with their forms.
pub async fn keys(state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    let (current, customer) = (&signed.0.entry.0, &signed.0.entry.1);
    let now = state.clock.now();
    let listed = match state.api_keys.list(customer.customer_id).await {
        Ok(listed) => listed,
        Err(e) => return refused(e),
    };
    let keys: Vec<KeyRow> = listed
        .iter()
        .map(|k| KeyRow {
            id: k.id,
            name: k.name.clone(),
            masked: k.masked(),
            created: when(k.created_at),
            last_used: k.last_used_at.map_or_else(|| "never".to_owned(), when),
            expires: k.expires_at.map_or_else(|| "never".to_owned(), when),
            state: if k.revoked_at.is_some() || !k.is_active {
                "revoked"
            } else if k.is_usable(now) {
                "active"
            } else {
                "expired"
            },
            usable: k.is_usable(now),
            revoked: k.revoked_at.is_some() || !k.is_active,
            current: k.id == current.id,
        })
        .collect();
    page(
        StatusCode::OK,
        table::PORTAL_KEYS.cache_control(),
        &KeysPage {
            csrf: signed.0.csrf_token.clone(),
            active: keys.iter().filter(|k| k.usable).count(),
            keys,
            max_active: state.api_keys.max_active(),
            can_create: customer.api_subscription_status.grants_access(),
            max_name: MAX_NAME_CHARS,
            expiries: EXPIRIES.iter().map(|(v, l, _)| (*v, *l)).collect(),
            graces: Grace::ALL
                .iter()
                .map(|g| (g.code(), grace_label(*g), *g == Grace::OneHour))
                .collect(),
        },
    )
}

/// The page showing a new key, once: the POST's own response, never cached.
fn shown_once(signed: &SignedIn, issued: IssuedKey, replaced: Option<(String, String)>) -> HttpResponse {
    page(
        StatusCode::OK,
        table::PORTAL_CREATE_KEY.cache_control(),
        &CreatedPage {
            csrf: signed.0.csrf_token.clone(),
            masked: issued.record.masked(),
            name: issued.record.name,
            expires: issued.record.expires_at.map_or_else(|| "never".to_owned(), when),
            key: issued.key,
            replaced,
        },
    )
}

/// `POST /portal/keys/create` (`name`, `expires`): issues a key and shows
/// it once.
pub async fn create_key(state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    if let Some(res) = may_not_create(&signed) {
        return res;
    }
    let now = state.clock.now();
    let Some((_, _, days)) = EXPIRIES
        .iter()
        .find(|(v, _, _)| *v == form.get("expires").unwrap_or("never"))
    else {
        return error_page(StatusCode::BAD_REQUEST, "Choose one of the offered expiries.");
    };
    let expires_at = days.map(|d| now + Duration::days(d));
    let name = form.get("name").unwrap_or_default();
    match state
        .api_keys
        .issue(&signed.0.entry.1, name, expires_at, ORIGIN, now)
        .await
    {
        Ok(issued) => shown_once(&signed, issued, None),
        Err(e) => refused(e),
    }
}

/// `POST /portal/keys/rename` (`key_id`, `name`): back to the list.
pub async fn rename_key(state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let Some(id) = form.key_id() else {
        return no_key();
    };
    let name = form.get("name").unwrap_or_default();
    let now = state.clock.now();
    let keys = &state.api_keys;
    let renamed = async {
        // The name first, as the API checks it before the key.
        linecast_core::services::keys::Keys::valid_name(name)?;
        let key = keys.find_by_id(signed.0.entry.1.customer_id, id).await?;
        keys.rename(&key, name, ORIGIN, now).await
    };
    match renamed.await {
        Ok(_) => see_other("/portal/keys"),
        Err(e) => refused(e),
    }
}

/// `POST /portal/keys/revoke` (`key_id`, then `confirm`): without `confirm`
/// a page asks first; with it the key is revoked at once (its sessions end).
pub async fn revoke_key(state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let Some(id) = form.key_id() else {
        return no_key();
    };
    let key = match state.api_keys.find_by_id(signed.0.entry.1.customer_id, id).await {
        Ok(key) => key,
        Err(e) => return refused(e),
    };
    let current = key.id == signed.0.entry.0.id;
    if form.get("confirm") != Some("yes") {
        return page(
            StatusCode::OK,
            table::PORTAL_REVOKE_KEY.cache_control(),
            &ConfirmRevokePage {
                csrf: signed.0.csrf_token.clone(),
                id: key.id,
                name: key.name.clone(),
                masked: key.masked(),
                current,
            },
        );
    }
    match state.api_keys.revoke(&key, ORIGIN, state.clock.now()).await {
        // Revoking the session's own key ends the session: the list would
        // send to the sign-in page anyway.
        Ok(_) => see_other(if current { "/portal" } else { "/portal/keys" }),
        Err(e) => refused(e),
    }
}

/// `POST /portal/keys/roll` (`key_id`, `grace`): issues the replacement,
/// shown once; the old key stops after the grace.
pub async fn roll_key(state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    if let Some(res) = may_not_create(&signed) {
        return res;
    }
    let Some(id) = form.key_id() else {
        return no_key();
    };
    let Some(grace) = form.get("grace").and_then(Grace::parse) else {
        return error_page(StatusCode::BAD_REQUEST, "Choose how long the old key keeps working.");
    };
    let now = state.clock.now();
    match state.api_keys.roll_own(&signed.0.entry.1, id, grace, ORIGIN, now).await {
        Ok((old, issued)) => {
            let until = now + grace.duration();
            let stops = old.expires_at.map_or(until, |at| at.min(until));
            let stops = if grace == Grace::Now {
                "now".to_owned()
            } else {
                when(stops)
            };
            shown_once(&signed, issued, Some((old.masked(), stops)))
        }
        Err(e) => refused(e),
    }
}
