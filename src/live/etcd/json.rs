//! Just enough JSON for etcd's gateway (std only): a parser into a small
//! tree, and the few lookups the driver needs. etcd writes 64-bit numbers
//! as strings and leaves out false, zero and empty fields, so a missing
//! field reads as its zero.

/// A parsed JSON value. Numbers keep their text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Number(String),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// How deep a document may nest (etcd's answers nest 5 deep).
const MAX_DEPTH: usize = 64;

impl Json {
    /// Parse a whole document; `Err` says where it went wrong.
    pub(crate) fn parse(text: &[u8]) -> Result<Json, String> {
        let mut p = Parser { s: text, i: 0 };
        let v = p.value(0)?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("unexpected text at byte {}", p.i));
        }
        Ok(v)
    }

    /// Field `name` of an object.
    pub(crate) fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string (or a number's text).
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Json::Str(s) | Json::Number(s) => Some(s),
            _ => None,
        }
    }

    /// Field `name` as an unsigned number (etcd writes them as strings);
    /// 0 when absent, `None` when present and not a number.
    pub(crate) fn u64_field(&self, name: &str) -> Option<u64> {
        match self.get(name) {
            None | Some(Json::Null) => Some(0),
            Some(v) => v.text()?.parse().ok(),
        }
    }

    /// Field `name` as a signed number; 0 when absent.
    pub(crate) fn i64_field(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            None | Some(Json::Null) => Some(0),
            Some(v) => v.text()?.parse().ok(),
        }
    }

    /// Field `name` as a bool; false when absent.
    pub(crate) fn bool_field(&self, name: &str) -> bool {
        matches!(self.get(name), Some(Json::Bool(true)))
    }

    /// Field `name` as a list; empty when absent.
    pub(crate) fn list(&self, name: &str) -> &[Json] {
        match self.get(name) {
            Some(Json::Array(items)) => items,
            _ => &[],
        }
    }
}

/// `s` as a JSON string literal.
#[cfg(test)]
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                use std::fmt::Write as _;
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", b as char, self.i))
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("unexpected text at byte {}", self.i))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        self.ws();
        match self.s.get(self.i) {
            None => Err("the document ends early".into()),
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Object(fields));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    fields.push((k, self.value(depth + 1)?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Object(fields));
                        }
                        _ => return Err(format!("expected ',' or '}}' at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                while self.i < self.s.len() && matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.i += 1;
                }
                Ok(Json::Number(String::from_utf8_lossy(&self.s[start..self.i]).into_owned()))
            }
            Some(_) => Err(format!("unexpected text at byte {}", self.i)),
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.s.get(self.i..self.i + 4).ok_or("a \\u escape ends early")?;
        let v = std::str::from_utf8(h).ok().and_then(|h| u32::from_str_radix(h, 16).ok());
        self.i += 4;
        v.ok_or_else(|| format!("a bad \\u escape at byte {}", self.i - 4))
    }

    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(format!("expected a string at byte {}", self.i));
        }
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return Err("a string ends early".into());
            };
            self.i += 1;
            match b {
                b'"' => return String::from_utf8(out).map_err(|_| "a string that is not UTF-8".into()),
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return Err("an escape ends early".into());
                    };
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                0x10000 + ((hi - 0xd800) << 10) + lo.wrapping_sub(0xdc00).min(0x3ff)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{fffd}')
                        }
                        _ => return Err(format!("a bad escape at byte {}", self.i - 1)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                b => out.push(b),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etcd_answers_parse() {
        let text = br#"{"header":{"revision":"3","raft_term":"2"},"kvs":[{"key":"Zm9v","version":"1"}],"count":"1","more":false,"x":[1.5e3,null,true]}"#;
        let v = Json::parse(text).unwrap();
        assert_eq!(v.get("header").unwrap().u64_field("revision"), Some(3));
        assert_eq!(v.list("kvs")[0].get("key").unwrap().text(), Some("Zm9v"));
        assert_eq!(v.u64_field("absent"), Some(0));
        assert!(!v.bool_field("more") && v.list("none").is_empty());
        assert_eq!(Json::parse(br#""a\u00e9\ud83d\ude00\n""#).unwrap(), Json::Str("aé😀\n".into()));
        assert!(Json::parse(b"{").is_err() && Json::parse(b"[1,]").is_err() && Json::parse(b"{} x").is_err());
        assert!(Json::parse(&[b'['; 100]).is_err());
        assert_eq!(quote("a\"b\\\u{1}"), r#""a\"b\\\u0001""#);
    }
}
