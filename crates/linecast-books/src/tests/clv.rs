use super::{near, odds};
use crate::clv::*;
use crate::consensus::Consensus;
use crate::devig::Method;

#[test]
fn clv_is_the_close_minus_the_pick_in_probability_points() {
    near(clv_points(0.50, 0.53), 3.0, 1e-12);
    near(clv_points(0.55, 0.52), -3.0, 1e-12);
    near(clv_points(0.4, 0.4), 0.0, 0.0);
}

#[test]
fn a_side_picks_its_member_of_the_pair() {
    assert_eq!(Side::A.of(("home", "away")), "home");
    assert_eq!(Side::B.of(("home", "away")), "away");
}

#[test]
fn clv_against_the_sharp_book_s_close_de_vigs_both_prices() {
    // Home picked at -110/-110 (0.5), closing -150/+130 (69/119):
    // python3 -c "print((69/119-0.5)*100)" -> 7.98319327731093
    let pick = (odds(-110.0), odds(-110.0));
    let close = (odds(-150.0), odds(130.0));
    near(
        against_book_close(Side::A, pick, close, Method::Multiplicative),
        7.983_193_277_310_93,
        1e-12,
    );
    // The away side lost that value.
    near(
        against_book_close(Side::B, pick, close, Method::Multiplicative),
        -7.983_193_277_310_93,
        1e-12,
    );
    // By Shin: (67/115 - 0.5) * 100 = 8.260869565217387
    near(
        against_book_close(Side::A, pick, close, Method::Shin),
        8.260_869_565_217_387,
        1e-12,
    );
    // Picked at -150/+130, closing -110/-110, away side: (0.5 - 50/119) * 100
    // python3 -c "print((0.5-50/119)*100)" -> 7.9831932773109235
    near(
        against_book_close(Side::B, close, pick, Method::Multiplicative),
        7.983_193_277_310_93,
        1e-12,
    );
}

#[test]
fn clv_against_the_consensus_close_uses_its_probabilities_and_method() {
    let close = Consensus {
        p_a: 0.55,
        p_b: 0.45,
        n_books: 5,
        n_one_sided: 0,
        n_off_line: 0,
        overround: 0.04,
        method: Method::Shin,
        line: None,
    };
    // Picked at -150/+130, Shin 67/115 and 48/115:
    // python3 -c "print((0.55-67/115)*100, (0.45-48/115)*100)" -> -3.2608695652173836 3.2608695652173947
    let pick = (odds(-150.0), odds(130.0));
    near(
        against_consensus_close(Side::A, pick, &close),
        -3.260_869_565_217_383_6,
        1e-12,
    );
    near(
        against_consensus_close(Side::B, pick, &close),
        3.260_869_565_217_394_7,
        1e-12,
    );
    // Multiplicative consensus: (0.55 - 69/119) * 100
    // python3 -c "print((0.55-69/119)*100)" -> -2.983193277310925
    let close = Consensus {
        method: Method::Multiplicative,
        ..close
    };
    near(
        against_consensus_close(Side::A, pick, &close),
        -2.983_193_277_310_925,
        1e-12,
    );
}
