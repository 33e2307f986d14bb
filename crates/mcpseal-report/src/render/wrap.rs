//! Wrapping text output to a terminal's width, at word boundaries only.
//!
//! A line wider than the width is broken at spaces, never inside a word: a hash, a URL, a JSON
//! pointer or a `code span` (backticks, spaces and all) is one unit, and a unit too wide for a
//! continuation line stays whole where it is (overflowing the line) rather than being cut. Escape
//! sequences (colour) take no width, so coloured text wraps where plain text does.
//!
//! Continuation lines are indented under the text after the line's label, so a wrapped value
//! stays in its column: the label is the first word when it is followed by two or more spaces
//! (`BREAKING  /tools/x …`), ends with `:` (`error: …`), is a symbol without letters or digits
//! (`× SEAL023 …`, `→ {…}`), or begins a detail line (indented by four or more: `observed …`).
//! Otherwise continuation lines keep the line's own indent. A label that leaves less than half
//! the width for the text gives way to the line's indent plus four.

/// `text` with every line wider than `width` characters wrapped (see the module docs). Lines
/// that fit are unchanged, and so is the text when `width` is 0.
pub fn wrap(text: &str, width: usize) -> String {
    if width == 0 {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if shown_width(line) <= width {
            out.push_str(line);
        } else {
            wrap_line(&mut out, line, width);
        }
    }
    out
}

/// The columns `s` takes: characters, with escape sequences (`ESC [ … letter`) taking none.
fn shown_width(s: &str) -> usize {
    let mut n = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte (a letter).
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

/// `s` without its escape sequences (to look at the words, not their colour).
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The units of `body` (a line without its indent): `(gap before, unit)`, where a unit is a run
/// of non-spaces, or a code span from its opening to its closing backtick.
fn units(body: &str) -> Vec<(&str, &str)> {
    let mut units = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let gap_len = rest.len() - rest.trim_start_matches(' ').len();
        let (gap, after) = rest.split_at(gap_len);
        if after.is_empty() {
            break;
        }
        let mut end = 0;
        let mut in_code = false;
        for (i, c) in after.char_indices() {
            if c == '`' {
                in_code = !in_code;
            }
            if c == ' ' && !in_code {
                break;
            }
            end = i + c.len_utf8();
        }
        // An unclosed backtick spans to the end of the line: the unit is the rest.
        units.push((gap, &after[..end]));
        rest = &after[end..];
    }
    units
}

/// Where continuation lines of `line` start (see the module docs).
fn hang(line: &str, width: usize) -> usize {
    let text = plain(line);
    let indent = text.len() - text.trim_start_matches(' ').len();
    let body = &text[indent..];
    let first_end = body.find(' ').unwrap_or(body.len());
    let first = &body[..first_end];
    let after = &body[first_end..];
    let spaces = after.len() - after.trim_start_matches(' ').len();
    let label = spaces > 0
        && (spaces >= 2
            || first.ends_with(':')
            || !first.chars().any(char::is_alphanumeric)
            || indent >= 4);
    let at = if label {
        indent + first.chars().count() + spaces
    } else {
        indent
    };
    if at > width / 2 { indent + 4 } else { at }
}

fn wrap_line(out: &mut String, line: &str, width: usize) {
    let indent_len = line.len() - line.trim_start_matches(' ').len();
    let (indent, body) = line.split_at(indent_len);
    let hang = hang(line, width).min(width.saturating_sub(1));
    let pad = " ".repeat(hang);
    out.push_str(indent);
    let mut col = indent_len;
    let mut line_start = true;
    for (gap, unit) in units(body) {
        let w = shown_width(unit);
        // A unit too wide for a continuation line too stays where it is (overflowing): moving
        // it down would only leave its label alone on a line.
        if !line_start && col + gap.len() + w > width && hang + w <= width {
            out.push('\n');
            out.push_str(&pad);
            col = hang;
            line_start = true;
        }
        if !line_start {
            out.push_str(gap);
            col += gap.len();
        }
        out.push_str(unit);
        col += w;
        line_start = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_lines_are_unchanged() {
        let text = "a short line\n  indented  kept   as is\n";
        assert_eq!(wrap(text, 40), text);
        assert_eq!(wrap("anything at all", 0), "anything at all");
    }

    #[test]
    fn breaks_only_between_words() {
        let text = "error: the quick brown fox jumps over the lazy dog";
        let wrapped = wrap(text, 20);
        for line in wrapped.lines() {
            assert!(line.chars().count() <= 20, "{line:?}");
        }
        // Every word survives whole, in order.
        let words: Vec<&str> = wrapped.split_whitespace().collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
        // Continuations sit under the text after `error: `.
        assert!(
            wrapped
                .lines()
                .skip(1)
                .all(|l| l.starts_with("       ") && !l.starts_with("        "))
        );
    }

    #[test]
    fn code_spans_hashes_and_urls_stay_whole() {
        let hash = "75ea81f6c2a6dc8b891a4a77d11f1ff832007ab946c031e3a3c8994d12ede059";
        let text = format!(
            "hint: run `mcpseal lock --server-version 2.0.0` then see https://example.com/a/very/long/path and {hash}"
        );
        let wrapped = wrap(&text, 30);
        assert!(
            wrapped.contains("`mcpseal lock --server-version 2.0.0`"),
            "{wrapped}"
        );
        assert!(
            wrapped.contains("https://example.com/a/very/long/path"),
            "{wrapped}"
        );
        assert!(wrapped.contains(hash), "{wrapped}");
        // A URL that cannot fit a continuation line stays beside its label.
        let url = "https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning";
        let w = wrap(&format!("      spec     {url}"), 60);
        assert_eq!(w, format!("      spec     {url}"));
    }

    #[test]
    fn labels_set_the_hanging_indent() {
        let w = wrap(
            "  BREAKING  /tools/x/inputSchema  the property `a` was removed from it",
            40,
        );
        let lines: Vec<&str> = w.lines().collect();
        assert!(lines.len() > 1, "{w}");
        assert!(lines[1].starts_with(&" ".repeat(12)), "{w}");
        let w = wrap(
            "      observed the server answered with something rather long here",
            40,
        );
        assert!(
            w.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with(&" ".repeat(15))),
            "{w}"
        );
        let w = wrap(
            "  The findings below are what the answered probes proved, nothing more",
            40,
        );
        assert!(
            w.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("  ") && !l.starts_with("   ")),
            "{w}"
        );
    }

    #[test]
    fn escapes_take_no_width() {
        let red = "\u{1b}[1m\u{1b}[31m";
        let reset = "\u{1b}[0m";
        let text = format!("{red}error:{reset} one two three four five six seven");
        let plain_wrapped = wrap("error: one two three four five six seven", 20);
        assert_eq!(plain(&wrap(&text, 20)), plain_wrapped);
    }
}
