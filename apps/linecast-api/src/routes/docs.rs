//! The API's own description: the OpenAPI document (`GET /openapi.json`)
//! and Swagger UI reading it (`/docs/`). Rows of the route table like any
//! other (`Serving::Description`), left out of the document they serve.
//! Each body is fixed for the life of the process: rendered once, then
//! served as stored bytes with its validator and the coding asked for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use actix_web::http::header::{CONTENT_ENCODING, CONTENT_SECURITY_POLICY, HeaderValue, LOCATION};
use actix_web::{HttpRequest, HttpResponse, web};
use bytes::Bytes;

use crate::endpoint::row;
use crate::error::ApiError;
use crate::responses::Rendered;
use crate::routes::table;

/// The policy of every Swagger UI response. The page shares the portal's
/// origin (and, in production, its cookie's path), so it may run nothing
/// but Swagger UI's own files: its `index.html` has no inline script (the
/// configuration is the file `swagger-initializer.js`), so scripts are
/// `'self'` only. Swagger UI sets inline styles and draws icons from
/// `data:` images; it fetches `/openapi.json` and "try it out" calls from
/// the same origin; it is never framed.
pub const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
                       script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
                       form-action 'self'; frame-ancestors 'none'";

/// The OpenAPI document, rendered once at start (app data).
pub struct OpenApiDocument(pub Arc<Rendered>);

pub async fn openapi(req: HttpRequest, document: web::Data<OpenApiDocument>) -> Result<HttpResponse, ApiError> {
    Ok(document.0.respond(&req, row(&req)?.cache_control()))
}

/// `GET /docs`: Swagger UI's files are relative to `/docs/`.
pub async fn docs() -> HttpResponse {
    HttpResponse::MovedPermanently()
        .insert_header((LOCATION, "/docs/"))
        .insert_header((CONTENT_SECURITY_POLICY, CSP))
        .finish()
}

/// `GET /docs/`: Swagger UI's page.
pub async fn swagger_ui_index(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    swagger_file(&req, "index.html")
}

/// `GET /docs/{file}`: one of Swagger UI's files.
pub async fn swagger_ui_file(req: HttpRequest, file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    swagger_file(&req, &file)
}

/// `name`, one of the files Swagger UI ships, rendered the first time it
/// is asked for; 404 for any other name.
fn swagger_file(req: &HttpRequest, name: &str) -> Result<HttpResponse, ApiError> {
    type Files = Mutex<HashMap<String, Arc<Rendered>>>;
    static FILES: OnceLock<Files> = OnceLock::new();
    let row = row(req)?;
    let files = FILES.get_or_init(Files::default);
    let held = files.lock().unwrap_or_else(PoisonError::into_inner).get(name).cloned();
    let rendered = if let Some(rendered) = held {
        rendered
    } else {
        let Some(rendered) = render(name)? else {
            return Err(ApiError::NotFound(format!("No Swagger UI file {name}")));
        };
        // Only names Swagger UI ships get an entry: a few dozen at most.
        let rendered = Arc::new(rendered);
        files
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned(), Arc::clone(&rendered));
        rendered
    };
    let mut res = rendered.respond(req, row.cache_control());
    res.headers_mut()
        .insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    Ok(res)
}

/// The payload manual (docs/payloads.md), served beside Swagger UI so the
/// operations' descriptions link to it on every deployment.
pub const MANUAL: &str = "payloads.md";

/// Swagger UI's file `name`, configured to read `/openapi.json`, or the
/// payload manual.
fn render(name: &str) -> Result<Option<Rendered>, ApiError> {
    static CONFIG: OnceLock<Arc<utoipa_swagger_ui::Config<'static>>> = OnceLock::new();
    if name == MANUAL {
        return Ok(Some(Rendered::of_media_type(
            Bytes::from_static(include_str!("../../../../docs/payloads.md").as_bytes()),
            HeaderValue::from_static("text/markdown; charset=utf-8"),
        )));
    }
    let config = CONFIG.get_or_init(|| Arc::new(utoipa_swagger_ui::Config::from(table::OPENAPI.path)));
    let file = utoipa_swagger_ui::serve(name, Arc::clone(config))
        .map_err(|e| ApiError::Internal(format!("Swagger UI file {name}: {e}")))?;
    let Some(file) = file else {
        return Ok(None);
    };
    let content_type = HeaderValue::from_str(&file.content_type)
        .map_err(|e| ApiError::Internal(format!("Swagger UI file {name}: media type: {e}")))?;
    let bytes = Bytes::from(file.bytes.into_owned());
    Ok(Some(if file.gzpipped {
        Rendered::precompressed_as(bytes, content_type).with_header(CONTENT_ENCODING, HeaderValue::from_static("gzip"))
    } else if file.content_type.starts_with("image/") {
        Rendered::precompressed_as(bytes, content_type)
    } else {
        Rendered::of_media_type(bytes, content_type)
    }))
}
