//! How a text document meets the terminal it is written to: wrapped to its width, coloured with
//! the one palette. The caller decides both (from `--color`, `NO_COLOR`, `CLICOLOR_FORCE`,
//! `COLUMNS` and whether the output is a terminal); this module only applies them.

use super::{palette, wrap};

/// The terminal's side of text output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Look {
    /// Wrap lines wider than this many columns; `None` leaves lines as they are (a file, a
    /// pipe).
    pub width: Option<usize>,
    /// Colour the palette's words ([`palette::highlight`]).
    pub color: bool,
}

impl Look {
    /// `text` wrapped to [`Look::width`], then coloured when [`Look::color`]. Wrapping comes
    /// first and counts escapes as no width, so colour never moves a line break.
    pub fn apply(&self, text: &str) -> String {
        let wrapped = match self.width {
            Some(w) => wrap::wrap(text, w),
            None => text.to_owned(),
        };
        if self.color {
            palette::highlight(&wrapped)
        } else {
            wrapped
        }
    }
}
