"""Agent frameworks behind Inspect's agent bridge, on the sandbox's tools."""
