//! The one place database errors become `AccountsError`, so no sqlx or
//! sea-orm type crosses the port.

use linecast_core::AccountsError;
use sea_orm::{DbErr, SqlErr};

/// Unique violations are conflicts, a missing parent row is `NotFound`, and
/// everything else (connection, pool, I/O, busy) is `Unavailable`.
pub(crate) fn db_err(err: DbErr) -> AccountsError {
    match err.sql_err() {
        Some(SqlErr::UniqueConstraintViolation(msg)) => AccountsError::Conflict(msg),
        Some(SqlErr::ForeignKeyConstraintViolation(_)) => AccountsError::NotFound,
        _ => match err {
            DbErr::RecordNotFound(_) => AccountsError::NotFound,
            other => AccountsError::Unavailable(other.to_string()),
        },
    }
}

/// A stored value that breaks the schema's rules (for example an unknown
/// status code): the data cannot be served, so it is reported as unavailable.
pub(crate) fn corrupt(what: impl std::fmt::Display) -> AccountsError {
    AccountsError::Unavailable(format!("corrupt accounts row: {what}"))
}
