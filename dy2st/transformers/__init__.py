"""AST passes that rewrite user source into calls of `_jst` control-flow helpers."""
