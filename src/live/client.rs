//! A few lines of RESP, the Redis protocol, over a `TcpStream` (std only:
//! nothing to compile in a notebook's first cell): one command at a time,
//! or pipelined in batches.
//!
//! ```
//! use reshard::live::Reply;
//! assert_eq!(Reply::Integer(42).text(), "42");
//! assert!(Reply::Error("MOVED 866 127.0.0.1:30467".into()).is_error());
//! ```

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

    /// The integer of an integer reply, else [`Error::UnexpectedReply`]
    /// (its `node` empty: see [`Reply::integer_from`]).
    pub fn integer(&self) -> Result<i64> {
        self.integer_from("", 0, "a command")
    }

    /// The integer of an integer reply that server `node` on `port` gave
    /// to `doing`, else [`Error::UnexpectedReply`] naming them.
    pub fn integer_from(&self, node: &str, port: u16, doing: &str) -> Result<i64> {
        match self {
            Reply::Integer(i) => Ok(*i),
            other => Err(Error::UnexpectedReply {
                node: node.to_string(),
                port,
                doing: format!("{doing} (an integer reply)"),
                got: format!("{other:?}"),
            }),
        }
    }
}

/// How long connecting to a server may take.
pub const CONNECT_WITHIN: Duration = Duration::from_secs(2);

/// How long a server may take to answer (each read, each write of a
/// connection), unless the driver sets another limit.
pub const REPLY_WITHIN: Duration = Duration::from_secs(10);

/// A reply timeout a caller sets ([`Cluster`](super::Cluster) and
/// [`Etcd`](super::Etcd) take one): more than 0.
pub(crate) fn reply_timeout(within: Duration) -> Result<Duration> {
    if within.is_zero() {
        return Err(Error::OutOfRange {
            what: "reply timeout",
            given: "0 s".into(),
            allowed: "more than 0, e.g. 10 s".into(),
        });
    }
    Ok(within)
}

/// An I/O error while asking server `node` on `port` to do `doing`, as a
/// typed error naming both: [`Error::ServerTimeout`] (of `waited`) when a
/// read or write ran out of time, else [`Error::ServerFailed`].
pub(crate) fn node_error(node: &str, port: u16, doing: &str, waited: Duration, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            Error::ServerTimeout { node: node.to_string(), port, doing: doing.to_string(), waited }
        }
        _ => Error::ServerFailed {
            node: node.to_string(),
            port,
            problem: format!("{doing} failed (has it stopped?)"),
            source: Some(e.into()),
        },
    }
}

/// One connection to one server, named for its errors.
pub(crate) struct Conn {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
    node: String,
    port: u16,
    within: Duration,
}

impl Conn {
    /// A connection to server `node` on `port`, whose replies may each take
    /// [`REPLY_WITHIN`].
    #[cfg(feature = "proxies")]
    pub(crate) fn open(node: &str, port: u16) -> Result<Conn> {
        Conn::open_within(node, port, REPLY_WITHIN)
    }

    /// A connection whose reads and writes may each take `within` (not 0).
    pub(crate) fn open_within(node: &str, port: u16, within: Duration) -> Result<Conn> {
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let stream = TcpStream::connect_timeout(&addr, CONNECT_WITHIN)
            .map_err(|e| node_error(node, port, "connect", CONNECT_WITHIN, e))?;
        let set = |s: &TcpStream| {
            s.set_read_timeout(Some(within))?;
            s.set_write_timeout(Some(within))?;
            s.set_nodelay(true)?;
            s.try_clone()
        };
        let reader = set(&stream).map_err(|e| node_error(node, port, "set up the connection", within, e))?;
        Ok(Conn {
            reader: BufReader::with_capacity(1 << 16, reader),
            writer: BufWriter::with_capacity(1 << 16, stream),
            node: node.to_string(),
            port,
            within,
        })
    }

    fn fail(&self, doing: &str) -> impl Fn(io::Error) -> Error + use<'_> {
        let doing = doing.to_string();
        move |e| node_error(&self.node, self.port, &doing, self.within, e)
    }

    /// The next reply (e.g. of a `MONITOR` stream).
    #[cfg(feature = "proxies")]
    pub(crate) fn next(&mut self) -> Result<Reply> {
        self.read().map_err(|e| node_error(&self.node, self.port, "a reply", self.within, e))
    }

    /// Send one command and read its reply.
    pub(crate) fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Result<Reply> {
        let doing = command_text(args);
        let r = self.send(args).and_then(|()| self.writer.flush()).and_then(|()| self.read());
        r.map_err(self.fail(&doing))
    }

    /// Send every command, `BATCH` at a time before reading their replies,
    /// and give each reply to `each` in order.
    pub(crate) fn pipeline<I, C, A>(&mut self, commands: I, each: impl FnMut(Reply)) -> Result<()>
    where
        I: IntoIterator<Item = C>,
        C: AsRef<[A]>,
        A: AsRef<[u8]>,
    {
        let mut first = None;
        let r = self.pipeline_io(commands, each, &mut first);
        r.map_err(self.fail(&format!("{} (pipelined)", first.unwrap_or_default())))
    }

    fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) -> io::Result<()> {
        write!(self.writer, "*{}\r\n", args.len())?;
        for a in args {
            let a = a.as_ref();
            write!(self.writer, "${}\r\n", a.len())?;
            self.writer.write_all(a)?;
            self.writer.write_all(b"\r\n")?;
        }
        Ok(())
    }

    fn read(&mut self) -> io::Result<Reply> {
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

    fn pipeline_io<I, C, A>(
        &mut self,
        commands: I,
        mut each: impl FnMut(Reply),
        first: &mut Option<String>,
    ) -> io::Result<()>
    where
        I: IntoIterator<Item = C>,
        C: AsRef<[A]>,
        A: AsRef<[u8]>,
    {
        let mut pending = 0;
        for c in commands {
            first.get_or_insert_with(|| command_text(c.as_ref()));
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

/// A command's name for a message: its first word, and the second after
/// `CLUSTER` (`SET`, `CLUSTER NODES`); no keys.
fn command_text<A: AsRef<[u8]>>(args: &[A]) -> String {
    let word = |i: usize| args.get(i).map_or(String::new(), |a| String::from_utf8_lossy(a.as_ref()).into_owned());
    match word(0) {
        w if w.eq_ignore_ascii_case("cluster") => format!("{w} {}", word(1)),
        w => w,
    }
}
