//! One member's v3 JSON gateway: put, get, get by prefix, delete,
//! compare-and-swap, one transaction of puts, leases, status.

use super::base64;
use super::json::Json;
use crate::analysis::leases::check_ttl;
use crate::keys::escape;
use crate::live::client::node_error;
use crate::live::http;
use crate::{limits, Error, Result};
use std::time::Duration;

/// The longest key the driver sends, bytes.
pub const MAX_KEY_BYTES: usize = 4_096;

/// The longest value the driver sends, bytes (etcd takes requests up to
/// 1.5 MiB; a value travels as base64, 4/3 of its size).
pub const MAX_VALUE_BYTES: usize = 1_000_000;

/// The most puts in one transaction (etcd's `--max-txn-ops`).
pub const MAX_TXN_PUTS: usize = 128;

/// The most keys one read by prefix returns.
pub const MAX_RANGE_KEYS: u64 = 100_000;

/// The longest answer the driver reads, bytes.
const MAX_ANSWER_BYTES: usize = 256 << 20;

/// One key-value as etcd holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Kv {
    /// The key.
    pub key: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
    /// The revision that created the key.
    pub create_revision: u64,
    /// The revision that last wrote it: its fencing token.
    pub mod_revision: u64,
    /// Times written since created (1 after the first put).
    pub version: u64,
    /// The lease it is attached to (0: none).
    pub lease: u64,
}

/// How a compare-and-swap went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cas {
    /// The key was as expected and now holds the new value.
    Won {
        /// The store's revision after the write (the key's new mod revision).
        revision: u64,
    },
    /// Someone wrote the key first: nothing was written.
    Lost {
        /// The key as it is now (`None`: it does not exist).
        current: Option<Kv>,
        /// The store's revision when compared.
        revision: u64,
    },
}

impl Cas {
    /// True when the write happened.
    pub fn won(&self) -> bool {
        matches!(self, Cas::Won { .. })
    }
}

/// A lease: its id, the TTL asked for, and the TTL etcd granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Lease {
    /// The lease's id (etcdctl prints it in hex).
    pub id: u64,
    /// Seconds asked for.
    pub asked: u64,
    /// Seconds granted: at least etcd's minimum lease TTL.
    pub granted: u64,
}

/// One member's view of the cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Status {
    /// The member asked.
    pub member: String,
    /// Its raft id.
    pub member_id: u64,
    /// The leader it knows, by name (`None`: none, or not one of the cluster's members).
    pub leader: Option<String>,
    /// The leader's raft id (0: no leader).
    pub leader_id: u64,
    /// The raft term.
    pub term: u64,
    /// The raft index (log entries).
    pub raft_index: u64,
    /// The store's revision.
    pub revision: u64,
    /// etcd's version.
    pub version: String,
}

/// A client of one member: every call names the member and its port when
/// it fails. `Clone` and `Send`: a thread of its own can race another.
#[derive(Debug, Clone)]
pub struct EtcdClient {
    member: String,
    port: u16,
    within: Duration,
}

/// The key just after every key that starts with `prefix`: etcd's
/// `range_end` for a prefix (`[0]`, "every key from `key` on", when the
/// prefix is empty or all `0xff`).
pub(crate) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(&last) = end.last() {
        if last < 0xff {
            *end.last_mut().expect("not empty") = last + 1;
            return end;
        }
        end.pop();
    }
    vec![0]
}

pub(crate) fn check_key(key: &[u8]) -> Result<()> {
    if key.is_empty() {
        return Err(Error::EmptyKey { index: 0 });
    }
    limits::check_hint("bytes in an etcd key", key.len() as u128, MAX_KEY_BYTES as u128, "use a shorter key")
}

fn check_value(value: &[u8]) -> Result<()> {
    limits::check_hint(
        "bytes in an etcd value",
        value.len() as u128,
        MAX_VALUE_BYTES as u128,
        "use a shorter value (a map entry is a node's name)",
    )
}

/// `Ok` for a revision etcd can hold (at most `i64::MAX`).
pub(crate) fn check_rev(what: &'static str, rev: u64) -> Result<()> {
    if rev > i64::MAX as u64 {
        return Err(Error::OutOfRange {
            what,
            given: rev.to_string(),
            allowed: format!("0 to {} (etcd's revisions are signed 64-bit)", i64::MAX),
        });
    }
    Ok(())
}

/// `"put /shards/07"`: what was asked, the key printed with its bytes escaped.
fn doing(what: &str, key: &[u8]) -> String {
    let shown = escape(key);
    let shown =
        if shown.chars().count() > 60 { format!("{}…", shown.chars().take(60).collect::<String>()) } else { shown };
    format!("{what} {shown}")
}

impl EtcdClient {
    pub(crate) fn new(member: &str, port: u16, within: Duration) -> EtcdClient {
        EtcdClient { member: member.to_string(), port, within }
    }

    /// The member it talks to.
    pub fn member(&self) -> &str {
        &self.member
    }

    /// The member's client port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `POST path` with `body`; the answer's JSON, or the error naming the
    /// member, its port and etcd's own message.
    pub(crate) fn call(&self, path: &str, body: &str, doing: &str) -> Result<Json> {
        let r = http::post_json(self.port, path, body.as_bytes(), self.within, MAX_ANSWER_BYTES)
            .map_err(|e| node_error(&self.member, self.port, doing, self.within, e))?;
        let v = Json::parse(&r.body).map_err(|why| Error::UnexpectedReply {
            node: self.member.clone(),
            port: self.port,
            doing: doing.to_string(),
            got: format!(
                "HTTP {} and a body that is not JSON ({why}): {}",
                r.status,
                String::from_utf8_lossy(&r.body[..r.body.len().min(200)])
            ),
        })?;
        if let Some(message) = error_message(&v) {
            return Err(self.refused(doing, &message));
        }
        if r.status != 200 {
            return Err(self.refused(doing, &format!("HTTP {}", r.status)));
        }
        Ok(v)
    }

    pub(crate) fn refused(&self, doing: &str, message: &str) -> Error {
        Error::ServerRefused {
            node: self.member.clone(),
            port: self.port,
            doing: doing.to_string(),
            message: message.to_string(),
        }
    }

    pub(crate) fn unexpected(&self, doing: &str, got: &str) -> Error {
        Error::UnexpectedReply {
            node: self.member.clone(),
            port: self.port,
            doing: doing.to_string(),
            got: got.chars().take(300).collect(),
        }
    }

    fn revision_of(&self, v: &Json, doing: &str) -> Result<u64> {
        v.get("header")
            .and_then(|h| h.u64_field("revision"))
            .ok_or_else(|| self.unexpected(doing, "no header revision"))
    }

    pub(crate) fn kv(&self, v: &Json, doing: &str) -> Result<Kv> {
        let bytes = |field: &str| match v.get(field) {
            None => Some(Vec::new()),
            Some(t) => base64::decode(t.text()?),
        };
        let num = |field: &str| v.u64_field(field);
        match (bytes("key"), bytes("value"), num("create_revision"), num("mod_revision"), num("version"), num("lease"))
        {
            (Some(key), Some(value), Some(create_revision), Some(mod_revision), Some(version), Some(lease)) => {
                Ok(Kv { key, value, create_revision, mod_revision, version, lease })
            }
            _ => Err(self.unexpected(doing, "a key-value that cannot be read")),
        }
    }

    /// Put `value` at `key`; the new revision.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<u64> {
        self.put_lease(key, value, None)
    }

    /// Put `value` at `key` under `lease` (the key goes when the lease
    /// expires); the new revision.
    pub fn put_lease(&self, key: &[u8], value: &[u8], lease: Option<&Lease>) -> Result<u64> {
        check_key(key)?;
        check_value(value)?;
        let d = doing("put", key);
        let lease = lease.map_or(String::new(), |l| format!(",\"lease\":\"{}\"", l.id));
        let body = format!("{{\"key\":\"{}\",\"value\":\"{}\"{lease}}}", base64::encode(key), base64::encode(value));
        let v = self.call("/v3/kv/put", &body, &d)?;
        self.revision_of(&v, &d)
    }

    /// The key-value at `key`, if there is one.
    pub fn get(&self, key: &[u8]) -> Result<Option<Kv>> {
        check_key(key)?;
        let d = doing("get", key);
        let v = self.call("/v3/kv/range", &format!("{{\"key\":\"{}\"}}", base64::encode(key)), &d)?;
        v.list("kvs").first().map(|kv| self.kv(kv, &d)).transpose()
    }

    /// Every key-value whose key starts with `prefix` (all keys for the
    /// empty prefix), in key order, and the store's revision when read. At
    /// most [`MAX_RANGE_KEYS`] keys, else an error.
    pub fn get_prefix(&self, prefix: &[u8]) -> Result<(Vec<Kv>, u64)> {
        limits::check_hint(
            "bytes in an etcd key",
            prefix.len() as u128,
            MAX_KEY_BYTES as u128,
            "use a shorter prefix",
        )?;
        let d = doing("get prefix", prefix);
        let key = if prefix.is_empty() { vec![0] } else { prefix.to_vec() };
        let body = format!(
            "{{\"key\":\"{}\",\"range_end\":\"{}\",\"limit\":\"{}\"}}",
            base64::encode(&key),
            base64::encode(&prefix_end(prefix)),
            MAX_RANGE_KEYS
        );
        let v = self.call("/v3/kv/range", &body, &d)?;
        if v.bool_field("more") {
            return Err(Error::TooLarge {
                what: "keys under one prefix",
                asked: u128::from(v.u64_field("count").unwrap_or(0)),
                limit: u128::from(MAX_RANGE_KEYS),
                hint: "read a narrower prefix",
            });
        }
        let kvs = v.list("kvs").iter().map(|kv| self.kv(kv, &d)).collect::<Result<Vec<_>>>()?;
        Ok((kvs, self.revision_of(&v, &d)?))
    }

    /// Delete `key`; how many keys were deleted (0 or 1).
    pub fn delete(&self, key: &[u8]) -> Result<u64> {
        check_key(key)?;
        let d = doing("delete", key);
        let v = self.call("/v3/kv/deleterange", &format!("{{\"key\":\"{}\"}}", base64::encode(key)), &d)?;
        v.u64_field("deleted").ok_or_else(|| self.unexpected(&d, "no count of deleted keys"))
    }

    /// Delete every key under `prefix` (not empty); how many.
    pub fn delete_prefix(&self, prefix: &[u8]) -> Result<u64> {
        check_key(prefix)?;
        let d = doing("delete prefix", prefix);
        let body = format!(
            "{{\"key\":\"{}\",\"range_end\":\"{}\"}}",
            base64::encode(prefix),
            base64::encode(&prefix_end(prefix))
        );
        let v = self.call("/v3/kv/deleterange", &body, &d)?;
        v.u64_field("deleted").ok_or_else(|| self.unexpected(&d, "no count of deleted keys"))
    }

    /// Put `value` at `key` only if the key's mod revision is still
    /// `expected` (0: only if the key does not exist), in one transaction;
    /// the loser gets the key as it is now.
    pub fn compare_and_swap(&self, key: &[u8], expected: u64, value: &[u8]) -> Result<Cas> {
        check_key(key)?;
        check_value(value)?;
        check_rev("expected mod revision", expected)?;
        let d = doing("compare-and-swap", key);
        let k = base64::encode(key);
        let body = format!(
            "{{\"compare\":[{{\"result\":\"EQUAL\",\"target\":\"MOD\",\"key\":\"{k}\",\"mod_revision\":\"{expected}\"}}],\
             \"success\":[{{\"request_put\":{{\"key\":\"{k}\",\"value\":\"{}\"}}}}],\
             \"failure\":[{{\"request_range\":{{\"key\":\"{k}\"}}}}]}}",
            base64::encode(value)
        );
        let v = self.call("/v3/kv/txn", &body, &d)?;
        let revision = self.revision_of(&v, &d)?;
        if v.bool_field("succeeded") {
            return Ok(Cas::Won { revision });
        }
        let range = v.list("responses").first().and_then(|r| r.get("response_range"));
        let current = match range {
            Some(r) => r.list("kvs").first().map(|kv| self.kv(kv, &d)).transpose()?,
            None => return Err(self.unexpected(&d, "a failed transaction without the key's range")),
        };
        Ok(Cas::Lost { current, revision })
    }

    /// Put every `(key, value)` in one transaction: one revision for all
    /// (at most [`MAX_TXN_PUTS`], keys distinct); the new revision.
    pub fn put_all(&self, items: &[(Vec<u8>, Vec<u8>)]) -> Result<u64> {
        if items.is_empty() {
            return Err(Error::NoKeys);
        }
        limits::check_hint(
            "puts in one etcd transaction",
            items.len() as u128,
            MAX_TXN_PUTS as u128,
            "split them into transactions of at most 128 (etcd's --max-txn-ops)",
        )?;
        let mut puts = Vec::with_capacity(items.len());
        for (i, (k, v)) in items.iter().enumerate() {
            check_key(k).map_err(|e| if let Error::EmptyKey { .. } = e { Error::EmptyKey { index: i } } else { e })?;
            check_value(v)?;
            if items[..i].iter().any(|(other, _)| other == k) {
                return Err(Error::DuplicateKey {
                    key: escape(k),
                    first: items[..i].iter().position(|(o, _)| o == k).unwrap_or(0),
                    second: i,
                });
            }
            puts.push(format!(
                "{{\"request_put\":{{\"key\":\"{}\",\"value\":\"{}\"}}}}",
                base64::encode(k),
                base64::encode(v)
            ));
        }
        let d = doing("put (one transaction of", format!("{} keys)", items.len()).as_bytes());
        let v = self.call("/v3/kv/txn", &format!("{{\"success\":[{}]}}", puts.join(",")), &d)?;
        self.revision_of(&v, &d)
    }

    /// A lease of `ttl` seconds (1 to etcd's longest): its id, and the TTL
    /// etcd granted (at least its minimum).
    pub fn grant(&self, ttl: u64) -> Result<Lease> {
        check_ttl(ttl)?;
        let d = format!("grant a lease of {ttl} s");
        let v = self.call("/v3/lease/grant", &format!("{{\"TTL\":\"{ttl}\"}}"), &d)?;
        match (v.u64_field("ID"), v.u64_field("TTL")) {
            (Some(id), Some(granted)) if id != 0 => Ok(Lease { id, asked: ttl, granted }),
            _ => Err(self.unexpected(&d, "no lease id or TTL")),
        }
    }

    /// Revoke `lease`: its keys go at once.
    pub fn revoke(&self, lease: &Lease) -> Result<()> {
        let d = format!("revoke lease {:x}", lease.id);
        self.call("/v3/lease/revoke", &format!("{{\"ID\":\"{}\"}}", lease.id), &d).map(|_| ())
    }

    /// Seconds `lease` has left (`None`: it expired or was revoked).
    pub fn time_to_live(&self, lease: &Lease) -> Result<Option<u64>> {
        let d = format!("time to live of lease {:x}", lease.id);
        let v = self.call("/v3/lease/timetolive", &format!("{{\"ID\":\"{}\"}}", lease.id), &d)?;
        let ttl = v.i64_field("TTL").ok_or_else(|| self.unexpected(&d, "no TTL"))?;
        Ok(u64::try_from(ttl).ok())
    }

    /// Renew `lease` once; the TTL it has again (`None`: it is gone).
    pub fn keep_alive_once(&self, lease: &Lease) -> Result<Option<u64>> {
        let d = format!("keep lease {:x} alive", lease.id);
        let v = self.call("/v3/lease/keepalive", &format!("{{\"ID\":\"{}\"}}", lease.id), &d)?;
        let r = v.get("result").ok_or_else(|| self.unexpected(&d, "no result"))?;
        Ok(r.u64_field("TTL").filter(|&t| t > 0))
    }

    /// This member's status (the leader by id only).
    pub(crate) fn status_raw(&self) -> Result<Status> {
        let d = "status".to_string();
        let v = self.call("/v3/maintenance/status", "{}", &d)?;
        let header = v.get("header").ok_or_else(|| self.unexpected(&d, "no header"))?;
        match (
            header.u64_field("member_id"),
            v.u64_field("leader"),
            v.u64_field("raftTerm"),
            v.u64_field("raftIndex"),
            header.u64_field("revision"),
        ) {
            (Some(member_id), Some(leader_id), Some(term), Some(raft_index), Some(revision)) => Ok(Status {
                member: self.member.clone(),
                member_id,
                leader: None,
                leader_id,
                term,
                raft_index,
                revision,
                version: v.get("version").and_then(|t| t.text()).unwrap_or("").to_string(),
            }),
            _ => Err(self.unexpected(&d, "a status without member, leader, term or revision")),
        }
    }
}

/// etcd's message in an error answer: `{"error": "…", "message": "…"}`,
/// or a stream's `{"error": {"message": "…"}}`.
pub(crate) fn error_message(v: &Json) -> Option<String> {
    let e = v.get("error")?;
    let text = match e {
        Json::Str(s) => s.clone(),
        _ => e.get("message").and_then(|m| m.text()).unwrap_or("an error without a message").to_string(),
    };
    Some(v.get("message").and_then(|m| m.text()).map_or(text, str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_ends_as_etcd_computes_them() {
        assert_eq!(prefix_end(b"/shards/"), b"/shards0");
        assert_eq!(prefix_end(b"a\xff\xff"), b"b");
        assert_eq!(prefix_end(b"\xff"), [0]);
        assert_eq!(prefix_end(b""), [0]);
        assert!(check_key(b"").is_err() && check_key(&[b'k'; MAX_KEY_BYTES + 1]).is_err());
        assert!(check_rev("r", u64::MAX).is_err() && check_rev("r", i64::MAX as u64).is_ok());
    }
}
