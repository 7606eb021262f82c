"""Faces of zeromem inside other tools: each adapts the public ``MemoryStore`` API to another
program's plugin or hook system, and nothing in the core imports them.

- ``llm_plugin`` / ``llm_memory``: simonw's ``llm`` (``-f zeromem:QUERY``, ``-T Zeromem``).
- ``harnesses``: what each coding-agent harness (Claude Code, Codex CLI, Gemini CLI) calls its
  events, and what it expects back.
- ``hooks``: ``zeromem hook HARNESS EVENT``: read the hook's JSON on stdin, inject memories
  (session start, each prompt) or ingest the new part of the transcript by rules (before
  compaction, at the end of a turn or a session). A hook never breaks its harness: every
  failure is an exit 0 with nothing injected and one line on stderr, within a hard time limit.
- ``transcripts``: readers of each harness's transcript files (also ``ingest --format``).
- ``setup``: ``zeromem setup HARNESS``: the hook entries and the MCP server entry merged into
  the harness's settings files, idempotent, with a backup, a dry-run diff and an uninstall.
"""
