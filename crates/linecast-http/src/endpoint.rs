//! What an endpoint is: its method and path, who may call it (`Access`),
//! how its response is served (`Serving`), its handler and its OpenAPI
//! operation. The rows themselves are `routes::table`; this module holds
//! only the types, so the layers that act on a row (the dispatcher, the
//! access gate, the read pipeline, the OpenAPI document) depend on it and
//! not on each other.

use actix_web::http::Method;
use linecast_core::services::access::Policy;

/// Who may call an endpoint. Fails closed: a path no row declares is
/// answered only after the `Subscriber` check when it lies under
/// `/api/v1` (so an unknown path tells nothing to a caller without a key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, with no limit: identity and probes (a load balancer's probe
    /// always gets through).
    Open,
    /// Anyone, within the per-address limit of public data.
    PerAddress,
    /// A key that satisfies the policy, within the key's limits, counted.
    Key(Policy),
    /// [`Access::Key`], and one of the customer's slots of this kind, taken
    /// before the request is counted and held while the response lasts.
    KeyHolding(Policy, Hold),
    /// Stripe's webhook: no key (one is never accepted instead), only a
    /// valid `Stripe-Signature` over the raw body (at most 256 KiB), checked
    /// by `auth::stripe_signature` before the handler runs. Not counted
    /// against any quota. Off (404) unless webhook secrets are configured.
    StripeSignature,
    /// A customer signed in to the portal (`auth::session`): a live
    /// session cookie whose key is still usable, an account the policy
    /// serves (`Subscriber`: a subscription that grants access, as on the
    /// API), and on a POST the session's CSRF token. Without a session, a
    /// page redirects to the sign-in page. Never a key, never counted
    /// against the API quota.
    Session(Policy),
}

/// A per-customer slot a response holds (a refusal for a full cap costs no
/// quota).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// One of the customer's event-stream slots.
    Stream,
    /// One of the customer's large-download slots.
    Download,
}

impl Access {
    /// Whether a wrong method on a path of this access is answered after
    /// the access check: the portal's pages (a signed-out browser is sent
    /// to sign in) and the webhook (a 404 until it is configured). On every
    /// other path a wrong method is a 405 before any key check, never
    /// counted, limited or logged (docs/decisions.md, "Access is decided by
    /// route, and fails closed").
    pub const fn gates_wrong_method(self) -> bool {
        matches!(self, Self::Session(_) | Self::StripeSignature)
    }

    /// How permissive an access is: a wrong method on a portal page's or
    /// the webhook's path is answered (405) after the most permissive
    /// access among the path's rows.
    pub const fn openness(self) -> u8 {
        match self {
            // Anyone may learn that the webhook takes only POST (once it is on).
            Self::Open | Self::StripeSignature => 3,
            Self::PerAddress | Self::Session(_) => 2,
            Self::Key(Policy::AnyKey) | Self::KeyHolding(Policy::AnyKey, _) => 1,
            Self::Key(Policy::Subscriber) | Self::KeyHolding(Policy::Subscriber, _) => 0,
        }
    }
}

/// How an endpoint's response is served. Every body but a stream's goes
/// out through `responses::Rendered`: a strong ETag, `If-None-Match`
/// answered with 304, and the content coding the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serving {
    /// The read pipeline (`responses::serve`): rendered once per distinct
    /// input, then served as stored bytes.
    Read(&'static str),
    /// A body made for each request (it depends on who asks or on live
    /// state), with this `Cache-Control`.
    Fresh(&'static str),
    /// A server-sent event stream: never compressed, never cached.
    Stream,
    /// A write: its JSON answer is made per request and never stored.
    Write,
    /// An HTML page of the portal, made per request, with this
    /// `Cache-Control` and the portal's security headers; not part of the
    /// OpenAPI document.
    Page(&'static str),
    /// The API's own description (the OpenAPI document, Swagger UI): fixed
    /// bytes served like the pipeline's, with this `Cache-Control`; not
    /// listed in the document itself.
    Description(&'static str),
}

impl Serving {
    /// The `Cache-Control` of this endpoint's bodies.
    pub const fn cache_control(self) -> &'static str {
        match self {
            Self::Read(cc) | Self::Fresh(cc) | Self::Page(cc) | Self::Description(cc) => cc,
            Self::Stream => "no-cache",
            Self::Write => NO_STORE,
        }
    }
}

/// One endpoint.
pub struct Endpoint {
    pub method: Method,
    /// The path template (`{name}` segments), as the OpenAPI document says.
    pub path: &'static str,
    pub access: Access,
    pub serving: Serving,
    /// The operation id, and the read pipeline's route name.
    pub name: &'static str,
    /// The handler, as an actix route.
    pub route: fn() -> actix_web::Route,
    /// What the handler's `#[operation(...)]` adds to the OpenAPI document;
    /// `None` for the rows the document does not list (`Page`,
    /// `Description`).
    pub operation: Option<Operation>,
}

/// The parts of an OpenAPI operation a handler declares: its parameters,
/// its own responses, its summary and description, its tag and the schemas
/// they reference. Everything the row says (security, the access gate's
/// refusals, 304 and the serving headers) is added from the row by
/// `openapi::document`, never declared by the handler.
pub struct Operation {
    pub operation: fn() -> utoipa::openapi::path::Operation,
    pub tags: fn() -> Vec<&'static str>,
    pub schemas: fn(&mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>),
}

/// The path a handler's `#[operation(...)]` gives utoipa, which needs one:
/// a placeholder the document never reads (it places each operation at
/// its row's path).
pub const FROM_ROW: &str = "/";

impl Endpoint {
    /// This endpoint's method, as the OpenAPI document names it.
    pub fn http_method(&self) -> utoipa::openapi::path::HttpMethod {
        use utoipa::openapi::path::HttpMethod;
        match self.method.as_str() {
            "POST" => HttpMethod::Post,
            "PUT" => HttpMethod::Put,
            "PATCH" => HttpMethod::Patch,
            "DELETE" => HttpMethod::Delete,
            "HEAD" => HttpMethod::Head,
            "OPTIONS" => HttpMethod::Options,
            "TRACE" => HttpMethod::Trace,
            _ => HttpMethod::Get,
        }
    }

    /// The `Cache-Control` of this endpoint's bodies.
    pub const fn cache_control(&self) -> &'static str {
        self.serving.cache_control()
    }

    /// Whether the handler is handed the caller (the key's `AuthContext`).
    /// A body of the read pipeline is the same for every caller (its keys
    /// hold only the parameters), so its handler never is: it cannot make
    /// a body depend on who asks.
    pub const fn hands_caller(&self) -> bool {
        !matches!(self.serving, Serving::Read(_))
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} ({})", self.method, self.path, self.name)
    }
}

/// `Cache-Control` of authenticated data: only the caller's own cache may
/// keep it, and must revalidate (cheaply, with the ETag) before reuse.
pub const PRIVATE: &str = "private, no-cache";
/// `Cache-Control` of an `as_of` answer: what the data was at a past
/// instant does not change, so the caller's cache may keep it for a day.
pub const SETTLED: &str = "private, max-age=86400";
/// `Cache-Control` of the free public feed.
pub const PUBLIC: &str = "public, max-age=30";
/// `Cache-Control` of a body any cache may keep but must revalidate.
pub const REVALIDATE: &str = "no-cache";
/// `Cache-Control` of a body no cache may keep (account data, probes, writes).
pub const NO_STORE: &str = "no-store";

/// What the dispatcher matched, riding on the request: the row that
/// answers it (`dispatched`), or for a wrong method the first row of the
/// path. Handlers read their row from it ([`row`]), telemetry and the
/// request log its template ([`template`]), so nothing routes twice and no
/// handler names a row.
#[derive(Clone, Copy)]
pub struct Matched {
    row: &'static Endpoint,
    dispatched: bool,
}

impl Matched {
    /// `row` answers the request.
    pub const fn dispatched(row: &'static Endpoint) -> Self {
        Self { row, dispatched: true }
    }

    /// The path is `row`'s, the method none of its rows'.
    pub const fn wrong_method(row: &'static Endpoint) -> Self {
        Self { row, dispatched: false }
    }
}

/// The path template of the row `req` reached (for logs and metrics: a
/// label never carries a raw path), or `None` for a path no row declares.
pub fn template(req: &actix_web::HttpRequest) -> Option<&'static str> {
    use actix_web::HttpMessage as _;
    req.extensions().get::<Matched>().map(|m| m.row.path)
}

/// The row that dispatched `req`: a handler's own row, handed to it by the
/// dispatcher. Only a handler the dispatcher did not call (none does in
/// the app) lacks one: a 500, logged.
pub fn row(req: &actix_web::HttpRequest) -> Result<&'static Endpoint, crate::error::ApiError> {
    use actix_web::HttpMessage as _;
    req.extensions()
        .get::<Matched>()
        .filter(|m| m.dispatched)
        .map(|m| m.row)
        .ok_or_else(|| crate::error::ApiError::Internal(format!("no dispatched row for {}", req.path())))
}
