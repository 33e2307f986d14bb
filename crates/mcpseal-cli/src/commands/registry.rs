//! `mcpseal registry stamp|check|verify|list`: parse, one facade call, render, exit code.

use mcpseal::publish::package::PackageOptions;
use mcpseal::publish::registry::{ListOptions, ServerJsonOptions};
use mcpseal::publish::verify::RegistryVerifyOptions;
use mcpseal::publishing::registry::EntryRef;
use mcpseal::sources::{Cache, Config, LaunchOptions};
use mcpseal_report::publish::registry::StampOutcome;
use mcpseal_report::publish::{Rendered, render};
use mcpseal_report::{Format, ToolInfo};

use crate::error::{CliError, Outcome};
use crate::publish_args::{
    RegistryArgs, RegistryCommand, RegistryListArgs, RegistryVerifyArgs, ServerJsonArgs,
};
use crate::{output, settings};

pub async fn run(args: RegistryArgs) -> Result<Outcome, CliError> {
    match args.command {
        RegistryCommand::Stamp(a) => stamp(a),
        RegistryCommand::Check(a) => check(a),
        RegistryCommand::Verify(a) => verify(a).await,
        RegistryCommand::List(a) => list(a).await,
    }
}

pub fn tool() -> ToolInfo {
    ToolInfo {
        name: "mcpseal".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// Renders `doc` to stdout or `-o`.
pub fn emit<D: Rendered>(
    doc: &D,
    format: Format,
    out: &crate::args::OutputArgs,
) -> Result<(), CliError> {
    output::emit_doc(
        &render(doc, format, &tool(), crate::settings::docs_url().as_deref()),
        format == Format::Text,
        out.output.as_deref(),
    )
}

fn options(a: &ServerJsonArgs) -> ServerJsonOptions {
    ServerJsonOptions {
        server_json: a.server_json.clone(),
        lock: a.lock.clone(),
        endpoint: a.endpoint.clone(),
        also_mcp_surface: a.also_mcp_surface,
        mcp_surface_lock: a.mcp_surface_lock.clone(),
    }
}

fn stamp(a: ServerJsonArgs) -> Result<Outcome, CliError> {
    let report = mcpseal::publish::registry::stamp(&options(&a))?;
    emit(&report, a.report.format, &a.output)?;
    Ok(match report.outcome {
        StampOutcome::Written | StampOutcome::Unchanged => Outcome::Ok,
        StampOutcome::TooLarge => {
            output::note(&format!(
                "error: publisher-provided would be {} bytes of marshalled JSON; the registry accepts at most {}\nhint: shrink the other publisher-provided data, or drop `--also-mcp-surface`",
                report.publisher_provided_bytes, report.limit_bytes
            ));
            Outcome::Found
        }
        StampOutcome::Invalid => {
            output::note(
                "error: the stamped server.json would not validate against the 2025-12-11 schema\nhint: fix the fields named; the file was not changed",
            );
            Outcome::Found
        }
    })
}

fn check(a: ServerJsonArgs) -> Result<Outcome, CliError> {
    let report = mcpseal::publish::registry::check(&options(&a))?;
    emit(&report, a.report.format, &a.output)?;
    if report.matches {
        Ok(Outcome::Ok)
    } else {
        output::note(
            "error: server.json does not carry what the lock produces\nhint: run `mcpseal registry stamp` and commit server.json (set `version` to the lock's)",
        );
        Ok(Outcome::Found)
    }
}

async fn verify(a: RegistryVerifyArgs) -> Result<Outcome, CliError> {
    let entry = EntryRef::parse(&a.entry).map_err(|e| {
        CliError::usage(e.to_string())
            .hint("names look like `io.github.me/weather`; add `@1.2.0` for one version")
    })?;
    let options = RegistryVerifyOptions {
        entry,
        registry: a.access.registry.clone(),
        attempts: a.access.attempts.max(1),
        wait: settings::parse_duration(&a.access.wait)?,
        timeout: settings::parse_duration(&a.access.timeout)?,
        page_cap: a.page_cap.max(1),
        package: if a.package {
            Some(package_options(&a)?)
        } else {
            None
        },
    };
    let report = mcpseal::publish::verify::verify(&options).await?;
    emit(&report, a.report.format, &a.output)?;
    Ok(if !report.verified {
        output::note(
            "error: no remote of the entry could be verified\nhint: the reasons are listed per remote; a remote that needs a credential cannot be verified from the registry",
        );
        Outcome::NoVerdict
    } else if report.matches {
        Outcome::Ok
    } else {
        output::note(
            "error: the entry is not served as published\nhint: the failing checks name what differs",
        );
        Outcome::Found
    })
}

fn package_options(a: &RegistryVerifyArgs) -> Result<PackageOptions, CliError> {
    let root = super::replay::cache_root(a.cache.as_deref())?;
    let launcher = super::replay::launcher()?;
    let mut launch = LaunchOptions::new(launcher);
    launch.isolation.network = !a.allow_network;
    Ok(PackageOptions {
        config: Config::new(Cache::new(root)),
        launch,
        deadline: std::time::Duration::from_secs(300),
    })
}

async fn list(a: RegistryListArgs) -> Result<Outcome, CliError> {
    let options = ListOptions {
        registry: a.access.registry.clone(),
        search: a.search.clone(),
        latest_only: !a.all_versions,
        limit: a.limit.clamp(1, 100),
        max_pages: a.max_pages.max(1),
        attempts: a.access.attempts.max(1),
        wait: settings::parse_duration(&a.access.wait)?,
        timeout: settings::parse_duration(&a.access.timeout)?,
    };
    let report = mcpseal::publish::registry::list(&options).await?;
    emit(&report, a.format, &a.output)?;
    Ok(Outcome::Ok)
}
