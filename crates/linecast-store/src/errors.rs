//! Translation of object_store failures into the port's `StoreError`.

use linecast_core::StoreError;

/// A store call that outlived its bound, as the error object_store would
/// give, so the usual translation makes it Unavailable.
pub fn deadline_passed(bound: std::time::Duration) -> object_store::Error {
    object_store::Error::Generic {
        store: "linecast",
        source: format!("no answer from the store within {} ms", bound.as_millis()).into(),
    }
}

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
