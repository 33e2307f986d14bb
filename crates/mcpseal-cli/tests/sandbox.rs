//! The hidden `__sandbox-exec` subcommand: the binary is the sandbox launcher of a launch plan.

use assert_cmd::Command;

#[test]
fn sandbox_exec_scrubs_the_environment_and_execs() {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .env("MCPSEAL_TEST_SECRET", "hunter2")
        .env("KEPT", "yes")
        .args(["__sandbox-exec", "--keep-env", "KEPT", "--", "/usr/bin/env"])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "KEPT=yes\n");
}

#[test]
fn sandbox_exec_reports_isolation_and_refuses_bad_arguments() {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .args([
            "__sandbox-exec",
            "--no-network",
            "--landlock",
            "--probe",
            "--ro",
            "/usr",
            "--",
            "x",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success(), "{out:?}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["schemaVersion"], 1);
    assert_eq!(report["network"]["state"], "isolated");
    assert_eq!(report["filesystem"]["state"], "enforced");
    let bad = Command::cargo_bin("mcpseal")
        .expect("binary")
        .args(["__sandbox-exec", "--nope"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(125));
    // Not a public subcommand.
    let help = Command::cargo_bin("mcpseal")
        .expect("binary")
        .arg("--help")
        .output()
        .expect("runs");
    assert!(!String::from_utf8_lossy(&help.stdout).contains("sandbox"));
}
