//! In-memory twins of the ports, for tests of the use cases (here and in
//! the crates that depend on core, through the `testing` feature). They keep
//! the ports' contracts (versions change on every write, absent objects are
//! `NotFound`) without any I/O. Never compiled into a release build.

pub mod accounts;
pub mod limits;
pub mod markets;
pub mod releases;
pub mod request_log;
pub mod signer;
pub mod store;

pub use accounts::MemoryAccounts;
pub use limits::MemoryLimiter;
pub use markets::MemoryMarkets;
pub use releases::{MemoryArchive, MemoryReleaseLog};
pub use request_log::MemoryRequestLog;
pub use signer::MemorySigner;
pub use store::MemoryStore;
