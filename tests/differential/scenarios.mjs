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

/** @type {{name: string, files: Record<string, string|Buffer|{dir: true}>, calls: (root: string) => {tool: string, input: object}[], accepted?: string}[]} */
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
  { name: "read: a PNG image", files: { "dot.png": PNG_2x2 }, calls: (r) => [read(r, "dot.png")] },
  { name: "read: a notebook", files: { "nb.ipynb": NOTEBOOK }, calls: (r) => [read(r, "nb.ipynb")] },
  { name: "read: CRLF line endings", files: { "crlf.txt": "one\r\ntwo\r\nthree\r\n" }, calls: (r) => [read(r, "crlf.txt")] },
  { name: "read: a UTF-8 BOM", files: { "bom.txt": "\uFEFFfirst\nsecond\n" }, calls: (r) => [read(r, "bom.txt")] },
  { name: "read: tabs and trailing spaces", files: { "t.txt": "\tindented\ntrailing   \n  two spaces\n" }, calls: (r) => [read(r, "t.txt")] },
  { name: "read: no final newline", files: { "n.txt": "a\nb" }, calls: (r) => [read(r, "n.txt")] },
  { name: "read: the same file twice", files: { "a.txt": "alpha\nbeta\n" }, calls: (r) => [read(r, "a.txt"), read(r, "a.txt")] },
  { name: "read: a relative path", files: { "a.txt": "alpha\n" }, calls: () => [{ tool: "Read", input: { file_path: "a.txt" } }] },
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
  { name: "write: unicode content", files: {}, calls: (r) => [write(r, "u.txt", "héllo wörld — ✓ 日本語 🎉\n")] },
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
    name: "edit: the file changed since it was read",
    files: { "a.txt": "alpha\nbeta\n" },
    calls: (r) => [read(r, "a.txt"), bash(`sleep 1; printf 'alpha\\nbeta\\nextra\\n' > ${r}/a.txt`), edit(r, "a.txt", "beta", "BETA")],
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
  // ---------------------------------------------------------------- Glob
  { name: "glob: recursive pattern", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.js", path: r } }] },
  { name: "glob: in a subfolder", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "*", path: path(r, "src") } }] },
  { name: "glob: brace pattern", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.{py,md}", path: r } }] },
  { name: "glob: no match", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "**/*.rs", path: r } }] },
  { name: "glob: a missing folder", files: SOURCES, calls: (r) => [{ tool: "Glob", input: { pattern: "*", path: path(r, "nope") } }] },
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
  // ---------------------------------------------------------------- Bash
  { name: "bash: echo", files: {}, calls: () => [bash("echo hello")] },
  { name: "bash: exit code", files: {}, calls: () => [bash("echo before; exit 3")] },
  { name: "bash: stderr", files: {}, calls: () => [bash("echo out; echo err >&2")] },
  { name: "bash: stderr only, failing", files: {}, calls: () => [bash("ls /definitely/not/here")] },
  { name: "bash: no output", files: {}, calls: () => [bash("true")] },
  { name: "bash: timeout", files: {}, calls: () => [bash("echo started; sleep 5", { timeout: 1000 })] },
  { name: "bash: working directory persists", files: { "sub/f.txt": "x\n" }, calls: () => [bash("cd sub"), bash("pwd; ls")] },
  { name: "bash: cd outside the folder", files: {}, calls: () => [bash("cd /"), bash("pwd")] },
  { name: "bash: creates a file", files: {}, calls: (r) => [bash(`printf 'made\\n' > ${r}/made.txt && cat made.txt`)] },
  { name: "bash: long output", files: {}, calls: () => [bash("seq 1 20000")] },
];
