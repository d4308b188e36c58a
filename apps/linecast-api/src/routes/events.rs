//! `GET /api/v1/events`: the change stream (server-sent events) of model
//! releases and data-status transitions. Opening it is one request; events
//! are free. The events and their ids are core's `services::events`; the
//! stream is `crate::events`, the wire format `linecast_payloads::events`.

use crate::responses::event_stream;
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use linecast_operation::operation;

use crate::auth::middleware::HeldSlot;
use crate::error::ApiError;
use crate::events::{EventFilter, key_still_usable, open};
use crate::params::RawQuery;
use crate::routes::read::Caller;
use crate::state::AppState;
use linecast_keycache::KEY_CACHE_TTL;

/// Server-sent change stream of model releases and data-status changes
///
/// Opens a `text/event-stream` that tells a client when to fetch instead of polling: `release` when a
/// new predictions, odds, results or release object is published, `status` when a sport's data status
/// changes, and `resync` when the client must re-read what it keeps. `sport` and `types` filter the
/// stream (comma-separated, default all); send the id of the last event received as `Last-Event-ID` (or
/// `last_event_id`) to have the events after it replayed first. Opening a stream counts as one request
/// of the monthly quota and the events are free; a customer may hold `LINECAST_MAX_STREAMS_PER_CUSTOMER`
/// (5) streams, and the next is a 429 `too_many_concurrent`, not counted. Any valid key on a plan with
/// API access may open one; the stream ends when its key is revoked or expires.
///
/// See [payloads.md: Change stream](/docs/payloads.md#change-stream-get-apiv1events-any-valid-key).
#[operation(
    tag = "data",
    params(
        ("sport" = Option<String>, Query, description = "Comma-separated sports to receive (mlb, nba, nfl, nhl, ncaaf, ncaab); default all"),
        ("types" = Option<String>, Query, description = "Comma-separated event types: release, status; default both (resync is always sent)"),
        ("last_event_id" = Option<String>, Query, description = "For clients that cannot set the Last-Event-ID header: the id of the last event received"),
        ("Last-Event-ID" = Option<String>, Header, description = "The id of the last event received: the events after it are replayed (from a window of at least an hour), or a resync is sent")
    ),
    responses(
        (status = 200, description = "A server-sent event stream: `release` (ReleaseEventData), `status` (StatusEventData) and `resync` (ResyncEventData) events, each with an id, and `: ping` after 2 s without another frame. Opening counts as one request."),
        (status = 400, description = "An unknown sport or type", body = crate::error::ErrorBody),
    )
)]
pub async fn events(
    req: HttpRequest,
    state: web::Data<AppState>,
    Caller(ctx): Caller,
    query: web::Query<RawQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = EventFilter::parse(query.get("sport"), query.get("types"))?;
    let last = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .or_else(|| query.get("last_event_id").map(String::as_str));
    // Taken by the gate before the request was counted (a refusal for
    // the cap costs nothing).
    let Some(HeldSlot(slot)) = req.extensions_mut().remove::<HeldSlot>() else {
        return Err(ApiError::Internal("the stream's slot was not taken".to_owned()));
    };
    let key_check = key_still_usable(state.gate.keys.clone(), state.clock.clone(), ctx.key().key_hash.clone());
    let stream = open(&state.events, slot, filter, last, key_check, KEY_CACHE_TTL);
    event_stream(&req, stream)
}
