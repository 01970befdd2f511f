//! Permission rules as written in settings: `Tool`, `Tool(content)`, `mcp__server`,
//! `mcp__server__*`, `mcp__server__tool`. Parsing and printing follow the CLI: the content sits
//! between the first unescaped `(` and a final unescaped `)`, `\(`, `\)` and `\\` are escapes, and
//! `Tool()` / `Tool(*)` mean the whole tool.

use crate::mcp::MCP_PREFIX;
use crate::tools;
use std::fmt;

/// What a rule does when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Behavior {
    Allow,
    Deny,
    Ask,
}

/// One rule value: a tool name and an optional content (command pattern, path glob).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub tool_name: String,
    pub content: Option<String>,
}

impl Rule {
    /// A rule for the whole tool.
    pub fn tool(name: &str) -> Rule {
        Rule {
            tool_name: canonical_tool_name(name),
            content: None,
        }
    }

    /// A rule with content, e.g. `Rule::with_content("Bash", "npm run test:*")`.
    pub fn with_content(name: &str, content: &str) -> Rule {
        if content.is_empty() || content == "*" {
            return Rule::tool(name);
        }
        Rule {
            tool_name: canonical_tool_name(name),
            content: Some(content.to_string()),
        }
    }

    /// Parse a rule string as the CLI does. None for an empty string or a tool name that cannot
    /// name any tool (it holds parentheses, whitespace or a backslash, which would escape the
    /// content's `(` when the rule is printed), which the caller reports.
    pub fn parse(text: &str) -> Option<Rule> {
        let text = text.trim();
        if text.is_empty() {
            return None;
        }
        let rule = match (find_unescaped(text, '(', false), find_unescaped(text, ')', true)) {
            (Some(open), Some(close)) if close > open && close + 1 == text.len() && open > 0 => {
                Rule::with_content(&text[..open], &unescape(&text[open + 1..close]))
            }
            _ => Rule::tool(text),
        };
        let name_is_valid = !rule.tool_name.is_empty()
            && !rule
                .tool_name
                .chars()
                .any(|c| c == '(' || c == ')' || c == '\\' || c.is_whitespace());
        name_is_valid.then_some(rule)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.content {
            None => f.write_str(&self.tool_name),
            Some(content) => write!(f, "{}({})", self.tool_name, escape(content)),
        }
    }
}

/// Byte index of the first (or last) occurrence of `target` not preceded by an odd number of
/// backslashes.
fn find_unescaped(text: &str, target: char, last: bool) -> Option<usize> {
    let mut found = None;
    let mut backslashes = 0usize;
    for (i, c) in text.char_indices() {
        if c == target && backslashes % 2 == 0 {
            if !last {
                return Some(i);
            }
            found = Some(i);
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
    }
    found
}

fn escape(content: &str) -> String {
    content.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

fn unescape(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(&next) = chars.peek() {
                if next == '(' || next == ')' || next == '\\' {
                    out.push(next);
                    chars.next();
                    continue;
                }
            }
        }
        out.push(c);
    }
    out
}

/// The name rules and decisions use for a tool: Tether's `mcp__tether__Edit` is `Edit`, and the
/// CLI's newer and older names for the shell helpers map onto the names Tether serves.
pub fn canonical_tool_name(name: &str) -> String {
    let name = name.trim();
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        let rest = canonical_builtin(rest);
        if tools::is_known_tool(rest) {
            return rest.to_string();
        }
    }
    canonical_builtin(name).to_string()
}

fn canonical_builtin(name: &str) -> &str {
    match name {
        "TaskOutput" | "BashOutputTool" => "BashOutput",
        "TaskStop" | "KillBash" => "KillShell",
        other => other,
    }
}

/// `mcp__server__tool` split into server and tool (None for the tool part of `mcp__server`).
fn mcp_parts(name: &str) -> Option<(&str, Option<&str>)> {
    let rest = name.strip_prefix("mcp__")?;
    match rest.split_once("__") {
        Some((server, tool)) if !server.is_empty() => Some((server, Some(tool))),
        Some(_) => None,
        None if !rest.is_empty() => Some((rest, None)),
        None => None,
    }
}

/// The built-in a tool-wide rule for `family` also covers: `Edit` covers every tool that edits
/// files, `Read` every tool that reads them (the settings documentation's families).
fn family_parent(tool: &str) -> Option<&'static str> {
    match tool {
        "MultiEdit" | "Write" | "NotebookEdit" => Some("Edit"),
        "Glob" | "Grep" | "LS" => Some("Read"),
        _ => None,
    }
}

/// Whether a content-less rule covers the (canonical) tool: same name, the tool's family
/// parent, or a server-wide MCP rule (`mcp__server`, `mcp__server__*`) for the tool's server.
/// Tether's tools belong to the server `tether` whichever name they are asked under.
pub fn tool_rule_covers(rule_tool: &str, tool: &str) -> bool {
    if rule_tool == tool || family_parent(tool) == Some(rule_tool) {
        return true;
    }
    let Some((rule_server, rule_part)) = mcp_parts(rule_tool) else {
        return false;
    };
    if !matches!(rule_part, None | Some("*")) {
        return false;
    }
    if tools::is_known_tool(tool) {
        return rule_server == "tether";
    }
    matches!(mcp_parts(tool), Some((server, _)) if server == rule_server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_tool_and_content_forms() {
        assert_eq!(Rule::parse("Bash"), Some(Rule::tool("Bash")));
        assert_eq!(
            Rule::parse("Bash(npm run test:*)"),
            Some(Rule::with_content("Bash", "npm run test:*"))
        );
        assert_eq!(Rule::parse("Bash()"), Some(Rule::tool("Bash")));
        assert_eq!(Rule::parse("Bash(*)"), Some(Rule::tool("Bash")));
        assert_eq!(
            Rule::parse("mcp__tether__Edit(src/**)"),
            Some(Rule::with_content("Edit", "src/**"))
        );
        assert_eq!(Rule::parse(""), None);
        assert_eq!(Rule::parse("Bash(oops"), None);
        // Found by the fuzzer: `\` printed before the content's `(` would escape it.
        assert_eq!(Rule::parse(r"\ (npm run)"), None);
        assert_eq!(Rule::parse(r"Ba\sh"), None);
    }

    #[test]
    fn escaped_parentheses_round_trip() {
        let rule = Rule::parse(r"Bash(python -c print\(1\))").unwrap();
        assert_eq!(rule.content.as_deref(), Some("python -c print(1)"));
        assert_eq!(rule.to_string(), r"Bash(python -c print\(1\))");
    }

    #[test]
    fn legacy_and_tether_names_are_canonical() {
        assert_eq!(canonical_tool_name("mcp__tether__Edit"), "Edit");
        assert_eq!(canonical_tool_name("TaskStop"), "KillShell");
        assert_eq!(canonical_tool_name("mcp__tether__TaskOutput"), "BashOutput");
        assert_eq!(canonical_tool_name("mcp__tether__Other"), "mcp__tether__Other");
    }

    #[test]
    fn server_wide_rules_cover_their_server_only() {
        assert!(tool_rule_covers("mcp__tether", "Edit"));
        assert!(tool_rule_covers("mcp__tether__*", "Bash"));
        assert!(tool_rule_covers("mcp__github", "mcp__github__create_issue"));
        assert!(!tool_rule_covers("mcp__github", "mcp__gitlab__create_issue"));
        assert!(!tool_rule_covers("mcp__github__list", "mcp__github__create_issue"));
        assert!(tool_rule_covers("Edit", "Write"));
        assert!(!tool_rule_covers("Write", "Edit"));
    }
}
