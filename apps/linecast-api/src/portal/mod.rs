//! The customer portal: server-rendered HTML under `/portal` (and the public
//! `/status` page), a second surface on the route table. Its rows use the
//! `Session` access (the gate is `auth::session`; how its refusals are
//! shown is `refusals`), its pages go out through the response path's page
//! step (`responses::page`) and its errors are pages (`html`); it calls the same core use
//! cases as the API. A page that shows what an API route serves (model
//! quality) is decided and counted as that route's request with the
//! session's key (`quality`); no other portal request is counted against the
//! API quota. A session never authenticates the API.

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
