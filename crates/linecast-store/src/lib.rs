//! object_store adapter for the data contract (`docs/data-contract.md`):
//! opening a store by URL, parsing each artifact once per object version into
//! the typed forms of `linecast_domain::artifacts`, caching them, and
//! validating a whole store.
//!
//! Errors leave this crate as `linecast_core::StoreError`; object_store and
//! moka types stay inside, except `object_store()` for tests and tools.

pub mod parse;

mod archive;
pub mod backfill;
mod errors;
mod open;
mod options;
mod port;
mod probe;
pub mod publish;
mod store;

pub use options::{DEFAULT_TIMEOUT, GcsOptions, S3Options, StoreOptions};
pub use probe::{CacheProbe, StoreProbe};
pub use store::ObjectArtifactStore;
mod validate;

pub use validate::{Problem, ValidationReport, validate};
