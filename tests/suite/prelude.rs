//! The two glob imports: `reshard::prelude` stays short enough to read on
//! one screen, and `reshard::notebook` still has every name the notebooks
//! used from the old, single prelude (so a notebook changes one line:
//! `use reshard::prelude::*;` → `use reshard::notebook::*;`).

// Every name notebooks/*.ipynb took from the old prelude (commit 8b68c44),
// plus the traits whose methods they call (`middle_removal` and `ring_spread`
// became `MiddleRemoval::measure` and `LoadSpread::measure`: one verb).
#[cfg(feature = "charts")]
#[allow(unused_imports)]
use reshard::notebook::{charts, failure_chart, load_chart, Figure, Series, Style};
#[allow(unused_imports)]
use reshard::notebook::{crc16, fixed, guava_consistent_hash};
#[allow(unused_imports)]
use reshard::notebook::{
    jump, jump_hash, ketama_hash, key_slot, keys_changing_shard, letters, md5_u128, modulo_rule, numbered, pct,
    prefixed, resized, ring_share_sd, shards, show, slots, thousands, ArrangementSweep, Bounded, BoundedLoads, Check,
    Checks, CompareSettings, Comparison, CopyMovement, Error, FailureSweep, FixedShards, Guess, HashWidth, HashedKeys,
    HotKeySplit, Jump, Ketama, Key, KeySet, LoadReport, LoadSpread, LoadUnderSkew, Locate, Maglev, MiddleRemoval,
    Modulo, ModuloSweep, Movement, NginxHash, NodeFailure, Params, Placement, PyRandom, Quiz, Rendezvous, Replicas,
    Replicated, RequestBounds, RequestLoad, Ring, Scheme, Show, Shown, Slots, Table, TwemDistribution, TwemHash,
    Twemproxy, UnstableShards, VnodeSweep, WeightedShares, Workload,
};

/// The names one `pub use` block of `src/lib.rs` brings in.
fn names_in(module: &str) -> Vec<String> {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    let start = lib.find(&format!("pub mod {module} {{")).unwrap_or_else(|| panic!("no pub mod {module}"));
    let body = &lib[start..];
    let body = &body[..body.find("\n}").unwrap()];
    let mut names = Vec::new();
    for item in body.split(';').filter(|s| s.contains("pub use")) {
        let item = item.split("pub use").nth(1).unwrap();
        let list = match item.find('{') {
            Some(i) => &item[i + 1..item.rfind('}').unwrap()],
            None => item.rsplit("::").next().unwrap(),
        };
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            names.push(if name == "self" { item.trim().split("::").last().unwrap().to_string() } else { name.into() });
        }
    }
    names
}

#[test]
fn the_prelude_fits_on_one_screen() {
    let names = names_in("prelude");
    eprintln!("prelude: {} names", names.len());
    assert!(names.len() >= 20 && names.len() <= 32, "{} names: {names:?}", names.len());
    for core in ["KeySet", "HashedKeys", "HashWidth", "Locate", "Placement", "Ring", "Movement", "LoadReport", "Error"]
    {
        assert!(names.iter().any(|n| n == core), "{core} missing from the prelude");
    }
}

#[test]
fn neither_glob_shadows_std() {
    // std's prelude names a glob import would shadow (the doc tests of
    // `reshard::prelude` and `reshard::notebook` show `Result<T, String>`
    // still working under each glob)
    for module in ["prelude", "notebook"] {
        for name in names_in(module) {
            assert!(
                !["Result", "Option", "Vec", "String", "Box", "Some", "None", "Ok", "Err", "Default", "Iterator"]
                    .contains(&name.as_str()),
                "{module} exports {name}"
            );
        }
    }
}
