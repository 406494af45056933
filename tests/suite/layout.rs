//! The crate's floors, checked on module paths, not on text.
//!
//! Every `use crate::…`, `use super::…`, `use self::…`, relative `use
//! child::…` and inline `crate::…` / `super::…` path of every file in `src/`
//! (comments and string literals removed, inline `mod x { … }` blocks
//! followed) is resolved to the module it names; a name re-exported by
//! `pub use` in `lib.rs` or in its `prelude` (`crate::Check`,
//! `crate::prelude::thousands`) resolves to where it comes from. From that:
//!
//! * the ground files (`error`, `hash`, `keys`, `limits`, `numbers`,
//!   `pyrandom`), `schemes` and `analysis` never reach `present`, `tutor`
//!   or `live`;
//! * `live` never reaches `present` or `tutor` (its `mod.rs` re-exports
//!   included);
//! * the graph of which top-level module uses which has no cycle, and
//!   neither has the graph of the child modules of any module (no circle
//!   such as `present::show` ↔ `present::charts`);
//! * no file in `src/` is over 600 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const GROUND: [&str; 6] = ["error", "hash", "keys", "limits", "numbers", "pyrandom"];
const MAX_LINES: usize = 600;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is: `lib.rs` → `[]`, `a/mod.rs` → `[a]`, `a/b.rs` → `[a, b]`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The text with comments, string and char literals blanked (newlines kept).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // raw string r"…", r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.extend(b[i..j.min(b.len())].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < b.len() {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' {
            // a char literal ('x', '\n', '\u{1b}'), not a lifetime ('a)
            let close = if next == Some('\\') {
                (i + 2..b.len().min(i + 12)).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(k) => {
                    out.extend(std::iter::repeat_n(' ', k + 1 - i));
                    i = k + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Inline `mod name { … }` blocks: (byte start of the body, byte end, name).
fn inline_mods(code: &str) -> Vec<(usize, usize, String)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("mod ") {
        let start = from + at;
        from = start + 4;
        if start > 0 && is_ident_char(bytes[start - 1] as char) {
            continue;
        }
        let rest = &code[start + 4..];
        let name: String = rest.trim_start().chars().take_while(|&c| is_ident_char(c)).collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = code.len() - after.len();
        let mut depth = 0;
        let mut end = code.len();
        for (k, ch) in code[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((open, end, name));
    }
    out
}

/// The module the code at `pos` is in.
fn module_at(file_module: &[String], mods: &[(usize, usize, String)], pos: usize) -> Vec<String> {
    let mut m = file_module.to_vec();
    let mut inner: Vec<&(usize, usize, String)> = mods.iter().filter(|(s, e, _)| *s < pos && pos < *e).collect();
    inner.sort_by_key(|(s, _, _)| *s);
    m.extend(inner.iter().map(|(_, _, n)| n.clone()));
    m
}

/// The paths a `use` tree names: `a::{b, c::d, self}` → `a::b`, `a::c::d`, `a`.
fn expand_tree(tree: &str) -> Vec<Vec<String>> {
    // drop renames (`Engine as _,` → `Engine,`), then the whitespace
    let mut kept = Vec::new();
    let mut words = tree.split_whitespace();
    while let Some(w) = words.next() {
        if w == "as" {
            let renamed = words.next().unwrap_or("");
            kept.push(renamed.trim_start_matches(is_ident_char).to_string());
        } else {
            kept.push(w.to_string());
        }
    }
    let tree: String = kept.concat();
    fn go(prefix: &[String], t: &str, out: &mut Vec<Vec<String>>) {
        let t = t.trim_start_matches("::");
        if let Some(open) = t.find('{') {
            let head: Vec<String> = t[..open].split("::").filter(|s| !s.is_empty()).map(String::from).collect();
            let mut p = prefix.to_vec();
            p.extend(head);
            let body = &t[open + 1..t.rfind('}').unwrap_or(t.len())];
            let (mut depth, mut last) = (0, 0);
            let mut items = Vec::new();
            for (k, ch) in body.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&body[last..k]);
                        last = k + 1;
                    }
                    _ => {}
                }
            }
            items.push(&body[last..]);
            for item in items.into_iter().filter(|i| !i.is_empty()) {
                go(&p, item, out);
            }
        } else {
            let mut p = prefix.to_vec();
            for seg in t.split("::").filter(|s| !s.is_empty()) {
                if seg != "self" && seg != "*" {
                    p.push(seg.to_string());
                }
            }
            out.push(p);
        }
    }
    let mut out = Vec::new();
    go(&[], &tree, &mut out);
    out
}

/// A path as written at module `here`, made absolute from the crate root;
/// `None` for paths outside the crate (std, rayon, plotters …).
fn absolute(here: &[String], path: &[String], children: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    let mut at: Vec<String> = here.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            at.clear();
            rest = &path[1..];
        }
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                at.pop();
                rest = &rest[1..];
            }
        }
        Some("self") => rest = &path[1..],
        Some(first) => {
            let mut child = here.to_vec();
            child.push(first.to_string());
            if !children.contains(&child) {
                return None;
            }
        }
        None => return None,
    }
    at.extend(rest.iter().cloned());
    Some(at)
}

/// Every crate path a file names, resolved: (line, absolute path, module it was written in).
fn paths_in(src: &Path, file: &Path, modules: &BTreeSet<Vec<String>>) -> Vec<(usize, Vec<String>, Vec<String>)> {
    let text = fs::read_to_string(file).unwrap();
    let code = code_only(&text);
    let file_module = module_of(src, file);
    let mods = inline_mods(&code);
    let line_of = |pos: usize| code[..pos].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut in_use: Vec<(usize, usize)> = Vec::new();
    // `use` declarations (with `pub`, `pub(crate)` …)
    let bytes = code.as_bytes();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        from = start + 4;
        if start > 0 && is_ident_char(bytes[start - 1] as char) {
            continue;
        }
        let Some(end) = code[start..].find(';').map(|e| start + e) else { continue };
        in_use.push((start, end));
        let here = module_at(&file_module, &mods, start);
        for p in expand_tree(&code[start + 4..end]) {
            if let Some(abs) = absolute(&here, &p, modules) {
                found.push((line_of(start), abs, here.clone()));
            }
        }
    }
    // inline paths: crate::a::b, super::super::x
    let mut from = 0;
    while from < code.len() {
        let next = ["crate::", "super::"].iter().filter_map(|w| code[from..].find(w).map(|k| from + k)).min();
        let Some(start) = next else { break };
        from = start + 6;
        if start > 0 && (is_ident_char(bytes[start - 1] as char) || bytes[start - 1] == b':') {
            continue;
        }
        if in_use.iter().any(|&(s, e)| s <= start && start < e) {
            continue;
        }
        let path: Vec<String> = code[start..]
            .split(|c: char| !(is_ident_char(c) || c == ':'))
            .next()
            .unwrap_or("")
            .split("::")
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let here = module_at(&file_module, &mods, start);
        if let Some(abs) = absolute(&here, &path, modules) {
            found.push((line_of(start), abs, here));
        }
    }
    found
}

/// What the crate looks like: top-level modules, every module, and where
/// each name re-exported at the root (or in the prelude) comes from.
struct Crate {
    src: PathBuf,
    files: Vec<PathBuf>,
    modules: BTreeSet<Vec<String>>,
    tops: BTreeSet<String>,
    reexports: BTreeMap<String, Vec<String>>,
    prelude: BTreeMap<String, Vec<String>>,
}

impl Crate {
    fn read(src: &Path) -> Crate {
        let mut files = Vec::new();
        rust_files(src, &mut files);
        files.retain(|f| !f.strip_prefix(src).unwrap().starts_with("bin"));
        files.sort();
        let mut modules = BTreeSet::new();
        for f in &files {
            let m = module_of(src, f);
            let code = code_only(&fs::read_to_string(f).unwrap());
            for (s, _, _) in inline_mods(&code) {
                modules.insert(module_at(&m, &inline_mods(&code), s + 1));
            }
            modules.insert(m);
        }
        let tops: BTreeSet<String> = modules.iter().filter(|m| m.len() == 1).map(|m| m[0].clone()).collect();
        let mut c = Crate {
            src: src.to_path_buf(),
            files,
            modules,
            tops,
            reexports: BTreeMap::new(),
            prelude: BTreeMap::new(),
        };
        let lib = src.join("lib.rs");
        for (_, abs, here) in paths_in(src, &lib, &c.modules) {
            let Some(name) = abs.last().cloned() else { continue };
            match here.as_slice() {
                [] => c.reexports.insert(name, abs),
                [p] if p == "prelude" => c.prelude.insert(name, abs),
                _ => None,
            };
        }
        c
    }

    /// The top-level module an absolute path lands in, through re-exports.
    fn top_of(&self, abs: &[String], depth: usize) -> Option<String> {
        let first = abs.first()?;
        if depth > 4 {
            return None;
        }
        if first == "prelude" {
            let via = self.prelude.get(abs.get(1)?)?;
            return self.top_of(via, depth + 1);
        }
        if self.tops.contains(first) && first != "prelude" {
            return Some(first.clone());
        }
        let via = self.reexports.get(first)?;
        if via.as_slice() == abs {
            return None;
        }
        self.top_of(via, depth + 1)
    }

    /// (from top, to top, "file:line: path") for every path in a file
    /// outside lib.rs that leaves its own top-level module.
    fn edges(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for f in &self.files {
            let m = module_of(&self.src, f);
            let Some(from) = m.first().cloned() else { continue };
            for (line, abs, _) in paths_in(&self.src, f, &self.modules) {
                if let Some(to) = self.top_of(&abs, 0) {
                    if to != from {
                        let rel = f.strip_prefix(&self.src).unwrap().display();
                        out.push((from.clone(), to, format!("src/{rel}:{line}: crate::{}", abs.join("::"))));
                    }
                }
            }
        }
        out
    }
}

impl Crate {
    /// (parent, from child, to child, witness) for every path from a file
    /// in one child module of `parent` to another child of the same parent:
    /// the edges between siblings, at every depth below the crate root
    /// (the root's children are [`Crate::edges`]). A path into a module's
    /// own parent or descendants is no edge between siblings.
    fn sibling_edges(&self) -> Vec<(Vec<String>, String, String, String)> {
        let mut out = Vec::new();
        for f in &self.files {
            let m = module_of(&self.src, f);
            for (line, abs, _) in paths_in(&self.src, f, &self.modules) {
                let common = m.iter().zip(&abs).take_while(|(a, b)| a == b).count();
                if common == 0 || common >= m.len() || common >= abs.len() {
                    continue;
                }
                let (from, to) = (&m[common], &abs[common]);
                let mut target = abs[..=common].to_vec();
                if !self.modules.contains(&target) {
                    continue; // an item of the parent, not a sibling module
                }
                target.truncate(common);
                let rel = f.strip_prefix(&self.src).unwrap().display();
                out.push((target, from.clone(), to.clone(), format!("src/{rel}:{line}: crate::{}", abs.join("::"))));
            }
        }
        out
    }
}

/// The cycles of a graph, as "a → b → a", by depth-first search.
fn cycles_of<'a>(graph: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<String> {
    fn dfs<'a>(
        n: &'a str,
        graph: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(n, 1);
        stack.push(n);
        for &m in graph.get(n).into_iter().flatten() {
            match state.get(m).copied().unwrap_or(0) {
                0 => dfs(m, graph, state, stack, cycles),
                1 => {
                    let at = stack.iter().position(|&s| s == m).unwrap();
                    let mut c: Vec<&str> = stack[at..].to_vec();
                    c.push(m);
                    cycles.push(c.join(" → "));
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n, 2);
    }
    let (mut state, mut cycles) = (BTreeMap::new(), Vec::new());
    for &n in graph.keys() {
        if state.get(n).copied().unwrap_or(0) == 0 {
            dfs(n, graph, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    cycles
}

/// Every breach of the floors in the crate at `src`, one line each.
fn violations(src: &Path) -> Vec<String> {
    let krate = Crate::read(src);
    let edges = krate.edges();
    let mut bad = Vec::new();
    let lower: Vec<&str> = GROUND.iter().copied().chain(["schemes", "analysis"]).collect();
    for (from, to, at) in &edges {
        if lower.contains(&from.as_str()) && ["present", "tutor", "live"].contains(&to.as_str()) {
            bad.push(format!("{from} reaches {to}: {at}"));
        }
        if from == "live" && ["present", "tutor"].contains(&to.as_str()) {
            bad.push(format!("live reaches {to}: {at}"));
        }
    }
    // cycles between top-level modules
    let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, to, _) in &edges {
        graph.entry(from).or_default().insert(to);
    }
    for c in cycles_of(&graph) {
        let witness: Vec<&String> =
            edges.iter().filter(|(f, t, _)| c.contains(&format!("{f} → {t}"))).map(|(_, _, at)| at).take(4).collect();
        bad.push(format!("module cycle {c}: {witness:?}"));
    }
    // and between the child modules of every module (present/show.rs and
    // present/charts each reaching the other is a circle too)
    let siblings = krate.sibling_edges();
    let parents: BTreeSet<&Vec<String>> = siblings.iter().map(|e| &e.0).collect();
    for parent in parents {
        let mut graph: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (p, from, to, _) in &siblings {
            if p == parent {
                graph.entry(from).or_default().insert(to);
            }
        }
        for c in cycles_of(&graph) {
            let witness: Vec<&String> = siblings
                .iter()
                .filter(|(p, f, t, _)| p == parent && c.contains(&format!("{f} → {t}")))
                .map(|e| &e.3)
                .take(4)
                .collect();
            bad.push(format!("module cycle {c} in crate::{}: {witness:?}", parent.join("::")));
        }
    }
    // file length, binaries included
    let mut all = Vec::new();
    rust_files(src, &mut all);
    for f in all {
        let n = fs::read_to_string(&f).unwrap().lines().count();
        if n > MAX_LINES {
            bad.push(format!("{} has {n} lines (at most {MAX_LINES})", f.display()));
        }
    }
    bad
}

#[test]
fn the_floors_hold() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let krate = Crate::read(&src);
    assert!(krate.files.len() >= 60, "expected the whole crate, found {} files", krate.files.len());
    for top in ["schemes", "analysis", "present", "tutor", "live", "numbers", "pyrandom"] {
        assert!(krate.tops.contains(top), "no top-level module {top}: {:?}", krate.tops);
    }
    // the checker sees real edges, so an empty list below means something
    let edges = krate.edges();
    for (from, to) in [("analysis", "schemes"), ("present", "analysis"), ("tutor", "present"), ("error", "numbers")] {
        assert!(edges.iter().any(|(f, t, _)| f == from && t == to), "no edge {from} → {to} found");
    }
    let bad = violations(&src);
    assert!(bad.is_empty(), "the floors are breached:\n{}", bad.join("\n"));
}

/// A crate in a temporary directory, from (path, text) pairs.
fn planted(files: &[(&str, &str)]) -> (PathBuf, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("reshard-layout-{}-{}", std::process::id(), files.len()));
    let _ = fs::remove_dir_all(&dir);
    for (path, text) in files {
        let p = dir.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    let bad = violations(&dir);
    fs::remove_dir_all(&dir).unwrap();
    (dir, bad)
}

const LIB: &str = "pub mod schemes;\npub mod analysis;\npub mod present;\npub mod tutor;\npub mod live;\n\
                   pub use tutor::Check;\npub mod prelude {\n    pub use crate::present::thousands;\n}\n";

#[test]
fn the_check_catches_a_planted_violation() {
    let clean = [
        ("lib.rs", LIB),
        ("schemes/mod.rs", "// crate::present::x in a comment is fine\nconst S: &str = \"crate::tutor::y\";\n"),
        ("analysis/mod.rs", "use crate::schemes;\nuse super::schemes as s;\n"),
        ("present/mod.rs", "pub fn thousands() {}\nuse crate::analysis;\n"),
        ("tutor/mod.rs", "pub struct Check;\nuse crate::present::{self, thousands};\n"),
        ("live/mod.rs", "use crate::{analysis, schemes::{self}};\n"),
    ];
    assert_eq!(planted(&clean).1, Vec::<String>::new());
    let plant = |path: &str, text: &str| {
        let mut files: Vec<(&str, String)> = clean.iter().map(|(p, t)| (*p, t.to_string())).collect();
        match files.iter_mut().find(|(p, _)| *p == path) {
            Some(f) => f.1.push_str(text),
            None => files.push((path, text.to_string())),
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        planted(&files).1
    };
    // a direct import, a root re-export, the prelude, super:: from a nested
    // file and from a test module, an inline path, a use tree
    for (path, text, word) in [
        ("schemes/mod.rs", "use crate::present::thousands;\n", "schemes reaches present"),
        ("schemes/x.rs", "use crate::Check;\n", "schemes reaches tutor"),
        ("analysis/x.rs", "use crate::prelude::thousands;\n", "analysis reaches present"),
        ("analysis/x/y.rs", "use super::super::super::live::Thing;\n", "analysis reaches live"),
        ("analysis/mod.rs", "mod tests {\n    use super::super::tutor::Check;\n}\n", "analysis reaches tutor"),
        ("schemes/mod.rs", "fn f() { let _ = crate::tutor::Check; }\n", "schemes reaches tutor"),
        ("live/mod.rs", "pub use crate::{schemes, present::{thousands}};\n", "live reaches present"),
    ] {
        let bad = plant(path, text);
        assert!(bad.iter().any(|b| b.contains(word)), "{path}: {text:?} not caught: {bad:?}");
    }
    // a cycle between two top-level modules that the floors allow each way
    let bad = plant("live/mod.rs", "use crate::tutor::Check;\n");
    assert!(bad.iter().any(|b| b.contains("live reaches tutor")), "{bad:?}");
    let bad = plant("present/mod.rs", "use crate::tutor::Check;\n");
    assert!(bad.iter().any(|b| b.starts_with("module cycle") && b.contains("present")), "{bad:?}");
    // a circle between two child modules of one module, as present/show.rs
    // and present/charts had; one way is fine
    let one_way = [
        ("lib.rs", LIB),
        ("present/mod.rs", "pub mod show;\npub mod charts;\n"),
        ("present/show.rs", "pub trait Show {}\n"),
        ("present/charts/mod.rs", "pub struct Figure;\nimpl crate::present::show::Show for Figure {}\n"),
    ];
    assert_eq!(planted(&one_way).1, Vec::<String>::new());
    let mut circle = one_way.to_vec();
    circle[2] = ("present/show.rs", "pub trait Show {}\nuse crate::present::charts::Figure;\n");
    let bad = planted(&circle).1;
    assert!(bad.iter().any(|b| b.starts_with("module cycle") && b.contains("crate::present")), "{bad:?}");
    // a long file
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    let bad = plant("schemes/long.rs", &long);
    assert!(bad.iter().any(|b| b.contains("601 lines")), "{bad:?}");
}
