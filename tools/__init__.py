"""Developer tools (fuzzers, audits, size and layering checks), run as scripts or imported as
`tools.<name>`; a regular package, so that no `tools` installed elsewhere shadows it."""
