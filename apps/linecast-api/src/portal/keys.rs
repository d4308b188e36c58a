//! The portal's Keys page: the customer's keys, masked, and the forms that
//! create, rename, revoke and roll them. Every rule (the name rules, the
//! cap, the audit lines, the roll's grace) is core's `Keys`, the same use
//! cases the API's key routes call; this module only reads forms and
//! renders pages. Every form answers `303` to `GET /portal/keys` (`flash`):
//! a new key is shown once by the first GET after the form that made it
//! (`no-store`, never in a URL or a cookie, never logged), a refused form is
//! shown again with the message beside its field and what was typed in it,
//! and a reload or going back repeats nothing. Revoking asks first, on a
//! GET page (`GET /portal/keys/revoke?key_id=`).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Duration, Utc};
use linecast_core::AccountsError;
use linecast_core::services::keys::{Grace, IssuedKey, KeyError, MAX_NAME_CHARS};

use super::Rows;
use super::flash::{Flash, FlashPage, FormError, NewKey, leave, take};
use super::html::{error_page, filters, page, see_other, see_other_to};
use crate::auth::session::{SignedIn, permits};
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
    /// The key still works: only then are its forms (rename, roll,
    /// revoke) offered; a revoked or expired key is listed for the record.
    usable: bool,
    /// The key this session was signed in with.
    current: bool,
    /// The rename field's value (what was typed, after a refused rename).
    rename_value: String,
    /// A refused rename's message, beside its field.
    rename_error: Option<String>,
    /// A refused roll's message, beside its field.
    roll_error: Option<String>,
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
    /// The create form's name and expiry (what was typed, after a refusal).
    create_name: String,
    create_expires: String,
    /// A refused create's message, beside its field (`name` or `expires`).
    create_error: Option<(String, String)>,
    /// A message about the whole page (a key that is not the customer's).
    page_error: Option<String>,
    /// What the last form did (a rename, a revoke).
    notice: Option<String>,
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
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Every value of `name` (checkboxes), in the form's order.
    pub(crate) fn all(&self, name: &str) -> Vec<String> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect()
    }

    /// The key the form names; `None` when it names none.
    fn key_id(&self) -> Option<i64> {
        self.get("key_id").and_then(|v| v.trim().parse().ok())
    }
}

/// A refused key operation, said for people: the API's rules. `None` is a
/// failure of the service (a page of its own: [`unavailable`]), not a
/// refused form.
fn refusal_message(err: KeyError) -> Option<String> {
    Some(match err {
        KeyError::InvalidName => {
            "A key name must be 1 to 100 printable characters (no control characters, line breaks or bidi overrides)."
                .to_owned()
        }
        KeyError::LimitReached { max } => format!(
            "Key limit reached: you may hold at most {max} active API keys. Revoke one before creating another."
        ),
        KeyError::NotFound | KeyError::Accounts(AccountsError::NotFound) => {
            "That key is not among your keys.".to_owned()
        }
        KeyError::Unusable => {
            "That key is revoked or expired, so it cannot be rolled. Create a new key instead.".to_owned()
        }
        KeyError::Ambiguous { .. } | KeyError::BadReference | KeyError::OwnKey => {
            "That key cannot be changed here.".to_owned()
        }
        KeyError::Accounts(e) => {
            tracing::warn!(error = %e, "portal keys: accounts");
            return None;
        }
    })
}

fn unavailable() -> HttpResponse {
    error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The accounts database is not answering. Please try again in a moment.",
    )
}

/// The form on the Keys page that says nothing about one field: the
/// message is shown at the top of the page.
const PAGE_FORM: &str = "page";

/// Leaves `flash` for the Keys page and answers `303` to it.
async fn back_to_keys(state: &AppState, req: &HttpRequest, flash: Flash) -> HttpResponse {
    match leave(state, req, FlashPage::Keys, &flash).await {
        Ok(()) => see_other(state.portal_links.keys),
        Err(res) => *res,
    }
}

/// A refused form: its message beside `field` of `form`, and what was
/// typed in it, on the Keys page.
async fn refuse(
    state: &AppState,
    req: &HttpRequest,
    form: String,
    field: &str,
    message: String,
    values: Vec<(String, String)>,
) -> HttpResponse {
    let flash = Flash::FormError(FormError {
        form,
        field: field.to_owned(),
        message,
        values,
    });
    back_to_keys(state, req, flash).await
}

/// A refused key operation back on the Keys page (or a page of its own when
/// the service failed).
async fn refused(
    state: &AppState,
    req: &HttpRequest,
    err: KeyError,
    form: String,
    field: &str,
    values: Vec<(String, String)>,
) -> HttpResponse {
    let form = if matches!(err, KeyError::NotFound | KeyError::Accounts(AccountsError::NotFound)) {
        PAGE_FORM.to_owned()
    } else {
        form
    };
    match refusal_message(err) {
        Some(message) => refuse(state, req, form, field, message, values).await,
        None => unavailable(),
    }
}

/// Whether the page offers the create and roll forms: their rows'
/// policy (`Session(Subscriber)`, as on the API) serves the account. The
/// gate enforces it; listing, renaming and revoking need no subscription.
fn may_create(rows: &Rows, signed: &SignedIn) -> bool {
    permits(rows.create_key.access, signed)
}

async fn no_key(state: &AppState, req: &HttpRequest) -> HttpResponse {
    refuse(
        state,
        req,
        PAGE_FORM.to_owned(),
        "key_id",
        "The form did not say which key.".to_owned(),
        Vec::new(),
    )
    .await
}

/// One key as the Keys page lists it, with what a refused form of its own
/// left beside its fields.
fn key_row(k: &linecast_core::ApiKeyRecord, current: i64, error: &FormError, now: DateTime<Utc>) -> KeyRow {
    let beside = |form: &str, field: &str| error.at(form, field).then(|| error.message.clone());
    let (rename, roll) = (format!("rename-{}", k.id), format!("roll-{}", k.id));
    let revoked = k.revoked_at.is_some() || !k.is_active;
    KeyRow {
        id: k.id,
        name: k.name.clone(),
        masked: k.masked(),
        created: when(k.created_at),
        last_used: k.last_used_at.map_or_else(|| "never".to_owned(), when),
        expires: k.expires_at.map_or_else(|| "never".to_owned(), when),
        state: if revoked {
            "revoked"
        } else if k.is_usable(now) {
            "active"
        } else {
            "expired"
        },
        usable: k.is_usable(now),
        current: k.id == current,
        rename_value: error.value(&rename, "name").unwrap_or(&k.name).to_owned(),
        rename_error: beside(&rename, "name"),
        roll_error: beside(&roll, "grace"),
    }
}

/// `GET /portal/keys`: the customer's keys, masked, with their forms; or,
/// once, after a form that issued a key, that key (the flash).
pub async fn keys(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    rows: web::Data<Rows>,
) -> HttpResponse {
    let flash = match take(&state, &req, FlashPage::Keys).await {
        Ok(flash) => flash,
        Err(res) => return *res,
    };
    let (error, notice) = match flash {
        Some(Flash::NewKey(new)) => return shown_once(&signed, new),
        Some(Flash::FormError(e)) => (Some(e), None),
        Some(Flash::Notice { text }) => (None, Some(text)),
        Some(Flash::Links { .. }) | None => (None, None),
    };
    let error = error.unwrap_or_default();
    let (current, customer) = (&signed.0.entry.0, &signed.0.entry.1);
    let now = state.clock.now();
    let listed = match state.api_keys.list(customer.customer_id).await {
        Ok(listed) => listed,
        Err(e) => {
            return match refusal_message(e) {
                Some(message) => error_page(StatusCode::BAD_REQUEST, &message),
                None => unavailable(),
            };
        }
    };
    let keys: Vec<KeyRow> = listed.iter().map(|k| key_row(k, current.id, &error, now)).collect();
    let can_create = may_create(&rows, &signed);
    render_keys(&state, &signed, can_create, keys, &error, notice)
}

/// The Keys page: the listed keys, the create form, and a refused form's
/// message beside its field, or at the top when its field is not on the
/// page (a key that stopped working meanwhile offers no form): never
/// dropped.
fn render_keys(
    state: &AppState,
    signed: &SignedIn,
    can_create: bool,
    keys: Vec<KeyRow>,
    error: &FormError,
    notice: Option<String>,
) -> HttpResponse {
    let create_error = ["name", "expires"]
        .into_iter()
        .find(|f| error.at("create", f))
        .filter(|_| can_create)
        .map(|f| (f.to_owned(), error.message.clone()));
    let placed = create_error.is_some()
        || keys
            .iter()
            .any(|k| k.usable && (k.rename_error.is_some() || (k.roll_error.is_some() && can_create)));
    let page_error = (!placed && !error.message.is_empty()).then(|| error.message.clone());
    page(
        StatusCode::OK,
        &KeysPage {
            csrf: signed.0.csrf_token.clone(),
            active: keys.iter().filter(|k| k.usable).count(),
            keys,
            max_active: state.api_keys.max_active(),
            can_create,
            max_name: MAX_NAME_CHARS,
            expiries: EXPIRIES.iter().map(|(v, l, _)| (*v, *l)).collect(),
            graces: Grace::ALL
                .iter()
                .map(|g| (g.code(), grace_label(*g), *g == Grace::OneHour))
                .collect(),
            create_name: error.value("create", "name").unwrap_or("API key").to_owned(),
            create_expires: error.value("create", "expires").unwrap_or("never").to_owned(),
            create_error,
            page_error,
            notice,
        },
    )
}

/// The page showing a new key, once: the GET that took the flash, never
/// cached.
fn shown_once(signed: &SignedIn, new: NewKey) -> HttpResponse {
    page(
        StatusCode::OK,
        &CreatedPage {
            csrf: signed.0.csrf_token.clone(),
            key: new.key,
            name: new.name,
            masked: new.masked,
            expires: new.expires,
            replaced: new.replaced,
        },
    )
}

fn new_key(issued: IssuedKey, replaced: Option<(String, String)>) -> Flash {
    Flash::NewKey(NewKey {
        masked: issued.record.masked(),
        name: issued.record.name,
        expires: issued.record.expires_at.map_or_else(|| "never".to_owned(), when),
        key: issued.key,
        replaced,
    })
}

/// `POST /portal/keys/create` (`name`, `expires`): issues a key and `303`s
/// to the Keys page, which shows it once; a refusal is shown beside the
/// form's field, with what was typed.
pub async fn create_key(req: HttpRequest, state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let name = form.get("name").unwrap_or_default();
    let expires = form.get("expires").unwrap_or("never");
    let typed = vec![
        ("name".to_owned(), name.to_owned()),
        ("expires".to_owned(), expires.to_owned()),
    ];
    let now = state.clock.now();
    let Some((_, _, days)) = EXPIRIES.iter().find(|(v, _, _)| *v == expires) else {
        let message = "Choose one of the offered expiries.".to_owned();
        return refuse(&state, &req, "create".to_owned(), "expires", message, typed).await;
    };
    let expires_at = days.map(|d| now + Duration::days(d));
    match state
        .api_keys
        .issue(&signed.0.entry.1, name, expires_at, ORIGIN, now)
        .await
    {
        Ok(issued) => back_to_keys(&state, &req, new_key(issued, None)).await,
        Err(e) => refused(&state, &req, e, "create".to_owned(), "name", typed).await,
    }
}

/// `POST /portal/keys/rename` (`key_id`, `name`): `303` back to the list.
pub async fn rename_key(req: HttpRequest, state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let Some(id) = form.key_id() else {
        return no_key(&state, &req).await;
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
        Ok(name) => {
            let text = format!("Renamed the key to \u{201c}{name}\u{201d}.");
            back_to_keys(&state, &req, Flash::Notice { text }).await
        }
        Err(e) => {
            let typed = vec![("name".to_owned(), name.to_owned())];
            refused(&state, &req, e, format!("rename-{id}"), "name", typed).await
        }
    }
}

/// The revoke confirmation's query.
#[derive(serde::Deserialize)]
pub struct RevokeQuery {
    key_id: Option<String>,
}

/// `GET /portal/keys/revoke?key_id=`: asks before revoking (a GET page, so
/// asking changes nothing and may be reloaded).
pub async fn confirm_revoke(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<RevokeQuery>,
) -> HttpResponse {
    let Some(id) = query.key_id.as_deref().and_then(|v| v.trim().parse::<i64>().ok()) else {
        return no_key(&state, &req).await;
    };
    let key = match state.api_keys.find_by_id(signed.0.entry.1.customer_id, id).await {
        Ok(key) => key,
        Err(e) => return refused(&state, &req, e, PAGE_FORM.to_owned(), "key_id", Vec::new()).await,
    };
    page(
        StatusCode::OK,
        &ConfirmRevokePage {
            csrf: signed.0.csrf_token.clone(),
            id: key.id,
            name: key.name.clone(),
            masked: key.masked(),
            current: key.id == signed.0.entry.0.id,
        },
    )
}

/// `POST /portal/keys/revoke` (`key_id`, `confirm=yes`): revokes the key at
/// once (its sessions end) and `303`s to the list. Without `confirm` it
/// `303`s to the confirmation page. Revoking a revoked key changes nothing
/// (going back and posting again repeats nothing).
pub async fn revoke_key(req: HttpRequest, state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let Some(id) = form.key_id() else {
        return no_key(&state, &req).await;
    };
    if form.get("confirm") != Some("yes") {
        return see_other_to(&format!("{}?key_id={id}", state.portal_links.confirm_revoke));
    }
    let key = match state.api_keys.find_by_id(signed.0.entry.1.customer_id, id).await {
        Ok(key) => key,
        Err(e) => return refused(&state, &req, e, PAGE_FORM.to_owned(), "key_id", Vec::new()).await,
    };
    let current = key.id == signed.0.entry.0.id;
    if key.revoked_at.is_some() || !key.is_active {
        let text = format!("{} was already revoked.", key.masked());
        return back_to_keys(&state, &req, Flash::Notice { text }).await;
    }
    match state.api_keys.revoke(&key, ORIGIN, state.clock.now()).await {
        // Revoking the session's own key ends the session: the list would
        // send to the sign-in page anyway.
        Ok(_) if current => see_other(state.portal_links.home),
        Ok(_) => {
            let text = format!("Revoked {} ({}).", key.name, key.masked());
            back_to_keys(&state, &req, Flash::Notice { text }).await
        }
        Err(e) => refused(&state, &req, e, PAGE_FORM.to_owned(), "key_id", Vec::new()).await,
    }
}

/// `POST /portal/keys/roll` (`key_id`, `grace`): issues the replacement and
/// `303`s to the Keys page, which shows it once; the old key stops after
/// the grace.
pub async fn roll_key(req: HttpRequest, state: web::Data<AppState>, signed: SignedIn, form: Fields) -> HttpResponse {
    let Some(id) = form.key_id() else {
        return no_key(&state, &req).await;
    };
    let roll = format!("roll-{id}");
    let Some(grace) = form.get("grace").and_then(Grace::parse) else {
        let message = "Choose how long the old key keeps working.".to_owned();
        return refuse(&state, &req, roll, "grace", message, Vec::new()).await;
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
            back_to_keys(&state, &req, new_key(issued, Some((old.masked(), stops)))).await
        }
        Err(e) => refused(&state, &req, e, roll, "grace", Vec::new()).await,
    }
}
