//! In-memory twins of the ports, for tests of the use cases (here and in
//! the crates that depend on core, through the `testing` feature). They keep
//! the ports' contracts (versions change on every write, absent objects are
//! `NotFound`) without any I/O. Never compiled into a release build.

pub mod store;

pub use store::MemoryStore;
