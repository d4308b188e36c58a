//! Parquet: typed columns, text read as its column's type, the caller's
//! metadata in order, no Arrow schema, Snappy, the same bytes every time.

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use bytes::Bytes;
use chrono::NaiveDate;
use linecast_export::{ParquetWriter, Type, Value};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;

const COLUMNS: [(&str, Type); 6] = [
    ("team", Type::Text),
    ("date", Type::Date),
    ("published_at", Type::Instant),
    ("rest_days", Type::Whole),
    ("p", Type::Number),
    ("won", Type::Flag),
];

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

fn rows() -> Vec<[Value<'static>; 6]> {
    vec![
        [
            Value::Text("brooklyn_nets".into()),
            Value::Date(date(2026, 11, 14)),
            Value::Text("2026-11-14T12:00:00Z".into()),
            Value::Int(2),
            Value::Float(0.5132),
            Value::Bool(true),
        ],
        // Text read as each column's type.
        [
            Value::Date(date(2026, 11, 15)),
            Value::Text("2026-11-15".into()),
            Value::Text("2026-11-15T02:00:00-05:00".into()),
            Value::Text("3".into()),
            Value::Text("1618".into()),
            Value::Null,
        ],
        // Values of another type, and text that does not read as the type: null.
        [
            Value::Int(7),
            Value::Text("15 Nov".into()),
            Value::Int(1),
            Value::Text("2.5".into()),
            Value::Int(-110),
            Value::Text("true".into()),
        ],
        [
            Value::Null,
            Value::Null,
            Value::Text("yesterday".into()),
            Value::Float(4.0),
            Value::Text("inf".into()),
            Value::Int(1),
        ],
    ]
}

fn write(metadata: &[(&str, &str)]) -> Vec<u8> {
    let rows = rows();
    let mut table = ParquetWriter::new(COLUMNS, rows.len());
    for row in rows {
        table.row(row);
    }
    let metadata = metadata
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    table.write(metadata, Vec::new()).unwrap()
}

fn read(bytes: Vec<u8>) -> (RecordBatch, parquet::file::metadata::ParquetMetaData) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes)).unwrap();
    let metadata = builder.metadata().as_ref().clone();
    let mut reader = builder.build().unwrap();
    let batch = reader.next().unwrap().unwrap();
    assert!(reader.next().is_none(), "one batch");
    (batch, metadata)
}

fn days(d: NaiveDate) -> i32 {
    (d - date(1970, 1, 1)).num_days() as i32
}

#[test]
fn columns_are_typed_and_values_of_another_type_are_null() {
    let (batch, _) = read(write(&[]));
    let types: Vec<(&str, &DataType)> = batch
        .schema_ref()
        .fields()
        .iter()
        .map(|f| (f.name().as_str(), f.data_type()))
        .collect();
    assert_eq!(
        types,
        [
            ("team", &DataType::Utf8),
            ("date", &DataType::Date32),
            (
                "published_at",
                &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
            ),
            ("rest_days", &DataType::Int64),
            ("p", &DataType::Float64),
            ("won", &DataType::Boolean),
        ]
    );
    assert!(batch.schema_ref().fields().iter().all(|f| f.is_nullable()));
    assert_eq!(batch.num_rows(), 4);

    let team = batch.column(0).as_string::<i32>();
    assert_eq!(team.value(0), "brooklyn_nets");
    assert_eq!(team.value(1), "2026-11-15", "a date in a text column is its YYYY-MM-DD");
    assert!(team.is_null(2) && team.is_null(3));

    let dates = batch.column(1).as_primitive::<Date32Type>();
    assert_eq!(dates.value(0), days(date(2026, 11, 14)));
    assert_eq!(dates.value(1), days(date(2026, 11, 15)));
    assert!(dates.is_null(2) && dates.is_null(3));

    let instants = batch.column(2).as_primitive::<TimestampMicrosecondType>();
    assert_eq!(instants.value(0), 1_794_657_600_000_000);
    assert_eq!(instants.value(1), 1_794_726_000_000_000, "adjusted to UTC");
    assert!(instants.is_null(2) && instants.is_null(3));

    let whole = batch.column(3).as_primitive::<Int64Type>();
    assert_eq!((whole.value(0), whole.value(1)), (2, 3));
    assert!(whole.is_null(2), "2.5 is not whole");
    assert!(whole.is_null(3), "a float is not taken as whole");

    let p = batch.column(4).as_primitive::<Float64Type>();
    assert_eq!((p.value(0), p.value(1), p.value(2)), (0.5132, 1618.0, -110.0));
    assert!(p.is_null(3), "only finite numbers");

    let won = batch.column(5).as_boolean();
    assert!(won.value(0));
    assert!(won.is_null(1) && won.is_null(2) && won.is_null(3));
}

#[test]
fn the_metadata_is_the_callers_in_order_without_an_arrow_schema_and_snappy_compressed() {
    let (_, metadata) = read(write(&[("linecast.sport", "nba"), ("linecast.columns_version", "2")]));
    let pairs: Vec<(String, Option<String>)> = metadata
        .file_metadata()
        .key_value_metadata()
        .unwrap()
        .iter()
        .map(|kv| (kv.key.clone(), kv.value.clone()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("linecast.sport".to_owned(), Some("nba".to_owned())),
            ("linecast.columns_version".to_owned(), Some("2".to_owned())),
        ]
    );
    for column in metadata.row_group(0).columns() {
        assert_eq!(column.compression(), Compression::SNAPPY);
    }
}

#[test]
fn the_same_table_is_the_same_bytes() {
    let metadata = [("linecast.snapshot", "abc")];
    assert_eq!(write(&metadata), write(&metadata));
}

#[test]
fn a_table_without_rows_is_a_readable_file_of_its_columns() {
    let table = ParquetWriter::new(COLUMNS, 0);
    let bytes = table.write(Vec::new(), Vec::new()).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes)).unwrap();
    assert_eq!(builder.schema().fields().len(), 6);
    assert_eq!(builder.metadata().file_metadata().num_rows(), 0);
}

/// A sink that says, through `reached`, how many bytes have reached it.
#[derive(Default)]
struct Counted {
    bytes: Vec<u8>,
    reached: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl std::io::Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        self.reached
            .store(self.bytes.len(), std::sync::atomic::Ordering::SeqCst);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// 40,000 rows streamed: row groups of 16,384, 16,384 and 7,232 rows, each
/// written out as soon as it is full (bytes reach the sink long before the
/// end), and the file reads back to the very rows of the one-group writer.
#[test]
fn a_streamed_file_is_written_a_row_group_at_a_time_and_reads_back_to_the_whole_table() {
    use linecast_export::ParquetStream;
    const N: usize = 40_000;
    let row = |i: usize| {
        [
            Value::Text(format!("team_{}", i % 97).into()),
            Value::Date(date(2026, 1, 1) + chrono::Days::new((i % 300) as u64)),
            Value::Text("2026-11-14T12:00:00.123456Z".into()),
            Value::Int(i as i64),
            if i.is_multiple_of(5) {
                Value::Null
            } else {
                Value::Float(i as f64 / 7.0)
            },
            Value::Bool(i.is_multiple_of(2)),
        ]
    };
    let metadata = vec![("linecast.releases".to_owned(), "3".to_owned())];
    let sink = Counted::default();
    let reached = sink.reached.clone();
    let mut stream = ParquetStream::new(COLUMNS, metadata.clone(), sink).unwrap();
    let mut written_by_row = Vec::new();
    for i in 0..N {
        stream.row(row(i)).unwrap();
        if i + 1 == 16_000 || i + 1 == 16_384 {
            written_by_row.push(reached.load(std::sync::atomic::Ordering::SeqCst));
        }
    }
    let streamed = stream.finish().unwrap().bytes;
    assert!(
        written_by_row[0] < 1024,
        "before the first group is full, nothing but the magic: {written_by_row:?}"
    );
    assert!(
        written_by_row[1] > 100_000,
        "the first group is out once full: {written_by_row:?}"
    );

    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(streamed.clone())).unwrap();
    let groups: Vec<i64> = builder
        .metadata()
        .row_groups()
        .iter()
        .map(parquet::file::metadata::RowGroupMetaData::num_rows)
        .collect();
    assert_eq!(groups, [16_384, 16_384, 7_232]);
    // One batch across the groups.
    let streamed_table = builder.with_batch_size(N).build().unwrap().next().unwrap().unwrap();

    let mut whole = ParquetWriter::new(COLUMNS, N);
    for i in 0..N {
        whole.row(row(i));
    }
    let whole_table =
        ParquetRecordBatchReaderBuilder::try_new(Bytes::from(whole.write(metadata.clone(), Vec::new()).unwrap()))
            .unwrap()
            .with_batch_size(N)
            .build()
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
    assert_eq!(streamed_table, whole_table);
    assert_eq!(
        streamed_table.column(3).as_primitive::<Int64Type>().value(39_999),
        39_999
    );

    // The same rows, the same bytes.
    let mut again = ParquetStream::new(COLUMNS, metadata, Counted::default()).unwrap();
    for i in 0..N {
        again.row(row(i)).unwrap();
    }
    assert_eq!(again.finish().unwrap().bytes, streamed);
}
