//! Each expectation is what Claude Code 2.1.330 answered for the same call to its own tool.

use super::check;
use crate::tools::specs;
use serde_json::{json, Value};

fn run(tool: &str, args: Value) -> Result<Value, String> {
    let spec = specs().into_iter().find(|s| s.name == tool).unwrap();
    check(tool, &(spec.input_schema)(), args).map_err(|e| e.0)
}

fn error(tool: &str, args: Value) -> String {
    run(tool, args).expect_err("refused")
}

fn wrapped(text: &str) -> String {
    format!("<tool_use_error>InputValidationError: {text}</tool_use_error>")
}

#[test]
fn an_unknown_parameter_is_refused_in_the_clis_words() {
    assert_eq!(
        error("Read", json!({"file_path": "/a", "offest": 3})),
        wrapped("Read failed due to the following issue:\nAn unexpected parameter `offest` was provided")
    );
    assert_eq!(
        error("Read", json!({"file_path": "/a", "offest": 3, "limt": 2})),
        wrapped(
            "Read failed due to the following issues:\nAn unexpected parameter `offest` was provided\nAn unexpected parameter `limt` was provided"
        )
    );
}

#[test]
fn missing_then_unknown_then_wrong_types_then_the_rest() {
    assert_eq!(
        error("Read", json!({"offest": 1})),
        wrapped("Read failed due to the following issues:\nThe required parameter `file_path` is missing\nAn unexpected parameter `offest` was provided")
    );
    assert_eq!(
        error("Read", json!({"file_path": "/a", "limit": "abc", "offest": 1})),
        wrapped("Read failed due to the following issues:\nAn unexpected parameter `offest` was provided\nThe parameter `limit` type is expected as `number` but provided as `string`")
    );
    assert_eq!(
        error("Read", json!({"file_path": "/a", "offset": 1e300, "limit": "x"})),
        wrapped("Read failed due to the following issues:\nThe parameter `limit` type is expected as `number` but provided as `string`\nThe parameter `offset` is invalid: Too big: expected int to be <=9007199254740991")
    );
    assert_eq!(
        error("Grep", json!({"pattern": "b", "output_mode": "bogus", "bad": 1})),
        wrapped("Grep failed due to the following issues:\nAn unexpected parameter `bad` was provided\nThe parameter `output_mode` is invalid: Invalid option: expected one of \"content\"|\"files_with_matches\"|\"count\"")
    );
}

#[test]
fn wrong_types_name_what_was_given() {
    for (value, got) in [
        (json!(5), "number"),
        (json!(null), "null"),
        (json!(["/a"]), "array"),
        (json!({}), "object"),
    ] {
        assert_eq!(
            error("Read", json!({"file_path": value})),
            wrapped(&format!("Read failed due to the following issue:\nThe parameter `file_path` type is expected as `string` but provided as `{got}`"))
        );
    }
    assert_eq!(
        error("Edit", json!({"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": null})),
        wrapped("Edit failed due to the following issue:\nThe parameter `replace_all` type is expected as `boolean` but provided as `null`")
    );
    assert_eq!(
        error("Read", json!({"file_path": "/a", "offset": 1.5})),
        wrapped("Read failed due to the following issue:\nThe parameter `offset` type is expected as `int` but provided as `number`")
    );
}

#[test]
fn a_lone_problem_of_another_kind_is_shown_as_the_validators_json() {
    assert_eq!(
        error("Read", json!({"file_path": "/a", "limit": 1e300})),
        wrapped("[\n  {\n    \"code\": \"too_big\",\n    \"maximum\": 9007199254740991,\n    \"note\": \"Integers must be within the safe integer range.\",\n    \"origin\": \"int\",\n    \"inclusive\": true,\n    \"path\": [\n      \"limit\"\n    ],\n    \"message\": \"Too big: expected int to be <=9007199254740991\"\n  }\n]")
    );
    assert_eq!(
        error("NotebookEdit", json!({"notebook_path": "/n.ipynb", "new_source": "y", "cell_type": "bogus"})),
        wrapped("[\n  {\n    \"code\": \"invalid_value\",\n    \"values\": [\n      \"code\",\n      \"markdown\"\n    ],\n    \"path\": [\n      \"cell_type\"\n    ],\n    \"message\": \"Invalid option: expected one of \\\"code\\\"|\\\"markdown\\\"\"\n  }\n]")
    );
}

#[test]
fn numbers_and_booleans_are_coerced_as_the_cli_coerces_them() {
    let read = |offset: Value| run("Read", json!({"file_path": "/a", "offset": offset})).map(|v| v["offset"].clone());
    assert_eq!(read(json!("2")), Ok(json!(2)));
    assert_eq!(read(json!(" 2 ")), Ok(json!(2)));
    assert_eq!(read(json!([2])), Ok(json!(2)));
    assert_eq!(read(json!(["2"])), Ok(json!(2)));
    assert_eq!(read(json!(2.0)), Ok(json!(2)));
    for refused in [json!(""), json!("1e1"), json!("0x2"), json!([]), json!(true)] {
        assert!(read(refused.clone()).is_err(), "{refused}");
    }
    let edit = |flag: Value| {
        run(
            "Edit",
            json!({"file_path": "/a", "old_string": "x", "new_string": "y", "replace_all": flag}),
        )
        .map(|v| v["replace_all"].clone())
    };
    assert_eq!(edit(json!("true")), Ok(json!(true)));
    assert_eq!(edit(json!("false")), Ok(json!(false)));
    for refused in [json!("TRUE"), json!("False"), json!(1), json!(["true"])] {
        assert!(edit(refused.clone()).is_err(), "{refused}");
    }
}

#[test]
fn a_number_below_the_minimum_counts_as_not_given() {
    // The CLI reads from the start for a negative offset and without a limit for limit 0.
    for offset in [json!(-1), json!(-2.5), json!("-3"), json!(-1e300)] {
        let checked = run("Read", json!({"file_path": "/a", "offset": offset.clone()})).unwrap();
        assert_eq!(checked, json!({"file_path": "/a"}), "{offset}");
    }
    assert_eq!(
        run("Read", json!({"file_path": "/a", "limit": 0})).unwrap(),
        json!({"file_path": "/a"})
    );
    assert_eq!(
        run("Read", json!({"file_path": "/a", "offset": 0})).unwrap()["offset"],
        json!(0)
    );
}

#[test]
fn older_parameter_names_still_work() {
    assert_eq!(
        run("KillShell", json!({"bash_id": "bash_1"})).unwrap(),
        json!({"shell_id": "bash_1"})
    );
    assert_eq!(
        run("BashOutput", json!({"shell_id": "bash_1"})).unwrap(),
        json!({"bash_id": "bash_1"})
    );
}

#[test]
fn nested_items_are_checked_with_their_place() {
    assert_eq!(
        error("MultiEdit", json!({"file_path": "/a", "edits": [{"old_string": "a", "new_string": "b", "extra": 1}, {"old_string": 5}]})),
        wrapped("MultiEdit failed due to the following issues:\nThe required parameter `edits[1].new_string` is missing\nAn unexpected parameter `edits[0].extra` was provided\nThe parameter `edits[1].old_string` type is expected as `string` but provided as `number`")
    );
    assert_eq!(
        error("LS", json!({"path": "/a", "ignore": ["x", 3]})),
        wrapped("LS failed due to the following issue:\nThe parameter `ignore[1]` type is expected as `string` but provided as `number`")
    );
}
