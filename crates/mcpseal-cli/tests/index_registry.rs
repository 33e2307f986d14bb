//! `mcpseal index` with an MCP Registry, end to end against real things: the loopback registry
//! (`mcpseal-registry-fixture`, the v0.1 read API) listing entries stamped by `mcpseal registry
//! stamp` from locks of live fixture servers, a package entry installed from a real local npm
//! registry (Verdaccio). `index cohort --from-registry` pins the listing; `index run` expands
//! each `registry:NAME@VER` at run time and fills the published-fingerprint column (match on
//! the entry served as stamped, mismatch on one whose server drifted, none without a block);
//! `index rerun` recomputes a row with the command the row states. The merged run recorded in
//! the history keeps the published column and the skipped rules, and the site shows both.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;
mod lock_support;

use index_support::{mcpseal_in, ok, row};
use lock_support::{Work, assert_schema, base_surface, without_tool};
use mcpseal_fixtures::packages::{NPM_NAME, Verdaccio};
use mcpseal_fixtures::{HttpFixture, RegistryFixture};
use mcpseal_publish::keys::{MCPSEAL_KEY, PUBLISHER_PROVIDED, SERVER_SCHEMA_URL};
use serde_json::{Value, json};

fn entry(name: &str, url: &str) -> Value {
    json!({
        "$schema": SERVER_SCHEMA_URL,
        "name": name,
        "description": "An index test server",
        "version": "1.0.0",
        "remotes": [{"type": "streamable-http", "url": url}],
    })
}

#[test]
fn registry_targets_are_expanded_and_compared_with_what_they_publish() {
    let w = Work::new();
    let reg = w.path("registry");
    std::fs::create_dir_all(&reg).expect("dir");

    // Served as stamped: lock the live fixture, stamp its server.json.
    let s = w.surface("surface.json", &base_surface());
    let served = HttpFixture::start(&["--surface", &s, "--server-version", "1.0.0"]);
    let out = w.run(&["lock", "--server-version", "1.0.0", &served.url], None);
    assert_eq!(out.code, 0, "lock: {}", out.stderr);
    w.write(
        "server.json",
        &entry("io.github.me/weather", &served.url).to_string(),
    );
    let out = w.run(&["registry", "stamp"], None);
    assert_eq!(out.code, 0, "stamp: {}", out.stderr);
    let stamped: Value =
        serde_json::from_slice(&std::fs::read(w.path("server.json")).expect("read")).expect("json");
    assert!(stamped["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY].is_object());
    std::fs::write(reg.join("a-weather.json"), stamped.to_string()).expect("entry");

    // The same block, but the server behind the entry lost a tool: a mismatch.
    let d = w.surface("drifted.json", &without_tool(&base_surface(), "echo"));
    let drifted = HttpFixture::start(&["--surface", &d, "--server-version", "1.0.0"]);
    let mut other = stamped.clone();
    other["name"] = json!("io.github.me/drifted");
    other["remotes"] = json!([{"type": "streamable-http", "url": drifted.url}]);
    std::fs::write(reg.join("b-drifted.json"), other.to_string()).expect("entry");

    // No block at all.
    std::fs::write(
        reg.join("c-plain.json"),
        entry("io.github.me/plain", &served.url).to_string(),
    )
    .expect("entry");

    // A package entry: installed from the local npm registry by replay's installer.
    let npm = Verdaccio::start(&w.path("verdaccio"));
    npm.publish_history();
    let env = npm.npm_env();
    let mut echo = json!({
        "$schema": SERVER_SCHEMA_URL,
        "name": "io.github.me/echo",
        "description": "An npm package",
        "version": "1.0.0",
        "packages": [{"registryType": "npm", "identifier": NPM_NAME, "version": "1.0.0",
            "registryBaseUrl": npm.url(), "transport": {"type": "stdio"}}],
    });
    std::fs::write(reg.join("d-echo.json"), echo.to_string()).expect("entry");

    // Nothing mcpseal can install or reach: left out of the cohort, by name.
    echo["name"] = json!("io.github.me/oci-only");
    echo["packages"] = json!([{"registryType": "oci", "identifier": "docker.io/me/x:1.0.0",
        "transport": {"type": "stdio"}}]);
    std::fs::write(reg.join("e-oci.json"), echo.to_string()).expect("entry");
    // Not matched by the search.
    std::fs::write(
        reg.join("f-else.json"),
        entry("com.example/else", &served.url).to_string(),
    )
    .expect("entry");

    let registry = RegistryFixture::start(&reg, &[]);
    let dir = w.dir.path();
    // Absolute: npm is run with it as `--prefix`.
    let cache = w.path("cache").to_string_lossy().into_owned();

    // The cohort, from the registry's listing.
    let out = mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "cohort",
            "--from-registry",
            &registry.url,
            "--search",
            "io.github.me",
        ],
    );
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("left out io.github.me/oci-only@1.0.0"),
        "{stderr}"
    );
    let cohort: toml::Value = toml::from_str(&text).expect("toml");
    let targets = cohort["target"].as_array().expect("targets");
    let installs: Vec<&str> = targets
        .iter()
        .filter_map(|t| t["install"].as_str())
        .collect();
    assert_eq!(
        installs,
        [
            "registry:io.github.me/drifted@1.0.0",
            "registry:io.github.me/echo@1.0.0",
            "registry:io.github.me/plain@1.0.0",
            "registry:io.github.me/weather@1.0.0",
        ],
        "{text}"
    );
    assert!(
        targets
            .iter()
            .all(|t| t["registry"].as_str() == Some(registry.url.as_str()))
    );
    w.write("cohort.toml", &text);
    // The same listing writes the same bytes.
    let again = mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "cohort",
            "--from-registry",
            &registry.url,
            "--search",
            "io.github.me",
        ],
    );
    assert_eq!(again.stdout, out.stdout);

    // The run: each entry expanded at run time.
    let out = mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "run",
            "cohort.toml",
            "--out",
            "run",
            "--run-id",
            "r1",
            "--cache",
            &cache,
            "--jobs",
            "2",
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_schema("index-run.schema.json", &doc);
    let weather = row(&doc, "io.github.me-weather");
    assert_eq!(weather["state"], "ready", "{weather:#}");
    assert_eq!(weather["kind"], "registry");
    assert_eq!(weather["version"], "1.0.0");
    assert_eq!(weather["expanded"], format!("url:{}", served.url));
    assert_eq!(weather["published"]["state"], "match", "{weather:#}");
    assert_eq!(weather["published"]["block"], "mcpseal");
    assert_eq!(
        weather["published"]["declaredSha256"],
        weather["published"]["liveSha256"]
    );
    let drift = row(&doc, "io.github.me-drifted");
    assert_eq!(drift["published"]["state"], "mismatch", "{drift:#}");
    assert_ne!(
        drift["published"]["declaredSha256"],
        drift["published"]["liveSha256"]
    );
    let plain = row(&doc, "io.github.me-plain");
    assert_eq!(plain["published"]["state"], "none", "{plain:#}");
    assert!(
        plain["published"]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("no fingerprint"))
    );
    let echo = row(&doc, "io.github.me-echo");
    assert_eq!(
        echo["expanded"],
        format!("npm:{NPM_NAME}@1.0.0"),
        "{echo:#}"
    );
    assert!(
        matches!(echo["state"].as_str(), Some("ready" | "findings")),
        "{echo:#}"
    );
    assert!(echo["fingerprint"].is_string());
    assert_eq!(echo["published"]["state"], "none");
    assert_eq!(doc["summary"]["publishedMatch"], 1);
    assert_eq!(doc["summary"]["publishedMismatch"], 1);
    assert_eq!(doc["summary"]["publishedNone"], 2);

    // The history keeps the column and the skipped rules; the site shows both.
    ok(&mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "merge",
            "run",
            "--out",
            "merged",
            "--history",
            "history.sqlite",
        ],
    ));
    let history = mcpseal_in(
        Some(dir),
        &env,
        &["index", "history", "--db", "history.sqlite"],
    );
    ok(&history);
    let text = String::from_utf8_lossy(&history.stdout);
    assert!(
        text.contains("published fingerprint: match 1 of 4 (25.0%) · mismatch 1 of 4 (25.0%) · none 2 of 4 (50.0%) · notCompared 0 of 4 (0.0%)"),
        "{text}"
    );
    ok(&mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "site",
            "--from",
            "merged",
            "--db",
            "history.sqlite",
            "--out",
            "public",
        ],
    ));
    let html = std::fs::read_to_string(w.path("public/index.html")).expect("index.html");
    assert!(html.contains("<th scope=\"col\">published</th>"));
    let cohort_row = |id: &str| -> String {
        html.lines()
            .find(|l| l.contains(&format!("<a href=\"servers/{id}.html\">")))
            .unwrap_or_else(|| panic!("no cohort row for {id}"))
            .to_owned()
    };
    let declared = weather["published"]["declaredSha256"]
        .as_str()
        .expect("hash");
    let cell = cohort_row("io.github.me-weather");
    assert!(
        cell.contains(&format!("<td class=\"published\" title=\"the live surface has the fingerprint mcpseal&#39;s block (mcpseal/1) publishes: {declared}\">match</td>")),
        "{cell}"
    );
    let cell = cohort_row("io.github.me-drifted");
    let live = drift["published"]["liveSha256"].as_str().expect("hash");
    assert!(
        cell.contains(&format!("the live surface is {live}\">mismatch</td>")),
        "{cell}"
    );
    let cell = cohort_row("io.github.me-plain");
    assert!(
        cell.contains(">none</td>") && cell.contains("publishes no fingerprint"),
        "{cell}"
    );
    // The remote's page lists the rules the index did not run on it, with why; the npm
    // package (a local process, tools may be called) has none.
    let page = std::fs::read_to_string(w.path("public/servers/io.github.me-weather.html"))
        .expect("server page");
    for rule in ["SEAL030", "SEAL034", "SEAL043"] {
        assert!(
            page.contains(&format!(
                "<tr><th scope=\"row\">{rule}</th><td>remote target: no tool calls"
            )),
            "{page}"
        );
    }
    assert!(page.contains("Published fingerprint: <strong>match</strong>"));
    assert!(
        page.contains("<td>match</td><td>SEAL030, SEAL034, SEAL043</td>"),
        "{page}"
    );
    let page = std::fs::read_to_string(w.path("public/servers/io.github.me-echo.html"))
        .expect("server page");
    assert!(!page.contains("class=\"skipped\""), "{page}");
    assert!(page.contains("<td>none</td><td>–</td>"), "{page}");

    // Every row states its rerun command; running it recomputes that row.
    for r in doc["rows"].as_array().expect("rows") {
        assert_eq!(
            r["rerun"],
            format!(
                "mcpseal index rerun {} --cohort cohort.toml",
                r["id"].as_str().unwrap_or("")
            )
        );
    }
    let command = weather["rerun"].as_str().expect("rerun");
    let mut args: Vec<&str> = command.split(' ').skip(1).collect();
    args.extend([
        "--out", "again", "--run-id", "r1", "--cache", &cache, "--format", "json",
    ]);
    let out = mcpseal_in(Some(dir), &env, &args);
    ok(&out);
    let one: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_schema("index-run.schema.json", &one);
    assert_eq!(one["rows"].as_array().map(Vec::len), Some(1));
    assert_eq!(&one["rows"][0], weather);
    assert!(w.path("again/rerun-io.github.me-weather.json").is_file());
    // A merge never takes a rerun for a shard.
    let merged = mcpseal_in(Some(dir), &env, &["index", "merge", "again", "--out", "m"]);
    assert_eq!(merged.status.code(), Some(2));

    // An id the cohort does not hold: exit 2 with a hint, nothing measured.
    let out = mcpseal_in(
        Some(dir),
        &env,
        &["index", "rerun", "nope", "--cohort", "cohort.toml"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no target `nope`") && err.contains("hint:"),
        "{err}"
    );

    // An entry the registry does not have: the row says so (install failed), the run goes on.
    w.write(
        "missing.toml",
        &format!(
            "[[target]]\nid = \"gone\"\ninstall = \"registry:io.github.me/gone@9.9.9\"\nregistry = \"{}\"\n\n[[target]]\nid = \"oci\"\ninstall = \"registry:io.github.me/oci-only@1.0.0\"\nregistry = \"{}\"\n",
            registry.url, registry.url
        ),
    );
    let out = mcpseal_in(
        Some(dir),
        &env,
        &[
            "index",
            "run",
            "missing.toml",
            "--out",
            "missing",
            "--cache",
            &cache,
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let gone = row(&doc, "gone");
    assert_eq!(gone["state"], "installFailed", "{gone:#}");
    assert!(
        gone["reason"].as_str().is_some_and(|r| r.contains("404")),
        "{gone:#}"
    );
    assert!(gone.get("published").is_none());
    let oci = row(&doc, "oci");
    assert_eq!(oci["state"], "notRun", "{oci:#}");
    assert_eq!(oci["published"]["state"], "none");
}
