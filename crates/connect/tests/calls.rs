//! Trying tools by hand through the hosted project, as the window does: the tool list with
//! whole schemas, and a call whose exchange is the one that went over the wire.

mod support;

use mcp_manager_connect::project::LiveProject;
use mcp_manager_connect::Settings;
use serde_json::{json, Value};

#[tokio::test]
async fn tools_come_with_whole_schemas_and_a_call_with_its_exact_exchange() {
    let world = support::World::with_servers(json!({
        "everything": {"command": "node", "args": [support::everything(), "stdio"]}
    }));
    let project = LiveProject::open(world.locations.clone(), Settings::default());
    project.supervisor().keep_protocol_logs();
    project.start().await;

    let tools = project.tools("everything").await.unwrap();
    let sum = tools
        .iter()
        .find(|t| t.name == "get-sum")
        .expect("get-sum is listed");
    let schema: Value = serde_json::from_str(&sum.input_schema).unwrap();
    assert_eq!(
        schema["$schema"], "http://json-schema.org/draft-07/schema#",
        "kept whole"
    );
    assert_eq!(schema["properties"]["a"]["type"], "number");

    let call = project
        .call_tool("everything", "get-sum", r#"{"a": 2, "b": 3.5}"#)
        .await
        .unwrap();
    assert!(!call.is_error);
    let result: Value = serde_json::from_str(&call.result).unwrap();
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("5.5"),
        "{result}"
    );
    let request: Value =
        serde_json::from_str(call.request.as_deref().expect("the request")).unwrap();
    assert_eq!(request["method"], "tools/call");
    assert_eq!(request["params"]["arguments"], json!({"a": 2, "b": 3.5}));
    let response: Value =
        serde_json::from_str(call.response.as_deref().expect("the response")).unwrap();
    assert_eq!(response["id"], request["id"], "the answer to that request");
    assert_eq!(response["result"], result);

    let err = project
        .call_tool("everything", "get-sum", "[1]")
        .await
        .unwrap_err();
    assert!(
        err.message
            .starts_with("the arguments are not a JSON object"),
        "{}",
        err.message
    );
    let err = project.tools("nobody").await.unwrap_err();
    assert_eq!(
        err.message,
        "\"nobody\" is not connected: start it (or log in) first"
    );
    project.shutdown().await;
}
