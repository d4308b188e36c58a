use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, TimeDelta, TimeZone as _, Utc};
use linecast_core::{DOWNLOAD_TTL, UrlSigner};
use linecast_signer::{HmacSigner, TokenError, VerifiedDownload};
use proptest::prelude::*;

const KEY: &str = "datasets/nba/nba_history.csv";
const FILE: &str = "nba_history.csv";

fn signer() -> HmacSigner {
    HmacSigner::new(b"test secret", "https://api.example.com".to_owned())
}

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(secs, 0).unwrap()
}

fn expiry() -> DateTime<Utc> {
    at(1_767_225_600)
}

fn token_of(url: &str) -> &str {
    url.rsplit_once('/').unwrap().1
}

fn split(token: &str) -> (Vec<u8>, Vec<u8>) {
    let (body, tag) = token.split_once('.').unwrap();
    (
        URL_SAFE_NO_PAD.decode(body).unwrap(),
        URL_SAFE_NO_PAD.decode(tag).unwrap(),
    )
}

fn join(body: &[u8], tag: &[u8]) -> String {
    format!("{}.{}", URL_SAFE_NO_PAD.encode(body), URL_SAFE_NO_PAD.encode(tag))
}

#[tokio::test]
async fn a_signed_link_points_at_the_download_route_and_verifies_back_to_its_object() {
    let s = signer();
    let url = s.sign(KEY, FILE, expiry()).await.unwrap();
    assert!(url.starts_with("https://api.example.com/api/v1/downloads/"), "{url}");
    let verified = s.verify(token_of(&url), expiry() - DOWNLOAD_TTL).unwrap();
    assert_eq!(
        verified,
        VerifiedDownload {
            object_key: KEY.into(),
            filename: FILE.into(),
            expires_at: expiry()
        }
    );
}

#[tokio::test]
async fn a_trailing_slash_on_the_base_url_does_not_double_the_slash() {
    let s = HmacSigner::new(b"k", "http://localhost:8080/".to_owned());
    let url = s.sign(KEY, FILE, expiry()).await.unwrap();
    assert!(url.starts_with("http://localhost:8080/api/v1/downloads/"), "{url}");
}

#[test]
fn the_download_lifetime_is_fifteen_minutes() {
    assert_eq!(DOWNLOAD_TTL.num_seconds(), 900);
}

#[test]
fn a_token_is_still_valid_at_its_expiry_instant() {
    let s = signer();
    assert!(s.verify(&s.token(KEY, FILE, expiry()), expiry()).is_ok());
}

#[test]
fn a_token_one_second_after_expiry_is_expired() {
    let s = signer();
    let token = s.token(KEY, FILE, expiry());
    assert_eq!(
        s.verify(&token, expiry() + TimeDelta::seconds(1)),
        Err(TokenError::Expired)
    );
}

#[test]
fn sub_second_expiries_are_cut_to_the_second_so_a_link_never_outlives_the_reported_time() {
    let s = signer();
    let precise = expiry() + TimeDelta::milliseconds(700);
    let token = s.token(KEY, FILE, precise);
    assert_eq!(s.verify(&token, expiry()).unwrap().expires_at, expiry());
    assert_eq!(
        s.verify(&token, expiry() + TimeDelta::milliseconds(1)),
        Err(TokenError::Expired)
    );
}

#[test]
fn a_tampered_payload_with_the_original_signature_is_a_bad_signature() {
    let s = signer();
    let (body, tag) = split(&s.token(KEY, FILE, expiry()));
    let forged = String::from_utf8(body).unwrap().replace("nba", "nfl");
    assert_eq!(
        s.verify(&join(forged.as_bytes(), &tag), expiry()),
        Err(TokenError::BadSignature)
    );
    let later = String::from_utf8(split(&s.token(KEY, FILE, expiry())).0)
        .unwrap()
        .replace(
            &expiry().timestamp().to_string(),
            &(expiry().timestamp() + 86_400).to_string(),
        );
    assert_eq!(
        s.verify(&join(later.as_bytes(), &tag), expiry()),
        Err(TokenError::BadSignature)
    );
}

#[test]
fn a_tampered_signature_is_a_bad_signature() {
    let s = signer();
    let (body, mut tag) = split(&s.token(KEY, FILE, expiry()));
    tag[31] ^= 1;
    assert_eq!(s.verify(&join(&body, &tag), expiry()), Err(TokenError::BadSignature));
}

#[test]
fn a_token_signed_with_another_secret_is_rejected() {
    let other = HmacSigner::new(b"another secret", "https://api.example.com".to_owned());
    let token = other.token(KEY, FILE, expiry());
    assert_eq!(signer().verify(&token, expiry()), Err(TokenError::BadSignature));
}

#[test]
fn two_random_secrets_do_not_accept_each_others_tokens() {
    let a = HmacSigner::with_random_secret("http://a".to_owned());
    let b = HmacSigner::with_random_secret("http://a".to_owned());
    assert_eq!(
        b.verify(&a.token(KEY, FILE, expiry()), expiry()),
        Err(TokenError::BadSignature)
    );
    assert!(a.verify(&a.token(KEY, FILE, expiry()), expiry()).is_ok());
}

#[test]
fn the_debug_form_does_not_show_the_secret() {
    let shown = format!("{:?}", HmacSigner::new(b"hunter2-secret", "http://x".to_owned()));
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(shown.contains("http://x"), "{shown}");
}

#[test]
fn tokens_of_the_wrong_shape_are_malformed() {
    let s = signer();
    let genuine = s.token(KEY, FILE, expiry());
    let (body, tag) = genuine.split_once('.').unwrap();
    let tag_bytes = URL_SAFE_NO_PAD.decode(tag).unwrap();
    // A 32-byte tag is 43 characters whose last one carries 2 unused bits;
    // setting one gives a non-canonical spelling of the same bytes.
    let alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let last = alphabet.find(tag.chars().last().unwrap()).unwrap();
    let noncanonical = format!("{body}.{}{}", &tag[..42], &alphabet[last | 1..=last | 1]);
    let shapes = vec![
        String::new(),
        ".".to_owned(),
        "..".to_owned(),
        "abc".to_owned(),
        body.to_owned(),
        format!("{body}."),
        format!(".{tag}"),
        format!("{genuine}.{tag}"),
        format!("{body}.{tag}="),
        format!("{body}=.{tag}"),
        format!("{body} .{tag}"),
        format!("{body}.{}", &tag[..42]),
        format!("{body}.{}", URL_SAFE_NO_PAD.encode(&tag_bytes[..31])),
        format!(
            "{body}.{}",
            URL_SAFE_NO_PAD.encode([tag_bytes.as_slice(), &[0]].concat())
        ),
        format!("+{body}.{tag}"),
        noncanonical,
        format!("{}.{}", body, tag.replace(|_: char| true, "/")),
        format!("{}.{tag}", URL_SAFE_NO_PAD.encode(b"")),
        "\u{0}\u{0}.\u{0}".to_owned(),
        "é.é".to_owned(),
    ];
    for shape in shapes {
        assert_eq!(s.verify(&shape, expiry()), Err(TokenError::Malformed), "{shape:?}");
    }
}

#[test]
fn a_genuinely_signed_payload_that_is_not_ours_is_malformed() {
    use hmac::Mac as _;
    let body = URL_SAFE_NO_PAD.encode(b"not json");
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(b"test secret").unwrap();
    mac.update(body.as_bytes());
    let token = format!("{body}.{}", URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes()));
    assert_eq!(signer().verify(&token, expiry()), Err(TokenError::Malformed));
}

/// Whether `s` has the outward shape of a token: two canonical base64url
/// parts, a non-empty payload and a 32-byte tag.
fn well_shaped(s: &str) -> bool {
    s.split_once('.').is_some_and(|(b, t)| {
        matches!(URL_SAFE_NO_PAD.decode(b), Ok(b) if !b.is_empty())
            && matches!(URL_SAFE_NO_PAD.decode(t), Ok(t) if t.len() == 32)
    })
}

proptest! {
    /// An arbitrary string is never accepted, verifying it never panics, and
    /// anything without the outward shape of a token is Malformed.
    #[test]
    fn arbitrary_strings_are_refused_and_misshapen_ones_are_malformed(s in any::<String>(), now in 0i64..4_000_000_000) {
        let result = signer().verify(&s, at(now));
        prop_assert!(result.is_err());
        if !well_shaped(&s) {
            prop_assert_eq!(result, Err(TokenError::Malformed));
        }
    }

    /// Strings built from the token alphabet (so they often look nearly right)
    /// are never accepted and are Malformed unless well shaped.
    #[test]
    fn token_alphabet_strings_are_refused(s in "[A-Za-z0-9_.=-]{0,120}") {
        let result = signer().verify(&s, expiry());
        prop_assert!(result.is_err());
        if !well_shaped(&s) {
            prop_assert_eq!(result, Err(TokenError::Malformed));
        }
    }

    /// A well-shaped token whose tag was not made with our secret is a bad
    /// signature, whatever its payload.
    #[test]
    fn well_shaped_tokens_with_foreign_tags_are_bad_signatures(
        body in proptest::collection::vec(any::<u8>(), 1..200),
        tag in proptest::array::uniform32(any::<u8>()),
    ) {
        prop_assert_eq!(signer().verify(&join(&body, &tag), expiry()), Err(TokenError::BadSignature));
    }

    /// Any object key and filename (any Unicode, quotes, slashes) come back
    /// exactly as signed, at any time up to the expiry.
    #[test]
    fn any_key_and_filename_round_trip(
        key in any::<String>(),
        file in any::<String>(),
        exp in 0i64..4_000_000_000,
        before in 0i64..100_000,
    ) {
        let s = signer();
        let verified = s.verify(&s.token(&key, &file, at(exp)), at(exp - before)).unwrap();
        prop_assert_eq!(verified, VerifiedDownload { object_key: key, filename: file, expires_at: at(exp) });
    }

    /// Changing any single character of a genuine token makes it refused.
    #[test]
    fn any_single_character_change_is_refused(index in any::<prop::sample::Index>(), replacement in "[A-Za-z0-9_.=+/-]") {
        let s = signer();
        let token = s.token(KEY, FILE, expiry());
        let i = index.index(token.len());
        prop_assume!(token[i..=i] != replacement);
        let changed = format!("{}{}{}", &token[..i], replacement, &token[i + 1..]);
        prop_assert!(s.verify(&changed, expiry()).is_err());
    }
}
