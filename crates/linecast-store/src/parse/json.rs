//! The JSON manifests: `releases/{sport}/{slate_date}.json` and
//! `products/catalog.json`.

use chrono::NaiveDate;
use linecast_domain::Sport;
use linecast_domain::artifacts::{ProductCatalog, ReleaseManifest};

use super::problems::Problems;
use super::problems::WHOLE;

/// Parses a release manifest; its `sport` and `slate_date` must match the key.
pub fn release(sport: Sport, slate_date: NaiveDate, bytes: &[u8], problems: &mut Problems) -> Option<ReleaseManifest> {
    let manifest: ReleaseManifest = from_json(bytes, problems)?;
    if manifest.sport != sport {
        problems.push(
            0,
            "sport",
            format!("manifest sport '{}' differs from the key's '{sport}'", manifest.sport),
        );
    }
    if manifest.slate_date != slate_date {
        problems.push(
            0,
            "slate_date",
            format!(
                "manifest slate_date {} differs from the key's {slate_date}",
                manifest.slate_date
            ),
        );
    }
    Some(manifest)
}

/// Parses the product catalog; every product's key must be
/// `datasets/{sport}/{filename}`.
pub fn catalog(bytes: &[u8], problems: &mut Problems) -> Option<ProductCatalog> {
    let catalog: ProductCatalog = from_json(bytes, problems)?;
    for (i, p) in catalog.products.iter().enumerate() {
        let expected = linecast_domain::artifacts::keys::dataset(p.sport, &p.filename);
        if p.key != expected {
            problems.push(
                i + 1,
                "key",
                format!("product '{}' key '{}' is not '{expected}'", p.product_id, p.key),
            );
        }
    }
    Some(catalog)
}

fn from_json<T: serde::de::DeserializeOwned>(bytes: &[u8], problems: &mut Problems) -> Option<T> {
    match serde_json::from_slice(bytes) {
        Ok(value) => Some(value),
        Err(err) => {
            problems.push(0, WHOLE, format!("invalid JSON: {err}"));
            None
        }
    }
}
