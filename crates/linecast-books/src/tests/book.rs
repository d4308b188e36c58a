use crate::book::*;

#[test]
fn a_key_is_one_to_32_lowercase_letters_digits_or_underscores() {
    assert_eq!(BookKey::parse("northbook").unwrap().as_str(), "northbook");
    assert_eq!(BookKey::parse("book_2").unwrap().as_str(), "book_2");
    assert_eq!(BookKey::parse("a").unwrap().as_str(), "a");
    let longest = "abcdefghijklmnopqrstuvwxyz_01234";
    assert_eq!(longest.len(), 32);
    assert_eq!(BookKey::parse(longest).unwrap().as_str(), longest);
    assert_eq!(MAX_KEY_LEN, 32);
    for bad in [
        "",
        "abcdefghijklmnopqrstuvwxyz_012345",
        "NorthBook",
        "north-book",
        "north book",
        " northbook",
        "nörth",
        "book.2",
    ] {
        assert_eq!(BookKey::parse(bad), Err(InvalidBookKey(bad.to_owned())), "{bad:?}");
        assert!(!is_valid_key(bad), "{bad:?}");
    }
    assert!(is_valid_key("z9_"));
}

#[test]
fn a_key_displays_as_its_text() {
    assert_eq!(BookKey::parse("eastline").unwrap().to_string(), "eastline");
    assert_eq!(BookKey::from_static("primary").to_string(), "primary");
}

#[test]
#[should_panic(expected = "invalid book key")]
fn a_static_key_is_validated_too() {
    let _ = BookKey::from_static("Primary");
}

#[test]
fn the_legacy_book_is_primary() {
    assert_eq!(PRIMARY.as_str(), "primary");
    assert_eq!(PRIMARY, BookKey::parse("primary").unwrap());
}

#[test]
fn the_catalogue_lists_seven_invented_books_with_one_sharp_first() {
    let listed: Vec<(&str, &str, bool)> = CATALOGUE.iter().map(|b| (b.key.as_str(), b.title, b.sharp)).collect();
    assert_eq!(
        listed,
        [
            ("sharpline", "Sharpline", true),
            ("eastline", "Eastline", false),
            ("harborbet", "Harbor Bet", false),
            ("meadowbet", "Meadow Bet", false),
            ("northbook", "Northbook", false),
            ("riverline", "Riverline", false),
            ("summitodds", "Summit Odds", false),
        ]
    );
    assert_eq!(sharp_book().key.as_str(), "sharpline");
    assert!(sharp_book().sharp);
}

#[test]
fn a_catalogue_book_is_found_by_its_key() {
    assert_eq!(find("northbook").unwrap().title, "Northbook");
    assert_eq!(find("sharpline").unwrap().title, "Sharpline");
    assert_eq!(find("primary"), None);
    assert_eq!(find("Northbook"), None);
}
