//! Results paging: which slice of a season a request gets, in which order,
//! and the snapshot token that pins a named season's generation.
//!
//! Pure: it knows row counts and object versions, never rows, storage or
//! HTTP. The caller sorts the season with [`Order`] and serves
//! `rows[page.range()]`.
//!
//! - Without `season`: the current season, newest game first, plain offset
//!   paging, no snapshot.
//! - With `season`: that season, oldest game first, snapshot paging. A
//!   request echoing a different snapshot is a [`PagingError::SnapshotMismatch`]
//!   (HTTP 409: restart from offset 0).
//!
//! ```
//! use linecast_paging::{Limit, Order, Request, plan, snapshot_token};
//!
//! // First page of a named season: no snapshot yet.
//! let req = Request::parse(true, Some("2"), Some("0"), None).unwrap();
//! let plan = plan(&req, 5, "etag-1").unwrap();
//! assert_eq!(plan.order, Order::OldestFirst);
//! assert_eq!((plan.page.offset, plan.page.returned, plan.page.next_offset), (0, 2, Some(2)));
//! let token = plan.snapshot.clone().unwrap();
//! assert_eq!(token, snapshot_token("etag-1", 5));
//!
//! // The last page echoes the snapshot.
//! let req = Request::parse(true, Some("2"), Some("4"), Some(&token)).unwrap();
//! let last = linecast_paging::plan(&req, 5, "etag-1").unwrap();
//! assert_eq!((last.page.returned, last.page.next_offset), (1, None));
//!
//! // A new generation of the store is a 409.
//! assert!(linecast_paging::plan(&req, 6, "etag-2").is_err());
//! assert_eq!(Limit::default().get(), 100);
//! ```

mod page;
mod request;
mod snapshot;

pub use page::{Order, Page, page, sort_for};
pub use request::{DEFAULT_LIMIT, Limit, MAX_LIMIT, MAX_OFFSET, PagingError, Plan, Request, parse_offset, plan};
pub use snapshot::{Snapshot, combined_snapshot, snapshot_token};
