// The differential scenarios. Each names the files both folders start with and the tool calls the
// fake model makes, as a function of the folder (absolute paths differ between runs A and B). A
// scenario whose two runs differ for a reason we accept says so in `accepted` (the README's
// table repeats it); the suite then still runs it, shows the difference and checks it is the
// recorded one, instead of passing silently.

const PNG_2x2 = Buffer.from(
  "89504e470d0a1a0a0000000d4948445200000002000000020802000000fdd49a730000001049444154789c63f8cfc000440c100a001fee03fd8b5f14d40000000049454e44ae426082",
  "hex",
);

const lines = (count, make = (i) => `line ${i}`) => Array.from({ length: count }, (_, i) => make(i + 1)).join("\n") + "\n";

const NOTEBOOK = JSON.stringify(
  {
    cells: [
      { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
      {
        cell_type: "code",
        execution_count: 1,
        id: "calc",
        metadata: {},
        outputs: [{ name: "stdout", output_type: "stream", text: ["3\n"] }],
        source: ["print(1 + 2)"],
      },
    ],
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
) + "\n";

const SOURCES = {
  "src/app.js": "import { helper } from './util.js';\n\nexport function main() {\n  return helper(42);\n}\n",
  "src/util.js": "export function helper(value) {\n  // TODO: validate\n  return value * 2;\n}\n",
  "src/view.tsx": "export const View = () => <div>Hello World</div>;\n",
  "lib/tool.py": "def helper(x):\n    \"\"\"Double x.\"\"\"\n    return x * 2\n\nclass Helper:\n    pass\n",
  "docs/guide.md": "# Guide\n\nCall helper() to double a value.\nHELPER is case sensitive.\n",
  "README.md": "Project readme\nwith helper notes\n",
};

const path = (root, rel) => `${root}/${rel}`;
const read = (root, rel, extra = {}) => ({ tool: "Read", input: { file_path: path(root, rel), ...extra } });
const write = (root, rel, content) => ({ tool: "Write", input: { file_path: path(root, rel), content } });
const edit = (root, rel, old_string, new_string, extra = {}) => ({
  tool: "Edit",
  input: { file_path: path(root, rel), old_string, new_string, ...extra },
});
const grep = (root, input) => ({ tool: "Grep", input: { path: root, ...input } });
const bash = (command, extra = {}) => ({ tool: "Bash", input: { command, ...extra } });

/**
 * `calls(root)`: the tool calls, each `{tool, input}`; an input may be a function of the last
 * tool result's text (for ids a tool made up). `callsB`: run B's calls when they differ (tools
 * 2.1.330 no longer has). `accepted`: `{reason, results: [indices of the differing results],
 * files?: true}`.
 * @type {{name: string, files: Record<string, string|Buffer|{dir: true}>, calls: Function, callsB?: Function, accepted?: {reason: string, results: number[], files?: boolean}}[]}
 */
export const SCENARIOS = [
  // ---------------------------------------------------------------- Read
  { name: "read: a small text file", files: { "a.txt": "alpha\nbeta\ngamma\n" }, calls: (r) => [read(r, "a.txt")] },
  { name: "read: offset and limit", files: { "a.txt": lines(20) }, calls: (r) => [read(r, "a.txt", { offset: 5, limit: 4 })] },
  { name: "read: offset past the end", files: { "a.txt": lines(3) }, calls: (r) => [read(r, "a.txt", { offset: 10 })] },
  { name: "read: more lines than the default limit", files: { "big.txt": lines(2100) }, calls: (r) => [read(r, "big.txt")] },
  { name: "read: a very long line", files: { "long.txt": `short\n${"x".repeat(5000)}\nend\n` }, calls: (r) => [read(r, "long.txt")] },
  { name: "read: an empty file", files: { "empty.txt": "" }, calls: (r) => [read(r, "empty.txt")] },
  { name: "read: a missing file", files: { "a.txt": "x\n" }, calls: (r) => [read(r, "nope.txt")] },
  { name: "read: a directory", files: { "sub/a.txt": "x\n" }, calls: (r) => [read(r, "sub")] },
  { name: "read: a binary file", files: { "data.bin": Buffer.from([0, 1, 2, 3, 0, 255, 254, 0, 10, 0]) }, calls: (r) => [read(r, "data.bin")] },
  {
    name: "read: a PNG image",
    files: { "dot.png": PNG_2x2 },
    calls: (r) => [read(r, "dot.png")],
    accepted: {
      reason:
        "the same image block reaches the model, but for an image from an MCP tool the CLI saves a copy in its local HOME and adds a text block naming it ([Image: source: ...]); only CLAUDE_CODE_SKIP_PROMPT_HISTORY turns that off, and it also turns off the transcript --resume needs",
      results: [1],
    },
  },
  { name: "read: a notebook", files: { "nb.ipynb": NOTEBOOK }, calls: (r) => [read(r, "nb.ipynb")] },
  { name: "read: CRLF line endings", files: { "crlf.txt": "one\r\ntwo\r\nthree\r\n" }, calls: (r) => [read(r, "crlf.txt")] },
  { name: "read: a UTF-8 BOM", files: { "bom.txt": "\uFEFFfirst\nsecond\n" }, calls: (r) => [read(r, "bom.txt")] },
  { name: "read: tabs and trailing spaces", files: { "t.txt": "\tindented\ntrailing   \n  two spaces\n" }, calls: (r) => [read(r, "t.txt")] },
  { name: "read: no final newline", files: { "n.txt": "a\nb" }, calls: (r) => [read(r, "n.txt")] },
  { name: "read: the same file twice", files: { "a.txt": "alpha\nbeta\n" }, calls: (r) => [read(r, "a.txt"), read(r, "a.txt")] },
  { name: "read: a relative path", files: { "a.txt": "alpha\n" }, calls: () => [{ tool: "Read", input: { file_path: "a.txt" } }] },
  { name: "read: offset 0", files: { "a.txt": lines(4) }, calls: (r) => [read(r, "a.txt", { offset: 0, limit: 2 })] },
  { name: "read: limit past the end", files: { "a.txt": lines(4) }, calls: (r) => [read(r, "a.txt", { offset: 3, limit: 50 })] },
  { name: "read: UTF-16 with a BOM", files: { "u16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("wide text\nline two\n", "utf16le")]) }, calls: (r) => [read(r, "u16.txt")] },
  { name: "read: invalid UTF-8", files: { "latin.txt": Buffer.from("caf\xe9 cr\xe8me\nplain line\n", "latin1") }, calls: (r) => [read(r, "latin.txt")] },
  { name: "read: a JSON file", files: { "data.json": JSON.stringify({ a: 1, b: [1, 2, 3], c: { d: "e" } }, null, 2) + "\n" }, calls: (r) => [read(r, "data.json")] },
  { name: "read: over 256 KB", files: { "huge.txt": lines(30000, (i) => `row ${i} ${"z".repeat(4)}`) }, calls: (r) => [read(r, "huge.txt")] },
  { name: "read: only newlines", files: { "nl.txt": "\n\n\n" }, calls: (r) => [read(r, "nl.txt")] },
  { name: "read: a path with spaces", files: { "my folder/my file.txt": "spaced\n" }, calls: (r) => [read(r, "my folder/my file.txt")] },
  { name: "read: a hidden folder", files: { ".config/settings.ini": "[main]\nkey=value\n" }, calls: (r) => [read(r, ".config/settings.ini")] },
  // ---------------------------------------------------------------- Write
  { name: "write: a new file", files: {}, calls: (r) => [write(r, "new.txt", "fresh\ncontent\n")] },
  { name: "write: a new file in new folders", files: {}, calls: (r) => [write(r, "deep/er/new.txt", "nested\n")] },
  {
    name: "write: overwrite after Read",
    files: { "a.txt": "old\n" },
    calls: (r) => [read(r, "a.txt"), write(r, "a.txt", "new\ncontent\n")],
  },
  { name: "write: overwrite without Read", files: { "a.txt": "old\n" }, calls: (r) => [write(r, "a.txt", "new\n")] },
  {
    name: "write: overwrite a CRLF file",
    files: { "crlf.txt": "one\r\ntwo\r\n" },
    calls: (r) => [read(r, "crlf.txt"), write(r, "crlf.txt", "uno\ndos\n")],
  },
  {
    name: "write: overwrite a BOM file",
    files: { "bom.txt": "\uFEFFold\n" },
    calls: (r) => [read(r, "bom.txt"), write(r, "bom.txt", "new\n")],
  },
  {
    name: "write: overwrite a UTF-16 file",
    files: { "u16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("old\n", "utf16le")]) },
    calls: (r) => [read(r, "u16.txt"), write(r, "u16.txt", "new\n")],
  },
  {
    name: "write: the file changed since it was read",
    files: { "a.txt": "alpha\n" },
    calls: (r) => [read(r, "a.txt"), bash(`sleep 1; printf 'changed\\n' > ${r}/a.txt`), write(r, "a.txt", "mine\n")],
  },
  { name: "write: unicode content", files: {}, calls: (r) => [write(r, "u.txt", "héllo wörld — ✓ 日本語 🎉\n")] },
  { name: "write: empty content", files: {}, calls: (r) => [write(r, "empty.txt", "")] },
  { name: "write: CRLF content", files: {}, calls: (r) => [write(r, "w.txt", "one\r\ntwo\r\n")] },
  { name: "write: a directory path", files: { "sub/a.txt": "x\n" }, calls: (r) => [write(r, "sub", "text\n")] },
  {
    name: "write: twice in a row",
    files: {},
    calls: (r) => [write(r, "w.txt", "first\n"), write(r, "w.txt", "second\n")],
  },
  { name: "write: a notebook without Read", files: { "nb.ipynb": NOTEBOOK }, calls: (r) => [write(r, "nb.ipynb", NOTEBOOK.replace("Title", "Other"))] },
  // ---------------------------------------------------------------- Edit
  {
    name: "edit: a simple replacement",
    files: { "a.txt": "alpha\nbeta\ngamma\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "beta", "BETA")],
  },
  { name: "edit: without a prior Read", files: { "a.txt": "alpha\nbeta\n" }, calls: (r) => [edit(r, "a.txt", "beta", "BETA")] },
  {
    name: "edit: no match",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "delta", "DELTA")],
  },
  {
    name: "edit: ambiguous match",
    files: { "a.txt": "same\nother\nsame\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "same", "SAME")],
  },
  {
    name: "edit: replace_all",
    files: { "a.txt": "same\nother\nsame\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "same", "SAME", { replace_all: true })],
  },
  {
    name: "edit: old_string equals new_string",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "beta", "beta")],
  },
  {
    name: "edit: CRLF file",
    files: { "crlf.txt": "one\r\ntwo\r\nthree\r\n" },
    calls: (r) => [read(r, "crlf.txt"), edit(r, "crlf.txt", "two\nthree", "TWO\nTHREE")],
  },
  {
    name: "edit: BOM file",
    files: { "bom.txt": "\uFEFFfirst\nsecond\n" },
    calls: (r) => [read(r, "bom.txt"), edit(r, "bom.txt", "second", "2nd")],
  },
  {
    name: "edit: unicode text",
    files: { "u.txt": "naïve café\n日本語のテキスト\n" },
    calls: (r) => [read(r, "u.txt"), edit(r, "u.txt", "日本語", "中文")],
  },
  {
    name: "edit: curly quotes in the file, straight in old_string",
    files: { "q.txt": "He said \u201chello\u201d and \u2018bye\u2019.\n" },
    calls: (r) => [read(r, "q.txt"), edit(r, "q.txt", 'said "hello"', 'said "hi"')],
  },
  {
    name: "edit: multi-line replacement",
    files: { "src/util.js": SOURCES["src/util.js"] },
    calls: (r) => [read(r, "src/util.js"), edit(r, "src/util.js", "  // TODO: validate\n  return value * 2;", "  return value + value;")],
  },
  {
    name: "edit: delete text",
    files: { "a.txt": "keep\ndrop me\nkeep too\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "drop me\n", "")],
  },
  { name: "edit: create a file with empty old_string", files: {}, calls: (r) => [edit(r, "created.txt", "", "brand new\n")] },
  { name: "edit: a missing file", files: {}, calls: (r) => [edit(r, "missing.txt", "a", "b")] },
  {
    name: "edit: replace_all with no match",
    files: { "a.txt": "alpha\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "zeta", "ZETA", { replace_all: true })],
  },
  {
    name: "edit: empty old_string on an existing file",
    files: { "a.txt": "alpha\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "", "prefix\n")],
  },
  { name: "edit: a directory path", files: { "sub/a.txt": "x\n" }, calls: (r) => [edit(r, "sub", "a", "b")] },
  {
    name: "edit: old_string with a tab",
    files: { "m.txt": "key:\tvalue\nnext\n" },
    calls: (r) => [read(r, "m.txt"), edit(r, "m.txt", "key:\tvalue", "key:\tother")],
  },
  {
    name: "edit: a notebook through Edit",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [read(r, "nb.ipynb"), edit(r, "nb.ipynb", "Title", "Heading")],
  },
  {
    name: "edit: a file Write created",
    files: {},
    calls: (r) => [write(r, "w.txt", "one\ntwo\n"), edit(r, "w.txt", "two", "2")],
  },
  {
    name: "edit: CRLF in old_string",
    files: { "crlf.txt": "one\r\ntwo\r\n" },
    calls: (r) => [read(r, "crlf.txt"), edit(r, "crlf.txt", "one\r\ntwo", "uno\r\ndos")],
  },
  {
    name: "edit: trailing newline difference",
    files: { "a.txt": "alpha\nbeta" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "beta\n", "BETA\n")],
  },
  {
    name: "edit: the file changed since it was read",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), bash(`sleep 1; printf 'alpha\\nbeta\\nextra\\n' > ${r}/a.txt`), edit(r, "a.txt", "beta", "BETA")],
  },
  {
    name: "edit: changed since read, old_string gone",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), bash(`sleep 1; printf 'alpha\\ngamma\\n' > ${r}/a.txt`), edit(r, "a.txt", "beta", "BETA")],
  },
  {
    name: "edit: changed since read, ambiguous now",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), bash(`sleep 1; printf 'beta\\nbeta\\n' > ${r}/a.txt`), edit(r, "a.txt", "beta", "BETA")],
  },
  {
    name: "edit: two edits in a row",
    files: { "a.txt": "one\ntwo\nthree\n" },
    calls: (r) => [read(r, "a.txt"), edit(r, "a.txt", "one", "1"), edit(r, "a.txt", "three", "3")],
  },
  // ---------------------------------------------------------------- NotebookEdit
  {
    name: "notebook: replace a cell",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [read(r, "nb.ipynb"), { tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "calc", new_source: "print(40 + 2)" } }],
  },
  {
    name: "notebook: insert a cell",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [
      read(r, "nb.ipynb"),
      { tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "intro", new_source: "x = 1", cell_type: "code", edit_mode: "insert" } },
    ],
  },
  {
    name: "notebook: delete a cell",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [read(r, "nb.ipynb"), { tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "intro", new_source: "", edit_mode: "delete" } }],
  },
  {
    name: "notebook: an unknown cell id",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [read(r, "nb.ipynb"), { tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "nope", new_source: "x" } }],
  },
  {
    name: "notebook: without Read",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [{ tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "calc", new_source: "print(0)" } }],
  },
  {
    name: "notebook: change a cell's type",
    files: { "nb.ipynb": NOTEBOOK },
    calls: (r) => [
      read(r, "nb.ipynb"),
      { tool: "NotebookEdit", input: { notebook_path: path(r, "nb.ipynb"), cell_id: "calc", new_source: "Now prose.", cell_type: "markdown" } },
    ],
  },
  // ---------------------------------------------------------------- Glob
  {
    name: "glob: order of several matches",
    files: SOURCES,
    calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.js", path: r } }],
    accepted: {
      reason:
        "Tether lists the newest files first (so the 100 it keeps are the most recent, as an earlier issue specified); 2.1.330 asks ripgrep for --sort=modified, oldest first",
      results: [1],
    },
  },
  { name: "glob: recursive pattern, one match", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.py", path: r } }] },
  { name: "glob: pattern with a folder", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "src/*.tsx", path: r } }] },
  { name: "glob: without a path", files: SOURCES, calls: () => [{ tool: "Glob", input: { pattern: "docs/*.md" } }] },
  { name: "glob: a name at any depth", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "guide.md", path: r } }] },
  { name: "glob: hidden files", files: { ".hidden/secret.txt": "s\n", "shown.txt": "x\n" }, calls: (r) => [{ tool: "Glob", input: { pattern: "**/secret.txt", path: r } }] },
  { name: "glob: no match", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.rs", path: r } }] },
  { name: "glob: a missing folder", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "*", path: path(r, "nope") } }] },
  { name: "glob: a file as the path", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "*", path: path(r, "README.md") } }] },
  // ---------------------------------------------------------------- Grep
  { name: "grep: files_with_matches (default)", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper" })] },
  { name: "grep: content with line numbers", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", output_mode: "content", "-n": true })] },
  { name: "grep: content without line numbers", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", output_mode: "content", "-n": false })] },
  { name: "grep: count", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", output_mode: "count" })] },
  { name: "grep: context -C", files: SOURCES, calls: (r) => [grep(r, { pattern: "TODO", output_mode: "content", "-C": 1 })] },
  { name: "grep: -A and -B", files: SOURCES, calls: (r) => [grep(r, { pattern: "return", output_mode: "content", "-A": 1, "-B": 2 })] },
  { name: "grep: case insensitive", files: SOURCES, calls: (r) => [grep(r, { pattern: "HELPER", "-i": true })] },
  { name: "grep: type filter", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", type: "py", output_mode: "content" })] },
  { name: "grep: glob filter", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", glob: "*.{js,md}" })] },
  {
    name: "grep: multiline",
    files: SOURCES,
    calls: (r) => [grep(r, { pattern: "helper\\(value\\) \\{\\n  // TODO", multiline: true, output_mode: "content" })],
  },
  { name: "grep: head_limit", files: SOURCES, calls: (r) => [grep(r, { pattern: "e", output_mode: "content", head_limit: 3 })] },
  { name: "grep: offset", files: SOURCES, calls: (r) => [grep(r, { pattern: "e", output_mode: "content", head_limit: 2, offset: 2 })] },
  { name: "grep: only matching (-o)", files: SOURCES, calls: (r) => [grep(r, { pattern: "help\\w*", output_mode: "content", "-o": true })] },
  { name: "grep: no match", files: SOURCES, calls: (r) => [grep(r, { pattern: "zzz_nothing" })] },
  { name: "grep: one file", files: SOURCES, calls: (r) => [grep(r, { pattern: "return", path: path(r, "src/util.js"), output_mode: "content" })] },
  { name: "grep: count, case insensitive", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper", output_mode: "count", "-i": true })] },
  { name: "grep: context without line numbers", files: SOURCES, calls: (r) => [grep(r, { pattern: "class", output_mode: "content", "-C": 1, "-n": false })] },
  { name: "grep: context (long name)", files: SOURCES, calls: (r) => [grep(r, { pattern: "class", output_mode: "content", context: 2 })] },
  { name: "grep: files head_limit", files: SOURCES, calls: (r) => [grep(r, { pattern: "e", head_limit: 2 })] },
  { name: "grep: count head_limit", files: SOURCES, calls: (r) => [grep(r, { pattern: "e", output_mode: "count", head_limit: 2 })] },
  { name: "grep: head_limit 0", files: SOURCES, calls: (r) => [grep(r, { pattern: "e", output_mode: "content", head_limit: 0, path: path(r, "src") })] },
  { name: "grep: alternation", files: SOURCES, calls: (r) => [grep(r, { pattern: "TODO|class", output_mode: "content" })] },
  { name: "grep: invalid regex", files: SOURCES, calls: (r) => [grep(r, { pattern: "helper(" })] },
  { name: "grep: a missing path", files: SOURCES, calls: (r) => [grep(r, { pattern: "x", path: path(r, "nope") })] },
  { name: "grep: type js", files: SOURCES, calls: (r) => [grep(r, { pattern: "export", type: "js", output_mode: "content" })] },
  { name: "grep: glob in a subfolder", files: SOURCES, calls: (r) => [grep(r, { pattern: "export", glob: "*.tsx", path: path(r, "src") })] },
  { name: "grep: multiline with line numbers", files: SOURCES, calls: (r) => [grep(r, { pattern: "def helper.*?return", multiline: true, output_mode: "content", "-n": true })] },
  { name: "grep: context and head_limit", files: SOURCES, calls: (r) => [grep(r, { pattern: "return", output_mode: "content", "-C": 1, head_limit: 4 })] },
  { name: "grep: a pattern starting with a dash", files: { "flags.txt": "use -v for verbose\nno flag here\n" }, calls: (r) => [grep(r, { pattern: "-v", output_mode: "content" })] },
  { name: "grep: a binary file in the folder", files: { "bin.dat": Buffer.from("match\0\x01\x02 match\n"), "t.txt": "match\n" }, calls: (r) => [grep(r, { pattern: "match" })] },
  { name: "grep: hidden files", files: { ".env.example": "TOKEN=match\n", "a.txt": "no\n" }, calls: (r) => [grep(r, { pattern: "TOKEN", output_mode: "content" })] },
  { name: "grep: a long matching line", files: { "wide.txt": `${"w".repeat(600)} needle ${"w".repeat(600)}\nshort needle\n` }, calls: (r) => [grep(r, { pattern: "needle", output_mode: "content" })] },
  // ---------------------------------------------------------------- Bash
  { name: "bash: echo", files: {}, calls: () => [bash("echo hello")] },
  { name: "bash: exit code", files: {}, calls: () => [bash("echo before; exit 3")] },
  { name: "bash: stderr", files: {}, calls: () => [bash("echo out; echo err >&2")] },
  { name: "bash: stderr only, failing", files: {}, calls: () => [bash("ls /definitely/not/here")] },
  { name: "bash: no output", files: {}, calls: () => [bash("true")] },
  {
    name: "bash: timeout",
    files: {},
    calls: () => [bash("echo started; sleep 5", { timeout: 1000 })],
    accepted: {
      reason:
        "at its timeout 2.1.330 moves the command to the background and points to an output file under its local /tmp; Tether stops it and reports exit code 143 with the output so far (a background run on the workspace is what run_in_background is for)",
      results: [1],
    },
  },
  { name: "bash: working directory persists", files: { "sub/f.txt": "x\n" }, calls: () => [bash("cd sub"), bash("pwd; ls")] },
  { name: "bash: cd outside the folder", files: {}, calls: () => [bash("cd /"), bash("pwd")] },
  { name: "bash: creates a file", files: {}, calls: (r) => [bash(`printf 'made\\n' > ${r}/made.txt && cat made.txt`)] },
  { name: "bash: a pipeline", files: { "a.txt": "b\na\nc\n" }, calls: () => [bash("sort a.txt | head -2")] },
  { name: "bash: a multi-line command", files: {}, calls: () => [bash("for i in 1 2 3; do\n  echo item $i\ndone")] },
  { name: "bash: standard input is closed", files: {}, calls: () => [bash("read line; echo \"got:$line:$?\"")] },
  { name: "bash: output without a final newline", files: {}, calls: () => [bash("printf 'no newline'")] },
  { name: "bash: unicode output", files: {}, calls: () => [bash("echo 'héllo — ✓ 日本'")] },
  { name: "bash: with a description", files: {}, calls: () => [bash("echo described", { description: "Print a word" })] },
  { name: "bash: a failed cd does not move", files: { "sub/f.txt": "x\n" }, calls: () => [bash("cd sub && false"), bash("pwd")] },
  { name: "bash: cd then a relative path", files: { "sub/f.txt": "inside\n" }, calls: () => [bash("cd sub"), bash("cat f.txt")] },
  { name: "bash: blank lines around the output", files: {}, calls: () => [bash("echo; echo middle; echo")] },
  {
    name: "bash: long output",
    files: {},
    calls: () => [bash("seq 1 20000")],
    accepted: {
      reason:
        "over 30,000 characters the CLI saves its own Bash output to a file in its local HOME and shows a 2 KB preview; Tether's output stays on the workspace and is cut in the middle (head and tail), as the earlier CLI did",
      results: [1],
    },
  },
  {
    name: "bash: background run, its output, and stopping it",
    files: {},
    calls: () => {
      let started = "";
      return [
        bash("echo begin; sleep 30", { run_in_background: true }),
        { tool: "Bash", input: (last) => ((started = last), { command: "sleep 1" }) },
        { tool: "Read", input: () => ({ file_path: /written to: (\S+?\.output)/.exec(started)?.[1] ?? "(no output file)" }) },
        { tool: "TaskStop", input: () => ({ task_id: /with ID: (\w+)/.exec(started)?.[1] ?? "(no id)" }) },
      ];
    },
    callsB: () => {
      let started = "";
      return [
        bash("echo begin; sleep 30", { run_in_background: true }),
        { tool: "Bash", input: (last) => ((started = last), { command: "sleep 1" }) },
        { tool: "BashOutput", input: () => ({ bash_id: /ID: (\w+)/.exec(started)?.[1] ?? "(no id)" }) },
        { tool: "KillShell", input: () => ({ shell_id: /ID: (\w+)/.exec(started)?.[1] ?? "(no id)" }) },
      ];
    },
    accepted: {
      reason:
        "2.1.330 writes a background command's output to a file under its local /tmp and the model Reads it, then stops the task with TaskStop; with Tether the command runs on the workspace, whose output the model reads with BashOutput and stops with KillShell (the pair the CLI had before)",
      results: [1, 3, 4],
    },
  },
];
