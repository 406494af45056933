//! The escapes of a key dump: `\xHH` for a byte, `\\` for a backslash,
//! every other byte for itself.

use crate::{Error, Result};

/// Decode one key written with the escapes, appending its bytes to `out`:
/// `\xHH` (exactly two hex digits) is the byte HH, `\\` a backslash, and
/// every other byte stands for itself. On an error `out` may hold part of
/// the key.
pub fn unescape_into(text: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let mut rest = text;
    while let Some(at) = rest.iter().position(|&b| b == b'\\') {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at..];
        match rest.get(1) {
            Some(b'\\') => {
                out.push(b'\\');
                rest = &rest[2..];
            }
            Some(b'x') => match rest.get(2..4) {
                Some(&[h, l]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                    out.push(hex_value(h) << 4 | hex_value(l));
                    rest = &rest[4..];
                }
                _ => {
                    let text = String::from_utf8_lossy(&rest[..rest.len().min(4)]).into_owned();
                    return Err(Error::BadEscape { text });
                }
            },
            _ => {
                let text = String::from_utf8_lossy(&rest[..rest.len().min(2)]).into_owned();
                return Err(Error::BadEscape { text });
            }
        }
    }
    out.extend_from_slice(rest);
    Ok(())
}

/// One key written with the escapes, decoded (see [`unescape_into`]).
///
/// ```
/// use reshard::keys::{escape, unescape};
/// assert_eq!(unescape(br"\xff\xfe{a}\\")?, b"\xff\xfe{a}\\");
/// assert!(unescape(br"\x+f").is_err()); // exactly two hex digits
/// assert_eq!(escape(b"\xff\\a\n"), r"\xff\\a\x0a");
/// # Ok::<(), reshard::Error>(())
/// ```
pub fn unescape(text: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    unescape_into(text, &mut out)?;
    Ok(out)
}

/// The value of one ASCII hex digit.
pub(crate) fn hex_value(d: u8) -> u8 {
    match d {
        b'0'..=b'9' => d - b'0',
        b'a'..=b'f' => d - b'a' + 10,
        _ => d.wrapping_sub(b'A').wrapping_add(10),
    }
}

/// Bytes written with the escapes [`unescape`] reads: printable text as
/// is, `\` as `\\`, control characters and bytes that are not UTF-8 as
/// `\xHH`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                c if c.is_control() => {
                    let mut buf = [0; 4];
                    c.encode_utf8(&mut buf).bytes().for_each(|b| push_byte_escape(&mut out, b));
                }
                c => out.push(c),
            }
        }
        chunk.invalid().iter().for_each(|&b| push_byte_escape(&mut out, b));
    }
    out
}

/// `\xHH` for the byte `b`, lower-case hex.
fn push_byte_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push_str("\\x");
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}
