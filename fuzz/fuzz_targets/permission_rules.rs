//! The permission-rule parser and the engine's matcher: a parsed rule prints back to itself, any
//! settings text loads (bad rules become diagnostics), any tool call gets a decision, and a deny
//! rule for a whole tool always wins.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::json;
use tether_core::paths::PathMapper;
use tether_core::permissions::{Decision, PermissionEngine, Rule, SettingsKind, SettingsSource, ToolRequest};

const TOOLS: [&str; 8] = [
    "Bash",
    "Read",
    "Edit",
    "Write",
    "Glob",
    "Grep",
    "NotebookEdit",
    "mcp__x__y",
];
const PIECES: [&str; 16] = [
    "Bash", "Read", "Edit", "(", ")", "\\", "*", ":*", "**", "/", "~/", "//", "npm run", " ", "src/**", "$(x)",
];

fn words(u: &mut Unstructured) -> Result<String> {
    let n = u.int_in_range(0..=6)?;
    let mut text = String::new();
    for _ in 0..n {
        if u.ratio(1, 3)? {
            text.push_str(u.arbitrary::<&str>()?);
        } else {
            text.push_str(u.choose(&PIECES)?);
        }
    }
    Ok(text)
}

fn case(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let mut lists = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..u.int_in_range(0..=6)? {
        let text = words(&mut u)?;
        if let Some(rule) = Rule::parse(&text) {
            assert_eq!(
                Rule::parse(&rule.to_string()),
                Some(rule.clone()),
                "{text:?} printed as {rule}"
            );
        }
        let list = u.int_in_range(0..=2)?;
        lists[list].push(text);
    }
    let denied_tool = if u.arbitrary()? {
        let tool = *u.choose(&TOOLS)?;
        lists[1].push(tool.to_string());
        Some(tool)
    } else {
        None
    };
    let settings = json!({"permissions": {"allow": lists[0], "deny": lists[1], "ask": lists[2]}}).to_string();
    let mut engine = PermissionEngine::new(PathMapper::new("/ws").expect("root"), Some("/home/u"));
    engine.load(&[SettingsSource {
        kind: SettingsKind::Project,
        text: settings,
        base_dir: "/ws".into(),
    }]);
    for _ in 0..u.int_in_range(1..=4)? {
        let tool = *u.choose(&TOOLS)?;
        let arg = words(&mut u)?;
        let input = match tool {
            "Bash" => json!({"command": arg}),
            "Glob" | "Grep" => json!({"pattern": "x", "path": arg}),
            "NotebookEdit" => json!({"notebook_path": arg, "new_source": ""}),
            _ => json!({"file_path": arg, "content": "", "old_string": "a", "new_string": "b"}),
        };
        let decision = engine.decide(&ToolRequest::for_tool(tool, &input));
        if denied_tool == Some(tool) {
            assert!(
                matches!(decision, Decision::Deny { .. }),
                "{tool} is denied, yet: {decision:?}"
            );
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = case(data);
});
