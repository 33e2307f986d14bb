//! The one palette of every text output: which words get which colour.
//!
//! | what | style |
//! |---|---|
//! | `SECURITY` | magenta, bold |
//! | `BREAKING`, `error:`, a failed verdict, `×` | red, bold |
//! | `ADDITIVE`, a good verdict | green, bold |
//! | `COSMETIC` | blue |
//! | `UNJUDGED`, `warning:`, advisories, `!` | yellow, bold |
//! | `hint:`, `note:` | cyan, bold |
//! | a hash (`sha256:…` or 64 hex digits) | cyan |
//! | headings / labels | bold / dimmed |
//!
//! Two ways in: renderers that colour as they build (the probe report) take the styles below;
//! every other text document is coloured by [`highlight`], which recognises the palette's words
//! where the text renderers put them (a class word or `error:`/`hint:`/`warning:`/`note:` first
//! on a line, a hash anywhere), so a renderer need not thread a colour flag to be coloured the
//! same way. Colour never carries meaning alone: every coloured word is also there without it.

use anstyle::{AnsiColor, Style};

fn fg(color: AnsiColor) -> Style {
    Style::new().fg_color(Some(color.into()))
}

/// Errors, failed verdicts, `BREAKING`.
pub fn error() -> Style {
    fg(AnsiColor::Red).bold()
}

/// Warnings, advisories, unfinished runs, `UNJUDGED`.
pub fn warning() -> Style {
    fg(AnsiColor::Yellow).bold()
}

/// A good verdict, `ADDITIVE`.
pub fn good() -> Style {
    fg(AnsiColor::Green).bold()
}

/// `SECURITY`.
pub fn security() -> Style {
    fg(AnsiColor::Magenta).bold()
}

/// `COSMETIC`.
pub fn cosmetic() -> Style {
    fg(AnsiColor::Blue)
}

/// `hint:` and `note:`.
pub fn hint() -> Style {
    fg(AnsiColor::Cyan).bold()
}

/// A hash.
pub fn hash() -> Style {
    fg(AnsiColor::Cyan)
}

/// Headings.
pub fn bold() -> Style {
    Style::new().bold()
}

/// Labels and asides.
pub fn dim() -> Style {
    Style::new().dimmed()
}

/// `text` in `style`, or as it is when `color` is off.
pub fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        format!("{}{text}{}", style.render(), style.render_reset())
    } else {
        text.to_owned()
    }
}

/// The style of a contract-break class word (`SECURITY`, `BREAKING`, `ADDITIVE`, `COSMETIC`,
/// `UNJUDGED`), of a stderr label (`error:`, `hint:`, `warning:`, `note:`), or `None`.
fn style_of_label(word: &str) -> Option<Style> {
    Some(match word {
        "SECURITY" => security(),
        "BREAKING" | "error:" => error(),
        "ADDITIVE" => good(),
        "COSMETIC" => cosmetic(),
        "UNJUDGED" | "warning:" => warning(),
        "hint:" | "note:" => hint(),
        _ => return None,
    })
}

/// Whether `word` is a hash: `sha256:` and 64 hex digits, or 64 hex digits alone.
fn is_hash(word: &str) -> bool {
    let hex = word.strip_prefix("sha256:").unwrap_or(word);
    hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

/// `text` with the palette's words coloured (see the module docs). A line that already holds
/// an escape (a renderer coloured it) is left as it is.
pub fn highlight(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.contains('\u{1b}') {
            out.push_str(line);
            continue;
        }
        highlight_line(&mut out, line);
    }
    out
}

fn highlight_line(out: &mut String, line: &str) {
    let mut first = true;
    let mut rest = line;
    while !rest.is_empty() {
        let spaces = rest.len() - rest.trim_start_matches(' ').len();
        out.push_str(&rest[..spaces]);
        rest = &rest[spaces..];
        let end = rest.find(' ').unwrap_or(rest.len());
        let word = &rest[..end];
        // Trailing punctuation (`hash,` `hash)`) is not part of the hash.
        let core = word.trim_end_matches([',', ')', '.', ';']);
        let style = match first.then(|| style_of_label(word)).flatten() {
            Some(s) => Some(s),
            None if is_hash(core.trim_start_matches('(')) => Some(hash()),
            None => None,
        };
        match style {
            Some(s) if s == hash() => {
                let start = word.len() - word.trim_start_matches('(').len();
                let stop = start + core.trim_start_matches('(').len();
                out.push_str(&word[..start]);
                out.push_str(&paint(&word[start..stop], s, true));
                out.push_str(&word[stop..]);
            }
            Some(s) => out.push_str(&paint(word, s, true)),
            None => out.push_str(word),
        }
        first = false;
        rest = &rest[end..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "75ea81f6c2a6dc8b891a4a77d11f1ff832007ab946c031e3a3c8994d12ede059";

    #[test]
    fn class_words_and_labels_are_coloured_only_first_on_a_line() {
        let text = "  BREAKING  /tools/x  removed\nerror: bad\nhint: do this\nsays BREAKING here";
        let lit = highlight(text);
        assert!(lit.contains(&paint("BREAKING", error(), true)));
        assert!(lit.contains(&paint("error:", error(), true)));
        assert!(lit.contains(&paint("hint:", hint(), true)));
        assert!(lit.ends_with("says BREAKING here"), "{lit:?}");
    }

    #[test]
    fn hashes_are_coloured_anywhere_and_nothing_else_changes() {
        let text = format!("mcpseal/1  {HEX}\nlocked   sha256:{HEX}, live ({HEX})");
        let lit = highlight(&text);
        assert!(lit.contains(&format!("mcpseal/1  {}", paint(HEX, hash(), true))));
        assert!(lit.contains(&paint(&format!("sha256:{HEX}"), hash(), true)));
        assert!(lit.contains(&format!("({})", paint(HEX, hash(), true))));
        // Without the escapes it is the same text.
        let plain = lit
            .replace(&hash().render().to_string(), "")
            .replace(&hash().render_reset().to_string(), "");
        assert_eq!(plain, text);
        assert_eq!(highlight("abc123 not a hash"), "abc123 not a hash");
    }

    #[test]
    fn coloured_lines_are_left_alone() {
        let line = paint("NOT READY", error(), true);
        assert_eq!(highlight(&line), line);
    }
}
