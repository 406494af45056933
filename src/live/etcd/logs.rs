//! The members' logs: etcd's JSON lines, and its raft lines with member
//! ids replaced by names.

use super::{json, Etcd};
use crate::live::process::log_tail;
use crate::Result;

impl Etcd {
    /// The last `lines` lines of member `i`'s log (etcd's JSON lines).
    pub fn log(&self, i: usize, lines: usize) -> Result<String> {
        Ok(log_tail(&self.member(i)?.log_path(), lines))
    }

    /// Member `i`'s raft lines (elections, votes, leaders; not its
    /// configuration changes), as
    /// `"10:32:34.213 etcd0 became leader at term 2"`: member ids replaced
    /// by names. From byte `from` of the log on (0: all).
    pub fn raft_log(&self, i: usize, from: u64) -> Result<Vec<String>> {
        let text = std::fs::read(self.member(i)?.log_path()).unwrap_or_default();
        let start = usize::try_from(from).unwrap_or(usize::MAX).min(text.len());
        let mut out = Vec::new();
        for line in String::from_utf8_lossy(&text[start..]).lines() {
            let Ok(v) = json::Json::parse(line.as_bytes()) else { continue };
            if !v.get("caller").and_then(|c| c.text()).is_some_and(|c| c.starts_with("raft/")) {
                continue;
            }
            let msg = v.get("msg").and_then(|m| m.text()).unwrap_or("");
            if msg.contains("switched to configuration") || msg.starts_with("newRaft") {
                continue;
            }
            let ts = v.get("ts").and_then(|t| t.text()).unwrap_or("");
            let time = ts.split('T').nth(1).unwrap_or(ts).trim_end_matches('Z');
            out.push(format!("{time} {}", self.named_text(msg)));
        }
        Ok(out)
    }

    /// The length of member `i`'s log now (for [`raft_log`](Self::raft_log)'s `from`).
    pub fn log_len(&self, i: usize) -> Result<u64> {
        Ok(std::fs::metadata(self.member(i)?.log_path()).map_or(0, |m| m.len()))
    }

    /// The current leader's raft lines since byte `from` of its log.
    pub fn leader_log(&self, from: u64) -> Result<Vec<String>> {
        self.raft_log(self.leader()?, from)
    }

    /// `text` with every member id (hex, as raft prints them) replaced by
    /// the member's name.
    pub fn named_text(&self, text: &str) -> String {
        let mut t = text.to_string();
        for m in &self.members {
            if m.id != 0 {
                t = t.replace(&format!("{:x}", m.id), &m.name).replace(&m.id.to_string(), &m.name);
            }
        }
        t
    }
}
