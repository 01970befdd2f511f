//! Path rules for Read and Edit: gitignore-style patterns rooted the way the CLI roots them.
//!
//! `//abs/path` is absolute, `~/path` is under the home directory, `/path` is under the settings
//! file's root (the project root for project and local settings), and `path` or `./path` is
//! relative to the working directories. A pattern ending in `/**` names a directory: in an allow
//! rule `src/**` is anchored at the root, in a deny or ask rule it matches a `src` directory at
//! any depth (the CLI widens denials). A pattern without a slash matches at any depth, and a
//! pattern that matches a directory matches everything below it.

use crate::paths::{normalize, PathMapper, PathStyle};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

#[derive(Clone, Debug)]
enum RuleRoot {
    /// A fixed directory (normalised, workspace style).
    Fixed(String),
    /// The working directories the caller supplies.
    WorkingDirs,
    /// A root that cannot name a workspace path (no home directory known, or a base directory
    /// in another path style): the rule never matches.
    Unavailable,
}

#[derive(Clone, Debug)]
pub struct PathPattern {
    root: RuleRoot,
    /// None matches everything below the root (an invalid deny or ask pattern, as the CLI does).
    matcher: Option<GlobSet>,
}

/// Where rule roots come from.
pub struct RootContext<'a> {
    pub style: PathStyle,
    pub home: Option<&'a str>,
    /// The directory `/path` rules are relative to.
    pub base_dir: &'a str,
}

/// Compile a Read/Edit rule content. Returns the pattern (None when it must be dropped) and a
/// warning to report.
pub fn compile(content: &str, deny_or_ask: bool, ctx: &RootContext<'_>) -> (Option<PathPattern>, Option<String>) {
    let mut content = content.to_string();
    if ctx.style == PathStyle::Windows && (content.starts_with("~\\") || content.starts_with('\\')) {
        content = content.replace('\\', "/");
    }
    let (root, relative) = split_root(&content, ctx);
    let mut relative = relative;
    while relative.contains("//") {
        relative = relative.replace("//", "/");
    }
    let pattern = directory_pattern(&relative, !deny_or_ask);
    if pattern.starts_with('!') {
        return (
            None,
            Some(format!(
                "negated path patterns are not supported; the rule for {content} is ignored"
            )),
        );
    }
    match build_matcher(&pattern, ctx.style == PathStyle::Windows) {
        Ok(matcher) => (
            Some(PathPattern {
                root,
                matcher: Some(matcher),
            }),
            None,
        ),
        Err(e) if deny_or_ask => (
            Some(PathPattern { root, matcher: None }),
            Some(format!(
                "the pattern {content} is not valid ({e}); it is applied to everything below its root"
            )),
        ),
        Err(e) => (
            None,
            Some(format!("the pattern {content} is not valid ({e}); the rule is ignored")),
        ),
    }
}

fn split_root(content: &str, ctx: &RootContext<'_>) -> (RuleRoot, String) {
    let fixed = |dir: &str| match PathStyle::of_absolute(dir) {
        Some(style) if style == ctx.style => RuleRoot::Fixed(normalize(dir, style)),
        _ => RuleRoot::Unavailable,
    };
    if let Some(rest) = content.strip_prefix('/').filter(|r| r.starts_with('/')) {
        if ctx.style == PathStyle::Windows {
            let b = rest.as_bytes();
            // `//c/Users/...` names drive C:.
            if b.len() >= 2 && b[1].is_ascii_alphabetic() && (b.len() == 2 || b[2] == b'/') {
                let drive = (b[1] as char).to_ascii_uppercase();
                return (fixed(&format!("{drive}:\\")), rest[2..].to_string());
            }
        }
        let root = match ctx.style {
            PathStyle::Posix => RuleRoot::Fixed("/".to_string()),
            PathStyle::Windows => RuleRoot::Unavailable,
        };
        return (root, rest.to_string());
    }
    if ctx.style == PathStyle::Windows {
        let b = content.as_bytes();
        if b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\') {
            let drive = (b[0] as char).to_ascii_uppercase();
            return (fixed(&format!("{drive}:\\")), content[2..].replace('\\', "/"));
        }
    }
    if let Some(rest) = content.strip_prefix('~').filter(|r| r.starts_with('/')) {
        let root = ctx.home.map(fixed).unwrap_or(RuleRoot::Unavailable);
        return (root, rest.to_string());
    }
    if content.starts_with('/') {
        return (fixed(ctx.base_dir), content.to_string());
    }
    let relative = content.strip_prefix("./").unwrap_or(content);
    (RuleRoot::WorkingDirs, relative.to_string())
}

/// The CLI's treatment of a trailing `/**`: the directory itself, anchored in allow rules unless
/// it already has a slash, unanchored in deny and ask rules.
fn directory_pattern(pattern: &str, allow: bool) -> String {
    let Some(dir) = pattern.strip_suffix("/**") else {
        return pattern.to_string();
    };
    if !dir.chars().any(|c| c != '/') {
        return "/**".to_string();
    }
    if dir.contains('/') || !allow || dir.starts_with('!') || dir.starts_with('#') {
        dir.to_string()
    } else {
        format!("/{dir}")
    }
}

/// A gitignore pattern as globs over `/`-separated relative paths: the pattern itself and
/// everything below what it matches.
fn build_matcher(pattern: &str, case_insensitive: bool) -> Result<GlobSet, globset::Error> {
    let pattern = pattern.strip_suffix('/').unwrap_or(pattern);
    let anchored = pattern.contains('/');
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    // gitignore has no `{a,b}` alternation: braces are literal.
    let pattern = pattern.replace('{', "\\{").replace('}', "\\}");
    let glob = if anchored || pattern.starts_with("**") {
        pattern
    } else {
        format!("**/{pattern}")
    };
    let mut set = GlobSetBuilder::new();
    for text in [glob.clone(), format!("{glob}/**")] {
        set.add(
            GlobBuilder::new(&text)
                .literal_separator(true)
                .backslash_escape(true)
                .case_insensitive(case_insensitive)
                .build()?,
        );
    }
    set.build()
}

impl PathPattern {
    /// Whether the pattern matches `path` (a normalised absolute workspace path). Relative
    /// patterns are tried against each of `working_dirs`.
    pub fn matches(&self, path: &str, working_dirs: &[String]) -> bool {
        let roots: Vec<&str> = match &self.root {
            RuleRoot::Fixed(root) => vec![root.as_str()],
            RuleRoot::WorkingDirs => working_dirs.iter().map(String::as_str).collect(),
            RuleRoot::Unavailable => return false,
        };
        roots.into_iter().any(|root| match relative_to(root, path) {
            Some(rel) if !rel.is_empty() => self.matcher.as_ref().is_none_or(|m| m.is_match(&rel)),
            _ => false,
        })
    }
}

/// `path` relative to `base` with `/` separators, when it lies at or below it.
pub fn relative_to(base: &str, path: &str) -> Option<String> {
    PathMapper::new(base).ok()?.relative(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> RootContext<'static> {
        RootContext {
            style: PathStyle::Posix,
            home: Some("/home/me"),
            base_dir: "/work/proj",
        }
    }

    fn matches(content: &str, deny: bool, path: &str) -> bool {
        let (pattern, warning) = compile(content, deny, &ctx());
        assert!(warning.is_none(), "{warning:?}");
        pattern.unwrap().matches(path, &["/work/proj".to_string()])
    }

    #[test]
    fn allow_directory_patterns_are_anchored_and_deny_ones_are_not() {
        assert!(matches("src/**", false, "/work/proj/src/a/b.rs"));
        assert!(!matches("src/**", false, "/work/proj/lib/src/b.rs"));
        assert!(matches("src/**", true, "/work/proj/lib/src/b.rs"));
    }

    #[test]
    fn slashless_patterns_match_at_any_depth() {
        assert!(matches("./.env", true, "/work/proj/.env"));
        assert!(matches(".env", true, "/work/proj/app/.env"));
        assert!(!matches(".env", true, "/work/proj/.envrc"));
        assert!(matches("*.key", true, "/work/proj/secrets/a.key"));
    }

    #[test]
    fn roots_follow_the_prefix() {
        assert!(matches("//etc/**", true, "/etc/passwd"));
        assert!(!matches("//etc/**", true, "/work/proj/etc/passwd"));
        assert!(matches("~/x/**", true, "/home/me/x/y"));
        assert!(matches("/docs/*.md", false, "/work/proj/docs/a.md"));
        assert!(!matches("/docs/*.md", false, "/work/proj/docs/sub/a.md"));
    }

    #[test]
    fn star_does_not_cross_directories_but_double_star_does() {
        assert!(matches("src/*.rs", false, "/work/proj/src/a.rs"));
        assert!(!matches("src/*.rs", false, "/work/proj/src/x/a.rs"));
        assert!(matches("src/**/*.rs", false, "/work/proj/src/x/y/a.rs"));
    }

    #[test]
    fn negations_are_reported() {
        let (pattern, warning) = compile("!src/**", true, &ctx());
        assert!(pattern.is_none());
        assert!(warning.unwrap().contains("negated"));
    }
}
