//! `.github/workflows/index.yml` holds its promises: the jobs that run third-party servers
//! (`mcpseal index run`) have no token permission, no persisted credentials, no secret, no cache
//! and no push; the job that can write never installs or runs a target; no `run:` line
//! interpolates an expression (so no field of a scanned file reaches a shell). The check is
//! proved able to fail by mutating the workflow each way.

use serde_json::Value;

fn workflow() -> Value {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.github/workflows/index.yml");
    let text = std::fs::read_to_string(path).expect("the index workflow");
    serde_norway::from_str(&text).expect("YAML")
}

fn is_empty_map(v: &Value) -> bool {
    v.as_object().is_some_and(serde_json::Map::is_empty)
}

fn steps(job: &Value) -> &[Value] {
    job["steps"].as_array().map_or(&[], Vec::as_slice)
}

fn runs_targets(job: &Value) -> bool {
    steps(job)
        .iter()
        .any(|s| s["run"].as_str().is_some_and(|r| r.contains("index run")))
        || steps(job).iter().any(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.contains("setup-node") || u.contains("setup-python"))
        })
}

/// Every broken promise, as a sentence.
fn violations(wf: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if !is_empty_map(&wf["permissions"]) {
        out.push("the workflow's default permissions are not `{}`".to_owned());
    }
    let Some(jobs) = wf["jobs"].as_object() else {
        return vec!["no jobs".into()];
    };
    let mut scans = 0;
    for (name, job) in jobs {
        let text = serde_json::to_string(job).unwrap_or_default();
        let writes = !is_empty_map(&job["permissions"]);
        if runs_targets(job) {
            scans += 1;
            if writes {
                out.push(format!("scan job `{name}` has permissions"));
            }
            if text.contains("secrets.") {
                out.push(format!("scan job `{name}` uses a secret"));
            }
            if text.contains("actions/cache") || text.contains("\"cache\"") {
                out.push(format!("scan job `{name}` uses a cache"));
            }
            if text.contains("git push") {
                out.push(format!("scan job `{name}` pushes"));
            }
            if job.get("environment").is_some() {
                out.push(format!("scan job `{name}` has an environment"));
            }
        }
        if writes && (runs_targets(job) || text.contains("index run")) {
            out.push(format!("writing job `{name}` runs a target"));
        }
        for s in steps(job) {
            if s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout"))
                && s["with"]["persist-credentials"] != Value::Bool(false)
            {
                out.push(format!("job `{name}` persists checkout credentials"));
            }
            if s["run"].as_str().is_some_and(|r| r.contains("${{")) {
                out.push(format!(
                    "job `{name}` interpolates an expression into a shell line"
                ));
            }
            if let Some(u) = s["uses"].as_str()
                && !u.starts_with("./")
                && !u.rsplit_once('@').is_some_and(|(_, sha)| {
                    sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit())
                })
            {
                out.push(format!("job `{name}` uses `{u}` without a commit pin"));
            }
        }
    }
    if scans == 0 {
        out.push("no job scans (runs `mcpseal index run`)".into());
    }
    out
}

#[test]
fn the_committed_workflow_keeps_its_promises() {
    let wf = workflow();
    assert_eq!(violations(&wf), Vec::<String>::new());
    // It does what it says: a matrix of shards, a merge, a publish.
    assert!(
        wf["jobs"]["scan"]["strategy"]["matrix"]["shard"]
            .as_array()
            .is_some_and(|s| s.len() > 1)
    );
    assert!(!is_empty_map(&wf["jobs"]["publish"]["permissions"]));
}

#[test]
fn each_broken_promise_is_caught() {
    type Mutation = fn(&mut Value);
    let mutations: [(&str, Mutation); 7] = [
        ("has permissions", |w| {
            w["jobs"]["scan"]["permissions"] = serde_json::json!({"contents": "write"});
        }),
        ("uses a secret", |w| {
            w["jobs"]["scan"]["env"] = serde_json::json!({"T": "${{ secrets.TOKEN }}"});
        }),
        ("uses a cache", |w| {
            if let Some(s) = w["jobs"]["scan"]["steps"].as_array_mut() {
                s.push(serde_json::json!({"uses": "actions/cache@0123456789012345678901234567890123456789"}));
            }
        }),
        ("persists checkout credentials", |w| {
            w["jobs"]["scan"]["steps"][0]["with"] = serde_json::json!({});
        }),
        ("writing job `publish` runs a target", |w| {
            if let Some(s) = w["jobs"]["publish"]["steps"].as_array_mut() {
                s.push(serde_json::json!({"run": "mcpseal index run examples/cohort.toml"}));
            }
        }),
        ("interpolates an expression", |w| {
            if let Some(s) = w["jobs"]["merge"]["steps"].as_array_mut() {
                s.push(serde_json::json!({"run": "echo ${{ github.event.head_commit.message }}"}));
            }
        }),
        ("default permissions", |w| {
            w["permissions"] = serde_json::json!({"contents": "write"});
        }),
    ];
    for (needle, mutate) in mutations {
        let mut wf = workflow();
        mutate(&mut wf);
        let found = violations(&wf);
        assert!(
            found.iter().any(|v| v.contains(needle)),
            "mutation `{needle}` not caught: {found:?}"
        );
    }
}
