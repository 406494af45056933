//! What an explorable shows in a notebook cell: one output with three
//! parts, as evcxr 0.22 joins the blocks a cell prints.

use std::fmt;

use super::{Explorable, MAX_OUTPUT_BYTES};
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
            Err(e) => println!("EVCXR_BEGIN_CONTENT text/plain\nexplorable not shown: {e}\nEVCXR_END_CONTENT"),
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
    /// (one `execute_result` whose data has the three MIME types).
    pub fn evcxr_output(&self) -> String {
        format!(
            "EVCXR_BEGIN_CONTENT application/vnd.vegalite.v5+json\n{}\nEVCXR_END_CONTENT\n\
             EVCXR_BEGIN_CONTENT image/svg+xml\n{}\nEVCXR_END_CONTENT\n\
             EVCXR_BEGIN_CONTENT text/plain\n{}\nEVCXR_END_CONTENT\n",
            self.vega_lite,
            self.svg.trim_end(),
            self.text
        )
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
