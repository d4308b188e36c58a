//! `markets/{sport}.csv`: prediction-market price snapshots.

use linecast_domain::artifacts::MarketPriceRow;

use super::problems::Problems;
use super::sheet::Sheet;

/// Parses a market snapshot; prices are probabilities in [0, 1].
pub fn market_prices(bytes: &[u8], problems: &mut Problems) -> Option<Vec<MarketPriceRow>> {
    let mut sheet = Sheet::open(bytes, problems)?;
    let key = sheet.key_columns(problems);
    let ticker = sheet.require("ticker", problems);
    let captured_at = sheet.require("captured_at", problems);
    let (key, ticker, captured_at) = (key?, ticker?, captured_at?);
    let home_price = sheet.column("home_price");
    let away_price = sheet.column("away_price");
    let mut rows = Vec::new();
    sheet.each_row(problems, |c| {
        let k = c.key(&key);
        let t = c.text(ticker);
        let h = c.probability(home_price);
        let a = c.probability(away_price);
        let at = c.timestamp(captured_at);
        if let (Some(key), Some(ticker), Some(captured_at), true) = (k, t, at, c.ok()) {
            rows.push(MarketPriceRow {
                key,
                ticker: ticker.to_owned(),
                home_price: h,
                away_price: a,
                captured_at,
            });
        }
    });
    Some(rows)
}
