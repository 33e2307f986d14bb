//! The second implementation, `tools/fingerprint.py`, as the end-to-end tests run it: a
//! fingerprint mcpseal prints must be the one an independent program computes from the same
//! raw capture.

use std::path::Path;

/// The fingerprint `tools/fingerprint.py --form FORM CAPTURE` prints; panics when python3 is
/// missing or the script fails (the second implementation is part of the tests).
#[expect(
    clippy::disallowed_methods,
    reason = "the independent implementation (tools/fingerprint.py) runs as a process"
)]
pub fn python_fingerprint(capture: &Path, form: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/fingerprint.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .args(["--form", form])
        .arg(capture)
        .output()
        .expect("python3 must be installed: the second implementation is part of the tests");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}
