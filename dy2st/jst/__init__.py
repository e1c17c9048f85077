"""The runtime that converted code calls (`_jst` is `dy2st.jst.namespace`): branches, loops and
iteration, items, attributes and aliases, print/assert/casts. It builds on `runtime/` only."""
