//! Every result struct with public fields is `#[non_exhaustive]`, so that a
//! column added later breaks no user (they read the fields; only the crate
//! builds them). The structs a user fills in stay open, named here with why.

use std::fs;
use std::path::Path;

/// Public structs with public fields that users build themselves.
const BUILT_BY_USERS: [(&str, &str); 1] =
    [("CompareSettings", "the settings of a comparison, filled in with ..Default::default()")];

/// `(file, struct)` for every `pub struct` whose body has a `pub` field and
/// whose attributes lack `non_exhaustive`.
fn open_structs(dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "bin") {
                open_structs(&path, out);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(rest) = line.trim_start().strip_prefix("pub struct ") else { continue };
            if !rest.trim_end().ends_with('{') {
                continue; // a tuple or unit struct
            }
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let indent = line.len() - line.trim_start().len();
            let body =
                lines[i + 1..].iter().take_while(|l| !(l.trim() == "}" && l.len() - l.trim_start().len() == indent));
            let public_field = body.clone().any(|l| {
                let t = l.trim_start();
                t.starts_with("pub ") && !t.starts_with("pub fn") && t.contains(':')
            });
            let attrs = lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.trim_start().starts_with("#[") || l.trim_start().starts_with("///"));
            let closed = attrs.clone().any(|l| l.contains("non_exhaustive"));
            if public_field && !closed {
                out.push((path.display().to_string(), name));
            }
        }
    }
}

#[test]
fn result_structs_are_non_exhaustive() {
    let mut open = Vec::new();
    open_structs(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut open);
    let allowed: Vec<&str> = BUILT_BY_USERS.iter().map(|(n, _)| *n).collect();
    let stray: Vec<String> =
        open.iter().filter(|(_, n)| !allowed.contains(&n.as_str())).map(|(f, n)| format!("{f}: {n}")).collect();
    assert!(stray.is_empty(), "result structs with public fields and no #[non_exhaustive]: {stray:?}");
    let mut found: Vec<&str> = open.iter().map(|(_, n)| n.as_str()).collect();
    found.sort();
    let mut listed = allowed.clone();
    listed.sort();
    assert_eq!(found, listed, "the list names exactly the open structs the scan finds");
}
