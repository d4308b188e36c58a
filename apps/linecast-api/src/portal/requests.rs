//! `GET /portal/requests`: the customer's own API requests within the
//! request log's retention (time, key, method, route template, status,
//! duration, request id), filtered by key, status class and endpoint; the
//! same rows as CSV (`GET /portal/requests.csv`); and requests per day by
//! key and by endpoint. Rows are written by the flush round once held 10
//! seconds (core's `RequestLog`), so a request shows within about 11.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use actix_web::http::StatusCode;
use actix_web::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE, HeaderValue};
use actix_web::{HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};
use linecast_charts::bars::{Bar, bar_chart, summary};
use linecast_core::ports::request_log::{DayCount, DayTotals, RequestFilter, RequestRow};
use linecast_core::quota_calendar::day_key;
use linecast_core::services::keys::KeyError;
use linecast_core::services::request_log::{DAILY_CAP, RequestPage};

use super::Rows;
use super::html::{PageError, filters, page};
use crate::auth::session::SignedIn;
use crate::endpoint::Access;
use crate::error::ApiError;
use crate::state::AppState;

/// Rows the page shows (the newest); the CSV has every matching row.
pub const PAGE_ROWS: u64 = 200;

/// The filters as the form sends them (`""` is "all").
#[derive(Debug, Default, serde::Deserialize)]
pub struct RequestsQuery {
    key: Option<String>,
    status: Option<String>,
    endpoint: Option<String>,
}

const STATUS_CLASSES: [(&str, u16); 4] = [("2xx", 2), ("3xx", 3), ("4xx", 4), ("5xx", 5)];

/// The route templates a key can call: the rows a key reaches.
fn endpoints(rows: &Rows) -> Vec<&'static str> {
    let mut paths: Vec<&'static str> = rows
        .every
        .iter()
        .filter(|row| matches!(row.access, Access::Key(_) | Access::KeyHolding(..)))
        .map(|row| row.path)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
}

/// The filter the query asks for; a value the form does not offer is "all"
/// (`endpoints`: the templates offered).
fn filter_of(query: &RequestsQuery, endpoints: &[&str]) -> RequestFilter {
    let given = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    RequestFilter {
        key_id: given(&query.key).and_then(|k| k.parse().ok()),
        status_class: given(&query.status)
            .and_then(|s| STATUS_CLASSES.iter().find(|(label, _)| *label == s).map(|(_, c)| *c)),
        route: given(&query.endpoint).filter(|e| endpoints.contains(&e.as_str())),
    }
}

/// The filter as a query string, for the CSV link.
fn query_string(filter: &RequestFilter) -> String {
    let mut pairs: Vec<(&str, String)> = Vec::new();
    if let Some(k) = filter.key_id {
        pairs.push(("key", k.to_string()));
    }
    if let Some(c) = filter.status_class {
        pairs.push(("status", format!("{c}xx")));
    }
    if let Some(r) = &filter.route {
        pairs.push(("endpoint", r.clone()));
    }
    if pairs.is_empty() {
        return String::new();
    }
    let encoded: Vec<String> = pairs.iter().map(|(n, v)| format!("{n}={}", encode(v))).collect();
    format!("?{}", encoded.join("&"))
}

fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Key id to the name the page shows ("name (key 12)": names repeat after
/// a roll). Never any part of the key.
async fn key_names(state: &AppState, customer_id: i64) -> Result<HashMap<i64, String>, ApiError> {
    let keys = state.api_keys.list(customer_id).await.map_err(|e| match e {
        KeyError::Accounts(e) => ApiError::from(e),
        e => ApiError::Internal(e.to_string()),
    })?;
    Ok(keys
        .into_iter()
        .map(|k| (k.id, format!("{} (key {})", k.name, k.id)))
        .collect())
}

fn key_label(names: &HashMap<i64, String>, id: i64) -> String {
    names.get(&id).cloned().unwrap_or_else(|| format!("key {id}"))
}

struct Choice {
    value: String,
    label: String,
    selected: bool,
}

struct Row {
    time: String,
    key: String,
    method: String,
    route: String,
    /// The route cut after each `/`: the page lets a long route break
    /// there (`<wbr>`), so the log fits a desktop's width.
    route_parts: Vec<String>,
    status: u16,
    duration_ms: String,
    request_id: String,
}

struct Capped {
    day: String,
    stored: u64,
    over_cap: u64,
}

#[derive(Template)]
#[template(path = "portal/requests.html")]
struct RequestsPage {
    csrf: String,
    days: u32,
    since: String,
    keys: Vec<Choice>,
    statuses: Vec<Choice>,
    endpoints: Vec<Choice>,
    rows: Vec<Row>,
    matching: u64,
    shown: usize,
    csv_href: String,
    daily_chart: String,
    per_key: Vec<(String, String, u64)>,
    per_route: Vec<(String, String, u64)>,
    capped: Vec<Capped>,
    cap: u64,
}

fn time(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%d %H:%M:%S%.3f").to_string()
}

fn millis(us: u64) -> String {
    format!("{:.1}", us as f64 / 1000.0)
}

/// `GET /portal/requests`.
pub async fn requests(
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<RequestsQuery>,
    table: web::Data<Rows>,
) -> Result<HttpResponse, PageError> {
    if let Some(refused) = super::throttle::over_rate(&state.gate, &signed) {
        return Ok(refused);
    }
    let customer_id = signed.0.entry.1.customer_id;
    let offered = endpoints(&table);
    let filter = filter_of(&query, &offered);
    let now = state.clock.now();
    let names = key_names(&state, customer_id).await?;
    let log = state.request_log.page(customer_id, &filter, PAGE_ROWS, now).await?;
    let (keys, statuses, endpoints) = choices(&filter, &names, offered);
    let daily_chart = daily_chart(&state, &log, now);
    let rows: Vec<Row> = log.rows.iter().map(|r| row_of(r, &names)).collect();
    Ok(page(
        StatusCode::OK,
        &RequestsPage {
            csrf: signed.0.csrf_token.clone(),
            days: state.request_log.retention_days(),
            since: time(log.since),
            keys,
            statuses,
            endpoints,
            shown: rows.len(),
            rows,
            matching: log.matching,
            csv_href: format!("{}{}", state.portal_links.requests_csv, query_string(&filter)),
            daily_chart,
            per_key: by_day(&log.per_key, |by| key_label(&names, *by)),
            per_route: by_day(&log.per_route, Clone::clone),
            capped: capped(&log.totals),
            cap: DAILY_CAP,
        },
    ))
}

/// The filter form's choices (key, status class, endpoint), each with
/// "all" first and the filter's own choice selected.
fn choices(
    filter: &RequestFilter,
    names: &HashMap<i64, String>,
    endpoints: Vec<&'static str>,
) -> (Vec<Choice>, Vec<Choice>, Vec<Choice>) {
    let choice = |value: String, label: String, selected: bool| Choice { value, label, selected };
    let mut keys: Vec<(i64, String)> = names.iter().map(|(id, n)| (*id, n.clone())).collect();
    keys.sort();
    let mut key_choices = vec![choice(String::new(), "All keys".to_owned(), filter.key_id.is_none())];
    key_choices.extend(
        keys.into_iter()
            .map(|(id, name)| choice(id.to_string(), name, filter.key_id == Some(id))),
    );
    let mut statuses = vec![choice(String::new(), "All".to_owned(), filter.status_class.is_none())];
    statuses.extend(STATUS_CLASSES.iter().map(|(label, c)| {
        choice(
            (*label).to_owned(),
            (*label).to_owned(),
            filter.status_class == Some(*c),
        )
    }));
    let mut endpoint_choices = vec![choice(
        String::new(),
        "All endpoints".to_owned(),
        filter.route.is_none(),
    )];
    endpoint_choices.extend(
        endpoints
            .into_iter()
            .map(|e| choice(e.to_owned(), e.to_owned(), filter.route.as_deref() == Some(e))),
    );
    (key_choices, statuses, endpoint_choices)
}

/// The matching requests per day, every day of the window (0 for none),
/// as a bar chart.
fn daily_chart(state: &AppState, log: &RequestPage, now: DateTime<Utc>) -> String {
    let mut per_day: BTreeMap<chrono::NaiveDate, u64> = state
        .request_log
        .first_day(now)
        .iter_days()
        .take_while(|d| *d <= now.date_naive())
        .map(|d| (d, 0))
        .collect();
    for c in &log.per_key {
        *per_day.entry(c.day).or_insert(0) += c.requests;
    }
    let bars: Vec<Bar> = per_day
        .iter()
        .map(|(day, value)| Bar {
            label: day_key(*day),
            tick: day.format("%m-%d").to_string(),
            value: *value,
        })
        .collect();
    bar_chart(
        "requests-per-day",
        "Matching requests per day (UTC)",
        &summary(&bars),
        &bars,
    )
}

/// Day counts, newest day first, each with its label.
fn by_day<B>(counts: &[DayCount<B>], label: impl Fn(&B) -> String) -> Vec<(String, String, u64)> {
    counts
        .iter()
        .rev()
        .map(|c| (day_key(c.day), label(&c.by), c.requests))
        .collect()
}

/// The days that passed the cap: how many were stored and how many not.
fn capped(totals: &[DayTotals]) -> Vec<Capped> {
    totals
        .iter()
        .filter(|t| t.over_cap > 0)
        .map(|t| Capped {
            day: day_key(t.day),
            stored: t.offered - t.over_cap,
            over_cap: t.over_cap,
        })
        .collect()
}

fn row_of(r: &RequestRow, names: &HashMap<i64, String>) -> Row {
    Row {
        time: time(r.at),
        key: key_label(names, r.key_id),
        method: r.method.clone(),
        route: r.route.clone(),
        route_parts: r.route.split_inclusive('/').map(str::to_owned).collect(),
        status: r.status,
        duration_ms: millis(r.duration_us),
        request_id: r.request_id.clone(),
    }
}

/// One CSV field: quoted when it holds a comma, quote or line break, and
/// a leading `= + - @` (a spreadsheet formula) defused with `'`.
fn csv_field(value: &str) -> String {
    let value = if value.starts_with(['=', '+', '-', '@']) {
        format!("'{value}")
    } else {
        value.to_owned()
    };
    if value.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", value.replace('"', "\"\""))
    } else {
        value
    }
}

/// `GET /portal/requests.csv`: every stored request matching the filters,
/// newest first.
pub async fn requests_csv(
    state: web::Data<AppState>,
    signed: SignedIn,
    query: web::Query<RequestsQuery>,
    table: web::Data<Rows>,
) -> Result<HttpResponse, PageError> {
    if let Some(refused) = super::throttle::over_rate(&state.gate, &signed) {
        return Ok(refused);
    }
    let customer_id = signed.0.entry.1.customer_id;
    let filter = filter_of(&query, &endpoints(&table));
    let names = key_names(&state, customer_id).await?;
    let rows = state.request_log.all(customer_id, &filter, state.clock.now()).await?;
    let mut res = HttpResponse::Ok().body(csv(&rows, &names));
    let headers = res.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/csv; charset=utf-8"));
    headers.insert(
        CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"requests.csv\""),
    );
    Ok(res)
}

/// The rows as CSV, with a header line.
fn csv(rows: &[RequestRow], names: &HashMap<i64, String>) -> String {
    let mut body = String::from("time_utc,key,method,route,status,duration_ms,request_id\n");
    for r in rows {
        let row = row_of(r, names);
        let fields = [
            r.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            row.key,
            row.method,
            row.route,
            row.status.to_string(),
            row.duration_ms,
            row.request_id,
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        body.push_str(&line.join(","));
        body.push('\n');
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_formulas_defused() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=1+1"), "'=1+1");
        assert_eq!(csv_field("-x,y"), "\"'-x,y\"");
    }

    #[test]
    fn only_offered_filter_values_apply() {
        let query = RequestsQuery {
            key: Some("12".to_owned()),
            status: Some("4xx".to_owned()),
            endpoint: Some("/api/v1/predictions/{sport}/{model_type}".to_owned()),
        };
        let offered = ["/api/v1/predictions/{sport}/{model_type}"];
        let filter = filter_of(&query, &offered);
        assert_eq!(filter.key_id, Some(12));
        assert_eq!(filter.status_class, Some(4));
        assert_eq!(
            filter.route.as_deref(),
            Some("/api/v1/predictions/{sport}/{model_type}")
        );
        assert_eq!(
            query_string(&filter),
            "?key=12&status=4xx&endpoint=%2Fapi%2Fv1%2Fpredictions%2F%7Bsport%7D%2F%7Bmodel_type%7D"
        );
        let odd = RequestsQuery {
            key: Some("x".to_owned()),
            status: Some("6xx".to_owned()),
            endpoint: Some("/not/a/route".to_owned()),
        };
        assert_eq!(filter_of(&odd, &offered), RequestFilter::default());
    }
}
