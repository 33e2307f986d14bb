//! mcpseal's probe against servers built on this crate, over real HTTP on 127.0.0.1.

mod common;

use mcpseal_client::Target;
use mcpseal_report::{RunState, Severity};
use mcpseal_server::{HttpOptions, Options, Server};

use common::{Demo, all_rules, ids, probe_target};

async fn probe_http(options: Options) -> mcpseal_report::ProbeReport {
    probe_http_with(options, HttpOptions::default()).await
}

async fn probe_http_with(options: Options, http: HttpOptions) -> mcpseal_report::ProbeReport {
    let server = Server::new(
        Demo::new(),
        Options {
            page_size: 1,
            ..options
        },
    );
    let bound = server.bind_http("127.0.0.1:0", http).await.expect("bind");
    let url = bound.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let run = tokio::spawn(bound.run(async {
        let _ = stopped.await;
    }));
    let report = probe_target(Target::http(url), &all_rules()).await;
    let _ = stop.send(());
    run.await.expect("join").expect("server ran");
    report
}

#[tokio::test]
async fn modern_only_http_has_no_findings() {
    let report = probe_http(Options {
        legacy: false,
        list_changed: true,
        ..Options::default()
    })
    .await;
    assert_eq!(report.state, RunState::Measured, "{report:#?}");
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(report.ready);
}

#[tokio::test]
async fn modern_only_http_on_connection_threads_has_no_findings() {
    let report = probe_http_with(
        Options {
            legacy: false,
            list_changed: true,
            ..Options::default()
        },
        HttpOptions {
            connection_threads: 2,
            ..HttpOptions::default()
        },
    )
    .await;
    assert_eq!(report.state, RunState::Measured, "{report:#?}");
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(report.ready);
}

#[tokio::test]
async fn dual_era_http_has_only_the_dual_era_advisory() {
    let report = probe_http(Options {
        list_changed: true,
        ..Options::default()
    })
    .await;
    assert_eq!(report.state, RunState::Measured, "{report:#?}");
    assert_eq!(
        ids(&report).into_iter().collect::<Vec<_>>(),
        [("SEAL002".to_owned(), Severity::Warning)],
        "{:#?}",
        report.findings
    );
    assert!(report.ready);
}
