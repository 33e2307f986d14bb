//! `tokenize` on arbitrary UTF-8; on success, writing the words back with `quote_words` (what
//! `Target::display` shows) and splitting again gives the same words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_protocol::command::{quote_words, tokenize};

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(words) = tokenize(command) else {
        return;
    };
    let shown = quote_words(&words);
    let again = tokenize(&shown).expect("a quoted command tokenizes");
    assert_eq!(
        again, words,
        "quote_words then tokenize changed the words: {shown:?}"
    );
});
