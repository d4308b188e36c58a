//! Deterministic data generator and in-memory fakes for tests and demos.
