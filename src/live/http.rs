//! A small HTTP/1.1 client (std only): `POST` requests pipelined over one
//! keep-alive connection, each body sent as its bytes and each response
//! read by its `Content-Length` (nginx, feature `proxies`); a single `GET`,
//! for probes; and for etcd's JSON gateway (feature `etcd`) a JSON `POST`
//! whose response may come chunked, and a chunked response read line by
//! line as it comes (a watch).
//!
//! Requests go out in batches of `BATCH` before their responses are read,
//! in order, as HTTP/1.1 allows. A response that says `Connection: close`
//! (nginx does so after `keepalive_requests`) ends the connection: the
//! client reconnects and sends again the requests that got no response.

use super::client::CONNECT_WITHIN;
#[cfg(feature = "proxies")]
use super::client::REPLY_WITHIN;
use super::process::{HOST, PROBE_WITHIN};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Requests written before their responses are read.
#[cfg(feature = "proxies")]
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
    #[cfg(feature = "proxies")]
    fn post(&mut self, body: &[u8]) -> io::Result<()> {
        write!(self.writer, "POST / HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: {}\r\n\r\n", body.len())?;
        self.writer.write_all(body)
    }

    /// `POST path` with a JSON body, on a connection that stays open.
    #[cfg(feature = "etcd")]
    fn post_json(&mut self, path: &str, body: &[u8]) -> io::Result<()> {
        write!(
            self.writer,
            "POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )?;
        self.writer.write_all(body)
    }

    /// A response's status line and headers: the status, the body's length
    /// (`None`: chunked), and whether the server will close the connection.
    fn read_head(&mut self) -> io::Result<(u16, Option<usize>, bool)> {
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
        let (mut length, mut chunked, mut close) = (None, false, false);
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
                    if !value.eq_ignore_ascii_case("chunked") {
                        return Err(bad(format!("unexpected Transfer-Encoding: {value}")));
                    }
                    chunked = true;
                }
            }
        }
        match (length, chunked) {
            (Some(_), true) => Err(bad("a response both chunked and with a Content-Length".into())),
            (None, false) => Err(bad("a response without Content-Length".into())),
            (l, _) => Ok((status, l, close)),
        }
    }

    /// One response, and whether the server will close the connection.
    fn read(&mut self) -> io::Result<(Response, bool)> {
        self.read_within(1 << 20)
    }

    /// One response whose body is at most `max_body` bytes (chunked or not).
    fn read_within(&mut self, max_body: usize) -> io::Result<(Response, bool)> {
        let (status, length, close) = self.read_head()?;
        let too_long =
            |n: usize| io::Error::new(io::ErrorKind::InvalidData, format!("a response body of {n} bytes or more"));
        let body = match length {
            Some(n) if n > max_body => return Err(too_long(n)),
            Some(n) => {
                let mut body = vec![0; n];
                self.reader.read_exact(&mut body)?;
                body
            }
            None => {
                let mut body = Vec::new();
                while let Some(chunk) = read_chunk(&mut self.reader, max_body.saturating_sub(body.len()))? {
                    body.extend_from_slice(&chunk);
                }
                body
            }
        };
        Ok((Response { status, body }, close))
    }
}

/// The next chunk of a chunked body (`None` after the last, empty one);
/// fails when it is over `room` bytes.
fn read_chunk(reader: &mut impl BufRead, room: usize) -> io::Result<Option<Vec<u8>>> {
    let bad = |what: String| io::Error::new(io::ErrorKind::InvalidData, what);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed within a chunked body"));
    }
    let size = line.trim_end().split(';').next().unwrap_or("");
    let n = usize::from_str_radix(size.trim(), 16).map_err(|_| bad(format!("bad chunk size {size:?}")))?;
    if n == 0 {
        // the last chunk: trailer lines (etcd sends `Grpc-Trailer-…`), then an empty line
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 || line.trim_end().is_empty() {
                return Ok(None);
            }
        }
    }
    if n > room {
        return Err(bad(format!("a response body of {n} bytes or more")));
    }
    let mut chunk = vec![0; n];
    reader.read_exact(&mut chunk)?;
    let mut end = [0u8; 2];
    reader.read_exact(&mut end)?;
    if end != *b"\r\n" {
        return Err(bad("a chunk not followed by CRLF".into()));
    }
    Ok(Some(chunk))
}

/// `POST /` with each body (`body(i)` for `i` in `0..count`) on
/// `127.0.0.1:port`, pipelined over one keep-alive connection, each read
/// and write within [`REPLY_WITHIN`]; the responses in order.
#[cfg(feature = "proxies")]
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

/// `POST path` with the JSON `body` on `127.0.0.1:port`, on a connection
/// of its own whose reads and writes may each take `within`; the response,
/// its body at most `max_body` bytes (sent with a length or chunked).
#[cfg(feature = "etcd")]
pub(crate) fn post_json(port: u16, path: &str, body: &[u8], within: Duration, max_body: usize) -> io::Result<Response> {
    let mut conn = Conn::open(port, within)?;
    conn.post_json(path, body)?;
    conn.writer.flush()?;
    Ok(conn.read_within(max_body)?.0)
}

/// A response read as it comes: the lines of a chunked body that does not
/// end (etcd's watch), one JSON message a line.
#[cfg(feature = "etcd")]
pub(crate) struct Stream {
    reader: BufReader<TcpStream>,
    pending: Vec<u8>,
    ended: bool,
    /// The response's status.
    pub(crate) status: u16,
}

#[cfg(feature = "etcd")]
impl Stream {
    /// `POST path` with `body`, then the response's head: the stream, and
    /// a handle on its connection (shut it down to end a blocked read).
    /// Reads may each take `within` (`None`: for ever).
    pub(crate) fn post(
        port: u16,
        path: &str,
        body: &[u8],
        within: Option<Duration>,
    ) -> io::Result<(Stream, TcpStream)> {
        let mut conn = Conn::open(port, PROBE_WITHIN)?;
        conn.post_json(path, body)?;
        conn.writer.flush()?;
        let (status, length, _) = conn.read_head()?;
        let handle = conn.writer.get_ref().try_clone()?;
        handle.set_read_timeout(within)?;
        let mut s = Stream { reader: conn.reader, pending: Vec::new(), ended: false, status };
        if let Some(n) = length {
            // not a stream: the whole body now (an error's message)
            let mut body = vec![0; n.min(1 << 20)];
            s.reader.read_exact(&mut body)?;
            s.pending = body;
            s.pending.push(b'\n');
            s.ended = true;
        }
        Ok((s, handle))
    }

    /// The next line of the body, without its newline (`None` when the
    /// body ended); a line over `max` bytes is an error.
    pub(crate) fn next_line(&mut self, max: usize) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.pending.drain(..=at).collect();
                line.pop();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Ok(Some(line));
            }
            if self.ended {
                return Ok(None);
            }
            let room = max.saturating_sub(self.pending.len());
            match read_chunk(&mut self.reader, room)? {
                Some(chunk) => self.pending.extend_from_slice(&chunk),
                None => {
                    self.ended = true;
                    self.pending.push(b'\n');
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_with_and_without_trailers() {
        // etcd's gateway: one chunk, the last one, a trailer, the empty line
        let text = b"6c\r\n{\"error\":\"x\"}\r\n0\r\nGrpc-Trailer-Content-Type: application/grpc\r\n\r\nNEXT";
        let mut r = std::io::Cursor::new(&text[..]);
        // (the size says 0x6c bytes: short here, so a read of it fails as a short body)
        assert!(read_chunk(&mut r, 1 << 20).is_err());
        let text = b"3\r\nabc\r\n2; ext\r\nde\r\n0\r\nTrailer: 1\r\n\r\nNEXT";
        let mut r = std::io::Cursor::new(&text[..]);
        assert_eq!(read_chunk(&mut r, 10).unwrap(), Some(b"abc".to_vec()));
        assert_eq!(read_chunk(&mut r, 10).unwrap(), Some(b"de".to_vec()));
        assert_eq!(read_chunk(&mut r, 10).unwrap(), None);
        let mut rest = String::new();
        r.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "NEXT"); // the trailer was read to its end
        let mut r = std::io::Cursor::new(&b"0\r\n\r\n"[..]);
        assert_eq!(read_chunk(&mut r, 10).unwrap(), None);
        let mut r = std::io::Cursor::new(&b"ff\r\n"[..]);
        assert!(read_chunk(&mut r, 10).is_err()); // over the room left
        let mut r = std::io::Cursor::new(&b"3\r\nabcXY"[..]);
        assert!(read_chunk(&mut r, 10).is_err());
    }
}
