//! Every public JSON document's schema, generated from its type: the list `cargo xtask` writes
//! to (and checks against) `schemas/` at the repository root.

use serde_json::Value;

/// `(file name in schemas/, JSON Schema)` of every public document: the command reports and
/// the error document (`mcpseal-report`), the publishing documents ([`crate::publish::schemas`]),
/// the call, replay, init and project-config documents, the lock file (`mcpseal-surface`) and the raw
/// capture (`mcpseal-protocol`). Sorted by file
/// name.
pub fn all() -> Vec<(&'static str, Value)> {
    let mut all = mcpseal_report::schemas::documents();
    all.extend(crate::publish::schemas());
    all.extend(crate::serve::schemas());
    all.push((
        "surface-lock.schema.json",
        mcpseal_surface::lock::lock_schema(),
    ));
    all.push((
        "surface-lock-profiles.schema.json",
        mcpseal_surface::lock::profile_lock_schema(),
    ));
    all.push(crate::replay::schema());
    all.extend(crate::index::schemas());
    all.push(("mcpseal-config.schema.json", crate::config::schema()));
    all.push((
        "init-report.schema.json",
        mcpseal_report::schemas::schema_of::<crate::init::InitReport>(),
    ));
    all.push(("call-report.schema.json", mcpseal_report::call::schema()));
    all.push((
        "raw-capture.schema.json",
        mcpseal_report::schemas::schema_of::<mcpseal_surface::RawCapture>(),
    ));
    for (name, schema) in &mut all {
        // A document type embedded in another (the init report carries a lock report) keeps
        // its own `$id` among the `$defs`; that would re-base its `#/$defs/…` references on
        // the embedded document's URL, where nothing is defined (the generator hoists every
        // definition to the root), so the schema would not compile. Only the root names a URL.
        if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
            for def in defs.values_mut() {
                if let Some(def) = def.as_object_mut() {
                    def.remove("$id");
                }
            }
        }
        // Every schema names where it is published (a type that does not say gets it here).
        if let Some(object) = schema.as_object_mut() {
            object.entry("$id").or_insert_with(|| {
                Value::from(format!(
                    "https://github.com/mcpseal/mcpseal/blob/main/schemas/{name}"
                ))
            });
        }
    }
    all.sort_by(|a, b| a.0.cmp(b.0));
    all
}
