//! What goes into a turn: the user's text, images where the agent takes them, and each
//! `@`-mentioned workspace file as a resource link (the agent reads it through Tether's tools if
//! the model wants it, so its bytes reach the laptop only then); and what the model is told about
//! a remote workspace.

use super::protocol::capabilities::PromptCapabilities;
use crate::backend::ImageInput;
use crate::mcp::SERVER_NAME;
use crate::paths::PathMapper;
use crate::tools::TOOL_NAMES;
use serde_json::{json, Value};

/// The prompt's content blocks, and how many images were left out (the agent takes none).
pub fn prompt_blocks(
    text: &str,
    images: &[ImageInput],
    caps: &PromptCapabilities,
    paths: &PathMapper,
) -> (Vec<Value>, usize) {
    let mut blocks = vec![json!({"type": "text", "text": text})];
    let mut dropped = 0;
    for image in images {
        if caps.image {
            blocks.push(json!({"type": "image", "mimeType": image.media_type, "data": image.data_base64}));
        } else {
            dropped += 1;
        }
    }
    let mut linked: Vec<String> = Vec::new();
    for mention in mentions(text) {
        let Ok(path) = paths.resolve(mention) else { continue };
        if !paths.contains(&path) || linked.contains(&path) {
            continue;
        }
        // The path as the agent knows the file: under its own working directory.
        let local = paths.to_mirror(&path);
        blocks.push(json!({
            "type": "resource_link",
            "uri": file_uri(&local),
            "name": paths.file_name(&path),
        }));
        linked.push(path);
    }
    (blocks, dropped)
}

/// `@path` tokens of the text (as the composer writes a mention), without trailing punctuation.
fn mentions(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .filter_map(|word| word.strip_prefix('@'))
        .map(|path| path.trim_end_matches([',', '.', ';', ':', ')', '!', '?']))
        .filter(|path| !path.is_empty())
}

/// A `file:` URI for an absolute path, POSIX or Windows (`C:\x` → `file:///C:/x`).
pub fn file_uri(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let encoded: String = slashed
        .chars()
        .map(|c| match c {
            ' ' => "%20".to_string(),
            '#' => "%23".to_string(),
            '?' => "%3F".to_string(),
            '%' => "%25".to_string(),
            c => c.to_string(),
        })
        .collect();
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    }
}

/// What the model is told about a remote workspace (its system prompt where the agent takes
/// one, else with the first prompt).
pub fn workspace_brief(
    root: &str,
    cwd: &str,
    os: Option<&str>,
    shell: Option<&str>,
    git_branch: Option<&str>,
    windows: bool,
) -> String {
    let os = os.unwrap_or(if windows { "Windows" } else { "Unix-like" });
    let shell = shell.unwrap_or(if windows {
        "the workspace's default shell"
    } else {
        "bash"
    });
    let branch = git_branch.map(|b| format!("\n- Git branch: {b}")).unwrap_or_default();
    let tools = TOOL_NAMES.join(", ");
    format!(
        "# Remote workspace (Tether)\n\
         The project's files are on another machine, reached through Tether:\n\
         - Working directory: {root}\n\
         - Platform: {os}\n\
         - Shell: {shell}{branch}\n\
         Your own working directory ({cwd}) is a local stand-in that holds none of the project's files; \
         paths under it name the same files in the working directory above. Your own file and shell tools are off: \
         use the tools of the `{SERVER_NAME}` MCP server ({tools}) for every file and shell operation. \
         They act on the remote machine, and shell commands run there in the shell above."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(image: bool) -> PromptCapabilities {
        PromptCapabilities {
            image,
            ..PromptCapabilities::default()
        }
    }

    #[test]
    fn mentioned_workspace_files_become_links_in_the_agents_own_namespace() {
        let paths = PathMapper::new("/srv/proj")
            .unwrap()
            .with_mirror("/home/me/mirror")
            .unwrap();
        let (blocks, _) = prompt_blocks(
            "Look at @src/main.rs and @/etc/passwd, then @src/main.rs again.",
            &[],
            &caps(false),
            &paths,
        );
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        assert_eq!(blocks[1]["type"], "resource_link");
        assert_eq!(blocks[1]["uri"], "file:///home/me/mirror/src/main.rs");
        assert_eq!(blocks[1]["name"], "main.rs");
    }

    #[test]
    fn images_go_only_to_agents_that_take_them() {
        let paths = PathMapper::new("/w").unwrap();
        let image = ImageInput {
            media_type: "image/png".into(),
            data_base64: "iVBO".into(),
        };
        let (blocks, dropped) = prompt_blocks("see", std::slice::from_ref(&image), &caps(true), &paths);
        assert_eq!((blocks.len(), dropped), (2, 0));
        assert_eq!(blocks[1]["mimeType"], "image/png");
        let (blocks, dropped) = prompt_blocks("see", &[image], &caps(false), &paths);
        assert_eq!((blocks.len(), dropped), (1, 1));
    }

    #[test]
    fn file_uris_for_posix_and_windows_paths() {
        assert_eq!(file_uri("/a b/c#d"), "file:///a%20b/c%23d");
        assert_eq!(file_uri(r"C:\Users\me\x.rs"), "file:///C:/Users/me/x.rs");
    }
}
