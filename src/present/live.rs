//! Tables for the live Redis cluster (feature `redis`): what the servers
//! hold and how a load went. (Predictions beside observations are
//! the tutor's `Checks`.)

use crate::live::{Loaded, Snapshot};
use crate::present::tables::{shows_as_table, Table};
use crate::present::{slot_ranges, thousands};
use crate::schemes::Placement;

impl Snapshot {
    /// Per node: slots, their ranges, keys (`DBSIZE`).
    pub fn table(&self) -> Table {
        let mut t = Table::new("read from the servers", ["node", "slots", "slot ranges", "keys (DBSIZE)"]);
        let counts = self.slots().slot_counts();
        for (i, n) in self.slots().nodes().iter().enumerate() {
            let own: Vec<u16> = (0..self.slots().table().len())
                .filter(|&s| self.slots().table()[s] as usize == i)
                .map(|s| s as u16)
                .collect();
            t.row([n.clone(), thousands(counts[i] as u64), slot_ranges(&own), thousands(self.keys_per_node()[i])]);
        }
        t.note(format!("{} keys in all, by CLUSTER COUNTKEYSINSLOT over the 16,384 slots", thousands(self.keys())));
        t
    }
}

shows_as_table!(Snapshot);

impl Loaded {
    /// Keys sent per node and the replies.
    pub fn table(&self) -> Table {
        let mut t = Table::new(
            format!("{} keys written with pipelined SETs, each sent to the node the crate names", thousands(self.keys)),
            ["node", "keys sent"],
        );
        for (n, k) in &self.per_node {
            t.row([n.clone(), thousands(*k)]);
        }
        t.note(format!(
            "replies: {} OK · {} MOVED/ASK · {} other errors",
            thousands(self.ok),
            thousands(self.redirected),
            thousands(self.errors)
        ));
        t
    }
}

shows_as_table!(Loaded);
