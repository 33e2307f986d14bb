//! The one-string command line of a stdio server: split into argv ([`tokenize`]) and written
//! back ([`quote_words`]), without a shell.
//!
//! Server commands arrive as one string in config files and registry entries. Handing that
//! string to `sh -c` would interpret every metacharacter in it, so mcpseal splits it itself with
//! a small, predictable grammar that works the same on every platform:
//!
//! - unquoted whitespace separates words;
//! - `'single quotes'` keep everything literally;
//! - `"double quotes"` keep everything except `\"` and `\\`, which are unescaped;
//! - outside quotes a backslash escapes only whitespace, a quote or another backslash, and is
//!   literal otherwise — so Windows paths such as `C:\Program Files\node.exe` survive when quoted
//!   and `C:\tools\server.exe` survives even unquoted.
//!
//! The two directions agree: `tokenize(&quote_words(words)) == words` for any non-empty list
//! of words (the fuzz target `tokenize` checks it). Pure code, here rather than in the client,
//! so that the fuzz workspace reaches it without tokio or an HTTP stack.

use thiserror::Error;

/// A command string that cannot be split.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TokenizeError {
    /// A quote was opened and never closed.
    #[error("unterminated {quote} quote in command starting at byte {at}")]
    Unterminated {
        /// The quote character.
        quote: char,
        /// Byte offset of the opening quote.
        at: usize,
    },
    /// Nothing but whitespace.
    #[error("the command is empty")]
    Empty,
}

/// Splits `command` into words. See the module docs for the grammar.
pub fn tokenize(command: &str) -> Result<Vec<String>, TokenizeError> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = command.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => current.push(c),
                        None => return Err(TokenizeError::Unterminated { quote: '\'', at }),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.peek() {
                            Some(&(_, next @ ('"' | '\\'))) => {
                                current.push(next);
                                chars.next();
                            }
                            _ => current.push('\\'),
                        },
                        Some((_, c)) => current.push(c),
                        None => return Err(TokenizeError::Unterminated { quote: '"', at }),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.peek() {
                    Some(&(_, next))
                        if next.is_whitespace() || matches!(next, '"' | '\'' | '\\') =>
                    {
                        current.push(next);
                        chars.next();
                    }
                    _ => current.push('\\'),
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(current);
    }
    if words.is_empty() {
        return Err(TokenizeError::Empty);
    }
    Ok(words)
}

/// Writes `words` as one command line that [`tokenize`] reads back as the same words: a word
/// is written bare unless [`needs_quotes`] says `tokenize` would read it differently, else in
/// double quotes with `\` and `"` escaped. Ordinary Windows paths such as `C:\tools\s.exe` stay
/// bare.
pub fn quote_words<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    words
        .into_iter()
        .map(|w| {
            let w = w.as_ref();
            if needs_quotes(w) {
                format!("\"{}\"", w.replace('\\', "\\\\").replace('"', "\\\""))
            } else {
                w.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether [`tokenize`] would read `word`, written bare, as something else: empty, whitespace
/// or a quote anywhere, or a backslash that escapes (`\\`, or a trailing one, which would
/// escape the space that joins it to the next word).
pub fn needs_quotes(word: &str) -> bool {
    word.is_empty()
        || word.contains(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        || word.contains("\\\\")
        || word.ends_with('\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_words_read_back() {
        // Found by the `tokenize` fuzz target: a bare `'` opened a quote when read back.
        let words = [
            "'jss\\x.ee",
            "xa b",
            r"a\\b",
            r"C:\dir\",
            r"C:\tools\s.exe",
            "",
        ];
        let shown = quote_words(words);
        assert_eq!(
            shown,
            r#""'jss\\x.ee" "xa b" "a\\\\b" "C:\\dir\\" C:\tools\s.exe """#
        );
        assert_eq!(tokenize(&shown).expect("ok"), words);
    }

    fn t(s: &str) -> Vec<String> {
        tokenize(s).expect("tokenizes")
    }

    #[test]
    fn plain_words_split_on_any_whitespace() {
        assert_eq!(
            t("node  server.js\t--port 3000\n"),
            ["node", "server.js", "--port", "3000"]
        );
    }

    #[test]
    fn quotes_keep_spaces_in_paths() {
        assert_eq!(
            t(r#"node "/opt/my server/index.js" 'a b'"#),
            ["node", "/opt/my server/index.js", "a b"]
        );
        assert_eq!(t(r#"x --name="hello world""#), ["x", "--name=hello world"]);
        assert_eq!(t("x ''"), ["x", ""]);
    }

    #[test]
    fn escapes_inside_and_outside_quotes() {
        assert_eq!(
            t(r#"echo "say \"hi\"" a\ b \\"#),
            ["echo", r#"say "hi""#, "a b", r"\"]
        );
        assert_eq!(t(r"echo 'no \escape here'"), ["echo", r"no \escape here"]);
        assert_eq!(t(r#"echo "a\nb""#), ["echo", r"a\nb"]);
    }

    #[test]
    fn windows_paths_survive() {
        assert_eq!(
            t(r"C:\tools\server.exe --dir C:\data"),
            [r"C:\tools\server.exe", "--dir", r"C:\data"]
        );
        assert_eq!(
            t(r#""C:\Program Files\nodejs\node.exe" "D:\my dir\srv.js""#),
            [r"C:\Program Files\nodejs\node.exe", r"D:\my dir\srv.js"]
        );
    }

    #[test]
    fn shell_metacharacters_are_plain_text() {
        assert_eq!(
            t("srv; rm -rf / && echo $HOME | cat > x"),
            [
                "srv;", "rm", "-rf", "/", "&&", "echo", "$HOME", "|", "cat", ">", "x"
            ]
        );
    }

    #[test]
    fn errors_are_reported() {
        assert_eq!(
            tokenize(r#"node "unclosed"#),
            Err(TokenizeError::Unterminated { quote: '"', at: 5 })
        );
        assert_eq!(
            tokenize("a 'b"),
            Err(TokenizeError::Unterminated { quote: '\'', at: 2 })
        );
        assert_eq!(tokenize("   "), Err(TokenizeError::Empty));
    }
}
