use super::{near, odds};
use crate::devig::*;

#[test]
fn the_methods_have_their_wire_codes_and_parse_back() {
    assert_eq!(Method::Multiplicative.code(), "multiplicative");
    assert_eq!(Method::Power.code(), "power");
    assert_eq!(Method::Shin.code(), "shin");
    assert_eq!(Method::parse("multiplicative"), Ok(Method::Multiplicative));
    assert_eq!(Method::parse("power"), Ok(Method::Power));
    assert_eq!(Method::parse("shin"), Ok(Method::Shin));
    assert_eq!(Method::parse("Shin"), Err(UnknownMethod("Shin".to_owned())));
    assert!(Method::parse("additive").is_err());
    assert!(Method::parse("").is_err());
    assert_eq!(Method::ALL, [Method::Multiplicative, Method::Power, Method::Shin]);
}

#[test]
fn minus_110_both_sides_has_an_overround_of_one_twenty_first() {
    // python3 -c "print(110/210*2-1)" -> 0.04761904761904767 (= 1/21)
    near(overround(odds(-110.0), odds(-110.0)), 0.047_619_047_619_047_67, 1e-15);
    // -150/+130: 0.6 + 100/230 - 1 = 4/115
    // python3 -c "print(0.6+100/230-1)" -> 0.034782608695652195
    near(overround(odds(-150.0), odds(130.0)), 0.034_782_608_695_652_195, 1e-15);
    // +105/+105 pays more than a fair book: python3 -c "print(2*100/205-1)" -> -0.024390243902439046
    near(overround(odds(105.0), odds(105.0)), -0.024_390_243_902_439_046, 1e-15);
}

#[test]
fn every_method_makes_minus_110_both_sides_a_coin_flip() {
    for method in [Method::Multiplicative, Method::Power, Method::Shin] {
        let (a, b) = method.devig(odds(-110.0), odds(-110.0));
        near(a, 0.5, 1e-12);
        near(b, 0.5, 1e-12);
    }
}

#[test]
fn multiplicative_divides_each_implied_probability_by_their_sum() {
    // 0.6 / (0.6 + 100/230) = 69/119
    // python3 -c "print(69/119, 50/119)" -> 0.5798319327731093 0.42016806722689076
    let (a, b) = multiplicative(odds(-150.0), odds(130.0));
    near(a, 0.579_831_932_773_109_3, 1e-15);
    near(b, 0.420_168_067_226_890_76, 1e-15);
    let (a, b) = Method::Multiplicative.devig(odds(-150.0), odds(130.0));
    near(a, 0.579_831_932_773_109_3, 1e-15);
    near(b, 0.420_168_067_226_890_76, 1e-15);
}

#[test]
fn power_finds_the_exponent_that_makes_the_pair_sum_to_one() {
    // Bisection in python3 (200 halvings of [0.01, 10]) on 0.6**k + (100/230)**k = 1:
    // k = 1.0529699492310043, p = 0.5839826350363596 / 0.41601736496364067
    near(
        power_exponent(odds(-150.0), odds(130.0)),
        1.052_969_949_231_004_3,
        1e-12,
    );
    let (a, b) = power(odds(-150.0), odds(130.0));
    near(a, 0.583_982_635_036_359_6, 1e-12);
    near(b, 0.416_017_364_963_640_67, 1e-12);
    let (a, b) = Method::Power.devig(odds(-150.0), odds(130.0));
    near(a, 0.583_982_635_036_359_6, 1e-12);
    near(b, 0.416_017_364_963_640_67, 1e-12);
    // -300/+240 (0.75 and 100/340): k = 1.0792998505703144,
    // p = 0.7330838301503059 / 0.26691616984969435
    near(
        power_exponent(odds(-300.0), odds(240.0)),
        1.079_299_850_570_314_4,
        1e-12,
    );
    let (a, b) = power(odds(-300.0), odds(240.0));
    near(a, 0.733_083_830_150_305_9, 1e-12);
    near(b, 0.266_916_169_849_694_35, 1e-12);
    // -1000/+600: k = 1.1598962503781094, p = 0.8953416334602375 / 0.1046583665397627
    near(
        power_exponent(odds(-1000.0), odds(600.0)),
        1.159_896_250_378_109_4,
        1e-12,
    );
    near(power(odds(-1000.0), odds(600.0)).0, 0.895_341_633_460_237_5, 1e-12);
}

#[test]
fn power_lowers_the_exponent_below_one_for_a_negative_overround() {
    // +105/+105: (100/205)**k = 1/2 -> k = ln 2 / ln(2.05)
    // python3 -c "import math; print(math.log(2)/math.log(2.05))" -> 0.9656014993512613
    near(power_exponent(odds(105.0), odds(105.0)), 0.965_601_499_351_261_3, 1e-12);
    // -110/-110: k = ln 2 / ln(210/110)
    // python3 -c "import math; print(math.log(2)/math.log(210/110))" -> 1.0719425631310813
    near(
        power_exponent(odds(-110.0), odds(-110.0)),
        1.071_942_563_131_081_3,
        1e-12,
    );
}

#[test]
fn shin_z_has_the_two_outcome_closed_form() {
    // -150/+130: beta = 119/115, delta = 19/115,
    // z = (beta-1)(delta^2-beta)/(beta(delta^2-1)) = 3331/95676 with Python's
    // fractions; a bisection on Shin's sum gives 0.034815418704794925.
    near(shin_z(odds(-150.0), odds(130.0)), 3331.0 / 95676.0, 1e-15);
    // -300/+240: 1289/28897 (bisection: 0.044606706578537096)
    near(shin_z(odds(-300.0), odds(240.0)), 1289.0 / 28897.0, 1e-15);
    // Symmetric prices: z is the overround, 1/21.
    near(shin_z(odds(-110.0), odds(-110.0)), 1.0 / 21.0, 1e-15);
}

#[test]
fn shin_takes_half_the_overround_off_each_side_for_two_outcomes() {
    // 0.6 - (4/115)/2 = 67/115 and 10/23 - 2/115 = 48/115
    let (a, b) = shin(odds(-150.0), odds(130.0));
    near(a, 67.0 / 115.0, 1e-14);
    near(b, 48.0 / 115.0, 1e-14);
    let (a, b) = Method::Shin.devig(odds(-150.0), odds(130.0));
    near(a, 67.0 / 115.0, 1e-14);
    near(b, 48.0 / 115.0, 1e-14);
    // -300/+240: python3 -c "ia=.75; ib=100/340; print(ia-(ia+ib-1)/2)" -> 0.7279411764705882
    let (a, b) = shin(odds(-300.0), odds(240.0));
    near(a, 0.727_941_176_470_588_2, 1e-14);
    near(b, 1.0 - 0.727_941_176_470_588_2, 1e-14);
}
