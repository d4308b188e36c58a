//! Slicing a season of `total` rows into pages, and the two row orders.

use std::cmp::Ordering;
use std::ops::Range;

/// Row order of a results page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Current season: newest game first (date then time, descending).
    NewestFirst,
    /// Named season: oldest game first.
    OldestFirst,
}

impl Order {
    /// Compares two game keys (ordered by date, then time, then teams) in
    /// this order.
    pub fn compare<K: Ord>(self, a: &K, b: &K) -> Ordering {
        match self {
            Order::OldestFirst => a.cmp(b),
            Order::NewestFirst => b.cmp(a),
        }
    }
}

/// Sorts rows for `order` by a key such as `GameKey` (date, time, teams).
/// Keys are unique within a season, so the order is total and every page
/// of one generation sees the same sequence.
pub fn sort_for<T, K: Ord>(rows: &mut [T], order: Order, key: impl Fn(&T) -> K) {
    rows.sort_by(|a, b| order.compare(&key(a), &key(b)));
}

/// One page of a season.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// First row of the page (as requested, even past the end).
    pub offset: usize,
    /// Rows on this page.
    pub returned: usize,
    /// `offset + returned` while that is below `total`, otherwise `None`.
    pub next_offset: Option<usize>,
    /// Every row of the season.
    pub total: usize,
}

impl Page {
    /// The rows to serve, as indexes into the ordered season.
    pub fn range(&self) -> Range<usize> {
        let start = self.offset.min(self.total);
        start..start + self.returned
    }
}

/// The page starting at `offset` with at most `limit` rows of `total`. An
/// offset at or past the end is an empty page with no next offset.
pub fn page(total: usize, offset: usize, limit: usize) -> Page {
    let returned = total.saturating_sub(offset).min(limit);
    let end = offset.saturating_add(returned);
    Page {
        offset,
        returned,
        next_offset: (end < total).then_some(end),
        total,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_last_page_has_no_next_offset_and_past_the_end_is_empty() {
        assert_eq!(
            page(5, 0, 2),
            Page {
                offset: 0,
                returned: 2,
                next_offset: Some(2),
                total: 5
            }
        );
        assert_eq!(
            page(5, 4, 2),
            Page {
                offset: 4,
                returned: 1,
                next_offset: None,
                total: 5
            }
        );
        assert_eq!(page(5, 3, 2).next_offset, None, "offset + returned == total is the end");
        let past = page(5, 9, 2);
        assert_eq!((past.returned, past.next_offset, past.range()), (0, None, 5..5));
        assert_eq!(page(0, 0, 100).next_offset, None);
    }

    #[test]
    fn newest_first_sorts_by_date_then_time_descending() {
        let mut rows = vec![
            ("2026-11-01", "19:00"),
            ("2026-11-02", "13:00"),
            ("2026-11-02", "19:00"),
        ];
        sort_for(&mut rows, Order::NewestFirst, |r| *r);
        assert_eq!(
            rows,
            [
                ("2026-11-02", "19:00"),
                ("2026-11-02", "13:00"),
                ("2026-11-01", "19:00")
            ]
        );
        sort_for(&mut rows, Order::OldestFirst, |r| *r);
        assert_eq!(rows[0], ("2026-11-01", "19:00"));
    }

    proptest! {
        /// Following next_offset from 0 visits every row exactly once, in
        /// order: pages tile the season with no gap and no overlap.
        #[test]
        fn pages_tile_the_season(total in 0usize..5000, limit in 1usize..300) {
            let mut seen = 0;
            let mut offset = Some(0);
            while let Some(o) = offset {
                let p = page(total, o, limit);
                prop_assert_eq!(p.range().start, seen);
                prop_assert!(p.returned <= limit);
                seen += p.returned;
                offset = p.next_offset;
                prop_assert!(offset.is_none_or(|n| n > o), "paging always advances");
            }
            prop_assert_eq!(seen, total);
        }

        /// next_offset is offset + returned exactly when that is below total.
        #[test]
        fn next_offset_is_offset_plus_returned_below_total(total in 0usize..5000, offset in 0usize..6000, limit in 1usize..300) {
            let p = page(total, offset, limit);
            let end = offset + p.returned;
            prop_assert_eq!(p.next_offset, (end < total).then_some(end));
            prop_assert!(p.range().end <= total);
            prop_assert_eq!(p.range().len(), p.returned);
        }
    }
}
