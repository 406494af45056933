//! The top floor: every result as a table and (feature `charts`) a chart,
//! shown in the evcxr Jupyter kernel (HTML with a plain-text form; charts as
//! `<img>` data URIs so they show in a notebook opened without running it).
//!
//! Nothing below this floor imports it: [`analysis`](crate::analysis) and
//! [`schemes`](crate::schemes) compute, this floor shows.

#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
mod bounded;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod charts;
pub mod display;
pub(crate) mod escape;
#[cfg(feature = "etcd")]
#[cfg_attr(docsrs, doc(cfg(feature = "etcd")))]
pub mod etcd;
#[cfg(all(feature = "etcd", feature = "charts"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "etcd", feature = "charts"))))]
pub mod etcd_charts;
pub(crate) mod evcxr;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod explorable;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod explore_fanout;
#[cfg(feature = "charts")]
mod explore_remap;
#[cfg(feature = "charts")]
mod explore_replica_reads;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod explore_routing;
#[cfg(feature = "charts")]
mod explore_slots;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod explore_splits;
pub mod fanout;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
pub mod figures;
pub mod format;
pub mod hot;
pub mod indexes;
pub mod joining;
#[cfg(feature = "redis")]
#[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
pub mod live;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
mod maglev_size;
#[cfg(feature = "postgres")]
#[cfg_attr(docsrs, doc(cfg(feature = "postgres")))]
pub mod postgres;
#[cfg(feature = "proxies")]
#[cfg_attr(docsrs, doc(cfg(feature = "proxies")))]
pub mod proxies;
pub mod ranges;
pub mod routing;
#[cfg(feature = "charts")]
#[cfg_attr(docsrs, doc(cfg(feature = "charts")))]
mod shard_count;
pub mod show;
pub mod tables;

pub use crate::numbers::thousands;
#[cfg(feature = "charts")]
pub use charts::Figure;
#[cfg(feature = "charts")]
pub use explorable::{ChartKind, Explorable, ExplorableOutput, Format, Input, XValue};
#[cfg(feature = "charts")]
pub use figures::load_chart;
pub use format::{fixed, pct, slot_ranges};
#[cfg(feature = "charts")]
pub use hot::failure_chart;
pub use show::{Show, Shown};
pub use tables::Table;
