//! CSV: a header, then one record per row.

use std::io::Write;

use crate::{Error, Value};

/// A CSV file under construction: `\n` line ends, fields quoted only when
/// they must be, each value as [`Value::csv_text`] writes it.
pub struct CsvWriter<W: Write> {
    out: csv::Writer<W>,
}

impl<W: Write> CsvWriter<W> {
    /// A file into `out`, starting with the header `names`.
    pub fn new<'n>(out: W, names: impl IntoIterator<Item = &'n str>) -> Result<Self, Error> {
        let mut out = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(out);
        out.write_record(names)?;
        Ok(Self { out })
    }

    /// Appends one record.
    pub fn row<'v>(&mut self, values: impl IntoIterator<Item = Value<'v>>) -> Result<(), Error> {
        for value in values {
            self.out.write_field(value.csv_text().as_bytes())?;
        }
        // An empty record ends the one written field by field.
        self.out.write_record(None::<&[u8]>)?;
        Ok(())
    }

    /// The output, every record flushed to it.
    pub fn finish(self) -> Result<W, Error> {
        self.out.into_inner().map_err(|e| Error::CsvOutput(e.into_error()))
    }
}
