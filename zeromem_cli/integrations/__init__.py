"""zeromem inside agent harnesses (Claude Code, Codex CLI, Gemini CLI): memory that arrives by
itself, at zero tokens of upkeep.

- ``harnesses``: what each harness calls its events, and what it expects back.
- ``hooks``: ``zeromem hook HARNESS EVENT``: read the hook's JSON on stdin, inject memories
  (session start, each prompt) or ingest the new part of the transcript by rules (before
  compaction, at the end of a turn or a session). A hook never breaks its harness: every
  failure is an exit 0 with nothing injected and one line on stderr, within a hard time limit.
- ``transcripts``: readers of each harness's transcript files (also ``ingest --format``).
- ``setup``: ``zeromem setup HARNESS``: the hook entries and the MCP server entry merged into
  the harness's settings files, idempotent, with a backup, a dry-run diff and an uninstall.

Everything here is a face over the public ``MemoryStore`` API and ``zeromem_cli.ingest``.
"""
