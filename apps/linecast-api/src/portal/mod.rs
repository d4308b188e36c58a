//! The customer portal: server-rendered HTML under `/portal` (and the public
//! `/status` page), a second surface on the route table. Its rows use the
//! `Session` access (the gate is `auth::session`; how its refusals are
//! shown is `refusals`), its pages go out through the response path's page
//! step (`responses::page`) and its errors are pages (`html`); it calls the same core use
//! cases as the API. A page that shows what an API route serves (model
//! quality) is served to whom that route's policy serves (`quality`); no
//! portal request is counted against the API quota. A session never
//! authenticates the API.
//!
//! The route table names the portal's handlers, so the portal names no
//! row: a handler's own row rides on its request (`endpoint::row`), and
//! the few others its pages speak of are handed to it at start-up
//! ([`Rows`]).

use crate::endpoint::Endpoint;

pub mod back;
pub mod billing;
pub mod data;
pub mod flash;
pub mod html;
pub mod keys;
pub mod link;
pub mod pages;
pub mod quality;
pub mod refusals;
pub mod requests;
pub mod throttle;
pub mod webhooks;

/// The rows of the route table the portal's pages speak of besides their
/// own, made by the route table (its `portal_rows`) and handed to the app
/// at start-up; the handlers that need them take them as app data.
pub struct Rows {
    /// Every row: the Requests page offers the templates a key can call.
    pub every: &'static [&'static Endpoint],
    /// The API's calibration route: the quality pages show its body and are
    /// decided and counted as its requests, under its policy.
    pub calibration: &'static Endpoint,
    /// The create-key form's row: the Keys page offers the create and roll
    /// forms when its policy serves the account.
    pub create_key: &'static Endpoint,
    /// The Data page's refresh form's row: offered when its policy serves
    /// the account.
    pub data_refresh: &'static Endpoint,
    /// The public scorecard page: the Model quality page links to it.
    pub scorecard: &'static Endpoint,
    /// The Webhooks page's create form's row: the forms that need a
    /// subscription (create, test, rotate, recover, resend) are offered
    /// when its policy serves the account.
    pub webhooks_create: &'static Endpoint,
}
