//! Who may call a key-gated route: the access decision for one request, and
//! the quota calendar. Owns the rules, in the order a request meets them:
//! a key must be presented (else 401 `API key required`); it must exist, match
//! have the key shape (prefix, length, alphabet: checked before any lookup),
//! exist, match in constant time and be usable (else 401 `Invalid or expired
//! API key`); the
//! key's and the customer's tiers must include API access (403); a
//! `Subscriber` route needs a subscription that grants access (`active` or
//! `trialing`, 403); counting that could
//! not be persisted for longer than the bound refuses (503); then the
//! per-key rate, a token bucket of `PER_SECOND_LIMIT` per second sustained
//! and bursts of up to the configured burst (429, not counted), the route's
//! per-customer slot if it holds one (open streams, large downloads:
//! `services::slots`; 429 with `Retry-After`, not counted; 503 when the
//! slot registry cannot decide), and the
//! monthly quota (429, not counted). A request that passes is counted
//! exactly once.
//!
//! The key directory (a cache in front of the accounts port) and the
//! limiter are ports; this module knows nothing of HTTP, headers or metrics
//! (it reports each limiter decision to an observer the caller supplies).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::key_material::KeyHash;
use crate::key_material::constant_time_eq;
use crate::ports::accounts::{AccountsError, ApiKeyRecord, Customer, SubscriptionStatus};
use crate::ports::key_directory::{KeyDirectory, KeyEntry};
use crate::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
use crate::quota_calendar::day_of;
pub use crate::quota_calendar::{month_of, next_month_start, next_reset};
use crate::{Clock, services::usage::UsageHealth};

/// What a gated route asks of its caller's key. Set where the route is
/// registered, never derived from the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Any valid key on a plan with API access, whatever the state of the
    /// subscription.
    AnyKey,
    /// A valid key of a customer whose subscription grants access (`active` or `trialing`).
    Subscriber,
}

/// Sustained calls per second per key (the spec's "50 requests per second").
pub const PER_SECOND_LIMIT: u32 = 50;

/// Default burst per key: calls a key may make at once after a quiet spell
/// (`LINECAST_RATE_BURST`).
pub const DEFAULT_BURST: u32 = 100;

/// The spec's per-key rate with a burst of `burst` (at least 1).
pub fn key_rate(burst: u32) -> Rate {
    Rate {
        per_second: PER_SECOND_LIMIT,
        burst: burst.max(1),
    }
}

/// Tiers that resolve to the `ai` product access.
pub const ACCEPTED_TIERS: [&str; 4] = ["ai", "data", "basic", "premium"];

/// Whether a key or customer of `tier` has API access (the one home of the
/// tier rule: [`ACCEPTED_TIERS`]).
pub fn tier_has_api_access(tier: &str) -> bool {
    ACCEPTED_TIERS.contains(&tier)
}

/// Whether `customer` is served on a route of `policy` by its account alone
/// (no key, no limit): its tier must have API access, and a `Subscriber`
/// route needs a subscription that grants access
/// ([`SubscriptionStatus::grants_access`]). The refusal is the one a
/// request would get.
pub fn serves(customer: &Customer, policy: Policy) -> Result<(), Refusal> {
    if !tier_has_api_access(&customer.tier) {
        return Err(Refusal::NoApiAccess {
            tier: customer.tier.clone(),
        });
    }
    subscription_serves(customer, policy)
}

/// The subscription half of [`serves`].
fn subscription_serves(customer: &Customer, policy: Policy) -> Result<(), Refusal> {
    if policy == Policy::Subscriber && !customer.api_subscription_status.grants_access() {
        return Err(Refusal::NoSubscription {
            status: customer.api_subscription_status,
        });
    }
    Ok(())
}

/// An admitted request.
#[derive(Debug, Clone)]
pub struct Grant {
    pub entry: KeyEntry,
    /// Requests counted this month, this one included.
    pub month_used: u64,
    /// The data clock's reading the request was decided at: the month it
    /// was counted in is the month of this instant.
    pub at: DateTime<Utc>,
    /// The key's rate bucket after this request.
    pub bucket: Bucket,
}

/// A key's rate bucket as the rate-limit headers report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    /// Calls the key could make right now.
    pub remaining: u32,
    /// Whole seconds until the bucket is full again.
    pub full_in_secs: u64,
}

impl Grant {
    pub fn key(&self) -> &ApiKeyRecord {
        &self.entry.0
    }

    pub fn customer(&self) -> &Customer {
        &self.entry.1
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No key presented.
    MissingKey,
    /// Unknown, revoked or expired key.
    InvalidKey,
    /// The key's or the customer's plan has no API access.
    NoApiAccess {
        tier: String,
    },
    /// The route needs an active subscription.
    NoSubscription {
        status: SubscriptionStatus,
    },
    /// Counting has not reached the database for longer than the bound.
    UsageStale {
        lag: Duration,
    },
    /// The accounts database or the limiter is unreachable.
    Unavailable {
        cause: String,
    },
    TooManyPerSecond {
        retry_after_secs: u64,
        /// The bucket refused: its sustained rate and burst.
        rate: Rate,
    },
    QuotaExhausted {
        limit: u64,
        retry_after_secs: u64,
    },
    /// The route's per-customer slots are all held (open event streams,
    /// large downloads in flight): 429, not counted.
    Busy(crate::services::slots::Full),
}

impl From<AccountsError> for Refusal {
    fn from(err: AccountsError) -> Self {
        Refusal::Unavailable { cause: err.to_string() }
    }
}

/// Which limiter decided what: (`second` | `month`, `allowed` | `refused` | `error`).
pub type DecisionObserver = Arc<dyn Fn(&'static str, &'static str) + Send + Sync>;

/// The access decision over its ports.
pub struct Access {
    keys: Arc<dyn KeyDirectory>,
    limiter: Arc<dyn Limiter>,
    /// The per-key rate (`key_rate`).
    rate: Rate,
    /// The data clock (quota months, key expiry).
    clock: Arc<dyn Clock>,
    /// The clock of the per-second windows: the system clock even when the
    /// data clock is frozen (a frozen second would allow 50 requests ever).
    rate_clock: Arc<dyn Clock>,
    usage_health: Arc<UsageHealth>,
    observer: DecisionObserver,
    /// Keys used since the last `take_used_keys`.
    used_keys: Mutex<foldhash::HashSet<i64>>,
}

impl Access {
    pub fn new(
        keys: Arc<dyn KeyDirectory>,
        limiter: Arc<dyn Limiter>,
        rate: Rate,
        clock: Arc<dyn Clock>,
        rate_clock: Arc<dyn Clock>,
        usage_health: Arc<UsageHealth>,
        observer: DecisionObserver,
    ) -> Self {
        Self {
            keys,
            limiter,
            rate,
            clock,
            rate_clock,
            usage_health,
            observer,
            used_keys: Mutex::new(foldhash::HashSet::default()),
        }
    }

    /// The per-key rate this decision applies.
    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// Takes the set of keys used since the last call (for `last_used_at`).
    pub fn take_used_keys(&self) -> Vec<i64> {
        self.used_keys
            .lock()
            .map(|mut s| s.drain().collect())
            .unwrap_or_default()
    }

    /// The key checks alone, in their order: presented, key-shaped, known,
    /// equal in constant time, usable at `now` and on a plan with API
    /// access. No limit is touched and nothing is counted: the portal's
    /// sign-in and sessions use this, the API's requests
    /// [`Access::authenticate`], which starts with it.
    pub async fn check_key(&self, presented: Option<&str>, now: DateTime<Utc>) -> Result<KeyEntry, Refusal> {
        let presented = presented.ok_or(Refusal::MissingKey)?;
        // A string that cannot be a key costs no lookup.
        let hash = KeyHash::of_key(presented).ok_or(Refusal::InvalidKey)?;
        self.check_hash(hash.as_str(), now).await
    }

    /// [`Access::check_key`] for a key known by its hash (a portal session
    /// remembers the hash of the key it was started with).
    pub async fn check_hash(&self, hash: &str, now: DateTime<Utc>) -> Result<KeyEntry, Refusal> {
        let entry = match self.keys.held(hash) {
            Some(held) => held,
            None => self.keys.lookup(hash).await?,
        }
        .ok_or(Refusal::InvalidKey)?;
        let (key, customer) = (&entry.0, &entry.1);
        // The lookup is by hash; compare again in constant time so a cache or
        // index quirk can never admit a different key.
        if !constant_time_eq(key.key_hash.as_bytes(), hash.as_bytes()) || !key.is_usable(now) {
            return Err(Refusal::InvalidKey);
        }
        if !tier_has_api_access(&key.tier) || !tier_has_api_access(&customer.tier) {
            return Err(Refusal::NoApiAccess { tier: key.tier.clone() });
        }
        Ok(entry)
    }

    /// The data clock (key expiry, quota months).
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// Decides one request presenting `presented` (the full key, if any) on a
    /// route of `policy`; see the module docs for the order of the checks.
    pub async fn authenticate(&self, presented: Option<&str>, policy: Policy) -> Result<Grant, Refusal> {
        self.authenticate_admitting(presented, policy, |_| std::future::ready(Ok(())))
            .await
            .map(|(grant, ())| grant)
    }

    /// [`Access::authenticate`], with `admit` run once the key, its plan and
    /// its per-second rate have passed and before the request is counted:
    /// a route that holds a per-customer slot (a stream, a large download)
    /// takes it there, so a refusal for a full cap costs no quota. A
    /// registry that cannot decide refuses as `Unavailable` (503).
    pub async fn authenticate_admitting<A, F>(
        &self,
        presented: Option<&str>,
        policy: Policy,
        admit: impl FnOnce(&Customer) -> F,
    ) -> Result<(Grant, A), Refusal>
    where
        F: std::future::Future<Output = Result<A, crate::services::slots::NoSlot>>,
    {
        let now = self.clock.now();
        let entry = self.check_key(presented, now).await?;
        self.decide(entry, policy, now, admit).await
    }

    /// Everything after the key check: see the module docs.
    async fn decide<A, F>(
        &self,
        entry: KeyEntry,
        policy: Policy,
        now: DateTime<Utc>,
        admit: impl FnOnce(&Customer) -> F,
    ) -> Result<(Grant, A), Refusal>
    where
        F: std::future::Future<Output = Result<A, crate::services::slots::NoSlot>>,
    {
        let (key, customer) = (&entry.0, &entry.1);
        subscription_serves(customer, policy)?;
        if self.usage_health.is_stale() {
            return Err(Refusal::UsageStale {
                lag: self.usage_health.lag(),
            });
        }
        let unavailable = |e: LimitsError| Refusal::Unavailable { cause: e.to_string() };
        let rate_now = self.rate_clock.now();
        let rate = match self.limiter.check_rate_at_once(key.id, self.rate, rate_now) {
            Some(decided) => decided,
            None => self.limiter.check_rate(key.id, self.rate, rate_now).await,
        };
        let bucket = match rate
            .inspect_err(|_| (self.observer)("second", "error"))
            .map_err(unavailable)?
        {
            RateDecision::Allowed {
                remaining,
                full_in_secs,
            } => Bucket {
                remaining,
                full_in_secs,
            },
            RateDecision::Refused { retry_after_secs } => {
                (self.observer)("second", "refused");
                return Err(Refusal::TooManyPerSecond {
                    retry_after_secs: retry_after_secs.max(1),
                    rate: self.rate,
                });
            }
        };
        (self.observer)("second", "allowed");
        let admitted = admit(customer).await.map_err(|no| match no {
            crate::services::slots::NoSlot::Full(full) => Refusal::Busy(full),
            crate::services::slots::NoSlot::Unavailable(e) => unavailable(e),
        })?;
        let (customer_id, day, limit) = (customer.customer_id, day_of(now), customer.monthly_limit);
        let month = match self.limiter.try_count_month_at_once(customer_id, day, limit) {
            Some(counted) => counted,
            None => self.limiter.try_count_month(customer_id, day, limit).await,
        }
        .inspect_err(|_| (self.observer)("month", "error"))
        .map_err(unavailable)?;
        let month_used = match month {
            MonthDecision::Counted { used } => used,
            MonthDecision::Exhausted { .. } => {
                (self.observer)("month", "refused");
                return Err(Refusal::QuotaExhausted {
                    limit: customer.monthly_limit,
                    retry_after_secs: (next_reset(now) - now).num_seconds().max(1) as u64,
                });
            }
            // The rest of the month sits in other instances' leases, which
            // give it back when idle: retry soon, not next month.
            MonthDecision::Held { retry_after_secs, .. } => {
                (self.observer)("month", "refused");
                return Err(Refusal::QuotaExhausted {
                    limit: customer.monthly_limit,
                    retry_after_secs: retry_after_secs.max(1),
                });
            }
        };
        (self.observer)("month", "allowed");
        self.used_keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.id);
        Ok((
            Grant {
                entry,
                month_used,
                at: now,
                bucket,
            },
            admitted,
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use async_trait::async_trait;
    use chrono::{DateTime, TimeZone, Utc};

    use super::*;
    use crate::FixedClock;
    use crate::ports::accounts::Accounts;
    use crate::services::keys::Keys;
    use crate::testing::{MemoryAccounts, MemoryLimiter};

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap()
    }

    /// The directory twin: straight to the accounts port, no cache.
    struct Direct(Arc<MemoryAccounts>);

    #[async_trait]
    impl KeyDirectory for Direct {
        async fn lookup(&self, key_hash: &str) -> Result<Option<KeyEntry>, AccountsError> {
            Ok(self.0.find_key_by_hash(key_hash).await?.map(Arc::new))
        }

        async fn forget(&self, _key_hash: &str) {}
    }

    struct World {
        accounts: Arc<MemoryAccounts>,
        limiter: Arc<MemoryLimiter>,
        health: Arc<UsageHealth>,
        access: Access,
        decisions: Arc<Mutex<Vec<String>>>,
    }

    fn world() -> World {
        world_with(Duration::from_hours(1))
    }

    fn world_with(stale_after: Duration) -> World {
        let accounts = Arc::new(MemoryAccounts::new());
        let limiter = Arc::new(MemoryLimiter::new());
        let health = Arc::new(UsageHealth::new(stale_after));
        let decisions = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&decisions);
        let clock: Arc<dyn Clock> = Arc::new(FixedClock(now()));
        let access = Access::new(
            Arc::new(Direct(Arc::clone(&accounts))),
            limiter.clone(),
            key_rate(DEFAULT_BURST),
            Arc::clone(&clock),
            clock,
            Arc::clone(&health),
            Arc::new(move |limiter, decision| seen.lock().unwrap().push(format!("{limiter}:{decision}"))),
        );
        World {
            accounts,
            limiter,
            health,
            access,
            decisions,
        }
    }

    async fn customer_with_key(w: &World, tier: &str, status: SubscriptionStatus, limit: u64) -> (Customer, String) {
        let email = format!("{tier}-{status}@example.com");
        let customer = w
            .accounts
            .seed_customer(&email, tier, status, limit, now())
            .await
            .unwrap();
        let keys = Keys::new(w.accounts.clone(), 10);
        let key = keys.issue(&customer, "k", None, "test", now()).await.unwrap().key;
        (customer, key)
    }

    #[tokio::test]
    async fn a_request_without_a_key_or_with_an_unknown_or_revoked_one_is_refused_as_unauthenticated() {
        let w = world();
        assert_eq!(
            w.access.authenticate(None, Policy::AnyKey).await.unwrap_err(),
            Refusal::MissingKey
        );
        let unknown = format!("sk_service_{}", "a".repeat(40));
        assert_eq!(
            w.access.authenticate(Some(&unknown), Policy::AnyKey).await.unwrap_err(),
            Refusal::InvalidKey
        );
        let (customer, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        let record = w.accounts.list_keys(customer.customer_id).await.unwrap().remove(0);
        w.accounts.revoke_key(record.id, now()).await.unwrap();
        assert_eq!(
            w.access.authenticate(Some(&key), Policy::AnyKey).await.unwrap_err(),
            Refusal::InvalidKey
        );
    }

    #[tokio::test]
    async fn an_account_is_served_by_its_tier_and_on_subscriber_routes_by_its_subscription() {
        let w = world();
        let (active, _) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        let (trialing, _) = customer_with_key(&w, "data", SubscriptionStatus::Trialing, 10).await;
        let (lapsed, _) = customer_with_key(&w, "ai", SubscriptionStatus::PastDue, 10).await;
        let (free, _) = customer_with_key(&w, "free", SubscriptionStatus::Active, 10).await;
        for served in [&active, &trialing] {
            assert_eq!(serves(served, Policy::Subscriber), Ok(()));
        }
        assert_eq!(serves(&lapsed, Policy::AnyKey), Ok(()));
        assert_eq!(
            serves(&lapsed, Policy::Subscriber),
            Err(Refusal::NoSubscription {
                status: SubscriptionStatus::PastDue
            })
        );
        for policy in [Policy::AnyKey, Policy::Subscriber] {
            assert_eq!(serves(&free, policy), Err(Refusal::NoApiAccess { tier: "free".into() }));
        }
    }

    #[tokio::test]
    async fn a_plan_without_api_access_is_forbidden_before_any_limit_is_touched() {
        let w = world();
        let (_, key) = customer_with_key(&w, "free", SubscriptionStatus::Active, 10).await;
        assert_eq!(
            w.access.authenticate(Some(&key), Policy::AnyKey).await.unwrap_err(),
            Refusal::NoApiAccess { tier: "free".into() }
        );
        assert!(w.decisions.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_lapsed_subscription_passes_any_key_routes_but_not_subscriber_routes() {
        let w = world();
        let (_, key) = customer_with_key(&w, "premium", SubscriptionStatus::PastDue, 10).await;
        assert_eq!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::NoSubscription {
                status: SubscriptionStatus::PastDue
            }
        );
        let grant = w.access.authenticate(Some(&key), Policy::AnyKey).await.unwrap();
        assert_eq!(grant.month_used, 1);
    }

    /// Stripe's trial is a subscription that serves; a paused one does not.
    #[tokio::test]
    async fn a_trialing_subscription_serves_and_a_paused_one_does_not() {
        let w = world();
        let (_, trial) = customer_with_key(&w, "ai", SubscriptionStatus::Trialing, 10).await;
        assert!(w.access.authenticate(Some(&trial), Policy::Subscriber).await.is_ok());
        let (_, paused) = customer_with_key(&w, "ai", SubscriptionStatus::Paused, 10).await;
        assert_eq!(
            w.access
                .authenticate(Some(&paused), Policy::Subscriber)
                .await
                .unwrap_err(),
            Refusal::NoSubscription {
                status: SubscriptionStatus::Paused
            }
        );
    }

    #[tokio::test]
    async fn a_full_slot_cap_refuses_with_retry_after_and_counts_nothing() {
        let w = world();
        let (customer, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        let slots =
            crate::services::slots::Slots::in_process("event streams", crate::services::slots::SlotKind::Stream, 1, 15);
        let (grant, held) = w
            .access
            .authenticate_admitting(Some(&key), Policy::AnyKey, |c| slots.open(c.customer_id))
            .await
            .unwrap();
        assert_eq!(grant.month_used, 1);
        let refused = w
            .access
            .authenticate_admitting(Some(&key), Policy::AnyKey, |c| slots.open(c.customer_id))
            .await
            .unwrap_err();
        assert_eq!(
            refused,
            Refusal::Busy(crate::services::slots::Full {
                what: "event streams",
                cap: 1,
                retry_after_secs: 15
            })
        );
        assert_eq!(
            w.limiter.month_usage(customer.customer_id, (2026, 11)).await.unwrap(),
            1,
            "the refusal was not counted"
        );
        drop(held);
        let (grant, _held) = w
            .access
            .authenticate_admitting(Some(&key), Policy::AnyKey, |c| slots.open(c.customer_id))
            .await
            .unwrap();
        assert_eq!(grant.month_used, 2);
        // An unknown key never reaches the slots.
        let unknown = format!("sk_service_{}", "b".repeat(40));
        let before = slots.held(customer.customer_id).await.unwrap();
        let refused = w
            .access
            .authenticate_admitting(Some(&unknown), Policy::AnyKey, |c| slots.open(c.customer_id))
            .await
            .unwrap_err();
        assert_eq!(refused, Refusal::InvalidKey);
        assert_eq!(slots.held(customer.customer_id).await.unwrap(), before);
    }

    /// A slot registry that cannot decide (Redis down) refuses with
    /// `Unavailable` (a 503), never admits, and counts nothing.
    #[tokio::test]
    async fn a_slot_registry_that_cannot_decide_refuses_as_unavailable_and_counts_nothing() {
        let w = world();
        let (customer, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        let refused = w
            .access
            .authenticate_admitting(Some(&key), Policy::AnyKey, |_| async {
                Err::<(), _>(crate::services::slots::NoSlot::Unavailable(LimitsError::Unavailable(
                    "redis: connection refused".to_owned(),
                )))
            })
            .await
            .unwrap_err();
        assert!(matches!(refused, Refusal::Unavailable { .. }), "{refused:?}");
        assert_eq!(
            w.limiter.month_usage(customer.customer_id, (2026, 11)).await.unwrap(),
            0,
            "the refusal was not counted"
        );
    }

    #[tokio::test]
    async fn an_exhausted_quota_refuses_until_the_next_utc_month_and_counts_nothing() {
        let w = world();
        let (customer, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 2).await;
        for used in [1, 2] {
            let grant = w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap();
            assert_eq!(grant.month_used, used);
        }
        // 2026-11-22T12:00Z to 2026-12-01T00:00Z is 8.5 days.
        assert_eq!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::QuotaExhausted {
                limit: 2,
                retry_after_secs: 734_400
            }
        );
        assert_eq!(
            w.limiter.month_usage(customer.customer_id, (2026, 11)).await.unwrap(),
            2
        );
        assert_eq!(w.access.take_used_keys().len(), 1);
    }

    #[tokio::test]
    async fn stale_usage_and_an_unreachable_limiter_are_unavailable_never_unauthenticated() {
        let w = world();
        let (_, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        w.limiter.set_down(true);
        assert!(matches!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::Unavailable { .. }
        ));
        assert_eq!(w.decisions.lock().unwrap().as_slice(), ["second:error"]);
        w.accounts.set_down(true);
        assert!(matches!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::Unavailable { .. }
        ));
    }

    #[tokio::test]
    async fn counting_that_has_not_reached_the_database_past_the_bound_refuses_until_a_good_flush() {
        let w = world_with(Duration::from_millis(200));
        let (_, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert!(matches!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::UsageStale { .. }
        ));
        assert!(w.decisions.lock().unwrap().is_empty(), "nothing was counted");
        w.health.succeeded();
        assert!(w.access.authenticate(Some(&key), Policy::Subscriber).await.is_ok());
    }

    /// With every refusal applying at once, the first in the order wins:
    /// key, tier, subscription, usage staleness, limiter reachability, the
    /// per-second limit, then the monthly quota. Each step removes one cause.
    #[tokio::test]
    async fn refusals_come_in_a_fixed_order_when_several_apply() {
        let w = world_with(Duration::from_millis(30));
        let (_, free) = customer_with_key(&w, "free", SubscriptionStatus::PastDue, 0).await;
        let (_, lapsed) = customer_with_key(&w, "ai", SubscriptionStatus::PastDue, 0).await;
        let (_, active) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 0).await;
        tokio::time::sleep(Duration::from_millis(40)).await;
        w.limiter.set_down(true);
        let refusal = |key: Option<String>| {
            let access = &w.access;
            async move {
                access
                    .authenticate(key.as_deref(), Policy::Subscriber)
                    .await
                    .unwrap_err()
            }
        };
        assert_eq!(refusal(None).await, Refusal::MissingKey);
        assert_eq!(refusal(Some(free)).await, Refusal::NoApiAccess { tier: "free".into() });
        assert_eq!(
            refusal(Some(lapsed)).await,
            Refusal::NoSubscription {
                status: SubscriptionStatus::PastDue
            }
        );
        assert!(matches!(refusal(Some(active)).await, Refusal::UsageStale { .. }));
        assert!(w.decisions.lock().unwrap().is_empty(), "no limiter was asked yet");

        // Fresh usage, limiter still down: unavailable before any limit.
        let w = world();
        let (customer, first) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 100).await;
        w.limiter.set_down(true);
        assert!(matches!(
            w.access
                .authenticate(Some(&first), Policy::Subscriber)
                .await
                .unwrap_err(),
            Refusal::Unavailable { .. }
        ));
        w.limiter.set_down(false);
        for _ in 0..100 {
            w.access.authenticate(Some(&first), Policy::Subscriber).await.unwrap();
        }
        // Both the burst and the month are used up: the burst answers.
        assert_eq!(
            w.access
                .authenticate(Some(&first), Policy::Subscriber)
                .await
                .unwrap_err(),
            Refusal::TooManyPerSecond {
                retry_after_secs: 1,
                rate: Rate {
                    per_second: 50,
                    burst: 100
                },
            }
        );
        // Another key of the same customer has its own bucket: the month answers.
        let second = Keys::new(w.accounts.clone(), 10)
            .issue(&customer, "k2", None, "test", now())
            .await
            .unwrap()
            .key;
        assert!(matches!(
            w.access
                .authenticate(Some(&second), Policy::Subscriber)
                .await
                .unwrap_err(),
            Refusal::QuotaExhausted { limit: 100, .. }
        ));
    }

    #[tokio::test]
    async fn a_key_gets_its_burst_of_one_hundred_at_once_then_is_refused_and_the_grant_reports_the_bucket() {
        let w = world();
        let (_, key) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 1000).await;
        let first = w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap();
        assert_eq!(first.bucket.remaining, 99);
        for _ in 1..100 {
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap();
        }
        assert_eq!(
            w.access.authenticate(Some(&key), Policy::Subscriber).await.unwrap_err(),
            Refusal::TooManyPerSecond {
                retry_after_secs: 1,
                rate: Rate {
                    per_second: 50,
                    burst: 100
                },
            }
        );
        assert_eq!(
            w.access.rate(),
            Rate {
                per_second: 50,
                burst: 100
            }
        );
    }

    /// Counts lookups that reach the directory.
    struct Counting(Arc<MemoryAccounts>, std::sync::atomic::AtomicUsize);

    #[async_trait]
    impl KeyDirectory for Counting {
        async fn lookup(&self, key_hash: &str) -> Result<Option<KeyEntry>, AccountsError> {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(self.0.find_key_by_hash(key_hash).await?.map(Arc::new))
        }

        async fn forget(&self, _key_hash: &str) {}
    }

    #[tokio::test]
    async fn a_string_without_the_key_shape_is_refused_without_a_lookup() {
        let accounts = Arc::new(MemoryAccounts::new());
        let directory = Arc::new(Counting(
            Arc::clone(&accounts),
            std::sync::atomic::AtomicUsize::default(),
        ));
        let clock: Arc<dyn Clock> = Arc::new(FixedClock(now()));
        let access = Access::new(
            directory.clone(),
            Arc::new(MemoryLimiter::new()),
            key_rate(DEFAULT_BURST),
            Arc::clone(&clock),
            clock,
            Arc::new(UsageHealth::new(Duration::from_hours(1))),
            Arc::new(|_, _| {}),
        );
        let forty = "a".repeat(40);
        for bad in [
            "x".to_owned(),
            format!("sk_live_{forty}"),
            format!("sk_service_{}", "a".repeat(31)),
            format!("sk_service_{}", "a".repeat(65)),
            format!("sk_service_{}-", "a".repeat(39)),
            format!("sk_service_{}é", "a".repeat(39)),
            format!("SK_SERVICE_{forty}"),
        ] {
            assert_eq!(
                access.authenticate(Some(&bad), Policy::AnyKey).await.unwrap_err(),
                Refusal::InvalidKey,
                "{bad}"
            );
        }
        assert_eq!(directory.1.load(std::sync::atomic::Ordering::SeqCst), 0);
        // A well-shaped unknown key is looked up (and refused).
        let unknown = format!("sk_service_{forty}");
        assert_eq!(
            access.authenticate(Some(&unknown), Policy::AnyKey).await.unwrap_err(),
            Refusal::InvalidKey
        );
        assert_eq!(directory.1.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    /// Holds fixed answers by hash; counts the lookups that reach it.
    struct Holding(
        std::collections::HashMap<String, Option<KeyEntry>>,
        Arc<MemoryAccounts>,
        std::sync::atomic::AtomicUsize,
    );

    #[async_trait]
    impl KeyDirectory for Holding {
        async fn lookup(&self, key_hash: &str) -> Result<Option<KeyEntry>, AccountsError> {
            self.2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(self.1.find_key_by_hash(key_hash).await?.map(Arc::new))
        }

        fn held(&self, key_hash: &str) -> Option<Option<KeyEntry>> {
            self.0.get(key_hash).cloned()
        }

        async fn forget(&self, _key_hash: &str) {}
    }

    /// What a directory holds is answered without a lookup and decided as a
    /// looked-up entry is: a held key is admitted and counted, a held
    /// unknown or revoked one refused; a hash it does not hold is looked up.
    #[tokio::test]
    async fn a_held_entry_is_decided_without_a_lookup_as_a_looked_up_one_is() {
        let w = world();
        let (_, good) = customer_with_key(&w, "ai", SubscriptionStatus::Active, 10).await;
        let (customer, revoked) = customer_with_key(&w, "data", SubscriptionStatus::Active, 10).await;
        let record = w.accounts.list_keys(customer.customer_id).await.unwrap().remove(0);
        w.accounts.revoke_key(record.id, now()).await.unwrap();
        let (_, not_held) = customer_with_key(&w, "basic", SubscriptionStatus::Active, 10).await;
        let unknown = format!("sk_service_{}", "b".repeat(40));
        let mut held = std::collections::HashMap::new();
        for key in [&good, &revoked] {
            let hash = crate::key_material::hash_key(key);
            let entry = w.accounts.find_key_by_hash(&hash).await.unwrap().map(Arc::new);
            assert!(entry.is_some());
            held.insert(hash, entry);
        }
        held.insert(crate::key_material::hash_key(&unknown), None);
        let directory = Arc::new(Holding(
            held,
            Arc::clone(&w.accounts),
            std::sync::atomic::AtomicUsize::default(),
        ));
        let clock: Arc<dyn Clock> = Arc::new(FixedClock(now()));
        let access = Access::new(
            directory.clone(),
            w.limiter.clone(),
            key_rate(DEFAULT_BURST),
            Arc::clone(&clock),
            clock,
            Arc::new(UsageHealth::new(Duration::from_hours(1))),
            Arc::new(|_, _| {}),
        );
        let lookups = || directory.2.load(std::sync::atomic::Ordering::SeqCst);
        let grant = access.authenticate(Some(&good), Policy::AnyKey).await.unwrap();
        assert_eq!(grant.month_used, 1);
        for refused in [&revoked, &unknown] {
            assert_eq!(
                access.authenticate(Some(refused), Policy::AnyKey).await.unwrap_err(),
                Refusal::InvalidKey
            );
        }
        assert_eq!(lookups(), 0);
        access.authenticate(Some(&not_held), Policy::AnyKey).await.unwrap();
        assert_eq!(lookups(), 1);
    }

    #[test]
    fn the_quota_resets_at_the_first_instant_of_the_next_utc_month() {
        assert_eq!(next_reset(at("2026-12-31T23:59:59Z")), at("2027-01-01T00:00:00Z"));
        assert_eq!(next_reset(at("2026-02-01T00:00:00Z")), at("2026-03-01T00:00:00Z"));
        assert_eq!(month_of(at("2026-11-30T23:59:59Z")), (2026, 11));
        assert_eq!(next_month_start((2026, 12)), Some(at("2027-01-01T00:00:00Z")));
        assert_eq!(next_month_start((2026, 2)), Some(at("2026-03-01T00:00:00Z")));
    }
}
