//! The generator's integration tests: determinism, the committed fixture,
//! the data contract and the deliberate awkward cases.
#![allow(clippy::unwrap_used, clippy::expect_used)]
// Scores and lines are small integers and halves, exact in f64; keys are
// lowercase by contract.
#![allow(clippy::float_cmp, clippy::case_sensitive_file_extension_comparisons)]

mod awkward;
mod books;
mod contract;
mod digest;
mod fixture;
mod market;

use std::collections::BTreeMap;

use chrono::NaiveDate;
use linecast_demo::{GenOptions, Profile, generate};

/// The options the committed fixture store was generated with.
pub fn fixture_options() -> GenOptions {
    GenOptions {
        today: NaiveDate::from_ymd_opt(2026, 11, 15).unwrap(),
        seed: 7,
        profile: Profile::Small,
        not_after: None,
    }
}

/// The fixture options' store, generated once for every test that reads it.
pub fn fixture_store() -> &'static BTreeMap<String, Vec<u8>> {
    static STORE: std::sync::OnceLock<BTreeMap<String, Vec<u8>>> = std::sync::OnceLock::new();
    STORE.get_or_init(|| generate(&fixture_options(), &mut |_| {}).into_iter().collect())
}

pub fn small(seed: u64, today: &str) -> BTreeMap<String, Vec<u8>> {
    let opts = GenOptions {
        today: NaiveDate::parse_from_str(today, "%Y-%m-%d").unwrap(),
        seed,
        profile: Profile::Small,
        not_after: None,
    };
    generate(&opts, &mut |_| {}).into_iter().collect()
}

/// A parsed CSV object: header and rows of raw cells (the generator never
/// quotes cells in these objects, which this also checks).
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn parse(bytes: &[u8]) -> Self {
        let text = std::str::from_utf8(bytes).unwrap();
        assert!(!text.contains('"'), "unexpected quoting");
        let mut lines = text.lines();
        let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
        let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
        for r in &rows {
            assert_eq!(r.len(), header.len(), "ragged row {r:?}");
        }
        Self { header, rows }
    }

    pub fn col(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    pub fn get<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        &row[self.col(name).unwrap_or_else(|| panic!("no column {name}"))]
    }

    pub fn num(&self, row: &[String], name: &str) -> Option<f64> {
        let v = self.get(row, name);
        if v.is_empty() { None } else { Some(v.parse().unwrap()) }
    }
}

pub fn tables<'a>(
    store: &'a BTreeMap<String, Vec<u8>>,
    prefix: &'a str,
) -> impl Iterator<Item = (&'a String, Table)> + 'a {
    store
        .iter()
        .filter(move |(k, _)| k.starts_with(prefix) && k.ends_with(".csv"))
        .map(|(k, v)| (k, Table::parse(v)))
}
