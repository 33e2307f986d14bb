//! The lock-file reader on arbitrary UTF-8; on success, rendering and reading back agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::lock::LockFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(lock) = LockFile::parse(text) else {
        return;
    };
    let rendered = lock.render();
    let again = LockFile::parse(&rendered).expect("a rendered lock file reads back");
    assert_eq!(again.render(), rendered, "render is not stable");
});
