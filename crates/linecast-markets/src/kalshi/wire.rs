//! Kalshi's `GET /markets` wire format and the price of one market.
//!
//! Kalshi has quoted prices as integer cents (`yes_bid`, 1-99) and, in newer
//! responses, as fixed-point dollar strings (`yes_bid_dollars`, "0.5600");
//! the cent fields are being retired. Both are read: the dollar field wins
//! when it parses, otherwise cents / 100.

use serde::Deserialize;

/// One page of `GET /markets`.
#[derive(Debug, Deserialize)]
pub(crate) struct MarketsPage {
    #[serde(default)]
    pub markets: Vec<WireMarket>,
    /// Empty or absent on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// The fields of one market this adapter reads; the rest are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct WireMarket {
    pub ticker: String,
    #[serde(default)]
    pub event_ticker: String,
    #[serde(default)]
    pub subtitle: Option<String>,
    #[serde(default)]
    pub yes_sub_title: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub yes_bid: Option<Quote>,
    #[serde(default)]
    pub yes_ask: Option<Quote>,
    #[serde(default)]
    pub last_price: Option<Quote>,
    #[serde(default)]
    pub yes_bid_dollars: Option<Quote>,
    #[serde(default)]
    pub yes_ask_dollars: Option<Quote>,
    #[serde(default)]
    pub last_price_dollars: Option<Quote>,
}

/// A number that may arrive as a JSON number or a numeric string.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Quote {
    Number(f64),
    Text(String),
}

impl Quote {
    fn value(&self) -> Option<f64> {
        match self {
            Quote::Number(n) => Some(*n),
            Quote::Text(s) => s.trim().parse().ok(),
        }
        .filter(|v: &f64| v.is_finite())
    }
}

/// Reads one price in dollars (0..1): the dollar field if it parses,
/// otherwise the cent field / 100.
fn dollars(dollar_field: Option<&Quote>, cent_field: Option<&Quote>) -> Option<f64> {
    dollar_field
        .and_then(Quote::value)
        .or_else(|| cent_field.and_then(Quote::value).map(|c| c / 100.0))
}

/// Whether a quote is a real price. Kalshi reports an empty side of the book
/// as a bid of 0 or an ask of 1.00 (100 cents), and no trade as 0.
fn is_price(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

impl WireMarket {
    /// The yes contract's price in (0, 1): the bid/ask midpoint when both
    /// sides of the book are quoted (and not crossed), else the last trade,
    /// else `None`.
    pub fn yes_price(&self) -> Option<f64> {
        let bid = dollars(self.yes_bid_dollars.as_ref(), self.yes_bid.as_ref()).filter(|p| is_price(*p));
        let ask = dollars(self.yes_ask_dollars.as_ref(), self.yes_ask.as_ref()).filter(|p| is_price(*p));
        if let (Some(bid), Some(ask)) = (bid, ask)
            && bid <= ask
        {
            return Some(f64::midpoint(bid, ask));
        }
        dollars(self.last_price_dollars.as_ref(), self.last_price.as_ref()).filter(|p| is_price(*p))
    }

    /// Whether the market still trades; settled or closed markets carry no
    /// live price.
    pub fn is_live(&self) -> bool {
        !matches!(
            self.status.as_deref(),
            Some("closed" | "settled" | "finalized" | "determined")
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use proptest::prelude::*;

    use super::*;

    fn market(json: &str) -> WireMarket {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_cent_quoted_book_prices_at_its_midpoint() {
        let m = market(r#"{"ticker":"T","yes_bid":55,"yes_ask":57,"last_price":50}"#);
        assert!((m.yes_price().unwrap() - 0.56).abs() < 1e-9);
    }

    #[test]
    fn dollar_strings_win_over_cents() {
        let m =
            market(r#"{"ticker":"T","yes_bid":1,"yes_ask":99,"yes_bid_dollars":"0.4100","yes_ask_dollars":"0.4300"}"#);
        assert!((m.yes_price().unwrap() - 0.42).abs() < 1e-9);
    }

    #[test]
    fn an_empty_book_side_falls_back_to_the_last_trade() {
        let m = market(r#"{"ticker":"T","yes_bid":0,"yes_ask":100,"last_price":37}"#);
        assert!((m.yes_price().unwrap() - 0.37).abs() < 1e-9);
    }

    #[test]
    fn no_book_and_no_trade_has_no_price() {
        let m = market(
            r#"{"ticker":"T","yes_bid_dollars":"0.0000","yes_ask_dollars":"1.0000","last_price_dollars":"0.0000"}"#,
        );
        assert_eq!(m.yes_price(), None);
    }

    #[test]
    fn an_unparseable_dollar_string_falls_back_to_cents() {
        let m = market(r#"{"ticker":"T","yes_bid_dollars":"n/a","yes_bid":40,"yes_ask":44}"#);
        assert!((m.yes_price().unwrap() - 0.42).abs() < 1e-9);
    }

    #[test]
    fn settled_markets_are_not_live() {
        assert!(!market(r#"{"ticker":"T","status":"finalized"}"#).is_live());
        assert!(market(r#"{"ticker":"T","status":"active"}"#).is_live());
    }

    proptest! {
        /// Whatever cents Kalshi quotes, a price, when there is one, is a
        /// probability strictly between 0 and 1 and lies within the quoted
        /// bid/ask or equals the last trade.
        #[test]
        fn a_price_is_always_strictly_inside_zero_and_one(
            bid in proptest::option::of(-5i64..120),
            ask in proptest::option::of(-5i64..120),
            last in proptest::option::of(-5i64..120),
        ) {
            let m = WireMarket {
                ticker: "T".into(),
                yes_bid: bid.map(|c| Quote::Number(c as f64)),
                yes_ask: ask.map(|c| Quote::Number(c as f64)),
                last_price: last.map(|c| Quote::Number(c as f64)),
                ..WireMarket::default()
            };
            if let Some(p) = m.yes_price() {
                prop_assert!(p > 0.0 && p < 1.0);
                let in_book = matches!((bid, ask), (Some(b), Some(a)) if (b as f64) / 100.0 <= p && p <= (a as f64) / 100.0);
                let is_last = last.is_some_and(|l| ((l as f64) / 100.0 - p).abs() < 1e-12);
                prop_assert!(in_book || is_last);
            }
        }
    }
}
