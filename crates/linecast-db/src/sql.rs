//! Raw statements for the atomic upserts, written once with `?` placeholders
//! and numbered for PostgreSQL.

use sea_orm::{DbBackend, Statement, TransactionTrait, Value};

/// `groups` groups of `width` placeholders, comma separated: `(?, ?),
/// (?, ?)`, the rows of a multi-row `VALUES`.
pub(crate) fn placeholders(groups: usize, width: usize) -> String {
    let group = format!("({})", vec!["?"; width].join(", "));
    vec![group; groups].join(", ")
}

/// `sql` with `?` placeholders for `backend` (`$1, $2, ...` on PostgreSQL).
pub(crate) fn statement(backend: DbBackend, sql: &str, values: Vec<Value>) -> Statement {
    let sql = match backend {
        DbBackend::Postgres => {
            let mut out = String::with_capacity(sql.len() + 8);
            let mut n = 0;
            for c in sql.chars() {
                if c == '?' {
                    n += 1;
                    out.push('$');
                    out.push_str(&n.to_string());
                } else {
                    out.push(c);
                }
            }
            out
        }
        _ => sql.to_owned(),
    };
    Statement::from_sql_and_values(backend, sql, values)
}

/// Adds `excluded.requests` to the month's counter, creating it at need, and
/// returns the new total in the same statement.
pub(crate) const ADD_USAGE: &str = "INSERT INTO usage_counters (customer_id, month, requests) VALUES (?, ?, ?) \
     ON CONFLICT (customer_id, month) DO UPDATE SET requests = usage_counters.requests + excluded.requests \
     RETURNING requests";

/// Takes one refresh only while `used < limit`; the conflicting row is locked
/// by the upsert, so two callers cannot both take the last one. No row comes
/// back when the month is exhausted.
pub(crate) const CONSUME_REFRESH: &str = "INSERT INTO refresh_ledger (customer_id, month, used, last_consumed_at) \
     VALUES (?, ?, 1, ?) \
     ON CONFLICT (customer_id, month) DO UPDATE SET used = refresh_ledger.used + 1, \
     last_consumed_at = excluded.last_consumed_at WHERE refresh_ledger.used < ? \
     RETURNING used";

/// A transaction that holds the write lock from its first statement. On
/// SQLite a deferred transaction that reads before it writes can fail at
/// once with `SQLITE_BUSY` instead of waiting; elsewhere this is a plain `BEGIN`.
pub(crate) async fn begin_write(
    db: &sea_orm::DatabaseConnection,
) -> Result<sea_orm::DatabaseTransaction, sea_orm::DbErr> {
    db.begin_with_options(sea_orm::TransactionOptions {
        sqlite_transaction_mode: Some(sea_orm::SqliteTransactionMode::Immediate),
        ..sea_orm::TransactionOptions::default()
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_placeholders_are_numbered_in_order() {
        let stmt = statement(
            DbBackend::Postgres,
            "SELECT ?, ?, ?",
            vec![1i64.into(), 2i64.into(), 3i64.into()],
        );
        assert_eq!(stmt.sql, "SELECT $1, $2, $3");
    }

    #[test]
    fn sqlite_placeholders_are_left_as_question_marks() {
        let stmt = statement(DbBackend::Sqlite, "SELECT ?, ?", vec![1i64.into(), 2i64.into()]);
        assert_eq!(stmt.sql, "SELECT ?, ?");
    }
}
