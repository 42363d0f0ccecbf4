//! The quick meta-schema check never says "valid" where the full validator says "invalid":
//! on every input schema of the corpus (each of its sub-schemas too), and on each of them
//! broken one keyword at a time with values of every wrong kind. It must also say "valid"
//! for most of the corpus, or it would make nothing faster.

use std::path::PathBuf;

use mcp_manager_clients::meta_schema::{surely_valid, Draft};
use serde_json::{json, Value};

fn corpus() -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/schemas");
    let mut schemas = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".tools.json") {
            continue;
        }
        let listing: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for tool in listing["tools"].as_array().unwrap() {
            schemas.push(tool["inputSchema"].clone());
        }
    }
    assert!(schemas.len() > 500, "the corpus is there");
    schemas
}

fn full(schema: &Value, draft: Draft) -> bool {
    match draft {
        Draft::Draft202012 => jsonschema::draft202012::meta::validator().is_valid(schema),
        Draft::Draft7 => jsonschema::draft7::meta::validator().is_valid(schema),
    }
}

/// Every object in `value`, with a pointer to it.
fn objects(value: &Value, at: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            out.push(at.clone());
            for (key, item) in map {
                objects(
                    item,
                    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                objects(item, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

const KEYWORDS: &[&str] = &[
    "type",
    "required",
    "properties",
    "items",
    "prefixItems",
    "additionalProperties",
    "enum",
    "const",
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "pattern",
    "patternProperties",
    "format",
    "title",
    "description",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "definitions",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "propertyNames",
    "contains",
    "minContains",
    "maxContains",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$id",
    "$schema",
    "$anchor",
    "$comment",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "minProperties",
    "maxProperties",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
];

fn wrong_values() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(""),
        json!("string"),
        json!("#/$defs/x"),
        json!("not a uri \\ with spaces"),
        json!("("),
        json!("#frag#ment"),
        json!("#/definitions/a b"),
        json!("#/$defs/%zz"),
        json!("http://json-schema.org/draft-07/schema#"),
        json!("https://json-schema.org/draft/2020-12/schema"),
        json!("http://"),
        json!("http://a b"),
        json!([]),
        json!(["string"]),
        json!(["string", "string"]),
        json!(["a", 1]),
        json!([{}]),
        json!([1]),
        json!({}),
        json!({"a": 1}),
        json!({"a": {}}),
        json!({"a": ["b", "b"]}),
        json!({"a": "(["}),
        json!({"type": "text"}),
    ]
}

#[test]
fn never_valid_where_the_full_validator_says_invalid() {
    let mut schemas = corpus();
    let total = schemas.len();
    let mut seen = std::collections::HashSet::new();
    schemas.retain(|s| seen.insert(s.to_string()));
    let (mut checked, mut asked) = (0usize, 0usize);
    let mut quick_yes = [0usize; 2];
    for (d, draft) in [Draft::Draft202012, Draft::Draft7].into_iter().enumerate() {
        for schema in &mut schemas {
            if surely_valid(schema, draft) {
                quick_yes[d] += 1;
                assert!(full(schema, draft), "{draft:?}: said valid: {schema}");
            }
            // Broken at the root and at one node within, one keyword at a time, in place.
            let mut pointers = Vec::new();
            objects(schema, String::new(), &mut pointers);
            let inner = pointers
                .iter()
                .skip(1)
                .find(|p| p.starts_with("/properties/"))
                .cloned();
            for pointer in std::iter::once(String::new()).chain(inner) {
                for keyword in KEYWORDS {
                    let kept = schema.pointer(&pointer).unwrap().get(*keyword).cloned();
                    for wrong in wrong_values() {
                        schema.pointer_mut(&pointer).unwrap()[*keyword] = wrong.clone();
                        checked += 1;
                        if surely_valid(schema, draft) {
                            asked += 1;
                            assert!(
                                full(schema, draft),
                                "{draft:?}: said valid with {keyword} = {wrong} at {pointer:?}"
                            );
                        }
                    }
                    let node = schema
                        .pointer_mut(&pointer)
                        .unwrap()
                        .as_object_mut()
                        .unwrap();
                    match kept {
                        Some(value) => node.insert(keyword.to_string(), value),
                        None => node.shift_remove(*keyword),
                    };
                }
            }
        }
    }
    assert!(
        checked > 50_000 && asked > 10_000,
        "{checked} broken, {asked} said valid"
    );
    // Most of the corpus gets its quick yes (or the check would make nothing faster).
    for (d, yes) in quick_yes.into_iter().enumerate() {
        assert!(
            yes * 10 >= schemas.len() * 8,
            "draft {d}: {yes} of {} ({total} with repeats)",
            schemas.len()
        );
    }
}

#[test]
fn what_it_refuses_by_itself_the_full_validator_refuses_too() {
    for (schema, draft) in [
        (json!({"type": "text"}), Draft::Draft202012),
        (json!({"required": ["a", "a"]}), Draft::Draft202012),
        (json!({"items": [{}]}), Draft::Draft202012),
        (json!({"properties": {"a": 1}}), Draft::Draft7),
        (json!({"anyOf": []}), Draft::Draft7),
    ] {
        assert!(!surely_valid(&schema, draft), "{schema}");
        assert!(!full(&schema, draft), "{schema}");
    }
    assert!(surely_valid(&json!({"items": [{}]}), Draft::Draft7));
    assert!(
        surely_valid(&json!({"$defs": 1}), Draft::Draft7),
        "not a draft-07 keyword"
    );
}
