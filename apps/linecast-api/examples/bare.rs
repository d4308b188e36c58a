//! The benchmark ceiling: a bare actix-web handler returning a static JSON
//! body (read once from `BARE_BODY_FILE`) on every path, with the same
//! compression middleware as linecast. `bench/load.sh` compares linecast
//! against it in one run.

use actix_web::middleware::Compress;
use actix_web::{App, HttpResponse, HttpServer, web};

#[actix_web::main]
async fn main() -> std::io::Result<()> {
    let path = std::env::var("BARE_BODY_FILE").unwrap_or_else(|_| "body.json".to_owned());
    let body = web::Bytes::from(std::fs::read(&path)?);
    let bind = std::env::var("BARE_BIND").unwrap_or_else(|_| "127.0.0.1:18183".to_owned());
    HttpServer::new(move || {
        let body = body.clone();
        App::new().wrap(Compress::default()).default_service(web::to(move || {
            let body = body.clone();
            async move { HttpResponse::Ok().content_type("application/json").body(body) }
        }))
    })
    .bind(bind)?
    .run()
    .await
}
