"""The answer on stdout, in the shape each harness's hooks reference gives for the event.

Claude Code, Codex and Gemini CLI all take ``{"hookSpecificOutput": {"hookEventName": ...,
"additionalContext": ...}}`` at session start and per prompt (Claude Code delivers it as a
system reminder with no visible transcript line, where plain stdout would show as hook output).
Capture events answer nothing: a Stop hook's output would make the agent continue. "Nothing"
is an empty stdout, or ``{}`` for Gemini CLI, whose hooks must print JSON only.
"""

from __future__ import annotations

import json

from zeromem_cli.integrations.harnesses import Harness


def answer(harness: Harness, event: str, context: str) -> str:
    if not context:
        return harness.nothing
    body = {
        "hookSpecificOutput": {
            "hookEventName": harness.event_name(event),
            "additionalContext": context,
        }
    }
    return json.dumps(body, ensure_ascii=False) + "\n"
