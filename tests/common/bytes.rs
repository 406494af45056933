//! Keys that hold every byte value, written in a key dump (one key a line,
//! `\xHH` for a byte, `\\` for a backslash) as a reader's file would hold
//! them, and read back through `KeySet::from_reader`: the file → crate leg
//! of "a key keeps its bytes end to end".

use reshard::keys::escape;
use reshard::KeySet;

/// The dump: for every byte value b, a key `k{b}:` b `:end` (so NUL,
/// newline, CR, `\`, `"`, space and every byte above 0x7f each sit inside
/// a key); keys made only of one odd byte; a key that spells an escape
/// (`\x41`, four bytes) beside the byte it spells (`A`) and beside a real
/// `\xff`; a key spelled `\\`; UTF-8 that is valid (é, 💡) and invalid
/// (a lone continuation byte, a truncated sequence, an overlong form).
pub fn dump() -> String {
    let mut lines: Vec<String> = (0..=255u8).map(|b| format!("k{b}:\\x{b:02x}:end")).collect();
    for one in ["\\x00", "\\x0a", "\\x0d", "\\\\", "\\xff", "\\x80", "\\x7f", "\\x20"] {
        lines.push(one.to_string());
    }
    for spelled in [
        "\\\\x41",
        "A",
        "\\\\xff",
        "\\\\\\\\",
        "a\\\\nb",
        "a\\x0ab",
        "{tag}\\xff\\x00x",
        "é💡",
        "\\xc3",
        "\\xe2\\x82",
        "\\xc0\\xaf",
        "x\\xed\\xa0\\x80",
    ] {
        lines.push(spelled.to_string());
    }
    lines.join("\n") + "\n"
}

/// The keys of [`dump`], read as a reader would read a file.
pub fn keys() -> KeySet {
    KeySet::from_reader(dump().as_bytes()).expect("the dump reads")
}

/// Each key's bytes, as the dump means them.
pub fn bytes() -> Vec<Vec<u8>> {
    let keys = keys();
    let mut w = keys.writer();
    (0..keys.len()).map(|i| w.key(i).to_vec()).collect()
}

/// The dump's keys keep their bytes through the reader: every byte value
/// inside a key, the spelled escapes as their characters, no two equal.
pub fn check_the_file_leg() {
    let b = bytes();
    for v in 0..=255u8 {
        let mut want = format!("k{v}:").into_bytes();
        want.push(v);
        want.extend_from_slice(b":end");
        assert_eq!(b[usize::from(v)], want, "byte {v:#04x}");
    }
    let at = |k: &[u8]| b.iter().position(|x| x == k).unwrap_or_else(|| panic!("{} missing", escape(k)));
    assert_ne!(at(b"\\x41"), at(b"A"));
    assert_ne!(at(b"\\xff"), at(b"\xff"));
    assert_ne!(at(b"a\\nb"), at(b"a\nb"));
    assert_eq!(b[at(b"\\\\")], b"\\\\");
    let mut sorted = b.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), b.len(), "no two keys alike");
    // the display form writes them back as the dump does
    let keys = keys();
    let lines: Vec<String> = keys.iter().collect();
    assert_eq!(KeySet::from_reader((lines.join("\n") + "\n").as_bytes()).unwrap(), keys);
}
