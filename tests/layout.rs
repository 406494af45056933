//! The crate's floors, checked: `schemes/` and `analysis/` (and the ground
//! files under them) never name the `present` floor or the `tutor`.

use std::fs;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Lines of `path` that name `word` as a path segment (`present::`,
/// `::present`, `present::{`), comments excluded.
fn naming(path: &Path, word: &str) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .filter(|(_, l)| l.contains(&format!("{word}::")) || l.contains(&format!("::{word}")))
        .map(|(i, l)| format!("{}:{}: {}", path.display(), i + 1, l.trim()))
        .collect()
}

#[test]
fn lower_floors_never_import_the_upper_ones() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root.join("schemes"), &mut files);
    rust_files(&root.join("analysis"), &mut files);
    for ground in ["hash.rs", "keys.rs", "error.rs", "limits.rs"] {
        files.push(root.join(ground));
    }
    assert!(files.len() >= 20, "expected the schemes and analysis floors, found {files:?}");
    let bad: Vec<String> = files.iter().flat_map(|f| [naming(f, "present"), naming(f, "tutor")]).flatten().collect();
    assert!(bad.is_empty(), "a lower floor names an upper one:\n{}", bad.join("\n"));
}

#[test]
fn the_check_catches_an_import() {
    let dir = std::env::temp_dir().join(format!("reshard-layout-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.rs");
    fs::write(&f, "// present:: in a comment is fine\nuse crate::present::thousands;\n").unwrap();
    assert_eq!(naming(&f, "present").len(), 1);
    fs::remove_dir_all(&dir).unwrap();
}
