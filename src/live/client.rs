//! A few lines of RESP, the Redis protocol, over a `TcpStream` (std only:
//! nothing to compile in a notebook's first cell): one command at a time,
//! or pipelined in batches.
//!
//! ```
//! use reshard::live::Reply;
//! assert_eq!(Reply::Integer(42).text(), "42");
//! assert!(Reply::Error("MOVED 866 127.0.0.1:30467".into()).is_error());
//! ```

use crate::live::server::HOST;
use crate::{Error, Result};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Commands written before their replies are read, when pipelining.
const BATCH: usize = 4096;

/// A reply from a Redis server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// `+OK`
    Status(String),
    /// `-MOVED 3999 127.0.0.1:6381`
    Error(String),
    /// `:42`
    Integer(i64),
    /// `$…`: a string, or nil.
    Bulk(Option<Vec<u8>>),
    /// `*…`: replies, or nil.
    Array(Option<Vec<Reply>>),
}

impl Reply {
    /// The reply as text (nil prints as `(nil)`, arrays one item a line).
    pub fn text(&self) -> String {
        match self {
            Reply::Status(s) | Reply::Error(s) => s.clone(),
            Reply::Integer(i) => i.to_string(),
            Reply::Bulk(Some(b)) => String::from_utf8_lossy(b).into_owned(),
            Reply::Bulk(None) | Reply::Array(None) => "(nil)".into(),
            Reply::Array(Some(items)) => items.iter().map(Reply::text).collect::<Vec<_>>().join("\n"),
        }
    }

    /// True for an error reply (`-ERR …`, `-MOVED …`, `-ASK …`).
    pub fn is_error(&self) -> bool {
        matches!(self, Reply::Error(_))
    }

    /// The integer of an integer reply, else an error.
    pub fn integer(&self) -> Result<i64> {
        match self {
            Reply::Integer(i) => Ok(*i),
            other => Err(Error::Redis(format!("expected an integer reply, got {other:?}"))),
        }
    }
}

/// One connection to one server.
pub(crate) struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
}

impl Conn {
    pub(crate) fn open(port: u16) -> io::Result<Conn> {
        let addr: SocketAddr = format!("{HOST}:{port}").parse().expect("a valid address");
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        stream.set_read_timeout(Some(Duration::from_secs(120)))?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            reader: BufReader::with_capacity(1 << 16, stream.try_clone()?),
            writer: BufWriter::with_capacity(1 << 16, stream),
        })
    }

    pub(crate) fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<()> {
        write!(self.writer, "*{}\r\n", args.len())?;
        for a in args {
            let a = a.as_ref();
            write!(self.writer, "${}\r\n", a.len())?;
            self.writer.write_all(a)?;
            self.writer.write_all(b"\r\n")?;
        }
        Ok(())
    }

    pub(crate) fn read(&mut self) -> io::Result<Reply> {
        let mut line = Vec::with_capacity(64);
        self.reader.read_until(b'\n', &mut line)?;
        if line.len() < 3 || !line.ends_with(b"\r\n") {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the server closed the connection"));
        }
        let body = String::from_utf8_lossy(&line[1..line.len() - 2]).into_owned();
        let number = |s: &str| {
            s.parse::<i64>().map_err(|_| io::Error::new(io::ErrorKind::InvalidData, format!("bad length {s:?}")))
        };
        Ok(match line[0] {
            b'+' => Reply::Status(body),
            b'-' => Reply::Error(body),
            b':' => Reply::Integer(number(&body)?),
            b'$' => match number(&body)? {
                n if n < 0 => Reply::Bulk(None),
                n => {
                    let mut buf = vec![0; n as usize + 2];
                    self.reader.read_exact(&mut buf)?;
                    buf.truncate(n as usize);
                    Reply::Bulk(Some(buf))
                }
            },
            b'*' => match number(&body)? {
                n if n < 0 => Reply::Array(None),
                n => Reply::Array(Some((0..n).map(|_| self.read()).collect::<io::Result<_>>()?)),
            },
            other => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("unknown reply type {:?}", other as char),
                ))
            }
        })
    }

    pub(crate) fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<Reply> {
        self.send(args)?;
        self.writer.flush()?;
        self.read()
    }

    /// Send every command, `BATCH` at a time before reading their replies,
    /// and give each reply to `each` in order.
    pub(crate) fn pipeline<I, C, A>(&mut self, commands: I, mut each: impl FnMut(Reply)) -> io::Result<()>
    where
        I: IntoIterator<Item = C>,
        C: AsRef<[A]>,
        A: AsRef<[u8]>,
    {
        let mut pending = 0;
        for c in commands {
            self.send(c.as_ref())?;
            pending += 1;
            if pending == BATCH {
                self.writer.flush()?;
                for _ in 0..pending {
                    each(self.read()?);
                }
                pending = 0;
            }
        }
        self.writer.flush()?;
        for _ in 0..pending {
            each(self.read()?);
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// One server under its watchdog
