//! `reshard::reproduce`: every figure of each document matches, and the
//! figures it checks are the documents' own (copied from the documents in
//! `/work/shared/seeds/`, not from the crate).

#[allow(unused_imports)]
use reshard::prelude::*;
use reshard::tutor::reproduce::{self, DOCUMENTS};
use reshard::Error;

/// Figures as each document prints them; each must be among the
/// `document` values the reproduction checks against.
fn printed(doc: &str) -> &'static [&'static str] {
    match doc {
        "000" => &[
            "75.0%",
            "91.0%",
            "50.0%",
            "89.9%",
            "28.0%",
            "25.3%",
            "[31186, 10531, 30259, 28024]",
            "[25136, 24419, 25098, 25347]",
            "33,830",
            "0.8%",
            "71.4%",
            "213",
            "71,383",
            "21.5%",
            "28.2%",
            "21,055",
            "29,917",
            "8.0%",
            "11.5%",
            "9.1%",
            "6.8%",
            "11.0%",
            "11.4%",
            "0.0%",
            "22.9%",
            "9.09%",
        ],
        "002" => &["181,745", "90.87%", "163,493", "18,252", "17,986", "8.99%", "0"],
        "004" => &["909,138", "90.91%", "817,949", "90", "89,813", "8.98%", "91 each", "10.1×"],
        _ => unreachable!(),
    }
}

fn check_document(doc: &str) {
    let checks = reproduce::document(doc).unwrap();
    assert!(!checks.checks().is_empty());
    assert!(checks.all_match(), "document {doc}:\n{checks}");
    for c in checks.checks() {
        assert!(c.matches(), "{c}");
        assert_eq!(c.document, c.measured, "{}", c.label);
    }
    let documented: Vec<&str> = checks.checks().iter().map(|c| c.document.as_str()).collect();
    for figure in printed(doc) {
        assert!(documented.contains(figure), "document {doc}: figure {figure} is not checked; checked: {documented:?}");
    }
}

#[test]
fn document_000_all_match() {
    check_document("000");
}

#[test]
fn document_002_all_match() {
    check_document("002");
}

#[test]
fn document_004_all_match() {
    check_document("004");
}

#[test]
fn documents_are_000_002_004_with_titles() {
    assert_eq!(DOCUMENTS, ["000", "002", "004"]);
    assert_eq!(reproduce::title("000"), "I Added a Fourth Shard in Python and 75% of the Keys Moved");
    assert!(reproduce::title("004").starts_with("DDIA Ch. 7: `hash % N` moves 91% of keys to add one node"));
}

#[test]
fn unknown_document_is_an_error_naming_the_choices() {
    let err = reproduce::document("001").unwrap_err();
    assert!(matches!(err, Error::UnknownName { what: "document", .. }), "{err:?}");
    assert!(err.to_string().contains("000, 002 or 004"), "{err}");
}

/// The claims table: every printed figure ✓, and the documents' loose claims
/// corrected, with the values worked out from the documents' own numbers.
#[test]
fn claims_table_corrects_the_loose_claims() {
    let claims = reproduce::claims().unwrap();
    assert!(claims.sound(), "{claims}");
    let corrected: Vec<&reshard::tutor::Check> =
        claims.checks().iter().filter(|c| c.verdict() == reshard::tutor::Verdict::Corrected).collect();
    assert_eq!(corrected.len(), 7, "{claims}");
    let row = |label: &str| claims.checks().iter().find(|c| c.label.contains(label)).unwrap().measured.clone();
    // Document 004 prints 817,949 old-node movers of 909,138: 89.97%, not 10/11.
    assert_eq!(row("movers landing on old nodes"), format!("{:.2}% ≈ 9/10", 100.0 * 817_949.0 / 909_138.0));
    // 1000 shards over 11 nodes, the old ones at 91 each (document 004's own output).
    assert_eq!(row("the new node takes"), format!("{} shards", 1000 - 10 * 91));
    for doc in DOCUMENTS {
        assert!(reproduce::document(doc)
            .unwrap()
            .checks()
            .iter()
            .all(|c| claims.checks().iter().any(|a| a.label == format!("{doc} · {}", c.label))));
    }
}
