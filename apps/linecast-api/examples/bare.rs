//! The benchmark ceiling: a bare actix-web handler returning precomputed
//! JSON bytes. `bench/load.sh` compares linecast against it in one run.
//!
//! Bodies, read once at start:
//! - `BARE_MANIFEST`: a file of `<path and query>\t<body file>[\t<gzip
//!   file>]` lines; a request whose path and query match a line gets that
//!   body, any other request the first body (so a mix of paths gets each
//!   path's own bytes); with a gzip file, a request accepting gzip gets
//!   those precomputed gzip bytes (`Content-Encoding: gzip`), as linecast
//!   serves its own;
//! - otherwise `BARE_BODY_FILE` (default `body.json`) for every request.
//!
//! `BARE_COMPRESS=1` wraps the app in actix's `Compress` middleware, which
//! compresses the identity bytes again on every request that accepts it
//! (the gzip files are not used); without it the bytes go out as they are:
//! the gzip file to a request accepting gzip, else the identity bytes. `BARE_BIND` is the address (default `127.0.0.1:18183`).

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::middleware::Compress;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};

/// One path's body, and its gzip bytes when the manifest names them.
#[derive(Clone)]
struct Body {
    identity: web::Bytes,
    gzip: Option<web::Bytes>,
}

struct Bodies {
    by_path: HashMap<String, Body>,
    default: Body,
}

impl Bodies {
    fn load() -> std::io::Result<Self> {
        let mut by_path = HashMap::new();
        let mut default = None;
        if let Ok(manifest) = std::env::var("BARE_MANIFEST") {
            for line in std::fs::read_to_string(&manifest)?.lines() {
                let mut fields = line.split('\t');
                let (Some(path), Some(file)) = (fields.next(), fields.next()) else {
                    continue;
                };
                let gzip = match fields.next() {
                    Some(gz) => Some(web::Bytes::from(std::fs::read(gz)?)),
                    None => None,
                };
                let body = Body {
                    identity: web::Bytes::from(std::fs::read(file)?),
                    gzip,
                };
                default.get_or_insert_with(|| body.clone());
                by_path.insert(path.to_owned(), body);
            }
        }
        let default = if let Some(body) = default {
            body
        } else {
            let path = std::env::var("BARE_BODY_FILE").unwrap_or_else(|_| "body.json".to_owned());
            Body {
                identity: web::Bytes::from(std::fs::read(&path)?),
                gzip: None,
            }
        };
        Ok(Self { by_path, default })
    }

    fn get(&self, req: &HttpRequest) -> &Body {
        let key = req.uri().path_and_query().map_or("", |p| p.as_str());
        self.by_path.get(key).unwrap_or(&self.default)
    }
}

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let bodies = Arc::new(Bodies::load()?);
    let compress = std::env::var("BARE_COMPRESS").is_ok_and(|v| v == "1" || v == "true");
    let bind = std::env::var("BARE_BIND").unwrap_or_else(|_| "127.0.0.1:18183".to_owned());
    println!(
        "bare: {} bodies, compression {}, on {bind}",
        bodies.by_path.len().max(1),
        if compress { "per request" } else { "off" }
    );
    let handler = move |req: HttpRequest| {
        let body = bodies.get(&req);
        // The compressing variant compresses identity bytes on every request.
        let accepts_gzip = !compress
            && req
                .headers()
                .get("accept-encoding")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.contains("gzip"));
        let response = match (&body.gzip, accepts_gzip) {
            (Some(gz), true) => HttpResponse::Ok()
                .content_type("application/json")
                .insert_header(("content-encoding", "gzip"))
                .body(gz.clone()),
            _ => HttpResponse::Ok()
                .content_type("application/json")
                .body(body.identity.clone()),
        };
        async move { response }
    };
    // Two apps rather than a `Condition`, so the plain one has no middleware at all.
    if compress {
        HttpServer::new(move || {
            App::new()
                .wrap(Compress::default())
                .default_service(web::to(handler.clone()))
        })
        .bind(bind)?
        .run()
        .await
    } else {
        HttpServer::new(move || App::new().default_service(web::to(handler.clone())))
            .bind(bind)?
            .run()
            .await
    }
}
