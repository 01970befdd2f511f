//! Path mapping between the CLI's side and the workspace's side.
//!
//! The CLI runs in a local *mirror* folder (one per remote host and path) and may hand tools paths
//! under that mirror, relative paths, or the workspace's own absolute paths. Tools only ever see
//! normalised absolute workspace paths. A Windows laptop driving a Linux server is a first-class
//! case: the mirror is `C:\Users\me\...` while the workspace is `/home/me/project`.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStyle {
    Posix,
    Windows,
}

impl PathStyle {
    /// The style of an absolute path as written, or None for a relative one.
    pub fn of_absolute(path: &str) -> Option<PathStyle> {
        if path.starts_with('/') {
            Some(PathStyle::Posix)
        } else if is_windows_absolute(path) {
            Some(PathStyle::Windows)
        } else {
            None
        }
    }

    fn separator(self) -> char {
        match self {
            PathStyle::Posix => '/',
            PathStyle::Windows => '\\',
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathError {
    Empty,
    NotAbsolute(String),
    OutsideWorkspace { path: String, root: String },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => f.write_str("The path is empty. Give an absolute path inside the workspace."),
            PathError::NotAbsolute(p) => write!(f, "The root path {p} is not absolute."),
            PathError::OutsideWorkspace { path, root } => write!(
                f,
                "The path {path} is outside the workspace {root}. Use a path inside the workspace."
            ),
        }
    }
}

impl std::error::Error for PathError {}

fn is_windows_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/'))
        || path.starts_with("\\\\")
}

/// Normalise an absolute path in `style`: unify separators, drop `.` and empty components, resolve
/// `..` lexically (never above the root of the path).
pub fn normalize(path: &str, style: PathStyle) -> String {
    let (prefix, rest) = split_prefix(path, style);
    let mut parts: Vec<&str> = Vec::new();
    // A backslash is an ordinary file-name character on POSIX.
    let separators: &[char] = match style {
        PathStyle::Posix => &['/'],
        PathStyle::Windows => &['/', '\\'],
    };
    for part in rest.split(separators).filter(|p| !p.is_empty() && *p != ".") {
        if part == ".." {
            parts.pop();
        } else {
            parts.push(part);
        }
    }
    let sep = style.separator();
    let mut out = prefix;
    out.push_str(&parts.join(&sep.to_string()));
    out
}

/// Splits off the root of an absolute path: "/" for POSIX, "C:\" or "\\server\share\" for Windows.
fn split_prefix(path: &str, style: PathStyle) -> (String, &str) {
    match style {
        PathStyle::Posix => ("/".to_string(), path.trim_start_matches('/')),
        PathStyle::Windows => {
            if let Some(unc) = path.strip_prefix("\\\\").or_else(|| path.strip_prefix("//")) {
                let mut it = unc.splitn(3, ['\\', '/']);
                let server = it.next().unwrap_or("");
                let share = it.next().unwrap_or("");
                let rest = it.next().unwrap_or("");
                (format!("\\\\{server}\\{share}\\"), rest)
            } else if path.len() >= 2 && path.as_bytes()[1] == b':' {
                let drive = path[..1].to_ascii_uppercase();
                (format!("{drive}:\\"), path[2..].trim_start_matches(['\\', '/']))
            } else {
                ("\\".to_string(), path.trim_start_matches(['\\', '/']))
            }
        }
    }
}

fn eq_in_style(a: &str, b: &str, style: PathStyle) -> bool {
    match style {
        PathStyle::Posix => a == b,
        PathStyle::Windows => a.eq_ignore_ascii_case(b),
    }
}

/// `path` relative to `base` when `path` is `base` or below it (both normalised, same style).
fn strip_base<'a>(path: &'a str, base: &str, style: PathStyle) -> Option<&'a str> {
    if path.len() < base.len() || !path.is_char_boundary(base.len()) {
        return None;
    }
    let (head, tail) = path.split_at(base.len());
    if !eq_in_style(head, base, style) {
        return None;
    }
    if tail.is_empty() {
        return Some("");
    }
    let sep = style.separator();
    if base.ends_with(sep) {
        return Some(tail);
    }
    tail.strip_prefix(sep)
}

#[derive(Clone, Debug)]
struct Mirror {
    root: String,
    style: PathStyle,
}

/// One more folder of a multi-root workspace: its root and, on a remote, its own mirror.
#[derive(Clone, Debug)]
struct Folder {
    root: String,
    mirror: Option<Mirror>,
}

#[derive(Clone, Debug)]
pub struct PathMapper {
    root: String,
    style: PathStyle,
    mirror: Option<Mirror>,
    /// The workspace's other folders: inside the workspace too, each mapped from its own mirror.
    folders: Vec<Folder>,
}

fn mirror_of(mirror_root: &str) -> Result<Mirror, PathError> {
    let style = PathStyle::of_absolute(mirror_root).ok_or_else(|| PathError::NotAbsolute(mirror_root.to_string()))?;
    Ok(Mirror {
        root: normalize(mirror_root, style),
        style,
    })
}

impl PathMapper {
    /// A mapper for the workspace rooted at `root` (an absolute path; its style is inferred).
    pub fn new(root: &str) -> Result<Self, PathError> {
        let style = PathStyle::of_absolute(root).ok_or_else(|| PathError::NotAbsolute(root.to_string()))?;
        Ok(PathMapper {
            root: normalize(root, style),
            style,
            mirror: None,
            folders: Vec::new(),
        })
    }

    /// Declare the CLI's local mirror folder: paths under it map onto the workspace root.
    pub fn with_mirror(mut self, mirror_root: &str) -> Result<Self, PathError> {
        self.mirror = Some(mirror_of(mirror_root)?);
        Ok(self)
    }

    /// Add one more folder of the workspace (in the root's style), with the mirror the agent
    /// knows it by on a remote. Relative paths stay relative to the first root.
    pub fn with_folder(mut self, root: &str, mirror: Option<&str>) -> Result<Self, PathError> {
        if PathStyle::of_absolute(root) != Some(self.style) {
            return Err(PathError::NotAbsolute(root.to_string()));
        }
        self.folders.push(Folder {
            root: normalize(root, self.style),
            mirror: mirror.map(mirror_of).transpose()?,
        });
        Ok(self)
    }

    /// The other folders' roots.
    pub fn folder_roots(&self) -> impl Iterator<Item = &str> {
        self.folders.iter().map(|f| f.root.as_str())
    }

    /// Every (mirror, root) pair, the first folder's first.
    fn mirrors(&self) -> impl Iterator<Item = (&Mirror, &str)> {
        let first = self.mirror.as_ref().map(|m| (m, self.root.as_str()));
        first.into_iter().chain(
            self.folders
                .iter()
                .filter_map(|f| f.mirror.as_ref().map(|m| (m, f.root.as_str()))),
        )
    }

    pub fn root(&self) -> &str {
        &self.root
    }

    pub fn style(&self) -> PathStyle {
        self.style
    }

    pub fn mirror_root(&self) -> Option<&str> {
        self.mirror.as_ref().map(|m| m.root.as_str())
    }

    /// Map a path from the model (mirror path, workspace path, or relative to the workspace root)
    /// to a normalised absolute workspace path. Containment is checked separately ([`Self::contains`]).
    pub fn resolve(&self, input: &str) -> Result<String, PathError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(PathError::Empty);
        }
        for (mirror, root) in self.mirrors() {
            if PathStyle::of_absolute(input) == Some(mirror.style) {
                let normalized = normalize(input, mirror.style);
                if let Some(rel) = strip_base(&normalized, &mirror.root, mirror.style) {
                    let rel = rel.replace(mirror.style.separator(), &self.style.separator().to_string());
                    return Ok(self.join(root, &rel));
                }
            }
        }
        match PathStyle::of_absolute(input) {
            Some(style) if style == self.style => Ok(normalize(input, self.style)),
            // A Windows-looking path on a POSIX workspace (or the reverse) that is not under the
            // mirror cannot name a workspace file.
            Some(_) => Err(PathError::OutsideWorkspace {
                path: input.to_string(),
                root: self.root.clone(),
            }),
            None => Ok(self.join(&self.root, input)),
        }
    }

    /// Resolve and require the result to be inside the workspace.
    pub fn resolve_inside(&self, input: &str) -> Result<String, PathError> {
        let path = self.resolve(input)?;
        if self.contains(&path) {
            Ok(path)
        } else {
            Err(PathError::OutsideWorkspace {
                path,
                root: self.root.clone(),
            })
        }
    }

    /// Whether a normalised workspace path is in one of the workspace's folders.
    pub fn contains(&self, path: &str) -> bool {
        strip_base(path, &self.root, self.style).is_some()
            || self
                .folders
                .iter()
                .any(|f| strip_base(path, &f.root, self.style).is_some())
    }

    /// Whether `path` is `base` or below it, both normalised workspace paths.
    pub fn is_within(&self, path: &str, base: &str) -> bool {
        strip_base(path, base, self.style).is_some()
    }

    /// The path relative to the workspace root, with `/` separators; None outside it. (On POSIX a
    /// backslash is part of a name, not a separator, and stays.)
    pub fn relative(&self, path: &str) -> Option<String> {
        strip_base(path, &self.root, self.style).map(|rel| match self.style {
            PathStyle::Posix => rel.to_string(),
            PathStyle::Windows => rel.replace('\\', "/"),
        })
    }

    /// Join a relative path (either separator) onto an absolute workspace path and normalise.
    pub fn join(&self, base: &str, rel: &str) -> String {
        if rel.is_empty() {
            return normalize(base, self.style);
        }
        let sep = self.style.separator();
        normalize(&format!("{base}{sep}{rel}"), self.style)
    }

    /// The parent directory of a normalised workspace path; None at a root.
    pub fn parent(&self, path: &str) -> Option<String> {
        let (prefix, rest) = split_prefix(path, self.style);
        if rest.is_empty() {
            return None;
        }
        let sep = self.style.separator();
        Some(match rest.rfind(sep) {
            Some(i) => format!("{prefix}{}", &rest[..i]),
            None => prefix,
        })
    }

    /// The last component of a path.
    pub fn file_name<'a>(&self, path: &'a str) -> &'a str {
        path.rsplit(['/', '\\']).next().unwrap_or(path)
    }

    /// The mirror path a workspace path corresponds to (for the CLI's side); the workspace path
    /// itself when there is no mirror or it lies outside the workspace.
    pub fn to_mirror(&self, path: &str) -> String {
        for (m, root) in self.mirrors() {
            let Some(rel) = strip_base(path, root, self.style) else {
                continue;
            };
            if rel.is_empty() {
                return m.root.clone();
            }
            let rel = match self.style {
                PathStyle::Posix => rel.to_string(),
                PathStyle::Windows => rel.replace('\\', "/"),
            };
            let sep = m.style.separator();
            return normalize(&format!("{}{sep}{}", m.root, rel), m.style);
        }
        path.to_string()
    }

    /// Rewrite occurrences of the mirror root inside a shell command to the workspace root, so a
    /// command the model wrote against the local cwd runs in the remote workspace. Both separator
    /// spellings of a Windows mirror are recognised; the remainder of each path gets `/`.
    pub fn rewrite_command(&self, command: &str) -> String {
        let mut out = command.to_string();
        for (mirror, root) in self.mirrors() {
            let mut spellings = vec![mirror.root.clone()];
            if mirror.style == PathStyle::Windows {
                spellings.push(mirror.root.replace('\\', "/"));
            }
            for spelling in spellings {
                out = replace_path_prefix(&out, &spelling, root, mirror.style);
            }
        }
        out
    }
}

/// Replace every occurrence of `from` that stands as a whole path prefix (followed by a separator,
/// a quote, whitespace or the end) with `to`; separators in the rest of that path become `/` when
/// the mirror is Windows-style.
fn replace_path_prefix(text: &str, from: &str, to: &str, style: PathStyle) -> String {
    if from.is_empty() {
        return text.to_string();
    }
    let hay = if style == PathStyle::Windows {
        text.to_ascii_lowercase()
    } else {
        text.to_string()
    };
    let needle = if style == PathStyle::Windows {
        from.to_ascii_lowercase()
    } else {
        from.to_string()
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(found) = hay[i..].find(&needle) {
        let start = i + found;
        let end = start + needle.len();
        let next = text[end..].chars().next();
        let at_boundary = matches!(
            next,
            None | Some('/' | '\\' | '"' | '\'' | ' ' | '\t' | '\n' | ';' | '&' | '|' | ')')
        );
        out.push_str(&text[i..start]);
        if !at_boundary {
            out.push_str(&text[start..end]);
            i = end;
            continue;
        }
        out.push_str(to);
        i = end;
        if style == PathStyle::Windows {
            // Convert the rest of this path token's separators.
            let rest_end = text[i..]
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|' | ')'))
                .map(|n| i + n)
                .unwrap_or(text.len());
            out.push_str(&text[i..rest_end].replace('\\', "/"));
            i = rest_end;
        }
    }
    out.push_str(&text[i..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_dot_and_dotdot_in_posix_paths() {
        assert_eq!(normalize("/a/./b/../c//d/", PathStyle::Posix), "/a/c/d");
        assert_eq!(normalize("/../..", PathStyle::Posix), "/");
    }

    #[test]
    fn normalizes_windows_drive_paths() {
        assert_eq!(normalize("c:/Users\\me\\..\\you", PathStyle::Windows), "C:\\Users\\you");
        assert_eq!(
            normalize("\\\\srv\\share\\a\\..\\b", PathStyle::Windows),
            "\\\\srv\\share\\b"
        );
    }

    #[test]
    fn a_backslash_in_a_posix_name_stays_in_its_relative_path() {
        // Found by the path_mapping fuzz target: `a\b` is one file on POSIX, not `a/b`.
        let m = PathMapper::new("/").unwrap();
        assert_eq!(m.relative("/a\\b").unwrap(), "a\\b");
        let w = PathMapper::new("C:\\ws").unwrap();
        assert_eq!(w.relative("C:\\ws\\a\\b").unwrap(), "a/b");
    }

    #[test]
    fn relative_paths_resolve_against_the_workspace_root() {
        let m = PathMapper::new("/home/u/proj").unwrap();
        assert_eq!(m.resolve("src/main.rs").unwrap(), "/home/u/proj/src/main.rs");
        assert_eq!(m.resolve("./a/../b").unwrap(), "/home/u/proj/b");
    }

    #[test]
    fn dotdot_escapes_are_refused_inside_check() {
        let m = PathMapper::new("/home/u/proj").unwrap();
        assert!(matches!(
            m.resolve_inside("../../etc/passwd"),
            Err(PathError::OutsideWorkspace { .. })
        ));
        assert!(matches!(
            m.resolve_inside("/home/u/proj/../other/x"),
            Err(PathError::OutsideWorkspace { .. })
        ));
        assert!(m.resolve_inside("/home/u/proj/a/../b").is_ok());
    }

    #[test]
    fn sibling_with_common_prefix_is_not_inside() {
        let m = PathMapper::new("/home/u/proj").unwrap();
        assert!(!m.contains("/home/u/project2/x"));
        assert!(m.contains("/home/u/proj"));
    }

    #[test]
    fn posix_mirror_maps_onto_the_remote_root() {
        let m = PathMapper::new("/srv/data/proj")
            .unwrap()
            .with_mirror("/Users/me/.tether/remote/gpu1/srv-data-proj")
            .unwrap();
        assert_eq!(
            m.resolve("/Users/me/.tether/remote/gpu1/srv-data-proj/train.py")
                .unwrap(),
            "/srv/data/proj/train.py"
        );
        assert_eq!(
            m.resolve("/Users/me/.tether/remote/gpu1/srv-data-proj").unwrap(),
            "/srv/data/proj"
        );
        assert_eq!(m.resolve("/srv/data/proj/x.py").unwrap(), "/srv/data/proj/x.py");
        assert_eq!(
            m.to_mirror("/srv/data/proj/a/b.txt"),
            "/Users/me/.tether/remote/gpu1/srv-data-proj/a/b.txt"
        );
    }

    #[test]
    fn windows_laptop_paths_map_onto_a_linux_server() {
        let m = PathMapper::new("/home/me/proj")
            .unwrap()
            .with_mirror("C:\\Users\\Me\\AppData\\Tether\\gpu1\\home-me-proj")
            .unwrap();
        assert_eq!(
            m.resolve("c:\\users\\me\\appdata\\tether\\gpu1\\home-me-proj\\src\\lib.rs")
                .unwrap(),
            "/home/me/proj/src/lib.rs"
        );
        assert_eq!(
            m.resolve("C:/Users/Me/AppData/Tether/gpu1/home-me-proj/README.md")
                .unwrap(),
            "/home/me/proj/README.md"
        );
        assert!(matches!(
            m.resolve("D:\\other\\file.txt"),
            Err(PathError::OutsideWorkspace { .. })
        ));
        assert_eq!(
            m.to_mirror("/home/me/proj/a/b"),
            "C:\\Users\\Me\\AppData\\Tether\\gpu1\\home-me-proj\\a\\b"
        );
    }

    #[test]
    fn shell_commands_have_the_mirror_prefix_rewritten() {
        let m = PathMapper::new("/srv/proj")
            .unwrap()
            .with_mirror("/Users/me/mirror/proj")
            .unwrap();
        assert_eq!(
            m.rewrite_command("cd /Users/me/mirror/proj/src && cat '/Users/me/mirror/proj/a b.txt'"),
            "cd /srv/proj/src && cat '/srv/proj/a b.txt'"
        );
        // A longer sibling name is not a match.
        assert_eq!(
            m.rewrite_command("ls /Users/me/mirror/proj2"),
            "ls /Users/me/mirror/proj2"
        );
    }

    #[test]
    fn windows_mirror_in_commands_becomes_posix() {
        let m = PathMapper::new("/srv/proj")
            .unwrap()
            .with_mirror("C:\\m\\proj")
            .unwrap();
        assert_eq!(
            m.rewrite_command("python C:\\m\\proj\\tools\\run.py --x"),
            "python /srv/proj/tools/run.py --x"
        );
        assert_eq!(m.rewrite_command("cat c:/m/proj/a.txt"), "cat /srv/proj/a.txt");
    }

    #[test]
    fn parent_and_relative() {
        let m = PathMapper::new("/r").unwrap();
        assert_eq!(m.parent("/r/a/b").as_deref(), Some("/r/a"));
        assert_eq!(m.parent("/r").as_deref(), Some("/"));
        assert_eq!(m.parent("/"), None);
        assert_eq!(m.relative("/r/a/b").as_deref(), Some("a/b"));
        assert_eq!(m.relative("/x"), None);
    }

    #[test]
    fn windows_workspace_root_is_case_insensitive() {
        let m = PathMapper::new("C:\\Work\\Proj").unwrap();
        assert!(m.contains("c:\\work\\proj\\x"));
        assert_eq!(m.resolve("src\\a.rs").unwrap(), "C:\\Work\\Proj\\src\\a.rs");
    }
}
