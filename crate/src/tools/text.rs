//! Text helpers shared by the file tools: decoding, line endings, BOM, binary detection.
