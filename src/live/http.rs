//! A small HTTP/1.1 client: `POST` requests pipelined over one keep-alive
//! connection, each body sent as its bytes and each response read by its
//! `Content-Length` (std only); and a single `GET`, for probes.
//!
//! Requests go out in batches of [`BATCH`] before their responses are read,
//! in order, as HTTP/1.1 allows. A response that says `Connection: close`
//! (nginx does so after `keepalive_requests`) ends the connection: the
//! client reconnects and sends again the requests that got no response.

use super::client::{CONNECT_WITHIN, REPLY_WITHIN};
use super::process::{HOST, PROBE_WITHIN};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Requests written before their responses are read.
const BATCH: usize = 256;

/// One response: the status code and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
}

impl Conn {
    fn open(port: u16, within: Duration) -> io::Result<Conn> {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        // A connect that times out is reported as refused: the caller's
        // timeout error states the reply timeout, not this one.
        let stream = TcpStream::connect_timeout(&addr, CONNECT_WITHIN).map_err(|e| match e.kind() {
            io::ErrorKind::TimedOut => io::Error::new(
                io::ErrorKind::ConnectionRefused,
                format!("no connection within {} s", CONNECT_WITHIN.as_secs()),
            ),
            _ => e,
        })?;
        stream.set_read_timeout(Some(within))?;
        stream.set_write_timeout(Some(within))?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            reader: BufReader::with_capacity(1 << 16, stream.try_clone()?),
            writer: BufWriter::with_capacity(1 << 16, stream),
        })
    }

    fn send(&mut self, path: &str) -> io::Result<()> {
        write!(self.writer, "GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n")
    }

    /// `POST /` with `body` as it is: any bytes, NUL and newlines included.
    fn post(&mut self, body: &[u8]) -> io::Result<()> {
        write!(self.writer, "POST / HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {}\r\n\r\n", body.len())?;
        self.writer.write_all(body)
    }

    /// One response, and whether the server will close the connection.
    fn read(&mut self) -> io::Result<(Response, bool)> {
        let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        // "HTTP/1.1 200 OK"
        let status = line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or_else(|| bad(format!("not an HTTP status line: {line:?}")))?;
        let (mut length, mut close) = (None, false);
        loop {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed within a header"));
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                let value = value.trim();
                if name.eq_ignore_ascii_case("content-length") {
                    length = Some(value.parse::<usize>().map_err(|_| bad(format!("bad length {value:?}")))?);
                } else if name.eq_ignore_ascii_case("connection") && value.eq_ignore_ascii_case("close") {
                    close = true;
                } else if name.eq_ignore_ascii_case("transfer-encoding") {
                    return Err(bad(format!("unexpected Transfer-Encoding: {value}")));
                }
            }
        }
        let length = length.ok_or_else(|| bad("a response without Content-Length".into()))?;
        if length > 1 << 20 {
            return Err(bad(format!("a response body of {length} bytes")));
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok((Response { status, body }, close))
    }
}

/// `POST /` with each body (`body(i)` for `i` in `0..count`) on
/// `127.0.0.1:port`, pipelined over one keep-alive connection, each read
/// and write within [`REPLY_WITHIN`]; the responses in order.
pub(crate) fn post_all<'a>(port: u16, count: usize, body: impl Fn(usize) -> &'a [u8]) -> io::Result<Vec<Response>> {
    let mut out = Vec::with_capacity(count);
    let mut conn = Conn::open(port, REPLY_WITHIN)?;
    let mut reconnects = 0;
    while out.len() < count {
        let batch = out.len()..count.min(out.len() + BATCH);
        for i in batch.clone() {
            conn.post(body(i))?;
        }
        conn.writer.flush()?;
        let mut closed = false;
        for _ in batch {
            let (r, close) = conn.read()?;
            out.push(r);
            if close {
                closed = true;
                break;
            }
        }
        if closed {
            reconnects += 1;
            if reconnects > count / 16 + 8 {
                return Err(io::Error::other("the server keeps closing the connection"));
            }
            conn = Conn::open(port, REPLY_WITHIN)?;
        }
    }
    Ok(out)
}

/// `GET path` on `127.0.0.1:port`, on a connection of its own: a probe,
/// answered within [`PROBE_WITHIN`].
pub(crate) fn get(port: u16, path: &str) -> io::Result<Response> {
    let mut conn = Conn::open(port, PROBE_WITHIN)?;
    conn.send(path)?;
    conn.writer.flush()?;
    Ok(conn.read()?.0)
}
