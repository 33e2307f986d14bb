//! What the pages replace in the examples' output: only what differs from run to run (the
//! probe's clock, today's date, an audit line's time, a cohort run's durations, the index's
//! `toolVersion` (it names the commit), a registry block's hash (its endpoint names the port),
//! the ports the servers were given, the temp directory and the binaries' directory).
//! Everything else is shown byte for byte.
//!
//! The ports are ephemeral (port 0 on 127.0.0.1), which on Linux are five digits
//! (32768–60999), so mcpseal's line wrapping, done before this, does not move with them.

use std::path::{Path, PathBuf};

/// The replacements of one example directory.
pub struct Normaliser {
    /// The temp directory the example ran in (shown as `.`).
    pub dir: PathBuf,
    /// Where the binaries are (a path through it is shown as the bare name).
    pub bin_dir: PathBuf,
    /// Each server's port and the name it is shown as (`127.0.0.1:<site>`).
    pub ports: Vec<(u16, &'static str)>,
}

impl Normaliser {
    pub fn new(dir: &Path, bin_dir: &Path) -> Self {
        Normaliser {
            dir: dir.to_path_buf(),
            bin_dir: bin_dir.to_path_buf(),
            ports: Vec::new(),
        }
    }

    pub fn apply(&self, text: &str) -> String {
        let mut text = text.replace(&format!("{}/", self.bin_dir.display()), "");
        text = text.replace(&self.dir.display().to_string(), ".");
        for (port, name) in &self.ports {
            text = replace_port(&text, *port, name);
        }
        // The audit log's clock; the index document's `toolVersion` names the commit built.
        let text = redact_json_string(&text, "time", "<time>", is_timestamp);
        let text = redact_json_string(&text, "toolVersion", "<version>", |_| true);
        let text = redact_dates(&text);
        text.lines()
            .map(normalise_line)
            .collect::<Vec<_>>()
            .join("\n")
            + if text.ends_with('\n') { "\n" } else { "" }
    }
}

/// `127.0.0.1:PORT` (not followed by another digit) → `127.0.0.1:<NAME>`.
fn replace_port(text: &str, port: u16, name: &str) -> String {
    let from = format!("127.0.0.1:{port}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&from) {
        let end = at + from.len();
        out.push_str(&rest[..at]);
        if rest[end..].starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(&from);
        } else {
            out.push_str(&format!("127.0.0.1:<{name}>"));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Every `"KEY":"…"` or `"KEY": "…"` string value (the audit log's compact JSON, a document's
/// pretty one) for which `redact` holds → `"KEY":"WITH"`, the spacing kept.
fn redact_json_string(text: &str, key: &str, with: &str, redact: fn(&str) -> bool) -> String {
    let start = format!("\"{key}\":");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&start) {
        let mut value = at + start.len();
        if rest[value..].starts_with(' ') {
            value += 1;
        }
        if !rest[value..].starts_with('"') {
            out.push_str(&rest[..value]);
            rest = &rest[value..];
            continue;
        }
        value += 1;
        out.push_str(&rest[..value]);
        let Some(close) = rest[value..].find('"') else {
            rest = &rest[value..];
            break;
        };
        if redact(&rest[value..value + close]) {
            out.push_str(with);
        } else {
            out.push_str(&rest[value..value + close]);
        }
        rest = &rest[value + close..];
    }
    out.push_str(rest);
    out
}

/// `YYYY-MM-DDTHH:MM:SS…`: an RFC 3339 timestamp (not `12:00`, a tool's argument).
fn is_timestamp(value: &str) -> bool {
    let b = value.as_bytes();
    b.len() >= 19
        && b[..19].iter().enumerate().all(|(k, c)| match k {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            _ => c.is_ascii_digit(),
        })
}

/// `registry check`'s `block HEX` (a hash of the block, whose endpoint names the port).
fn redact_block_hash(line: &str) -> Option<String> {
    let (before, hash) = line.split_once("registry/block: block ")?;
    (hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("{before}registry/block: block <hash>"))
}

/// The probe's start time and run time, `rpc`'s `durationMs`, and the durations of a cohort
/// run's per-target line (`ID: install 0.0 s · capture 2.2 s · probe 18.9 s · total 21.1 s`).
fn normalise_line(line: &str) -> String {
    let trimmed = line.trim_start();
    let indent = &line[..line.len() - trimmed.len()];
    if let Some(rest) = trimmed.strip_prefix("started ") {
        format!(
            "{indent}started {}<time>",
            " ".repeat(rest.len() - rest.trim_start().len())
        )
    } else if trimmed.starts_with("Run time: ") {
        format!("{indent}Run time: <time>")
    } else if let Some(rest) = trimmed.strip_prefix("\"durationMs\": ") {
        let comma = if rest.ends_with(',') { "," } else { "" };
        format!("{indent}\"durationMs\": \"<ms>\"{comma}")
    } else if let Some(redacted) = redact_block_hash(line) {
        redacted
    } else if let Some((id, timings)) = line.split_once(": install ")
        && timings.contains(" · total ")
    {
        let phases: Vec<String> = format!("install {timings}")
            .split(" · ")
            .map(|phase| match phase.split_once(' ') {
                Some((name, _)) => format!("{name} <s>"),
                None => phase.to_owned(),
            })
            .collect();
        format!("{id}: {}", phases.join(" · "))
    } else {
        line.to_owned()
    }
}

/// Replaces each `YYYY-MM-DD` followed by `T` (a datetime's date) with `<date>` and each
/// `"day_of_week":"…"` value with `<day>`: `convert_time` answers for today.
pub fn redact_dates(text: &str) -> String {
    const DAY: &str = "\"day_of_week\":\"";
    let bytes = text.as_bytes();
    let is_date = |i: usize| {
        bytes.get(i..i + 11).is_some_and(|w| {
            w.iter().enumerate().all(|(k, b)| match k {
                4 | 7 => *b == b'-',
                10 => *b == b'T',
                _ => b.is_ascii_digit(),
            })
        })
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if is_date(i) {
            out.push_str("<date>");
            i += 10;
        } else if text[i..].starts_with(DAY) {
            out.push_str(DAY);
            i += DAY.len();
            let end = text[i..].find('"').map_or(text.len(), |e| i + e);
            out.push_str("<day>");
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normaliser() -> Normaliser {
        Normaliser {
            dir: PathBuf::from("/tmp/x1"),
            bin_dir: PathBuf::from("/w/target/debug"),
            ports: vec![(41234, "site"), (5000, "registry")],
        }
    }

    #[test]
    fn the_probe_clock_is_normalised() {
        let n = normaliser();
        let text =
            "  target    /tmp/x1/.venv/bin/s\n  started   2026-12-01T19:16:41Z\nRun time: 40.6 s\n";
        assert_eq!(
            n.apply(text),
            "  target    ./.venv/bin/s\n  started   <time>\nRun time: <time>\n"
        );
        assert_eq!(
            n.apply("    \"durationMs\": 9227,\n"),
            "    \"durationMs\": \"<ms>\",\n"
        );
    }

    #[test]
    fn dates_and_weekdays_are_redacted_and_nothing_else() {
        let text = r#"{"datetime":"2026-12-01T12:00:00+00:00","day_of_week":"Tuesday","v":"2026.10.19","d":"2026-12-01"}"#;
        assert_eq!(
            redact_dates(text),
            r#"{"datetime":"<date>T12:00:00+00:00","day_of_week":"<day>","v":"2026.10.19","d":"2026-12-01"}"#
        );
    }

    #[test]
    fn known_ports_are_named_and_other_numbers_kept() {
        let n = normaliser();
        assert_eq!(
            n.apply("http://127.0.0.1:41234/mcp http://127.0.0.1:412345 127.0.0.1:5000\n"),
            "http://127.0.0.1:<site>/mcp http://127.0.0.1:412345 127.0.0.1:<registry>\n"
        );
        assert_eq!(n.apply("port 41234 stays"), "port 41234 stays");
    }

    #[test]
    fn binaries_are_shown_by_name() {
        let n = normaliser();
        assert_eq!(
            n.apply("`/w/target/debug/mcpseal serve` in /tmp/x1/site\n"),
            "`mcpseal serve` in ./site\n"
        );
    }

    #[test]
    fn audit_times_are_redacted_and_other_strings_kept() {
        let line =
            r#"{"time":"2026-12-02T01:04:09.758371546Z","server":"mcp-time","timeout":"2s"}"#;
        assert_eq!(
            normaliser().apply(line),
            r#"{"time":"<time>","server":"mcp-time","timeout":"2s"}"#
        );
        let args = r#"--args '{"source_timezone":"UTC","time":"12:00"}'"#;
        assert_eq!(normaliser().apply(args), args);
    }

    #[test]
    fn the_tool_version_is_redacted_in_pretty_json() {
        assert_eq!(
            normaliser().apply("  \"toolVersion\": \"0.1.0 (ff9671e64575)\",\n  \"time\": 3,\n"),
            "  \"toolVersion\": \"<version>\",\n  \"time\": 3,\n"
        );
    }

    #[test]
    fn only_the_registry_blocks_hash_is_redacted() {
        let n = normaliser();
        assert_eq!(
            n.apply("ok   registry/block: block 89aaa605f185\nok   registry/version: 1.0.0\n"),
            "ok   registry/block: block <hash>\nok   registry/version: 1.0.0\n"
        );
        let other = "FAIL registry/block: block 89aaa605f185 expected a67d03986384\n";
        assert_eq!(n.apply(other), other);
    }

    #[test]
    fn a_cohort_runs_durations_are_redacted() {
        let n = normaliser();
        assert_eq!(
            n.apply("mcp-server-time: install 0.0 s · capture 2.2 s · probe 18.9 s · total 21.1 s\nwrote out/shard-0-of-1.json\n"),
            "mcp-server-time: install <s> · capture <s> · probe <s> · total <s>\nwrote out/shard-0-of-1.json\n"
        );
        assert_eq!(
            n.apply("x: install npm:a@1 failed\n"),
            "x: install npm:a@1 failed\n"
        );
    }
}
