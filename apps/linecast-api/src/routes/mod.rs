//! The HTTP surface: the route table (`table`, every endpoint declared
//! once), the dispatcher that serves it (`dispatch`), and the handlers, one
//! module per area. Handlers parse, call a use case and hand the value to
//! the serving path (`crate::responses`); they hold no rules of their own
//! and build no response by hand.

pub mod account;
pub mod analytics;
pub mod billing;
pub mod books;
pub mod compat;
pub mod cors;
pub mod data_status;
pub mod datasets;
pub mod dispatch;
pub mod docs;
pub mod edge_picks;
pub mod events;
pub mod games;
pub mod health;
pub mod ledger;
pub mod markets;
pub mod odds;
pub mod predictions;
/// The portal's Keys page and its forms.
pub use crate::portal::keys as portal_keys;
/// The portal's handlers, named in the route table like the API's.
pub use crate::portal::pages as portal;
pub use crate::portal::{
    billing as portal_billing, data as portal_data, link as portal_link, quality as portal_quality,
    requests as portal_requests, webhooks as portal_webhooks,
};
pub mod public_picks;
pub mod read;
pub mod results;
pub mod root;
pub mod scorecard;
pub mod strategies;
pub mod table;
pub mod webhooks;
