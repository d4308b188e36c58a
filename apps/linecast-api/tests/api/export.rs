//! Bulk export: the CSV and Parquet files hold exactly the rows `/results`
//! serves when paged through (read back with the csv crate and the parquet
//! crate's own reader), typed as the contract says, counted once, tagged
//! and re-tagged when a season is republished.

use linecast_export::read_back::{arrow_array, arrow_schema, parquet};

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, Encoding, LogicalType, TimeUnit as ParquetTimeUnit, Type as PhysicalType};
use serde_json::Value;

use crate::helpers::{TestApp, fixture_now, spawn_app, spawn_app_configured};

const BASE: &str = "/api/v1/results/nba/won_on_points";

async fn get(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    app.get_keyed(path, &app.api_key, headers).await
}

/// Every row of a named season as `/results` serves it, paged 37 at a time
/// under the first page's snapshot, and that snapshot.
async fn paged_season(app: &TestApp, season: &str) -> (Vec<serde_json::Map<String, Value>>, String) {
    let (status, first) = app.get_authed_json(&format!("{BASE}?season={season}&limit=37")).await;
    assert_eq!(status, 200, "{first}");
    let snapshot = first["snapshot"].as_str().unwrap().to_owned();
    let mut rows: Vec<serde_json::Map<String, Value>> = Vec::new();
    let mut page = first;
    loop {
        rows.extend(
            page["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_object().unwrap().clone()),
        );
        let Some(next) = page["next_offset"].as_u64() else {
            break;
        };
        let (status, body) = app
            .get_authed_json(&format!(
                "{BASE}?season={season}&limit=37&offset={next}&snapshot={snapshot}"
            ))
            .await;
        assert_eq!(status, 200, "{body}");
        page = body;
    }
    assert_eq!(rows.len() as u64, page["total"].as_u64().unwrap());
    (rows, snapshot)
}

/// The archived seasons, oldest first.
async fn seasons_oldest_first(app: &TestApp) -> Vec<String> {
    let (_, list) = app.get_authed_json(&format!("{BASE}/seasons")).await;
    let mut seasons: Vec<String> = list["seasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    seasons.reverse();
    seasons
}

/// A JSON value of a result row as a CSV cell: null empty, booleans
/// true/false, numbers and strings as the JSON writes them.
fn as_cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn read_csv(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().unwrap().iter().map(str::to_owned).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_owned).collect())
        .collect();
    (header, rows)
}

fn assert_csv_equals_rows(header: &[String], csv_rows: &[Vec<String>], rows: &[serde_json::Map<String, Value>]) {
    assert_eq!(csv_rows.len(), rows.len(), "one CSV row per result row");
    for (i, (cells, row)) in csv_rows.iter().zip(rows).enumerate() {
        for key in row.keys() {
            assert!(header.contains(key), "row {i}: {key} is a column");
        }
        for (name, cell) in header.iter().zip(cells) {
            assert_eq!(*cell, as_cell(row.get(name)), "row {i} column {name}");
        }
    }
}

#[tokio::test]
async fn a_season_as_csv_is_the_paged_results_rows_in_results_key_order() {
    let app = spawn_app().await;
    let (rows, snapshot) = paged_season(&app, "2025-26").await;
    let res = get(&app, &format!("{BASE}/export?season=2025-26&format=csv"), &[]).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"nba_won_on_points_2025-26.csv\""
    );
    assert_eq!(res.headers()["x-linecast-snapshot"].to_str().unwrap(), snapshot);
    let body = res.bytes().await.unwrap();
    let (header, csv_rows) = read_csv(&body);
    let keys: Vec<&String> = rows[0].keys().collect();
    assert_eq!(header.iter().collect::<Vec<_>>(), keys, "/results key order");
    assert_csv_equals_rows(&header, &csv_rows, &rows);
    // The season has the cases that matter: nulls, booleans, fractions.
    let text = String::from_utf8(body.to_vec()).unwrap();
    assert!(text.contains(",true,") && text.contains(",false,"));
    assert!(text.contains(",,"), "a null is an empty cell");

    // The default season is the current one, like /results.
    let (_, current) = app.get_authed_json(BASE).await;
    let res = get(&app, &format!("{BASE}/export?format=csv"), &[]).await;
    let season = current["season"].as_str().unwrap();
    assert_eq!(
        res.headers()["content-disposition"],
        format!("attachment; filename=\"nba_won_on_points_{season}.csv\"").as_str()
    );
}

#[tokio::test]
async fn all_history_as_csv_concatenates_every_season_oldest_first_under_the_union_of_columns() {
    let app = spawn_app().await;
    let seasons = seasons_oldest_first(&app).await;
    assert!(seasons.len() >= 2);
    let mut rows = Vec::new();
    let mut snapshots = Vec::new();
    for season in &seasons {
        let (season_rows, snapshot) = paged_season(&app, season).await;
        rows.extend(season_rows);
        snapshots.push(snapshot);
    }
    let res = get(&app, &format!("{BASE}/export?season=all&format=csv"), &[]).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"nba_won_on_points_all.csv\""
    );
    // A token over every season's snapshot, oldest first (its digest and
    // check are pinned by hand in linecast-paging).
    assert_eq!(
        res.headers()["x-linecast-snapshot"].to_str().unwrap(),
        linecast_paging::combined_snapshot(snapshots.iter().map(String::as_str))
    );
    let (header, csv_rows) = read_csv(&res.bytes().await.unwrap());
    assert_eq!(
        &header[header.len() - 6..],
        [
            "push",
            "graded",
            "ungraded_reason",
            "game_id",
            "archive_check",
            "forecast_digest"
        ]
    );
    let season_at = header.iter().position(|h| h == "season").unwrap();
    let order: Vec<&str> = csv_rows.iter().map(|r| r[season_at].as_str()).collect();
    assert!(order.windows(2).all(|w| w[0] <= w[1]), "oldest season first");
    assert_csv_equals_rows(&header, &csv_rows, &rows);
}

fn read_parquet(bytes: Bytes) -> (Vec<RecordBatch>, parquet::file::metadata::ParquetMetaData) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(bytes).unwrap();
    let metadata = builder.metadata().as_ref().clone();
    let batches = builder.build().unwrap().map(Result::unwrap).collect();
    (batches, metadata)
}

/// A Parquet cell as the JSON value `/results` serves.
fn as_json(array: &dyn Array, i: usize) -> Value {
    if array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Date32 => {
            let days = array.as_primitive::<Date32Type>().value(i);
            let date = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap() + chrono::Duration::days(days.into());
            Value::String(date.format("%Y-%m-%d").to_string())
        }
        DataType::Timestamp(TimeUnit::Microsecond, Some(_)) => {
            let micros = array.as_primitive::<TimestampMicrosecondType>().value(i);
            let instant = chrono::DateTime::from_timestamp_micros(micros).unwrap();
            Value::String(instant.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
        }
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(i).to_owned()),
        DataType::Float64 => serde_json::json!(array.as_primitive::<Float64Type>().value(i)),
        DataType::Int64 => serde_json::json!(array.as_primitive::<Int64Type>().value(i)),
        DataType::Boolean => Value::Bool(array.as_boolean().value(i)),
        other => panic!("unexpected type {other}"),
    }
}

/// Numbers compared as numbers (the JSON writes -110 where Parquet holds
/// -110.0), a text column Parquet types (`"1618"`) by the number it reads
/// as; exactly, since both carry the same served value.
#[expect(clippy::float_cmp, reason = "the file must hold the served value exactly")]
fn same(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse::<f64>().ok()));
    match (a.as_f64(), number(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[tokio::test]
async fn a_season_as_parquet_reads_back_typed_with_the_results_values_and_its_metadata() {
    let app = spawn_app().await;
    let (rows, snapshot) = paged_season(&app, "2025-26").await;
    let res = get(
        &app,
        &format!("{BASE}/export?season=2025-26&format=parquet"),
        &[("Accept-Encoding", "gzip, br")],
    )
    .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/vnd.apache.parquet");
    assert!(
        res.headers().get("content-encoding").is_none_or(|e| e == "identity"),
        "Parquet is compressed already"
    );
    assert_eq!(
        res.headers()["content-disposition"],
        "attachment; filename=\"nba_won_on_points_2025-26.parquet\""
    );
    let (batches, metadata) = read_parquet(res.bytes().await.unwrap());
    let schema = batches[0].schema();
    let types: std::collections::HashMap<&str, &DataType> = schema
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    for (column, expected) in [
        ("date", DataType::Date32),
        ("time_est", DataType::Utf8),
        ("away_team", DataType::Utf8),
        ("season", DataType::Utf8),
        ("away_score", DataType::Float64),
        ("home_money_line", DataType::Float64),
        ("home_point_spread", DataType::Float64),
        ("won_on_points", DataType::Int64),
        ("BLEND", DataType::Float64),
        ("IMPLIED", DataType::Float64),
        ("push", DataType::Boolean),
        ("graded", DataType::Boolean),
        ("ungraded_reason", DataType::Utf8),
        (
            "forecast_published_at",
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
        ),
        ("model_training_through", DataType::Date32),
        ("home_rest_days", DataType::Int64),
        ("travel_km", DataType::Float64),
    ] {
        assert_eq!(types.get(column), Some(&&expected), "{column}");
    }
    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, rows[0].keys().collect::<Vec<_>>(), "/results key order");

    let mut n = 0;
    for batch in &batches {
        for i in 0..batch.num_rows() {
            let row = &rows[n];
            for (field, column) in schema.fields().iter().zip(batch.columns()) {
                let got = as_json(column.as_ref(), i);
                let want = row.get(field.name()).cloned().unwrap_or(Value::Null);
                assert!(same(&got, &want), "row {n} column {}: {got} vs {want}", field.name());
            }
            n += 1;
        }
    }
    assert_eq!(n, rows.len());

    let kv: std::collections::HashMap<String, String> = metadata
        .file_metadata()
        .key_value_metadata()
        .unwrap()
        .iter()
        .map(|kv| (kv.key.clone(), kv.value.clone().unwrap_or_default()))
        .collect();
    assert_eq!(kv["linecast.snapshot"], snapshot);
    assert_eq!(kv["linecast.sport"], "nba");
    assert_eq!(kv["linecast.model_type"], "won_on_points");
    assert_eq!(kv["linecast.season"], "2025-26");
    assert_eq!(kv["linecast.columns_version"], "3");
    let group = metadata.row_group(0);
    let team = group
        .columns()
        .iter()
        .find(|c| c.column_path().string() == "home_team")
        .unwrap();
    assert_eq!(team.compression(), Compression::SNAPPY);
    assert!(
        team.encodings()
            .any(|e| e == Encoding::RLE_DICTIONARY || e == Encoding::PLAIN_DICTIONARY),
        "text is dictionary-encoded"
    );
}

#[tokio::test]
#[expect(clippy::float_cmp, reason = "the file must hold the stored number exactly")]
async fn the_parquet_export_types_rest_days_and_travel_as_numbers_publication_as_a_utc_instant_and_training_as_a_date()
{
    let app = spawn_app().await;
    let mut rows = Vec::new();
    for season in seasons_oldest_first(&app).await {
        rows.extend(paged_season(&app, &season).await.0);
    }
    let res = get(&app, &format!("{BASE}/export?season=all&format=parquet"), &[]).await;
    assert_eq!(res.status(), 200);
    let (batches, metadata) = read_parquet(res.bytes().await.unwrap());
    assert_eq!(batches[0].num_rows(), rows.len());
    let parquet_type = |name: &str| {
        let schema = metadata.file_metadata().schema_descr();
        let column = (0..schema.num_columns())
            .map(|i| schema.column(i))
            .find(|c| c.name() == name)
            .unwrap_or_else(|| panic!("{name} is a column"));
        (column.physical_type(), column.logical_type_ref().cloned())
    };
    let row_of = |name: &str| {
        rows.iter()
            .enumerate()
            .find_map(|(i, r)| r.get(name).and_then(Value::as_str).map(|s| (i, s.to_owned())))
            .unwrap_or_else(|| panic!("{name}: /results serves it on some row"))
    };
    let column = |name: &str| batches[0].column_by_name(name).unwrap().clone();

    // Whole days: INT64, the served text's number.
    assert_eq!(parquet_type("home_rest_days"), (PhysicalType::INT64, None));
    let (i, text) = row_of("home_rest_days");
    let days = column("home_rest_days");
    assert_eq!(days.data_type(), &DataType::Int64);
    assert_eq!(days.as_primitive::<Int64Type>().value(i), text.parse::<i64>().unwrap());

    // Kilometres: DOUBLE.
    assert_eq!(parquet_type("travel_km"), (PhysicalType::DOUBLE, None));
    let (i, text) = row_of("travel_km");
    let km = column("travel_km");
    assert_eq!(km.data_type(), &DataType::Float64);
    assert_eq!(km.as_primitive::<Float64Type>().value(i), text.parse::<f64>().unwrap());

    // The publication instant: INT64 TIMESTAMP(MICROS, adjusted to UTC).
    assert_eq!(
        parquet_type("forecast_published_at"),
        (
            PhysicalType::INT64,
            Some(LogicalType::timestamp(true, ParquetTimeUnit::MICROS))
        )
    );
    let (i, text) = row_of("forecast_published_at");
    let published = column("forecast_published_at");
    assert_eq!(
        published.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
    );
    assert_eq!(
        published.as_primitive::<TimestampMicrosecondType>().value(i),
        chrono::DateTime::parse_from_rfc3339(&text).unwrap().timestamp_micros(),
        "{text}"
    );

    // The training cut-off: INT32 DATE.
    assert_eq!(
        parquet_type("model_training_through"),
        (PhysicalType::INT32, Some(LogicalType::Date))
    );
    let (i, text) = row_of("model_training_through");
    let through = column("model_training_through");
    assert_eq!(through.data_type(), &DataType::Date32);
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    let date = chrono::NaiveDate::parse_from_str(&text, "%Y-%m-%d").unwrap();
    assert_eq!(
        through.as_primitive::<Date32Type>().value(i),
        i32::try_from((date - epoch).num_days()).unwrap()
    );

    // Nulls stay null.
    for name in ["forecast_published_at", "model_training_through"] {
        let (i, _) = rows
            .iter()
            .enumerate()
            .find(|(_, r)| r.get(name).is_some_and(Value::is_null))
            .unwrap_or_else(|| panic!("{name} is null on some row"));
        assert!(column(name).is_null(i), "{name} row {i}");
    }
}

#[tokio::test]
async fn an_export_counts_once_answers_304_to_its_etag_and_csv_follows_accept_encoding() {
    let app = spawn_app().await;
    let path = format!("{BASE}/export?season=all&format=csv");
    let remaining =
        |r: &reqwest::Response| -> u64 { r.headers()["x-ratelimit-remaining"].to_str().unwrap().parse().unwrap() };
    let first = get(&app, &path, &[]).await;
    let before = remaining(&first);
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let csv = first.bytes().await.unwrap();
    assert!(csv.len() > 10_000, "a whole history");
    let again = get(&app, &path, &[]).await;
    assert_eq!(
        remaining(&again),
        before - 1,
        "one export, one request, whatever its size"
    );
    let not_modified = get(&app, &path, &[("If-None-Match", &etag)]).await;
    assert_eq!(not_modified.status(), 304);
    assert_eq!(remaining(&not_modified), before - 2);
    assert!(not_modified.bytes().await.unwrap().is_empty());

    let gz = get(&app, &path, &[("Accept-Encoding", "gzip")]).await;
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(crate::helpers::gunzip(&gz.bytes().await.unwrap()), csv);
}

#[tokio::test]
async fn a_republished_season_changes_the_etag_and_the_snapshot_of_its_exports() {
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.freshness_windows.version_ttl = std::time::Duration::ZERO;
            s.freshness_windows.resolution_ttl = std::time::Duration::ZERO;
        },
    )
    .await;
    let tags = |r: &reqwest::Response| {
        (
            r.headers()["etag"].to_str().unwrap().to_owned(),
            r.headers()["x-linecast-snapshot"].to_str().unwrap().to_owned(),
        )
    };
    let mut before = Vec::new();
    for query in [
        "season=2024-25&format=parquet",
        "season=all&format=csv",
        "season=2025-26&format=csv",
    ] {
        before.push(tags(&get(&app, &format!("{BASE}/export?{query}"), &[]).await));
    }
    let csv = app.store_dir.join("seasons/nba/won_on_points/2024-25.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&csv, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let mut after = Vec::new();
    for query in [
        "season=2024-25&format=parquet",
        "season=all&format=csv",
        "season=2025-26&format=csv",
    ] {
        after.push(tags(&get(&app, &format!("{BASE}/export?{query}"), &[]).await));
    }
    assert_ne!(after[0].0, before[0].0, "the season's own export");
    assert_ne!(after[0].1, before[0].1);
    assert_ne!(after[1].0, before[1].0, "all history includes it");
    assert_ne!(after[1].1, before[1].1);
    assert_eq!(after[2], before[2], "another season's export is unchanged");
}

#[tokio::test]
async fn bad_export_parameters_are_400s_naming_them_and_a_season_without_a_store_is_404() {
    let app = spawn_app().await;
    for (query, named) in [
        ("season=2025-26", "format"),
        ("season=2025-26&format=xlsx", "format"),
        ("season=2025&format=csv", "season"),
        ("season=ALL&format=csv", "season"),
    ] {
        let (status, body) = app.get_authed_json(&format!("{BASE}/export?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body["detail"].as_str().unwrap().contains(named), "{query}: {body}");
    }
    let (status, body) = app
        .get_authed_json("/api/v1/results/nba/no_such/export?format=csv")
        .await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = app
        .get_authed_json(&format!("{BASE}/export?season=2030-31&format=csv"))
        .await;
    assert_eq!(status, 404, "{body}");
    assert!(body["detail"].as_str().unwrap().contains("2030-31"), "{body}");
    let res = app
        .client
        .get(format!("{}{BASE}/export?format=csv", app.address))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

/// An export is a large download: a customer has at most
/// LINECAST_MAX_DOWNLOADS_PER_CUSTOMER in flight. The slot is taken before
/// the request is counted, so a refusal costs no quota and says when to
/// retry; once the download in flight ends, the next one goes through.
#[tokio::test]
async fn exports_beyond_the_download_cap_are_refused_with_retry_after_and_not_counted() {
    let app = spawn_app_configured(fixture_now(), |_| {}, |s| s.heavy.max_downloads_per_customer = 1).await;
    let (_, me) = app.get_authed_json("/api/v1/customers/me").await;
    let customer_id = me["customer_id"].as_i64().unwrap();
    let path = "/api/v1/results/nba/won_on_points/export?format=csv";
    let remaining =
        |r: &reqwest::Response| -> u64 { r.headers()["x-ratelimit-remaining"].to_str().unwrap().parse().unwrap() };
    let first = app.get_authed(path).await;
    assert_eq!(first.status(), 200);
    let before = remaining(&first);
    let _ = first.bytes().await.unwrap();

    // A download in flight (as a client reading slowly would hold it).
    let in_flight = app.state.gate.downloads.open(customer_id).await.unwrap();
    for _ in 0..3 {
        let refused = app.get_authed(path).await;
        assert_eq!(refused.status(), 429);
        assert_eq!(refused.headers()["retry-after"], "5");
        let body: serde_json::Value = refused.json().await.unwrap();
        let detail = body["detail"].as_str().unwrap();
        assert!(detail.contains("Too many large downloads"), "{detail}");
        assert!(detail.contains("LINECAST_MAX_DOWNLOADS_PER_CUSTOMER"), "{detail}");
    }
    // Other routes are not capped.
    assert_eq!(
        app.get_authed("/api/v1/results/nba/won_on_points?limit=5")
            .await
            .status(),
        200
    );
    drop(in_flight);

    let again = app.get_authed(path).await;
    assert_eq!(again.status(), 200);
    assert_eq!(
        before - remaining(&again),
        2,
        "the results page and this export; no refusal"
    );
    let _ = again.bytes().await.unwrap();
    // The slot the export held while it was sent is back.
    for _ in 0..100 {
        if app.state.gate.downloads.held(customer_id).await.unwrap() == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(app.state.gate.downloads.held(customer_id).await.unwrap(), 0);
}

/// A client that stops reading is cut off: 300 exports pipelined on one
/// connection whose client reads nothing fill the socket buffers, the
/// server's write waits, and after the stall timeout (here 0.5 s) the
/// server closes the connection. Without the timeout the server waits for
/// as long as the client likes and, once it reads, sends every response.
#[tokio::test]
async fn a_client_that_stops_reading_is_cut_off_after_the_stall_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let app = spawn_app_configured(
        fixture_now(),
        |_| {},
        |s| {
            s.heavy.stall_timeout = std::time::Duration::from_millis(500);
            s.rate_burst = 10_000;
        },
    )
    .await;
    let path = "/api/v1/results/nba/won_on_points/export?season=all&format=csv";
    let one = app.get_authed(path).await;
    assert_eq!(one.status(), 200);
    let size = one.bytes().await.unwrap().len();
    let requests = 300;
    assert!(
        size * requests > 16 << 20,
        "more than socket buffers hold ({size} bytes each)"
    );

    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let addr: std::net::SocketAddr = app.address.trim_start_matches("http://").parse().unwrap();
    let (mut read, mut write) = socket.connect(addr).await.unwrap().into_split();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: test\r\nX-API-Key: {}\r\n\r\n",
        app.api_key
    )
    .repeat(requests);
    let writer = tokio::spawn(async move {
        let _ = write.write_all(request.as_bytes()).await;
        // Keeps its half open: the client has not gone, it is only slow.
        tokio::time::sleep(std::time::Duration::from_mins(1)).await;
        drop(write);
    });
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let mut received = Vec::new();
    let ended = loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), read.read_buf(&mut received)).await {
            Ok(Ok(0) | Err(_)) => break true,
            Ok(Ok(_)) => {}
            // Neither more bytes nor a close: the server is still waiting.
            Err(_) => break false,
        }
    };
    writer.abort();
    let answered = received.windows(15).filter(|w| w == b"HTTP/1.1 200 OK").count();
    assert!(ended, "the server closed the connection ({answered} responses began)");
    assert!(
        answered < requests,
        "{answered} of {requests} responses were sent to a client that stopped reading"
    );
}

#[tokio::test]
async fn a_range_of_an_export_is_those_bytes_of_the_file_and_resumes_a_cut_download() {
    let app = spawn_app().await;
    a_file_resumes_by_range(&app, &format!("{BASE}/export?season=all&format=csv")).await;
}

/// The file at `path` (a CSV export of more than 1,000 bytes) honours
/// `Range` and `If-Range` on its identity and gzip variants: the parts are
/// those bytes of the file, a cut download resumes, a stale tag or several
/// ranges get the whole file, a range past the end is 416.
pub async fn a_file_resumes_by_range(app: &TestApp, path: &str) {
    let whole = get(app, path, &[]).await;
    assert_eq!(whole.status(), 200);
    assert_eq!(whole.headers()["accept-ranges"], "bytes");
    let etag = whole.headers()["etag"].to_str().unwrap().to_owned();
    let csv = whole.bytes().await.unwrap();
    let len = csv.len();

    // A middle slice, then the rest after a cut at 1000 bytes: the two
    // parts put together are the file.
    let middle = get(app, path, &[("Range", "bytes=10-99")]).await;
    assert_eq!(middle.status(), 206);
    assert_eq!(middle.headers()["content-range"], format!("bytes 10-99/{len}").as_str());
    assert_eq!(middle.bytes().await.unwrap(), csv.slice(10..100));
    let rest = get(app, path, &[("Range", "bytes=1000-"), ("If-Range", &etag)]).await;
    assert_eq!(rest.status(), 206);
    let mut joined = csv.slice(..1000).to_vec();
    joined.extend_from_slice(&rest.bytes().await.unwrap());
    assert_eq!(joined, csv);
    let tail = get(app, path, &[("Range", "bytes=-7")]).await;
    assert_eq!(tail.bytes().await.unwrap(), csv.slice(len - 7..));

    // Another version than the client holds: the whole file.
    let other = get(app, path, &[("Range", "bytes=1000-"), ("If-Range", "\"stale\"")]).await;
    assert_eq!(other.status(), 200);
    assert_eq!(other.bytes().await.unwrap(), csv);
    // Past the end: 416 naming the length; several ranges: the whole file.
    let past = get(app, path, &[("Range", &format!("bytes={len}-"))]).await;
    assert_eq!(past.status(), 416);
    assert_eq!(past.headers()["content-range"], format!("bytes */{len}").as_str());
    let several = get(app, path, &[("Range", "bytes=0-1,5-9")]).await;
    assert_eq!(several.status(), 200);
    assert_eq!(several.bytes().await.unwrap(), csv);

    // A gzip client resumes within the gzip file it was sent.
    let gz = get(app, path, &[("Accept-Encoding", "gzip")]).await;
    let gz_tag = gz.headers()["etag"].to_str().unwrap().to_owned();
    let gz_bytes = gz.bytes().await.unwrap();
    let gz_rest = get(
        app,
        path,
        &[
            ("Accept-Encoding", "gzip"),
            ("Range", "bytes=100-"),
            ("If-Range", &gz_tag),
        ],
    )
    .await;
    assert_eq!(gz_rest.status(), 206);
    assert_eq!(gz_rest.bytes().await.unwrap(), gz_bytes.slice(100..));
}
