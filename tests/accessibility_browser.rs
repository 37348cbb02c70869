//! Accessibility in headless Chromium (driver `tests/browser/accessibility.mjs`): axe-core
//! (npm's `axe-core`, every rule it runs by default) finds no violation on any page of the app
//! at 1280 and at 390 px — home, every task page before and after its example computed (and
//! the three run checks on theirs), the glossary, a path that is no page, a fragment-shared
//! analysis, a saved analysis and its session. Every chart's text renders at 11 px or more at
//! both widths (a chart is laid out for the width it gets rather than shrunk), and every
//! chart's axis has a title. Every technical term a page links is an entry of the glossary and
//! shows its meaning on hover.

use tribunal_e2e::{app_worker, run_browser_driver};

#[test]
fn every_page_passes_axe_at_both_widths_with_readable_charts() {
    let worker = app_worker("accessibility");
    let page = run_browser_driver("accessibility.mjs", [worker.url.as_str()]);
    let widths = page["widths"].as_object().unwrap();
    assert_eq!(widths.len(), 2);
    let mut charts = 0;
    for (width, pages) in widths {
        let pages = pages.as_object().unwrap();
        // 5 plain pages, 14 task pages plain and with their example, the 3 run checks on
        // their examples, a shared and a saved analysis, a session.
        assert_eq!(pages.len(), 39, "{width}");
        for (path, seen) in pages {
            let violations = seen["violations"].as_array().unwrap();
            assert!(
                violations.is_empty(),
                "{path} at {width} px: {}",
                serde_json::to_string_pretty(violations).unwrap()
            );
            for chart in seen["charts"].as_array().unwrap() {
                charts += 1;
                let smallest = chart["smallestText"].as_f64().unwrap_or(f64::INFINITY);
                assert!(
                    smallest >= 11.0,
                    "{path} at {width} px: chart {} has {smallest:.1} px text",
                    chart["id"]
                );
                assert!(
                    chart["axisTitles"].as_u64() >= Some(1),
                    "{path} at {width} px: chart {} has no axis title",
                    chart["id"]
                );
            }
        }
    }
    assert!(charts >= 20, "only {charts} charts were seen");

    // Every term a page links is an entry of the glossary, with its meaning on hover.
    let glossary: Vec<String> = widths["1280"]["/glossary"]["glossary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| format!("/glossary#{}", id.as_str().unwrap()))
        .collect();
    assert!(glossary.len() >= 25, "{glossary:?}");
    let mut linked = 0;
    for (path, seen) in widths["1280"].as_object().unwrap() {
        for t in seen["terms"].as_array().unwrap() {
            linked += 1;
            let href = t["href"].as_str().unwrap();
            assert!(
                glossary.iter().any(|g| g == href),
                "{path}: {href} is no entry"
            );
            assert!(
                t["tip"].as_str().unwrap().len() > 20,
                "{path}: {href} has no meaning"
            );
        }
    }
    assert!(linked >= 15, "only {linked} terms linked");
}
