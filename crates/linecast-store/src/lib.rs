//! object_store adapter for the data contract (`docs/data-contract.md`).
