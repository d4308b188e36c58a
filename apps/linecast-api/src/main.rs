//! linecast-api: reads settings, starts telemetry, runs until SIGTERM/SIGINT
//! (actix drains in-flight requests on either signal).

use linecast_api::settings::Settings;
use linecast_api::startup::Application;
use linecast_api::telemetry;

#[actix_web::main]
async fn main() -> anyhow::Result<()> {
    let settings = Settings::load()?;
    telemetry::init(settings.log_format);
    let app = Application::build(settings.clone()).await?;
    tracing::info!(bind = %settings.bind, port = app.port(), store = %settings.store_url, "linecast listening");
    app.run_until_stopped().await?;
    tracing::info!("linecast stopped");
    Ok(())
}
