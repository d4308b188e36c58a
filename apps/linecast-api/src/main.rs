//! linecast-api: reads settings, starts telemetry, runs until SIGTERM/SIGINT
//! (actix drains in-flight requests on either signal).

use linecast_api::settings::Settings;
use linecast_api::startup::Application;
use linecast_api::telemetry;

fn main() -> anyhow::Result<()> {
    // Before any thread starts: the allocator's arenas are made per thread.
    let tuned = linecast_heap::tune_allocator();
    actix_web::rt::System::new().block_on(serve(tuned))
}

async fn serve(tuned: Vec<&'static str>) -> anyhow::Result<()> {
    let settings = Settings::load()?;
    telemetry::init(settings.log_format);
    tracing::debug!(?tuned, "allocator tuned");
    let app = Application::build(settings.clone()).await?;
    tracing::info!(bind = %settings.bind, port = app.port(), store = %settings.store_url, "linecast listening");
    app.run_until_stopped().await?;
    tracing::info!("linecast stopped");
    Ok(())
}
