//! The portal's handlers: sign-in and sign-out, the overview, the public
//! status page, the stylesheet and the Copy button's script (the Keys page
//! is `keys`). Each reads a core use case and renders a
//! template (`templates/portal/`).

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_TYPE, HeaderValue, SET_COOKIE};
use actix_web::{HttpRequest, HttpResponse, web};
use askama::Template;
use chrono::Datelike;
use linecast_charts::bars::{Bar, bar_chart, summary};
use linecast_core::quota_calendar::{day_key, month_key};
use linecast_core::services::access::Refusal;
use linecast_core::services::portal::SignInRefusal;
use linecast_core::services::usage::UsageHistory;
use linecast_domain::Sport;
use linecast_payloads::freshness::DataStatusResponse;
use serde::Deserialize;

use super::back::{ENDED_MESSAGE, return_path};
use super::html::filters;
use super::html::{error_page, page, see_other, see_other_to};
use crate::auth::next_reset;
use crate::auth::session::SignedIn;
use crate::state::AppState;

/// The quota shares at which the overview warns.
pub const WARN_AT_PERCENT: u64 = 80;

/// The least the overview's meter shows, in percent of its width, once
/// anything was used this month: 0.2% of the quota would otherwise draw an
/// empty bar, which reads as "nothing used". The share itself is said in
/// words beside it (and to screen readers), never rounded up.
pub const METER_FLOOR_PERCENT: f64 = 2.0;

/// This month's share of the quota as the overview shows it: the meter's
/// value (percent; at least [`METER_FLOOR_PERCENT`] once anything was
/// used) and the share in words, rounded down so that a month is never
/// said to be used up before it is (`0.2%`, `under 0.1%`, `99%`).
fn quota_share(used: u64, limit: u64) -> (String, String) {
    if used == 0 && limit > 0 {
        return ("0".to_owned(), "0%".to_owned());
    }
    if used >= limit {
        return ("100".to_owned(), "100%".to_owned());
    }
    #[allow(clippy::cast_precision_loss)] // a share: 2^53 requests are far off
    let exact = used as f64 * 100.0 / limit as f64;
    let words = if exact < 0.1 {
        "under 0.1%".to_owned()
    } else if exact < 10.0 {
        format!("{:.1}%", (exact * 10.0).floor() / 10.0)
    } else {
        format!("{}%", exact.floor())
    };
    (format!("{:.2}", exact.max(METER_FLOOR_PERCENT)), words)
}

#[derive(Template)]
#[template(path = "portal/sign_in.html")]
struct SignInPage<'a> {
    /// A refused sign-in: beside the key field (the key itself is never
    /// put back).
    message: Option<&'a str>,
    /// "Your session ended; sign in again."
    notice: Option<&'a str>,
    /// The page to return to after signing in (`back::return_path`).
    next: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "portal/overview.html")]
struct OverviewPage {
    csrf: String,
    name: String,
    email: String,
    plan: String,
    tier: String,
    status: String,
    serves: bool,
    used: u64,
    limit: u64,
    remaining: u64,
    percent: u64,
    /// The meter's value and the share in words (`quota_share`).
    meter: String,
    share: String,
    reset_date: String,
    /// The whole quota is used: the API answers 429 until the reset.
    used_up: bool,
    /// At least [`WARN_AT_PERCENT`] of it is used.
    near_limit: bool,
    /// Requests per UTC day this month: the chart (inline SVG) and its rows.
    daily_chart: String,
    days: Vec<(String, u64)>,
    /// Totals of the past months and this one: the chart and its rows.
    monthly_chart: String,
    months: Vec<(String, u64)>,
}

/// The overview's charts and their tables, from the customer's history.
struct UsageCharts {
    daily_chart: String,
    days: Vec<(String, u64)>,
    monthly_chart: String,
    months: Vec<(String, u64)>,
}

impl UsageCharts {
    fn of(history: &UsageHistory) -> Self {
        let days: Vec<Bar> = history
            .days
            .iter()
            .map(|&(day, value)| Bar {
                label: day_key(day),
                tick: day.day().to_string(),
                value,
            })
            .collect();
        let months: Vec<Bar> = history
            .months
            .iter()
            .map(|&(month, value)| Bar {
                label: month_key(month),
                tick: month_key(month),
                value,
            })
            .collect();
        let span = |bars: &[Bar]| match (bars.first(), bars.last()) {
            (Some(first), Some(last)) => format!("{} to {}", first.label, last.label),
            _ => String::new(),
        };
        let daily_chart = bar_chart(
            "per-day-chart",
            &format!("Requests per day (UTC), {}", span(&days)),
            &summary(&days),
            &days,
        );
        let monthly_chart = bar_chart(
            "per-month-chart",
            &format!("Requests per month, {}", span(&months)),
            &summary(&months),
            &months,
        );
        let rows = |bars: Vec<Bar>| bars.into_iter().map(|b| (b.label, b.value)).collect();
        Self {
            daily_chart,
            days: rows(days),
            monthly_chart,
            months: rows(months),
        }
    }
}

/// One sport's data status as the portal's pages show it.
pub(super) struct SportStatus {
    pub sport: &'static str,
    pub status: String,
    pub operational: bool,
    pub slate_date: String,
    pub release_id: String,
    pub reason: String,
}

/// Every sport's data status at `now` (the same reports as
/// `/api/v1/data-status/{sport}`).
pub(super) async fn sport_statuses(state: &AppState, now: chrono::DateTime<chrono::Utc>) -> Vec<SportStatus> {
    let reports = futures::future::join_all(Sport::ALL.iter().map(|&sport| state.freshness.status(sport, now))).await;
    Sport::ALL
        .iter()
        .zip(&reports)
        .map(|(sport, report)| {
            let view = DataStatusResponse::from(report);
            SportStatus {
                sport: sport.code(),
                status: view.status,
                operational: view.operational,
                slate_date: view.slate_date,
                release_id: view.release_id.unwrap_or_else(|| "-".to_owned()),
                reason: view.degradation_reason.unwrap_or_default(),
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "portal/status.html")]
struct StatusPage {
    healthy: bool,
    /// When the dependencies were probed (the wall clock).
    checked_at: String,
    /// The instant the data's statuses are judged at: the data clock's now.
    data_at: String,
    /// The data clock is set apart from the wall clock (`LINECAST_NOW`, a
    /// demo or a test): the page says so, or a slate dated days before the
    /// check above it would read as a contradiction.
    clock_set: bool,
    dependencies: Vec<(String, String)>,
    sports: Vec<SportStatus>,
}

/// The sign-in page's query: where to return afterwards, and whether a
/// session ended.
#[derive(Deserialize)]
pub struct SignInQuery {
    next: Option<String>,
    ended: Option<String>,
}

/// `GET /portal`: the sign-in page (saying so when a session ended, and
/// returning afterwards to `next` when it is a portal page:
/// `back::return_path`), or, when already signed in, that page or the
/// overview.
pub async fn home(req: HttpRequest, state: web::Data<AppState>, query: web::Query<SignInQuery>) -> HttpResponse {
    let next = query.next.as_deref().and_then(return_path);
    if let Some(gate) = state.gate.portal.as_ref() {
        if let Some(id) = gate.cookie.session_id(&req)
            && let Ok(Some(_)) = gate.portal.resume(&id).await
        {
            return see_other_to(next.unwrap_or(state.portal_links.overview));
        }
    } else {
        return error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
    }
    page(
        StatusCode::OK,
        &SignInPage {
            message: None,
            notice: query.ended.is_some().then_some(ENDED_MESSAGE),
            next,
        },
    )
}

/// The sign-in form (described for utoipa, which reads the handler's
/// extractors; the portal's rows are not in the OpenAPI document).
#[derive(Deserialize, utoipa::ToSchema)]
pub struct SignInForm {
    api_key: String,
    /// The page to return to (kept only when `back::return_path` accepts it).
    next: Option<String>,
}

/// `POST /portal/sign-in`: refused when posted from another site
/// (`portal::origin`); checks the key as the API does and starts a session
/// (a new id at every sign-in), ending the one the browser presented, then
/// `303` to the page asked for before (`next`, a portal path only) or the
/// overview. A refused key re-renders the form (`401`) with the message
/// beside the field and the key field empty. Every attempt pays the
/// address's failed-key limit first; one that is not a failure gets its
/// token back.
pub async fn sign_in(req: HttpRequest, state: web::Data<AppState>, form: web::Form<SignInForm>) -> HttpResponse {
    let (gate, throttle) = match super::throttle::begin(&state.gate, &req) {
        Ok(begun) => begun,
        Err(refused) => return *refused,
    };
    let next = form.next.as_deref().and_then(return_path);
    let presented = form.api_key.trim();
    let previous = gate.cookie.session_id(&req);
    match gate
        .portal
        .sign_in(Some(presented).filter(|k| !k.is_empty()), previous.as_deref())
        .await
    {
        Ok(started) => {
            throttle.refund();
            let mut res = see_other_to(next.unwrap_or(state.portal_links.overview));
            res.headers_mut()
                .append(SET_COOKIE, gate.cookie.set(&started.session_id));
            res
        }
        Err(SignInRefusal::Unavailable(cause)) => {
            throttle.refund();
            tracing::warn!(%cause, "portal sign-in: accounts unavailable");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The accounts database is not answering. Please try again in a moment.",
            )
        }
        // A key sign-in has no link's account to refuse.
        Err(SignInRefusal::Key(refusal) | SignInRefusal::Account(refusal)) => refused_sign_in(&refusal, next),
    }
}

/// A refused key sign-in, answered in place (`401`): the form again with
/// the reason, keeping `next`, never the key.
fn refused_sign_in(refusal: &Refusal, next: Option<&str>) -> HttpResponse {
    let message = match refusal {
        Refusal::NoApiAccess { .. } => "This key's plan has no API access.",
        _ => "That API key is not valid. Check it and try again.",
    };
    page(
        StatusCode::UNAUTHORIZED,
        &SignInPage {
            message: Some(message),
            notice: None,
            next,
        },
    )
}

/// `POST /portal/sign-out`: ends the session on the server.
pub async fn sign_out(state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    let Some(gate) = state.gate.portal.as_ref() else {
        return error_page(StatusCode::NOT_FOUND, "The portal is not available on this server.");
    };
    if let Err(e) = gate.portal.sign_out(&signed.0).await {
        tracing::warn!(error = %e, "portal sign-out");
        return error_page(
            StatusCode::SERVICE_UNAVAILABLE,
            "The accounts database is not answering; you are still signed in. Please try again.",
        );
    }
    let mut res = see_other(state.portal_links.home);
    res.headers_mut().append(SET_COOKIE, gate.cookie.clear());
    res
}

fn usage_unavailable(e: &impl std::fmt::Display) -> HttpResponse {
    tracing::warn!(error = %e, "portal overview: usage");
    error_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "This month's usage cannot be read right now. Please try again in a moment.",
    )
}

/// `GET /portal/overview`: plan, status, this month's quota, requests per
/// day this month and the totals of past months.
pub async fn overview(state: web::Data<AppState>, signed: SignedIn) -> HttpResponse {
    let customer = &signed.0.entry.1;
    let now = state.clock.now();
    let history = match state.usage.history(customer.customer_id, now).await {
        Ok(history) => history,
        Err(e) => return usage_unavailable(&e),
    };
    // This month's count is the history's last month (the quota's view).
    let used = history.months.last().map_or(0, |m| m.1);
    let charts = UsageCharts::of(&history);
    let limit = customer.monthly_limit;
    let percent = used.saturating_mul(100).checked_div(limit).map_or(100, |p| p.min(100));
    let (meter, share) = quota_share(used, limit);
    page(
        StatusCode::OK,
        &OverviewPage {
            csrf: signed.0.csrf_token.clone(),
            name: customer.name.clone(),
            email: customer.email.clone(),
            plan: customer.api_plan.clone().unwrap_or_else(|| "none".to_owned()),
            tier: linecast_payloads::account::reported_tier(&customer.tier),
            status: customer.api_subscription_status.code().to_owned(),
            serves: customer.api_subscription_status.grants_access(),
            used,
            limit,
            remaining: limit.saturating_sub(used),
            percent,
            meter,
            share,
            reset_date: next_reset(now).format("%Y-%m-%d").to_string(),
            used_up: used >= limit,
            near_limit: percent >= WARN_AT_PERCENT,
            daily_chart: charts.daily_chart,
            days: charts.days,
            monthly_chart: charts.monthly_chart,
            months: charts.months,
        },
    )
}

/// How far the data clock may be from the wall clock and still be the
/// wall clock as far as the status page says (reads a moment apart).
const CLOCK_SET_APART_SECS: i64 = 60;

/// Whether the data clock (`data`) is set apart from the wall clock
/// (`wall`): frozen or moved by `LINECAST_NOW` or a test.
fn clock_set_apart(data: chrono::DateTime<chrono::Utc>, wall: chrono::DateTime<chrono::Utc>) -> bool {
    (wall - data).num_seconds().abs() > CLOCK_SET_APART_SECS
}

/// `GET /status`: each sport's data status and the service's health, for
/// anyone. The health check is timed by the wall clock, the data's status
/// by the data clock (which `LINECAST_NOW` may set apart): the page names
/// both instants, and says when they differ.
pub async fn status(state: web::Data<AppState>) -> HttpResponse {
    let now = state.clock.now();
    let round = state.health.current(&state.probes).await;
    let sports = sport_statuses(&state, now).await;
    page(
        StatusCode::OK,
        &StatusPage {
            healthy: round.dependencies.values().all(|d| d.status == "ok"),
            checked_at: round.at.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            data_at: now.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
            clock_set: clock_set_apart(now, chrono::Utc::now()),
            dependencies: round
                .dependencies
                .iter()
                .map(|(name, d)| (name.clone(), d.status.clone()))
                .collect(),
            sports,
        },
    )
}

/// The portal's stylesheet (a file, so no page needs inline style).
const STYLESHEET: &str = include_str!("../../templates/portal/portal.css");

/// `GET /portal/static/portal.css`.
pub async fn stylesheet() -> HttpResponse {
    let mut res = HttpResponse::Ok().body(STYLESHEET);
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    res
}

/// The Model quality page's season list that follows the sport
/// (progressive enhancement: without it the server falls back).
const QUALITY_SCRIPT: &str = include_str!("../../templates/portal/quality.js");

/// `GET /portal/static/quality.js`.
pub async fn quality_script() -> HttpResponse {
    let mut res = HttpResponse::Ok().body(QUALITY_SCRIPT);
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/javascript; charset=utf-8"));
    res
}

/// The new-key page's Copy button (progressive enhancement: without it the
/// key is plain selectable text).
const COPY_SCRIPT: &str = include_str!("../../templates/portal/copy.js");

/// `GET /portal/static/copy.js`.
pub async fn copy_script() -> HttpResponse {
    let mut res = HttpResponse::Ok().body(COPY_SCRIPT);
    res.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("text/javascript; charset=utf-8"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_the_quota_is_said_rounded_down_and_a_small_one_still_shows() {
        assert_eq!(quota_share(0, 200_000), ("0".to_owned(), "0%".to_owned()));
        assert_eq!(quota_share(422, 200_000), ("2.00".to_owned(), "0.2%".to_owned()));
        assert_eq!(quota_share(1, 200_000), ("2.00".to_owned(), "under 0.1%".to_owned()));
        assert_eq!(quota_share(19_999, 200_000).1, "9.9%");
        assert_eq!(quota_share(100_000, 200_000), ("50.00".to_owned(), "50%".to_owned()));
        assert_eq!(quota_share(199_999, 200_000).1, "99%");
        assert_eq!(quota_share(200_000, 200_000), ("100".to_owned(), "100%".to_owned()));
        assert_eq!(quota_share(250_000, 200_000).1, "100%");
        assert_eq!(quota_share(0, 0).1, "100%", "no quota at all is used up");
    }

    #[test]
    fn the_data_clock_is_set_apart_only_when_it_is_more_than_a_minute_off() {
        let wall = "2026-11-28T14:46:50Z".parse().unwrap();
        assert!(!clock_set_apart(wall, wall));
        assert!(!clock_set_apart(wall - chrono::Duration::seconds(60), wall));
        assert!(clock_set_apart("2026-11-21T17:00:00Z".parse().unwrap(), wall));
        assert!(clock_set_apart(wall + chrono::Duration::minutes(5), wall));
    }
}
