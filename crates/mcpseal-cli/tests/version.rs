//! `mcpseal --version` names the commit the binary was built from (build.rs), so a bug report
//! or a CI log says exactly which build ran.
#![expect(
    clippy::disallowed_methods,
    reason = "the test starts git and the binary to compare their commits"
)]

use std::process::Command;

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().expect("run");
    assert!(out.status.success(), "{cmd:?} failed: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn version_names_the_checked_out_commit() {
    let head = stdout(
        Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
    );
    let line = stdout(Command::new(env!("CARGO_BIN_EXE_mcpseal")).arg("--version"));
    let want = format!(
        "mcpseal {} ({})\n",
        env!("CARGO_PKG_VERSION"),
        &head.trim()[..12]
    );
    assert_eq!(line, want);
}

#[test]
fn subcommands_print_the_same_version() {
    let top = stdout(Command::new(env!("CARGO_BIN_EXE_mcpseal")).arg("--version"));
    let sub = stdout(Command::new(env!("CARGO_BIN_EXE_mcpseal")).args(["probe", "--version"]));
    // clap prefixes the subcommand's name; the version part is the same string.
    assert_eq!(
        sub.strip_prefix("mcpseal-probe "),
        top.strip_prefix("mcpseal ")
    );
}
