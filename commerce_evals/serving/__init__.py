"""One case's sandbox served to an agent outside Inspect (an MCP client), and its run recorded."""
