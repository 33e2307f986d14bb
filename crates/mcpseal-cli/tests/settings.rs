//! Settings every command shares: `--format` values in every `--help` (clap's `ValueEnum`
//! through the report crate's `clap` feature) and the runtime size (`MCPSEAL_WORKER_THREADS`).

mod lock_support;

use lock_support::Work;

#[test]
fn format_values_are_listed_in_every_help() {
    let w = Work::new();
    let reports: &[&str] = &["text", "json", "sarif", "markdown"];
    let documents: &[&str] = &["text", "json"];
    for (cmd, values) in [
        (&["probe"][..], reports),
        (&["lock"], reports),
        (&["check"], reports),
        (&["verify"], reports),
        (&["diff"], reports),
        (&["snapshot"], documents),
        (&["rpc"], documents),
        (&["registry", "stamp"], reports),
        (&["registry", "check"], reports),
        (&["registry", "verify"], reports),
        (&["registry", "list"], reports),
        (&["card", "check"], reports),
        (&["serve"], documents),
    ] {
        let cmd_line = cmd.join(" ");
        let with = |flag: &'static str| {
            let mut argv = cmd.to_vec();
            argv.push(flag);
            argv
        };
        let cmd = &cmd_line;
        // `-h`: one line, `[possible values: …]`.
        let out = w.run(&with("-h"), None);
        assert_eq!(out.code, 0, "{cmd}: {out:?}");
        let short = format!("[possible values: {}]", values.join(", "));
        // The help wraps to the terminal: compare with the line breaks and indents squashed.
        let squashed = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            squashed.contains(&short),
            "{cmd} -h lacks {short}:\n{}",
            out.stdout
        );
        // `--help`: each value with its doc line.
        let out = w.run(&with("--help"), None);
        let format = out
            .stdout
            .split("--format <")
            .nth(1)
            .unwrap_or_else(|| panic!("{cmd} --help has no --format"));
        let block = format.split("\n  -").next().unwrap_or_default();
        assert!(block.contains("Possible values:"), "{cmd}: {block}");
        for v in values {
            assert!(
                block.contains(&format!("- {v}:")),
                "{cmd} --help lacks `{v}`: {block}"
            );
        }
    }
    // Names stay case-insensitive, as they were before the ValueEnum.
    let out = w.run(&["probe", "--list-rules", "--format", "JSON"], None);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.json()["rules"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
}

#[test]
fn the_runtime_size_is_a_setting() {
    let w = Work::new();
    let run = |threads: &str, format: &str| {
        w.run_env(
            &["snapshot", "--format", format],
            Some(&[]),
            &[("MCPSEAL_WORKER_THREADS", threads)],
        )
    };
    for threads in ["1", "3"] {
        let out = run(threads, "json");
        assert_eq!(out.code, 0, "{threads}: {out:?}");
        assert!(out.json()["sha256"].is_string(), "{out:?}");
    }
    for bad in ["0", "many", "100000"] {
        let out = run(bad, "text");
        assert_eq!(out.code, 2, "{bad}: {out:?}");
        assert!(
            out.stderr.contains(&format!(
                "`MCPSEAL_WORKER_THREADS={bad}` is not a thread count"
            )) && out.stderr.contains("\nhint: "),
            "{out:?}"
        );
        let out = run(bad, "json");
        assert_eq!(out.code, 2, "{bad}: {out:?}");
        assert_eq!(out.json()["error"]["kind"], "usage", "{out:?}");
    }
}
