use super::{at, odds};
use crate::best::*;
use crate::book::BookKey;

fn quote(book: &str, price: f64, point: Option<f64>, updated: i64) -> SideQuote {
    SideQuote {
        book: BookKey::parse(book).unwrap(),
        price: odds(price),
        point,
        last_update: at(updated),
    }
}

fn key(q: Option<&SideQuote>) -> Option<&str> {
    q.map(|q| q.book.as_str())
}

#[test]
fn the_best_price_pays_the_most() {
    let quotes = [
        quote("eastline", -110.0, None, 10),
        quote("northbook", -105.0, None, 10),
        quote("riverline", -120.0, None, 10),
    ];
    assert_eq!(key(best_any(&quotes)), Some("northbook"));
    assert_eq!(key(best(&quotes)), Some("northbook"));
    let quotes = [
        quote("eastline", 130.0, None, 10),
        quote("northbook", 150.0, None, 10),
        quote("riverline", 140.0, None, 10),
    ];
    assert_eq!(key(best_any(&quotes)), Some("northbook"));
    // +100 (2.0) beats -105 (1.952...)
    let quotes = [quote("eastline", -105.0, None, 10), quote("riverline", 100.0, None, 10)];
    assert_eq!(key(best_any(&quotes)), Some("riverline"));
    assert_eq!(best_any(&[]), None);
    assert_eq!(best(&[]), None);
}

#[test]
fn a_tie_goes_to_the_earliest_update_then_the_smaller_key() {
    let quotes = [
        quote("northbook", -110.0, None, 20),
        quote("riverline", -110.0, None, 5),
        quote("eastline", -110.0, None, 30),
    ];
    assert_eq!(key(best_any(&quotes)), Some("riverline"));
    let quotes = [
        quote("riverline", -110.0, None, 5),
        quote("eastline", -110.0, None, 5),
        quote("northbook", -110.0, None, 5),
    ];
    assert_eq!(key(best_any(&quotes)), Some("eastline"));
    // A better price wins whatever its update time.
    let quotes = [quote("eastline", -110.0, None, 1), quote("northbook", -108.0, None, 99)];
    assert_eq!(key(best_any(&quotes)), Some("northbook"));
}

#[test]
fn better_orders_best_first() {
    use std::cmp::Ordering;
    let a = quote("eastline", -105.0, None, 10);
    let b = quote("northbook", -110.0, None, 10);
    assert_eq!(better(&a, &b), Ordering::Less);
    assert_eq!(better(&b, &a), Ordering::Greater);
    assert_eq!(better(&a, &a), Ordering::Equal);
}

#[test]
fn spreads_compare_prices_only_at_the_same_point() {
    let quotes = [
        quote("eastline", -110.0, Some(-3.5), 10),
        quote("northbook", -105.0, Some(-3.5), 10),
        quote("riverline", 100.0, Some(-4.5), 10),
        quote("harborbet", -115.0, Some(-3.5), 10),
        quote("meadowbet", -130.0, Some(-2.5), 10),
    ];
    assert_eq!(key(best_at(&quotes, Some(-3.5))), Some("northbook"));
    assert_eq!(key(best_at(&quotes, Some(-4.5))), Some("riverline"));
    assert_eq!(key(best_at(&quotes, Some(-7.0))), None);
    assert_eq!(key(best_at(&quotes, None)), None);
    // The headline: at the modal point -3.5, though +100 at -4.5 pays more.
    assert_eq!(key(best(&quotes)), Some("northbook"));
    let per_point: Vec<(Option<f64>, &str)> = best_per_point(&quotes)
        .into_iter()
        .map(|q| (q.point, q.book.as_str()))
        .collect();
    assert_eq!(
        per_point,
        [
            (Some(-4.5), "riverline"),
            (Some(-3.5), "northbook"),
            (Some(-2.5), "meadowbet"),
        ]
    );
}

#[test]
fn a_moneyline_has_one_best_per_point() {
    let quotes = [
        quote("eastline", -110.0, None, 10),
        quote("northbook", -105.0, None, 10),
    ];
    let per_point: Vec<&str> = best_per_point(&quotes).into_iter().map(|q| q.book.as_str()).collect();
    assert_eq!(per_point, ["northbook"]);
    assert!(best_per_point(&[]).is_empty());
}

#[test]
fn the_modal_point_is_the_most_common_and_a_tie_the_nearest_pick_em() {
    assert_eq!(modal_point([Some(-3.5), Some(-2.5), Some(-3.5)]), Some(Some(-3.5)));
    assert_eq!(modal_point([Some(-2.5), Some(-3.5), Some(-3.5)]), Some(Some(-3.5)));
    // A tie: the smaller absolute value, in either order.
    assert_eq!(modal_point([Some(-3.5), Some(-2.5)]), Some(Some(-2.5)));
    assert_eq!(modal_point([Some(-2.5), Some(-3.5)]), Some(Some(-2.5)));
    assert_eq!(modal_point([Some(220.5), Some(221.5)]), Some(Some(220.5)));
    assert_eq!(modal_point([Some(221.5), Some(220.5)]), Some(Some(220.5)));
    // Equal absolute values: the smaller value.
    assert_eq!(modal_point([Some(3.0), Some(-3.0)]), Some(Some(-3.0)));
    assert_eq!(modal_point([Some(-3.0), Some(3.0)]), Some(Some(-3.0)));
    // Counts beat nearness.
    assert_eq!(
        modal_point([Some(-1.5), Some(-7.5), Some(-7.5), Some(-1.5), Some(-7.5)]),
        Some(Some(-7.5))
    );
    assert_eq!(modal_point([None, None]), Some(None));
    assert_eq!(modal_point(std::iter::empty()), None);
}
