use std::time::Duration;

use super::at;
use crate::signature::*;

const REF_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const REF_ID: &str = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const REF_TS: i64 = 1_614_265_330;
const REF_BODY: &[u8] = br#"{"test": 2432232314}"#;
const REF_SIG: &str = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

/// Key bytes 0, 1, …, 23.
fn counting() -> Secret {
    Secret::from_random(std::array::from_fn(|i| i as u8))
}

/// 32 bytes of 0xff.
fn ones() -> Secret {
    Secret::parse("whsec_//////////////////////////////////////////8=").unwrap()
}

#[test]
fn the_headers_are_named_as_the_specification_names_them() {
    assert_eq!(HEADER_ID, "webhook-id");
    assert_eq!(HEADER_TIMESTAMP, "webhook-timestamp");
    assert_eq!(HEADER_SIGNATURE, "webhook-signature");
    assert_eq!(TOLERANCE, Duration::from_secs(300));
}

/// The Standard Webhooks reference vector, confirmed with:
/// python3 -c "import hmac,hashlib,base64;k=base64.b64decode('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');print('v1,'+base64.b64encode(hmac.new(k,b'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{\"test\": 2432232314}',hashlib.sha256).digest()).decode())"
#[test]
fn the_reference_vector_signs_as_the_specification_says() {
    let secret = Secret::parse(REF_SECRET).unwrap();
    assert_eq!(sign(&secret, REF_ID, REF_TS, REF_BODY), REF_SIG);
}

/// python3 -c "import hmac,hashlib,base64;k=bytes(range(24));print('v1,'+base64.b64encode(hmac.new(k,b'msg_1.1700000000.{\"type\":\"release.published\"}',hashlib.sha256).digest()).decode())"
/// and the same with k=bytes([0xff]*32), then k=bytes(range(24)) over
/// b'msg_2.0.' (empty body) and over 'msg_3.-5.{"team":"Montréal"}'.encode(),
/// and k=bytes([7]*64) over b'msg_4.1614265330.x'.
#[test]
fn signatures_match_ones_computed_independently() {
    let body = br#"{"type":"release.published"}"#;
    assert_eq!(
        sign(&counting(), "msg_1", 1_700_000_000, body),
        "v1,ZqgMLYos5iiBlxBtqqbT9yR5b9GcKbUPlKlEVVVGMTA="
    );
    assert_eq!(
        sign(&ones(), "msg_1", 1_700_000_000, body),
        "v1,cbkDlE16tI52hny3SbjuavneAgmlYOJ02wpq+LCFq9M="
    );
    assert_eq!(
        sign(&counting(), "msg_2", 0, b""),
        "v1,5DjELRFe+ouR1FccwjZpqCt/pA/vKT/Q6KuZCFMBPC8="
    );
    assert_eq!(
        sign(&counting(), "msg_3", -5, r#"{"team":"Montréal"}"#.as_bytes()),
        "v1,Jx1n+epKnlr7hbqiqEbIO9nHDNDzFbhsOdgck7BpR4k="
    );
    let longest = Secret::parse(&format!("whsec_{}BwcHBw==", "BwcH".repeat(20))).unwrap();
    assert_eq!(longest.key(), [7u8; 64]);
    assert_eq!(
        sign(&longest, "msg_4", 1_614_265_330, b"x"),
        "v1,VZqyDyqAiWa1HAsxaIiDUtm1smoeApVP+JZKtrH2JMw="
    );
}

/// python3 -c "import base64;print('whsec_'+base64.b64encode(bytes(range(24))).decode())"
#[test]
fn a_generated_secret_is_written_whsec_and_standard_base64() {
    let secret = counting();
    assert_eq!(secret.to_string(), "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX");
    assert_eq!(secret.key(), (0u8..24).collect::<Vec<_>>());
    assert_eq!(Secret::parse("whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX").unwrap(), secret);
    assert_eq!(ones().to_string(), "whsec_//////////////////////////////////////////8=");
    assert_eq!(KEY_LEN, 24);
}

#[test]
fn a_secret_is_refused_without_its_prefix_its_base64_or_a_key_of_24_to_64_bytes() {
    assert_eq!(
        Secret::parse("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        Err(SecretError::MissingPrefix)
    );
    assert_eq!(
        Secret::parse("whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        Err(SecretError::MissingPrefix)
    );
    assert_eq!(
        Secret::parse("whsec_MfKQ9r8GKYqr!wjUPD8ILPZIo2LaLaSw"),
        Err(SecretError::NotBase64)
    );
    assert_eq!(
        Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS"),
        Err(SecretError::NotBase64)
    );
    // 23 and 65 zero bytes.
    assert_eq!(
        Secret::parse("whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        Err(SecretError::Length(23))
    );
    assert_eq!(
        Secret::parse(&format!("whsec_{}AAA=", "A".repeat(84))),
        Err(SecretError::Length(65))
    );
    assert_eq!(Secret::parse("whsec_"), Err(SecretError::Length(0)));
    assert_eq!(
        Secret::parse(&format!("whsec_{}", "A".repeat(32))).unwrap().key(),
        [0u8; 24]
    );
    assert_eq!(
        Secret::parse(&format!("whsec_{}AA==", "A".repeat(84))).unwrap().key(),
        [0u8; 64]
    );
}

#[test]
fn a_secret_debug_form_hides_the_key() {
    let shown = format!("{:?}", Secret::parse(REF_SECRET).unwrap());
    assert_eq!(shown, "Secret(whsec_…)");
}

#[test]
fn during_a_rotation_the_header_holds_one_signature_per_secret_space_separated() {
    let body = br#"{"type":"release.published"}"#;
    assert_eq!(
        signature_header(&[counting(), ones()], "msg_1", 1_700_000_000, body),
        "v1,ZqgMLYos5iiBlxBtqqbT9yR5b9GcKbUPlKlEVVVGMTA= v1,cbkDlE16tI52hny3SbjuavneAgmlYOJ02wpq+LCFq9M="
    );
    assert_eq!(
        signature_header(&[counting()], "msg_1", 1_700_000_000, body),
        "v1,ZqgMLYos5iiBlxBtqqbT9yR5b9GcKbUPlKlEVVVGMTA="
    );
    assert_eq!(signature_header(&[], "msg_1", 1_700_000_000, body), "");
}

fn verify_ref(header: &str, body: &[u8], now: i64) -> Result<(), VerifyError> {
    verify(
        &[Secret::parse(REF_SECRET).unwrap()],
        header,
        REF_ID,
        REF_TS,
        body,
        at(now),
    )
}

#[test]
fn the_reference_message_verifies_within_five_minutes_either_way() {
    assert_eq!(verify_ref(REF_SIG, REF_BODY, REF_TS), Ok(()));
    assert_eq!(verify_ref(REF_SIG, REF_BODY, REF_TS + 300), Ok(()));
    assert_eq!(verify_ref(REF_SIG, REF_BODY, REF_TS + 301), Err(VerifyError::TooOld));
    assert_eq!(verify_ref(REF_SIG, REF_BODY, REF_TS - 300), Ok(()));
    assert_eq!(verify_ref(REF_SIG, REF_BODY, REF_TS - 301), Err(VerifyError::TooNew));
}

#[test]
fn a_changed_body_id_or_timestamp_does_not_verify() {
    assert_eq!(
        verify_ref(REF_SIG, br#"{"test": 2432232315}"#, REF_TS),
        Err(VerifyError::Mismatch)
    );
    let secrets = [Secret::parse(REF_SECRET).unwrap()];
    assert_eq!(
        verify(&secrets, REF_SIG, "msg_other", REF_TS, REF_BODY, at(REF_TS)),
        Err(VerifyError::Mismatch)
    );
    assert_eq!(
        verify(&secrets, REF_SIG, REF_ID, REF_TS + 1, REF_BODY, at(REF_TS)),
        Err(VerifyError::Mismatch)
    );
    assert_eq!(
        verify(&[ones()], REF_SIG, REF_ID, REF_TS, REF_BODY, at(REF_TS)),
        Err(VerifyError::Mismatch)
    );
    assert_eq!(
        verify(&[], REF_SIG, REF_ID, REF_TS, REF_BODY, at(REF_TS)),
        Err(VerifyError::Mismatch)
    );
}

#[test]
fn any_matching_signature_under_any_secret_verifies() {
    let rotated = format!("v1,cbkDlE16tI52hny3SbjuavneAgmlYOJ02wpq+LCFq9M= {REF_SIG}");
    assert_eq!(verify_ref(&rotated, REF_BODY, REF_TS), Ok(()));
    let secrets = [ones(), Secret::parse(REF_SECRET).unwrap()];
    assert_eq!(verify(&secrets, REF_SIG, REF_ID, REF_TS, REF_BODY, at(REF_TS)), Ok(()));
    // Entries of another version and entries that are not base64 are skipped.
    assert_eq!(
        verify_ref(&format!("v2,abc v1,!!!! {REF_SIG}"), REF_BODY, REF_TS),
        Ok(())
    );
}

#[test]
fn a_header_without_a_v1_signature_is_refused_as_such() {
    assert_eq!(verify_ref("", REF_BODY, REF_TS), Err(VerifyError::NoSignature));
    assert_eq!(
        verify_ref("v2,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", REF_BODY, REF_TS),
        Err(VerifyError::NoSignature)
    );
    assert_eq!(verify_ref("v1,!!!!", REF_BODY, REF_TS), Err(VerifyError::Mismatch));
    // The first 31 bytes of the right signature are not the signature.
    assert_eq!(
        verify_ref("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1A==", REF_BODY, REF_TS),
        Err(VerifyError::Mismatch)
    );
}
