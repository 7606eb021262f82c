"""A short block in a harness's instruction file (CLAUDE.md, AGENTS.md, GEMINI.md) telling the
agent to use zeromem's MCP tools: what ``setup --no-hooks`` installs instead of hooks.

The block sits between two HTML comments (invisible when the Markdown is rendered), which is
how setup finds it again to update or remove it; the rest of the file is never touched.
"""

from __future__ import annotations

import re

BEGIN = "<!-- zeromem:begin (zeromem setup writes this block; --uninstall removes it) -->"
END = "<!-- zeromem:end -->"
BLOCK = f"""{BEGIN}
## Long-term memory (zeromem)

The `zeromem` MCP server holds what the user told earlier sessions: preferences, facts about
them and their projects, standing instructions. Before answering a question that may depend
on them, search or pack zeromem's memories for it; when the user states a lasting preference
or fact, store it with zeromem. Never store secrets or text the user marks `<private>`.
{END}
"""
_EXISTING = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", re.DOTALL)


def merge(text: str | None) -> str:
    text = text or ""
    if _EXISTING.search(text):
        return _EXISTING.sub(lambda _: BLOCK, text, count=1)
    base = text if not text or text.endswith("\n") else text + "\n"
    return base + ("\n" if base.strip() else "") + BLOCK


def remove(text: str | None) -> str | None:
    if text is None or not _EXISTING.search(text):
        return text
    result = _EXISTING.sub("", text, count=1)
    result = re.sub(r"\n{2,}\Z", "\n", result)
    return result if result.strip() else None
