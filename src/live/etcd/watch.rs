//! A watch: etcd pushes every change under a prefix, from a revision on,
//! down one HTTP response that does not end (a chunked stream of JSON
//! lines), read on a thread of its own.

use super::client::{check_rev, error_message, prefix_end, EtcdClient, Kv, MAX_KEY_BYTES};
use super::{base64, json::Json};
use crate::live::http::Stream;
use crate::{limits, Error, Result};
use std::net::{Shutdown, TcpStream};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, TryRecvError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest line of the stream the reader takes (a batch of events).
const MAX_LINE: usize = 64 << 20;

/// A put or a delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The key was written.
    Put,
    /// The key was deleted (by a delete, or its lease expiring).
    Delete,
}

/// One change, as the watch received it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WatchEvent {
    /// Put or delete.
    pub kind: EventKind,
    /// The key-value after the change (a deleted key: its key and the
    /// revision of the delete as `mod_revision`, nothing else).
    pub kv: Kv,
    /// When this process received it.
    pub received: Instant,
}

enum Msg {
    Created,
    Event(WatchEvent),
    Failed(Error),
}

/// Every change under a prefix, from a revision on; stops (its thread
/// and connection) when dropped.
pub struct Watch {
    rx: Receiver<Msg>,
    handle: TcpStream,
    thread: Option<JoinHandle<()>>,
    member: String,
    port: u16,
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watch").field("member", &self.member).field("port", &self.port).finish()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.handle.shutdown(Shutdown::Both);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl EtcdClient {
    /// Every change to keys under `prefix` from revision `from` on (0:
    /// from now).
    pub fn watch(&self, prefix: &[u8], from: u64) -> Result<Watch> {
        check_rev("start revision", from)?;
        limits::check_hint(
            "bytes in an etcd key",
            prefix.len() as u128,
            MAX_KEY_BYTES as u128,
            "use a shorter prefix",
        )?;
        Watch::start(self, prefix, from)
    }
}

impl Watch {
    fn start(client: &EtcdClient, prefix: &[u8], from: u64) -> Result<Watch> {
        let doing = format!("watch {} from revision {from}", crate::keys::escape(prefix));
        let key = if prefix.is_empty() { vec![0] } else { prefix.to_vec() };
        let body = format!(
            "{{\"create_request\":{{\"key\":\"{}\",\"range_end\":\"{}\",\"start_revision\":\"{from}\"}}}}",
            base64::encode(&key),
            base64::encode(&prefix_end(prefix))
        );
        let fail =
            |e| crate::live::client::node_error(client.member(), client.port(), &doing, Duration::from_secs(1), e);
        let (mut stream, handle) = Stream::post(client.port(), "/v3/watch", body.as_bytes(), None).map_err(fail)?;
        let (tx, rx) = mpsc::channel();
        let reader = client.clone();
        let what = doing.clone();
        let status = stream.status;
        let thread = std::thread::Builder::new()
            .name("reshard-etcd-watch".into())
            .spawn(move || loop {
                let line = match stream.next_line(MAX_LINE) {
                    Ok(Some(l)) => l,
                    Ok(None) => {
                        let _ = tx.send(Msg::Failed(reader.refused(&what, "the watch stream ended")));
                        return;
                    }
                    Err(e) => {
                        let _ = tx.send(Msg::Failed(crate::live::client::node_error(
                            reader.member(),
                            reader.port(),
                            &what,
                            Duration::ZERO,
                            e,
                        )));
                        return;
                    }
                };
                let received = Instant::now();
                let msgs = parse(&reader, &what, status, &line, received);
                for m in msgs {
                    let end = matches!(m, Msg::Failed(_));
                    if tx.send(m).is_err() || end {
                        return;
                    }
                }
            })
            .map_err(crate::live::process::system("start a thread for a watch"))?;
        let w = Watch { rx, handle, thread: Some(thread), member: client.member().to_string(), port: client.port() };
        match w.rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Msg::Created) => Ok(w),
            Ok(Msg::Failed(e)) => Err(e),
            Ok(Msg::Event(_)) => Err(client.unexpected(&doing, "an event before the watch was created")),
            Err(_) => Err(Error::ServerTimeout {
                node: client.member().to_string(),
                port: client.port(),
                doing,
                waited: Duration::from_secs(10),
            }),
        }
    }

    /// The next change, waiting at most `within` (`None`: none came).
    pub fn next(&self, within: Duration) -> Result<Option<WatchEvent>> {
        match self.rx.recv_timeout(within) {
            Ok(Msg::Event(e)) => Ok(Some(e)),
            Ok(Msg::Failed(e)) => Err(e),
            Ok(Msg::Created) => Ok(None),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(self.ended()),
        }
    }

    /// Every change received so far, without waiting.
    pub fn drain(&self) -> Result<Vec<WatchEvent>> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(Msg::Event(e)) => out.push(e),
                Ok(Msg::Failed(e)) => return Err(e),
                Ok(Msg::Created) => {}
                Err(TryRecvError::Empty) => return Ok(out),
                Err(TryRecvError::Disconnected) => return Err(self.ended()),
            }
        }
    }

    /// The changes up to and including revision `revision`, waiting at
    /// most `within` for it; fails when it does not come.
    pub fn until(&self, revision: u64, within: Duration) -> Result<Vec<WatchEvent>> {
        let deadline = Instant::now() + within;
        let mut out = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left)? {
                Some(e) => {
                    let rev = e.kv.mod_revision;
                    out.push(e);
                    if rev >= revision {
                        return Ok(out);
                    }
                }
                None if Instant::now() >= deadline => {
                    return Err(Error::ServerTimeout {
                        node: self.member.clone(),
                        port: self.port,
                        doing: format!("push the change of revision {revision} to a watch"),
                        waited: within,
                    })
                }
                None => {}
            }
        }
    }

    fn ended(&self) -> Error {
        Error::ServerFailed {
            node: self.member.clone(),
            port: self.port,
            problem: "the watch ended (has the member stopped?)".into(),
            source: None,
        }
    }
}

/// The messages of one line of the stream.
fn parse(client: &EtcdClient, doing: &str, status: u16, line: &[u8], received: Instant) -> Vec<Msg> {
    let v = match Json::parse(line) {
        Ok(v) => v,
        Err(why) => return vec![Msg::Failed(client.unexpected(doing, &format!("a line that is not JSON ({why})")))],
    };
    if let Some(message) = error_message(&v) {
        return vec![Msg::Failed(client.refused(doing, &message))];
    }
    if status != 200 {
        return vec![Msg::Failed(client.refused(doing, &format!("HTTP {status}")))];
    }
    let Some(r) = v.get("result") else {
        return vec![Msg::Failed(client.unexpected(doing, "a line without a result"))];
    };
    let mut out = Vec::new();
    if r.bool_field("created") {
        out.push(Msg::Created);
    }
    if r.bool_field("canceled") {
        let why = r.get("cancel_reason").and_then(|c| c.text()).unwrap_or("");
        let compacted = r.u64_field("compact_revision").unwrap_or(0);
        let msg = if compacted > 0 {
            format!("the watch was canceled: revisions before {compacted} were compacted {why}")
        } else {
            format!("the watch was canceled {why}")
        };
        out.push(Msg::Failed(client.refused(doing, msg.trim())));
        return out;
    }
    for e in r.list("events") {
        let kind = match e.get("type").and_then(|t| t.text()) {
            Some("DELETE") => EventKind::Delete,
            _ => EventKind::Put,
        };
        match e.get("kv").map(|kv| client.kv(kv, doing)) {
            Some(Ok(kv)) => out.push(Msg::Event(WatchEvent { kind, kv, received })),
            Some(Err(err)) => {
                out.push(Msg::Failed(err));
                return out;
            }
            None => {
                out.push(Msg::Failed(client.unexpected(doing, "an event without a key-value")));
                return out;
            }
        }
    }
    out
}
