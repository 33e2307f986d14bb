//! TEMPORARY stand-in for `mcpseal_surface::diff` (same API) until that engine lands.
#![allow(missing_docs, dead_code)]

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeClass {
    Breaking,
    Security,
    Additive,
    Cosmetic,
    Unjudged,
}

impl ChangeClass {
    pub const ALL: [ChangeClass; 5] = [
        ChangeClass::Breaking,
        ChangeClass::Security,
        ChangeClass::Additive,
        ChangeClass::Cosmetic,
        ChangeClass::Unjudged,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeClass::Breaking => "breaking",
            ChangeClass::Security => "security",
            ChangeClass::Additive => "additive",
            ChangeClass::Cosmetic => "cosmetic",
            ChangeClass::Unjudged => "unjudged",
        }
    }
    pub fn bump(self) -> Bump {
        match self {
            ChangeClass::Breaking => Bump::Major,
            ChangeClass::Security | ChangeClass::Additive => Bump::Minor,
            _ => Bump::Patch,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    None,
    Patch,
    Minor,
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub class: ChangeClass,
    pub path: String,
    pub item: Option<String>,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub explanation: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub breaking: usize,
    pub security: usize,
    pub additive: usize,
    pub cosmetic: usize,
    pub unjudged: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SurfaceDiff {
    pub changes: Vec<Change>,
}

impl SurfaceDiff {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for c in &self.changes {
            match c.class {
                ChangeClass::Breaking => s.breaking += 1,
                ChangeClass::Security => s.security += 1,
                ChangeClass::Additive => s.additive += 1,
                ChangeClass::Cosmetic => s.cosmetic += 1,
                ChangeClass::Unjudged => s.unjudged += 1,
            }
        }
        s
    }
    pub fn required_bump(&self) -> Bump {
        self.changes
            .iter()
            .map(|c| c.class.bump())
            .max()
            .unwrap_or(Bump::None)
    }
    pub fn has(&self, class: ChangeClass) -> bool {
        self.changes.iter().any(|c| c.class == class)
    }
}

pub fn diff(before: &Value, after: &Value) -> SurfaceDiff {
    let mut changes = Vec::new();
    let empty = serde_json::Map::new();
    let b = before.as_object().unwrap_or(&empty);
    let a = after.as_object().unwrap_or(&empty);
    for (list, id, what) in [
        ("tools", "name", "tool"),
        ("resources", "uri", "resource"),
        ("resourceTemplates", "uriTemplate", "template"),
        ("prompts", "name", "prompt"),
    ] {
        let items = |m: &serde_json::Map<String, Value>| -> Vec<(String, Value)> {
            m.get(list)
                .and_then(Value::as_array)
                .map(|v| {
                    v.iter()
                        .map(|i| {
                            (
                                i.get(id).and_then(Value::as_str).unwrap_or("").to_owned(),
                                i.clone(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let (bi, ai) = (items(b), items(a));
        for (k, v) in &bi {
            let path = format!("/{list}/{id}={}", k.replace('~', "~0").replace('/', "~1"));
            match ai.iter().find(|(x, _)| x == k) {
                None => changes.push(Change {
                    class: ChangeClass::Breaking,
                    path,
                    item: Some(format!("{what} {k}")),
                    before: Some(v.clone()),
                    after: None,
                    explanation: format!("{what} `{k}` was removed"),
                }),
                Some((_, w)) if w != v => {
                    let class = if v.get("description") != w.get("description") {
                        ChangeClass::Security
                    } else {
                        ChangeClass::Unjudged
                    };
                    changes.push(Change {
                        class,
                        path,
                        item: Some(format!("{what} {k}")),
                        before: Some(v.clone()),
                        after: Some(w.clone()),
                        explanation: format!("{what} `{k}` changed"),
                    })
                }
                _ => {}
            }
        }
        for (k, w) in &ai {
            if !bi.iter().any(|(x, _)| x == k) {
                changes.push(Change {
                    class: ChangeClass::Additive,
                    path: format!("/{list}/{id}={k}"),
                    item: Some(format!("{what} {k}")),
                    before: None,
                    after: Some(w.clone()),
                    explanation: format!("{what} `{k}` was added"),
                });
            }
        }
        if b.get(list) != a.get(list) && bi.is_empty() && ai.is_empty() {
            changes.push(Change {
                class: ChangeClass::Unjudged,
                path: format!("/{list}"),
                item: None,
                before: b.get(list).cloned(),
                after: a.get(list).cloned(),
                explanation: format!("`{list}` changed"),
            });
        }
    }
    for key in ["server", "initialize", "era", "form"] {
        if b.get(key) != a.get(key) {
            changes.push(Change {
                class: ChangeClass::Unjudged,
                path: format!("/{key}"),
                item: Some("server".into()),
                before: b.get(key).cloned(),
                after: a.get(key).cloned(),
                explanation: format!("`{key}` changed"),
            });
        }
    }
    changes.sort_by(|x, y| x.path.cmp(&y.path));
    SurfaceDiff { changes }
}
