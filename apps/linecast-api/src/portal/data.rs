//! `GET /portal/data`: the six sports' data status and last release, the
//! customer's historical datasets with `Refresh` (signed links, the same use
//! case as `POST /api/v1/service-sports-data/refresh`; the form `303`s back
//! and the links are shown once, through the flash), and the bulk-export
//! paths (results and prediction history, CSV or Parquet).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use linecast_domain::ModelType;

use super::Rows;
use super::flash::{Flash, FlashPage, FormError, Link, leave, take};
use super::html::{api_error_page, filters, page, see_other};
use super::pages::{SportStatus, sport_statuses};
use crate::auth::session::{SignedIn, permits};
use crate::error::ApiError;
use crate::state::AppState;

#[derive(Template)]
#[template(path = "portal/data.html")]
struct DataPage {
    csrf: String,
    sports: Vec<SportStatus>,
    owns: bool,
    products: String,
    owned_sports: String,
    expires: String,
    refreshes_used: u32,
    refresh_limit: u32,
    refreshes_remaining: u32,
    next_reset: String,
    can_refresh: bool,
    serves: bool,
    links: Vec<Link>,
    /// A refused refresh's message, beside its button.
    refresh_error: Option<String>,
    /// Each market's `model_type` and what it is.
    markets: Vec<(&'static str, &'static str)>,
    /// `LINECAST_PUBLIC_URL`, for the example.
    public_url: String,
}

fn instant(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

async fn render(
    state: &AppState,
    rows: &Rows,
    signed: &SignedIn,
    links: Vec<Link>,
    refresh_error: Option<String>,
) -> HttpResponse {
    let customer = &signed.0.entry.1;
    let now = state.clock.now();
    let status = match state.datasets.status(customer.customer_id, now).await {
        Ok(s) => s,
        Err(e) => return api_error_page(&ApiError::from(e)),
    };
    let sports = sport_statuses(state, now).await;
    let markets = ModelType::ALL.iter().map(|m| (m.code(), m.name())).collect();
    let serves = permits(rows.data_refresh.access, signed);
    page(
        StatusCode::OK,
        &DataPage {
            csrf: signed.0.csrf_token.clone(),
            sports,
            owns: !status.owned_products.is_empty(),
            products: status.owned_products.join(", "),
            owned_sports: status
                .owned_sports
                .iter()
                .map(|s| s.code())
                .collect::<Vec<_>>()
                .join(", "),
            expires: status.expires_at.map_or_else(|| "never".to_owned(), instant),
            refreshes_used: status.refreshes_used,
            refresh_limit: status.refresh_limit,
            refreshes_remaining: status.refreshes_remaining,
            next_reset: instant(status.next_reset_at),
            can_refresh: serves && status.active && status.refreshes_remaining > 0,
            serves,
            links,
            refresh_error,
            markets,
            public_url: state.public_url.clone(),
        },
    )
}

/// `GET /portal/data`; once after a refresh, its signed links (or why it
/// was refused), taken from the flash.
pub async fn data(
    req: HttpRequest,
    state: web::Data<AppState>,
    signed: SignedIn,
    rows: web::Data<Rows>,
) -> HttpResponse {
    match take(&state, &req, FlashPage::Data).await {
        Ok(Some(Flash::Links { links })) => render(&state, &rows, &signed, links, None).await,
        Ok(Some(Flash::FormError(e))) => render(&state, &rows, &signed, Vec::new(), Some(e.message)).await,
        Ok(_) => render(&state, &rows, &signed, Vec::new(), None).await,
        Err(res) => *res,
    }
}

/// Leaves `flash` for the Data page and `303`s to it.
async fn back_to_data(state: &AppState, req: &HttpRequest, flash: Flash) -> HttpResponse {
    match leave(state, req, FlashPage::Data, &flash).await {
        Ok(()) => see_other(state.portal_links.data),
        Err(res) => *res,
    }
}

async fn refused(state: &AppState, req: &HttpRequest, message: String) -> HttpResponse {
    let flash = Flash::FormError(FormError {
        form: "refresh".to_owned(),
        field: "refresh".to_owned(),
        message,
        values: Vec::new(),
    });
    back_to_data(state, req, flash).await
}

/// `POST /portal/data/refresh`: consumes one of the month's refreshes and
/// `303`s to the Data page, which shows the signed links once (as the API's
/// refresh: it needs a subscription that grants access). A reload of the
/// page shows no links and spends nothing.
pub async fn refresh(req: HttpRequest, state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    let customer = &signed.0.entry.1;
    let refresh = match state.datasets.refresh(customer.customer_id, state.clock.now()).await {
        Ok(r) => r,
        Err(e) => {
            let e = ApiError::from(e);
            return if actix_web::ResponseError::status_code(&e).is_client_error() {
                refused(&state, &req, e.to_string()).await
            } else {
                api_error_page(&e)
            };
        }
    };
    let links = refresh
        .downloads
        .into_iter()
        .map(|d| Link {
            sport: d.sport.code().to_owned(),
            filename: d.filename,
            url: d.url,
            expires_at: instant(d.expires_at),
        })
        .collect();
    back_to_data(&state, &req, Flash::Links { links }).await
}
