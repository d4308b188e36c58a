//! linecast signer: the adapters behind core's `UrlSigner` port.
//!
//! - [`HmacSigner`] issues self-contained HMAC tokens for the embedded store;
//!   linecast serves them itself at `GET /api/v1/downloads/{token}` after
//!   [`HmacSigner::verify`].
//! - [`PresignSigner`] asks an object store (S3, GCS, Azure) for a presigned
//!   URL, so bucket downloads never pass through linecast.

mod hmac_signer;
mod presign;
mod token;

pub use hmac_signer::HmacSigner;
pub use presign::PresignSigner;
pub use token::{TokenError, VerifiedDownload};
