//! What an explorable shows in a notebook cell: one output with three
//! parts, as evcxr 0.22 joins the blocks a cell prints.

use std::fmt;

use super::{Explorable, MAX_OUTPUT_BYTES};
use crate::present::evcxr::part;
use crate::Result;

impl Explorable {
    /// The output a notebook cell shows: the chart, the default view's SVG and
    /// its text line. Fails when there are no rows, when a setting of the
    /// sliders has no row (every combination of slider values needs one), or
    /// when the output is over [`MAX_OUTPUT_BYTES`].
    pub fn output(&self) -> Result<ExplorableOutput> {
        self.check_grid()?;
        let out = ExplorableOutput {
            vega_lite: self.spec().to_string(),
            svg: self.figure().svg().to_string(),
            text: self.text_line(),
        };
        crate::limits::check_hint(
            "bytes of an explorable's output",
            out.bytes() as u128,
            MAX_OUTPUT_BYTES as u128,
            "use fewer slider values or fewer x values (each point costs about 60 bytes)",
        )?;
        Ok(out)
    }

    /// Shows the explorable in an evcxr notebook cell (one output with three
    /// parts); a bad grid shows its error instead.
    pub fn evcxr_display(&self) {
        match self.output() {
            Ok(out) => print!("{}", out.evcxr_output()),
            Err(e) => print!("{}", part("text/plain", &format!("explorable not shown: {e}"))),
        }
    }
}

/// What an explorable shows: its three parts, as evcxr sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorableOutput {
    vega_lite: String,
    svg: String,
    text: String,
}

impl ExplorableOutput {
    /// The Vega-Lite v5 specification, one line of JSON
    /// (`application/vnd.vegalite.v5+json`).
    pub fn vega_lite(&self) -> &str {
        &self.vega_lite
    }
    /// The default view as an SVG document (`image/svg+xml`).
    pub fn svg(&self) -> &str {
        &self.svg
    }
    /// The default view's numbers on one line (`text/plain`).
    pub fn text(&self) -> &str {
        &self.text
    }
    /// Bytes of the three parts together (what a saved notebook holds,
    /// before JSON escaping).
    pub fn bytes(&self) -> usize {
        self.vega_lite.len() + self.svg.len() + self.text.len()
    }
    /// The lines [`Explorable::evcxr_display`] prints: three
    /// `EVCXR_BEGIN_CONTENT` blocks, which evcxr 0.22 sends as one output
    /// (one `execute_result` whose data has the three MIME types). No text
    /// of the chart (a title, a name) can end a block early: it is written
    /// on one line, or with its line breaks escaped, and a line that would
    /// read as evcxr's end marker gets a space before it.
    pub fn evcxr_output(&self) -> String {
        [
            part("application/vnd.vegalite.v5+json", &self.vega_lite),
            part("image/svg+xml", self.svg.trim_end()),
            part("text/plain", &self.text),
        ]
        .concat()
    }
}

impl fmt::Display for Explorable {
    /// The default view's numbers on one line (or why there is no chart).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.check_grid() {
            Ok(()) => f.write_str(&self.text_line()),
            Err(e) => write!(f, "explorable {:?} not shown: {e}", self.title),
        }
    }
}
