//! linecast core: the ports (traits) that adapters implement, with
//! infrastructure-free error enums, and the use cases built on them.
//!
//! This crate must not name sea-orm, object_store, moka, reqwest or actix.

pub mod clock;
pub mod derived;
pub mod key_material;
pub mod memo;
pub mod memory;
pub mod ports;
pub mod quota_calendar;
pub mod services;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use clock::{Clock, FixedClock, ManualClock, SystemClock};
pub use derived::{Deps, Derived};
pub use ports::accounts::{
    Accounts, AccountsError, ApiKeyRecord, AuditEntry, Customer, Entitlement, KeyIssue, KeyIssued, NewApiKey,
    NewCustomer, SubscriptionStatus, UsageMeter,
};
pub use ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
pub use ports::signer::{DOWNLOAD_TTL, DownloadTokens, GrantedDownload, SignerError, TokenRefused, UrlSigner};
pub use ports::store::{ArtifactStore, ObjectVersion, StoreError, Versioned};
pub use quota_calendar::{Day, Month};
