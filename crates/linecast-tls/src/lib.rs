//! Which cryptography the process's TLS uses: rustls's `ring` provider.
//!
//! The HTTPS clients (object_store's S3 and GCS clients, the prediction
//! market's client) are reqwest clients built without a bundled provider,
//! so the build compiles one crypto library (ring, which the database
//! driver's TLS already needs) instead of two (ring and aws-lc, whose C
//! build alone is the longest step of a cold build). A reqwest client
//! built before a provider is installed panics, so every adapter that
//! builds one calls [`install`] first; it is idempotent and cheap.

/// Installs rustls's `ring` provider as the process default, unless a
/// provider is installed already (by an earlier call, or by an embedding
/// program that chose its own, which is then kept).
pub fn install() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Lost a race with another thread installing one: that one stays.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_provider_is_installed_once_and_kept() {
        super::install();
        let first = rustls::crypto::CryptoProvider::get_default().map(std::sync::Arc::as_ptr);
        assert!(first.is_some());
        super::install();
        let again = rustls::crypto::CryptoProvider::get_default().map(std::sync::Arc::as_ptr);
        assert_eq!(first, again);
    }
}
