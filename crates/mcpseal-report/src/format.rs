//! The output formats a report can be rendered in.
//!
//! The names (`text`, `json`, `sarif`, `markdown`) are part of the CLI contract (`--format`): they
//! never change, new formats are only added.

use std::fmt;
use std::str::FromStr;

/// An output format for a report.
///
/// With the `clap` feature this derives `clap::ValueEnum`; the doc line of each variant is its
/// `--help` text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "lower"))]
pub enum Format {
    /// Human-readable report with a verdict, for terminals
    #[default]
    Text,
    /// The report as JSON (`schemaVersion: 1`), evidence included
    Json,
    /// SARIF 2.1.0, for code-scanning dashboards
    Sarif,
    /// Markdown tables, for pull-request comments and step summaries
    Markdown,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 4] = [Format::Text, Format::Json, Format::Sarif, Format::Markdown];

    /// The name used on the command line: `text`, `json`, `sarif` or `markdown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Markdown => "markdown",
        }
    }

    /// True for formats meant to be read by programs (`json`, `sarif`); these are never coloured.
    pub fn is_machine_readable(self) -> bool {
        matches!(self, Format::Json | Format::Sarif)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The formats of commands whose result is one document, not a set of findings (`snapshot`,
/// `rpc`): text for people, or the JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[cfg_attr(feature = "clap", value(rename_all = "lower"))]
pub enum DocFormat {
    /// For people
    #[default]
    Text,
    /// The public JSON document (`schemaVersion: 1`)
    Json,
}

impl DocFormat {
    /// `text` or `json`.
    pub fn as_str(self) -> &'static str {
        match self {
            DocFormat::Text => "text",
            DocFormat::Json => "json",
        }
    }
}

impl fmt::Display for DocFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not one of `text`, `json`, `sarif`, `markdown`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseFormatError {
    /// The name that was given.
    pub given: String,
}

impl fmt::Display for ParseFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown report format: `{}` (valid: ", self.given)?;
        for (i, format) in Format::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{format}`")?;
        }
        f.write_str(")")
    }
}

impl std::error::Error for ParseFormatError {}

impl FromStr for Format {
    type Err = ParseFormatError;

    /// Parses a format name, case-insensitively (`SARIF` is `sarif`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|format| format.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| ParseFormatError {
                given: s.to_owned(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.to_string().parse::<Format>(), Ok(format));
        }
        assert_eq!("SARIF".parse::<Format>(), Ok(Format::Sarif));
        assert_eq!(Format::default(), Format::Text);
    }

    #[test]
    fn unknown_name_lists_the_valid_ones() {
        let err = "xml".parse::<Format>().expect_err("xml is no format");
        assert_eq!(
            err.to_string(),
            "unknown report format: `xml` (valid: `text`, `json`, `sarif`, `markdown`)"
        );
    }

    #[cfg(feature = "clap")]
    #[test]
    fn clap_value_names_match() {
        use clap::ValueEnum;
        for format in Format::ALL {
            let value = format.to_possible_value().expect("no skipped variants");
            assert_eq!(value.get_name(), format.as_str());
            assert!(value.get_help().is_some(), "{format} has no help line");
        }
    }
}
