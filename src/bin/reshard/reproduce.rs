//! `reshard reproduce`: every figure of the source documents beside the
//! document's value; exit code 1 when one differs.

use crate::output::{to_json, Output, Run};
use clap::Args as ClapArgs;
use reshard::tutor::reproduce::{self, DOCUMENTS};
use reshard::Checks;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;

#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Only this document (default: all three)
    #[arg(long, value_parser = DOCUMENTS)]
    doc: Option<String>,
}

/// The JSON: whether all match, and each document's checks.
#[derive(Serialize)]
struct Report {
    all_match: bool,
    documents: Vec<Document>,
}

#[derive(Serialize)]
struct Document {
    doc: String,
    #[serde(flatten)]
    checks: Checks,
}

pub fn run(a: &Args, json: bool) -> Run {
    let docs: Vec<&str> = match &a.doc {
        Some(d) => vec![d.as_str()],
        None => DOCUMENTS.to_vec(),
    };
    let mut documents = Vec::new();
    for doc in docs {
        documents.push(Document { doc: doc.to_string(), checks: reproduce::document(doc)? });
    }
    let report = Report { all_match: documents.iter().all(|d| d.checks.all_match()), documents };
    let mut err = std::io::stderr().lock();
    let mut text = String::new();
    for Document { doc, checks } in &report.documents {
        for c in checks.checks().iter().filter(|c| !c.matches()) {
            let _ = writeln!(err, "differs: {doc} {c}");
        }
        let n = checks.checks().len();
        let bad = checks.checks().iter().filter(|c| !c.matches()).count();
        let _ = writeln!(text, "{checks}");
        if bad == 0 {
            let _ = writeln!(text, "document {doc}: all {n} figures match\n");
        } else {
            let _ = writeln!(text, "document {doc}: {bad} of {n} figures differ\n");
        }
    }
    let text = if json { to_json(&report)? } else { text.trim_end().to_string() };
    Ok(Output { text, code: if report.all_match { 0 } else { 1 } })
}
