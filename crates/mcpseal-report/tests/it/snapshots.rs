//! Snapshots of every format for the four hand-built reports (`.snap` files next to this file).
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always` and read the files); CI
//! runs with `CI=true`, where insta never writes and fails on a mismatch.

use mcpseal_report::{Format, RenderOptions, render_probe};

use crate::support;

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

#[test]
fn every_format_of_every_report() {
    let plain = RenderOptions::default();
    settings().bind(|| {
        for (name, report) in support::all() {
            for format in Format::ALL {
                let out = render_probe(&report, format, &plain);
                insta::assert_snapshot!(format!("{name}_{format}"), out);
            }
        }
    });
}

#[test]
fn verbose_text() {
    let verbose = RenderOptions {
        verbose: true,
        color: false,
        docs_url: None,
    };
    settings().bind(|| {
        for (name, report) in support::all() {
            let out = render_probe(&report, Format::Text, &verbose);
            insta::assert_snapshot!(format!("{name}_text_verbose"), out);
        }
    });
}
