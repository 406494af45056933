//! Text from a caller — a title, an axis label, a node's name, a table's
//! cell — written into each form the crate shows, in one place: as HTML or
//! SVG text, as an attribute's value, and as one line of plain text.
//!
//! Text stays text: `<` never opens a tag and `&` never starts an entity,
//! and a line break never splits a form that must stay one line. That
//! matters beyond looks: evcxr reads a cell's output line by line, and a
//! line `EVCXR_END_CONTENT` inside a part ends it, so a title holding a
//! line break and that word would end the output early and turn the rest
//! into parts of their own (see [`evcxr`](super::evcxr), which guards every
//! part as well). Text without `&`, `<`, `>`, a quote or a line break comes
//! back as it is, borrowed.
//!
//! Every form and where it is written:
//!
//! | form | function | written by |
//! |---|---|---|
//! | HTML text (a table's cells, caption, note) | [`html`] | `Table::to_html`, the tutor's parameters |
//! | an attribute's value, XML text (an `<img>`'s `alt`, an SVG's `<title>`) | `attribute` (feature `charts`) | `Figure` |
//! | one line of plain text (a table's text form, a chart's title and labels drawn in its SVG, an explorable's text line) | [`one_line`] | `Table::to_text`, the charts, `Explorable` |
//!
//! JSON (an explorable's Vega-Lite specification) is escaped by serde_json,
//! which writes a line break as `\n`: a specification is one line.

use std::borrow::Cow;

/// The characters that end a line of text: a line feed and a carriage
/// return (evcxr splits on the first, a terminal and Jupyter's text view
/// also act on the second), and the other breaks of Unicode (vertical tab,
/// form feed, next line, line and paragraph separators).
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{0B}' | '\u{0C}' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// `s` with each character that `escape` rewrites replaced by its text;
/// borrowed when there is none.
fn replace(s: &str, escape: impl Fn(char) -> Option<&'static str>) -> Cow<'_, str> {
    if !s.chars().any(|c| escape(c).is_some()) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match escape(c) {
            Some(e) => out.push_str(e),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` as HTML (or SVG) text between tags: `&`, `<` and `>` as entities, a
/// line feed and a carriage return as character references (`&#10;`,
/// `&#13;`: the same white space to a browser, but no line break in the
/// output). Quotes are kept: text between tags needs no escape for them.
pub(crate) fn html(s: &str) -> Cow<'_, str> {
    replace(s, |c| match c {
        '&' => Some("&amp;"),
        '<' => Some("&lt;"),
        '>' => Some("&gt;"),
        '\n' => Some("&#10;"),
        '\r' => Some("&#13;"),
        _ => None,
    })
}

/// `s` as the value of a double-quoted attribute (or any XML text): as
/// [`html`], and `"` as `&quot;`.
#[cfg(feature = "charts")]
pub(crate) fn attribute(s: &str) -> Cow<'_, str> {
    match html(s) {
        Cow::Borrowed(b) if !b.contains('"') => Cow::Borrowed(b),
        escaped => Cow::Owned(escaped.replace('"', "&quot;")),
    }
}

/// `s` on one line of plain text: each line break (a `\r\n` pair counts as
/// one) as a space, as HTML and SVG show one. For text that must stay one
/// line: a title, a label, a table's cell.
pub(crate) fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_break) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.replace("\r\n", " ").replace(is_break, " "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_comes_back_borrowed() {
        for s in ["", "Share of the keys on each node", "it's 50% · A → B", "tab\there", "é 💡"] {
            assert!(matches!(html(s), Cow::Borrowed(_)), "{s:?}");
            assert!(matches!(one_line(s), Cow::Borrowed(_)), "{s:?}");
        }
        assert!(matches!(html("say \"hi\""), Cow::Borrowed(_)));
        #[cfg(feature = "charts")]
        assert!(matches!(attribute("it's"), Cow::Borrowed(_)));
    }

    #[test]
    fn markup_and_line_breaks_are_text() {
        let title = "a < b & c > d\nEVCXR_END_CONTENT\r\n<b>\"x\"</b>";
        assert_eq!(html(title), "a &lt; b &amp; c &gt; d&#10;EVCXR_END_CONTENT&#13;&#10;&lt;b&gt;\"x\"&lt;/b&gt;");
        #[cfg(feature = "charts")]
        assert_eq!(
            attribute(title),
            "a &lt; b &amp; c &gt; d&#10;EVCXR_END_CONTENT&#13;&#10;&lt;b&gt;&quot;x&quot;&lt;/b&gt;"
        );
        assert_eq!(one_line(title), "a < b & c > d EVCXR_END_CONTENT <b>\"x\"</b>");
        assert_eq!(one_line("a\u{2028}b\u{85}c\rd\u{0B}e\u{0C}f\u{2029}g"), "a b c d e f g");
        for s in [html(title), one_line(title)] {
            assert!(!s.contains('\n') && !s.contains('\r'), "{s}");
        }
    }
}
