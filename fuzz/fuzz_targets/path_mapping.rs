//! Path mapping (POSIX and Windows roots, with and without a mirror folder): resolving never
//! panics, gives a normalised path (no `.` or `..` left), is idempotent, keeps containment
//! consistent with `relative` and `join`, and a workspace path goes to the mirror and back (when
//! the mirror's style can spell it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tether_core::paths::{PathMapper, PathStyle};

const ROOTS: [&str; 7] = [
    "/ws",
    "/",
    "/a b/c.d",
    "C:\\ws",
    "c:\\",
    "\\\\server\\share\\ws",
    "D:/x/y",
];
const MIRRORS: [Option<&str>; 3] = [None, Some("/home/u/.mirror/ws-1"), Some("C:\\Users\\u\\mirror")];

fn same(style: PathStyle, a: &str, b: &str) -> bool {
    match style {
        PathStyle::Posix => a == b,
        PathStyle::Windows => a.eq_ignore_ascii_case(b),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&[choice], rest)) = data.split_first_chunk::<1>() else {
        return;
    };
    let input = String::from_utf8_lossy(rest);
    let root = ROOTS[usize::from(choice) % ROOTS.len()];
    let mut mapper = PathMapper::new(root).expect("an absolute root");
    if let Some(mirror) = MIRRORS[usize::from(choice / 8) % MIRRORS.len()] {
        mapper = mapper.with_mirror(mirror).expect("an absolute mirror");
    }
    let style = mapper.style();
    let _ = mapper.rewrite_command(&input);
    let Ok(path) = mapper.resolve(&input) else {
        return;
    };
    let sep = match style {
        PathStyle::Posix => '/',
        PathStyle::Windows => '\\',
    };
    // A UNC path's server and share are names, whatever they are.
    let skip = if path.starts_with("\\\\") { 4 } else { 0 };
    for part in path.split(sep).skip(skip) {
        assert!(part != "." && part != "..", "{input:?} -> {path:?}");
    }
    // Input is trimmed (as the CLI trims it), so a name ending in a space resolves only through
    // a path that does not end there. An absolute path under the mirror folder is the mirror's,
    // by design, so a workspace path that is also there (a mirror inside the root, as with the
    // root "/") is not idempotent: the fuzzer found "home/u/.mirror/ws-1/x" on the root "/".
    let in_mirror = mapper
        .mirror_root()
        .and_then(|mirror| PathMapper::new(mirror).ok())
        .is_some_and(|mirror| mirror.style() == style && mirror.contains(&path));
    if path.trim() == path && !in_mirror {
        assert!(
            same(style, &mapper.resolve(&path).expect("resolves again"), &path),
            "{input:?} -> {path:?}"
        );
    }
    if mapper.contains(&path) {
        let relative = mapper.relative(&path).expect("inside, so relative");
        assert!(
            same(style, &mapper.join(mapper.root(), &relative), &path),
            "{path:?} via {relative:?}"
        );
        // A POSIX name may hold a backslash, which a Windows mirror cannot spell.
        let spellable = !(style == PathStyle::Posix && relative.contains('\\'));
        if mapper.mirror_root().is_some() && spellable && path.trim() == path {
            let mirrored = mapper.to_mirror(&path);
            assert!(
                same(style, &mapper.resolve(&mirrored).expect("mirror path resolves"), &path),
                "{path:?} via {mirrored:?}"
            );
        }
    }
    let mut at = path.clone();
    for _ in 0..4096 {
        match mapper.parent(&at) {
            Some(parent) => {
                assert!(
                    mapper.is_within(&at, &parent),
                    "{at:?} is not within its parent {parent:?}"
                );
                assert!(parent.len() < at.len());
                at = parent;
            }
            None => break,
        }
    }
});
