// What the differential suite compares, and how: the files byte for byte, each tool result as the
// model reads it (normalized only for the folder paths, timings, run-specific identifiers and the
// `mcp__tether__` prefix), and the tool definitions.

/**
 * The normalizer for one scenario's two runs. `paths`: [path, placeholder] pairs (each run's
 * folder → `<ROOT>`, its HOME → `<HOME>`, ...), longest first so a prefix never eats a longer path.
 */
export function normalizer(paths) {
  const ordered = [...paths].sort((x, y) => y[0].length - x[0].length);
  return (text) => {
    let out = text;
    for (const [from, to] of ordered) out = out.split(from).join(to);
    return (
      out
        .replaceAll("mcp__tether__", "")
        // Timings: "(took 1.2s)", "after 1234ms", "in 12 ms".
        .replace(/\b\d+(?:\.\d+)?\s?(ms|s)\b/g, "<N>$1")
        // Run-specific identifiers: background task ids and the CLI's per-session temp folder.
        .replace(/\/tmp\/claude-\d+\/[^\s/]+\/[0-9a-f-]{36}\//g, "<SESSION_TMP>/")
        .replace(/\b(ID|id|task_id|shell_id|bash_id)(:\s*|=|: )([a-z0-9]{6,12})\b/g, "$1$2<TASK_ID>")
    );
  };
}

/** One tool result as one text: `[error]` first when the model is told it failed. */
export function renderResult(result, normalize) {
  if (!result) return "(no tool result)";
  const body = result.blocks.map(normalize).join("\n--- next block ---\n");
  return (result.isError ? "[error] " : "") + body;
}

/** Differences between the two runs' files: [{path, a, b}] with a short description of each side. */
export function fileDifferences(treeA, treeB) {
  const out = [];
  const names = [...new Set([...treeA.keys(), ...treeB.keys()])].sort();
  for (const name of names) {
    const a = treeA.get(name);
    const b = treeB.get(name);
    if (a === undefined || b === undefined) {
      out.push({ path: name, a: describe(a), b: describe(b), diff: "" });
    } else if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) {
      if (!a.equals(b)) out.push({ path: name, a: describe(a), b: describe(b), diff: unifiedDiff(showBytes(a), showBytes(b), "A", "B") });
    } else if (a !== b) {
      out.push({ path: name, a: describe(a), b: describe(b), diff: "" });
    }
  }
  return out;
}

function describe(entry) {
  if (entry === undefined) return "missing";
  if (Buffer.isBuffer(entry)) return `${entry.length} bytes`;
  return entry;
}

/** File bytes as text with the invisible ones spelled out (CR, BOM, NUL), for a readable diff. */
function showBytes(buffer) {
  return buffer
    .toString("utf8")
    .replaceAll("\r", "\\r")
    .replaceAll("\uFEFF", "<BOM>")
    .replaceAll("\0", "\\0");
}

/**
 * A short unified diff of two texts (line-based, longest common subsequence; texts over a few
 * thousand lines are cut first, since the suite's outputs are small).
 */
export function unifiedDiff(a, b, nameA = "A", nameB = "B", context = 2) {
  const x = a.split("\n").slice(0, 3000);
  const y = b.split("\n").slice(0, 3000);
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  }
  const ops = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push([" ", x[i++], i, j++]);
    else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push(["+", y[j++], i, j]);
    else ops.push(["-", x[i++], i, j]);
  }
  const lines = [`--- ${nameA}`, `+++ ${nameB}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k][0] === " ") {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    while (end < ops.length) {
      if (ops[end][0] !== " ") {
        end++;
        continue;
      }
      let run = 0;
      while (end + run < ops.length && ops[end + run][0] === " ") run++;
      if (end + run >= ops.length || run > 2 * context) {
        end = Math.min(ops.length, end + context);
        break;
      }
      end += run;
    }
    lines.push(`@@ line ${ops[start][2] + (ops[start][0] === "+" ? 1 : 0)} @@`);
    for (const [op, text] of ops.slice(start, end)) lines.push(op + clip(text));
    k = end;
  }
  return lines.join("\n");
}

const clip = (line) => (line.length > 300 ? `${line.slice(0, 300)}… (${line.length} chars)` : line);

/**
 * Tool definitions, native vs Tether's: for each native tool, whether Tether's `mcp__tether__`
 * namesake has the same description and input schema.
 */
export function compareDefinitions(nativeTools, tetherTools, names) {
  return names.map((name) => {
    const native = nativeTools.get(name);
    const tether = tetherTools.get(`mcp__tether__${name}`) ?? tetherTools.get(name);
    if (!native || !tether) return { name, native: !!native, tether: !!tether, description: null, schema: null };
    const description = native.description === tether.description;
    const schemaA = JSON.stringify(sortKeys(native.input_schema), null, 1);
    const schemaB = JSON.stringify(sortKeys(tether.input_schema), null, 1);
    return {
      name,
      native: true,
      tether: true,
      description,
      descriptionDiff: description ? "" : unifiedDiff(native.description, tether.description, `native ${name}`, `tether ${name}`, 1),
      schema: schemaA === schemaB,
      schemaDiff: schemaA === schemaB ? "" : unifiedDiff(schemaA, schemaB, `native ${name}`, `tether ${name}`, 1),
    };
  });
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  }
  return value;
}
