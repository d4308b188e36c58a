//! A large body sent as slices of its one cached buffer.
//!
//! actix copies a body it is handed whole into the connection's write
//! buffer, so a connection sending a cached 17 MB export that way holds a
//! copy of it until the client has read it all. A [`Sliced`] body hands actix one
//! [`CHUNK`] at a time (`Bytes::slice`: a reference count, no copy) and
//! actix asks for the next only once its write buffer has drained, so what
//! one connection holds stays near one chunk however large the body is.
//! The length is known, so the response still carries `Content-Length`.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use actix_web::body::{BodySize, MessageBody};
use bytes::Bytes;
use linecast_core::services::slots::Slot;

/// Bytes handed to actix at a time.
pub const CHUNK: usize = 64 * 1024;

/// Bodies longer than this are sent sliced; shorter ones whole (one write).
pub const SLICE_ABOVE: usize = 2 * CHUNK;

/// A body sent in [`CHUNK`]-sized slices of one shared buffer, holding
/// `slot` (a download slot) until it is dropped: sent in full, or cut
/// short by the client or the stall timeout.
pub struct Sliced {
    bytes: Bytes,
    at: usize,
    _slot: Option<Slot>,
}

impl Sliced {
    pub fn new(bytes: Bytes, slot: Option<Slot>) -> Self {
        Self {
            bytes,
            at: 0,
            _slot: slot,
        }
    }
}

impl MessageBody for Sliced {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Sized(self.bytes.len() as u64)
    }

    fn poll_next(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        if this.at >= this.bytes.len() {
            return Poll::Ready(None);
        }
        let end = (this.at + CHUNK).min(this.bytes.len());
        let chunk = this.bytes.slice(this.at..end);
        this.at = end;
        Poll::Ready(Some(Ok(chunk)))
    }
}

#[cfg(test)]
mod tests {
    use linecast_core::services::slots::{SlotKind, Slots};

    use super::*;

    #[actix_rt::test]
    async fn slices_share_the_buffer_cover_it_in_order_and_free_the_slot_at_the_end() {
        let data: Vec<u8> = (0..(3 * CHUNK + 1000)).map(|i| (i % 251) as u8).collect();
        let bytes = Bytes::from(data.clone());
        let slots = Slots::in_process("large downloads", SlotKind::Download, 1, 5);
        let mut body = Sliced::new(bytes.clone(), slots.open(7).await.ok());
        assert_eq!(body.size(), BodySize::Sized(data.len() as u64));
        let mut sizes = Vec::new();
        let mut joined = Vec::new();
        while let Some(chunk) = futures::future::poll_fn(|cx| Pin::new(&mut body).poll_next(cx)).await {
            let chunk = chunk.unwrap_or_default();
            // A slice points into the one buffer: no copy was made.
            let offset = chunk.as_ptr() as usize - bytes.as_ptr() as usize;
            assert_eq!(offset, joined.len());
            sizes.push(chunk.len());
            joined.extend_from_slice(&chunk);
        }
        assert_eq!(sizes, vec![65_536, 65_536, 65_536, 1000]);
        assert_eq!(joined, data);
        assert_eq!(slots.held(7).await.unwrap(), 1, "held while the body lives");
        drop(body);
        assert_eq!(slots.held(7).await.unwrap(), 0);
    }
}
