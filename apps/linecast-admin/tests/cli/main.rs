//! The operator CLI run as a built binary against a temporary SQLite file:
//! one module per command group, sharing the `support` helpers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod audit;
mod billing;
mod customers;
mod entitlements;
mod keys;
mod migrate;
mod publish;
mod releases;
mod subscription;
mod support;
