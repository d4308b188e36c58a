//! `PinnedAccounts`: runs every database call on one long-lived runtime.
//!
//! actix-web gives each worker thread its own runtime. A pooled PostgreSQL
//! connection opened from a worker is bound to that worker's I/O driver, so
//! once the workers stop (graceful shutdown) such a connection fails with
//! "A Tokio 1.x context was found, but it is being shutdown" — exactly when
//! the final usage flush needs it, and a lost commit acknowledgement there
//! would double-count. Spawning each call on the runtime that built the
//! application keeps every connection on a runtime that outlives the workers.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::ports::billing::{BillingEvent, BillingLedger, BillingOutcome, PendingBilling, StripeLink};
use linecast_core::ports::sessions::{FlashRecord, PortalSessions, SessionRecord, SignInLink};
use linecast_core::ports::webhooks::{self, WebhookStore};
use linecast_core::{
    Accounts, AccountsError, ApiKeyRecord, AuditEntry, Customer, Day, Entitlement, KeyIssue, KeyIssued, Month,
    NewCustomer, SubscriptionStatus, UsageMeter,
};
use linecast_domain::Sport;
use tokio::runtime::Handle;

use crate::SeaAccounts;

/// The sea-orm adapter with every call spawned on `handle`.
#[derive(Debug, Clone)]
pub struct PinnedAccounts {
    inner: SeaAccounts,
    handle: Handle,
    /// Longest wait for one call; past it the call is `Unavailable`. A
    /// partitioned database (connections open, nothing answers) would
    /// otherwise hold the caller until TCP gives up.
    timeout: Option<std::time::Duration>,
}

impl PinnedAccounts {
    /// Pins `inner` to the runtime of `handle` (use the runtime that lives
    /// longest: the one `main` runs on).
    pub fn new(inner: SeaAccounts, handle: Handle) -> Self {
        Self {
            inner,
            handle,
            timeout: None,
        }
    }

    /// Bounds every call by `timeout`. A call that runs out is abandoned (its
    /// connection is dropped, not returned to the pool) and reported
    /// `Unavailable`, so a key check answers 503 instead of hanging.
    #[must_use]
    pub fn with_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// A counting write runs to its end: abandoning one whose commit may
    /// already have happened would leave the caller unsure whether to retry,
    /// and a retry could count twice. (The background flusher makes these
    /// calls, never a request.)
    async fn run_unbounded<T, F, Fut>(&self, f: F) -> Result<T, AccountsError>
    where
        T: Send + 'static,
        F: FnOnce(SeaAccounts) -> Fut,
        Fut: std::future::Future<Output = Result<T, AccountsError>> + Send + 'static,
    {
        self.handle
            .spawn(f(self.inner.clone()))
            .await
            .map_err(|e| AccountsError::Unavailable(format!("database task failed: {e}")))?
    }

    async fn run<T, F, Fut>(&self, f: F) -> Result<T, AccountsError>
    where
        T: Send + 'static,
        F: FnOnce(SeaAccounts) -> Fut,
        Fut: std::future::Future<Output = Result<T, AccountsError>> + Send + 'static,
    {
        let fut = f(self.inner.clone());
        let task = self.handle.spawn(fut);
        let joined = match self.timeout {
            None => task.await,
            Some(limit) => {
                let abort = task.abort_handle();
                if let Ok(joined) = tokio::time::timeout(limit, task).await {
                    joined
                } else {
                    abort.abort();
                    return Err(AccountsError::Unavailable(format!(
                        "the database did not answer within {} ms",
                        limit.as_millis()
                    )));
                }
            }
        };
        joined.map_err(|e| AccountsError::Unavailable(format!("database task failed: {e}")))?
    }
}

#[async_trait]
impl Accounts for PinnedAccounts {
    async fn create_customer(&self, new: NewCustomer, now: DateTime<Utc>) -> Result<Customer, AccountsError> {
        self.run(move |a| async move { a.create_customer(new, now).await })
            .await
    }
    async fn find_customer_by_email(&self, email: &str) -> Result<Option<Customer>, AccountsError> {
        let email = email.to_owned();
        self.run(move |a| async move { a.find_customer_by_email(&email).await })
            .await
    }
    async fn get_customer(&self, customer_id: i64) -> Result<Customer, AccountsError> {
        self.run(move |a| async move { a.get_customer(customer_id).await })
            .await
    }
    async fn list_customers(&self) -> Result<Vec<Customer>, AccountsError> {
        self.run(move |a| async move { a.list_customers().await }).await
    }
    async fn set_subscription(&self, email: &str, status: SubscriptionStatus) -> Result<Customer, AccountsError> {
        let email = email.to_owned();
        self.run(move |a| async move { a.set_subscription(&email, status).await })
            .await
    }
    async fn issue_key(&self, issue: KeyIssue, now: DateTime<Utc>) -> Result<KeyIssued, AccountsError> {
        self.run(move |a| async move { a.issue_key(issue, now).await }).await
    }
    async fn find_key_by_hash(&self, key_hash: &str) -> Result<Option<(ApiKeyRecord, Customer)>, AccountsError> {
        let key_hash = key_hash.to_owned();
        self.run(move |a| async move { a.find_key_by_hash(&key_hash).await })
            .await
    }
    async fn find_keys_by_hashes(&self, key_hashes: &[String]) -> Result<Vec<(ApiKeyRecord, Customer)>, AccountsError> {
        let key_hashes = key_hashes.to_vec();
        self.run(move |a| async move { a.find_keys_by_hashes(&key_hashes).await })
            .await
    }
    async fn list_keys(&self, customer_id: i64) -> Result<Vec<ApiKeyRecord>, AccountsError> {
        self.run(move |a| async move { a.list_keys(customer_id).await }).await
    }
    async fn rename_key(&self, key_id: i64, new_name: &str) -> Result<(), AccountsError> {
        let new_name = new_name.to_owned();
        self.run(move |a| async move { a.rename_key(key_id, &new_name).await })
            .await
    }
    async fn revoke_key(&self, key_id: i64, now: DateTime<Utc>) -> Result<(), AccountsError> {
        self.run(move |a| async move { a.revoke_key(key_id, now).await }).await
    }
    async fn set_key_expiry(&self, key_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError> {
        self.run(move |a| async move { a.set_key_expiry(key_id, at).await })
            .await
    }
    async fn touch_last_used(&self, key_ids: &[i64], now: DateTime<Utc>) -> Result<(), AccountsError> {
        let key_ids = key_ids.to_vec();
        self.run(move |a| async move { a.touch_last_used(&key_ids, now).await })
            .await
    }
    async fn audit(
        &self,
        customer_id: i64,
        key_id: Option<i64>,
        action: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<(), AccountsError> {
        let (action, detail) = (action.to_owned(), detail.to_owned());
        self.run(move |a| async move { a.audit(customer_id, key_id, &action, &detail, now).await })
            .await
    }
    async fn audit_log(&self, customer_id: i64) -> Result<Vec<AuditEntry>, AccountsError> {
        self.run(move |a| async move { a.audit_log(customer_id).await }).await
    }
    async fn grant_entitlement(
        &self,
        customer_id: i64,
        products: &[String],
        sports: &[Sport],
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<Entitlement, AccountsError> {
        let (products, sports) = (products.to_vec(), sports.to_vec());
        self.run(move |a| async move { a.grant_entitlement(customer_id, &products, &sports, expires_at).await })
            .await
    }
    async fn get_entitlement(&self, customer_id: i64) -> Result<Option<Entitlement>, AccountsError> {
        self.run(move |a| async move { a.get_entitlement(customer_id).await })
            .await
    }
    async fn ping(&self) -> Result<(), AccountsError> {
        self.run(move |a| async move { Accounts::ping(&a).await }).await
    }
}

#[async_trait]
impl UsageMeter for PinnedAccounts {
    async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
        self.run_unbounded(move |a| async move { a.add_usage(customer_id, month, n).await })
            .await
    }
    async fn add_usage_batch(&self, increments: &[(i64, Day, u64)]) -> Result<(), AccountsError> {
        let increments = increments.to_vec();
        self.run_unbounded(move |a| async move { a.add_usage_batch(&increments).await })
            .await
    }
    async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError> {
        self.run(move |a| async move { a.get_usage(customer_id, month).await })
            .await
    }
    async fn daily_usage(&self, customer_id: i64, from: Day, to: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        self.run(move |a| async move { a.daily_usage(customer_id, from, to).await })
            .await
    }
    async fn monthly_usage(
        &self,
        customer_id: i64,
        from: Month,
        to: Month,
    ) -> Result<Vec<(Month, u64)>, AccountsError> {
        self.run(move |a| async move { a.monthly_usage(customer_id, from, to).await })
            .await
    }
    async fn try_consume_refresh(
        &self,
        customer_id: i64,
        month: Month,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<Option<u32>, AccountsError> {
        self.run(move |a| async move { a.try_consume_refresh(customer_id, month, limit, now).await })
            .await
    }
    async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
        self.run(move |a| async move { a.refreshes_used(customer_id, month).await })
            .await
    }
}

#[async_trait]
impl BillingLedger for PinnedAccounts {
    // Bounded like any request: if the answer is lost after the commit,
    // Stripe's retry is a duplicate event id and changes nothing.
    async fn apply_billing(&self, event: &BillingEvent, now: DateTime<Utc>) -> Result<BillingOutcome, AccountsError> {
        let event = event.clone();
        self.run(move |a| async move { a.apply_billing(&event, now).await })
            .await
    }
    async fn link_stripe_customer(
        &self,
        email: &str,
        stripe_customer: &str,
        actor: &str,
        now: DateTime<Utc>,
    ) -> Result<StripeLink, AccountsError> {
        let (email, stripe_customer, actor) = (email.to_owned(), stripe_customer.to_owned(), actor.to_owned());
        self.run(move |a| async move { a.link_stripe_customer(&email, &stripe_customer, &actor, now).await })
            .await
    }
    async fn stripe_link(&self, customer_id: i64) -> Result<Option<StripeLink>, AccountsError> {
        self.run(move |a| async move { a.stripe_link(customer_id).await }).await
    }
    async fn pending_billing(&self) -> Result<PendingBilling, AccountsError> {
        self.run(move |a| async move { a.pending_billing().await }).await
    }
}

#[async_trait]
impl PortalSessions for PinnedAccounts {
    async fn create_link(&self, link: &SignInLink) -> Result<(), AccountsError> {
        let link = link.clone();
        self.run(move |a| async move { a.create_link(&link).await }).await
    }
    async fn consume_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError> {
        let token_hash = token_hash.to_owned();
        self.run(move |a| async move { a.consume_link(&token_hash, now).await })
            .await
    }
    async fn peek_link(&self, token_hash: &str, now: DateTime<Utc>) -> Result<Option<i64>, AccountsError> {
        let token_hash = token_hash.to_owned();
        self.run(move |a| async move { a.peek_link(&token_hash, now).await })
            .await
    }
    async fn start_session(&self, session: &SessionRecord) -> Result<(), AccountsError> {
        let session = session.clone();
        self.run(move |a| async move { a.start_session(&session).await }).await
    }
    async fn find_session(&self, id_hash: &str) -> Result<Option<SessionRecord>, AccountsError> {
        let id_hash = id_hash.to_owned();
        self.run(move |a| async move { a.find_session(&id_hash).await }).await
    }
    async fn touch_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let id_hash = id_hash.to_owned();
        self.run(move |a| async move { a.touch_session(&id_hash, now).await })
            .await
    }
    async fn end_session(&self, id_hash: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let id_hash = id_hash.to_owned();
        self.run(move |a| async move { a.end_session(&id_hash, now).await })
            .await
    }
    async fn put_flash(&self, flash: &FlashRecord) -> Result<(), AccountsError> {
        let flash = flash.clone();
        self.run(move |a| async move { a.put_flash(&flash).await }).await
    }
    async fn take_flash(&self, id_hash: &str, page: &str) -> Result<Option<FlashRecord>, AccountsError> {
        let (id_hash, page) = (id_hash.to_owned(), page.to_owned());
        self.run(move |a| async move { a.take_flash(&id_hash, &page).await })
            .await
    }
}

#[async_trait]
impl linecast_core::ports::releases::ReleaseLog for PinnedAccounts {
    async fn record(&self, release: &linecast_core::ports::releases::KeptRelease) -> Result<bool, AccountsError> {
        let release = release.clone();
        self.run(move |a| async move { linecast_core::ports::releases::ReleaseLog::record(&a, &release).await })
            .await
    }
    async fn releases(
        &self,
        series: linecast_core::ports::releases::Series,
    ) -> Result<Vec<linecast_core::ports::releases::KeptRelease>, AccountsError> {
        self.run(move |a| async move { linecast_core::ports::releases::ReleaseLog::releases(&a, series).await })
            .await
    }
    async fn forget_before(
        &self,
        before: DateTime<Utc>,
    ) -> Result<Vec<linecast_core::ports::releases::KeptRelease>, AccountsError> {
        self.run(move |a| async move { a.forget_before(before).await }).await
    }
    async fn index_games(
        &self,
        release: &linecast_core::ports::releases::KeptRelease,
        games: &[linecast_core::ports::releases::IndexedGame],
    ) -> Result<(), AccountsError> {
        let (release, games) = (release.clone(), games.to_vec());
        self.run(move |a| async move { a.index_games(&release, &games).await })
            .await
    }
    async fn game_releases(
        &self,
        series: linecast_core::ports::releases::Series,
        game_id: &str,
    ) -> Result<
        Vec<(
            linecast_core::ports::releases::KeptRelease,
            linecast_core::ports::releases::IndexedGame,
        )>,
        AccountsError,
    > {
        let game_id = game_id.to_owned();
        self.run(move |a| async move { a.game_releases(series, &game_id).await })
            .await
    }
    async fn unindexed(
        &self,
        series: linecast_core::ports::releases::Series,
    ) -> Result<Vec<linecast_core::ports::releases::KeptRelease>, AccountsError> {
        self.run(move |a| async move { a.unindexed(series).await }).await
    }
}

#[async_trait]
impl linecast_core::ports::ledger::LedgerBook for PinnedAccounts {
    async fn last_sealed(&self) -> Result<Option<(chrono::NaiveDate, String)>, AccountsError> {
        self.run(move |a| async move { linecast_core::ports::ledger::LedgerBook::last_sealed(&a).await })
            .await
    }
    async fn unlisted(
        &self,
        from: Option<DateTime<Utc>>,
        before: DateTime<Utc>,
    ) -> Result<Vec<linecast_core::ports::ledger::Entry>, AccountsError> {
        self.run(move |a| async move { linecast_core::ports::ledger::LedgerBook::unlisted(&a, from, before).await })
            .await
    }
    async fn seal(&self, day: &linecast_core::ports::ledger::Day) -> Result<bool, AccountsError> {
        let day = day.clone();
        self.run(move |a| async move { linecast_core::ports::ledger::LedgerBook::seal(&a, &day).await })
            .await
    }
    async fn day(&self, date: chrono::NaiveDate) -> Result<Option<linecast_core::ports::ledger::Day>, AccountsError> {
        self.run(move |a| async move { linecast_core::ports::ledger::LedgerBook::day(&a, date).await })
            .await
    }
    async fn roots(&self) -> Result<Vec<linecast_core::ports::ledger::DayRoot>, AccountsError> {
        self.run(move |a| async move { linecast_core::ports::ledger::LedgerBook::roots(&a).await })
            .await
    }
}

#[async_trait]
impl linecast_core::ports::request_log::RequestLogStore for PinnedAccounts {
    // The flush round's write runs to its end, like the usage batch: its
    // commit may have happened when a timeout would abandon it.
    async fn append_requests(
        &self,
        batch: std::sync::Arc<Vec<linecast_core::ports::request_log::LoggedRequest>>,
        cap_per_day: u64,
    ) -> Result<(), AccountsError> {
        self.run_unbounded(move |a| async move { a.append_requests(batch, cap_per_day).await })
            .await
    }
    async fn prune_requests(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        self.run(move |a| async move { a.prune_requests(before).await }).await
    }
    async fn requests_since(
        &self,
        customer_id: i64,
        since: DateTime<Utc>,
    ) -> Result<Vec<linecast_core::ports::request_log::RequestRow>, AccountsError> {
        self.run(move |a| async move { a.requests_since(customer_id, since).await })
            .await
    }
    async fn requests_offered(&self, customer_id: i64, from: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
        self.run(move |a| async move { a.requests_offered(customer_id, from).await })
            .await
    }
}

#[async_trait]
impl linecast_core::ports::webhooks::WebhookStore for PinnedAccounts {
    // Every call is bounded: a write abandoned after its commit leaves at
    // worst a claim that lapses (the delivery is claimed again, with the
    // same webhook-id) or a settled delivery the worker settles again.
    async fn create_endpoint(
        &self,
        new: webhooks::NewEndpoint,
        now: DateTime<Utc>,
    ) -> Result<webhooks::EndpointCreated, AccountsError> {
        self.run(move |a| async move { WebhookStore::create_endpoint(&a, new, now).await })
            .await
    }
    async fn endpoints(&self, customer_id: i64) -> Result<Vec<webhooks::Endpoint>, AccountsError> {
        self.run(move |a| async move { WebhookStore::endpoints(&a, customer_id).await })
            .await
    }
    async fn endpoint(&self, customer_id: i64, id: &str) -> Result<Option<webhooks::Endpoint>, AccountsError> {
        let id = id.to_owned();
        self.run(move |a| async move { WebhookStore::endpoint(&a, customer_id, &id).await })
            .await
    }
    async fn find_endpoint(&self, id: &str) -> Result<Option<webhooks::Endpoint>, AccountsError> {
        let id = id.to_owned();
        self.run(move |a| async move { WebhookStore::find_endpoint(&a, &id).await })
            .await
    }
    async fn update_endpoint(
        &self,
        customer_id: i64,
        id: &str,
        update: webhooks::EndpointUpdate,
        now: DateTime<Utc>,
    ) -> Result<webhooks::Endpoint, AccountsError> {
        let id = id.to_owned();
        self.run(move |a| async move { WebhookStore::update_endpoint(&a, customer_id, &id, update, now).await })
            .await
    }
    async fn delete_endpoint(&self, customer_id: i64, id: &str) -> Result<(), AccountsError> {
        let id = id.to_owned();
        self.run(move |a| async move { WebhookStore::delete_endpoint(&a, customer_id, &id).await })
            .await
    }
    async fn rotate_secret(
        &self,
        customer_id: i64,
        id: &str,
        new_secret: &str,
        previous_until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<webhooks::Endpoint, AccountsError> {
        let (id, new_secret) = (id.to_owned(), new_secret.to_owned());
        self.run(move |a| async move {
            WebhookStore::rotate_secret(&a, customer_id, &id, &new_secret, previous_until, now).await
        })
        .await
    }
    async fn disable_endpoint(&self, id: &str, reason: &str, now: DateTime<Utc>) -> Result<(), AccountsError> {
        let (id, reason) = (id.to_owned(), reason.to_owned());
        self.run(move |a| async move { WebhookStore::disable_endpoint(&a, &id, &reason, now).await })
            .await
    }
    async fn enqueue(&self, message: webhooks::NewMessage) -> Result<webhooks::Enqueued, AccountsError> {
        self.run(move |a| async move { WebhookStore::enqueue(&a, message).await })
            .await
    }
    async fn enqueue_to(
        &self,
        message: webhooks::NewMessage,
        endpoint_id: &str,
    ) -> Result<webhooks::Enqueued, AccountsError> {
        let endpoint_id = endpoint_id.to_owned();
        self.run(move |a| async move { WebhookStore::enqueue_to(&a, message, &endpoint_id).await })
            .await
    }
    async fn claim_due(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease: std::time::Duration,
        limit: u32,
    ) -> Result<Vec<webhooks::Claimed>, AccountsError> {
        let worker = worker.to_owned();
        self.run(move |a| async move { WebhookStore::claim_due(&a, &worker, now, lease, limit).await })
            .await
    }
    async fn record_attempt(
        &self,
        delivery_id: i64,
        attempt: webhooks::NewAttempt,
    ) -> Result<webhooks::Attempt, AccountsError> {
        self.run(move |a| async move { WebhookStore::record_attempt(&a, delivery_id, attempt).await })
            .await
    }
    async fn mark_delivered(&self, delivery_id: i64, at: DateTime<Utc>) -> Result<(), AccountsError> {
        self.run(move |a| async move { WebhookStore::mark_delivered(&a, delivery_id, at).await })
            .await
    }
    async fn reschedule(&self, delivery_id: i64, next_attempt_at: DateTime<Utc>) -> Result<(), AccountsError> {
        self.run(move |a| async move { WebhookStore::reschedule(&a, delivery_id, next_attempt_at).await })
            .await
    }
    async fn mark_failed(&self, delivery_id: i64) -> Result<(), AccountsError> {
        self.run(move |a| async move { WebhookStore::mark_failed(&a, delivery_id).await })
            .await
    }
    async fn attempts(
        &self,
        customer_id: i64,
        endpoint_id: &str,
        limit: u32,
    ) -> Result<Vec<webhooks::Attempt>, AccountsError> {
        let endpoint_id = endpoint_id.to_owned();
        self.run(move |a| async move { WebhookStore::attempts(&a, customer_id, &endpoint_id, limit).await })
            .await
    }
    async fn delivery(&self, customer_id: i64, delivery_id: i64) -> Result<Option<webhooks::Delivery>, AccountsError> {
        self.run(move |a| async move { WebhookStore::delivery(&a, customer_id, delivery_id).await })
            .await
    }
    async fn resend(
        &self,
        customer_id: i64,
        delivery_id: i64,
        now: DateTime<Utc>,
    ) -> Result<webhooks::Delivery, AccountsError> {
        self.run(move |a| async move { WebhookStore::resend(&a, customer_id, delivery_id, now).await })
            .await
    }
    async fn recover_since(
        &self,
        customer_id: i64,
        endpoint_id: &str,
        since: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<u64, AccountsError> {
        let endpoint_id = endpoint_id.to_owned();
        self.run(move |a| async move { WebhookStore::recover_since(&a, customer_id, &endpoint_id, since, now).await })
            .await
    }
    async fn prune_attempts(&self, before: DateTime<Utc>) -> Result<u64, AccountsError> {
        self.run(move |a| async move { WebhookStore::prune_attempts(&a, before).await })
            .await
    }
    async fn keys_expiring(
        &self,
        after: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> Result<Vec<ApiKeyRecord>, AccountsError> {
        self.run(move |a| async move { WebhookStore::keys_expiring(&a, after, until).await })
            .await
    }
}
