//! A minimal CSV writer with the fixed number formats of the generated
//! artifacts: probabilities with 4 decimals, prices and scores as integers,
//! lines with one decimal only when they are on a half point.

/// Builds one CSV object in memory.
#[derive(Debug, Default)]
pub(crate) struct Csv {
    buf: String,
    first: bool,
}

impl Csv {
    pub(crate) fn new<S: AsRef<str>>(header: &[S]) -> Self {
        let mut csv = Self {
            buf: String::with_capacity(1 << 16),
            first: true,
        };
        for h in header {
            csv.cell(h.as_ref());
        }
        csv.end_row();
        csv
    }

    pub(crate) fn cell(&mut self, value: &str) {
        if !self.first {
            self.buf.push(',');
        }
        self.first = false;
        if value.contains([',', '"', '\n', '\r']) {
            self.buf.push('"');
            self.buf.push_str(&value.replace('"', "\"\""));
            self.buf.push('"');
        } else {
            self.buf.push_str(value);
        }
    }

    pub(crate) fn opt(&mut self, value: Option<&str>) {
        self.cell(value.unwrap_or(""));
    }

    pub(crate) fn line(&mut self, value: Option<f64>) {
        self.cell(&value.map(fmt_line).unwrap_or_default());
    }

    pub(crate) fn prob(&mut self, value: Option<f64>) {
        self.cell(&value.map(|p| format!("{p:.4}")).unwrap_or_default());
    }

    pub(crate) fn int(&mut self, value: Option<u32>) {
        self.cell(&value.map(|v| v.to_string()).unwrap_or_default());
    }

    pub(crate) fn end_row(&mut self) {
        self.buf.push('\n');
        self.first = true;
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buf.into_bytes()
    }
}

/// `-3.5`, `44`, `-110`: integers without a decimal point.
pub(crate) fn fmt_line(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn cells_with_commas_or_quotes_are_quoted_and_numbers_use_fixed_formats() {
        let mut csv = Csv::new(&["a", "b", "c", "d"]);
        csv.cell("x,y");
        csv.cell("say \"hi\"");
        csv.line(Some(-3.5));
        csv.prob(Some(0.5));
        csv.end_row();
        csv.line(Some(44.0));
        csv.line(None);
        csv.line(Some(-110.0));
        csv.int(Some(7));
        csv.end_row();
        let text = String::from_utf8(csv.into_bytes()).unwrap();
        assert_eq!(text, "a,b,c,d\n\"x,y\",\"say \"\"hi\"\"\",-3.5,0.5000\n44,,-110,7\n");
    }
}
