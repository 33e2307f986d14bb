// Splits the `args` input into argv words the way a POSIX shell would for quoting (no
// expansion, no globbing, no variables): `'…'` is literal, `"…"` allows `\"` and `\\`, a
// backslash outside quotes escapes the next character. Newlines separate words like spaces, so
// a YAML block scalar can hold one argument per line.
"use strict";

class WordsError extends Error {
  constructor(message) {
    super(message);
    this.hint = "quote as in a shell: '…' is literal, \"…\" allows \\\" and \\\\, \\ escapes one character";
  }
}

/** @param {string} text @returns {string[]} */
function splitWords(text) {
  const words = [];
  let word = null; // null: between words; "" is a real (empty, quoted) word
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new WordsError(`unclosed ' in args: ${text}`);
      word = (word ?? "") + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let out = "";
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && (text[j + 1] === '"' || text[j + 1] === "\\")) {
          out += text[j + 1];
          j += 2;
        } else {
          out += text[j++];
        }
      }
      if (j >= text.length) throw new WordsError(`unclosed " in args: ${text}`);
      word = (word ?? "") + out;
      i = j + 1;
    } else if (c === "\\") {
      if (i + 1 >= text.length) throw new WordsError(`args ends with a lone \\: ${text}`);
      word = (word ?? "") + text[i + 1];
      i += 2;
    } else {
      word = (word ?? "") + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

module.exports = { splitWords, WordsError };
