//! Diffs on `similar`: unified text and hunks in Claude's `structuredPatch` shape.
