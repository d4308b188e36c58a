//! The account routes' glue: how an account payload (shapes in
//! `linecast_payloads::account`) is answered.

/// The tier clients see (`linecast_payloads::account`), named here by the
/// portal's overview.
pub use linecast_payloads::account::reported_tier;

/// An account payload: 200 with `Cache-Control: no-store`, so no cache on
/// the way (a proxy, a browser, a client library) keeps a customer's
/// account, usage, keys or signed links.
pub fn no_store_json<T: serde::Serialize>(body: &T) -> actix_web::HttpResponse {
    actix_web::HttpResponse::Ok()
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .json(body)
}
