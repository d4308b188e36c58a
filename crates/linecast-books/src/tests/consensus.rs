use super::{near, odds};
use crate::book::BookKey;
use crate::consensus::*;
use crate::devig::Method;

fn market(book: &str, a: Option<f64>, b: Option<f64>, line: Option<f64>) -> BookMarket {
    BookMarket {
        book: BookKey::parse(book).unwrap(),
        a: a.map(odds),
        b: b.map(odds),
        line,
    }
}

#[test]
fn the_median_of_an_odd_count_is_the_middle_and_of_an_even_count_the_mean_of_the_two() {
    assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
    assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), Some(2.5));
    assert_eq!(median(vec![7.0]), Some(7.0));
    assert_eq!(median(vec![1.0, 5.0]), Some(3.0));
    assert_eq!(median(vec![5.0, 9.0, 1.0, 2.0, 8.0]), Some(5.0));
    assert_eq!(median(vec![]), None);
}

#[test]
fn the_consensus_is_each_side_s_median_no_vig_probability() {
    // Multiplicative per book: -110/-110 0.5; -150/+130 69/119 = 0.5798...;
    // -120/+100 (120/220)/(120/220 + 0.5) = 12/23 = 0.5217391304347826.
    // Overrounds 1/21, 4/115, 1/22 = 0.045454545454545414: median 1/22.
    let markets = [
        market("eastline", Some(-110.0), Some(-110.0), None),
        market("northbook", Some(-150.0), Some(130.0), None),
        market("riverline", Some(-120.0), Some(100.0), None),
    ];
    let c = consensus(&markets, Method::Multiplicative).unwrap();
    near(c.p_a, 0.521_739_130_434_782_6, 1e-15);
    near(c.p_b, 0.478_260_869_565_217_4, 1e-15);
    near(c.overround, 0.045_454_545_454_545_414, 1e-15);
    assert_eq!(c.n_books, 3);
    assert_eq!(c.n_one_sided, 0);
    assert_eq!(c.n_off_line, 0);
    assert_eq!(c.method, Method::Multiplicative);
    assert_eq!(c.line, None);
}

#[test]
fn an_even_count_of_books_takes_the_mean_of_the_middle_two() {
    // Adds -140/+120: (140/240)/(140/240 + 100/220) = 77/137, overround 5/132.
    // python3 -c "print((12/23+77/137)/2)" -> 0.5418914630276103
    // python3 -c "print((0.037878787878787845+0.045454545454545414)/2)" -> 0.04166666666666663
    let markets = [
        market("eastline", Some(-110.0), Some(-110.0), None),
        market("northbook", Some(-150.0), Some(130.0), None),
        market("riverline", Some(-120.0), Some(100.0), None),
        market("harborbet", Some(-140.0), Some(120.0), None),
    ];
    let c = consensus(&markets, Method::Multiplicative).unwrap();
    near(c.p_a, 0.541_891_463_027_610_3, 1e-15);
    near(c.p_b, 1.0 - 0.541_891_463_027_610_3, 1e-15);
    near(c.overround, 0.041_666_666_666_666_63, 1e-15);
    assert_eq!(c.n_books, 4);
}

#[test]
fn the_consensus_uses_the_method_it_is_given() {
    // Shin (additive for two outcomes) per book: 0.5, 67/115, 0.5227272727272727 (= 23/44).
    let markets = [
        market("eastline", Some(-110.0), Some(-110.0), None),
        market("northbook", Some(-150.0), Some(130.0), None),
        market("riverline", Some(-120.0), Some(100.0), None),
    ];
    let c = consensus(&markets, Method::Shin).unwrap();
    near(c.p_a, 23.0 / 44.0, 1e-15);
    assert_eq!(c.method, Method::Shin);
}

#[test]
fn a_book_missing_a_side_is_left_out_and_counted() {
    let markets = [
        market("eastline", Some(-110.0), Some(-110.0), None),
        market("northbook", Some(-150.0), None, None),
        market("riverline", None, Some(100.0), None),
        market("harborbet", Some(-150.0), Some(130.0), None),
    ];
    let c = consensus(&markets, Method::Multiplicative).unwrap();
    assert_eq!(c.n_books, 2);
    assert_eq!(c.n_one_sided, 2);
    assert_eq!(c.n_off_line, 0);
    // (0.5 + 69/119) / 2: python3 -c "print((0.5+69/119)/2)" -> 0.5399159663865547
    near(c.p_a, 0.539_915_966_386_554_7, 1e-15);
    let one_sided = [market("northbook", Some(-150.0), None, None)];
    assert_eq!(consensus(&one_sided, Method::Multiplicative), None);
    assert_eq!(consensus(&[], Method::Multiplicative), None);
}

#[test]
fn a_spread_s_consensus_counts_only_the_books_at_the_modal_line() {
    let markets = [
        market("eastline", Some(-110.0), Some(-110.0), Some(-3.5)),
        market("northbook", Some(-150.0), Some(130.0), Some(-2.5)),
        market("riverline", Some(-120.0), Some(100.0), Some(-3.5)),
        market("harborbet", Some(-105.0), None, Some(-2.5)),
        market("meadowbet", Some(-105.0), None, Some(-2.5)),
    ];
    let c = consensus(&markets, Method::Multiplicative).unwrap();
    // The one-sided books at -2.5 do not make it the mode.
    assert_eq!(c.line, Some(-3.5));
    assert_eq!(c.n_books, 2);
    assert_eq!(c.n_off_line, 1);
    assert_eq!(c.n_one_sided, 2);
    // (0.5 + 12/23) / 2: python3 -c "print((0.5+12/23)/2)" -> 0.5108695652173914
    near(c.p_a, 0.510_869_565_217_391_4, 1e-15);
    // (1/21 + 1/22) / 2: python3 -c "print((1/21+1/22)/2)" -> 0.046536796536796536
    near(c.overround, 0.046_536_796_536_796_536, 1e-15);
}
