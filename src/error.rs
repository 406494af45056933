//! The one error type of the crate.
//!
//! Every constructor that can be handed an unusable parameter returns
//! [`Error`]; its message names the parameter and says what to change, so a
//! notebook reader who typed `vnodes = 0` learns what to type instead.
//!
//! ```
//! use reshard::{Error, Ring};
//! let err = Ring::new(["A", "B"], 0).unwrap_err();
//! assert_eq!(err, Error::ZeroVnodes);
//! assert!(err.to_string().contains("at least 1"));
//! ```

use std::fmt;

/// Everything that can be wrong with the parameters of an experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A placement needs at least one node.
    NoNodes,
    /// A ring needs at least one point per node.
    ZeroVnodes,
    /// Fixed sharding needs at least one shard.
    ZeroShards,
    /// The same node name was given twice.
    DuplicateNode(String),
    /// The key set is empty.
    NoKeys,
    /// A rendezvous weight is zero, negative, infinite or NaN.
    BadWeight {
        /// The node the weight belongs to.
        node: String,
        /// The weight as given, printed.
        weight: String,
    },
    /// The number of weights does not match the number of nodes.
    WeightCount {
        /// How many nodes there are.
        nodes: usize,
        /// How many weights were given.
        weights: usize,
    },
    /// A node was asked to give away more shards than it owns.
    NotEnoughShards {
        /// The node asked to give.
        node: String,
        /// How many shards it owns.
        has: usize,
        /// How many it was asked for.
        asked: usize,
    },
    /// A node name that the placement does not have.
    UnknownNode(String),
    /// More nodes than shards: some node would own nothing.
    MoreNodesThanShards {
        /// Nodes requested.
        nodes: usize,
        /// Shards available.
        shards: usize,
    },
    /// A parameter is out of its range; the message says which and why.
    Invalid(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoNodes => write!(f, "no nodes: give at least 1 node"),
            Error::ZeroVnodes => write!(
                f,
                "vnodes is 0: every node needs at least 1 point on the ring (use 1 or more; 150 evens the load)"
            ),
            Error::ZeroShards => {
                write!(f, "shards is 0: fixed sharding needs at least 1 shard (use 1 or more; document 004 uses 1000)")
            }
            Error::DuplicateNode(n) => write!(
                f,
                "node name {n:?} appears twice: node names must be distinct, rename one of them"
            ),
            Error::NoKeys => write!(f, "the key set is empty: use a key count of at least 1"),
            Error::BadWeight { node, weight } => write!(
                f,
                "weight {weight} of node {node:?} is not a finite positive number: use a weight > 0 (e.g. 1.0)"
            ),
            Error::WeightCount { nodes, weights } => write!(
                f,
                "{weights} weights for {nodes} nodes: give exactly one weight per node"
            ),
            Error::NotEnoughShards { node, has, asked } => write!(
                f,
                "node {node:?} owns {has} shards but was asked to give {asked}: ask for at most {has}"
            ),
            Error::UnknownNode(n) => write!(f, "there is no node named {n:?}: check the spelling"),
            Error::MoreNodesThanShards { nodes, shards } => write!(
                f,
                "{nodes} nodes but only {shards} shards: some node would own nothing; use at least {nodes} shards or fewer nodes"
            ),
            Error::Invalid(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Error {}

/// Shorthand for `std::result::Result<T, reshard::Error>`.
pub type Result<T> = std::result::Result<T, Error>;
