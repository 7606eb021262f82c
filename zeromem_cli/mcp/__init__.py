"""``zeromem mcp``: the memory as a Model Context Protocol server, a thin face over MemoryStore.

What lives where, and why it is split this way: only ``server`` and ``auth`` import the MCP
SDK (the optional extra ``zeromem[mcp]``), so everything a tool decides is plain code over the
public ``MemoryStore`` API that the tests and the benchmark reach through a real client.

- ``scope``: the scope a call works on is the server's; ``--allow-scope-override`` lets a call
  name another agent or session of the configured user, never another user.
- ``budget``: every read fits ``max_tokens`` (a default and a hard cap in config), counted with
  zeromem's tokenizers over both forms a client may show a model (text and structured JSON).
- ``envelope``: memory text as a model receives it: masked for secrets, inside an XML envelope
  that says it is stored data and that no memory can close.
- ``reads`` / ``writes``: what each tool does, returning ``ToolOutput(text, data)``.
- ``schemas``: the declared output schemas (export-format field names).
- ``server``: the ``MCPServer`` with the tools, their annotations, parameter aliases and
  one-line ``isError`` results; ``auth``: the bearer token of the HTTP transport.
"""

EXTRA = "zeromem[mcp]"
