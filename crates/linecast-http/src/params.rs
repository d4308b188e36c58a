//! Parsing of path and query values. Every failure is a 400 naming the
//! parameter and its allowed values; unknown query names are ignored.
//!
//! A query name given more than once is read one way everywhere, the key
//! (`api_key`) included: the first occurrence wins and later ones are
//! ignored (docs/decisions.md, "Duplicate query names").

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use chrono::NaiveDate;
use linecast_domain::{ModelType, PublicMarket, SeasonLabel, Sport};

use crate::error::ApiError;

/// Raw query pairs, form-urlencoded decoded; the first occurrence of a
/// name wins (a plain `HashMap` would keep the last).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawQuery(HashMap<String, String>);

impl RawQuery {
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a raw query string (without `?`) with the same decoding and
    /// duplicate rule as the `web::Query<RawQuery>` extractor.
    pub fn parse(query: &str) -> Option<Self> {
        actix_web::web::Query::<Self>::from_query(query)
            .ok()
            .map(actix_web::web::Query::into_inner)
    }
}

impl Deref for RawQuery {
    type Target = HashMap<String, String>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for RawQuery {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl<'de> serde::Deserialize<'de> for RawQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FirstWins;
        impl<'de> serde::de::Visitor<'de> for FirstWins {
            type Value = RawQuery;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("query pairs")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut access: A) -> Result<RawQuery, A::Error> {
                let mut map = HashMap::new();
                while let Some((k, v)) = access.next_entry::<String, String>()? {
                    map.entry(k).or_insert(v);
                }
                Ok(RawQuery(map))
            }
        }
        d.deserialize_map(FirstWins)
    }
}

pub fn sport(value: &str) -> Result<Sport, ApiError> {
    Sport::parse(value).map_err(|e| ApiError::invalid_param("sport", value, &e.allowed))
}

pub fn model_type(value: &str) -> Result<ModelType, ApiError> {
    ModelType::parse(value).map_err(|e| ApiError::invalid_param("model_type", value, &e.allowed))
}

/// A season label valid for the sport, or a 400 naming `season`.
pub fn season(sport: Sport, raw: &str) -> Result<SeasonLabel, ApiError> {
    SeasonLabel::parse(sport, raw).map_err(|e| ApiError::invalid_param("season", raw, e.expected))
}

/// The query's `season`, a season label of `sport`, if given.
pub fn named_season(sport: Sport, query: &RawQuery) -> Result<Option<SeasonLabel>, ApiError> {
    query.get("season").map(|raw| season(sport, raw)).transpose()
}

/// The query's `season`: a season label of `sport`, or `None` when it is
/// absent or `all` (every season).
pub fn season_or_all(sport: Sport, query: &RawQuery) -> Result<Option<SeasonLabel>, ApiError> {
    match query.get("season").map(String::as_str) {
        None | Some("all") => Ok(None),
        Some(raw) => season(sport, raw).map(Some),
    }
}

/// The query's `name`, parsed by `parse`; a 400 naming it when absent.
pub fn required<T>(
    query: &RawQuery,
    name: &str,
    parse: impl FnOnce(&str) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    match query.get(name) {
        Some(raw) => parse(raw),
        None => Err(ApiError::invalid(name, format!("{name} is required"))),
    }
}

pub fn market(value: &str) -> Result<PublicMarket, ApiError> {
    PublicMarket::parse(value).map_err(|e| ApiError::invalid_param("market", value, &e.allowed))
}

/// Typed path extractors: the route's `{sport}`, `{model_type}`, `{market}`
/// and date segments, decoded exactly as `web::Path` decodes them and
/// parsed with the same 400 naming the parameter. A handler names the
/// extractor instead of repeating the parse calls.
mod path {
    use std::borrow::Cow;

    use actix_web::dev::Payload;
    use actix_web::error::PathError;
    use actix_web::{FromRequest, HttpRequest};
    use chrono::NaiveDate;
    use futures::future::{Ready, ready};
    use linecast_domain::{ModelType, PublicMarket, Sport};
    use serde::Deserialize;

    use crate::error::ApiError;

    /// The route's segments, decoded exactly as `web::Path` decodes them.
    /// A segment without a percent escape (every valid sport, model type,
    /// market and date) is borrowed from the request, not copied.
    fn segments<'de, T: Deserialize<'de>>(req: &'de HttpRequest) -> Result<T, ApiError> {
        T::deserialize(actix_router::PathDeserializer::new(req.match_info()))
            .map_err(|e| ApiError::NotFound(format!("Not found: {}", PathError::Deserialize(e))))
    }

    /// The segment `name` when it is exactly a code `parse` accepts. A code
    /// holds no percent escape, so it reads the same decoded: taking it as
    /// it is answers what [`segments`] would, without the deserializer.
    /// Anything else goes through [`segments`], which words the errors.
    fn code<T, E>(req: &HttpRequest, name: &str, parse: fn(&str) -> Result<T, E>) -> Option<T> {
        req.match_info().get(name).and_then(|v| parse(v).ok())
    }

    /// `/{sport}`.
    #[derive(Debug, Clone, Copy)]
    pub struct SportPath(pub Sport);

    /// `/{sport}/{model_type}`.
    #[derive(Debug, Clone, Copy)]
    pub struct SportModelPath {
        pub sport: Sport,
        pub model_type: ModelType,
    }

    /// `/{sport}/{market}` (the public feed's markets).
    #[derive(Debug, Clone, Copy)]
    pub struct SportMarketPath {
        pub sport: Sport,
        pub market: PublicMarket,
    }

    /// A `YYYY-MM-DD` segment, whatever the route calls it (`{date}`,
    /// `{date_str}`): a 400 names the segment as the route does.
    #[derive(Debug, Clone, Copy)]
    pub struct DatePath(pub NaiveDate);

    #[derive(Deserialize)]
    struct RawSport<'a> {
        #[serde(borrow)]
        sport: Cow<'a, str>,
    }

    #[derive(Deserialize)]
    struct RawSportModel<'a> {
        #[serde(borrow)]
        sport: Cow<'a, str>,
        #[serde(borrow)]
        model_type: Cow<'a, str>,
    }

    #[derive(Deserialize)]
    struct RawDate<'a> {
        #[serde(borrow)]
        date: Option<Cow<'a, str>>,
        #[serde(borrow)]
        date_str: Option<Cow<'a, str>>,
    }

    #[derive(Deserialize)]
    struct RawSportMarket<'a> {
        #[serde(borrow)]
        sport: Cow<'a, str>,
        #[serde(borrow)]
        market: Cow<'a, str>,
    }

    impl FromRequest for SportPath {
        type Error = ApiError;
        type Future = Ready<Result<Self, ApiError>>;
        fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
            if let Some(sport) = code(req, "sport", Sport::parse) {
                return ready(Ok(Self(sport)));
            }
            ready(segments::<RawSport>(req).and_then(|raw| Ok(Self(super::sport(&raw.sport)?))))
        }
    }

    impl FromRequest for SportModelPath {
        type Error = ApiError;
        type Future = Ready<Result<Self, ApiError>>;
        fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
            if let (Some(sport), Some(model_type)) = (
                code(req, "sport", Sport::parse),
                code(req, "model_type", ModelType::parse),
            ) {
                return ready(Ok(Self { sport, model_type }));
            }
            ready(segments::<RawSportModel>(req).and_then(|raw| {
                Ok(Self {
                    sport: super::sport(&raw.sport)?,
                    model_type: super::model_type(&raw.model_type)?,
                })
            }))
        }
    }

    impl FromRequest for SportMarketPath {
        type Error = ApiError;
        type Future = Ready<Result<Self, ApiError>>;
        fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
            if let (Some(sport), Some(market)) = (
                code(req, "sport", Sport::parse),
                code(req, "market", PublicMarket::parse),
            ) {
                return ready(Ok(Self { sport, market }));
            }
            ready(segments::<RawSportMarket>(req).and_then(|raw| {
                Ok(Self {
                    sport: super::sport(&raw.sport)?,
                    market: super::market(&raw.market)?,
                })
            }))
        }
    }

    impl FromRequest for DatePath {
        type Error = ApiError;
        type Future = Ready<Result<Self, ApiError>>;
        fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
            // A struct, not a map: actix's path deserializer refuses maps.
            ready(segments::<RawDate>(req).and_then(|raw| match (raw.date, raw.date_str) {
                (Some(value), _) => super::date("date", &value).map(Self),
                (None, Some(value)) => super::date("date_str", &value).map(Self),
                (None, None) => Err(ApiError::Internal("route declares no date segment".to_owned())),
            }))
        }
    }
}

pub use path::{DatePath, SportMarketPath, SportModelPath, SportPath};

/// The OpenAPI side of the path extractors: a route lists `params(SportModelPath)`
/// instead of repeating each segment's schema, description and example.
mod openapi {
    use linecast_domain::{ModelType, PublicMarket, Sport};
    use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
    use utoipa::openapi::{Ref, Required};

    use super::{SportMarketPath, SportModelPath, SportPath};

    /// A path segment; its description lists the allowed `codes`.
    fn segment(name: &str, schema: &str, codes: impl Iterator<Item = &'static str>, example: &str) -> Parameter {
        ParameterBuilder::new()
            .name(name)
            .parameter_in(ParameterIn::Path)
            .description(Some(codes.collect::<Vec<_>>().join(", ")))
            .required(Required::True)
            .schema(Some(Ref::from_schema_name(schema)))
            .example(Some(serde_json::Value::from(example)))
            .build()
    }

    fn sport() -> Parameter {
        segment("sport", "SportCode", Sport::ALL.iter().map(|s| s.code()), "nba")
    }

    impl utoipa::IntoParams for SportPath {
        fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
            vec![sport()]
        }
    }

    impl utoipa::IntoParams for SportModelPath {
        fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
            vec![
                sport(),
                segment(
                    "model_type",
                    "ModelTypeCode",
                    ModelType::ALL.iter().map(|m| m.code()),
                    "won_on_points",
                ),
            ]
        }
    }

    impl utoipa::IntoParams for SportMarketPath {
        fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
            vec![
                sport(),
                segment(
                    "market",
                    "MarketCode",
                    PublicMarket::ALL.iter().map(|m| m.code()),
                    "moneyline",
                ),
            ]
        }
    }
}

/// A JSON object body that may be absent: no body at all (no or zero
/// `Content-Length`, no chunked transfer) is `None`; anything else is read
/// by `web::Json` with the app's `JsonConfig` (size limit, content type,
/// error shape), so a malformed body stays a 400 and an oversized one a 413.
/// The body must be a JSON object: serde would otherwise accept `[]` for a
/// struct whose fields all have defaults.
#[derive(Debug)]
pub struct OptionalJson<T>(pub Option<T>);

impl<T: serde::de::DeserializeOwned + 'static> actix_web::FromRequest for OptionalJson<T> {
    type Error = actix_web::Error;
    type Future = futures::future::LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &actix_web::HttpRequest, payload: &mut actix_web::dev::Payload) -> Self::Future {
        use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
        let headers = req.headers();
        let declared_empty = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() == "0");
        let no_body =
            declared_empty || (!headers.contains_key(CONTENT_LENGTH) && !headers.contains_key(TRANSFER_ENCODING));
        if no_body {
            return Box::pin(async { Ok(OptionalJson(None)) });
        }
        let json = actix_web::web::Json::<serde_json::Value>::from_request(req, payload);
        Box::pin(async move {
            let value = json.await?.into_inner();
            // `null` is "no body", as the schema says.
            if value.is_null() {
                return Ok(OptionalJson(None));
            }
            if !value.is_object() {
                return Err(ApiError::BadRequest("Invalid JSON body: expected a JSON object".into()).into());
            }
            let body =
                serde_json::from_value(value).map_err(|e| ApiError::BadRequest(format!("Invalid JSON body: {e}")))?;
            Ok(OptionalJson(Some(body)))
        })
    }
}

/// `YYYY-MM-DD`, a real calendar date.
pub fn date(name: &str, value: &str) -> Result<NaiveDate, ApiError> {
    let valid_shape = value.len() == 10 && value.as_bytes()[4] == b'-' && value.as_bytes()[7] == b'-';
    valid_shape
        .then(|| NaiveDate::parse_from_str(value, "%Y-%m-%d").ok())
        .flatten()
        .ok_or_else(|| ApiError::invalid_param(name, value, "a calendar date formatted YYYY-MM-DD"))
}

/// Booleans as the original service accepted them: true/false, 1/0,
/// yes/no, on/off (case-insensitive). Absent gives `default`.
pub fn boolean(query: &RawQuery, name: &str, default: bool) -> Result<bool, ApiError> {
    let Some(raw) = query.get(name) else { return Ok(default) };
    match raw.to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(ApiError::invalid_param(name, raw, "true, false")),
    }
}

/// An optional RFC 3339 instant (`2026-11-20T14:00:00Z`, any offset); a
/// malformed one is a 400 naming the parameter.
pub fn instant(query: &RawQuery, name: &str) -> Result<Option<chrono::DateTime<chrono::Utc>>, ApiError> {
    query
        .get(name)
        .map(|raw| {
            chrono::DateTime::parse_from_rfc3339(raw)
                .map(|t| t.with_timezone(&chrono::Utc))
                .map_err(|_| ApiError::invalid_param(name, raw, "an RFC 3339 instant such as 2026-11-20T14:00:00Z"))
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The path extractors read segments as `web::Path` does: a plain
    /// segment as it is, an escape that survives actix's URL parse (`%2B`,
    /// `%2F`, `%25`) decoded, and a 400 naming the parameter quotes the
    /// decoded value.
    #[actix_web::test]
    async fn path_segments_are_read_and_decoded_like_web_path() {
        use actix_web::{App, test, web};
        let app = test::init_service(App::new().route(
            "/{sport}/{model_type}",
            web::get().to(|p: SportModelPath| async move { format!("{} {}", p.sport.code(), p.model_type.code()) }),
        ))
        .await;
        for (uri, status, expected) in [
            ("/nba/won_on_points", 200, "nba won_on_points"),
            ("/%6Eba/won%5Fon%5Fpoints", 200, "nba won_on_points"),
            ("/nba%2Bx/won_on_points", 400, "Invalid sport 'nba+x'"),
            ("/nba/won%2Fon", 400, "Invalid model_type 'won/on'"),
            ("/nba/100%25", 400, "Invalid model_type '100%'"),
        ] {
            let res = test::call_service(&app, test::TestRequest::get().uri(uri).to_request()).await;
            assert_eq!(res.status().as_u16(), status, "{uri}");
            let body = String::from_utf8(test::read_body(res).await.to_vec()).unwrap();
            assert!(body.contains(expected), "{uri}: {body}");
        }
    }

    #[test]
    fn booleans_accept_the_legacy_spellings_and_reject_others_naming_the_parameter() {
        let mut q = RawQuery::new();
        assert!(boolean(&q, "upcoming_only", true).unwrap());
        q.insert("upcoming_only".into(), "FALSE".into());
        assert!(!boolean(&q, "upcoming_only", true).unwrap());
        q.insert("upcoming_only".into(), "maybe".into());
        let err = boolean(&q, "upcoming_only", true).unwrap_err().to_string();
        assert!(
            err.contains("upcoming_only") && err.contains("maybe") && err.contains("true, false"),
            "{err}"
        );
    }

    proptest::proptest! {
        /// No input string makes a path or query parser panic, and every
        /// refusal names its parameter.
        #[test]
        fn parsers_never_panic_and_name_the_parameter(raw in ".{0,40}") {
            for (name, result) in [
                ("sport", sport(&raw).err()),
                ("model_type", model_type(&raw).err()),
                ("market", market(&raw).err()),
                ("date", date("date", &raw).err()),
            ] {
                if let Some(err) = result {
                    proptest::prop_assert!(err.to_string().contains(name));
                }
            }
            let mut q = RawQuery::new();
            q.insert("upcoming_only".into(), raw.clone());
            if let Err(err) = boolean(&q, "upcoming_only", true) {
                proptest::prop_assert!(err.to_string().contains("upcoming_only"));
            }
        }
    }

    #[test]
    fn the_first_occurrence_of_a_repeated_query_name_wins() {
        let q = RawQuery::parse("season=2025-26&limit=5&season=2024-25&limit=9").unwrap();
        assert_eq!(q.get("season").map(String::as_str), Some("2025-26"));
        assert_eq!(q.get("limit").map(String::as_str), Some("5"));
        let q = RawQuery::parse("upcoming_only=maybe&upcoming_only=true").unwrap();
        assert!(
            boolean(&q, "upcoming_only", true).is_err(),
            "the first value is the one read"
        );
        let q = RawQuery::parse("a+b=%41%2B").unwrap();
        assert_eq!(q.get("a b").map(String::as_str), Some("A+"));
    }

    #[test]
    fn dates_must_be_real_and_zero_padded() {
        assert!(date("date", "2026-02-28").is_ok());
        assert!(date("date", "2026-02-30").is_err());
        assert!(date("date", "2026-2-28").is_err());
        assert!(date("date", "20260228").is_err());
    }
}
