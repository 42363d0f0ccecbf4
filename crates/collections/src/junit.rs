//! JUnit XML, the report every CI system reads: one `<testsuite>` per collection, one
//! `<testcase>` per case (`classname` the collection and server), a `<failure>` per failed
//! case with each expectation that did not hold, an `<error>` for a case that was not run.

use crate::run::{CaseReport, CaseStatus};

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Characters XML 1.0 cannot hold.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn seconds(ms: u32) -> String {
    format!("{:.3}", f64::from(ms) / 1000.0)
}

/// The report of `reports` (in order; cases of one collection together).
pub fn report(reports: &[CaseReport]) -> String {
    let mut suites: Vec<(&str, Vec<&CaseReport>)> = Vec::new();
    for report in reports {
        match suites
            .iter_mut()
            .find(|(name, _)| *name == report.collection)
        {
            Some((_, cases)) => cases.push(report),
            None => suites.push((&report.collection, vec![report])),
        }
    }
    let count = |cases: &[&CaseReport], status| cases.iter().filter(|c| c.status == status).count();
    let all: Vec<&CaseReport> = reports.iter().collect();
    let total_ms: u32 = reports.iter().map(|r| r.elapsed_ms).sum();
    let mut xml = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpctl test\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">\n",
        reports.len(),
        count(&all, CaseStatus::Failed),
        count(&all, CaseStatus::NotRun),
        seconds(total_ms)
    );
    for (name, cases) in &suites {
        let ms: u32 = cases.iter().map(|c| c.elapsed_ms).sum();
        xml.push_str(&format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"0\" time=\"{}\">\n",
            escape(name),
            cases.len(),
            count(cases, CaseStatus::Failed),
            count(cases, CaseStatus::NotRun),
            seconds(ms)
        ));
        for case in cases {
            xml.push_str(&format!(
                "    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{}\"",
                escape(name),
                escape(&case.server),
                escape(&case.case),
                seconds(case.elapsed_ms)
            ));
            match case.status {
                CaseStatus::Passed => xml.push_str("/>\n"),
                CaseStatus::Failed => {
                    let first = case
                        .failures
                        .first()
                        .map(|f| format!("{}: expected {}", f.check, f.expected))
                        .unwrap_or_default();
                    let details: Vec<String> = case
                        .failures
                        .iter()
                        .map(|f| {
                            let mut text = format!(
                                "{}\n  expected: {}\n  actual:   {}",
                                f.check, f.expected, f.actual
                            );
                            if let Some(diff) = &f.diff {
                                text.push('\n');
                                text.push_str(diff);
                            }
                            text
                        })
                        .collect();
                    xml.push_str(&format!(
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>\n",
                        escape(&first),
                        escape(case.failures.first().map(|f| f.check.as_str()).unwrap_or("failure")),
                        escape(&details.join("\n"))
                    ));
                }
                CaseStatus::NotRun => xml.push_str(&format!(
                    ">\n      <error message=\"{}\" type=\"not-run\"/>\n    </testcase>\n",
                    escape(case.problem.as_deref().unwrap_or("not run"))
                )),
            }
        }
        xml.push_str("  </testsuite>\n");
    }
    xml.push_str("</testsuites>\n");
    xml
}
