//! An nginx `upstream` with `hash $request_body`, and the whole nginx.conf
//! that runs it with its backends in one private directory.

use crate::live::backends::Backends;
use crate::live::server::HOST;
use crate::{Error, Result};
use std::fmt::Write;
use std::path::Path;

/// An nginx `upstream` block: `hash $request_body consistent;` (or plain
/// `hash $request_body;`: the key travels as the request's body) over
/// servers with weights. Built like the crate's schemes: `named(…)`, then
/// `with_*`; a weight the crate's [`NginxHash`](crate::NginxHash) refuses
/// is refused here too.
///
/// ```
/// use reshard::live::NginxConfig;
/// let c = NginxConfig::named(["A", "B", "C"])?.with_weights([1, 2, 1])?;
/// assert!(c.is_consistent());
/// let plain = c.clone().consistent(false);
/// assert_eq!(plain.add_server("D", 1)?.servers().len(), 4);
/// assert!(c.with_weights([1, 0, 1]).is_err());
/// # Ok::<(), reshard::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NginxConfig {
    servers: Backends,
    consistent: bool,
    /// Servers marked `down`, by name.
    down: Vec<String>,
}

impl NginxConfig {
    /// Servers with these names, `weight=1` each, `hash $request_body
    /// consistent;`.
    pub fn named<I, S>(names: I) -> Result<NginxConfig>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Ok(NginxConfig { servers: Backends::named(names)?, consistent: true, down: Vec::new() })
    }

    /// `hash $request_body consistent;` (ketama-like points, 160 per unit
    /// of weight) when true, else `hash $request_body;` (the hash modulo the
    /// total weight).
    pub fn consistent(mut self, consistent: bool) -> NginxConfig {
        self.consistent = consistent;
        self
    }

    /// `weight=` of each server in order, integers ≥ 1 that the crate's
    /// [`NginxHash`](crate::NginxHash) takes (160 ring points per unit of
    /// weight, within the crate's limits).
    pub fn with_weights(mut self, weights: impl IntoIterator<Item = u32>) -> Result<NginxConfig> {
        self.servers = self.servers.with_weights(weights)?;
        self.check_weights()?;
        Ok(self)
    }

    /// The weights as the crate's scheme would take them: nginx starts with
    /// what the prediction can model.
    fn check_weights(&self) -> Result<()> {
        let names = crate::numbered(self.servers.len())?;
        let weights = self.servers.iter().map(|(_, w)| *w);
        crate::NginxHash::named(names)?.with_consistent(self.consistent).with_weights(weights).map(drop)
    }

    /// The same upstream with these servers marked `down` (`server … down;`)
    /// and every other one up: nginx sends their keys elsewhere, as the
    /// crate's [`NginxHash::with_down`](crate::NginxHash::with_down) says.
    /// At least one server stays up.
    ///
    /// ```
    /// use reshard::live::NginxConfig;
    /// let c = NginxConfig::named(["A", "B", "C"])?.with_down(["B"])?;
    /// assert_eq!(c.down(), ["B"]);
    /// assert!(c.clone().with_down(["A", "B", "C"]).is_err());
    /// assert!(c.with_down(["Z"]).is_err());
    /// # Ok::<(), reshard::Error>(())
    /// ```
    pub fn with_down<I, S>(mut self, names: I) -> Result<NginxConfig>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut down = Vec::new();
        for name in names {
            let name = name.as_ref();
            if !self.servers.iter().any(|(n, _)| n == name) {
                return Err(Error::UnknownNode(name.into()));
            }
            if !down.iter().any(|d| d == name) {
                down.push(name.to_string());
            }
        }
        if down.len() == self.servers.len() {
            return Err(Error::AllServersDown);
        }
        self.down = down;
        Ok(self)
    }

    /// The same upstream with one more server, `weight` ≥ 1, listed last.
    pub fn add_server(&self, name: impl Into<String>, weight: u32) -> Result<NginxConfig> {
        let grown = NginxConfig { servers: self.servers.added(name, weight)?, ..self.clone() };
        grown.check_weights()?;
        Ok(grown)
    }

    /// The same upstream without server `name`.
    pub fn remove_server(&self, name: &str) -> Result<NginxConfig> {
        let servers = self.servers.removed(name)?;
        if servers.iter().all(|(n, _)| self.down.contains(n)) {
            return Err(Error::AllServersDown);
        }
        let down = self.down.iter().filter(|d| *d != name).cloned().collect();
        Ok(NginxConfig { servers, down, ..self.clone() })
    }

    /// The servers: (name, weight), in config order.
    pub fn servers(&self) -> &[(String, u32)] {
        &self.servers
    }

    /// The servers marked `down`, by name.
    pub fn down(&self) -> &[String] {
        &self.down
    }

    /// True for `hash $request_body consistent;`.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// nginx.conf: everything inside `dir`, one worker, every `listen` on
    /// 127.0.0.1; a `server` block per backend answering its name, the
    /// proxy on `proxy` passing to the upstream, and `/reshard-generation`
    /// answering `token` (to know which config runs).
    pub(crate) fn nginx_conf(&self, dir: &Path, proxy: u16, ports: &[u16], token: &str, root: bool) -> String {
        let d = dir.display();
        let mut c = String::new();
        if root {
            // Workers would otherwise run as nobody; everything here is root's.
            c.push_str("user root;\n");
        }
        let _ = writeln!(c, "worker_processes 1;\ndaemon off;\nmaster_process on;\npid {d}/nginx.pid;");
        let _ = writeln!(c, "error_log {d}/error.log notice;\nevents {{ worker_connections 1024; }}\nhttp {{");
        let _ = writeln!(c, "  access_log off;\n  keepalive_requests 1000000;\n  default_type text/plain;");
        for t in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            let _ = writeln!(c, "  {t}_temp_path {d}/{t}_temp;");
        }
        // the key is the request body: kept in memory in one buffer, where
        // $request_body reads it, up to MAX_KEY_BYTES
        let _ = writeln!(c, "  client_body_buffer_size 1m;\n  client_max_body_size 1m;");
        let _ = writeln!(c, "  client_body_in_single_buffer on;");
        let method = if self.consistent { "hash $request_body consistent;" } else { "hash $request_body;" };
        let _ = writeln!(c, "  upstream reshard {{\n    {method}");
        for ((name, weight), port) in self.servers.iter().zip(ports) {
            let down = if self.down.contains(name) { " down" } else { "" };
            let _ = writeln!(c, "    server {HOST}:{port} weight={weight}{down};");
        }
        c.push_str("    keepalive 16;\n  }\n");
        for ((name, _), port) in self.servers.iter().zip(ports) {
            let _ = writeln!(c, "  server {{ listen {HOST}:{port}; location / {{ return 200 \"{name}\"; }} }}");
        }
        let _ = writeln!(c, "  server {{\n    listen {HOST}:{proxy};");
        let _ = writeln!(c, "    location = /reshard-generation {{ return 200 \"{token}\"; }}");
        c.push_str("    location / {\n      proxy_pass http://reshard;\n      proxy_http_version 1.1;\n");
        c.push_str("      proxy_set_header Connection \"\";\n    }\n  }\n}\n");
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_upstream_block() {
        let c = NginxConfig::named(["A", "B"]).unwrap().with_weights([1, 3]).unwrap();
        let conf = c.nginx_conf(Path::new("/tmp/x"), 9000, &[7001, 7002], "t-1", true);
        for line in [
            "user root;",
            "    hash $request_body consistent;",
            "  client_body_in_single_buffer on;",
            "    server 127.0.0.1:7001 weight=1;",
            "    server 127.0.0.1:7002 weight=3;",
            "  server { listen 127.0.0.1:7002; location / { return 200 \"B\"; } }",
            "    listen 127.0.0.1:9000;",
            "  proxy_temp_path /tmp/x/proxy_temp;",
        ] {
            assert!(conf.lines().any(|l| l == line), "{line:?} not in\n{conf}");
        }
        let plain = c.clone().consistent(false).nginx_conf(Path::new("/d"), 1, &[2, 3], "t", false);
        assert!(plain.contains("    hash $request_body;\n") && !plain.contains("user root"));
        let b_down = c.with_down(["B"]).unwrap().nginx_conf(Path::new("/d"), 1, &[2, 3], "t", false);
        assert!(b_down.contains("    server 127.0.0.1:2 weight=1;\n"), "{b_down}");
        assert!(b_down.contains("    server 127.0.0.1:3 weight=3 down;\n"), "{b_down}");
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        let c = NginxConfig::named(["A"]).unwrap();
        assert!(matches!(c.clone().with_weights([1, 1]), Err(Error::LengthMismatch { .. })));
        assert_eq!(NginxConfig::named(["a b"]), Err(Error::BadBackendName { name: "a b".into() }));
        assert_eq!(c.remove_server("A"), Err(Error::LastNode("A".into())));
        let two = NginxConfig::named(["A", "B"]).unwrap().with_down(["B"]).unwrap();
        assert_eq!(two.remove_server("A"), Err(Error::AllServersDown));
        assert!(two.remove_server("B").unwrap().down().is_empty());
    }
}
