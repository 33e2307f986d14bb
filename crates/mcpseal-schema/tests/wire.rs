//! The official wire schemas: every definition compiles offline; methods map to definitions.

use mcpseal_protocol::Era;
use mcpseal_schema::wire::{
    ERROR_RESPONSE, definition, document, notification_definition, result_definition,
};
use serde_json::{Value, json};

#[test]
fn every_definition_of_both_documents_compiles_offline() {
    for era in Era::ALL {
        let doc: Value = serde_json::from_str(document(era)).expect("JSON");
        let defs = doc["$defs"].as_object().expect("$defs");
        assert!(defs.len() > 100, "{era}");
        for name in defs.keys() {
            if let Err(e) = definition(era, name) {
                panic!("{era} {name}: {e}");
            }
        }
    }
}

#[test]
fn methods_map_to_their_definitions_per_era() {
    let done = json!({"resultType": "complete"});
    let mrtr = json!({"resultType": "input_required"});
    assert_eq!(
        result_definition(Era::Modern, "server/discover", &done),
        Some("DiscoverResult")
    );
    assert_eq!(
        result_definition(Era::Legacy, "server/discover", &done),
        None
    );
    assert_eq!(
        result_definition(Era::Legacy, "initialize", &done),
        Some("InitializeResult")
    );
    assert_eq!(result_definition(Era::Modern, "initialize", &done), None);
    assert_eq!(
        result_definition(Era::Modern, "tools/call", &mrtr),
        Some("InputRequiredResult")
    );
    assert_eq!(
        result_definition(Era::Legacy, "tools/call", &mrtr),
        Some("CallToolResult")
    );
    assert_eq!(result_definition(Era::Modern, "ping", &done), None);
    assert_eq!(
        result_definition(Era::Modern, "x-vendor/thing", &done),
        None
    );
    assert_eq!(
        notification_definition(Era::Modern, "notifications/subscriptions/acknowledged"),
        Some("SubscriptionsAcknowledgedNotification")
    );
    assert_eq!(
        notification_definition(Era::Legacy, "notifications/subscriptions/acknowledged"),
        None
    );
    // Every name the tables give exists in its document.
    for era in Era::ALL {
        let doc: Value = serde_json::from_str(document(era)).expect("JSON");
        let methods = [
            "tools/list",
            "resources/list",
            "resources/templates/list",
            "prompts/list",
            "resources/read",
            "prompts/get",
            "tools/call",
            "completion/complete",
            "server/discover",
            "subscriptions/listen",
            "initialize",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
            "tasks/list",
            "tasks/get",
            "tasks/cancel",
            "tasks/result",
        ];
        let notifications = [
            "notifications/progress",
            "notifications/message",
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
            "notifications/resources/updated",
            "notifications/cancelled",
            "notifications/subscriptions/acknowledged",
            "notifications/tasks/status",
        ];
        let names = methods
            .iter()
            .flat_map(|m| {
                [
                    result_definition(era, m, &done),
                    result_definition(era, m, &mrtr),
                ]
            })
            .chain(
                notifications
                    .iter()
                    .map(|n| notification_definition(era, n)),
            )
            .flatten()
            .chain([ERROR_RESPONSE]);
        for name in names {
            assert!(doc["$defs"].get(name).is_some(), "{era}: {name}");
        }
    }
}
