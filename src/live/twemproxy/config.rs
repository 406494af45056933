//! A twemproxy server pool, as its YAML config file says it.

use crate::live::backends::Backends;
use crate::live::server::HOST;
use crate::schemes::{Placement, TwemDistribution, Twemproxy};
use crate::{Error, Result};
use std::collections::HashMap;
use std::fmt::Write;

/// The `distribution` values twemproxy 0.5 accepts.
pub const DISTRIBUTIONS: [&str; 3] = ["ketama", "modula", "random"];

/// The `hash` values twemproxy 0.5 accepts.
pub const HASHES: [&str; 12] = [
    "one_at_a_time",
    "md5",
    "crc16",
    "crc32",
    "crc32a",
    "fnv1_64",
    "fnv1a_64",
    "fnv1_32",
    "fnv1a_32",
    "hsieh",
    "murmur",
    "jenkins",
];

/// One twemproxy server pool: its servers (by name, with weights) and how it
/// picks one for a key. Built like the crate's schemes: `named(…)`, then
/// `with_*`; each setting is written into nutcracker's YAML as is, and
/// every setting left alone is written with twemproxy's default.
///
/// ```
/// use reshard::live::NutcrackerConfig;
/// let c = NutcrackerConfig::named(["A", "B", "C"])?
///     .with_weights([1, 1, 2])?
///     .with_hash("murmur")?
///     .with_distribution("ketama")?
///     .with_hash_tag("{}")?
///     .with_auto_eject(1, 2000)?;
/// assert_eq!(c.servers()[2], ("C".to_string(), 2));
/// let grown = c.add_server("D", 1)?;
/// assert_eq!(grown.servers().len(), 4);
/// assert!(NutcrackerConfig::named(["A"])?.with_hash("sha1").is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NutcrackerConfig {
    servers: Backends,
    names_in_config: bool,
    distribution: &'static str,
    hash: &'static str,
    hash_tag: Option<String>,
    auto_eject_hosts: bool,
    server_failure_limit: u32,
    server_retry_timeout: u64,
    preconnect: bool,
    timeout: Option<u64>,
}

impl NutcrackerConfig {
    /// Servers with these names, weight 1 each; `distribution: ketama`,
    /// `hash: fnv1a_64`, no hash tag, `auto_eject_hosts: false`,
    /// `preconnect: false` (twemproxy's defaults).
    pub fn named<I, S>(names: I) -> Result<NutcrackerConfig>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(NutcrackerConfig {
            servers: Backends::named(names)?,
            names_in_config: true,
            distribution: "ketama",
            hash: "fnv1a_64",
            hash_tag: None,
            auto_eject_hosts: false,
            server_failure_limit: 2,
            server_retry_timeout: 30_000,
            preconnect: false,
            timeout: None,
        })
    }

    /// The pool a [`Twemproxy`] scheme describes — its servers' names and
    /// weights, its hash, distribution and hash tag — so that the crate's
    /// prediction and the running proxy come from one value. The server
    /// lines carry the scheme's names (ketama places a server by its name),
    /// so each name must suit a config file (letters, digits, `_ - .`); a
    /// hash tag must be two printable ASCII characters.
    /// `auto_eject_hosts` and the rest keep twemproxy's defaults.
    ///
    /// ```
    /// use reshard::live::NutcrackerConfig;
    /// use reshard::{TwemDistribution, TwemHash, Twemproxy};
    /// let pool = Twemproxy::named(["A", "B"])?
    ///     .with_weights([1, 3])?
    ///     .with_hash(TwemHash::Murmur)
    ///     .with_distribution(TwemDistribution::Modula)
    ///     .with_hash_tag("{}")?;
    /// let c = NutcrackerConfig::from_scheme(&pool)?;
    /// assert_eq!(c.servers(), [("A".to_string(), 1), ("B".to_string(), 3)]);
    /// assert_eq!((c.hash(), c.distribution(), c.hash_tag()), ("murmur", "modula", Some("{}")));
    /// assert!(NutcrackerConfig::from_scheme(&Twemproxy::named(["a b"])?).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn from_scheme(pool: &Twemproxy) -> Result<NutcrackerConfig> {
        let distribution = match pool.distribution() {
            TwemDistribution::Ketama => "ketama",
            TwemDistribution::Modula => "modula",
        };
        let mut c = NutcrackerConfig::named(pool.nodes().iter().cloned())?
            .with_weights(pool.weights().iter().copied())?
            .with_hash(pool.hash().name())?
            .with_distribution(distribution)?;
        if let Some(tag) = pool.hash_tag() {
            c = c.with_hash_tag(&String::from_utf8_lossy(&tag))?;
        }
        Ok(c)
    }

    /// The same pool with one more server, `weight` ≥ 1, listed last.
    pub fn add_server(&self, name: impl Into<String>, weight: u32) -> Result<NutcrackerConfig> {
        let grown = NutcrackerConfig { servers: self.servers.added(name, weight)?, ..self.clone() };
        grown.check_weights()?;
        Ok(grown)
    }

    /// The same pool without server `name`.
    pub fn remove_server(&self, name: &str) -> Result<NutcrackerConfig> {
        Ok(NutcrackerConfig { servers: self.servers.removed(name)?, ..self.clone() })
    }

    /// Integer weights, one per server in order (`host:port:WEIGHT`), as
    /// the crate's [`Twemproxy`] takes them: each from 1 to
    /// [`MAX_WEIGHT`](crate::schemes::twemproxy::MAX_WEIGHT), all together
    /// at most 4,294,967,295.
    pub fn with_weights(mut self, weights: impl IntoIterator<Item = u32>) -> Result<NutcrackerConfig> {
        self.servers = self.servers.with_weights(weights)?;
        self.check_weights()?;
        Ok(self)
    }

    /// The weights as the crate's scheme would take them: nutcracker starts
    /// with what the prediction can model.
    fn check_weights(&self) -> Result<()> {
        let names = self.servers.iter().map(|(n, _)| n.clone());
        Twemproxy::named(names)?.with_weights(self.servers.iter().map(|(_, w)| *w)).map(drop)
    }

    /// `distribution`: one of [`DISTRIBUTIONS`].
    pub fn with_distribution(mut self, distribution: &str) -> Result<NutcrackerConfig> {
        self.distribution = pick("distribution", distribution, &DISTRIBUTIONS)?;
        Ok(self)
    }

    /// `hash`: one of [`HASHES`].
    pub fn with_hash(mut self, hash: &str) -> Result<NutcrackerConfig> {
        self.hash = pick("hash", hash, &HASHES)?;
        Ok(self)
    }

    /// `hash_tag`: two characters, e.g. `"{}"`; only the part of a key
    /// between them is hashed (when the key has both).
    pub fn with_hash_tag(mut self, tag: &str) -> Result<NutcrackerConfig> {
        let ok = tag.len() == 2 && tag.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\');
        if !ok {
            return Err(Error::BadHashTag { tag: tag.to_string() });
        }
        self.hash_tag = Some(tag.to_string());
        Ok(self)
    }

    /// `auto_eject_hosts: true`, ejecting a server after `failure_limit`
    /// consecutive failures (`server_failure_limit`, ≥ 1) for
    /// `retry_timeout_ms` milliseconds (`server_retry_timeout`, ≥ 1).
    pub fn with_auto_eject(mut self, failure_limit: u32, retry_timeout_ms: u64) -> Result<NutcrackerConfig> {
        if failure_limit == 0 {
            return Err(Error::OutOfRange {
                what: "server_failure_limit (failures before an ejection)",
                given: "0".into(),
                allowed: "at least 1 (twemproxy's default: 2)".into(),
            });
        }
        if retry_timeout_ms == 0 {
            return Err(Error::OutOfRange {
                what: "server_retry_timeout (ms)",
                given: "0".into(),
                allowed: "at least 1 ms (twemproxy's default: 30000)".into(),
            });
        }
        (self.auto_eject_hosts, self.server_failure_limit, self.server_retry_timeout) =
            (true, failure_limit, retry_timeout_ms);
        Ok(self)
    }

    /// `preconnect`: connect to every server when nutcracker starts.
    pub fn with_preconnect(mut self, preconnect: bool) -> NutcrackerConfig {
        self.preconnect = preconnect;
        self
    }

    /// `timeout` in milliseconds (≥ 1) for connecting to and hearing from
    /// a server; without it nutcracker waits indefinitely.
    pub fn with_timeout_ms(mut self, ms: u64) -> Result<NutcrackerConfig> {
        if ms == 0 {
            return Err(Error::OutOfRange {
                what: "timeout (ms)",
                given: "0".into(),
                allowed: "at least 1 ms, e.g. 400".into(),
            });
        }
        self.timeout = Some(ms);
        Ok(self)
    }

    /// Server lines without names (`127.0.0.1:PORT:WEIGHT`): ketama then
    /// places a server by its address and port instead of its name (see
    /// [`Nutcracker::backend_port`](super::Nutcracker::backend_port)).
    pub fn without_names(mut self) -> NutcrackerConfig {
        self.names_in_config = false;
        self
    }

    /// The servers: (name, weight), in config order.
    pub fn servers(&self) -> &[(String, u32)] {
        &self.servers
    }

    /// `distribution`.
    pub fn distribution(&self) -> &str {
        self.distribution
    }

    /// `hash`.
    pub fn hash(&self) -> &str {
        self.hash
    }

    /// `hash_tag`, if set.
    pub fn hash_tag(&self) -> Option<&str> {
        self.hash_tag.as_deref()
    }

    /// True when the server lines carry the names.
    pub fn names_in_config(&self) -> bool {
        self.names_in_config
    }

    /// The YAML of pool `pool` listening on `listen`, server `name` on
    /// `ports[name]`.
    pub(crate) fn yaml(&self, pool: &str, listen: u16, ports: &HashMap<&str, u16>) -> String {
        let mut y = format!("{pool}:\n  listen: {HOST}:{listen}\n  redis: true\n");
        let _ = writeln!(y, "  distribution: {}\n  hash: {}", self.distribution, self.hash);
        if let Some(t) = &self.hash_tag {
            let _ = writeln!(y, "  hash_tag: \"{t}\"");
        }
        let _ = writeln!(y, "  auto_eject_hosts: {}", self.auto_eject_hosts);
        let _ = writeln!(y, "  server_failure_limit: {}", self.server_failure_limit);
        let _ = writeln!(y, "  server_retry_timeout: {}", self.server_retry_timeout);
        let _ = writeln!(y, "  preconnect: {}", self.preconnect);
        if let Some(t) = self.timeout {
            let _ = writeln!(y, "  timeout: {t}");
        }
        y.push_str("  servers:\n");
        for (name, weight) in self.servers.iter() {
            let port = ports.get(name.as_str()).copied().unwrap_or(0);
            let _ = write!(y, "   - {HOST}:{port}:{weight}");
            if self.names_in_config {
                let _ = write!(y, " {name}");
            }
            y.push('\n');
        }
        y
    }
}

/// `given` if it is one of `allowed`, else a typed error listing them.
fn pick(what: &'static str, given: &str, allowed: &[&'static str]) -> Result<&'static str> {
    allowed.iter().find(|a| **a == given).copied().ok_or_else(|| Error::UnknownName {
        what,
        given: given.to_string(),
        choices: format!("one of {} (the values twemproxy knows)", allowed.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_as_the_twemproxy_readme_writes_it() {
        let c = NutcrackerConfig::named(["A", "B"]).unwrap().with_weights([1, 3]).unwrap().with_hash_tag("{}").unwrap();
        let ports = HashMap::from([("A", 7001), ("B", 7002)]);
        let y = c.yaml("p", 9000, &ports);
        for line in [
            "p:",
            "  listen: 127.0.0.1:9000",
            "  hash_tag: \"{}\"",
            "  distribution: ketama",
            "   - 127.0.0.1:7001:1 A",
            "   - 127.0.0.1:7002:3 B",
        ] {
            assert!(y.lines().any(|l| l == line), "{line:?} not in\n{y}");
        }
        let bare = c.without_names().yaml("p", 9000, &ports);
        assert!(bare.lines().any(|l| l == "   - 127.0.0.1:7002:3"), "{bare}");
    }

    #[test]
    fn a_scheme_becomes_its_config() {
        use crate::schemes::TwemHash;
        let pool = Twemproxy::named(["b", "a"]).unwrap().with_weights([2, 5]).unwrap().with_hash(TwemHash::Md5);
        let c = NutcrackerConfig::from_scheme(&pool).unwrap();
        let y = c.yaml("p", 9000, &HashMap::from([("a", 7001), ("b", 7002)]));
        for line in ["  distribution: ketama", "  hash: md5", "   - 127.0.0.1:7002:2 b", "   - 127.0.0.1:7001:5 a"] {
            assert!(y.lines().any(|l| l == line), "{line:?} not in\n{y}");
        }
        assert!(!y.contains("hash_tag"), "{y}");
        let tagged = pool.with_distribution(TwemDistribution::Modula).with_hash_tag("::").unwrap();
        let y = NutcrackerConfig::from_scheme(&tagged).unwrap().yaml("p", 1, &HashMap::new());
        assert!(y.contains("  distribution: modula\n") && y.contains("  hash_tag: \"::\"\n"), "{y}");
        // a name nutcracker's config cannot carry, and a tag it cannot quote
        assert!(NutcrackerConfig::from_scheme(&Twemproxy::named(["a:1"]).unwrap()).is_err());
        let quote = Twemproxy::new(2).unwrap().with_hash_tag("\"\"").unwrap();
        assert!(NutcrackerConfig::from_scheme(&quote).is_err());
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        let c = NutcrackerConfig::named(["A", "B"]).unwrap();
        assert_eq!(NutcrackerConfig::named(Vec::<String>::new()), Err(Error::NoNodes));
        assert!(
            matches!(c.clone().with_distribution("ring"), Err(Error::UnknownName { choices, .. }) if choices.contains("ketama, modula, random"))
        );
        assert!(matches!(c.clone().with_weights([1]), Err(Error::LengthMismatch { .. })));
        assert!(matches!(c.clone().with_weights([1, 0]), Err(Error::BadWeight { .. })));
        assert_eq!(c.clone().with_hash_tag("{"), Err(Error::BadHashTag { tag: "{".into() }));
        assert!(matches!(c.clone().with_auto_eject(0, 10), Err(Error::OutOfRange { .. })));
        // the weights the scheme refuses, refused here too
        let big = c.clone().with_weights([u32::MAX, 1]).unwrap_err();
        assert!(matches!(big, Error::WeightTooLarge { weight: 4_294_967_295, .. }), "{big:?}");
        assert!(matches!(c.add_server("Z", 1 << 31), Err(Error::WeightTooLarge { .. })));
        assert_eq!(c.add_server("A", 1), Err(Error::DuplicateNode("A".into())));
        assert_eq!(c.remove_server("Z"), Err(Error::UnknownNode("Z".into())));
        assert_eq!(c.remove_server("A").unwrap().remove_server("B"), Err(Error::LastNode("B".into())));
    }
}
