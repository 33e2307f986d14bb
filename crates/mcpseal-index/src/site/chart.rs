//! The site's inline SVG charts: plain elements, integer coordinates (so the bytes are the same
//! on every machine), a `<title>` and `<desc>` each, every mark with its own `<title>` naming
//! its value and denominator, and the table that says the same in text named by
//! `aria-describedby`. No script, no external resource.

use std::fmt::Write as _;

use super::escape;
use crate::document::rate;

/// Left margin for the row labels.
const LABEL_W: usize = 200;
/// The plot area's width.
const PLOT_W: usize = 480;
/// Right margin for the latest value.
const VALUE_W: usize = 180;
/// One row's height (small multiples) and the gap below it.
const ROW_H: usize = 36;
const GAP: usize = 10;

/// One chart row: a label and, per run (oldest first), `(run id, count, denominator)`.
pub struct Series {
    /// The row's label (a rule id, "changed", …).
    pub label: String,
    /// A CSS-safe class suffix (`[a-z0-9-]`).
    pub class: String,
    /// The fill, a colour with at least 3:1 contrast on white.
    pub fill: &'static str,
    /// Per run: id, count, denominator.
    pub points: Vec<(String, usize, usize)>,
}

/// A CSS class suffix from any label: ASCII letters and digits kept (lowercased), the rest `-`.
pub fn class_of(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// Small multiples: one row per series, one column per run whose height is the share
/// `count / denominator` of the row's height (so rows of different denominators compare
/// honestly), the latest value written at the right. `described_by` is the id of the table
/// holding the same numbers.
pub fn small_multiples(id: &str, title: &str, described_by: &str, series: &[Series]) -> String {
    let width = LABEL_W + PLOT_W + VALUE_W;
    let height = series.len().max(1) * (ROW_H + GAP) + GAP;
    let runs = series.first().map_or(0, |s| s.points.len()).max(1);
    // Each run's slot; the column is two thirds of it, at least one pixel.
    let slot = (PLOT_W / runs).max(2);
    let col = (slot * 2 / 3).max(1);
    let mut svg = format!(
        "<svg id=\"{id}\" class=\"chart\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" aria-describedby=\"{described_by}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>\n",
        escape(title),
        escape(&describe(series)),
    );
    if series.is_empty() {
        let _ = writeln!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"13\" fill=\"#1f2328\">nothing to show yet</text>",
            GAP + 14
        );
    }
    for (i, s) in series.iter().enumerate() {
        let top = GAP + i * (ROW_H + GAP);
        let base = top + ROW_H;
        let _ = writeln!(
            svg,
            "<g class=\"series series-{}\">\n<text x=\"0\" y=\"{}\" font-size=\"13\" fill=\"#1f2328\">{}</text>\n<line x1=\"{LABEL_W}\" y1=\"{base}\" x2=\"{}\" y2=\"{base}\" stroke=\"#57606a\" stroke-width=\"1\"/>",
            s.class,
            top + ROW_H / 2 + 5,
            escape(&s.label),
            LABEL_W + PLOT_W,
        );
        for (j, (run, n, d)) in s.points.iter().enumerate() {
            let h = (*n * ROW_H).checked_div(*d).unwrap_or(0);
            // A count above zero is never drawn as nothing.
            let h = if *n > 0 { h.max(2) } else { 0 };
            let x = LABEL_W + j * slot + (slot - col) / 2;
            let _ = writeln!(
                svg,
                "<rect class=\"mark\" x=\"{x}\" y=\"{}\" width=\"{col}\" height=\"{h}\" fill=\"{}\"><title>{}, run {}: {}</title></rect>",
                base - h,
                s.fill,
                escape(&s.label),
                escape(run),
                rate(*n, *d)
            );
        }
        if let Some((_, n, d)) = s.points.last() {
            let _ = writeln!(
                svg,
                "<text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#1f2328\">{}</text>",
                LABEL_W + PLOT_W + 8,
                top + ROW_H / 2 + 5,
                escape(&rate(*n, *d))
            );
        }
        svg.push_str("</g>\n");
    }
    svg.push_str("</svg>\n");
    svg
}

/// The text alternative in one sentence: each row's latest value, and how many runs are drawn.
fn describe(series: &[Series]) -> String {
    let runs = series.first().map_or(0, |s| s.points.len());
    let latest: Vec<String> = series
        .iter()
        .filter_map(|s| {
            s.points
                .last()
                .map(|(_, n, d)| format!("{} {}", s.label, rate(*n, *d)))
        })
        .collect();
    if latest.is_empty() {
        return "No run recorded yet.".to_owned();
    }
    format!(
        "{runs} run(s), one column each, oldest first; the latest: {}. The table after the chart holds every value.",
        latest.join("; ")
    )
}

/// One part of a stacked bar: `(class suffix, label, fill, count)`.
pub type Part = (&'static str, &'static str, &'static str, usize);

/// One stacked bar: `(run id, denominator, parts in order)`.
pub type Bar = (String, usize, Vec<Part>);

/// One stacked bar per run: the share of each part of the run's targets, in order, each part
/// with its own `<title>`. `parts` per run: `(class, label, fill, count)`; `described_by` names
/// the table with the same numbers.
pub fn stacked(id: &str, title: &str, described_by: &str, runs: &[Bar]) -> String {
    let bar_h = 20;
    let width = LABEL_W + PLOT_W + VALUE_W;
    let height = runs.len().max(1) * (bar_h + 8) + 8;
    let latest = runs.last().map_or_else(
        || "No run recorded yet.".to_owned(),
        |(run, d, parts)| {
            let p: Vec<String> = parts
                .iter()
                .map(|(_, label, _, n)| format!("{label} {}", rate(*n, *d)))
                .collect();
            format!(
                "{} run(s), one bar each, oldest first; the latest ({}): {}. The table after the chart holds every value.",
                runs.len(),
                run,
                p.join("; ")
            )
        },
    );
    let mut svg = format!(
        "<svg id=\"{id}\" class=\"chart\" role=\"img\" aria-labelledby=\"{id}-title {id}-desc\" aria-describedby=\"{described_by}\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>\n",
        escape(title),
        escape(&latest)
    );
    for (i, (run, d, parts)) in runs.iter().enumerate() {
        let y = 8 + i * (bar_h + 8);
        let _ = writeln!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"13\" fill=\"#1f2328\">{}</text>",
            y + 15,
            escape(run)
        );
        let mut x = LABEL_W;
        for (class, label, fill, n) in parts {
            let w = (*n * PLOT_W).checked_div(*d).unwrap_or(0);
            if *n == 0 {
                continue;
            }
            let w = w.max(2);
            let _ = writeln!(
                svg,
                "<rect class=\"bar state-{class}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{bar_h}\" fill=\"{fill}\"><title>{}, {label}: {}</title></rect>",
                escape(run),
                rate(*n, *d)
            );
            x += w;
        }
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" font-size=\"13\" fill=\"#1f2328\">{d} targets</text>",
            LABEL_W + PLOT_W + 8,
            y + 15
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_css_safe() {
        assert_eq!(class_of("SEAL001"), "seal001");
        assert_eq!(class_of("a b/<c>"), "a-b--c-");
    }

    #[test]
    fn a_count_above_zero_is_drawn_and_zero_is_not() {
        let s = [Series {
            label: "SEAL001".into(),
            class: "seal001".into(),
            fill: "#0550ae",
            points: vec![("r1".into(), 0, 10), ("r2".into(), 1, 1000)],
        }];
        let svg = small_multiples("c", "t", "tbl", &s);
        assert!(
            svg.contains("height=\"0\" fill=\"#0550ae\"><title>SEAL001, run r1: 0 of 10 (0.0%)")
        );
        assert!(
            svg.contains("height=\"2\" fill=\"#0550ae\"><title>SEAL001, run r2: 1 of 1000 (0.1%)")
        );
        assert!(svg.contains("aria-describedby=\"tbl\""));
        assert!(svg.contains("<desc id=\"c-desc\">2 run(s)"));
        let empty = small_multiples("e", "t", "tbl", &[]);
        assert!(empty.contains("No run recorded yet."));
    }
}
