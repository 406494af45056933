//! Lab 08's explorable: the share of the keys a twemproxy pool sends to
//! another server when one more server joins, under `distribution: ketama`
//! and `distribution: modula`, as the pool's size changes.
//!
//! ```
//! use reshard::notebook::*;
//! let keys = KeySet::new("key:", 2_000).hashed(HashWidth::Bits32)?;
//! let pool = Twemproxy::named(letters("ABC"))?; // twemproxy's defaults: fnv1a_64, ketama
//! let ex = pool.explorable_remap(&keys, &letters("ABCDEF"))?;
//! assert_eq!(ex.defaults(), [("servers", 3.0)]);
//! let modula = |p: Twemproxy| p.with_distribution(TwemDistribution::Modula);
//! let four = Movement::measure(&keys, &modula(Twemproxy::named(letters("ABCD"))?),
//!                              &modula(Twemproxy::named(letters("ABCDE"))?))?;
//! assert_eq!(ex.value(&[4], "", "modula"), Some(four.share()));
//! assert_eq!(ex.value(&[4], "", "floor 1/(N + 1)"), Some(0.2));
//! # Ok::<(), reshard::Error>(())
//! ```

use crate::analysis::movement::Movement;
use crate::keys::HashedKeys;
use crate::limits;
use crate::present::explorable::{Explorable, Format};
use crate::present::thousands;
use crate::schemes::{Placement, TwemDistribution, Twemproxy};
use crate::{Error, Result};

/// The most server names [`Twemproxy::explorable_remap`] takes.
const MAX_SERVERS: usize = 32;

impl Twemproxy {
    /// Bars: the share of `keys` that land on another server when
    /// `names[n]` joins a pool of the first n of `names`, under `ketama`
    /// and under `modula`, beside the floor 1/(n + 1) (the keys the new
    /// server must take). A slider `servers` runs from 2 to
    /// `names.len() − 1` and starts at this pool's size. The pools are this
    /// one with servers removed from its end or added (weight 1), so they
    /// keep its hash, hash tag and weights; `names` starts with its servers.
    ///
    /// Fails when `names` does not start with this pool's servers, names a
    /// server twice, leaves none to join, or holds more than 32 names.
    pub fn explorable_remap(&self, keys: &HashedKeys, names: &[String]) -> Result<Explorable> {
        limits::check_hint("servers in one chart", names.len() as u128, MAX_SERVERS as u128, "name fewer servers")?;
        let own = self.nodes().len();
        if !names.starts_with(self.nodes()) || names.len() <= own || own < 2 {
            return Err(Error::OutOfRange {
                what: "server names",
                given: names.join(", "),
                allowed: format!(
                    "the pool's servers first ({}), then at least one to join; a pool of 2 or more",
                    self.nodes().join(", ")
                ),
            });
        }
        // pools[n] has the first n names: this pool, shrunk from its end or grown
        let mut pools: Vec<Option<Twemproxy>> = vec![None; names.len() + 1];
        pools[own] = Some(self.clone());
        for n in (2..own).rev() {
            pools[n] = pools[n + 1].as_ref().map(|p| p.remove_node(&names[n])).transpose()?;
        }
        for n in own..names.len() {
            pools[n + 1] = pools[n].as_ref().map(|p| p.add_node(&names[n])).transpose()?;
        }
        let title = format!(
            "Share of {} keys remapped when one server joins (twemproxy, {})",
            thousands(keys.len() as u64),
            self.hash()
        );
        let mut ex = Explorable::bars(&title, "distribution", "share of the keys")
            .slider("servers", 2..names.len(), own)?
            .format(Format::Percent(1));
        for n in 2..names.len() {
            let (Some(before), Some(after)) = (&pools[n], &pools[n + 1]) else { continue };
            let mut shares = Vec::with_capacity(3);
            for d in [TwemDistribution::Ketama, TwemDistribution::Modula] {
                let m =
                    Movement::measure(keys, &before.clone().with_distribution(d), &after.clone().with_distribution(d))?;
                shares.push(m.share());
            }
            shares.push(1.0 / (n + 1) as f64);
            ex.row(&[n], ["ketama", "modula", "floor 1/(N + 1)"], &shares)?;
        }
        ex.checked()
    }
}
