//! The billing provider's hosted pages: a checkout page where a customer
//! subscribes, and a billing page where a customer with a subscription
//! manages it (payment method, invoices, plan, cancel). The portal's
//! Billing page asks for one and sends the browser to its address.
//!
//! The port knows nothing of HTTP or Stripe's wire format; the adapter
//! (`linecast-stripe`'s `api`) translates. Every request carries an
//! idempotency key: the same key with the same parameters answers the page
//! made the first time, so a form posted twice opens one checkout.

use async_trait::async_trait;

/// A checkout for a subscription to one price.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutRequest {
    /// The provider's price id (`price_...`).
    pub price: String,
    /// linecast's signed subscribe reference, handed back in the checkout's
    /// completion event (`client_reference_id`), naming the customer.
    pub client_reference: String,
    /// The provider's customer, when this customer has one already (so a
    /// returning customer pays under the same one); otherwise the email
    /// the checkout starts with.
    pub provider_customer: Option<String>,
    pub email: String,
    /// Where the provider sends the browser after paying, and after giving up.
    pub success_url: String,
    pub cancel_url: String,
    pub idempotency_key: String,
}

/// A billing page for an existing provider customer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManageRequest {
    /// The provider's customer (`cus_...`).
    pub provider_customer: String,
    /// Where the provider's page links back to.
    pub return_url: String,
    pub idempotency_key: String,
}

/// A page the provider made: its id and the address to send the browser to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostedPage {
    pub id: String,
    pub url: String,
}

/// Why no page was made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BillingPagesError {
    /// The provider answered and refused the request (a 4xx with its error
    /// object): a price that does not exist, a bad key, a customer deleted
    /// on the provider's side. `kind` and `code` are the provider's
    /// (`invalid_request_error`, `resource_missing`); `message` is its
    /// sentence, for the log.
    #[error("the billing provider refused the request ({status} {kind}{}): {message}", code.as_deref().map(|c| format!(" {c}")).unwrap_or_default())]
    Refused {
        status: u16,
        kind: String,
        code: Option<String>,
        message: String,
    },
    /// The provider could not be reached, did not answer in time, failed
    /// (5xx, 429) or answered something that is not its format.
    #[error("the billing provider is unavailable: {0}")]
    Unavailable(String),
    /// The provider answered a page the browser must not be sent to (not
    /// one of its own hosted pages, a script URL): said as unusable, for
    /// the log.
    #[error("the billing provider answered an unusable page: {0}")]
    Unusable(String),
}

/// The provider's hosted pages.
#[async_trait]
pub trait BillingPages: Send + Sync {
    /// A checkout page for `request`.
    async fn checkout(&self, request: &CheckoutRequest) -> Result<HostedPage, BillingPagesError>;
    /// A billing page for `request`'s customer.
    async fn manage(&self, request: &ManageRequest) -> Result<HostedPage, BillingPagesError>;
}
