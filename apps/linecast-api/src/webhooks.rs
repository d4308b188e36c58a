//! Signed webhooks' wiring: the sender the settings ask for, the
//! endpoints' use case and this instance's delivery worker (its rounds and
//! the outbox's writers are linecast-runtime's `webhooks`).

use std::sync::Arc;

use linecast_core::ports::webhooks::{WebhookSender, WebhookStore};
use linecast_core::services::webhooks::{Deliverer, DeliverySettings, Endpoints};

use crate::settings::Settings;

/// The sender: the system resolver, or the tests' table.
pub fn sender(settings: &Settings) -> anyhow::Result<Arc<dyn WebhookSender>> {
    let lookup: Arc<dyn linecast_webhook_http::Lookup> = match &settings.webhook_lookup {
        Some(lookup) => lookup.clone(),
        None => Arc::new(linecast_webhook_http::SystemLookup),
    };
    let sender =
        linecast_webhook_http::HttpSender::new(lookup, settings.webhooks.allow_loopback, settings.webhooks.timeout)
            .map_err(anyhow::Error::msg)?;
    Ok(Arc::new(sender))
}

/// The endpoints' use case and this instance's delivery worker.
pub fn build(settings: &Settings, store: Arc<dyn WebhookStore>) -> anyhow::Result<(Arc<Endpoints>, Arc<Deliverer>)> {
    let sender = sender(settings)?;
    let endpoints = Arc::new(Endpoints::new(
        store.clone(),
        sender.clone(),
        linecast_runtime::webhooks::clock(),
    ));
    // A claim names its instance: the host and process, and a random part
    // so two processes of one host never share a name.
    let worker = format!(
        "{}-{}-{}",
        std::env::var("HOSTNAME").unwrap_or_else(|_| "linecast".to_owned()),
        std::process::id(),
        linecast_core::ports::webhooks::new_id("w")?
    );
    let deliverer = Arc::new(
        Deliverer::new(
            store,
            sender,
            linecast_runtime::webhooks::clock(),
            worker,
            DeliverySettings {
                schedule_scale: settings.webhooks.schedule_scale,
                lease: settings.webhooks.timeout * 4,
                ..DeliverySettings::default()
            },
        )
        .telling_disabled(Arc::new(linecast_runtime::webhooks::disabled_notice)),
    );
    Ok((endpoints, deliverer))
}
