//! Validation of the paging query (`limit`, `offset`, `snapshot`) and the
//! plan of one results request.

use crate::page::{Order, Page, page};
use crate::snapshot::{Snapshot, snapshot_token};

/// `limit` when the query omits it.
pub const DEFAULT_LIMIT: usize = 100;
/// Largest accepted `limit`.
pub const MAX_LIMIT: usize = 100_000;

/// A paging query that cannot be served. Each variant but the mismatch is a
/// 400 naming its parameter; the mismatch is a 409.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PagingError {
    #[error("invalid limit '{value}': must be an integer from 1 to 100000")]
    InvalidLimit { value: String },
    #[error("invalid offset '{value}': must be an integer from 0 to 9223372036854775807")]
    InvalidOffset { value: String },
    #[error("invalid snapshot '{value}': must be the 64 lowercase hex characters returned by the first page")]
    InvalidSnapshot { value: String },
    #[error("snapshot requires season: snapshot paging applies to a named season only")]
    SnapshotWithoutSeason,
    #[error(
        "snapshot required: continuing a named season past offset 0 needs the first page's snapshot; \
pass snapshot=<the snapshot of the offset-0 page> (or restart from offset 0)"
    )]
    ContinuationWithoutSnapshot,
    #[error("The results snapshot changed during paging; restart from offset 0 without a snapshot")]
    SnapshotMismatch,
}

impl PagingError {
    /// The query parameter at fault.
    pub const fn parameter(&self) -> &'static str {
        match self {
            PagingError::InvalidLimit { .. } => "limit",
            PagingError::InvalidOffset { .. } => "offset",
            PagingError::InvalidSnapshot { .. }
            | PagingError::SnapshotWithoutSeason
            | PagingError::ContinuationWithoutSnapshot
            | PagingError::SnapshotMismatch => "snapshot",
        }
    }

    /// True for the 409 case: the store changed under a paging client.
    pub const fn is_conflict(&self) -> bool {
        matches!(self, PagingError::SnapshotMismatch)
    }
}

/// A validated `limit`: 1 to 100000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limit(usize);

impl Default for Limit {
    fn default() -> Self {
        Self(DEFAULT_LIMIT)
    }
}

impl Limit {
    pub fn new(value: usize) -> Result<Self, PagingError> {
        if (1..=MAX_LIMIT).contains(&value) {
            Ok(Self(value))
        } else {
            Err(PagingError::InvalidLimit {
                value: value.to_string(),
            })
        }
    }

    /// Parses the query value; `None` (absent) is the default.
    pub fn parse(raw: Option<&str>) -> Result<Self, PagingError> {
        let Some(raw) = raw else { return Ok(Self::default()) };
        let err = || PagingError::InvalidLimit { value: raw.to_owned() };
        let value: usize = parse_digits(raw).ok_or_else(err)?;
        Self::new(value).map_err(|_| err())
    }

    pub const fn get(self) -> usize {
        self.0
    }
}

/// Digits only: no sign, no spaces, no exponent.
fn parse_digits(raw: &str) -> Option<usize> {
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    raw.parse().ok()
}

/// Parses `offset`; absent is 0.
pub fn parse_offset(raw: Option<&str>) -> Result<usize, PagingError> {
    raw.map_or(Ok(0), |r| {
        parse_digits(r)
            .filter(|v| *v <= MAX_OFFSET)
            .ok_or_else(|| PagingError::InvalidOffset { value: r.to_owned() })
    })
}

/// The largest accepted offset: the largest signed 64-bit integer, so the
/// documented `int64` schema and the parser agree.
pub const MAX_OFFSET: usize = i64::MAX as usize;

/// A validated results paging query.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Request {
    /// True when the query names a season (snapshot paging).
    pub named_season: bool,
    pub offset: usize,
    pub limit: Limit,
    pub snapshot: Option<Snapshot>,
}

impl Request {
    /// Validates the raw query values (`None` = absent).
    pub fn parse(
        named_season: bool,
        limit: Option<&str>,
        offset: Option<&str>,
        snapshot: Option<&str>,
    ) -> Result<Self, PagingError> {
        let limit = Limit::parse(limit)?;
        let offset = parse_offset(offset)?;
        let snapshot = snapshot.map(Snapshot::parse).transpose()?;
        if snapshot.is_some() && !named_season {
            return Err(PagingError::SnapshotWithoutSeason);
        }
        // Spec, results rule 3: historical continuation requires an explicit
        // season and the first page's snapshot.
        if named_season && offset > 0 && snapshot.is_none() {
            return Err(PagingError::ContinuationWithoutSnapshot);
        }
        Ok(Self {
            named_season,
            offset,
            limit,
            snapshot,
        })
    }
}

/// What to serve for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub order: Order,
    pub page: Page,
    /// The season generation's token (named season), `None` otherwise.
    pub snapshot: Option<String>,
}

/// Plans a request against a season of `total` rows whose store generation
/// is `object_version`.
pub fn plan(request: &Request, total: usize, object_version: &str) -> Result<Plan, PagingError> {
    let page = page(total, request.offset, request.limit.get());
    if !request.named_season {
        return Ok(Plan {
            order: Order::NewestFirst,
            page,
            snapshot: None,
        });
    }
    let token = snapshot_token(object_version, total);
    if request.snapshot.as_ref().is_some_and(|s| s.as_str() != token) {
        return Err(PagingError::SnapshotMismatch);
    }
    Ok(Plan {
        order: Order::OldestFirst,
        page,
        snapshot: Some(token),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn limit_defaults_to_100_and_accepts_1_to_100000_only() {
        assert_eq!(Limit::parse(None).unwrap().get(), 100);
        assert_eq!(Limit::parse(Some("1")).unwrap().get(), 1);
        assert_eq!(Limit::parse(Some("100000")).unwrap().get(), 100_000);
        for bad in ["0", "100001", "-1", "", "1e3", " 5", "abc", "99999999999999999999999"] {
            let err = Limit::parse(Some(bad)).unwrap_err();
            assert_eq!(err.parameter(), "limit", "{bad}");
            assert!(err.to_string().contains("limit"));
        }
    }

    #[test]
    fn offset_defaults_to_0_and_rejects_non_integers() {
        assert_eq!(parse_offset(None), Ok(0));
        assert_eq!(parse_offset(Some("250")), Ok(250));
        assert_eq!(parse_offset(Some("-1")).unwrap_err().parameter(), "offset");
        assert!(parse_offset(Some("1.5")).is_err());
        assert_eq!(parse_offset(Some("9223372036854775807")), Ok(9_223_372_036_854_775_807));
        assert!(parse_offset(Some("9223372036854775808")).is_err());
    }

    #[test]
    fn a_signed_value_is_refused_even_with_a_plus() {
        // Query integers are plain digits: `+5` is no more a limit or an
        // offset than `-1` is, though Rust's integer parser would take it.
        for signed in ["+5", "+0", "+100"] {
            assert_eq!(Limit::parse(Some(signed)).unwrap_err().parameter(), "limit", "{signed}");
            assert_eq!(
                parse_offset(Some(signed)).unwrap_err().parameter(),
                "offset",
                "{signed}"
            );
        }
    }

    #[test]
    fn the_current_season_pages_newest_first_without_a_snapshot() {
        let req = Request::parse(false, Some("10"), Some("20"), None).unwrap();
        let p = plan(&req, 25, "v1").unwrap();
        assert_eq!(p.order, Order::NewestFirst);
        assert_eq!(p.snapshot, None);
        assert_eq!((p.page.returned, p.page.next_offset), (5, None));
    }

    #[test]
    fn a_snapshot_without_a_season_is_refused() {
        let t = snapshot_token("v", 1);
        assert_eq!(
            Request::parse(false, None, None, Some(&t)),
            Err(PagingError::SnapshotWithoutSeason)
        );
    }

    #[test]
    fn continuing_a_named_season_without_the_first_snapshot_is_refused() {
        let err = Request::parse(true, Some("10"), Some("10"), None).unwrap_err();
        assert_eq!(err, PagingError::ContinuationWithoutSnapshot);
        assert_eq!(err.parameter(), "snapshot");
        assert!(!err.is_conflict());
        assert!(err.to_string().contains("first page's snapshot"));
        // The first page needs none; the current season pages without one.
        assert!(Request::parse(true, Some("10"), Some("0"), None).is_ok());
        assert!(Request::parse(true, Some("10"), None, None).is_ok());
        assert!(Request::parse(false, Some("10"), Some("10"), None).is_ok());
    }

    #[test]
    fn a_named_season_echoing_an_old_snapshot_is_a_conflict() {
        let old = snapshot_token("v1", 10);
        let req = Request::parse(true, None, Some("100"), Some(&old)).unwrap();
        assert_eq!(plan(&req, 10, "v1").unwrap().snapshot.as_deref(), Some(old.as_str()));
        let err = plan(&req, 10, "v2").unwrap_err();
        assert!(err.is_conflict());
        assert!(err.to_string().contains("restart from offset 0"));
        assert!(!PagingError::SnapshotWithoutSeason.is_conflict());
    }
}
