//! # reshard — what moves when a cluster grows
//!
//! A small library for measuring, exactly, how many keys change node when a
//! cluster of machines gains or loses one, under the placement schemes of
//! *Designing Data-Intensive Applications* ch. 7 and the tutorials built on
//! it: `hash % N` ([`Modulo`]), the consistent-hash [`Ring`] with virtual
//! nodes, [`Rendezvous`] hashing, [`FixedShards`], and what real systems
//! use ([`Jump`], Redis [`Slots`], [`Maglev`], [`Ketama`], [`Bounded`] loads).
//!
//! The crate has three floors, and a lower floor never imports a higher one:
//!
//! * [`schemes`] — who owns a key ([`Locate`]) and every key of a set
//!   ([`Placement`]); every scheme is built with `new(n)` or `named(names)`
//!   and changes with `add_node`/`remove_node`;
//! * [`analysis`] — what moved ([`Movement`]), load per node
//!   ([`LoadReport`]), sweeps over arrangements and parameters, all schemes
//!   side by side; requests per node under a skewed [`Workload`]
//!   ([`RequestLoad`]), hot keys, failures, and replica copies moved
//!   ([`CopyMovement`]);
//! * [`present`] — tables, charts (drawn with plotters) and their display
//!   in the evcxr Jupyter kernel ([`show!`] shows several in one cell).
//!
//! Beside them, [`tutor`] sets each source document's figures beside this
//! crate's ("document 89,813 · measured 89,813 ✓"). Keys are hashed once
//! with md5 ([`HashWidth`]) into [`HashedKeys`], which carry their width.
//!
//! ```
//! use reshard::prelude::*;
//! // Document 002: 200,000 keys, 10 → 11 nodes.
//! let keys = KeySet::plain(200_000).hashed(HashWidth::Bits128)?;
//! let modulo = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! let hrw = Movement::measure(&keys, &Rendezvous::new(10)?, &Rendezvous::new(11)?)?;
//! assert_eq!((modulo.moved(), modulo.between_kept()), (181_745, 163_493));
//! assert_eq!((hrw.moved(), hrw.between_kept()), (17_986, 0));
//! # Ok::<(), reshard::Error>(())
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod error;
pub mod hash;
pub mod keys;
pub mod limits;
#[cfg(feature = "redis")]
pub mod live;
mod numbers;
pub mod present;
pub mod pyrandom;
pub mod schemes;
pub mod tutor;

pub use analysis::modulo::{keys_changing_shard, modulo_rule};
pub use analysis::{
    ArrangementSweep, CompareSettings, Comparison, CopyMovement, FailureSweep, HotKeySplit, LoadReport, LoadSpread,
    LoadUnderSkew, MiddleRemoval, ModuloSweep, Movement, NodeFailure, RequestBounds, RequestLoad, Scheme, VnodeSweep,
    WeightedShares, Workload,
};
pub use error::{Error, Result};
pub use hash::{md5_u128, HashWidth};
pub use keys::{HashedKeys, KeySet};
pub use present::charts::plotters;
pub use pyrandom::PyRandom;
pub use schemes::jump::{guava_consistent_hash, jump_hash};
pub use schemes::ketama::ketama_hash;
pub use schemes::slots::{crc16, key_slot};
pub use schemes::{
    letters, numbered, prefixed, Bounded, FixedShards, Jump, Ketama, Key, Locate, Maglev, Modulo, NodeId, Placement,
    Rendezvous, Replicas, Replicated, Ring, Slots, UnstableShards,
};
pub use schemes::{NginxHash, TwemDistribution, TwemHash, Twemproxy};
pub use tutor::{Check, Checks};

/// What a notebook needs, in one glob import that shadows nothing of
/// `std` (no `Result`): `use reshard::prelude::*;`.
///
/// ```
/// use reshard::prelude::*;
/// // a reader's own Result in the same cell still means std's
/// fn parse(s: &str) -> Result<u32, String> {
///     s.parse().map_err(|_| format!("{s:?} is not a number"))
/// }
/// assert_eq!(parse("7"), Ok(7));
/// // and the crate's errors convert as any std error does
/// fn build() -> Result<Ring, Box<dyn std::error::Error>> {
///     Ok(Ring::new(3)?.with_vnodes(150)?)
/// }
/// assert!(build().is_ok());
/// ```
///
/// The crate root's `Result` has `Error` as a default, so `use reshard::*;`
/// leaves `Result<T, String>` working too:
///
/// ```
/// use reshard::*;
/// fn parse(s: &str) -> Result<u32, String> {
///     s.parse().map_err(|_| format!("{s:?} is not a number"))
/// }
/// assert!(parse("x").is_err());
/// ```
pub mod prelude {
    pub use crate::analysis::{
        resized, ring_share_sd, ArrangementSweep, BoundedLoads, CompareSettings, Comparison, LoadReport, LoadSpread,
        MiddleRemoval, ModuloSweep, Movement, Scheme, VnodeSweep, WeightedShares,
    };
    pub use crate::analysis::{
        CopyMovement, FailureSweep, HotKeySplit, LoadUnderSkew, NodeFailure, RequestBounds, RequestLoad, Workload,
    };
    pub use crate::present::charts::{self, Series, Style};
    pub use crate::present::{failure_chart, fixed, load_chart, pct, thousands, Figure, Show, Shown, Table};
    pub use crate::schemes::{jump, shards, slots};
    pub use crate::schemes::{
        letters, numbered, prefixed, Bounded, FixedShards, Jump, Ketama, Key, Locate, Maglev, Modulo, Placement,
        Rendezvous, Ring, Slots, UnstableShards,
    };
    pub use crate::schemes::{NginxHash, TwemDistribution, TwemHash, Twemproxy};
    pub use crate::schemes::{Replicas, Replicated};
    pub use crate::show;
    pub use crate::tutor::{Check, Checks, Guess, Params, Quiz};
    pub use crate::PyRandom;
    pub use crate::{
        crc16, guava_consistent_hash, jump_hash, ketama_hash, key_slot, keys_changing_shard, md5_u128, modulo_rule,
        Error, HashWidth, HashedKeys, KeySet,
    };
}
