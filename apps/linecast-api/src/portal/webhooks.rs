//! The portal's Webhooks page: the account's endpoints with their latest
//! attempts, and the forms that create one, send a test, rotate its
//! secret, disable or enable it, delete it, recover its failed deliveries
//! since an instant, and resend one delivery. Every rule is core's
//! `services::webhooks` and the store's, the same the API's webhook routes
//! apply; this module reads forms and renders the page. Every form answers
//! `303` to `GET /portal/webhooks` (`flash`): a new secret is shown once by
//! the first GET after the form that made it, a refused form is shown again
//! with its message, and a reload or going back repeats nothing.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::{DateTime, NaiveDateTime, Utc};
use linecast_core::AccountsError;
use linecast_core::ports::webhooks::{Attempt, Endpoint, EndpointUpdate};
use linecast_core::services::webhooks::{EndpointError, EndpointRequest};
use linecast_domain::Sport;
use linecast_webhooks::events::{EventType, MAX_ENDPOINTS_PER_ACCOUNT};

use super::Rows;
use super::flash::{Flash, FlashPage, FormError, NewKey, leave, take};
use super::html::{error_page, page, see_other};
use super::keys::Fields;
use crate::auth::session::{SignedIn, permits};
use crate::state::AppState;

/// Attempts listed per endpoint.
const ATTEMPTS_SHOWN: u32 = 10;

struct AttemptRow {
    delivery_id: i64,
    at: String,
    status: String,
    ok: bool,
    latency_ms: u32,
    body: String,
}

struct EndpointRow {
    id: String,
    url: String,
    description: String,
    events: String,
    sports: String,
    enabled: bool,
    state: String,
    failing_since: Option<String>,
    attempts: Vec<AttemptRow>,
    /// A refused form of this endpoint's: its message.
    error: Option<String>,
}

#[derive(Template)]
#[template(path = "portal/webhooks.html")]
struct WebhooksPage {
    csrf: String,
    endpoints: Vec<EndpointRow>,
    max: usize,
    can_manage: bool,
    event_types: Vec<(&'static str, bool)>,
    sports: Vec<(&'static str, bool)>,
    create_url: String,
    create_error: Option<String>,
    page_error: Option<String>,
    notice: Option<String>,
    /// A secret just made (created or rotated), shown this once.
    secret: Option<(String, String)>,
}

fn when(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

fn unavailable() -> HttpResponse {
    error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "The accounts database is not answering. Please try again in a moment.",
    )
}

/// A refused change, said for people; `None` for a failure of the service.
fn message(e: EndpointError) -> Option<String> {
    Some(match e {
        EndpointError::Url { code, message } => format!("That URL is refused ({code}): {message}."),
        EndpointError::EventType(name) => format!("{name} is not an event type."),
        EndpointError::NoEventType => "Choose at least one event type.".to_owned(),
        EndpointError::Sport(code) => format!("{code} is not a sport."),
        EndpointError::LimitReached => {
            format!("An account has at most {MAX_ENDPOINTS_PER_ACCOUNT} endpoints. Delete one first.")
        }
        EndpointError::Disabled => "That endpoint is disabled: enable it first.".to_owned(),
        EndpointError::Accounts(AccountsError::NotFound) => "That endpoint is not among yours.".to_owned(),
        EndpointError::Accounts(AccountsError::Conflict(_)) => {
            "That delivery is still pending: it goes out on its own.".to_owned()
        }
        EndpointError::Accounts(e @ AccountsError::Unavailable(_)) => {
            tracing::warn!(error = %e, "portal webhooks: accounts");
            return None;
        }
    })
}

async fn back(state: &AppState, req: &HttpRequest, flash: Flash) -> HttpResponse {
    match leave(state, req, FlashPage::Webhooks, &flash).await {
        Ok(()) => see_other(state.portal_links.webhooks),
        Err(res) => *res,
    }
}

async fn refuse(
    state: &AppState,
    req: &HttpRequest,
    form: String,
    e: EndpointError,
    values: Vec<(String, String)>,
) -> HttpResponse {
    match message(e) {
        Some(message) => {
            let flash = Flash::FormError(FormError {
                form,
                field: "page".to_owned(),
                message,
                values,
            });
            back(state, req, flash).await
        }
        None => unavailable(),
    }
}

/// A form of endpoint `form` refused for its `field`: the message shown
/// with that endpoint.
async fn beside(state: &AppState, req: &HttpRequest, form: String, field: &str, message: &str) -> HttpResponse {
    let flash = Flash::FormError(FormError {
        form,
        field: field.to_owned(),
        message: message.to_owned(),
        values: Vec::new(),
    });
    back(state, req, flash).await
}

async fn notice(state: &AppState, req: &HttpRequest, text: String) -> HttpResponse {
    back(state, req, Flash::Notice { text }).await
}

/// The secret shown once: carried in the flash's key slot (never in a
/// URL or a cookie; the flash is sealed server-side and read once).
fn new_secret(endpoint: &Endpoint, secret: String) -> Flash {
    Flash::NewKey(NewKey {
        key: secret,
        name: endpoint.url.clone(),
        masked: endpoint.id.clone(),
        expires: String::new(),
        replaced: None,
    })
}

fn customer(signed: &SignedIn) -> i64 {
    signed.0.entry.1.customer_id
}

fn may_manage(rows: &Rows, signed: &SignedIn) -> bool {
    permits(rows.webhooks_create.access, signed)
}

/// `GET /portal/webhooks`: the endpoints, their latest attempts and forms.
pub async fn webhooks(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    rows: web::Data<Rows>,
) -> HttpResponse {
    let flash = match take(&state, &req, FlashPage::Webhooks).await {
        Ok(flash) => flash,
        Err(res) => return *res,
    };
    let (mut error, mut notice, mut secret) = (FormError::default(), None, None);
    match flash {
        Some(Flash::NewKey(new)) => secret = Some((new.masked, new.key)),
        Some(Flash::FormError(e)) => error = e,
        Some(Flash::Notice { text }) => notice = Some(text),
        Some(Flash::Links { .. }) | None => {}
    }
    let store = state.webhooks.store();
    let id = customer(&signed);
    let Ok(listed) = store.endpoints(id).await else {
        return unavailable();
    };
    let mut endpoints = Vec::with_capacity(listed.len());
    for e in &listed {
        let Ok(attempts) = store.attempts(id, &e.id, ATTEMPTS_SHOWN).await else {
            return unavailable();
        };
        endpoints.push(endpoint_row(e, &attempts, &error));
    }
    let placed = endpoints.iter().any(|e| e.error.is_some()) || error.form == "create";
    let page_error = (!placed && !error.message.is_empty()).then(|| error.message.clone());
    let chosen = |name: &str| error.values.iter().any(|(k, _)| k == name);
    let typed_types: Vec<&str> = error
        .values
        .iter()
        .filter(|(k, _)| k == "event_type")
        .map(|(_, v)| v.as_str())
        .collect();
    let typed_sports: Vec<&str> = error
        .values
        .iter()
        .filter(|(k, _)| k == "sport")
        .map(|(_, v)| v.as_str())
        .collect();
    let refused_create = error.form == "create";
    page(
        StatusCode::OK,
        &WebhooksPage {
            csrf: signed.0.csrf_token.clone(),
            endpoints,
            max: MAX_ENDPOINTS_PER_ACCOUNT,
            can_manage: may_manage(&rows, &signed),
            event_types: EventType::ALL
                .iter()
                .map(|t| {
                    let on = if refused_create && chosen("event_type") {
                        typed_types.contains(&t.code())
                    } else {
                        *t == EventType::ReleasePublished
                    };
                    (t.code(), on)
                })
                .collect(),
            sports: Sport::ALL
                .iter()
                .map(|s| (s.code(), refused_create && typed_sports.contains(&s.code())))
                .collect(),
            create_url: error.value("create", "url").unwrap_or_default().to_owned(),
            create_error: refused_create.then(|| error.message.clone()),
            page_error,
            notice,
            secret,
        },
    )
}

/// One endpoint's row of the page: its settings and state as text, its
/// latest attempts, and the refusal of a form posted for it.
fn endpoint_row(e: &Endpoint, attempts: &[Attempt], error: &FormError) -> EndpointRow {
    EndpointRow {
        id: e.id.clone(),
        url: e.url.clone(),
        description: e.description.clone().unwrap_or_default(),
        events: e.event_types.join(", "),
        sports: if e.sports.is_empty() {
            "every sport".to_owned()
        } else {
            e.sports.join(", ")
        },
        enabled: e.enabled,
        state: match (&e.enabled, e.disabled_reason.as_deref()) {
            (true, _) => "enabled".to_owned(),
            (false, Some("gone")) => "disabled: the receiver answered 410 Gone".to_owned(),
            (false, Some("failing")) => "disabled: five days of failures".to_owned(),
            (false, _) => "disabled".to_owned(),
        },
        failing_since: e.failing_since.map(when),
        attempts: attempts
            .iter()
            .map(|a| AttemptRow {
                delivery_id: a.delivery_id,
                at: when(a.attempted_at),
                status: a
                    .status_code
                    .map_or_else(|| a.error.clone().unwrap_or_default(), |s| s.to_string()),
                ok: a.status_code.is_some_and(|s| (200..300).contains(&s)),
                latency_ms: a.latency_ms,
                body: a.response_body.clone(),
            })
            .collect(),
        error: (error.form == e.id).then(|| error.message.clone()),
    }
}

/// `POST /portal/webhooks/create` (`url`, `event_type`…, `sport`…,
/// `description`): the new endpoint's secret is shown once by the page.
pub async fn create_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let url = form.get("url").unwrap_or_default().trim().to_owned();
    let event_types = form.all("event_type");
    let sports = form.all("sport");
    let description = form
        .get("description")
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned);
    let mut typed = vec![("url".to_owned(), url.clone())];
    typed.extend(event_types.iter().map(|t| ("event_type".to_owned(), t.clone())));
    typed.extend(sports.iter().map(|s| ("sport".to_owned(), s.clone())));
    let request = EndpointRequest {
        url,
        description,
        event_types,
        sports,
    };
    match state.webhooks.create(customer(&signed), request).await {
        Ok((endpoint, secret)) => back(&state, &req, new_secret(&endpoint, secret.to_string())).await,
        Err(e) => refuse(&state, &req, "create".to_owned(), e, typed).await,
    }
}

fn endpoint_of(form: &Fields) -> String {
    form.get("endpoint_id").unwrap_or_default().trim().to_owned()
}

/// `POST /portal/webhooks/test` (`endpoint_id`).
pub async fn test_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    let payload = linecast_payloads::webhooks::test_payload(&id, state.webhooks.now());
    match state.webhooks.send_test(customer(&signed), &id, payload).await {
        Ok(message) => notice(&state, &req, format!("A test event ({message}) is on its way to {id}.")).await,
        Err(e) => refuse(&state, &req, id, e, Vec::new()).await,
    }
}

/// `POST /portal/webhooks/rotate` (`endpoint_id`): the new secret is shown
/// once; the old one keeps signing for 24 hours.
pub async fn rotate_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    match state.webhooks.rotate(customer(&signed), &id).await {
        Ok((endpoint, secret)) => back(&state, &req, new_secret(&endpoint, secret.to_string())).await,
        Err(e) => refuse(&state, &req, id, e, Vec::new()).await,
    }
}

/// `POST /portal/webhooks/enable` (`endpoint_id`, `enabled` = `true` or
/// `false`).
pub async fn enable_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    let enabled = form.get("enabled") == Some("true");
    let update = EndpointUpdate {
        enabled: Some(enabled),
        ..EndpointUpdate::default()
    };
    match state.webhooks.update(customer(&signed), &id, update).await {
        Ok(_) => {
            let done = if enabled { "Enabled" } else { "Disabled" };
            notice(&state, &req, format!("{done} {id}.")).await
        }
        Err(e) => refuse(&state, &req, id, e, Vec::new()).await,
    }
}

/// `POST /portal/webhooks/delete` (`endpoint_id`, `confirm=yes`).
pub async fn delete_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    if form.get("confirm") != Some("yes") {
        return beside(&state, &req, id, "confirm", "Tick the box to confirm the deletion.").await;
    }
    match state.webhooks.store().delete_endpoint(customer(&signed), &id).await {
        Ok(()) => {
            notice(
                &state,
                &req,
                format!("Deleted {id}; its pending deliveries are cancelled."),
            )
            .await
        }
        Err(AccountsError::NotFound) => notice(&state, &req, format!("{id} was already deleted.")).await,
        Err(e) => refuse(&state, &req, id, e.into(), Vec::new()).await,
    }
}

/// `POST /portal/webhooks/recover` (`endpoint_id`, `since` as
/// `YYYY-MM-DDTHH:MM` in UTC).
pub async fn recover_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    let raw = form.get("since").unwrap_or_default().trim();
    let Ok(since) = NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M") else {
        return beside(
            &state,
            &req,
            id,
            "since",
            "Give the instant as a date and a time (UTC).",
        )
        .await;
    };
    let since = since.and_utc();
    match state
        .webhooks
        .store()
        .recover_since(customer(&signed), &id, since, state.webhooks.now())
        .await
    {
        Ok(n) => {
            notice(
                &state,
                &req,
                format!("{n} failed deliveries since {} queued again.", when(since)),
            )
            .await
        }
        Err(e) => refuse(&state, &req, id, e.into(), Vec::new()).await,
    }
}

/// `POST /portal/webhooks/resend` (`endpoint_id`, `delivery_id`).
pub async fn resend_webhook(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    form: Fields,
) -> HttpResponse {
    let id = endpoint_of(&form);
    let Some(delivery) = form.get("delivery_id").and_then(|d| d.trim().parse::<i64>().ok()) else {
        return refuse(
            &state,
            &req,
            id,
            EndpointError::Accounts(AccountsError::NotFound),
            Vec::new(),
        )
        .await;
    };
    match state
        .webhooks
        .store()
        .resend(customer(&signed), delivery, state.webhooks.now())
        .await
    {
        Ok(d) => {
            notice(
                &state,
                &req,
                format!("Delivery {} of {} queued again.", d.id, d.message_id),
            )
            .await
        }
        Err(e) => refuse(&state, &req, id, e.into(), Vec::new()).await,
    }
}
