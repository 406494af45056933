//! Which keys each redis backend received: `MONITOR` on every backend while
//! requests go through the proxy, ended by an `ECHO` of a fresh token sent
//! to each backend directly once every request was answered.

use crate::live::client::{Conn, Reply};
use crate::live::process::next_number;
use crate::{Error, Result};
use std::time::Duration;

/// How long a monitor stream may stay silent while requests go through the
/// proxy (a backend that gets no request sends nothing until the end).
const SILENT_WITHIN: Duration = Duration::from_secs(60);

/// Run `work` while every backend `(index, name, port)` is monitored;
/// returns what `work` returned and, per backend index, the keys of the
/// `GET`s it received meanwhile.
#[allow(clippy::type_complexity)]
pub(super) fn watch<T>(
    backends: &[(usize, String, u16)],
    work: impl FnOnce() -> Result<T>,
) -> Result<(T, Vec<(usize, Vec<Vec<u8>>)>)> {
    let token = format!("reshard-end-{}-{}", std::process::id(), next_number());
    let mut monitors = Vec::new();
    for (n, name, port) in backends {
        let mut c = Conn::open_within(name, *port, SILENT_WITHIN)?;
        match c.call(&["MONITOR"])? {
            Reply::Status(s) if s == "OK" => monitors.push((*n, c)),
            other => {
                return Err(Error::UnexpectedReply {
                    node: name.clone(),
                    port: *port,
                    doing: "MONITOR".into(),
                    got: format!("{other:?}"),
                })
            }
        }
    }
    std::thread::scope(|scope| {
        let token = token.as_bytes();
        let readers: Vec<_> =
            monitors.into_iter().map(|(n, mut c)| scope.spawn(move || (n, read_until(&mut c, token)))).collect();
        let result = work();
        // Every request was answered: what the backends received is in
        // their monitor streams before this ECHO.
        let ended: Vec<Result<Reply>> = backends
            .iter()
            .map(|(_, name, port)| Conn::open(name, *port).and_then(|mut c| c.call(&["ECHO", &token_text(token)])))
            .collect();
        let mut seen = Vec::new();
        for r in readers {
            let (n, keys) = r.join().map_err(|_| Error::ThreadPanicked { task: "reading a MONITOR stream" })?;
            seen.push((n, keys?));
        }
        for e in ended {
            e?;
        }
        Ok((result?, seen))
    })
}

fn token_text(token: &[u8]) -> String {
    String::from_utf8_lossy(token).into_owned()
}

/// The keys of every `GET` in the monitor stream, up to `ECHO token`.
fn read_until(c: &mut Conn, token: &[u8]) -> Result<Vec<Vec<u8>>> {
    let mut keys = Vec::new();
    loop {
        let Reply::Status(line) = c.next()? else { continue };
        let args = monitor_args(&line);
        match args.as_slice() {
            [cmd, key] if cmd.eq_ignore_ascii_case(b"get") => keys.push(key.clone()),
            [cmd, t] if cmd.eq_ignore_ascii_case(b"echo") && t == token => return Ok(keys),
            _ => {}
        }
    }
}

/// The arguments of one `MONITOR` line, `1700000000.123456 [0
/// 127.0.0.1:5000] "get" "user:1"`, unquoted (`\"`, `\\`, `\n`, `\r`, `\t`,
/// `\a`, `\b`, `\xHH`, as Redis quotes them).
pub(super) fn monitor_args(line: &str) -> Vec<Vec<u8>> {
    let Some((_, rest)) = line.split_once("] ") else {
        return Vec::new();
    };
    let b = rest.as_bytes();
    let mut args = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        i += 1;
        let mut arg = Vec::new();
        while i < b.len() && b[i] != b'"' {
            if b[i] == b'\\' && i + 1 < b.len() {
                i += 1;
                match b[i] {
                    b'n' => arg.push(b'\n'),
                    b'r' => arg.push(b'\r'),
                    b't' => arg.push(b'\t'),
                    b'a' => arg.push(7),
                    b'b' => arg.push(8),
                    b'x' if i + 2 < b.len() => {
                        let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                        arg.push(hex.and_then(|h| u8::from_str_radix(h, 16).ok()).unwrap_or(b'?'));
                        i += 2;
                    }
                    other => arg.push(other),
                }
            } else {
                arg.push(b[i]);
            }
            i += 1;
        }
        args.push(arg);
        i += 1;
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monitor_lines_unquoted() {
        // As redis-server 7.0 prints them (copied from a MONITOR session).
        let a = monitor_args(r#"1796121713.458241 [0 127.0.0.1:41538] "get" "we\"ird\\key""#);
        assert_eq!(a, [b"get".to_vec(), b"we\"ird\\key".to_vec()]);
        let b = monitor_args(r#"1.0 [0 127.0.0.1:1] "SET" "a\x00b\nc" "x y""#);
        assert_eq!(b, [b"SET".to_vec(), b"a\0b\nc".to_vec(), b"x y".to_vec()]);
        assert!(monitor_args("OK").is_empty());
    }
}
