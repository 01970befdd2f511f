//! The project's own subagents (`.claude/agents/*.md`, read from the workspace) as `initialize`
//! agent definitions. The CLI runs with no settings sources, so it never reads these files itself;
//! Tether passes them, with the built-in file and shell tools they name mapped to Tether's.
//!
//! A file is Markdown with a front matter block: `name`, `description`, optional `tools` and
//! `disallowedTools` (a comma list, a `[a, b]` list or a YAML block list) and `model`; the body
//! is the agent's system prompt.

use super::protocol::AgentDefinition;
use crate::mcp::MCP_PREFIX;
use crate::tools::TOOL_NAMES;

/// One agent file: its name and definition, or why it was skipped.
pub fn parse_agent_file(file_name: &str, text: &str) -> Result<(String, AgentDefinition), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let skipped = |why: &str| format!("The subagent file {file_name} was skipped: {why}.");
    let mut lines = text.lines();
    if lines.next().map(str::trim_end) != Some("---") {
        return Err(skipped("it does not start with a --- front matter block"));
    }
    let mut fields: Vec<(String, Vec<String>)> = Vec::new();
    let mut closed = false;
    for line in lines.by_ref() {
        if line.trim_end() == "---" {
            closed = true;
            break;
        }
        if let Some(item) = line.trim_start().strip_prefix("- ") {
            // An item of a YAML block list under the previous key.
            if let Some((_, values)) = fields.last_mut() {
                values.push(unquote(item.trim()).to_string());
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let values = if value.is_empty() {
            Vec::new()
        } else {
            vec![value.to_string()]
        };
        fields.push((key.trim().to_string(), values));
    }
    if !closed {
        return Err(skipped("its front matter block is not closed with ---"));
    }
    let prompt = lines.collect::<Vec<_>>().join("\n").trim().to_string();
    let field = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_slice());
    let scalar = |key: &str| field(key).and_then(|v| v.first()).map(|v| unquote(v).to_string());
    let name = scalar("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| skipped("it has no name"))?;
    let description = scalar("description")
        .filter(|d| !d.is_empty())
        .ok_or_else(|| skipped("it has no description"))?;
    if prompt.is_empty() {
        return Err(skipped("it has no prompt after the front matter"));
    }
    let tools = |key: &str| field(key).map(tool_list).filter(|t| !t.is_empty());
    Ok((
        name,
        AgentDefinition {
            description,
            prompt,
            tools: tools("tools"),
            disallowed_tools: tools("disallowedTools"),
            model: scalar("model").filter(|m| !m.is_empty()),
        },
    ))
}

fn unquote(value: &str) -> &str {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

/// Tool names from a `tools` value, the built-in file and shell tools as Tether's.
fn tool_list(values: &[String]) -> Vec<String> {
    values
        .iter()
        .flat_map(|v| v.trim().trim_start_matches('[').trim_end_matches(']').split(','))
        .map(|t| unquote(t.trim()))
        .filter(|t| !t.is_empty())
        .map(|t| {
            if TOOL_NAMES.contains(&t) {
                format!("{MCP_PREFIX}{t}")
            } else {
                t.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_with_comma_tools_maps_the_builtins_to_tether() {
        let (name, agent) = parse_agent_file(
            "reviewer.md",
            "---\nname: reviewer\ndescription: \"Reviews code\"\ntools: Read, Grep, WebFetch\nmodel: sonnet\n---\nReview it.\n",
        )
        .unwrap();
        assert_eq!(name, "reviewer");
        assert_eq!(agent.description, "Reviews code");
        assert_eq!(agent.prompt, "Review it.");
        assert_eq!(
            agent.tools.unwrap(),
            ["mcp__tether__Read", "mcp__tether__Grep", "WebFetch"]
        );
        assert_eq!(agent.model.as_deref(), Some("sonnet"));
    }

    #[test]
    fn block_and_bracket_lists_are_read_and_no_tools_means_all() {
        let (_, block) = parse_agent_file(
            "a.md",
            "---\nname: a\ndescription: d\ntools:\n  - Edit\n  - Bash\n---\np",
        )
        .unwrap();
        assert_eq!(block.tools.unwrap(), ["mcp__tether__Edit", "mcp__tether__Bash"]);
        let (_, bracket) =
            parse_agent_file("b.md", "---\nname: b\ndescription: d\ntools: [Write, 'Glob']\n---\np").unwrap();
        assert_eq!(bracket.tools.unwrap(), ["mcp__tether__Write", "mcp__tether__Glob"]);
        let (_, all) = parse_agent_file("c.md", "---\nname: c\ndescription: d\n---\np").unwrap();
        assert_eq!(all.tools, None);
    }

    #[test]
    fn a_broken_file_is_skipped_with_the_reason() {
        let no_front = parse_agent_file("x.md", "just text").unwrap_err();
        assert!(
            no_front.contains("x.md") && no_front.contains("front matter"),
            "{no_front}"
        );
        let unclosed = parse_agent_file("y.md", "---\nname: y\n").unwrap_err();
        assert!(unclosed.contains("not closed"), "{unclosed}");
        let nameless = parse_agent_file("z.md", "---\ndescription: d\n---\np").unwrap_err();
        assert!(nameless.contains("no name"), "{nameless}");
        let empty = parse_agent_file("e.md", "---\nname: e\ndescription: d\n---\n").unwrap_err();
        assert!(empty.contains("no prompt"), "{empty}");
    }
}
