"""The runtime that converted code calls (`_jst` is `dy2st.jst.namespace`, which gathers the
helpers): branches (`branches`), loops and iteration (`loops`, `iteration`), what tracing a path
shares (`trace_paths`), items, attributes and aliases, print/assert/casts. It builds on `runtime/`
only."""
