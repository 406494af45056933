//! Tables for the live proxies (feature `proxies`): where each key went,
//! and how a write through the proxy went.

use crate::live::observed::Observed;
use crate::live::twemproxy::Written;
use crate::present::tables::{shows_as_table, Table};
use crate::present::{fixed, pct, thousands};

impl Observed {
    /// Per backend: keys found there and their share; then keys on no
    /// backend or on several, error replies and the time taken.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} keys, where they were {}", thousands(self.len() as u64), self.what()),
            ["backend", "keys", "share"],
        );
        let all = self.len().max(1) as f64;
        for (n, c) in self.counts() {
            t.row([n, thousands(c), pct(c as f64 / all, 1)]);
        }
        let (errors, first) = self.errors();
        let mut note = format!(
            "on no backend {} · on several {} · error replies {}",
            thousands(self.nowhere()),
            thousands(self.on_several()),
            thousands(errors)
        );
        if let Some(e) = first {
            note.push_str(&format!(" (first: {e})"));
        }
        note.push_str(&format!(" · {} s", fixed(self.seconds(), 2)));
        t.note(note);
        t
    }
}

shows_as_table!(Observed);

impl Written {
    /// Keys written, replies, time taken.
    pub fn table(&self) -> Table {
        let mut t = Table::new("keys written through the proxy (pipelined SETs)", ["keys", "OK", "errors", "seconds"]);
        t.row([thousands(self.keys), thousands(self.ok), thousands(self.errors), fixed(self.seconds, 2)]);
        if let Some(e) = &self.first_error {
            t.note(format!("first error: {e}"));
        }
        t
    }
}

shows_as_table!(Written);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_per_backend_and_the_strays() {
        let o = Observed::from_holders(
            "stored",
            &["A", "B"],
            &["k0", "k1", "k2", "k3"],
            vec![vec![0], vec![1], vec![1], vec![]],
        )
        .unwrap();
        let text = o.to_string();
        assert!(text.contains("4 keys, where they were stored"), "{text}");
        assert!(text.lines().any(|l| l.contains('B') && l.contains(" 2 ") && l.contains("50.0%")), "{text}");
        assert!(text.contains("on no backend 1 · on several 0 · error replies 0"), "{text}");
    }
}
