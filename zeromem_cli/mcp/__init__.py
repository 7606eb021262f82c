"""``zeromem mcp``: the memory as a Model Context Protocol server, a thin face over MemoryStore.

What lives where, and why it is split this way: only ``server``, ``schemas`` and ``auth``
import the MCP SDK or pydantic (the optional extra ``zeromem[mcp]``), and only ``--http``
loads them; stdio is served by plain code (building the SDK's models costs most of a second
at every start). Everything a tool decides is plain code over the public ``MemoryStore`` API
that the tests and the benchmark reach through real clients.

- ``scope``: the scope a call works on is the server's; ``--allow-scope-override`` lets a call
  name another agent or session of the configured user, never another user.
- ``budget``: every read fits ``max_tokens`` (a default and a hard cap in config), counted with
  zeromem's tokenizers over both forms a client may show a model (text and structured JSON).
- ``envelope``: memory text as a model receives it: masked for secrets, inside an XML envelope
  that says it is stored data and that no memory can close.
- ``reads`` / ``writes``: what each tool does, returning ``ToolOutput(text, data)``.
- ``catalog``: the tools as plain data (names, descriptions, parameters, aliases, hints).
- ``calls``: what both servers do around a tool: aliases, scope refusal, one store call at a
  time, one-line errors.
- ``schemas``: the output models (export-format field names), written to ``outputs.json``;
  ``outputs`` publishes and checks results from that file, ``inputs`` the arguments.
- ``stdio`` / ``wire`` / ``stdin``: the stdio transport and JSON-RPC lifecycle, the
  ``tools/*`` results, the input's lone surrogates.
- ``server``: the SDK's ``MCPServer`` for ``--http``, built from the same catalog; ``auth``:
  its bearer token. ``serving`` picks one of the two.
"""

EXTRA = "zeromem[mcp]"
