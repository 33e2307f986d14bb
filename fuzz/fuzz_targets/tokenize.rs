//! `tokenize` on arbitrary UTF-8; on success, quoting the words with `Target::display` and
//! splitting again gives the same words.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_client::{Target, tokenize};

fuzz_target!(|data: &[u8]| {
    let Ok(command) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(words) = tokenize(command) else {
        return;
    };
    let shown = Target::stdio(words.clone()).display();
    let again = tokenize(&shown).expect("a displayed command tokenizes");
    assert_eq!(
        again, words,
        "display then tokenize changed the words: {shown:?}"
    );
});
