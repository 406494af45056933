//! How text crosses `psql`, both ways: SQL literals and identifiers,
//! `COPY` fields on the way in, CSV rows on the way out, and text read as
//! the hex of its bytes where every code point must come back (psql drops
//! some from text it prints, U+10FFFF among them).

use crate::{Error, Result};

/// The first line of a script, shortened, for messages.
pub(crate) fn first_line(script: &str) -> String {
    let line = script.trim_start().lines().next().unwrap_or("");
    if line.chars().count() > 80 {
        format!("{}…", line.chars().take(80).collect::<String>())
    } else {
        line.to_string()
    }
}

/// psql's `--csv` output as rows of fields: a field with a comma, a quote
/// or a line break is quoted, a quote inside doubled.
pub(crate) fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut started) = (false, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    field.push('"');
                    chars.next();
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                started = false;
                continue;
            }
            _ => field.push(c),
        }
        started = true;
    }
    if started || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// SQL for the bytes of the text expression `expr` as hex digits:
/// `encode(convert_to(expr, 'UTF8'), 'hex')`. psql prints a text field
/// through its own checks, which drop some code points (U+10FFFF among
/// them); hex digits come through as they are, and [`unhex`] reads the text
/// back exactly.
pub(crate) fn hex_text(expr: &str) -> String {
    format!("encode(convert_to({expr}, 'UTF8'), 'hex')")
}

/// The text whose UTF-8 bytes `hex` spells (from [`hex_text`]); `None` when
/// `hex` is not pairs of hex digits of UTF-8.
pub(crate) fn unhex(hex: &str) -> Option<String> {
    let digit = |b: u8| (b as char).to_digit(16);
    let bytes = hex.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    let decoded: Option<Vec<u8>> = bytes.chunks(2).map(|p| Some((digit(p[0])? * 16 + digit(p[1])?) as u8)).collect();
    String::from_utf8(decoded?).ok()
}

/// `s` as an SQL string literal: quotes doubled (standard_conforming_strings
/// is on, so a backslash is itself).
pub(crate) fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// `s` as a COPY text-format field: backslash, tab, newline and carriage
/// return escaped.
pub(crate) fn copy_field(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            _ => out.push(c),
        }
    }
}

/// Check that a table or column name is a plain lower-case SQL identifier.
pub(crate) fn check_identifier(what: &'static str, name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(Error::UnknownName {
            what,
            given: name.to_string(),
            choices: "1 to 40 lower-case letters, digits and _, starting with a letter or _ (e.g. orders)".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_with_commas_quotes_and_newlines_come_back_whole() {
        let out = "a,1\n\"b,c\",\"say \"\"hi\"\"\"\n\"two\nlines\",\n,\n";
        let rows = parse_csv(out);
        assert_eq!(
            rows,
            vec![
                vec!["a".to_string(), "1".into()],
                vec!["b,c".into(), "say \"hi\"".into()],
                vec!["two\nlines".into(), "".into()],
                vec!["".into(), "".into()],
            ]
        );
        assert!(parse_csv("").is_empty());
    }

    #[test]
    fn literals_and_copy_fields_escape_what_they_must() {
        assert_eq!(literal("it's"), "'it''s'");
        assert_eq!(literal(r"a\b"), r"'a\b'");
        let mut f = String::new();
        copy_field("a\tb\\c\nd\re", &mut f);
        assert_eq!(f, r"a\tb\\c\nd\re");
    }

    #[test]
    fn hex_reads_back_every_code_point() {
        // the bytes by hand: U+10FFFF is F4 8F BF BF in UTF-8 (RFC 3629), é is C3 A9
        assert_eq!(unhex("78f48fbfbf").as_deref(), Some("x\u{10FFFF}"));
        assert_eq!(unhex("C3A9").as_deref(), Some("é"));
        assert_eq!(unhex("").as_deref(), Some(""));
        for bad in ["7", "zz", "ff", "c3", "78 "] {
            assert_eq!(unhex(bad), None, "{bad:?}");
        }
        assert_eq!(hex_text("key"), "encode(convert_to(key, 'UTF8'), 'hex')");
    }

    #[test]
    fn identifiers_are_checked() {
        assert!(check_identifier("table name", "orders_2026").is_ok());
        for bad in ["", "Orders", "1x", "a-b", "a b", "x;drop", &"a".repeat(41)] {
            assert!(check_identifier("table name", bad).is_err(), "{bad:?}");
        }
    }
}
