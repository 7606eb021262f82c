"""A local stand-in for a model API, for the real-harness tests: a small HTTP server on
127.0.0.1 that answers Anthropic's Messages API (what Claude Code calls at
``ANTHROPIC_BASE_URL``) and Gemini's ``generateContent`` / ``streamGenerateContent`` (what
Gemini CLI calls at ``GOOGLE_GEMINI_BASE_URL``) with a canned reply, streamed as server-sent
events when asked, and records every request body so a test can read what the model was sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

REPLY = "Noted."


def _anthropic_events(model: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    usage = {"input_tokens": 10, "output_tokens": 2}
    message = {
        "id": "msg_mock",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return [
        ("message_start", {"type": "message_start", "message": message}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 2},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


class MockModel:
    """``with MockModel() as model:`` serves on ``model.url``; ``model.requests`` holds
    (path, parsed JSON body) of every POST."""

    def __init__(self, reply: str = REPLY) -> None:
        self.reply = reply
        self.requests: list[tuple[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _events(self, events: list[tuple[str, Any]]) -> None:
                """Server-sent events, one ``event:``/``data:`` pair each."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for name, data in events:
                    self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {"data": [], "models": []})

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(size) if size else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                owner.requests.append((self.path, body))
                path = self.path.split("?")[0]
                if path.endswith("/messages/count_tokens"):
                    self._json(200, {"input_tokens": 10})
                elif path.endswith("/messages"):
                    self._anthropic(body)
                elif path.endswith("/responses"):
                    self._responses()
                elif ":streamGenerateContent" in path or ":generateContent" in path:
                    self._gemini(path)
                elif ":countTokens" in path:
                    self._json(200, {"totalTokens": 10})
                else:
                    self._json(200, {})

            def _anthropic(self, body: Any) -> None:
                model = body.get("model", "claude") if isinstance(body, dict) else "claude"
                events = _anthropic_events(model, owner.reply)
                if isinstance(body, dict) and body.get("stream"):
                    self._events(events)
                    return
                message = dict(events[0][1]["message"])
                message.update(
                    content=[{"type": "text", "text": owner.reply}], stop_reason="end_turn"
                )
                self._json(200, message)

            def _responses(self) -> None:
                item = {
                    "type": "message",
                    "role": "assistant",
                    "id": "msg_mock",
                    "content": [{"type": "output_text", "text": owner.reply}],
                }
                usage = {
                    "input_tokens": 10,
                    "input_tokens_details": None,
                    "output_tokens": 2,
                    "output_tokens_details": None,
                    "total_tokens": 12,
                }
                events = [
                    ("response.created", {"type": "response.created", "response": {"id": "r1"}}),
                    (
                        "response.output_item.done",
                        {"type": "response.output_item.done", "item": item},
                    ),
                    (
                        "response.completed",
                        {"type": "response.completed", "response": {"id": "r1", "usage": usage}},
                    ),
                ]
                self._events(events)

            def _gemini(self, path: str) -> None:
                chunk = {
                    "candidates": [
                        {
                            "content": {"role": "model", "parts": [{"text": owner.reply}]},
                            "finishReason": "STOP",
                            "index": 0,
                        }
                    ],
                    "usageMetadata": {
                        "promptTokenCount": 10,
                        "candidatesTokenCount": 2,
                        "totalTokenCount": 12,
                    },
                }
                if ":streamGenerateContent" in path:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    return
                self._json(200, chunk)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def sent(self) -> str:
        """Every request body, as one text (what the harness sent the model)."""
        return "\n".join(json.dumps(body, ensure_ascii=False) for _, body in self.requests)

    def __enter__(self) -> MockModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
