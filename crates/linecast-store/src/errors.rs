//! Translation of object_store failures into the port's `StoreError`.

use linecast_core::StoreError;

/// NotFound stays NotFound (naming the contract key); every other failure
/// (refused connection, permission, 5xx, timeouts) is Unavailable.
pub fn from_object_store(object: &str, err: object_store::Error) -> StoreError {
    match err {
        object_store::Error::NotFound { .. } => StoreError::NotFound {
            object: object.to_owned(),
        },
        other => StoreError::Unavailable {
            reason: format!("{object}: {other}"),
        },
    }
}
