//! # reshard — what moves when a cluster grows
//!
//! A small library for measuring, exactly, how many keys change node when a
//! cluster of machines gains or loses one, under the placement schemes of
//! *Designing Data-Intensive Applications* ch. 7 and the tutorials built on
//! it: `hash % N` ([`Modulo`]), the consistent-hash [`Ring`] with virtual
//! nodes, [`Rendezvous`] hashing, and [`FixedShards`].
//!
//! Keys are hashed once with md5 ([`HashWidth`]), every scheme answers the
//! same question through the [`Placement`] trait, and the analysis —
//! [`Movement`], [`LoadReport`], the sweeps — is written once against it.
//! Result types show themselves as tables in the evcxr Jupyter kernel.
//!
//! ```
//! use reshard::{HashWidth, KeySet, Modulo, Movement, Rendezvous};
//! // Document 002: 200,000 keys, 10 → 11 nodes.
//! let keys = KeySet::plain(200_000).hashed(HashWidth::Bits128)?;
//! let modulo = Movement::measure(&keys, &Modulo::new(10)?, &Modulo::new(11)?)?;
//! let hrw = Movement::measure(&keys, &Rendezvous::new(10)?, &Rendezvous::new(11)?)?;
//! assert_eq!((modulo.moved(), modulo.between_kept()), (181_745, 163_493));
//! assert_eq!((hrw.moved(), hrw.between_kept()), (17_986, 0));
//! # Ok::<(), reshard::Error>(())
//! ```

#![warn(missing_docs)]

pub mod check;
pub mod error;
pub mod figures;
pub mod hash;
pub mod keys;
pub mod load;
pub mod modulo;
pub mod movement;
pub mod placement;
pub mod plot;
pub mod pyrandom;
pub mod rendezvous;
pub mod reproduce;
pub mod ring;
pub mod shards;
pub mod sweep;
pub mod table;
pub mod unstable;

pub use check::{Check, Checks};
pub use error::{Error, Result};
pub use hash::{md5_u128, HashWidth};
pub use keys::{HashedKeys, KeySet};
pub use load::LoadReport;
pub use modulo::{modulo_rule, Modulo};
pub use movement::Movement;
pub use placement::{letters, named, numbered, Key, NodeId, Placement};
pub use pyrandom::PyRandom;
pub use rendezvous::Rendezvous;
pub use ring::{Ring, RingPoint};
pub use shards::FixedShards;
pub use sweep::{ArrangementSweep, ModuloSweep, VnodeSweep};
pub use unstable::UnstableShards;
pub mod bounded;
pub mod jump;
pub mod ketama;
pub mod maglev;
pub mod slots;
pub use bounded::Bounded;
pub use jump::{guava_consistent_hash, jump_hash, Jump};
pub use ketama::{ketama_hash, Ketama};
pub use maglev::Maglev;
pub use slots::{crc16, key_slot, Slots};
pub mod compare;
pub use compare::{middle_removal, ring_spread, CompareSettings, Comparison, LoadSpread, MiddleRemoval, Scheme};
