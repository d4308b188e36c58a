//! The signer adapters seen from outside: what the refresh use case and the
//! download route will call.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hmac;
mod moto;
mod presign;
