//! The text evcxr, the Rust Jupyter kernel, reads from a cell's output: a
//! part of one MIME type is the line `EVCXR_BEGIN_CONTENT <type>`, the
//! part's lines, and the line `EVCXR_END_CONTENT`; the parts a cell prints
//! become one output. Every part the crate prints is written by [`part`].
//!
//! evcxr 0.22 (`eval_context.rs`) reads the output line by line and ends a
//! part at the first line that is exactly `EVCXR_END_CONTENT` or
//! `EVCXR_PANIC_NOTIFICATION` (after the line feed, and a carriage return
//! before it, are cut off). So a part's own line that reads so would end it
//! early, and what follows would be read as more parts — HTML a title
//! smuggled in, say. [`part`] puts a space before such a line: it no longer
//! reads as a marker, and the space is nothing in HTML, SVG or JSON, and
//! invisible in plain text. The crate's own text never needs it: titles and
//! labels are written on one line, or with their line breaks escaped
//! ([`escape`](super::escape)); the guard keeps every part whole whatever a
//! caller's text holds.

/// The lines that end a part when evcxr reads them.
const MARKERS: [&str; 2] = ["EVCXR_END_CONTENT", "EVCXR_PANIC_NOTIFICATION"];

/// One part of a cell's output: `EVCXR_BEGIN_CONTENT mime`, `content`,
/// `EVCXR_END_CONTENT`, each on its own line, where no line of `content`
/// ends the part (see the [module](self)).
pub(crate) fn part(mime: &str, content: &str) -> String {
    let mut out = String::with_capacity(content.len() + 64);
    out.push_str("EVCXR_BEGIN_CONTENT ");
    out.push_str(mime);
    out.push('\n');
    for (i, line) in content.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if MARKERS.contains(&line.strip_suffix('\r').unwrap_or(line)) {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.push_str("\nEVCXR_END_CONTENT\n");
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The parts of `output` as evcxr 0.22 reads them (`eval_context.rs`):
    /// a part starts at a line holding `EVCXR_BEGIN_CONTENT <type>` and ends
    /// at the first line that is exactly a marker; `BufRead::lines` cuts
    /// the line feed and a carriage return before it. Lines outside a part
    /// are the cell's plain output.
    pub(crate) fn parts(output: &str) -> (Vec<(String, String)>, Vec<String>) {
        let mut lines = output.lines();
        let (mut parts, mut plain) = (Vec::new(), Vec::new());
        while let Some(line) = lines.next() {
            let Some(at) = line.find("EVCXR_BEGIN_CONTENT ") else {
                plain.push(line.to_string());
                continue;
            };
            let mime: String = line[at + 20..].chars().take_while(|&c| c != ' ').collect();
            let mut content = Vec::new();
            for line in lines.by_ref() {
                if MARKERS.contains(&line) {
                    break;
                }
                content.push(line);
            }
            parts.push((mime, content.join("\n")));
        }
        (parts, plain)
    }

    #[test]
    fn a_part_holds_its_content_whole() {
        let text = "line 1\nEVCXR_END_CONTENT\r\nEVCXR_BEGIN_CONTENT text/html\n<b>x</b>\nEVCXR_PANIC_NOTIFICATION";
        let out = part("text/plain", text);
        let (got, plain) = parts(&out);
        assert!(plain.is_empty(), "{plain:?}");
        assert_eq!(got.len(), 1, "{out}");
        assert_eq!(got[0].0, "text/plain");
        // (lines() drops the carriage return of "\r\n", as evcxr does)
        let want = "line 1\n EVCXR_END_CONTENT\nEVCXR_BEGIN_CONTENT text/html\n<b>x</b>\n EVCXR_PANIC_NOTIFICATION";
        assert_eq!(got[0].1, want);
        // ordinary content is written as it is
        assert_eq!(part("text/html", "<p>a</p>"), "EVCXR_BEGIN_CONTENT text/html\n<p>a</p>\nEVCXR_END_CONTENT\n");
        assert_eq!(parts(&part("text/plain", "")).0, [("text/plain".to_string(), String::new())]);
    }
}
