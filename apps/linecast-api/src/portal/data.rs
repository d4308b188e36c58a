//! `GET /portal/data`: the six sports' data status and last release, the
//! customer's historical datasets with `Refresh` (signed links, the same use
//! case as `POST /api/v1/service-sports-data/refresh`), and the bulk-export
//! paths.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use askama::Template;
use linecast_domain::{ModelType, Sport};

use super::html::{api_error_page, error_page, page};
use super::pages::{SportStatus, sport_statuses};
use super::session::SignedIn;
use crate::endpoint::NO_STORE;
use crate::error::ApiError;
use crate::state::AppState;

struct Link {
    sport: &'static str,
    filename: String,
    url: String,
    expires_at: String,
}

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
    exports: Vec<String>,
}

fn instant(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

async fn render(state: &AppState, signed: &SignedIn, links: Vec<Link>) -> HttpResponse {
    let customer = &signed.0.entry.1;
    let now = state.clock.now();
    let status = match state.datasets.status(customer.customer_id, now).await {
        Ok(s) => s,
        Err(e) => return api_error_page(&ApiError::from(e)),
    };
    let sports = sport_statuses(state, now).await;
    let exports = Sport::ALL
        .iter()
        .flat_map(|s| {
            ModelType::ALL
                .iter()
                .map(move |m| format!("/api/v1/results/{}/{}/export?season=all&format=csv", s.code(), m.code()))
        })
        .collect();
    let serves = customer.api_subscription_status.grants_access();
    page(
        StatusCode::OK,
        NO_STORE,
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
            exports,
        },
    )
}

/// `GET /portal/data`.
pub async fn data(state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    render(&state, &signed, Vec::new()).await
}

/// `POST /portal/data/refresh`: consumes one of the month's refreshes and
/// shows the signed links (as the API's refresh: it needs a subscription
/// that grants access).
pub async fn refresh(state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    let customer = &signed.0.entry.1;
    if !customer.api_subscription_status.grants_access() {
        return error_page(
            StatusCode::FORBIDDEN,
            &format!(
                "Refreshing datasets needs an active subscription; yours is {}.",
                customer.api_subscription_status
            ),
        );
    }
    let refresh = match state.datasets.refresh(customer.customer_id, state.clock.now()).await {
        Ok(r) => r,
        Err(e) => return api_error_page(&ApiError::from(e)),
    };
    let links = refresh
        .downloads
        .into_iter()
        .map(|d| Link {
            sport: d.sport.code(),
            filename: d.filename,
            url: d.url,
            expires_at: instant(d.expires_at),
        })
        .collect();
    render(&state, &signed, links).await
}
