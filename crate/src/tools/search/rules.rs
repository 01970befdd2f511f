//! Ignore files as ripgrep applies them: `.rgignore`, `.ignore` and `.gitignore` of each directory
//! from the searched one up, plus `.git/info/exclude`. Mirrors `ignore::dir::Ignore::matched_ignore`:
//! the deepest file with an opinion wins within each kind, `.rgignore` beats `.ignore` beats
//! `.gitignore` beats the exclude file, and git rules only count inside a git repository (a `.git`
//! in the directory or an ancestor) and stop at the repository's root.

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::borrow::Cow;
use std::rc::Rc;

/// Where a directory sits relative to the search root, to write a walked path relative to it.
#[derive(Clone, Debug)]
pub(crate) enum Base {
    /// The search root ("") or a directory below it, relative to the search root.
    Inside(String),
    /// An ancestor of the search root; holds the search root relative to the ancestor.
    Above(String),
}

/// The ignore-file texts found in one directory.
#[derive(Clone, Debug, Default)]
pub(crate) struct IgnoreTexts {
    pub rgignore: Option<String>,
    pub ignore: Option<String>,
    pub gitignore: Option<String>,
    pub git_exclude: Option<String>,
    pub has_git: bool,
}

/// One directory's compiled rules, linked to its parent's.
pub(crate) struct DirRules {
    base: Base,
    rgignore: Option<Gitignore>,
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    git_exclude: Option<Gitignore>,
    has_git: bool,
    /// A `.git` here or in any ancestor: without one, ripgrep ignores `.gitignore` files.
    any_git: bool,
    parent: Option<Rc<DirRules>>,
}

impl DirRules {
    pub(crate) fn new(base: Base, texts: &IgnoreTexts, parent: Option<Rc<DirRules>>) -> Rc<DirRules> {
        let any_git = texts.has_git || parent.as_ref().is_some_and(|p| p.any_git);
        Rc::new(DirRules {
            base,
            rgignore: texts.rgignore.as_deref().and_then(compile),
            ignore: texts.ignore.as_deref().and_then(compile),
            gitignore: texts.gitignore.as_deref().and_then(compile),
            git_exclude: texts.git_exclude.as_deref().and_then(compile),
            has_git: texts.has_git,
            any_git,
            parent,
        })
    }

    /// `rel` (relative to the search root, `/`-separated) as seen from this directory.
    fn relative<'a>(&self, rel: &'a str) -> Cow<'a, str> {
        match &self.base {
            Base::Inside(dir) if dir.is_empty() => Cow::Borrowed(rel),
            Base::Inside(dir) => Cow::Borrowed(
                rel.strip_prefix(dir.as_str())
                    .and_then(|r| r.strip_prefix('/'))
                    .unwrap_or(rel),
            ),
            Base::Above(prefix) => Cow::Owned(format!("{prefix}/{rel}")),
        }
    }

    /// The verdict of the ignore files on an entry of this directory.
    pub(crate) fn matched(&self, rel: &str, is_dir: bool) -> Match<()> {
        let mut custom = Match::None;
        let mut ignore = Match::None;
        let mut git = Match::None;
        let mut exclude = Match::None;
        let mut saw_git = false;
        let mut node = Some(self);
        while let Some(dir) = node {
            let path = dir.relative(rel);
            if custom.is_none() {
                custom = check(&dir.rgignore, &path, is_dir);
            }
            if ignore.is_none() {
                ignore = check(&dir.ignore, &path, is_dir);
            }
            if self.any_git && !saw_git {
                if git.is_none() {
                    git = check(&dir.gitignore, &path, is_dir);
                }
                if exclude.is_none() {
                    exclude = check(&dir.git_exclude, &path, is_dir);
                }
            }
            saw_git = saw_git || dir.has_git;
            node = dir.parent.as_deref();
        }
        custom.or(ignore).or(git).or(exclude)
    }
}

fn check(matcher: &Option<Gitignore>, path: &str, is_dir: bool) -> Match<()> {
    match matcher {
        Some(m) => m.matched(path, is_dir).map(|_| ()),
        None => Match::None,
    }
}

/// Compile an ignore file; lines that are not valid globs are skipped, as ripgrep does.
fn compile(text: &str) -> Option<Gitignore> {
    // Paths are handed over already relative to the file's directory; "." turns stripping off.
    let mut builder = GitignoreBuilder::new(".");
    for (i, line) in text.lines().enumerate() {
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(None, line);
    }
    builder.build().ok().filter(|g| !g.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(gitignore: &str, has_git: bool) -> IgnoreTexts {
        IgnoreTexts {
            gitignore: Some(gitignore.to_string()),
            has_git,
            ..IgnoreTexts::default()
        }
    }

    #[test]
    fn gitignore_needs_a_repository() {
        let without = DirRules::new(Base::Inside(String::new()), &texts("*.log", false), None);
        assert!(without.matched("a.log", false).is_none());
        let with = DirRules::new(Base::Inside(String::new()), &texts("*.log", true), None);
        assert!(with.matched("a.log", false).is_ignore());
    }

    #[test]
    fn nested_negation_and_dir_only_patterns() {
        let root = DirRules::new(Base::Inside(String::new()), &texts("*.log\nbuild/\n", true), None);
        let sub = DirRules::new(
            Base::Inside("sub".into()),
            &texts("!keep.log", false),
            Some(root.clone()),
        );
        assert!(sub.matched("sub/other.log", false).is_ignore());
        assert!(sub.matched("sub/keep.log", false).is_whitelist());
        assert!(root.matched("build", true).is_ignore());
        assert!(root.matched("build", false).is_none());
    }

    #[test]
    fn ancestor_rules_see_the_path_from_their_own_directory() {
        let top = DirRules::new(Base::Above("sub".into()), &texts("/sub/gen/\n", true), None);
        let root = DirRules::new(Base::Inside(String::new()), &IgnoreTexts::default(), Some(top));
        assert!(root.matched("gen", true).is_ignore());
    }

    #[test]
    fn git_rules_stop_at_the_repository_root() {
        let outer = DirRules::new(Base::Above("repo".into()), &texts("*.txt", true), None);
        let repo = DirRules::new(Base::Inside(String::new()), &texts("", true), Some(outer));
        assert!(repo.matched("a.txt", false).is_none());
    }
}
